//! A node's search: repetitions and draw limits, the transposition table, the null move, and
//! the moves made, ordered and searched (principal-variation search with late-move reductions
//! and pruning); the result stored.

use super::ordering::{
    HISTORY_MAX, KILLER_RANK, LMP_DEPTH, graded_reduction, history_index, late_move_count,
};
use super::quiesce::QUIESCENCE_PLIES;
use super::{INF, MAX_PLY, Searcher, terminal_score};
use crate::eval::WIN;
use crate::moves::Move;
use crate::piece::Color;
use crate::position::Position;
use crate::tt::{EXACT, Entry, LOWER, UPPER};
use std::ops::ControlFlow;

/// Moves searched in full before the late ones may be reduced.
const LATE_MOVES: usize = 3;
/// A null move's reply is searched this much shallower at `depth`, on top of the ply it uses.
/// 3 + depth/4 halved the tree to a depth but was weaker in play (`docs/engine-ledger.md`,
/// *Sequential tests*): a pass hides a quiet move that turns a beam onto a piece.
pub fn null_reduction(depth: i32) -> i32 {
    2 + depth / 6
}

/// A node's moves, each made and its shot fired, and their order. Kept from node to node
/// ([`Searcher::spare`]): a node makes about a hundred children of some 200 bytes each, and
/// allocating that list anew and sorting the children themselves cost a tenth of a search's
/// time.
#[derive(Default)]
pub(super) struct Node {
    children: Vec<Child>,
    /// The children's order, best first once sorted: (rank << 16) | (0xFFFF − index), so that
    /// equally ranked moves keep the order they were made in.
    order: Vec<i64>,
    /// The quiet moves searched so far that did not cut the node off, for
    /// [`Options::history_gravity`]'s malus.
    ///
    /// [`Options::history_gravity`]: super::Options::history_gravity
    tried: Vec<Move>,
}

/// A node's slot in the transposition table, its key, and the move stored there for it.
struct Probe {
    slot: usize,
    key: u64,
    hash_move: Option<Move>,
}

/// One move of a [`Node`].
struct Child {
    mv: Move,
    position: Position,
    /// The score of a shot that ends the game, or `i32::MIN`.
    terminal: i32,
    /// Whether its shot removed a piece.
    captured: bool,
    /// How it was ranked (the hash move, a killer, captures, history).
    rank: i32,
}

impl Searcher {
    /// Whether the arrangement at `ply` repeats one on the path or, for the third time, one of
    /// the game before the root.
    fn repeats(&self, hash: u64, ply: usize) -> bool {
        if self.path[..ply].contains(&hash) {
            return true;
        }
        self.game_history.iter().filter(|&&h| h == hash).count() >= 2
    }

    /// A draw's score for `side`: less the contempt for the side the search plays.
    fn draw_score(&self, side: Color) -> i32 {
        if side == self.root_side {
            -self.options.contempt
        } else {
            self.options.contempt
        }
    }

    pub(super) fn negamax(
        &mut self,
        p: &Position,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        self.nodes += 1;
        if self.out_of_time() {
            return 0;
        }
        let hash = p.arrangement_hash();
        if ply > 0 && self.options.repetitions && self.repeats(hash, ply) {
            return self.draw_score(p.side_to_move());
        }
        if ply > 0
            && self
                .options
                .draw_limits
                .reached(self.root_plies + ply as u32, self.quiet[ply])
        {
            return self.draw_score(p.side_to_move());
        }
        self.path[ply] = hash;
        if depth <= 0 || ply >= MAX_PLY - 1 {
            return if self.options.quiescence {
                self.quiesce(p, alpha, beta, ply, QUIESCENCE_PLIES)
            } else {
                self.evaluate(p)
            };
        }
        let key = p.key();
        let slot = self.tt.slot(key);
        let entry = self.tt.read(slot);
        let hash_move = if entry.key == key { entry.mv } else { None };
        // Entries of earlier searches (earlier moves) order the moves but never cut: see `age`.
        let current = entry.age == self.age || !self.options.repetitions;
        if entry.key == key && current && entry.depth as i32 >= depth && ply > 0 {
            let s = entry.score;
            match entry.bound {
                EXACT => return s,
                LOWER if s >= beta => return s,
                UPPER if s <= alpha => return s,
                _ => {}
            }
        }
        if let Some(score) = self.null_move(p, depth, beta, ply) {
            return score;
        }
        let mut node = self.spare.pop().unwrap_or_default();
        let probe = Probe {
            slot,
            key,
            hash_move,
        };
        let score = self.search_moves(p, depth, alpha, beta, ply, probe, &mut node);
        self.spare.push(node);
        score
    }

