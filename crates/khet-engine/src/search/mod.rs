//! The computer opponent: iterative-deepening principal-variation search on copy-make positions,
//! a Zobrist transposition table, move ordering (Pharaoh kills, the hash move, captures, killer
//! and history moves), a quiescence search over laser captures, and time control (a budget, a
//! stop flag, always a best move so far).
//!
//! The files by job: this one the [`Searcher`], its [`Options`] and [`Limits`] and what a search
//! returns; `deepening` the iterations and their time (aspiration, the book, the threat-space
//! search, Lazy SMP's helper threads); `alphabeta` a node's search (the table, null moves, the
//! moves made, ordered and searched); `quiesce` the quiescence search; `ordering` what orders
//! and reduces the moves (killers, history, graded reductions, late-move pruning's count);
//! `eval_cache` the evaluations kept by key. The changes tried and not kept, with the commits
//! that hold their code, and the matches behind every setting: `docs/engine-ledger.md`.
//!
//! Every child is made (copy, move, fire) before the moves are ordered: making a move costs about
//! 40 ns, and knowing what each shot hits is the best ordering information Khet has. The hash
//! move is the exception: it is made and searched alone first, and only if it does not cut the
//! node off are the others made. Moves ranked equal are tried in the order they were made. A
//! move that touches none of the squares its side's beam lights leaves the beam as it is (most
//! moves do): its shot hits what the beam hits now and is not traced again, and in the
//! quiescence search, when the beam hits nothing, such a move captures nothing and is not made.
//!
//! Repetitions: an arrangement that repeats one on the path from the root, or that would appear
//! for the third time counting the game before the root ([`Searcher::search_game`]), scores as a
//! draw: 0 less [`Options::contempt`] for the side the search plays, so a side that is ahead
//! steers away from repeating and a side that is behind steers into it. Positions before the last
//! capture cannot come back (material is only ever lost), so only the game since then is kept.
//!
//! Time: a hard limit ([`Limits::time`]) stops the search where it is and still uses what the
//! unfinished iteration proved (a root move searched in full that beat the previous best), so the
//! whole budget counts; a soft limit ([`Limits::soft`]) only stops new iterations from starting.
//!
//! Null moves ([`Options::null_moves`]): away from the root, where the side to move already
//! stands at or above beta, it passes (no move, no shot) and the opponent's reply is searched
//! [`null_reduction`] plies shallower; if that still fails high, so would a real move, and the
//! node is cut. Khet has no zugzwang worth the name (a piece can always turn), so a pass is
//! the lower bound it is in chess. Never twice in a row, and never to prove a Pharaoh hit. The
//! reduced reply can miss a deep threat, so a forced Pharaoh hit may come an iteration or two
//! later than its length; a search for one ([`Limits::mate`]) makes no null moves.
//!
//! Late-move reductions ([`Options::reductions`]): after the first three moves, a move that
//! hits nothing and is neither the hash move nor a killer is searched shallower first, in a
//! null window, and again in full if it beats alpha there. By [`graded_reduction`]
//! ([`Options::graded_reductions`], on by default): more the deeper the node and the later
//! the move, one less on the principal line; or, with them off, by one ply. Graded, depth 10
//! takes a third to a quarter of the nodes from the setups. In play they gain less than that
//! suggests: a quiet Khet move can set up a shot that a search several plies shallower
//! misses.
//!
//! Late-move pruning ([`Options::late_move_pruning`], on by default): at a node off the
//! principal line (a null window) within [`LMP_DEPTH`] plies of the horizon, once
//! [`late_move_count`] moves are searched and one of them keeps the side's Pharaoh, the late
//! moves that hit nothing and are neither the hash move nor a killer are skipped: such a
//! move seldom beats the moves ranked before it that near the horizon. Never in a search for
//! a forced Pharaoh hit ([`Limits::mate`]). The children are still made and fired (the
//! ordering needs their shots), so it saves their searches, not their making. From the
//! setups it takes about 70% of the nodes off a depth-9 search.
//!
//! History gravity ([`Options::history_gravity`], on by default): without it a cut-off adds
//! depth² to its move's history, a sum that only grows over a game, so after a few searches
//! most quiet moves that ever cut stand at the cap ([`HISTORY_MAX`]) and rank alike. With it,
//! a bonus `b` is pulled towards the cap (`h += b − h·|b|/max`), so history stays within ±max
//! and recent cut-offs outweigh old ones, and the quiet moves searched before the one that
//! cut lose as much as it gains (the malus), so a move that keeps failing sinks below those
//! never tried. Late-move reductions and pruning lean on that order. The bonus is
//! [`history_bonus`], 8·depth² up to a quarter of the cap, not depth²: history then follows the
//! last few hundred cut-offs, not the last few thousand.
//!
//! Aspiration ([`Options::aspiration`]): from depth [`ASPIRATION_DEPTH`] on, an iteration is
//! searched first in a window [`ASPIRATION_WINDOW`] either side of the last iteration's score,
//! where more of the tree is cut off; a score that falls outside widens the window on that side
//! (four times as far each time, then to the end) and searches again. Stopped mid-iteration, a
//! root move counts only if its score rose above the window's lower end (below it, the score
//! is only an upper bound).
//!
//! Draw limits ([`Options::draw_limits`], none by default): the rule books have no move limit
//! and no no-capture rule, but matches (and Khet2-AI) draw a game at a move limit or after a
//! run of plies without a capture. A search told of them (the protocol's `DrawLimits`, the
//! self-play of `match`'s tuning) scores a line that reaches one as a draw. Matches leave them
//! off.
//!
//! Threat space ([`Options::threat_space`]): a timed or node-limited search by a side a Pyramid
//! or more ahead in material first gives up to a third of its time (at most a second) or of its
//! nodes to a threat-space
//! search ([`crate::puzzle::Solver::threats_only`]): the mover plays only threats (moves after
//! which, were the opponent to stand still, its next shot lights the enemy Pharaoh) and the
//! opponent every reply. Chains of four to eight threats, each parried in few ways, are how a
//! won ending is won, and lie past what a full search of 100–200 ms reaches. A win it proves is
//! played at once (its length is an upper bound: a quiet move may win sooner). Without a threat
//! to start a chain it ends within a millisecond; where threats abound it uses its share, hence
//! the lead it asks for. It is not run at a fixed depth, in a search for a forced hit (exact
//! already), or by helper threads; and its win is left to the full search when the
//! chain's first move leads to an arrangement the game has had (the solver knows no history).
//!
//! Book ([`Searcher::book`], none by default): a timed or node-limited search (not one to a
//! depth or for a forced hit) of a position the book has plays the book's move at once, as
//! found by a long search (see [`crate::book`]), unless it leads to an arrangement the game has
//! had. The game, the protocol and matches give their searchers the shipped book; of the levels,
//! Master alone plays from it.
//!
//! Threads ([`Options::threads`]): Lazy SMP. Helper threads search the same root, every other
//! one starting a ply deeper, on the one transposition table (lock-free, see `tt`); what they
//! store orders this thread's moves and cuts its tree off, so it reaches a depth sooner. This
//! thread's iterations, limits and result are the search's; the node limit counts its nodes
//! alone, the reported nodes everyone's. One thread is the plain search exactly.

