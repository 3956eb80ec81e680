//! The values a tournament is made of: who plays ([`PlayerId`]), what a game gave ([`Outcome`],
//! counted in [`Points`]), and who meets whom ([`Pairing`], gathered in a [`Round`]).

use khet_engine::{Color, GameResult};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign};

/// A player, by the public id of their identity (the server's `PlayerRow::id`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PlayerId(pub String);

impl From<&str> for PlayerId {
    fn from(id: &str) -> PlayerId {
        PlayerId(id.to_owned())
    }
}

impl From<String> for PlayerId {
    fn from(id: String) -> PlayerId {
        PlayerId(id)
    }
}

impl fmt::Display for PlayerId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Points, counted in quarters so that draws (a half) and the half of a drawn opponent's half
/// point (Sonneborn–Berger) add up exactly; shown and serialized as a decimal number (`2.5`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Points(u32);

impl Points {
    /// No point.
    pub const ZERO: Points = Points(0);
    /// A draw.
    pub const HALF: Points = Points(2);
    /// A win.
    pub const ONE: Points = Points(4);

    /// `quarters` quarters of a point.
    pub const fn from_quarters(quarters: u32) -> Points {
        Points(quarters)
    }

    /// The points in quarters (exact).
    pub const fn quarters(self) -> u32 {
        self.0
    }

    /// The points as a number (exact: quarters are binary fractions).
    pub fn as_f64(self) -> f64 {
        f64::from(self.0) / 4.0
    }

    /// Half of these points, rounded down to a quarter (exact for whole and half points).
    pub const fn half(self) -> Points {
        Points(self.0 / 2)
    }
}

impl Add for Points {
    type Output = Points;
    fn add(self, other: Points) -> Points {
        Points(self.0 + other.0)
    }
}

impl AddAssign for Points {
    fn add_assign(&mut self, other: Points) {
        self.0 += other.0;
    }
}

impl Sum for Points {
    fn sum<I: Iterator<Item = Points>>(iter: I) -> Points {
        iter.fold(Points::ZERO, Add::add)
    }
}

impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.as_f64())
    }
}

impl Serialize for Points {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.as_f64())
    }
}

impl<'de> Deserialize<'de> for Points {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Points, D::Error> {
        let value = f64::deserialize(deserializer)?;
        let quarters = value * 4.0;
        if !(0.0..=f64::from(u32::MAX)).contains(&quarters) || quarters.fract() != 0.0 {
            return Err(serde::de::Error::custom(format!(
                "points must be a whole number of quarters, not {value}"
            )));
        }
        // In range and whole: the cast is exact.
        Ok(Points(quarters as u32))
    }
}

/// What a pairing gave, as a crosstable writes it (serialized so: `"1-0"`, `"+/-"`, `"bye"`).
/// The side named is the pairing's: for a bye or a rest, the one player sits in `silver`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Outcome {
    /// Silver won the game.
    #[serde(rename = "1-0")]
    SilverWon,
    /// Red won the game.
    #[serde(rename = "0-1")]
    RedWon,
    /// The game was drawn.
    #[serde(rename = "1/2-1/2")]
    Draw,
    /// Red did not come: Silver wins by forfeit.
    #[serde(rename = "+/-")]
    RedAbsent,
    /// Silver did not come: Red wins by forfeit.
    #[serde(rename = "-/+")]
    SilverAbsent,
    /// Neither came: both lose by forfeit.
    #[serde(rename = "-/-")]
    BothAbsent,
    /// A Swiss bye, given by the pairing to the one player left over: a point, no game.
    #[serde(rename = "bye")]
    Bye,
    /// A round robin's free round (the odd player out of the Berger table): no game, no point.
    #[serde(rename = "rest")]
    Rest,
}

impl Outcome {
    /// A finished game's outcome.
    pub fn from_game(result: &GameResult) -> Outcome {
        match result {
            GameResult::Win {
                winner: Color::Silver,
                ..
            } => Outcome::SilverWon,
            GameResult::Win { .. } => Outcome::RedWon,
            GameResult::Draw { .. } => Outcome::Draw,
        }
    }

    /// The points it gives the player on `side`: a win (over the board or by forfeit) and a
    /// bye 1, a draw ½, anything else 0.
    pub fn points(self, side: Color) -> Points {
        match (self, side) {
            (Outcome::Draw, _) => Points::HALF,
            (Outcome::SilverWon | Outcome::RedAbsent | Outcome::Bye, Color::Silver)
            | (Outcome::RedWon | Outcome::SilverAbsent, Color::Red) => Points::ONE,
            _ => Points::ZERO,
        }
    }

