//! Puzzles: "Silver to move: light the Red Pharaoh in N". An exact solver proves them, with no
//! evaluation and no pruning that could miss a line, and [`PuzzleBook`] is their RON file.
//!
//! What counts, where the rule books are silent about puzzles:
//! - The solver (the side to move) wins when a shot lights the defender's Pharaoh and not its
//!   own. A shot of either side that lights both is a draw, and a draw is not a win. A defender's
//!   shot that lights only the defender's own Pharaoh is a win for the solver.
//! - "In N" counts the solver's moves: N of them, with the defender's N − 1 replies between.
//! - Repetition claims are ignored: a puzzle is a position without history, and within seven
//!   plies an arrangement can come back a third time only if the solver undoes its own moves.
//! - A defender with no legal move follows the position's [`crate::NoMoves`] rule.
//!
//! The solver proves "wins within n" by an AND/OR search: every solver move until one wins,
//! every defender reply until one escapes. Replies that escaped elsewhere at the same depth are
//! tried first (killers), as are shots that lit the Pharaoh there, and proven bounds are kept
//! per position. Held to threats ([`Solver::threats_only`]), the same search is the computer
//! opponent's threat-space search: narrower, so much deeper, and no longer exact about "no win".

use crate::clock::Instant;
use crate::moves::Move;
use crate::piece::Color;
use crate::position::{Position, sphinx_square};
use crate::rules::NoMoves;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The solver ran past its node limit before it could answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfNodes;

impl fmt::Display for OutOfNodes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the solver ran out of nodes")
    }
}

impl std::error::Error for OutOfNodes {}

/// What is proven about one position, the solver to move: a win within `win_within` moves (0:
/// not known) and no win within `no_win_within`.
#[derive(Clone, Copy, Debug, Default)]
struct Bounds {
    win_within: u8,
    no_win_within: u8,
}

/// The deepest search the solver is asked for, in plies.
const MAX_PLIES: usize = 32;

/// An exact "light the Pharaoh in N" solver. Reuse one for related questions: what it proved
/// stays in its table.
#[derive(Debug)]
pub struct Solver {
    table: HashMap<u64, Bounds>,
    killers: [[Option<Move>; 2]; MAX_PLIES],
    /// Shots that lit the defender's Pharaoh at each ply.
    shots: [[Option<Move>; 2]; MAX_PLIES],
    /// Moves made (positions visited) since the solver was made.
    pub nodes: u64,
    /// Stop and answer [`OutOfNodes`] beyond this many nodes.
    pub node_limit: u64,
    /// Stop and answer [`OutOfNodes`] at this time.
    pub deadline: Option<Instant>,
    /// Stop and answer [`OutOfNodes`] once this is set (a search's stop flag).
    pub stop: Option<Arc<AtomicBool>>,
    /// Threat-space search ([`Solver::threats_only`]).
    threats: bool,
    ticks: u32,
    out: bool,
}

impl Default for Solver {
    fn default() -> Solver {
        Solver::with_limit(u64::MAX)
    }
}

/// The defender's best reply: the one that escapes, or else the one after which the solver
/// needs the most moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Defence {
    /// The reply.
    pub reply: Move,
    /// How many moves the solver still needs after it; `None`: the reply escapes (no win within
    /// what was asked).
    pub solver_needs: Option<u32>,
}

/// What a turn does for the attacker (the side whose win is sought).
enum Outcome {
    AttackerWins,
    /// The attacker's Pharaoh is lit, or both are: no win this way.
    Spoilt,
    Goes(Position),
}

fn outcome(p: &Position, mv: Move, attacker: Color) -> Outcome {
    let mut child = *p;
    let hits = child.play_unchecked(mv);
    if !hits.is_game_over() {
        Outcome::Goes(child)
    } else if hits.pharaoh_hit(attacker.other()) && !hits.pharaoh_hit(attacker) {
        Outcome::AttackerWins
    } else {
        Outcome::Spoilt
    }
}