mod alphabeta;
mod deepening;
mod eval_cache;
mod ordering;
mod quiesce;

pub use alphabeta::null_reduction;
pub use deepening::{ASPIRATION_DEPTH, ASPIRATION_WINDOW};
pub use ordering::{HISTORY_MAX, LMP_DEPTH, graded_reduction, history_bonus, late_move_count};

use crate::book::Book;
use crate::clock::Instant;
use crate::eval::{WIN, Weights};
use crate::game::Game;
use crate::moves::Move;
use crate::piece::Color;
use crate::position::Position;
use crate::tt::{SLOT_BYTES, Table};
use alphabeta::Node;
use eval_cache::{EVAL_SLOTS, EvalCache};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::time::Duration;

const MAX_PLY: usize = 64;
/// Nodes between two looks at the clock, the node limit and the stop flag: a node limit may be
/// passed by this many nodes (and those of each helper thread's unreported count).
pub const CHECK_EVERY: u64 = 1024;

/// The most threads a search runs: 1 on `wasm32-unknown-unknown`, where a browser gives no
/// threads to spawn; there a search asking for more ([`Options::threads`], the protocol's
/// `Threads`) runs on the calling thread alone, as one thread does everywhere.
pub const MAX_THREADS: usize = if cfg!(all(target_arch = "wasm32", target_os = "unknown")) {
    1
} else {
    256
};
const INF: i32 = WIN + 1000;

/// The score of a shot that ends the game, from the mover's side, `ply` plies from the root.
#[inline]
fn terminal_score(mover: Color, hits: crate::laser::Hits, ply: usize) -> Option<i32> {
    if !hits.is_game_over() {
        return None;
    }
    let mine = hits.pharaoh_hit(mover);
    let theirs = hits.pharaoh_hit(mover.other());
    Some(match (mine, theirs) {
        (true, true) => 0,
        (false, true) => WIN - ply as i32,
        _ => -(WIN - ply as i32),
    })
}

