//! The computer opponent: iterative-deepening principal-variation search on copy-make positions,
//! a Zobrist transposition table, move ordering (Pharaoh kills, the hash move, captures, killer
//! and history moves), a quiescence search over laser captures, and time control (a budget, a
//! stop flag, always a best move so far).
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
//! Progress (an evaluation fading with the plies since the last capture, to make a side that
//! is ahead take material sooner) was tried and not kept. Its code was removed; it is in commit
//! a92ac76. Its test: `docs/engine-ledger.md`, *Sequential tests*.
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
//! misses. Their test against the one-ply search: `docs/engine-ledger.md`, *Graded reductions*.
//! Sparing the moves that touch a beam (a one-ply reduction for them under graded reductions)
//! was tried and not kept. Its code was removed; it is in commit a92ac76.
//!
//! Late-move pruning ([`Options::late_move_pruning`], on by default): at a node off the
//! principal line (a null window) within [`LMP_DEPTH`] plies of the horizon, once
//! [`late_move_count`] moves are searched and one of them keeps the side's Pharaoh, the late
//! moves that hit nothing and are neither the hash move nor a killer are skipped: such a
//! move seldom beats the moves ranked before it that near the horizon. Never in a search for
//! a forced Pharaoh hit ([`Limits::mate`]). The children are still made and fired (the
//! ordering needs their shots), so it saves their searches, not their making. From the
//! setups it takes about 70% of the nodes off a depth-9 search. Its test: `docs/engine-ledger.md`,
//! *Late-move pruning*.
//!
//! Reverse futility pruning (a node near the horizon, off the principal line, whose evaluation
//! stands a Pyramid a ply above beta cut off unsearched) was tried and not kept: a Khet move
//! can turn a beam onto a piece or the Pharaoh, so a position a Pyramid or two up is not safe
//! from the next move. Its code was removed; it is in commit 2b640fb.
//!
//! Under-fire extensions (a node whose Pharaoh the opponent's beam lights searched a ply
//! deeper) were tried, also with the beam traced only after a capture, and not kept. Their code
//! was removed; it is in commit 2b640fb.
//!
//! History in reductions (graded reductions a ply smaller for each 1,000 of a quiet move's
//! history) was tried and not kept. Its code was removed; it is in commit 2b640fb.
//!
//! Internal iterative reduction (a node 4 or more plies from the horizon without a hash move
//! searched a ply shallower) was tried and not kept. Its code was removed; it is in commit
//! 2b640fb.
//!
//! The tests of these tried and removed changes: `docs/engine-ledger.md`, *The search: changes
//! off or not kept* and *Sequential tests*.
//!
//! History gravity ([`Options::history_gravity`], on by default): without it a cut-off adds
//! depth² to its move's history, a sum that only grows over a game, so after a few searches
//! most quiet moves that ever cut stand at the cap ([`HISTORY_MAX`]) and rank alike. With it,
//! a bonus `b` is pulled towards the cap (`h += b − h·|b|/max`), so history stays within ±max
//! and recent cut-offs outweigh old ones, and the quiet moves searched before the one that
//! cut lose as much as it gains (the malus), so a move that keeps failing sinks below those
//! never tried. Late-move reductions and pruning lean on that order. The bonus is
//! [`history_bonus`], 8·depth² up to a quarter of the cap, not depth²: history then follows the
//! last few hundred cut-offs, not the last few thousand. Its tests (gravity against none, the
//! bonus against depth²): `docs/engine-ledger.md`, *History gravity*.
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
//! self-play of `match`'s tuning) scores a line that reaches one as a draw. As a way for a side
//! ahead to take its material before the limit it did not pay (the draws moved to the move
//! limit), so matches leave them off; the `-limits` match suffix was removed (it is in commit
//! a92ac76). Its test: `docs/engine-ledger.md`, *Sequential tests*.
//!
//! Threat space ([`Options::threat_space`]): a timed search by a side a Pyramid or more ahead
//! in material first gives up to a third of its time (at most a second) to a threat-space
//! search ([`crate::puzzle::Solver::threats_only`]): the mover plays only threats (moves after
//! which, were the opponent to stand still, its next shot lights the enemy Pharaoh) and the
//! opponent every reply. A chain of four to eight threats, each parried in few ways, is
//! searched to its end, where a full search of 100–200 ms reaches five to eight plies and
//! reduces quiet moves. Such chains are how a won ending is won, and the full search missed
//! them: in a Classic game Master drew against Khet2-AI there was one at each of its moves from
//! ply 66 to 76. A win it proves is played at once (its length is an upper bound: a quiet move
//! may win sooner). Without a threat to start a chain it ends within a millisecond; where
//! threats abound it uses its share, which in level play from the setups cost more than the
//! chains it found won, hence the lead it asks for. It is not run at a fixed depth or node
//! count (those searches are as before), in a search for a forced hit (exact already), or by
//! helper threads; and its win is left to the full search when the chain's first move leads to
//! an arrangement the game has had, since the solver knows no history. Its tests:
//! `docs/engine-ledger.md`, *Threat space*.
//!
//! Parries (where the opponent's beam ends on the side to move's Pharaoh, the quiescence search
//! searching that side's parries instead of standing pat) were tried and not kept. Their code
//! was removed; it is in commit a92ac76. Their tests: `docs/engine-ledger.md`, *The search:
//! changes off or not kept*.
//!
//! Book ([`Searcher::book`], none by default): a timed search (not one to a depth, a node
//! count or a forced hit) of a position the book has plays the book's move at once, as found
//! by a long search (see [`crate::book`]), unless it leads to an arrangement the game has had.
//! The game's Master, the protocol and matches give their searchers the shipped book.
//!
//! Threads ([`Options::threads`]): Lazy SMP. Helper threads search the same root, every other
//! one starting a ply deeper, on the one transposition table (lock-free, see `tt`); what they
//! store orders this thread's moves and cuts its tree off, so it reaches a depth sooner. This
//! thread's iterations, limits and result are the search's; the node limit counts its nodes
//! alone, the reported nodes everyone's. One thread is the plain search, exactly.