    /// Makes every move of `p` into `node` and ranks it: what each shot hits orders the moves.
    /// Returns a move whose shot lights the enemy Pharaoh, and its score, if there is one.
    fn make_moves(
        &self,
        p: &Position,
        ply: usize,
        hash_move: Option<Move>,
        node: &mut Node,
    ) -> Option<(Move, i32)> {
        let side = p.side_to_move();
        let mut immediate = None;
        node.children.clear();
        node.order.clear();
        let beam = p.beam_before_move();
        p.for_each_move(|mv| {
            node.children.push(Child {
                mv,
                position: *p,
                terminal: i32::MIN,
                captured: true,
                rank: 0,
            });
            let Some(child) = node.children.last_mut() else {
                return;
            };
            let hits = child.position.play_beside(mv, beam);
            if let Some(s) = terminal_score(side, hits, ply + 1) {
                if s > 0 {
                    immediate = Some((mv, s));
                }
                child.terminal = s;
                child.rank = -2_000_000 + s;
                return;
            }
            let gain = crate::eval::capture_gain(p, mv, hits, side);
            let mut rank = gain * 100;
            if Some(mv) == hash_move {
                rank += 10_000_000;
            } else if self.killers[ply].contains(&Some(mv)) {
                rank += KILLER_RANK;
            }
            rank += self.history[history_index(mv)].min(HISTORY_MAX);
            child.rank = rank;
            child.captured = hits.count() > 0;
        });
        let order = node.children.iter().enumerate();
        node.order
            .extend(order.map(|(i, c)| (i64::from(c.rank) << 16) | (0xFFFF - i as i64)));
        immediate
    }

    /// The moves of a node past its table and null-move tests: made, ordered and searched
    /// (principal-variation search with late-move reductions); the result stored at `slot`.
    fn search_moves(
        &mut self,
        p: &Position,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        probe: Probe,
        node: &mut Node,
    ) -> i32 {
        let Probe {
            slot,
            key,
            hash_move,
        } = probe;
        let original_alpha = alpha;
        let mut best = -INF;
        let mut best_move = None;
        // The hash move first, alone: where it cuts the node off (most nodes that have one),
        // the other hundred moves are never made nor their shots fired.
        let first = hash_move.filter(|&mv| ply > 0 && p.is_legal(mv));
        let mut first_searched = false;
        node.tried.clear();
        if let Some(mv) = first {
            match self.search_hash_move(p, mv, depth, alpha, beta, ply, slot, key, node) {
                ControlFlow::Break(score) => return score,
                ControlFlow::Continue(Some(score)) => {
                    best = score;
                    best_move = Some(mv);
                    alpha = alpha.max(score);
                    first_searched = true;
                }
                ControlFlow::Continue(None) => {}
            }
        }
        if let Some((mv, s)) = self.make_moves(p, ply, hash_move, node) {
            self.store(slot, key, Some(mv), s, depth, EXACT);
            if ply == 0 {
                self.root_best = Some((mv, s));
            }
            return s;
        }
        if node.children.is_empty() {
            return 0;
        }
        node.order.sort_unstable_by(|a, b| b.cmp(a));
        let prune_from = self.prune_from(depth, ply);
        for (i, &ranked) in node.order.iter().enumerate() {
            let Child {
                mv,
                position: ref child,
                terminal,
                captured,
                rank,
            } = node.children[0xFFFF - (ranked & 0xFFFF) as usize];
            if first_searched && Some(mv) == first {
                continue;
            }
            // Late-move pruning: near the horizon, off the principal line, a late move that
            // hits nothing and is neither the hash move nor a killer is not searched once a
            // move has kept the node from a lost Pharaoh.
            if i >= prune_from
                && beta - alpha == 1
                && !captured
                && rank < KILLER_RANK
                && terminal == i32::MIN
                && best > -WIN + MAX_PLY as i32
            {
                continue;
            }
            self.quiet[ply + 1] = if captured { 0 } else { self.quiet[ply] + 1 };
            self.passed[ply + 1] = false;
            let score = if terminal != i32::MIN {
                terminal
            } else if i == 0 {
                -self.negamax(child, depth - 1, -beta, -alpha, ply + 1)
            } else {
                self.search_later(child, i, depth, alpha, beta, ply, captured, rank)
            };
            if self.aborted {
                return best.max(score);
            }
            if score > best {
                best = score;
                best_move = Some(mv);
                if ply == 0 {
                    self.root_best = Some((mv, score));
                }
            }
            if score > alpha {
                alpha = score;
            }
            if alpha >= beta {
                if terminal == i32::MIN {
                    self.cut_by(mv, depth, ply, &node.tried);
                }
                break;
            }
            if terminal == i32::MIN && !captured {
                node.tried.push(mv);
            }
        }
        self.store(
            slot,
            key,
            best_move,
            best,
            depth,
            bound(best, original_alpha, beta),
        );
        best
    }