/// What limits a search. Without any limit it runs until stopped.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Iterations up to this depth in plies.
    pub depth: Option<u32>,
    /// A hard limit: the search stops when it is reached and returns its best move so far.
    pub time: Option<Duration>,
    /// A soft limit: no new iteration starts once half of it has passed.
    pub soft: Option<Duration>,
    /// Stop after about this many nodes.
    pub nodes: Option<u64>,
    /// Look for a forced Pharaoh hit in at most this many of the mover's moves, and stop when one
    /// is found.
    pub mate: Option<u32>,
}

impl Limits {
    /// Search to `depth` plies.
    pub fn depth(depth: u32) -> Limits {
        Limits {
            depth: Some(depth),
            ..Limits::default()
        }
    }

    /// Search for `time`, all of it (a hard limit).
    pub fn time(time: Duration) -> Limits {
        Limits {
            time: Some(time),
            ..Limits::default()
        }
    }
}

/// Draws that the rules of the game being played add to the rule books' (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DrawLimits {
    /// A game is drawn when it reaches this many plies.
    pub plies: Option<u32>,
    /// A game is drawn after this many plies in a row in which no shot removed a piece.
    pub quiet_plies: Option<u32>,
}

impl DrawLimits {
    /// The limits of matches and of Khet2-AI: 200 plies, and 100 plies without a capture.
    pub const MATCH: DrawLimits = DrawLimits {
        plies: Some(200),
        quiet_plies: Some(100),
    };

    /// Whether a game `plies` long, the last `quiet` of them without a capture, is drawn.
    pub fn reached(&self, plies: u32, quiet: u32) -> bool {
        self.plies.is_some_and(|n| plies >= n) || self.quiet_plies.is_some_and(|n| quiet >= n)
    }
}

/// A search score as the protocol writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns (a Pyramid is 100) from the mover's side.
    Centipawns(i32),
    /// A forced Pharaoh hit in this many of the mover's moves; negative when the mover is lit.
    Mate(i32),
}

impl Score {
    /// The protocol score of a raw search score.
    pub fn from_raw(raw: i32) -> Score {
        let plies = WIN - raw.abs();
        if (0..=MAX_PLY as i32 * 2).contains(&plies) {
            let moves = (plies + 1) / 2;
            Score::Mate(if raw > 0 { moves } else { -moves })
        } else {
            Score::Centipawns(raw)
        }
    }
}

/// `123` or `mate 3` / `mate -2`, as after `score` in an `info` line.
impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Centipawns(cp) => write!(f, "{cp}"),
            Score::Mate(n) => write!(f, "mate {n}"),
        }
    }
}

/// One completed iteration, for `info` lines.
#[derive(Clone, Debug)]
pub struct Report {
    /// The depth completed, in plies.
    pub depth: u32,
    /// The raw score from the mover's side (see [`Score::from_raw`]).
    pub score: i32,
    /// Nodes searched so far.
    pub nodes: u64,
    /// Time since the search began.
    pub elapsed: Duration,
    /// The principal variation.
    pub pv: Vec<Move>,
}

/// The protocol's `info` line for this iteration.
impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pv: Vec<String> = self.pv.iter().map(ToString::to_string).collect();
        write!(
            f,
            "info depth {} score {} nodes {} nps {} time {} pv {}",
            self.depth,
            Score::from_raw(self.score),
            self.nodes,
            (self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)) as u64,
            self.elapsed.as_millis(),
            pv.join(" ")
        )
    }
}

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// `None` only when the side to move has no legal move.
    pub best: Option<Move>,
    /// Centipawns from the mover's side; near ±[`WIN`] for a forced Pharaoh hit.
    pub score: i32,
    /// The deepest iteration completed.
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
    /// Time taken.
    pub elapsed: Duration,
    /// The principal variation.
    pub pv: Vec<Move>,
}

