//! The editions and the named rule options, for where the rule books are silent.

use crate::text::ParseNameError;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Which game is played: it decides where the lasers are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Edition {
    /// Khet 1.0: fixed lasers outside the board (Silver's fires north into `j1`, Red's south
    /// into `a8`); Djeds and Obelisks.
    Khet1,
    /// Khet 2.0: each side's laser is its Sphinx in its corner (`j1` Silver, `a8` Red).
    Khet2,
}

impl fmt::Display for Edition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Edition::Khet1 => "Khet 1.0",
            Edition::Khet2 => "Khet 2.0",
        })
    }
}

/// Where a swapped piece may land.
///
/// The rule books forbid a piece to *move* onto a square reserved for the other colour, and say
/// a Scarab/Djed swap *moves* both pieces; read literally (our default) the piece that goes back
/// to the swapper's square may not land on a square reserved for its opponent either. Many
/// implementations check only the swapper's own destination: that is [`SwapLanding::Permissive`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SwapLanding {
    /// Both pieces of a swap must land on squares their colour may enter.
    #[default]
    Strict,
    /// Only the swapper's destination is checked.
    Permissive,
}

/// What happens to a player who has no legal move (possible only in Khet 1.0, whose lasers
/// cannot be turned; the rule books are silent and a player may not pass).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum NoMoves {
    /// The game is drawn, as a stalemate is in chess.
    #[default]
    Draw,
    /// The player who cannot move loses.
    Loss,
}

/// The rule options of a game. `Rules::default()` is the rule books read literally.
///
/// Choices made where the books are silent and that are not options (see the crate docs):
/// an Eye of Horus moves, rotates and swaps like a Scarab, is never removed and cannot itself be
/// swapped with; all beams of a split shot are traced on the board as it stood before the shot,
/// each piece hit is removed once (an obelisk stack loses one obelisk), and both Pharaohs lit in
/// one shot is a draw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
pub struct Rules {
    /// Where a swapped piece may land.
    pub swap_landing: SwapLanding,
    /// What having no legal move means.
    pub no_moves: NoMoves,
}

impl Rules {
    /// The option names accepted by [`Rules::apply_option`], for help texts.
    pub const OPTION_NAMES: [&'static str; 4] = [
        "strict-swap",
        "permissive-swap",
        "no-moves-draw",
        "no-moves-loss",
    ];

    /// Turns one named option on, e.g. `permissive-swap`.
    pub fn apply_option(&mut self, name: &str) -> Result<(), ParseNameError> {
        match name {
            "strict-swap" => self.swap_landing = SwapLanding::Strict,
            "permissive-swap" => self.swap_landing = SwapLanding::Permissive,
            "no-moves-draw" => self.no_moves = NoMoves::Draw,
            "no-moves-loss" => self.no_moves = NoMoves::Loss,
            _ => {
                return Err(ParseNameError::new(
                    "rule option",
                    name,
                    "strict-swap, permissive-swap, no-moves-draw or no-moves-loss",
                ));
            }
        }
        Ok(())
    }
}

impl FromStr for Rules {
    type Err = ParseNameError;

    /// A comma-separated list of option names; the empty string gives the defaults.
    fn from_str(s: &str) -> Result<Rules, ParseNameError> {
        let mut rules = Rules::default();
        for name in s.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            rules.apply_option(name)?;
        }
        Ok(rules)
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let swap = match self.swap_landing {
            SwapLanding::Strict => "strict-swap",
            SwapLanding::Permissive => "permissive-swap",
        };
        let no_moves = match self.no_moves {
            NoMoves::Draw => "no-moves-draw",
            NoMoves::Loss => "no-moves-loss",
        };
        write!(f, "{swap},{no_moves}")
    }
}
