//! What orders and reduces a node's moves: killers and history (with gravity), the graded
//! reductions of late moves, and how many moves late-move pruning waits for.

use super::Searcher;
use crate::moves::Move;

/// What a killer adds to a move's rank: above any quiet move's history (capped at 4,000), so a
/// quiet move ranked below it is neither the hash move nor a killer: one that late-move
/// reductions and pruning may take.
pub(super) const KILLER_RANK: i32 = 5_000;
/// The most a move's history adds to its rank.
pub const HISTORY_MAX: i32 = 4_000;
/// With [`Options::history_gravity`], a cut-off `depth` plies from the horizon moves history
/// by [`history_bonus`]`(depth)`.
///
/// [`Options::history_gravity`]: super::Options::history_gravity
pub fn history_bonus(depth: i32) -> i32 {
    (HISTORY_BONUS * depth * depth).min(HISTORY_MAX / 4)
}
/// [`history_bonus`] per ply²: 8, so that one cut-off at depth 3 moves history by 72 (1.8% of
/// [`HISTORY_MAX`]) and one at depth 8 or more by a quarter of it.
const HISTORY_BONUS: i32 = 8;
/// Late-move pruning works this many plies from the horizon and nearer.
pub const LMP_DEPTH: i32 = 3;

/// How many moves a node `depth` plies from the horizon searches before late-move pruning
/// skips its quiet ones: 6, 12 and 22 at one to three plies.
#[inline]
pub fn late_move_count(depth: i32) -> usize {
    4 + 2 * (depth * depth) as usize
}
/// How many plies shallower [`Options::graded_reductions`] first searches the `i`th move
/// (from 0) of a node `depth` plies from the horizon: ln(depth) × ln(i) / 2.25 rounded, at
/// least 1. The form chess programs use (the later a move comes in a well-ordered list, the
/// likelier it is bad, and the more a deep node can spare). A divisor of 3 (smaller
/// reductions) was tried and not kept (`docs/engine-ledger.md`, *Sequential tests*).
///
/// [`Options::graded_reductions`]: super::Options::graded_reductions
#[inline]
pub fn graded_reduction(depth: i32, i: usize) -> i32 {
    static TABLE: std::sync::LazyLock<Box<[[u8; 128]; 64]>> = std::sync::LazyLock::new(|| {
        let mut t = Box::new([[1u8; 128]; 64]);
        for (d, row) in t.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                let x = (d as f64).ln() * (m as f64).ln() / 2.25;
                *r = (x + 0.5).floor().max(1.0) as u8;
            }
        }
        t
    });
    i32::from(TABLE[depth.clamp(0, 63) as usize][i.min(127)])
}

/// Adds `bonus` (at most [`HISTORY_MAX`] either way) to a history `h`, less the more `h`
/// already leans that way, so that it stays within ±[`HISTORY_MAX`] and recent cut-offs
/// outweigh old ones.
fn gravitate(h: &mut i32, bonus: i32) {
    *h += bonus - *h * bonus.abs() / HISTORY_MAX;
}

#[inline]
pub(super) fn history_index(mv: Move) -> usize {
    let kind = match mv {
        Move::Step { .. } => 0,
        Move::Swap { .. } => 1,
        Move::Rotate { rotation, .. } => 2 + rotation as usize,
        Move::Unstack { .. } => 4,
    };
    (mv.from().index() * 80 + mv.to().index()) * 5 + kind
}

impl Searcher {
    /// Remembers `mv`, a move that cut a node off at `depth` and `ply`, to try it early
    /// elsewhere: a killer at this ply, and history for every ply; with
    /// [`Options::history_gravity`], the quiet moves `tried` before it lose as much.
    ///
    /// [`Options::history_gravity`]: super::Options::history_gravity
    pub(super) fn cut_by(&mut self, mv: Move, depth: i32, ply: usize, tried: &[Move]) {
        let k = &mut self.killers[ply];
        if k[0] != Some(mv) {
            k[1] = k[0];
            k[0] = Some(mv);
        }
        if !self.options.history_gravity {
            self.history[history_index(mv)] += depth * depth;
            return;
        }
        let bonus = history_bonus(depth);
        gravitate(&mut self.history[history_index(mv)], bonus);
        for &q in tried {
            gravitate(&mut self.history[history_index(q)], -bonus);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// History under gravity stays within its bounds whatever the bonuses, a steady bonus
    /// settles at the cap, and one malus weighs more on a move at the cap than on one never
    /// rewarded.
    #[test]
    fn history_gravity_stays_within_its_bounds() {
        let mut rng = crate::rng::Rng::new(7);
        let mut h = 0;
        for _ in 0..100_000 {
            let b = rng.below(2 * HISTORY_MAX as usize + 1) as i32 - HISTORY_MAX;
            gravitate(&mut h, b);
            assert!(h.abs() <= HISTORY_MAX, "{h} after {b}");
        }
        let mut top = 0;
        for _ in 0..1_000 {
            gravitate(&mut top, 100);
        }
        assert!(top > HISTORY_MAX - 50 && top <= HISTORY_MAX, "{top}");
        let (mut a, mut fresh) = (top, 0);
        gravitate(&mut a, -100);
        gravitate(&mut fresh, -100);
        assert!(top - a > -fresh, "{} {}", top - a, -fresh);
    }
}