/// How a [`Searcher`] searches: every switch and setting it has, in one value that the game,
/// the protocol and matches set alike. The default is the search as it plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Threads searching at once, 1 (the default) to [`MAX_THREADS`]: see the module docs. More
    /// than [`MAX_THREADS`] search as [`MAX_THREADS`] (one, on the web).
    pub threads: usize,
    /// Whether a side to move that already stands at or above beta may pass to prove it (see
    /// the module docs).
    pub null_moves: bool,
    /// Whether iterations start in a narrow window around the last score (aspiration, see the
    /// module docs).
    pub aspiration: bool,
    /// Whether late quiet moves are first searched a ply shallower (late-move reductions).
    pub reductions: bool,
    /// Whether those reductions grow with the node's depth and the move's place in the order
    /// ([`graded_reduction`]) instead of being one ply (see the module docs; on by default).
    pub graded_reductions: bool,
    /// Whether a node off the principal line within [`LMP_DEPTH`] plies of the horizon skips
    /// its late quiet moves (late-move pruning, see the module docs; on by default).
    pub late_move_pruning: bool,
    /// Whether history is kept within ±[`HISTORY_MAX`], each cut-off's bonus pulled towards
    /// it, and the quiet moves searched before a cut-off lose what it gains (history gravity
    /// and malus, see the module docs; on by default).
    pub history_gravity: bool,
    /// Run the quiescence search (weaker levels skip it and miss some threats).
    pub quiescence: bool,
    /// Whether repetitions score as draws (off: the search of earlier versions, for matches).
    pub repetitions: bool,
    /// What a draw by repetition costs the side the search plays, in centipawns: with a positive
    /// contempt it avoids repeating even when slightly behind.
    pub contempt: i32,
    /// Draws by a move limit or a run without captures, as the game being played counts them.
    pub draw_limits: DrawLimits,
    /// Whether a timed search by a side a Pyramid ahead first looks for a chain of threats
    /// that wins (see the module docs).
    pub threat_space: bool,
    /// The evaluation's weights (changed only when tuning).
    pub weights: Weights,
    /// Whether the learned network's word is added to the evaluation ([`crate::learned`]);
    /// Grandmaster's, off by default (Master and the levels below were measured without it).
    pub learned: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            threads: 1,
            null_moves: true,
            aspiration: true,
            reductions: true,
            // On: their sequential test passed (see the module docs).
            graded_reductions: true,
            // On: its sequential test passed (see the module docs).
            late_move_pruning: true,
            // On: its sequential test passed (see the module docs).
            history_gravity: true,
            quiescence: true,
            repetitions: true,
            contempt: DEFAULT_CONTEMPT,
            draw_limits: DrawLimits::default(),
            threat_space: true,
            weights: Weights::default(),
            learned: false,
        }
    }
}

/// A search engine with its tables; keep one per player so the tables carry over between moves.
pub struct Searcher {
    /// Shared with the helper threads of a parallel search.
    tt: Arc<Table>,
    killers: [[Option<Move>; 2]; MAX_PLY],
    /// Each quiet move's history, kept from move to move of a game (until [`Searcher::clear`])
    /// with no decay between searches: with [`Options::history_gravity`] (the default) it needs
    /// none, since every bonus is pulled towards ±[`HISTORY_MAX`], so it stays bounded and
    /// recent cut-offs outweigh old ones. Without it (`-nohist`, the search before) it only grows.
    history: Vec<i32>,
    stop: Arc<AtomicBool>,
    nodes: u64,
    /// `nodes` when the limits were last looked at: they are looked at again once
    /// [`CHECK_EVERY`] more nodes are counted, whichever count steps over the mark (quiescence
    /// counts nodes without looking, so a test of `nodes % 1024 == 0` could step past it and a
    /// node limit be overrun by thousands).
    checked: u64,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    aborted: bool,
    /// Counts searches. With repetitions on, only this search's entries cut the tree off: an
    /// older score was found when a repetition that is now possible was not (the game has moved
    /// on), and would hide it. Older entries still order the moves.
    age: u8,
    /// Arrangements of the game since its last capture, before the root (oldest first).
    game_history: Vec<u64>,
    /// Arrangements on the current line: `path[0]` is the root.
    path: [u64; MAX_PLY],
    /// The side the search plays (the root's side to move).
    root_side: Color,
    /// The best root move of the current iteration searched in full, and its score.
    root_best: Option<(Move, i32)>,
    /// How it searches: every switch and setting (see [`Options`]).
    pub options: Options,
    /// Plies of the game before the root.
    root_plies: u32,
    /// This search looks for a forced Pharaoh hit ([`Limits::mate`]): no null moves, which can
    /// hide one at a given depth.
    exact: bool,
    /// Plies since the last capture at each ply of the current line.
    quiet: [u32; MAX_PLY],
    /// Whether the move into each ply of the current line was a pass (a null move).
    passed: [bool; MAX_PLY],
    /// Nodes every thread of the running search has counted, each adding its own at every look
    /// ([`CHECK_EVERY`]).
    counted: Arc<AtomicU64>,
    /// Evaluations already made (see [`EvalCache`]).
    evals: EvalCache,
    /// Move lists of finished nodes, for the next ones to fill (see [`Node`]).
    spare: Vec<Node>,
    /// An opening book a timed search plays from where it has the position (see the module
    /// docs); none by default, so analysis and fixed-depth searches search.
    pub book: Option<Arc<Book>>,
}

