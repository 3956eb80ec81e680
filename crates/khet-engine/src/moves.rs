//! Moves and their text.
//!
//! Text forms, as the Khet2-AI engine writes them, plus one of our own for unstacking:
//! - `h2g2`: a step to an empty square, a swap (a Scarab, Djed or Eye trading places with its
//!   neighbour), a whole obelisk stack stepping, or a single obelisk stepping onto its partner;
//! - `h2+` / `h2-`: a quarter turn clockwise / anticlockwise (the Sphinx too);
//! - `d1e2^`: the top obelisk of the stack on `d1` steps alone to `e2` (our extension).
//!
//! Text alone cannot tell a step from a swap;
//! [`Position::parse_move`](crate::Position::parse_move) reads it against the board.

use crate::piece::Rotation;
use crate::square::Square;
use std::fmt;

/// One move: a step, a swap, a quarter turn, or (Khet 1.0) the top Obelisk of a stack stepping
/// alone. Its `Display` is the move text; [`Position::parse_move`](crate::Position::parse_move)
/// reads it back against a board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Move {
    /// One piece (or a whole obelisk stack) steps to a neighbouring square: an empty one, or, for
    /// a single obelisk, one holding its own single partner, onto which it stacks.
    #[allow(missing_docs)]
    Step { from: Square, to: Square },
    /// A Scarab, Djed or Eye on `from` trades places with the Pyramid, Anubis or Obelisk(s) on
    /// `to`; neither rotates.
    #[allow(missing_docs)]
    Swap { from: Square, to: Square },
    /// A quarter turn of the piece on `at`.
    #[allow(missing_docs)]
    Rotate { at: Square, rotation: Rotation },
    /// The top obelisk of the stack on `from` steps alone to `to` (empty, or its own single
    /// obelisk), leaving the bottom one.
    #[allow(missing_docs)]
    Unstack { from: Square, to: Square },
}

impl Move {
    /// The square the moving piece starts on.
    pub fn from(self) -> Square {
        match self {
            Move::Step { from, .. } | Move::Swap { from, .. } | Move::Unstack { from, .. } => from,
            Move::Rotate { at, .. } => at,
        }
    }

    /// The square the moving piece ends on (its own square for a rotation).
    pub fn to(self) -> Square {
        match self {
            Move::Step { to, .. } | Move::Swap { to, .. } | Move::Unstack { to, .. } => to,
            Move::Rotate { at, .. } => at,
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Step { from, to } | Move::Swap { from, to } => write!(f, "{from}{to}"),
            Move::Rotate { at, rotation } => write!(f, "{at}{}", rotation.symbol()),
            Move::Unstack { from, to } => write!(f, "{from}{to}^"),
        }
    }
}

/// Move text read without a board: what
/// [`Position::parse_move`](crate::Position::parse_move) resolves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveText {
    /// `h2g2`
    Between(Square, Square),
    /// `h2+`, `h2-`
    Turn(Square, Rotation),
    /// `d1e2^`
    Top(Square, Square),
}

/// Why move text could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseMoveError {
    /// The text as given.
    pub text: String,
}

impl fmt::Display for ParseMoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a move (write h2g2 to step or swap, h2+ or h2- to turn, d1e2^ to move a stack's top Obelisk)",
            crate::text::quote(&self.text)
        )
    }
}

impl std::error::Error for ParseMoveError {}

impl std::str::FromStr for MoveText {
    type Err = ParseMoveError;

    fn from_str(s: &str) -> Result<MoveText, ParseMoveError> {
        let err = || ParseMoveError {
            text: s.to_string(),
        };
        let t = s.trim();
        if !t.is_ascii() || t.len() < 3 {
            return Err(err());
        }
        let from: Square = t[..2].parse().map_err(|_| err())?;
        let rest = &t[2..];
        match rest {
            "+" => Ok(MoveText::Turn(from, Rotation::Clockwise)),
            "-" => Ok(MoveText::Turn(from, Rotation::Anticlockwise)),
            _ if rest.len() == 2 => Ok(MoveText::Between(from, rest.parse().map_err(|_| err())?)),
            _ if rest.len() == 3 && rest.ends_with('^') => {
                Ok(MoveText::Top(from, rest[..2].parse().map_err(|_| err())?))
            }
            _ => Err(err()),
        }
    }
}