impl Solver {
    /// A solver that gives up after `node_limit` nodes (see [`OutOfNodes`]).
    pub fn with_limit(node_limit: u64) -> Solver {
        Solver {
            table: HashMap::new(),
            killers: [[None; 2]; MAX_PLIES],
            shots: [[None; 2]; MAX_PLIES],
            nodes: 0,
            node_limit,
            deadline: None,
            stop: None,
            threats: false,
            ticks: 0,
            out: false,
        }
    }

    /// A threat-space solver: before its last move the attacker plays only threats (moves
    /// after which, were the defender to stand still, a shot of the next move lights the
    /// enemy Pharaoh); the defender still tries every reply. A win it proves is a win; "no
    /// win" means only that no chain of threats wins. It reaches much deeper than the exact
    /// solver in the same nodes, since most replies leave the threat standing and end at once.
    pub fn threats_only(node_limit: u64) -> Solver {
        Solver {
            threats: true,
            ..Solver::with_limit(node_limit)
        }
    }

    /// Whether `p` (the defender to move) would let `attacker` light the defender's Pharaoh
    /// with its next move, were the defender to pass. Exact, but only moves that touch the
    /// attacker's beam (or its Sphinx) are fired: any other leaves the shot as it is now.
    fn threatens(&mut self, p: &Position, attacker: Color) -> bool {
        let mut passed = *p;
        passed.set_side_to_move(attacker);
        let (lit, now) = passed.beam_summary(attacker);
        if now.pharaoh_hit(attacker.other()) && !now.pharaoh_hit(attacker) {
            return true;
        }
        let touched = lit | 1u128 << sphinx_square(attacker).index();
        let mut found = false;
        let mut made = 0;
        passed.for_each_move(|mv| {
            let squares = 1u128 << mv.from().index() | 1u128 << mv.to().index();
            if found || squares & touched == 0 {
                return;
            }
            made += 1;
            found = matches!(outcome(&passed, mv, attacker), Outcome::AttackerWins);
        });
        self.nodes += made;
        found
    }

    fn answer<T>(&self, value: T) -> Result<T, OutOfNodes> {
        if self.out { Err(OutOfNodes) } else { Ok(value) }
    }

    /// Whether the side to move can force a win within `n` of its moves.
    pub fn wins_within(&mut self, p: &Position, n: u32) -> Result<bool, OutOfNodes> {
        self.out = false;
        let n = n.min(MAX_PLIES as u32 / 2);
        let won = self.attack(p, n, 0);
        self.answer(won)
    }

    /// The fewest moves in which the side to move forces a win, if it does within `max`.
    pub fn shortest_win(&mut self, p: &Position, max: u32) -> Result<Option<u32>, OutOfNodes> {
        for n in 1..=max {
            if self.wins_within(p, n)? {
                return Ok(Some(n));
            }
        }
        Ok(None)
    }

    /// Every move of the side to move after which it wins within `n` moves, that one included.
    pub fn winning_moves(&mut self, p: &Position, n: u32) -> Result<Vec<Move>, OutOfNodes> {
        self.winners(p, n, false)
    }

    /// A move of the side to move after which it wins within `n` moves, the first found (no
    /// search of the others).
    pub fn winning_move(&mut self, p: &Position, n: u32) -> Result<Option<Move>, OutOfNodes> {
        Ok(self.winners(p, n, true)?.first().copied())
    }

    fn winners(&mut self, p: &Position, n: u32, first: bool) -> Result<Vec<Move>, OutOfNodes> {
        self.out = false;
        let attacker = p.side_to_move();
        let mut winners = Vec::new();
        for mv in p.legal_moves() {
            let wins = match outcome(p, mv, attacker) {
                Outcome::AttackerWins => true,
                Outcome::Spoilt => false,
                Outcome::Goes(child) => n > 1 && self.defence_fails(&child, n - 1, 1),
            };
            if self.out {
                return Err(OutOfNodes);
            }
            if wins {
                winners.push(mv);
                if first {
                    break;
                }
            }
        }
        Ok(winners)
    }

