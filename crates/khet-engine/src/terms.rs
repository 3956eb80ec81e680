//! The terms a game is played on, beside its rules: who plays each side (a person or the
//! computer at a level), whether take-backs are allowed (casual) or not (tournament, as the
//! rule book says: "the move cannot be taken back"), and the time control. The game, its
//! settings and its saved files all speak of these, so they live here, below all of them.

use crate::level::Level;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// Who plays a side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Player {
    /// A person at the table (or anyone the program does not play for).
    Person,
    /// The engine at a level.
    Computer(Level),
    /// A person elsewhere, whose moves come through a server (`khet-server`): the table only
    /// shows them.
    Online,
}

impl Player {
    /// How a record names the player (`Person`, `Computer Master`).
    pub fn label(self) -> String {
        match self {
            Player::Person => "Person".into(),
            Player::Computer(level) => format!("Computer {}", level.name()),
            Player::Online => "Online".into(),
        }
    }

    /// The player a record names; any other name (another program's, a person's) is a person.
    /// `Online` is read too, for a program that follows online games; a game taken up from a
    /// file is played at the table, so the game turns it into a person.
    pub fn from_label(label: &str) -> Player {
        if label == "Online" {
            return Player::Online;
        }
        label
            .strip_prefix("Computer ")
            .and_then(|l| l.parse().ok())
            .map_or(Player::Person, Player::Computer)
    }
}

/// Casual games allow take-backs and hints; tournament games follow the rule book: "the move
/// cannot be taken back", and the laser may not be tested.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Mode {
    /// Take-backs, hints and the laser preview allowed.
    #[default]
    Casual,
    /// The rule book's tournament play.
    Tournament,
}

/// A time control: each side's time at the start and what a move adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeControl {
    /// Each side's time at the start.
    pub minutes: u32,
    /// What each move adds to the mover's clock.
    pub increment_seconds: u32,
}

impl TimeControl {
    /// The choices a player is offered; any other can be typed in.
    pub const PRESETS: [TimeControl; 4] = [
        TimeControl::new(3, 2),
        TimeControl::new(5, 3),
        TimeControl::new(10, 5),
        TimeControl::new(30, 0),
    ];

    /// `minutes` + `increment_seconds`.
    pub const fn new(minutes: u32, increment_seconds: u32) -> TimeControl {
        TimeControl {
            minutes,
            increment_seconds,
        }
    }

    /// Each side's time at the start.
    pub fn initial(self) -> Duration {
        Duration::from_secs(u64::from(self.minutes) * 60)
    }

    /// What a move adds.
    pub fn increment(self) -> Duration {
        Duration::from_secs(u64::from(self.increment_seconds))
    }
}

impl std::fmt::Display for TimeControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} min + {} s", self.minutes, self.increment_seconds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn player_labels_round_trip_and_strangers_are_people() {
        for p in [
            Player::Person,
            Player::Computer(Level::Master),
            Player::Online,
        ] {
            assert_eq!(Player::from_label(&p.label()), p);
        }
        assert_eq!(Player::from_label("Khet2-AI"), Player::Person);
        assert_eq!(Player::from_label("Computer Nobody"), Player::Person);
        assert_eq!(TimeControl::new(3, 2).to_string(), "3 min + 2 s");
        assert_eq!(TimeControl::new(3, 2).initial(), Duration::from_secs(180));
    }
}
