//! Iterative deepening and its time: the iterations and their aspiration windows, the limits
//! looked at every [`CHECK_EVERY`] nodes, the book's move and the threat-space search before a
//! timed search, the helper threads of Lazy SMP, and the root moves scored for the levels.

use super::eval_cache::EvalCache;
use super::terminal_score;
use super::{
    CHECK_EVERY, INF, Limits, MAX_PLY, MAX_THREADS, Options, Report, SearchResult, Searcher,
};
use crate::clock::Instant;
use crate::eval::WIN;
use crate::game::Game;
use crate::moves::Move;
use crate::position::Position;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Iterations from this depth on are searched first in a window around the last score.
pub const ASPIRATION_DEPTH: u32 = 5;
/// Half the first aspiration window, in centipawns.
pub const ASPIRATION_WINDOW: i32 = 35;
/// The threat-space search before a timed search has this share of its time: 1/3.
const THREAT_SPACE_SHARE: u32 = 3;
/// And at most this long: a chain is found in well under it when there is one (0.02–0.25 s in
/// the won endings it was tried on), and its table of proven positions grows with its nodes.
const THREAT_SPACE_MAX: Duration = Duration::from_secs(1);
/// It is run for a side this far ahead in material (a Pyramid): the wins it is for.
const THREAT_SPACE_LEAD: i32 = 100;
/// The longest chain of threats it looks for, in the mover's moves.
const THREAT_SPACE_MOVES: u32 = 8;

impl Searcher {
    /// Whether the search stops now: once every [`CHECK_EVERY`] nodes it looks at the clock,
    /// the node limit (every thread's nodes) and the stop flag; once stopped, it stays stopped.
    #[inline]
    pub(super) fn out_of_time(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if self.nodes >= self.checked + CHECK_EVERY {
            let fresh = self.nodes - self.checked;
            let total = self.counted.fetch_add(fresh, Ordering::Relaxed) + fresh;
            self.checked = self.nodes;
            let late = self.deadline.is_some_and(|d| Instant::now() >= d);
            // Every thread's nodes count: a node limit bounds the whole search, and each thread
            // looks at the total, so none runs on while another waits to look.
            let many = self.node_limit.is_some_and(|n| total >= n);
            if late || many || self.stop.load(Ordering::Relaxed) {
                self.aborted = true;
            }
        }
        self.aborted
    }

    /// The search from `position` once the caller has set its history (none, or the game's).
    pub(super) fn search_from(
        &mut self,
        position: &Position,
        limits: Limits,
        mut report: impl FnMut(&Report),
    ) -> SearchResult {
        let start = Instant::now();
        self.nodes = 0;
        self.checked = 0;
        self.aborted = false;
        self.deadline = limits.time.map(|t| start + t);
        self.node_limit = limits.nodes;
        self.exact = limits.mate.is_some();
        self.root_side = position.side_to_move();
        self.age = self.age.wrapping_add(1);
        self.quiet[0] = self.game_history.len() as u32;
        self.passed[0] = false;
        self.counted.store(0, Ordering::Relaxed);
        if let Some(known) = self.book_move(position, limits, start) {
            report(&known.1);
            return known.0;
        }
        if let Some(won) = self.threat_win(position, limits, start) {
            report(&won.1);
            return won.0;
        }
        // `MAX_THREADS == 1` (the web) is known when compiling: the threaded code below is
        // never reached there, and native builds compile to the same code as without it.
        if self.options.threads <= 1 || MAX_THREADS == 1 || position.legal_moves().is_empty() {
            return self.iterate(position, limits, start, &mut report);
        }
        // Lazy SMP: helpers search the same root on the shared table, every other one a ply
        // deeper, and what they store cuts this thread's tree; this thread's result is played.
        let stop = Arc::new(AtomicBool::new(false));
        let helpers: Vec<Searcher> = (1..self.options.threads.min(MAX_THREADS))
            .map(|_| self.helper(stop.clone()))
            .collect();
        std::thread::scope(|scope| {
            for (i, mut helper) in helpers.into_iter().enumerate() {
                let position = *position;
                scope.spawn(move || helper.help(&position, 1 + (i as u32 + 1) % 2));
            }
            let result = self.iterate(position, limits, start, &mut report);
            stop.store(true, Ordering::Relaxed);
            result
        })
    }

