//! What a shot does to the board, as a value ([`Hits`]): which pieces it hit, whether it lit a
//! Pharaoh. Apart from the tracer, since the position (which plays a move and removes what its
//! shot hit) and the search take it as the tracer gives it.

use crate::piece::Color;
use crate::square::Square;

/// What the pieces a shot touched will suffer: a set of squares (bit = square index) and which
/// Pharaohs were lit. Every piece is counted once however many beams reach it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Hits {
    /// Bit `i` set: the piece on square `i` (not a Pharaoh) is hit.
    pub squares: u128,
    /// Bit `c` set: the Pharaoh of colour `c` is lit.
    pub pharaohs: u8,
}

impl Hits {
    /// Whether `color`'s Pharaoh was lit.
    pub fn pharaoh_hit(self, color: Color) -> bool {
        self.pharaohs & (1 << color as u8) != 0
    }

    /// Whether the shot ends the game.
    pub fn is_game_over(self) -> bool {
        self.pharaohs != 0
    }

    /// Hit squares, lowest index first.
    pub fn squares(self) -> impl Iterator<Item = Square> {
        let mut bits = self.squares;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            Square::new(i as u8)
        })
    }

    /// How many pieces were hit, Pharaohs included.
    pub fn count(self) -> u32 {
        self.squares.count_ones() + self.pharaohs.count_ones()
    }
}
