//! "Is it fair?": the engine plays a batch of quick games from a setup and reports Silver's
//! score with a 95 % error bar, the average length, how many games the opening decided,
//! whether Silver's very first move can light the Red Pharaoh, and perft(1) and perft(2) as a
//! measure of mobility. The game's setup editor runs it in the background; `khet-engine
//! fairness SETUP` prints it.
//!
//! Each game is the same quick player on both sides: a two-ply search with captures seen
//! through (the quiescence search), choosing at random among the moves within [`NOISE`] of the
//! best, each game with its own seed; so the batch is a sample of reasonable play, not of one
//! line, and a score far from 50 % is the setup's doing. (Casual's three plies would be about
//! ten times slower: 214 s for 16 games from Classic, against 17 s.)

use crate::game::{Game, GameResult};
use crate::moves::Move;
use crate::perft::perft;
use crate::piece::Color;
use crate::position::Position;
use crate::puzzle::Solver;
use crate::rng::Rng;
use crate::search::Searcher;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// How many games, and how long a game may last before it counts as a draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Batch {
    /// Games to play.
    pub games: u32,
    /// Plies after which an unfinished game counts as a draw.
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
pub const NOISE: i32 = 40;

/// A game over within this many plies was decided by the opening.
pub const EARLY_PLIES: usize = 12;

/// What a batch found.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FairReport {
    /// Games played (fewer than asked when stopped).
    pub games: u32,
    /// Games Silver won.
    pub silver_wins: u32,
    /// Games Red won.
    pub red_wins: u32,
    /// Games drawn, or unfinished after the batch's plies.
    pub draws: u32,
    /// Silver's score, 0 to 1 (a draw is half).
    pub silver_score: f64,
    /// Half the width of the 95 % confidence interval of `silver_score`: 1.96 standard errors
    /// of the games' scores (sample variance, n − 1).
    pub margin: f64,
    /// The games' average length in plies.
    pub mean_plies: f64,
    /// Games over within [`EARLY_PLIES`] plies.
    pub decided_early: u32,
    /// Silver's first move can light the Red Pharaoh.
    pub first_move_wins: bool,
    /// Silver's legal moves from the setup.
    pub perft1: u64,
    /// Move pairs from the setup.
    pub perft2: u64,
}

impl std::fmt::Display for FairReport {
    /// One line: `Silver 45 % ± 13 (+8 =13 -11), 114 plies on average, 0 decided by ply 12, …`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} games: Silver {:.0} % ± {:.0} (+{} ={} -{}), {:.0} plies on average, {} decided by ply {}, first move {}, perft(1) {} perft(2) {}",
            self.games,
            100.0 * self.silver_score,
            100.0 * self.margin,
            self.silver_wins,
            self.draws,
            self.red_wins,
            self.mean_plies,
            self.decided_early,
            EARLY_PLIES,
            if self.first_move_wins {
                "lights the Red Pharaoh"
            } else {
                "cannot win"
            },
            self.perft1,
            self.perft2
        )
    }
}

/// The score and its error bar from the games' scores (1, ½ or 0 each).
fn mean_and_margin(scores: &[f64]) -> (f64, f64) {
    let n = scores.len().max(1) as f64;
    let mean = scores.iter().sum::<f64>() / n;
    let var = scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, 1.96 * (var / n).sqrt())
}

/// Plays a batch of games from `board` (Silver to move) and reports; `done` counts finished
/// games as they end, and `stop` ends the batch early (the report covers what was played).
pub fn measure(board: Position, batch: Batch, done: &AtomicU32, stop: &AtomicBool) -> FairReport {
    let mut start = board;
    start.set_side_to_move(Color::Silver);
    let mut scores = Vec::new();
    let (mut silver_wins, mut red_wins, mut plies, mut early) = (0, 0, 0usize, 0);
    let mut searcher = Searcher::new(1 << 16);
    for g in 0..batch.games {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let mut game = Game::new(start);
        let mut rng =
            Rng::new(0x5EED_F00D ^ (u64::from(g) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        searcher.clear();
        while !game.is_over() && game.turns().len() < batch.max_plies && !game.can_claim_draw() {
            let Some(mv) = quick_move(&mut searcher, &game, &mut rng) else {
                break;
            };
            if game.play(mv).is_err() || stop.load(Ordering::Relaxed) {
                break;
            }
        }
        let score = match game.result() {
            Some(GameResult::Win {
                winner: Color::Silver,
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
    let (silver_score, margin) = mean_and_margin(&scores);
    let played = scores.len() as u32;
    FairReport {
        games: played,
        silver_wins,
        red_wins,
        draws: played - silver_wins - red_wins,
        silver_score,
        margin,
        mean_plies: plies as f64 / scores.len().max(1) as f64,
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
fn quick_move(searcher: &mut Searcher, game: &Game, rng: &mut Rng) -> Option<Move> {
    searcher.options.quiescence = true;
    let scored = searcher.score_root_moves(game, 2);
    let best = scored.iter().map(|&(_, s)| s).max()?;
    crate::level::pick_at_least(&scored, best - NOISE, rng)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_margin_is_196_standard_errors() {
        // 3 wins, 1 draw, 0 losses: mean 0.875; deviations 0.125 ×3 and −0.375;
        // variance (3 × 0.015625 + 0.140625) / 3 = 0.0625; standard error √(0.0625 / 4) = 0.125.
        let (mean, margin) = mean_and_margin(&[1.0, 1.0, 1.0, 0.5]);
        assert_eq!(mean, 0.875);
        assert!((margin - 1.96 * 0.125).abs() < 1e-12, "{margin}");
        // One game has no spread to measure.
        assert_eq!(mean_and_margin(&[1.0]), (1.0, 0.0));
    }

    #[test]
    fn a_stopped_batch_reports_what_it_played() {
        let start = crate::Setup::builtin("khet2/classic").unwrap().position;
        let done = AtomicU32::new(0);
        let stop = AtomicBool::new(true);
        let r = measure(start, Batch::default(), &done, &stop);
        assert_eq!((r.games, r.silver_wins + r.red_wins + r.draws), (0, 0));
        assert_eq!((r.perft1, r.perft2), (77, 5_920));
        assert!(!r.first_move_wins);
    }
}