    /// The book's move for `position` in a timed search, with its result and report (see the
    /// module docs).
    fn book_move(
        &self,
        position: &Position,
        limits: Limits,
        start: Instant,
    ) -> Option<(SearchResult, Report)> {
        if self.exact || limits.depth.is_some() || (limits.time.is_none() && limits.nodes.is_none())
        {
            return None;
        }
        let entry = self.book.as_ref()?.probe(position)?;
        // The book knows no history: a move into an arrangement the game has had is left to
        // the search, as the threat-space search's is.
        let mut after = *position;
        after.play_unchecked(entry.mv);
        if self.options.repetitions && self.game_history.contains(&after.arrangement_hash()) {
            return None;
        }
        let result = SearchResult {
            best: Some(entry.mv),
            score: entry.score,
            depth: entry.depth,
            nodes: 0,
            elapsed: start.elapsed(),
            pv: vec![entry.mv],
        };
        let report = Report {
            depth: result.depth,
            score: result.score,
            nodes: 0,
            elapsed: result.elapsed,
            pv: result.pv.clone(),
        };
        Some((result, report))
    }

    /// The first move of a chain of threats that wins, searched for a third of a timed
    /// search's time (see the module docs), with its result and report.
    fn threat_win(
        &mut self,
        position: &Position,
        limits: Limits,
        start: Instant,
    ) -> Option<(SearchResult, Report)> {
        if !self.options.threat_space
            || self.exact
            || limits.depth.is_some()
            || (limits.time.is_none() && limits.nodes.is_none())
        {
            return None;
        }
        let material = crate::eval::material(position);
        let me = position.side_to_move().index();
        if material[me] - material[1 - me] < THREAT_SPACE_LEAD {
            return None;
        }
        // A node limit gives it its share of the nodes, so that it stops at the same node
        // whatever the machine; a time limit its share of the time.
        let share = limits
            .nodes
            .map_or(u64::MAX, |n| n / u64::from(THREAT_SPACE_SHARE));
        let mut solver = crate::puzzle::Solver::threats_only(share);
        solver.deadline = limits.time.map(|time| {
            let budget =
                (limits.soft.unwrap_or(time).min(time) / THREAT_SPACE_SHARE).min(THREAT_SPACE_MAX);
            start + budget
        });
        solver.stop = Some(self.stop.clone());
        let n = solver
            .shortest_win(position, THREAT_SPACE_MOVES)
            .ok()
            .flatten()?;
        let pv = solver.line(position, n).ok().flatten()?;
        let first = *pv.first()?;
        // The solver knows no history: a first move into an arrangement the game has had
        // could be claimed as a repetition, so the full search decides there.
        let mut after = *position;
        after.play_unchecked(first);
        if self.options.repetitions && self.game_history.contains(&after.arrangement_hash()) {
            return None;
        }
        let plies = 2 * n - 1;
        let result = SearchResult {
            best: Some(first),
            score: WIN - plies as i32,
            depth: plies,
            nodes: solver.nodes,
            elapsed: start.elapsed(),
            pv,
        };
        let report = Report {
            depth: result.depth,
            score: result.score,
            nodes: result.nodes,
            elapsed: result.elapsed,
            pv: result.pv.clone(),
        };
        Some((result, report))
    }

    /// A helper thread's searcher for this search: the same table, age, history and settings,
    /// its own move-ordering tables, stopped by `stop` or by the search's node limit.
    fn helper(&self, stop: Arc<AtomicBool>) -> Searcher {
        Searcher {
            tt: self.tt.clone(),
            killers: [[None; 2]; MAX_PLY],
            history: vec![0; 80 * 80 * 5],
            stop,
            nodes: 0,
            checked: 0,
            deadline: None,
            node_limit: self.node_limit,
            aborted: false,
            age: self.age,
            game_history: self.game_history.clone(),
            path: [0; MAX_PLY],
            quiet: self.quiet,
            passed: [false; MAX_PLY],
            root_plies: self.root_plies,
            exact: self.exact,
            root_side: self.root_side,
            root_best: None,
            options: Options {
                threads: 1,
                threat_space: false,
                ..self.options
            },
            counted: self.counted.clone(),
            evals: EvalCache::new(self.options.weights, self.evals.slots.len()),
            spare: Vec::new(),
            book: None,
        }
    }

    /// A helper's search: iterations from `first` until stopped.
    fn help(&mut self, position: &Position, first: u32) {
        for depth in first..MAX_PLY as u32 - 4 {
            self.root_best = None;
            self.negamax(position, depth as i32, -INF, INF, 0);
            if self.aborted {
                break;
            }
        }
    }

    /// Nodes of this search so far, the helpers' included.
    fn all_nodes(&self) -> u64 {
        self.counted.load(Ordering::Relaxed) + self.nodes - self.checked
    }