    /// The defender's best reply in `p` (the defender to move), when the attacker needs to win
    /// within `m` moves after it. `None` when the defender has no move.
    pub fn defence(&mut self, p: &Position, m: u32) -> Result<Option<Defence>, OutOfNodes> {
        let defender = p.side_to_move();
        let attacker = defender.other();
        let mut best: Option<Defence> = None;
        for reply in p.legal_moves() {
            let needs = match outcome(p, reply, attacker) {
                Outcome::Spoilt => None,
                Outcome::AttackerWins => Some(0),
                Outcome::Goes(child) => self.shortest_win(&child, m)?,
            };
            let this = Defence {
                reply,
                solver_needs: needs,
            };
            match (needs, best) {
                (None, _) => return Ok(Some(this)),
                (
                    Some(k),
                    Some(Defence {
                        solver_needs: Some(b),
                        ..
                    }),
                ) if k <= b => {}
                _ => best = Some(this),
            }
        }
        Ok(best)
    }

    /// A winning line within `n` moves: the solver's moves and the defender's best replies,
    /// ending with the move that lights the Pharaoh. `None` when there is no win within `n`.
    pub fn line(&mut self, p: &Position, n: u32) -> Result<Option<Vec<Move>>, OutOfNodes> {
        let Some(need) = self.shortest_win(p, n)? else {
            return Ok(None);
        };
        let mut line = Vec::new();
        let mut at = *p;
        let attacker = p.side_to_move();
        for left in (1..=need).rev() {
            let Some(mv) = self.winning_move(&at, left)? else {
                return Ok(None);
            };
            line.push(mv);
            match outcome(&at, mv, attacker) {
                Outcome::AttackerWins => return Ok(Some(line)),
                Outcome::Spoilt => return Ok(None),
                Outcome::Goes(child) => at = child,
            }
            let Some(d) = self.defence(&at, left - 1)? else {
                return Ok(Some(line));
            };
            line.push(d.reply);
            if d.solver_needs == Some(0) {
                return Ok(Some(line));
            }
            at.play_unchecked(d.reply);
        }
        Ok(None)
    }

    fn tick(&mut self) -> bool {
        self.nodes += 1;
        self.ticks = self.ticks.wrapping_add(1);
        if self.nodes >= self.node_limit {
            self.out = true;
        }
        // A clock read costs about what a move does: once every 64 interior nodes.
        if self.ticks.is_multiple_of(64) {
            let late = self.deadline.is_some_and(|d| Instant::now() >= d);
            let stopped = self
                .stop
                .as_ref()
                .is_some_and(|s| s.load(Ordering::Relaxed));
            self.out |= late || stopped;
        }
        self.out
    }

    /// Whether the side to move in `p` wins within `n` moves.
    fn attack(&mut self, p: &Position, n: u32, ply: usize) -> bool {
        if n == 0 || self.out {
            return false;
        }
        let key = p.key();
        let known = self.table.get(&key).copied().unwrap_or_default();
        if known.win_within != 0 && u32::from(known.win_within) <= n {
            return true;
        }
        if u32::from(known.no_win_within) >= n {
            return false;
        }
        let me = p.side_to_move();
        // A shot that lit the Pharaoh at this ply before most often does again (the reply
        // before it did not parry the threat): tried before the other moves are made.
        for shot in self.shots[ply].into_iter().flatten() {
            if p.is_legal(shot) {
                self.nodes += 1;
                if matches!(outcome(p, shot, me), Outcome::AttackerWins) {
                    self.prove(key, true, 1);
                    return true;
                }
            }
        }
        let mut children: Vec<(u32, Move, Position)> = Vec::with_capacity(100);
        let mut won = None;
        p.for_each_move(|mv| {
            if won.is_some() {
                return;
            }
            let mut child = *p;
            let hits = child.play_unchecked(mv);
            if hits.pharaoh_hit(me.other()) && !hits.pharaoh_hit(me) {
                won = Some(mv);
            } else if !hits.is_game_over() {
                let killer = self.killers[ply].contains(&Some(mv));
                children.push((hits.count() + 10 * u32::from(killer), mv, child));
            }
        });
        self.nodes += children.len() as u64;
        if let Some(shot) = won {
            let shots = &mut self.shots[ply];
            if shots[0] != Some(shot) {
                *shots = [Some(shot), shots[0]];
            }
            self.prove(key, true, 1);
            return true;
        }
        if n == 1 || self.tick() {
            if !self.out {
                self.prove(key, false, 1);
            }
            return false;
        }
        if self.threats {
            children.retain(|(_, _, child)| self.threatens(child, me));
        }
        children.sort_unstable_by_key(|c| std::cmp::Reverse(c.0));
        for (_, mv, child) in children {
            if self.defence_fails(&child, n - 1, ply + 1) {
                self.killer(ply, mv);
                self.prove(key, true, n);
                return true;
            }
            if self.out {
                return false;
            }
        }
        self.prove(key, false, n);
        false
    }

