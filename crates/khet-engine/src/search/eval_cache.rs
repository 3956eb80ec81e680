//! Evaluations kept by position key, per thread.

use crate::eval::{Weights, evaluate_with};
use crate::position::Position;

/// Evaluations by position key, per thread: a leaf met again (in the next iteration, by a
/// transposition, or after a null-move test of the same node) costs a lookup instead of two beam
/// traces and, for a side well ahead, the reach. Exact keys, so a search visits the same tree
/// with it as without it.
pub(super) struct EvalCache {
    /// Key and evaluation.
    pub(super) slots: Vec<(u64, i32)>,
    /// The weights its evaluations were made with.
    weights: Weights,
    /// Whether they include the learned network's word.
    learned: bool,
}

/// The most slots an [`EvalCache`] has (16 bytes each: 4 MiB a thread); it has no more than
/// the searcher's transposition table, so a small searcher stays small. A search from a won
/// position makes some 300,000 evaluations in a few seconds; eight times the 32,768 slots it
/// had took 1.5–6.3% of the instructions off a search to a fixed depth (the README's
/// "Speed").
pub(super) const EVAL_SLOTS: usize = 1 << 18;

impl EvalCache {
    /// `slots`, a power of two.
    pub(super) fn new(weights: Weights, slots: usize) -> EvalCache {
        EvalCache {
            // A key no position has in practice, as the transposition table assumes too.
            slots: vec![(u64::MAX, 0); slots],
            weights,
            learned: false,
        }
    }

    /// The evaluation of `p`.
    #[inline]
    pub(super) fn evaluate(&mut self, p: &Position, weights: &Weights, learned: bool) -> i32 {
        if self.weights != *weights || self.learned != learned {
            *self = EvalCache::new(*weights, self.slots.len());
            self.learned = learned;
        }
        let key = p.key();
        let mask = self.slots.len() - 1;
        let slot = &mut self.slots[key as usize & mask];
        if slot.0 != key {
            let net = if learned {
                crate::learned::evaluate(p)
            } else {
                0
            };
            *slot = (key, evaluate_with(p, weights) + net);
        }
        slot.1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::piece::Color;

    #[test]
    fn the_evaluation_cache_gives_what_the_evaluation_gives() {
        // Positions of seeded random games, each asked twice (the second from the cache), and
        // again under other weights: a cache that kept the old ones would answer wrongly.
        let mut cache = EvalCache::new(Weights::default(), 1024);
        let other = Weights {
            pyramid: 150,
            reach: 0,
            ..Weights::default()
        };
        let mut rng = crate::rng::Rng::new(11);
        let mut seen = 0;
        for setup in ["classic", "imhotep", "dynasty", "khet1/classic"] {
            let mut p = crate::setup::Setup::builtin(setup).unwrap().position;
            for _ in 0..150 {
                for w in [Weights::default(), other] {
                    for _ in 0..2 {
                        assert_eq!(cache.evaluate(&p, &w, false), evaluate_with(&p, &w), "{p}");
                    }
                }
                seen += 1;
                let moves = p.legal_moves();
                let Some(mv) = rng.pick(&moves) else { break };
                if p.play_unchecked(mv).is_game_over() {
                    break;
                }
            }
        }
        assert!(seen > 100);
        // A slot that holds another key is not taken for this one.
        let a = crate::setup::Setup::builtin("classic").unwrap().position;
        let mut b = a;
        b.set_side_to_move(Color::Red);
        let w = Weights::default();
        let slot = |p: &Position| p.key() as usize & 1023;
        cache.slots[slot(&b)] = (a.key(), 12_345);
        assert_eq!(cache.evaluate(&b, &w, false), evaluate_with(&b, &w));
    }
}