    /// The hash move `mv` of a node made and searched alone, before any other move is made:
    /// `Break` with the node's score where that settles it (a Pharaoh hit, a cut-off, an
    /// aborted search; stored at `slot`), else `Continue` with its score, or with `None` for a
    /// shot at its own Pharaoh (left to the full list, where it ranks last).
    #[inline]
    fn search_hash_move(
        &mut self,
        p: &Position,
        mv: Move,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        slot: usize,
        key: u64,
        node: &mut Node,
    ) -> ControlFlow<i32, Option<i32>> {
        let mut child = *p;
        let hits = child.play_unchecked(mv);
        match terminal_score(p.side_to_move(), hits, ply + 1) {
            Some(s) if s > 0 => {
                self.store(slot, key, Some(mv), s, depth, EXACT);
                return ControlFlow::Break(s);
            }
            Some(_) => return ControlFlow::Continue(None),
            None => {}
        }
        self.quiet[ply + 1] = if hits.count() > 0 {
            0
        } else {
            self.quiet[ply] + 1
        };
        self.passed[ply + 1] = false;
        let score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
        if self.aborted {
            return ControlFlow::Break(score);
        }
        if alpha.max(score) >= beta {
            self.cut_by(mv, depth, ply, &[]);
            self.store(slot, key, Some(mv), score, depth, LOWER);
            return ControlFlow::Break(score);
        }
        if hits.count() == 0 {
            node.tried.push(mv);
        }
        ControlFlow::Continue(Some(score))
    }

    /// The index in a node's order from which late-move pruning may skip a move (none,
    /// `usize::MAX`, where the node never prunes).
    #[inline]
    fn prune_from(&self, depth: i32, ply: usize) -> usize {
        if self.options.late_move_pruning && !self.exact && depth <= LMP_DEPTH && ply > 0 {
            late_move_count(depth)
        } else {
            usize::MAX
        }
    }

    /// The score of the `i`th move (from 0, not the first) of a node's order, the `child` it
    /// makes, in a principal-variation search: late moves that hit nothing and are neither the
    /// hash move nor a killer are searched shallower first (late-move reductions), then in a
    /// null window, and in the full window only where that beats alpha and not beta.
    #[inline]
    fn search_later(
        &mut self,
        child: &Position,
        i: usize,
        depth: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
        captured: bool,
        rank: i32,
    ) -> i32 {
        let late = self.options.reductions
            && depth >= 3
            && ply > 0
            && i >= LATE_MOVES
            && !captured
            && rank < KILLER_RANK;
        let mut s = if late {
            let r = if self.options.graded_reductions {
                // One less where the window is open (a node on the principal line).
                let pv = i32::from(beta - alpha > 1);
                (graded_reduction(depth, i) - pv).max(1)
            } else {
                1
            };
            let reduced = (depth - 1 - r).max(1);
            -self.negamax(child, reduced, -alpha - 1, -alpha, ply + 1)
        } else {
            alpha + 1
        };
        if s > alpha {
            s = -self.negamax(child, depth - 1, -alpha - 1, -alpha, ply + 1);
        }
        if s > alpha && s < beta {
            -self.negamax(child, depth - 1, -beta, -alpha, ply + 1)
        } else {
            s
        }
    }

    /// A null move (see the module docs): the node's cut-off score if passing already reaches
    /// `beta`.
    fn null_move(&mut self, p: &Position, depth: i32, beta: i32, ply: usize) -> Option<i32> {
        if !self.options.null_moves
            || self.exact
            || ply == 0
            || depth < 3
            || self.passed[ply]
            || beta.abs() >= WIN - MAX_PLY as i32
            || self.evaluate(p) < beta
        {
            return None;
        }
        let mut passed = *p;
        passed.set_side_to_move(p.side_to_move().other());
        // The arrangement stays: the pass itself is no repetition, what follows it may be.
        let hash = self.path[ply];
        self.path[ply] = !hash;
        self.quiet[ply + 1] = self.quiet[ply] + 1;
        self.passed[ply + 1] = true;
        let reduced = (depth - 1 - null_reduction(depth)).max(0);
        let score = -self.negamax(&passed, reduced, -beta, -beta + 1, ply + 1);
        self.path[ply] = hash;
        (!self.aborted && score >= beta).then_some(beta)
    }

    /// Stores a node's result. A forced Pharaoh hit's score is stored as the search found it,
    /// `WIN - plies` counted from the root, not from this node: read at another ply (a
    /// transposition reached by a longer or shorter line) its length is off by the difference,
    /// though never its sign, and so a hit in N can be reported and chosen as one in N ± a few.
    /// Entries of an earlier search, which counted from another root, never cut with repetitions
    /// on (see `age`), so only this search's transpositions mix the counts.
    fn store(&self, slot: usize, key: u64, mv: Option<Move>, score: i32, depth: i32, bound: u8) {
        let age = self.age;
        let e = self.tt.read(slot);
        if e.key != key || e.age != age || depth as i8 >= e.depth || bound == EXACT {
            self.tt.write(
                slot,
                Entry {
                    key,
                    mv,
                    score,
                    depth: depth as i8,
                    bound,
                    age,
                },
            );
        }
    }
}

/// The bound a node's `best` score is, searched in a window from `alpha` to `beta`.
#[inline]
fn bound(best: i32, alpha: i32, beta: i32) -> u8 {
    if best <= alpha {
        UPPER
    } else if best >= beta {
        LOWER
    } else {
        EXACT
    }
}