    /// Whether every reply of the side to move in `p` loses within `m` of the attacker's moves.
    fn defence_fails(&mut self, p: &Position, m: u32, ply: usize) -> bool {
        let defender = p.side_to_move();
        let mut replies: Vec<(u32, Move, Position)> = Vec::with_capacity(100);
        let mut escape = false;
        let mut any = false;
        p.for_each_move(|mv| {
            any = true;
            if escape {
                return;
            }
            let mut child = *p;
            let hits = child.play_unchecked(mv);
            if !hits.is_game_over() {
                let killer = self.killers[ply].contains(&Some(mv));
                replies.push((u32::from(killer), mv, child));
            } else if hits.pharaoh_hit(defender.other()) || !hits.pharaoh_hit(defender) {
                // The reply lights the attacker's Pharaoh, or both: it escapes.
                escape = true;
            }
        });
        if escape {
            return false;
        }
        if !any {
            return p.rules().no_moves == NoMoves::Loss;
        }
        if self.tick() {
            return false;
        }
        replies.sort_unstable_by_key(|r| std::cmp::Reverse(r.0));
        for (_, mv, child) in replies {
            if !self.attack(&child, m, ply + 1) {
                self.killer(ply, mv);
                return false;
            }
        }
        !self.out
    }

    fn killer(&mut self, ply: usize, mv: Move) {
        if let Some(k) = self.killers.get_mut(ply)
            && k[0] != Some(mv)
        {
            k[1] = k[0];
            k[0] = Some(mv);
        }
    }

    fn prove(&mut self, key: u64, win: bool, n: u32) {
        let n = n as u8;
        let b = self.table.entry(key).or_default();
        if win {
            if b.win_within == 0 || n < b.win_within {
                b.win_within = n;
            }
        } else {
            b.no_win_within = b.no_win_within.max(n);
        }
    }
}

/// One puzzle: the solver (the side to move) lights the enemy Pharaoh in `moves` moves.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Puzzle {
    /// A short title.
    pub name: String,
    /// The position, in the position-string format ([`crate::notation`]).
    pub position: String,
    /// Who solves it (the side to move in `position`).
    pub to_move: Color,
    /// N: the solver's moves to the win.
    pub moves: u32,
    /// The solver's moves and the defender's best replies, ending with the winning move.
    pub solution: Vec<String>,
    /// 1 (easy) to 5 (hardest): see [`difficulty`].
    pub difficulty: u8,
    /// Where it was found (setup, game, ply), for the curious.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub source: String,
}

/// A puzzle's difficulty from 1 to 5: N, plus one for a first move that hits nothing (a quiet
/// move is harder to see than a capture), at most 5. Lighting the Pharaoh is a hit, so a win in
/// one is rated 1.
pub fn difficulty(moves: u32, first_move_hits: bool) -> u8 {
    (moves + u32::from(!first_move_hits)).clamp(1, 5) as u8
}

/// Whether `mv`'s shot hits anything at `position`: a piece removed or a Pharaoh lit.
pub fn hits_something(position: &Position, mv: Move) -> bool {
    let mut after = *position;
    let hits = after.play_unchecked(mv);
    hits.squares != 0 || hits.is_game_over()
}

/// Why a puzzle is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PuzzleFault {
    /// The puzzle's name.
    pub name: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for PuzzleFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.reason)
    }
}

impl Puzzle {
    /// The starting position.
    pub fn start(&self) -> Result<Position, String> {
        crate::parse_position(&self.position).map_err(|e| format!("position: {e}"))
    }

