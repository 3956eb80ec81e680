//! Tournaments as clients see them: what a creator asks for ([`NewTournament`]) and what
//! everyone is shown ([`TournamentView`]: the server's `/tournaments/CODE.json` too, and
//! [`crate::ServerMsg::Tournament`]).

use crate::ClockSpec;
use serde::{Deserialize, Serialize};

/// The kind of tournament, with what sets its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum TournamentKind {
    /// A set number of rounds, paired by score; no two players meet twice.
    Swiss {
        /// Rounds to play.
        rounds: u32,
    },
    /// Everyone meets everyone once, or twice with colours swapped.
    RoundRobin {
        /// Twice round.
        #[serde(default)]
        double: bool,
    },
    /// Free players paired again at once for a fixed time; a game begun before the end is
    /// played out.
    Arena {
        /// Its length.
        minutes: u32,
    },
}

/// The most rounds a Swiss may have, and the longest arena: a club's evening, or a week's.
pub const MAX_ROUNDS: u32 = 30;
/// The longest arena, in minutes (a day).
pub const MAX_ARENA_MINUTES: u32 = 24 * 60;
/// The longest name of a tournament, in characters.
pub const MAX_TOURNAMENT_NAME: usize = 60;

impl TournamentKind {
    /// The kind's name as the server's admin command and pages write it.
    pub fn name(self) -> &'static str {
        match self {
            TournamentKind::Swiss { .. } => "swiss",
            TournamentKind::RoundRobin { double: false } => "round-robin",
            TournamentKind::RoundRobin { double: true } => "double-round-robin",
            TournamentKind::Arena { .. } => "arena",
        }
    }

    /// Whether the server takes it: a Swiss of 1 to [`MAX_ROUNDS`] rounds, an arena of 1 to
    /// [`MAX_ARENA_MINUTES`] minutes.
    pub fn check(self) -> Result<(), String> {
        match self {
            TournamentKind::Swiss { rounds } if !(1..=MAX_ROUNDS).contains(&rounds) => Err(
                format!("a Swiss has 1 to {MAX_ROUNDS} rounds, not {rounds}"),
            ),
            TournamentKind::Arena { minutes } if !(1..=MAX_ARENA_MINUTES).contains(&minutes) => {
                Err(format!(
                    "an arena lasts 1 to {MAX_ARENA_MINUTES} minutes, not {minutes}"
                ))
            }
            _ => Ok(()),
        }
    }
}

/// A tournament to create.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewTournament {
    /// Its name, as players see it (checked as a player's name is, up to
    /// [`MAX_TOURNAMENT_NAME`] characters).
    pub name: String,
    /// Its kind and length.
    pub kind: TournamentKind,
    /// The built-in setup every game starts from.
    pub setup: String,
    /// Every game's clock (a tournament's games have one: a player who does not come loses
    /// on time, and the round goes on).
    pub clock: ClockSpec,
    /// Whether its games are rated.
    #[serde(default)]
    pub rated: bool,
    /// Listed on the server's tournaments page; one that is not is reached by its code.
    #[serde(default = "yes")]
    pub listed: bool,
    /// When it starts by itself (Unix milliseconds); none: when its creator or the operator
    /// starts it.
    #[serde(default)]
    pub starts_ms: Option<u64>,
}

fn yes() -> bool {
    true
}

/// Where a tournament is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TournamentStatus {
    /// Taking players; not started.
    Created,
    /// Under way.
    Running,
    /// Held by the operator: games in play go on, no new pairings.
    Paused,
    /// Over: its standings are final.
    Finished,
}

/// A player's line in the standings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentPlayer {
    /// The player's id (as [`crate::PlayerInfo::id`]).
    pub id: String,
    /// Their name.
    pub name: String,
    /// Their points.
    pub points: f64,
    /// Buchholz: their opponents' points.
    pub buchholz: f64,
    /// Sonneborn–Berger: the points of those they beat, and half of those they drew.
    pub sonneborn_berger: f64,
    /// An arena's score (wins in a row count double).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arena_score: Option<u32>,
    /// Games played over the board.
    pub games: u32,
    /// Withdrawn (by themselves, or after two absences): paired no more.
    pub withdrawn: bool,
}