use crate::book::Book;
use crate::clock::Instant;
use crate::eval::{WIN, Weights, evaluate_with};
use crate::game::Game;
use crate::laser::Hits;
use crate::moves::Move;
use crate::piece::Color;
use crate::position::{Position, touches};
use crate::tt::{EXACT, Entry, LOWER, SLOT_BYTES, Table, UPPER};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

const MAX_PLY: usize = 64;
/// Moves searched in full before the late ones may be reduced.
const LATE_MOVES: usize = 3;
/// What a killer adds to a move's rank: above any quiet move's history (capped at 4,000), so a
/// quiet move ranked below it is neither the hash move nor a killer: one that late-move
/// reductions and pruning may take.
const KILLER_RANK: i32 = 5_000;
/// The most a move's history adds to its rank.
pub const HISTORY_MAX: i32 = 4_000;
/// With [`Options::history_gravity`], a cut-off `depth` plies from the horizon moves history
/// by [`history_bonus`]`(depth)`.
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
pub fn late_move_count(depth: i32) -> usize {
    4 + 2 * (depth * depth) as usize
}
/// How many plies shallower [`Options::graded_reductions`] first searches the `i`th move
/// (from 0) of a node `depth` plies from the horizon: ln(depth) × ln(i) / 2.25 rounded, at
/// least 1. The form chess programs use (the later a move comes in a well-ordered list, the
/// likelier it is bad, and the more a deep node can spare). A divisor of 3 (smaller
/// reductions) was tried and not kept (`docs/engine-ledger.md`, *Sequential tests*).
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
/// A null move's reply is searched this much shallower at `depth`, on top of the ply it uses.
/// 3 + depth/4 halved the tree to a depth but was weaker in play (`docs/engine-ledger.md`,
/// *Sequential tests*): a pass hides a quiet move that turns a beam onto a piece.
pub fn null_reduction(depth: i32) -> i32 {
    2 + depth / 6
}
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
/// Plies of captures the quiescence search looks past the horizon: a capture and the reply's
/// recapture, no more. Khet has no checks to follow and few long capture chains, and each ply
/// makes and fires every move of the side to move; the cap bounds that work.
const QUIESCENCE_PLIES: u32 = 2;
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

/// A node's moves, each made and its shot fired, and their order. Kept from node to node
/// ([`Searcher::spare`]): a node makes about a hundred children of some 200 bytes each, and
/// allocating that list anew and sorting the children themselves cost a tenth of a search's
/// time.
#[derive(Default)]
struct Node {
    children: Vec<Child>,
    /// The children's order, best first once sorted: (rank << 16) | (0xFFFF − index), so that
    /// equally ranked moves keep the order they were made in.
    order: Vec<i64>,
    /// The quiet moves searched so far that did not cut the node off, for
    /// [`Options::history_gravity`]'s malus.
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

/// Evaluations by position key, per thread: a leaf met again (in the next iteration, by a
/// transposition, or after a null-move test of the same node) costs a lookup instead of two beam
/// traces and, for a side well ahead, the reach. Exact keys, so a search visits the same tree
/// with it as without it.
struct EvalCache {
    /// Key and evaluation.
    slots: Vec<(u64, i32)>,
    /// The weights its evaluations were made with.
    weights: Weights,
}

/// The most slots an [`EvalCache`] has (16 bytes each: 4 MiB a thread); it has no more than
/// the searcher's transposition table, so a small searcher stays small. A search from a won
/// position makes some 300,000 evaluations in a few seconds; eight times the 32,768 slots it
/// had took 1.5–6.3% of the instructions off a search to a fixed depth (the README's
/// "Speed").
const EVAL_SLOTS: usize = 1 << 18;

impl EvalCache {
    /// `slots`, a power of two.
    fn new(weights: Weights, slots: usize) -> EvalCache {
        EvalCache {
            // A key no position has in practice, as the transposition table assumes too.
            slots: vec![(u64::MAX, 0); slots],
            weights,
        }
    }

