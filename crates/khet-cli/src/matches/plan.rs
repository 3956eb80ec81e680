//! How a match is played ([`MatchPlan`]): what `khet-engine match` reads from its options, and
//! what the match, its starts and its resumption read.

use super::sprt::Sprt;
use khet_engine::Position;
use std::time::Duration;

/// How a match is played: the time a move, how many games at most, the random opening plies
/// (the same for both games of a pair), and the sequential test that may end it sooner.
#[derive(Clone)]
pub struct MatchPlan {
    /// Games at most (a pair's two games count two).
    pub games: u32,
    /// Time per move.
    pub movetime: Duration,
    /// Each level plays with its own time a move ([`khet_engine::Level::budget`], as the game
    /// gives it) instead of `movetime`: the ladder measures the levels as players meet them.
    pub budgets: bool,
    /// Random plies played from the setup before the contenders take over.
    pub opening_plies: usize,
    /// A sequential probability ratio test, if one decides when to stop.
    pub sprt: Option<Sprt>,
    /// A folder to keep each game's record in (`game-N.ron`, which `khet-engine replay` and the
    /// game's Open screen read), to go through the games afterwards.
    pub records: Option<std::path::PathBuf>,
    /// Start positions to play instead of the setups' openings, each from both sides, in turn.
    pub book: Option<Vec<Position>>,
    /// The results of an earlier run of the same match (its log, read by `read_resume`):
    /// the match counts them and plays on from the game after them.
    pub resume: Vec<f64>,
}