    /// The solution's moves, read against the board as they are played.
    pub fn solution_moves(&self) -> Result<Vec<Move>, String> {
        let mut at = self.start()?;
        let mut out = Vec::with_capacity(self.solution.len());
        for (i, text) in self.solution.iter().enumerate() {
            let mv = at
                .parse_move(text)
                .map_err(|e| format!("solution move {} '{text}': {e}", i + 1))?;
            at.play_unchecked(mv);
            out.push(mv);
        }
        Ok(out)
    }

    /// Checks everything: the position reads and has `to_move` to move; the solution is legal,
    /// ends with the solver's winning shot and nothing ends the game before; the solver wins in
    /// exactly `moves` (no faster); exactly one first move wins within `moves`; and each stored
    /// reply is a best defence (after it the solver still needs every remaining move).
    pub fn verify(&self, solver: &mut Solver) -> Result<(), PuzzleFault> {
        self.check(solver).map_err(|reason| PuzzleFault {
            name: self.name.clone(),
            reason,
        })
    }

    fn check(&self, solver: &mut Solver) -> Result<(), String> {
        let start = self.start()?;
        if start.side_to_move() != self.to_move {
            return Err(format!(
                "to_move is {} but the position has {} to move",
                self.to_move,
                start.side_to_move()
            ));
        }
        if !(1..=4).contains(&self.moves) {
            return Err(format!("moves is {}; puzzles have 1 to 4", self.moves));
        }
        if !(1..=5).contains(&self.difficulty) {
            return Err(format!("difficulty is {}; it is 1 to 5", self.difficulty));
        }
        let plies = 2 * self.moves as usize - 1;
        if self.solution.len() != plies {
            return Err(format!(
                "the solution has {} moves; in {} it needs {plies}",
                self.solution.len(),
                self.moves
            ));
        }
        let line = self.solution_moves()?;
        let hit = hits_something(&start, line[0]);
        let rated = difficulty(self.moves, hit);
        if self.difficulty != rated {
            return Err(format!(
                "difficulty is {}; in {} with a first move that hits {} it is {rated}",
                self.difficulty,
                self.moves,
                if hit { "something" } else { "nothing" }
            ));
        }
        let nodes = |e: OutOfNodes| e.to_string();
        let mut at = start;
        for (i, &mv) in line.iter().enumerate() {
            let hits = at.play_unchecked(mv);
            let last = i + 1 == line.len();
            match (hits.is_game_over(), last) {
                (true, false) => {
                    return Err(format!("the game ends at solution move {} ({mv})", i + 1));
                }
                (false, true) => {
                    return Err(format!("the last solution move {mv} lights no Pharaoh"));
                }
                (true, true)
                    if !hits.pharaoh_hit(self.to_move.other())
                        || hits.pharaoh_hit(self.to_move) =>
                {
                    return Err(format!("the last solution move {mv} does not win"));
                }
                _ => {}
            }
            // After each of the defender's replies the solver still needs every move left.
            if i % 2 == 1 {
                let left = self.moves - (i as u32).div_ceil(2);
                let need = solver.shortest_win(&at, left).map_err(nodes)?;
                if need != Some(left) {
                    return Err(format!(
                        "solution reply {} ({mv}) is not a best defence: the solver then needs {}",
                        i + 1,
                        need.map_or("more".to_string(), |n| n.to_string())
                    ));
                }
            }
        }
        match solver.shortest_win(&start, self.moves).map_err(nodes)? {
            Some(n) if n == self.moves => {}
            Some(n) => return Err(format!("it is won in {n}, faster than {}", self.moves)),
            None => return Err(format!("there is no forced win in {}", self.moves)),
        }
        let winners = solver.winning_moves(&start, self.moves).map_err(nodes)?;
        if winners != [line[0]] {
            let list: Vec<String> = winners.iter().map(ToString::to_string).collect();
            return Err(format!(
                "the first moves that win in {} are [{}], not {} alone",
                self.moves,
                list.join(", "),
                line[0]
            ));
        }
        Ok(())
    }
}

/// A file of puzzles.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PuzzleBook {
    /// The puzzles, in the order they are offered.
    pub puzzles: Vec<Puzzle>,
}

