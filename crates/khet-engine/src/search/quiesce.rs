//! The quiescence search: past the horizon, only the shots that hit something.

use super::terminal_score;
use super::{MAX_PLY, Searcher};
use crate::laser::Hits;
use crate::moves::Move;
use crate::position::{Position, touches};

/// Plies of captures the quiescence search looks past the horizon: a capture and the reply's
/// recapture, no more. Khet has no checks to follow and few long capture chains, and each ply
/// makes and fires every move of the side to move; the cap bounds that work.
pub(super) const QUIESCENCE_PLIES: u32 = 2;

impl Searcher {
    /// Only shots that hit something (and Pharaoh kills) are searched past the horizon, for
    /// `qdepth` more plies ([`QUIESCENCE_PLIES`] from the horizon). Fail-soft: standing pat
    /// returns the evaluation itself, even below alpha.
    pub(super) fn quiesce(
        &mut self,
        p: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        qdepth: u32,
    ) -> i32 {
        let stand = self.evaluate(p);
        if stand >= beta || qdepth == 0 || ply >= MAX_PLY - 1 {
            return stand;
        }
        alpha = alpha.max(stand);
        let side = p.side_to_move();
        let mut captures: Vec<(i32, Position)> = Vec::new();
        let mut win = None;
        // A move that leaves a beam that hits nothing as it is captures nothing: not even made.
        let beam = p.beam_before_move();
        let quiet = beam.1 == Hits::default();
        p.for_each_move(|mv| {
            if quiet && !touches(mv, beam.0) {
                return;
            }
            let Some((child, hits)) = child_unless_over(p, mv, beam, ply, &mut win) else {
                return;
            };
            let gain = crate::eval::capture_gain(p, mv, hits, side);
            if gain > 0 {
                captures.push((gain, child));
            }
        });
        if let Some(s) = win {
            return s;
        }
        captures.sort_unstable_by_key(|c| std::cmp::Reverse(c.0));
        for (_, child) in captures {
            self.nodes += 1;
            self.quiet[ply + 1] = 0;
            let score = -self.quiesce(&child, -beta, -alpha, ply + 1, qdepth - 1);
            if score >= beta {
                return score;
            }
            alpha = alpha.max(score);
        }
        alpha
    }
}

/// `p` after `mv` (the quiescence search's way: `beam` is the mover's beam before it) and what
/// its shot hit, unless the shot ends the game: then `None`, and a win for the mover is kept
/// in `win`.
fn child_unless_over(
    p: &Position,
    mv: Move,
    beam: (u128, Hits),
    ply: usize,
    win: &mut Option<i32>,
) -> Option<(Position, Hits)> {
    let mut child = *p;
    let hits = child.play_beside(mv, beam);
    match terminal_score(p.side_to_move(), hits, ply + 1) {
        Some(s) => {
            if s > 0 {
                *win = Some(s);
            }
            None
        }
        None => Some((child, hits)),
    }
}