    /// Iterative deepening from `position` within `limits`, the search set up.
    fn iterate(
        &mut self,
        position: &Position,
        limits: Limits,
        start: Instant,
        report: &mut impl FnMut(&Report),
    ) -> SearchResult {
        let moves = position.legal_moves();
        let mut result = SearchResult {
            best: moves.first().copied(),
            score: 0,
            depth: 0,
            nodes: 0,
            elapsed: Duration::ZERO,
            pv: moves.first().copied().into_iter().collect(),
        };
        if moves.is_empty() {
            return result;
        }
        let mate_plies = limits.mate.map(|n| (2 * n).saturating_sub(1).max(1));
        let max_depth = limits
            .depth
            .into_iter()
            .chain(mate_plies)
            .min()
            .unwrap_or(MAX_PLY as u32 - 4)
            .min(MAX_PLY as u32 - 4);
        for depth in 1..=max_depth {
            let (score, floor) = self.aspirate(position, depth, result.score);
            if self.aborted && depth > 1 {
                // What the unfinished iteration proved still counts: a move whose score, in the
                // window searched last, is more than an upper bound.
                if let Some((mv, s)) = self.root_best
                    && s > floor
                {
                    if result.best != Some(mv) {
                        result.pv = vec![mv];
                    }
                    result.best = Some(mv);
                    result.score = s;
                }
                break;
            }
            let pv = self.principal_variation(position, depth as usize);
            if let Some(&best) = pv.first() {
                result.best = Some(best);
            }
            result.score = score;
            result.depth = depth;
            result.pv = pv;
            result.nodes = self.all_nodes();
            result.elapsed = start.elapsed();
            report(&Report {
                depth,
                score,
                nodes: result.nodes,
                elapsed: result.elapsed,
                pv: result.pv.clone(),
            });
            if self.aborted || score.abs() >= WIN - MAX_PLY as i32 {
                break;
            }
            if limits.soft.is_some_and(|soft| start.elapsed() * 2 > soft) {
                break;
            }
        }
        result.nodes = self.all_nodes();
        result.elapsed = start.elapsed();
        result
    }

    /// One iteration at `depth`: with [`Options::aspiration`], first in a window around
    /// `guess` (the last iteration's score), widened on the side it fails until the score falls
    /// inside. The score, and the lower end of the window searched last.
    fn aspirate(&mut self, position: &Position, depth: u32, guess: i32) -> (i32, i32) {
        let mut delta = ASPIRATION_WINDOW;
        let mut window = if self.options.aspiration
            && !self.exact
            && depth >= ASPIRATION_DEPTH
            && guess.abs() < WIN - 2 * MAX_PLY as i32
        {
            (guess - delta, guess + delta)
        } else {
            (-INF, INF)
        };
        loop {
            self.root_best = None;
            let (alpha, beta) = window;
            let score = self.negamax(position, depth as i32, alpha, beta, 0);
            if self.aborted || (alpha < score && score < beta) {
                return (score, alpha);
            }
            delta *= 4;
            let wide = delta > ASPIRATION_WINDOW * 16;
            window = if score <= alpha {
                (if wide { -INF } else { alpha - delta }, beta)
            } else {
                (alpha, if wide { INF } else { beta + delta })
            };
        }
    }

    fn principal_variation(&self, position: &Position, max: usize) -> Vec<Move> {
        let mut pv = Vec::new();
        let mut p = *position;
        while pv.len() < max {
            let e = self.tt.read(self.tt.slot(p.key()));
            let Some(mv) = e.mv.filter(|_| e.key == p.key()) else {
                break;
            };
            if !p.is_legal(mv) {
                break;
            }
            pv.push(mv);
            if p.play_unchecked(mv).is_game_over() {
                break;
            }
        }
        pv
    }

    /// Scores every root move at `depth` with a full window: for levels that choose among good
    /// moves rather than always the best one.
    pub fn score_root_moves(&mut self, game: &Game, depth: u32) -> Vec<(Move, i32)> {
        self.aborted = false;
        self.deadline = None;
        self.node_limit = None;
        self.set_history(game);
        let position = game.position();
        self.root_side = position.side_to_move();
        self.age = self.age.wrapping_add(1);
        self.path[0] = position.arrangement_hash();
        self.quiet[0] = self.game_history.len() as u32;
        self.passed[0] = false;
        let mut out = Vec::new();
        for mv in position.legal_moves() {
            let mut child = *position;
            let hits = child.play_unchecked(mv);
            let score = match terminal_score(position.side_to_move(), hits, 1) {
                Some(s) => s,
                None => {
                    self.quiet[1] = if hits.count() > 0 {
                        0
                    } else {
                        self.quiet[0] + 1
                    };
                    self.passed[1] = false;
                    -self.negamax(&child, depth as i32 - 1, -INF, INF, 1)
                }
            };
            out.push((mv, score));
        }
        self.game_history.clear();
        self.root_plies = 0;
        out
    }
}
