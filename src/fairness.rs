//! "Is it fair?": the engine plays a batch of quick games from a setup, in the background, and
//! reports Silver's score with a 95 % error bar, the average length, how many games the
//! opening decided, whether Silver's very first move can light the Red Pharaoh, and perft(1)
//! and perft(2) as a measure of mobility.
//!
//! Each game is the same quick player on both sides: a two-ply search with captures seen
//! through (the quiescence search), choosing at random among the moves within [`NOISE`] of the
//! best, each game with its own seed; so the batch is a sample of reasonable play, not of one
//! line, and a score far from 50 % is the setup's doing. (Casual's three plies would be about
//! ten times slower: 214 s for 16 games from Classic, against 17 s.)

use bevy::prelude::*;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use khet_engine::puzzle::Solver;
use khet_engine::{Color as Side, Game, GameResult, Position, Searcher, perft};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// How many games, and how long a game may last before it counts as a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Batch {
    pub games: u32,
    pub max_plies: usize,
}

impl Default for Batch {
    /// What the editor's button asks: 32 games of at most 150 plies.
    fn default() -> Batch {
        Batch {
            games: 32,
            max_plies: 150,
        }
    }
}
/// How far below the best move (centi-Pyramids) a move may score and still be chosen.
const NOISE: i32 = 40;

/// A game over within this many plies was decided by the opening.
const EARLY_PLIES: usize = 12;

/// What a batch found.
#[derive(Clone, Debug, PartialEq)]
pub struct FairReport {
    pub games: u32,
    pub silver_wins: u32,
    pub red_wins: u32,
    pub draws: u32,
    /// Silver's score, 0 to 1 (a draw is half).
    pub silver_score: f64,
    /// Half the width of the 95 % confidence interval of `silver_score`.
    pub margin: f64,
    pub mean_plies: f64,
    /// Games over within [`EARLY_PLIES`] plies.
    pub decided_early: u32,
    /// Silver's first move can light the Red Pharaoh.
    pub first_move_wins: bool,
    pub perft1: u64,
    pub perft2: u64,
}

/// Plays a batch of games from `board` (Silver to move) and reports; `done` counts finished
/// games as they end, and `stop` ends the batch early (the report covers what was played).
pub fn measure(board: Position, batch: Batch, done: &AtomicU32, stop: &AtomicBool) -> FairReport {
    let mut start = board;
    start.set_side_to_move(Side::Silver);
    let mut scores = Vec::new();
    let (mut silver_wins, mut red_wins, mut plies, mut early) = (0, 0, 0usize, 0);
    let mut searcher = Searcher::new(1 << 16);
    for g in 0..batch.games {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let mut game = Game::new(start);
        let mut seed = 0x5EED_F00D ^ (u64::from(g) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        searcher.clear();
        while !game.is_over() && game.turns().len() < batch.max_plies && !game.can_claim_draw() {
            let Some(mv) = quick_move(&mut searcher, &game, &mut seed) else {
                break;
            };
            if game.play(mv).is_err() || stop.load(Ordering::Relaxed) {
                break;
            }
        }
        let score = match game.result() {
            Some(GameResult::Win {
                winner: Side::Silver,
                ..
            }) => {
                silver_wins += 1;
                1.0
            }
            Some(GameResult::Win { .. }) => {
                red_wins += 1;
                0.0
            }
            _ => 0.5,
        };
        if game.is_over() && game.turns().len() <= EARLY_PLIES {
            early += 1;
        }
        plies += game.turns().len();
        scores.push(score);
        done.fetch_add(1, Ordering::Relaxed);
    }
    let n = scores.len().max(1) as f64;
    let mean = scores.iter().sum::<f64>() / n;
    let var = scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    let played = scores.len() as u32;
    FairReport {
        games: played,
        silver_wins,
        red_wins,
        draws: played - silver_wins - red_wins,
        silver_score: mean,
        margin: 1.96 * (var / n).sqrt(),
        mean_plies: plies as f64 / n,
        decided_early: early,
        first_move_wins: Solver::with_limit(1_000_000)
            .wins_within(&start, 1)
            .unwrap_or(false),
        perft1: perft(&start, 1),
        perft2: perft(&start, 2),
    }
}

/// The batch's player: two plies and the capture search, a random choice among the moves
/// within [`NOISE`] of the best; a move that loses by force is never chosen when another is not.
fn quick_move(searcher: &mut Searcher, game: &Game, seed: &mut u64) -> Option<khet_engine::Move> {
    searcher.quiescence = true;
    let scored = searcher.score_root_moves(game, 2);
    let best = scored.iter().map(|&(_, s)| s).max()?;
    khet_engine::level::pick_at_least(&scored, best - NOISE, seed)
}

/// Ask for a batch of this many games on the editor's board.
#[derive(Message, Clone, Copy, Debug)]
pub struct CheckFairness(pub Batch);

/// The batch running, or its report.
#[derive(Resource, Default)]
pub enum Fairness {
    #[default]
    None,
    Running {
        task: Task<FairReport>,
        done: Arc<AtomicU32>,
        stop: Arc<AtomicBool>,
        games: u32,
        board: Position,
    },
    Done {
        report: FairReport,
        board: Position,
    },
}

impl Fairness {
    /// Finished games, of how many, while running.
    pub fn progress(&self) -> Option<(u32, u32)> {
        match self {
            Fairness::Running { done, games, .. } => Some((done.load(Ordering::Relaxed), *games)),
            _ => None,
        }
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Fairness>()
        .add_message::<CheckFairness>()
        .add_systems(
            Update,
            (start, finish).chain().in_set(crate::GameSet::Logic),
        );
}

fn start(
    mut requests: MessageReader<CheckFairness>,
    editor: Res<crate::editor::Editor>,
    mut fairness: ResMut<Fairness>,
) {
    let Some(&CheckFairness(batch)) = requests.read().last() else {
        return;
    };
    if !editor.problems.is_empty() {
        return;
    }
    if let Fairness::Running { stop, .. } = &*fairness {
        stop.store(true, Ordering::Relaxed);
    }
    let done = Arc::new(AtomicU32::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let board = editor.board;
    let (d, s) = (done.clone(), stop.clone());
    let task = AsyncComputeTaskPool::get().spawn(async move { measure(board, batch, &d, &s) });
    *fairness = Fairness::Running {
        task,
        done,
        stop,
        games: batch.games,
        board,
    };
}

fn finish(mut fairness: ResMut<Fairness>) {
    // Polled every frame without marking the resource changed; it changes when the task ends.
    let Fairness::Running { task, board, .. } = fairness.bypass_change_detection() else {
        return;
    };
    let board = *board;
    if let Some(report) = check_ready(task) {
        *fairness = Fairness::Done { report, board };
    }
}