/// The largest puzzle file read.
pub const MAX_PUZZLE_BOOK_BYTES: usize = 4 << 20;

impl PuzzleBook {
    /// Reads a puzzle file's bytes; errors read `file:line:column: reason`.
    pub fn from_bytes(bytes: &[u8], file: &str) -> Result<PuzzleBook, String> {
        let src = crate::text::decode(bytes, MAX_PUZZLE_BOOK_BYTES, "a puzzle file")
            .map_err(|reason| format!("{file}: {reason}"))?;
        ron::from_str(src).map_err(|e: ron::error::SpannedError| {
            format!(
                "{file}:{}:{}: {}",
                e.span.start.line, e.span.start.col, e.code
            )
        })
    }

    /// The file's text.
    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new()
            .depth_limit(3)
            .struct_names(false);
        ron::ser::to_string_pretty(self, config).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_position;
    use crate::piece::Kind;

    /// Silver's beam runs up the j file; turning the Pyramid on j5 to face south-west sends it
    /// west along rank 5 to the Red Pharaoh on d5. Turning the Sphinx west would light Silver's
    /// own Pharaoh on e1.
    const IN_ONE: &str = "x29/2p27//3k5P2////4K4X1 0";

    fn in_one() -> Puzzle {
        Puzzle {
            name: "turn the Pyramid".into(),
            position: IN_ONE.into(),
            to_move: Color::Silver,
            moves: 1,
            solution: vec!["j5+".into()],
            difficulty: 1,
            source: String::new(),
        }
    }

    #[test]
    fn a_win_in_one_is_found_and_unique() {
        let p = parse_position(IN_ONE).expect("position");
        let mut s = Solver::default();
        assert_eq!(s.shortest_win(&p, 3), Ok(Some(1)));
        let winners: Vec<String> = s
            .winning_moves(&p, 1)
            .expect("nodes")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(winners, ["j5+"]);
        assert_eq!(
            s.line(&p, 2).expect("nodes").map(|l| l.len()),
            Some(1),
            "the shortest line"
        );
        assert_eq!(in_one().verify(&mut s), Ok(()));
    }

    #[test]
    fn wrong_puzzles_are_named_with_the_reason() {
        let mut s = Solver::default();
        let fault = |p: Puzzle, s: &mut Solver| p.verify(s).expect_err("wrong").reason;
        let wrong_move = Puzzle {
            solution: vec!["j5-".into()],
            ..in_one()
        };
        assert!(fault(wrong_move, &mut s).contains("lights no Pharaoh"));
        let too_long = Puzzle {
            moves: 2,
            ..in_one()
        };
        assert!(fault(too_long, &mut s).contains("needs 3"));
        let wrong_side = Puzzle {
            to_move: Color::Red,
            ..in_one()
        };
        assert!(fault(wrong_side, &mut s).contains("to_move is Red"));
        let illegal = Puzzle {
            solution: vec!["a8a7".into()],
            ..in_one()
        };
        assert!(fault(illegal, &mut s).contains("solution move 1"));
        // A win in one lights the Pharaoh with its first move: it is rated 1, not 2.
        let overrated = Puzzle {
            difficulty: 2,
            ..in_one()
        };
        let reason = fault(overrated, &mut s);
        assert!(
            reason.contains("difficulty is 2") && reason.ends_with("it is 1"),
            "{reason}"
        );
        // In 2 it is won in 1: refused as too slow a claim.
        let slow = Puzzle {
            moves: 2,
            solution: vec!["e1f1".into(), "a8+".into(), "j5+".into()],
            difficulty: 3,
            ..in_one()
        };
        let reason = fault(slow, &mut s);
        assert!(reason.contains("faster"), "{reason}");
    }

