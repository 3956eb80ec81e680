//! Move counting, the backbone of the rules tests.
//!
//! perft(0) = 1; perft(d) = Σ over the legal moves of 1 if that move's shot lights a Pharaoh (the
//! game ends there: counted once, not expanded), else perft(d − 1) of the resulting position. At
//! the last ply the moves are counted without being made, since each counts 1 either way.

use crate::moves::Move;
use crate::position::Position;

/// The number of move sequences of `depth` plies from `position`, as `docs/rules.md` (Perft)
/// defines it: a move that lights a Pharaoh ends its line and counts once.
///
/// ```
/// let classic = khet_engine::Setup::builtin("classic")?.position;
/// assert_eq!(khet_engine::perft(&classic, 3), 451_867);
/// # Ok::<(), khet_engine::UnknownSetup>(())
/// ```
pub fn perft(position: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => position.count_moves(),
        _ => {
            let mut nodes = 0;
            position.for_each_move(|mv| {
                let mut child = *position;
                let hits = child.play_unchecked(mv);
                nodes += if hits.is_game_over() {
                    1
                } else {
                    perft(&child, depth - 1)
                };
            });
            nodes
        }
    }
}

/// perft split by first move, in generation order: for finding the first move two programs
/// disagree on.
pub fn divide(position: &Position, depth: u32) -> Vec<(Move, u64)> {
    let mut out = Vec::new();
    if depth == 0 {
        return out;
    }
    position.for_each_move(|mv| {
        let mut child = *position;
        let hits = child.play_unchecked(mv);
        let n = if hits.is_game_over() {
            1
        } else {
            perft(&child, depth - 1)
        };
        out.push((mv, n));
    });
    out
}
