//! Games that last days: each move has a number of days, the clock of correspondence chess
//! (lichess's, the Khet clubs' by post): the days start again after every move, and nothing
//! carries over. The server keeps each turn's start, so a restart costs nobody a day and gives
//! nobody one; a player whose days run out may have the game claimed from them
//! ([`crate::ClientMsg::ClaimAbandoned`]), as a player gone from a live game may.

use crate::{ClockSpec, PlayerInfo, Status};
use khet_engine::Color;
use serde::{Deserialize, Serialize};

/// A day, in milliseconds.
pub const DAY_MS: u64 = 24 * 60 * 60 * 1000;

/// The days a move a game may have: those of lichess's correspondence, which its players chose
/// among for years.
pub const DAYS_PER_MOVE: [u32; 6] = [1, 2, 3, 5, 7, 14];

/// Whether a game may have `days` a move ([`DAYS_PER_MOVE`]), and not with a clock as well.
pub fn check_days(days: u32, clock: Option<ClockSpec>) -> Result<(), String> {
    if clock.is_some() {
        return Err("a game has a clock or days a move, not both".into());
    }
    if DAYS_PER_MOVE.contains(&days) {
        Ok(())
    } else {
        let list: Vec<String> = DAYS_PER_MOVE.iter().map(u32::to_string).collect();
        Err(format!(
            "{days} days a move is not offered: {} days",
            list.join(", ")
        ))
    }
}

/// A game's pace as players write it: `5+3`, `3 days a move`, `no clock`.
pub fn pace(clock: Option<ClockSpec>, days_per_move: Option<u32>) -> String {
    match (clock, days_per_move) {
        (_, Some(1)) => "1 day a move".into(),
        (_, Some(days)) => format!("{days} days a move"),
        (Some(clock), None) => clock.to_string(),
        (None, None) => "no clock".into(),
    }
}

/// One of a player's games, as their list of games shows it ([`crate::ServerMsg::MyGames`]):
/// enough to sort it, show it and open it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MyGame {
    /// Its code (the player's own games: an unlisted game's code is theirs to know).
    pub code: String,
    /// Its setup.
    pub setup: String,
    /// Open (waiting for an opponent) or being played.
    pub status: Status,
    /// The player's side, once known (an open game with a random side has none yet).
    pub color: Option<Color>,
    /// The opponent, once there is one.
    pub opponent: Option<PlayerInfo>,
    /// It is the player's move.
    pub your_turn: bool,
    /// Moves played.
    pub plies: u32,
    /// Rated or casual.
    pub rated: bool,
    /// Its live clock, if it has one.
    pub clock: Option<ClockSpec>,
    /// Its days a move, if it is a correspondence game.
    pub days_per_move: Option<u32>,
    /// When the side to move's days run out (the server's Unix milliseconds).
    pub deadline_ms: Option<u64>,
    /// The time they had left when the list was sent: what a device whose clock may be wrong
    /// counts down from.
    pub left_ms: Option<u64>,
    /// The tournament it is a game of.
    pub tournament: Option<String>,
}

/// `ms` as a person reads a time left of days: `2 days 3 hours`, `5 hours 12 minutes`,
/// `40 seconds`.
pub fn time_left(ms: u64) -> String {
    let plural = |n: u64, unit: &str| {
        if n == 1 {
            format!("1 {unit}")
        } else {
            format!("{n} {unit}s")
        }
    };
    let (days, hours) = (ms / DAY_MS, ms % DAY_MS / 3_600_000);
    let (minutes, seconds) = (ms % 3_600_000 / 60_000, ms % 60_000 / 1000);
    if days > 0 {
        format!("{} {}", plural(days, "day"), plural(hours, "hour"))
    } else if hours > 0 {
        format!("{} {}", plural(hours, "hour"), plural(minutes, "minute"))
    } else if minutes > 0 {
        plural(minutes, "minute")
    } else {
        plural(seconds.max(1), "second")
    }
}

#[cfg(test)]
mod tests {
    use super::time_left;
    use crate::{ClientMsg, GameEvent, NewGame, SeatChoice};

    /// What a version-1 client (one older than games of days) reads of a live game is what it
    /// read before: none of the new keys is written where it does not apply, so an older game
    /// or server that refuses unknown keys (as `NewGame` and `ClockSpec` do) still reads it.
    #[test]
    fn a_live_games_messages_carry_none_of_the_new_keys() {
        let create = ClientMsg::Create(NewGame {
            setup: "classic".into(),
            clock: Some(crate::ClockSpec::minutes(5, 3)),
            color: SeatChoice::Silver,
            rated: false,
            listed: true,
            days_per_move: None,
        });
        let moved = GameEvent::Moved {
            ply: 0,
            mv: "c1+".into(),
            clocks: None,
            deadline_ms: None,
        };
        for json in [create.to_json(), serde_json::to_string(&moved).unwrap()] {
            assert!(
                !json.contains("days_per_move") && !json.contains("deadline_ms"),
                "{json}"
            );
        }
        // And a version-1 create, without the key, reads as a live game.
        let old = r#"{"type":"create","setup":"classic","clock":{"initial_ms":300000,"increment_ms":3000},"color":"silver","rated":false,"listed":true}"#;
        assert_eq!(ClientMsg::from_json(old), Ok(create));
    }

    #[test]
    fn a_pace_reads_as_players_write_it() {
        use super::pace;
        assert_eq!(pace(None, Some(1)), "1 day a move");
        assert_eq!(pace(None, Some(14)), "14 days a move");
        assert_eq!(pace(Some(crate::ClockSpec::minutes(5, 3)), None), "5+3");
        assert_eq!(pace(None, None), "no clock");
    }

    #[test]
    fn a_time_left_reads_in_its_two_largest_units() {
        assert_eq!(
            time_left(2 * 86_400_000 + 3 * 3_600_000 + 5),
            "2 days 3 hours"
        );
        assert_eq!(time_left(86_400_000), "1 day 0 hours");
        assert_eq!(time_left(5 * 3_600_000 + 12 * 60_000), "5 hours 12 minutes");
        assert_eq!(time_left(61_000), "1 minute");
        assert_eq!(time_left(40_000), "40 seconds");
        assert_eq!(time_left(10), "1 second");
    }
}