    #[test]
    fn puzzle_files_read_and_refuse_with_line_numbers() {
        let book = PuzzleBook {
            puzzles: vec![in_one()],
        };
        let text = book.to_ron();
        assert_eq!(PuzzleBook::from_bytes(text.as_bytes(), "p.ron"), Ok(book));
        let misspelt = text.replace("difficulty", "dificulty");
        let e = PuzzleBook::from_bytes(misspelt.as_bytes(), "p.ron").expect_err("misspelt");
        assert!(e.starts_with("p.ron:") && e.contains("dificulty"), "{e}");
        let e = PuzzleBook::from_bytes(&text.as_bytes()[..40], "p.ron").expect_err("cut");
        assert!(e.starts_with("p.ron:"), "{e}");
        assert!(PuzzleBook::from_bytes(&[0xff, 0x00], "p.ron").is_err());
    }

    #[test]
    fn out_of_nodes_is_reported() {
        let p = crate::Setup::builtin("khet2/classic")
            .expect("built in")
            .position;
        let mut s = Solver::with_limit(50);
        assert_eq!(s.wins_within(&p, 3), Err(OutOfNodes));
    }

    /// Random games from setups with Sphinxes, fixed lasers and beam splitters, and the same
    /// positions thinned out (long beams, threats everywhere): what [`Solver::threatens`]
    /// answers for every move, and what firing every move of the attacker answers.
    #[test]
    fn threats_are_what_firing_every_move_finds() {
        let mut rng = crate::rng::Rng::new(29);
        let mut solver = Solver::default();
        let mut seen = [0u32; 2];
        for setup in [
            "classic",
            "imhotep",
            "khet1/classic",
            "khet1/dynasty",
            "khet2/imhotep-eyes",
        ] {
            for _ in 0..6 {
                let mut p = crate::Setup::builtin(setup).expect("built in").position;
                for turn in 0..60 {
                    if turn % 6 == 0 {
                        let mut q = p;
                        for (sq, piece) in p.pieces() {
                            let kept = matches!(piece.kind(), Kind::Pharaoh | Kind::Sphinx);
                            if !kept && rng.below(2) == 0 {
                                q.put(sq, None);
                            }
                        }
                        for position in [p, q] {
                            let attacker = position.side_to_move();
                            for mv in position.legal_moves() {
                                let mut child = position;
                                if child.play_unchecked(mv).is_game_over() {
                                    continue;
                                }
                                let fast = solver.threatens(&child, attacker);
                                let mut passed = child;
                                passed.set_side_to_move(attacker);
                                let slow = passed.legal_moves().into_iter().any(|m| {
                                    matches!(outcome(&passed, m, attacker), Outcome::AttackerWins)
                                });
                                assert_eq!(fast, slow, "{child} after {mv}");
                                seen[usize::from(fast)] += 1;
                            }
                        }
                    }
                    let moves = p.legal_moves();
                    let Some(mv) = rng.pick(&moves) else { break };
                    if p.play_unchecked(mv).is_game_over() {
                        break;
                    }
                }
            }
        }
        assert!(
            seen[1] > 300 && seen[0] > 5000,
            "{seen:?} (no threat, threat)"
        );
    }

    /// The shipped puzzles the threat-space solver proves: never in fewer moves than the exact
    /// solver's N, and most of them (their wins are chains of threats).
    #[test]
    fn the_threat_space_solver_proves_what_the_exact_one_does() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../assets/puzzles/puzzles.ron"
        );
        let bytes = std::fs::read(path).expect("the shipped puzzles");
        let book = PuzzleBook::from_bytes(&bytes, path).expect("they read");
        let mut proved = 0;
        let mut deeper = 0;
        for puzzle in book.puzzles.iter().filter(|p| p.moves <= 3) {
            let p = puzzle.start().expect("its position");
            let mut s = Solver::threats_only(u64::MAX);
            let Some(n) = s.shortest_win(&p, puzzle.moves + 1).expect("no limit") else {
                continue;
            };
            assert!(n >= puzzle.moves, "{}: in {n}", puzzle.name);
            proved += 1;
            deeper += u32::from(n > 1);
            let line = s.line(&p, n).expect("no limit").expect("a line");
            let mut at = p;
            for mv in &line {
                assert!(at.is_legal(*mv), "{}: {mv} in {line:?}", puzzle.name);
                at.play_unchecked(*mv);
            }
        }
        assert!(
            proved >= 30 && deeper >= 20,
            "{proved} proved, {deeper} in two or more"
        );
    }
}