    /// The evaluation of `p`.
    fn evaluate(&mut self, p: &Position, weights: &Weights) -> i32 {
        if self.weights != *weights {
            *self = EvalCache::new(*weights, self.slots.len());
        }
        let key = p.key();
        let mask = self.slots.len() - 1;
        let slot = &mut self.slots[key as usize & mask];
        if slot.0 != key {
            *slot = (key, evaluate_with(p, weights));
        }
        slot.1
    }
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

/// Adds `bonus` (at most [`HISTORY_MAX`] either way) to a history `h`, less the more `h`
/// already leans that way, so that it stays within ±[`HISTORY_MAX`] and recent cut-offs
/// outweigh old ones.
fn gravitate(h: &mut i32, bonus: i32) {
    *h += bonus - *h * bonus.abs() / HISTORY_MAX;
}

fn history_index(mv: Move) -> usize {
    let kind = match mv {
        Move::Step { .. } => 0,
        Move::Swap { .. } => 1,
        Move::Rotate { rotation, .. } => 2 + rotation as usize,
        Move::Unstack { .. } => 4,
    };
    (mv.from().index() * 80 + mv.to().index()) * 5 + kind
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
    fn evaluate(&mut self, p: &Position) -> i32 {
        self.evals.evaluate(p, &self.options.weights)
    }

    fn out_of_time(&mut self) -> bool {
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

    fn search_from(
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
        limits.time?;
        if self.exact || limits.depth.is_some() || limits.nodes.is_some() {
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
        let time = limits.time?;
        if !self.options.threat_space
            || self.exact
            || limits.depth.is_some()
            || limits.nodes.is_some()
        {
            return None;
        }
        let material = crate::eval::material(position);
        let me = position.side_to_move().index();
        if material[me] - material[1 - me] < THREAT_SPACE_LEAD {
            return None;
        }
        let budget =
            (limits.soft.unwrap_or(time).min(time) / THREAT_SPACE_SHARE).min(THREAT_SPACE_MAX);
        let mut solver = crate::puzzle::Solver::threats_only(u64::MAX);
        solver.deadline = Some(start + budget);
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

    fn negamax(&mut self, p: &Position, depth: i32, alpha: i32, beta: i32, ply: usize) -> i32 {
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
            let mut child = *p;
            let hits = child.play_unchecked(mv);
            match terminal_score(p.side_to_move(), hits, ply + 1) {
                Some(s) if s > 0 => {
                    self.store(slot, key, Some(mv), s, depth, EXACT);
                    return s;
                }
                // A shot at its own Pharaoh: left to the full list, where it ranks last.
                Some(_) => {}
                None => {
                    self.quiet[ply + 1] = if hits.count() > 0 {
                        0
                    } else {
                        self.quiet[ply] + 1
                    };
                    self.passed[ply + 1] = false;
                    let score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
                    if self.aborted {
                        return score;
                    }
                    best = score;
                    best_move = Some(mv);
                    alpha = alpha.max(score);
                    if alpha >= beta {
                        self.cut_by(mv, depth, ply, &[]);
                        self.store(slot, key, best_move, best, depth, LOWER);
                        return best;
                    }
                    if hits.count() == 0 {
                        node.tried.push(mv);
                    }
                    first_searched = true;
                }
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
        // Late-move pruning may start from this move on (none where the node never prunes).
        let prune_from =
            if self.options.late_move_pruning && !self.exact && depth <= LMP_DEPTH && ply > 0 {
                late_move_count(depth)
            } else {
                usize::MAX
            };
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
                // Late moves that hit nothing and are neither the hash move nor a killer are
                // searched a ply shallower first; one that beats alpha there is searched again.
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
        let bound = if best <= original_alpha {
            UPPER
        } else if best >= beta {
            LOWER
        } else {
            EXACT
        };
        self.store(slot, key, best_move, best, depth, bound);
        best
    }

    /// Remembers `mv`, a move that cut a node off at `depth` and `ply`, to try it early
    /// elsewhere: a killer at this ply, and history for every ply; with
    /// [`Options::history_gravity`], the quiet moves `tried` before it lose as much.
    fn cut_by(&mut self, mv: Move, depth: i32, ply: usize, tried: &[Move]) {
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

    /// Only shots that hit something (and Pharaoh kills) are searched past the horizon, for
    /// `qdepth` more plies ([`QUIESCENCE_PLIES`] from the horizon). Fail-soft: standing pat
    /// returns the evaluation itself, even below alpha.
    fn quiesce(&mut self, p: &Position, mut alpha: i32, beta: i32, ply: usize, qdepth: u32) -> i32 {
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

/// The score of a shot that ends the game, from the mover's side, `ply` plies from the root.
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
                        assert_eq!(cache.evaluate(&p, &w), evaluate_with(&p, &w), "{p}");
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
        assert_eq!(cache.evaluate(&b, &w), evaluate_with(&b, &w));
    }
}