/// A pairing of a round.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentPairing {
    /// Silver's player's name (the one player of a bye).
    pub silver: String,
    /// Red's player's name; none for a bye or a round robin's rest.
    pub red: Option<String>,
    /// Silver's player's id.
    pub silver_id: String,
    /// Red's player's id.
    pub red_id: Option<String>,
    /// "1-0", "0-1", "1/2-1/2"; "+/-", "-/+", "-/-" for a forfeit; "bye", "rest"; none while
    /// the game is to be played or in play.
    pub result: Option<String>,
    /// The game's code, once made (none for a bye).
    pub code: Option<String>,
}

/// A tournament as everyone sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentView {
    /// Its code.
    pub code: String,
    /// Its name.
    pub name: String,
    /// Its kind and length.
    pub kind: TournamentKind,
    /// Every game's setup.
    pub setup: String,
    /// Every game's clock.
    pub clock: ClockSpec,
    /// Whether its games are rated.
    pub rated: bool,
    /// Where it is.
    pub status: TournamentStatus,
    /// When it starts by itself, if set; when it started, once it has.
    pub starts_ms: Option<u64>,
    /// When an arena ends (set when it starts).
    pub ends_ms: Option<u64>,
    /// The players in standings order, first place first.
    pub players: Vec<TournamentPlayer>,
    /// The rounds paired so far, each a list of pairings, board by board (an arena's: each
    /// batch paired at once).
    pub rounds: Vec<Vec<TournamentPairing>>,
}

impl TournamentView {
    /// The pairing of player `id` whose game is not over, if any: the game to play now.
    pub fn game_for(&self, id: &str) -> Option<&TournamentPairing> {
        self.rounds.iter().flatten().find(|p| {
            p.result.is_none()
                && p.code.is_some()
                && (p.silver_id == id || p.red_id.as_deref() == Some(id))
        })
    }
}

/// A tournament as the list of tournaments shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentEntry {
    /// Its code.
    pub code: String,
    /// Its name.
    pub name: String,
    /// Its kind and length.
    pub kind: TournamentKind,
    /// Every game's clock.
    pub clock: ClockSpec,
    /// Where it is.
    pub status: TournamentStatus,
    /// When it starts (or started).
    pub starts_ms: Option<u64>,
    /// How many players are in (withdrawn ones too).
    pub players: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_read_as_the_json_and_the_admin_command_write_them() {
        let swiss: TournamentKind = serde_json::from_str(r#"{"type":"swiss","rounds":3}"#).unwrap();
        assert_eq!(swiss, TournamentKind::Swiss { rounds: 3 });
        let rr: TournamentKind = serde_json::from_str(r#"{"type":"round-robin"}"#).unwrap();
        assert_eq!(rr, TournamentKind::RoundRobin { double: false });
        assert_eq!(TournamentKind::Arena { minutes: 30 }.name(), "arena");
        assert!(TournamentKind::Swiss { rounds: 0 }.check().is_err());
        assert!(TournamentKind::Arena { minutes: 0 }.check().is_err());
        assert!(TournamentKind::Arena { minutes: 60 }.check().is_ok());
    }

    #[test]
    fn a_tournaments_name_is_checked_as_a_players_is_with_its_own_length() {
        let check = |s: &str| crate::check_text(s, "tournament's name", MAX_TOURNAMENT_NAME);
        assert_eq!(check("  Club night  ").unwrap(), "Club night");
        assert!(check(&"x".repeat(MAX_TOURNAMENT_NAME)).is_ok());
        let long = check(&"x".repeat(MAX_TOURNAMENT_NAME + 1)).unwrap_err();
        assert!(long.contains("at most 60"), "{long}");
        let hidden = check("Club\u{202E}night").unwrap_err();
        assert!(
            hidden.contains("U+202E") && hidden.contains("tournament's name"),
            "{hidden}"
        );
        assert!(check(" ").is_err());
    }

    #[test]
    fn a_new_tournament_is_listed_and_unstarted_unless_said() {
        let new: NewTournament = serde_json::from_str(
            r#"{"name":"Club night","kind":{"type":"swiss","rounds":3},"setup":"classic","clock":{"initial_ms":300000,"increment_ms":2000}}"#,
        )
        .unwrap();
        assert!(new.listed && !new.rated && new.starts_ms.is_none());
    }
}