/// The contempt by default: a Pyramid. Master's opponents (people, Khet2-AI) are weaker than it,
/// and against a weaker side a position a little worse is still worth playing on; a draw is
/// taken only a Pyramid or more behind (see `docs/engine-ledger.md` for the matches that chose it).
pub const DEFAULT_CONTEMPT: i32 = 100;

impl Default for Searcher {
    fn default() -> Searcher {
        Searcher::new(1 << 20)
    }
}

impl Searcher {
    /// A searcher with a transposition table of `entries` slots (rounded to a power of two).
    pub fn new(entries: usize) -> Searcher {
        let n = entries.next_power_of_two().max(1024);
        Searcher {
            tt: Arc::new(Table::new(n)),
            killers: [[None; 2]; MAX_PLY],
            history: vec![0; 80 * 80 * 5],
            stop: Arc::new(AtomicBool::new(false)),
            nodes: 0,
            checked: 0,
            deadline: None,
            node_limit: None,
            aborted: false,
            age: 0,
            game_history: Vec::new(),
            path: [0; MAX_PLY],
            quiet: [0; MAX_PLY],
            passed: [false; MAX_PLY],
            root_plies: 0,
            exact: false,
            root_side: Color::Silver,
            root_best: None,
            options: Options::default(),
            counted: Arc::new(AtomicU64::new(0)),
            evals: EvalCache::new(Weights::default(), n.min(EVAL_SLOTS)),
            spare: Vec::new(),
            book: None,
        }
    }

    /// A searcher whose transposition table takes about `mb` mebibytes (at least 1).
    pub fn with_hash_mb(mb: usize) -> Searcher {
        let entries = mb.clamp(1, 1 << 16) * (1 << 20) / SLOT_BYTES;
        // `new` rounds up; round down instead so the table stays within the size asked.
        Searcher::new(entries.next_power_of_two() / 2)
    }

    /// The transposition table's size in bytes.
    pub fn hash_bytes(&self) -> usize {
        self.tt.len() * SLOT_BYTES
    }

    /// The flag that stops a running search at once (it still returns its best move so far).
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// Makes `stop` the flag that stops its searches: a caller that holds the flag before the
    /// searcher exists (the searcher is made where it runs).
    pub fn set_stop_flag(&mut self, stop: Arc<AtomicBool>) {
        self.stop = stop;
    }

    /// Forget everything learned (a new game).
    pub fn clear(&mut self) {
        self.tt.clear();
        self.evals = EvalCache::new(self.options.weights, self.evals.slots.len());
        self.killers = [[None; 2]; MAX_PLY];
        self.history.iter_mut().for_each(|h| *h = 0);
    }

    /// The evaluation of `p` for its side to move (from the cache when it was made before).
    #[inline]
    fn evaluate(&mut self, p: &Position) -> i32 {
        self.evals
            .evaluate(p, &self.options.weights, self.options.learned)
    }

    /// Searches the game's position, knowing its history: arrangements that would repeat score
    /// as draws (see the module docs).
    pub fn search_game(
        &mut self,
        game: &Game,
        limits: Limits,
        report: impl FnMut(&Report),
    ) -> SearchResult {
        self.set_history(game);
        let result = self.search_from(game.position(), limits, report);
        self.game_history.clear();
        self.root_plies = 0;
        result
    }

    /// Keeps the arrangements of `game` since its last capture, before its current position.
    fn set_history(&mut self, game: &Game) {
        self.game_history.clear();
        self.root_plies = game.turns().len() as u32;
        let positions = game.positions();
        // `turns[i]` leads from `positions[i]` to `positions[i + 1]`.
        for (i, turn) in game.turns().iter().enumerate().rev() {
            if !turn.shot.hits.is_empty() {
                break;
            }
            self.game_history.push(positions[i].arrangement_hash());
        }
        self.game_history.reverse();
    }

    /// Searches `position` within `limits` as if the game began there (no history), calling
    /// `report` after each completed depth.
    pub fn search(
        &mut self,
        position: &Position,
        limits: Limits,
        report: impl FnMut(&Report),
    ) -> SearchResult {
        self.game_history.clear();
        self.root_plies = 0;
        self.search_from(position, limits, report)
    }
}