    /// Whether a game was played over the board (not a forfeit, a bye or a rest).
    pub fn played(self) -> bool {
        matches!(self, Outcome::SilverWon | Outcome::RedWon | Outcome::Draw)
    }

    /// Whether the player on `side` lost by not coming.
    pub fn absent(self, side: Color) -> bool {
        matches!(
            (self, side),
            (Outcome::BothAbsent, _)
                | (Outcome::SilverAbsent, Color::Silver)
                | (Outcome::RedAbsent, Color::Red)
        )
    }

    /// The outcome as a crosstable writes it (`"1-0"`, `"1/2-1/2"`, `"+/-"`, `"bye"`...).
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::SilverWon => "1-0",
            Outcome::RedWon => "0-1",
            Outcome::Draw => "1/2-1/2",
            Outcome::RedAbsent => "+/-",
            Outcome::SilverAbsent => "-/+",
            Outcome::BothAbsent => "-/-",
            Outcome::Bye => "bye",
            Outcome::Rest => "rest",
        }
    }
}

/// Two players who meet (`silver` moves first), or one player alone (`red` is `None`: a bye in a
/// Swiss, a rest in a round robin), with the outcome once known.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    /// The player with Silver, or the one player of a bye.
    pub silver: PlayerId,
    /// The player with Red; `None` for a bye or a rest.
    pub red: Option<PlayerId>,
    /// The outcome; `None` while the game is to be played or in play.
    pub result: Option<Outcome>,
    /// The server's code for the game, once it has made one (`None` for a bye).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

impl Pairing {
    /// A game still to be played.
    pub fn game(silver: PlayerId, red: PlayerId) -> Pairing {
        Pairing {
            silver,
            red: Some(red),
            result: None,
            code: None,
        }
    }

    /// A Swiss bye, decided at once (a point).
    pub fn bye(player: PlayerId) -> Pairing {
        Pairing {
            silver: player,
            red: None,
            result: Some(Outcome::Bye),
            code: None,
        }
    }

    /// A round robin's free round, decided at once (no point).
    pub fn rest(player: PlayerId) -> Pairing {
        Pairing {
            result: Some(Outcome::Rest),
            ..Pairing::bye(player)
        }
    }

    /// Whether this is a game between two players (not a bye or a rest).
    pub fn is_game(&self) -> bool {
        self.red.is_some()
    }

    /// The side `player` has here, if they are in it (a bye's player is on Silver's side).
    pub fn side_of(&self, player: &PlayerId) -> Option<Color> {
        if self.silver == *player {
            Some(Color::Silver)
        } else if self.red.as_ref() == Some(player) {
            Some(Color::Red)
        } else {
            None
        }
    }

    /// The player on `side` (none on Red's for a bye).
    pub fn player(&self, side: Color) -> Option<&PlayerId> {
        match side {
            Color::Silver => Some(&self.silver),
            Color::Red => self.red.as_ref(),
        }
    }

    /// `player`'s opponent, if `player` is in a game here.
    pub fn opponent_of(&self, player: &PlayerId) -> Option<&PlayerId> {
        self.player(self.side_of(player)?.other())
    }

    /// The points `player` took here (none while the game is unfinished or for others).
    pub fn points_of(&self, player: &PlayerId) -> Points {
        match (self.side_of(player), self.result) {
            (Some(side), Some(result)) => result.points(side),
            _ => Points::ZERO,
        }
    }
}

/// A round: its pairings, board by board (the highest-placed players first, byes last).
/// Serialized as the bare list of pairings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Round {
    /// The pairings, board by board.
    pub pairings: Vec<Pairing>,
}

impl Round {
    /// Whether every pairing has its outcome.
    pub fn is_complete(&self) -> bool {
        self.pairings.iter().all(|p| p.result.is_some())
    }

    /// `player`'s pairing in this round, if they have one.
    pub fn pairing_of(&self, player: &PlayerId) -> Option<&Pairing> {
        self.pairings.iter().find(|p| p.side_of(player).is_some())
    }

    /// `player`'s pairing in this round, to change.
    pub fn pairing_of_mut(&mut self, player: &PlayerId) -> Option<&mut Pairing> {
        self.pairings
            .iter_mut()
            .find(|p| p.side_of(player).is_some())
    }
}
