//! Matches: from all three Khet 2.0 setups with both colours (each opening played from both
//! sides, optionally after seeded random plies), at a fixed time per move, scored as wins, draws
//! and losses with an Elo difference and its 95% error bar, optionally stopped by a sequential
//! probability ratio test; and self-play tuning of the evaluation's weights.
//!
//! By job: who plays ([`contenders`]: names and suffixes to the search's options), external
//! engines over the protocol ([`external`]), where games start ([`starts`]: the setups' openings
//! and books), how a match is played ([`plan`]), the match itself ([`play`]: games, tally,
//! records, summary), logs read back ([`resume`]), the statistics ([`sprt`]: Elo and the
//! sequential test) and tuning ([`tune`]).
//! Here: when a match's game ends.

mod contenders;
mod external;
mod plan;
mod play;
mod resume;
mod sprt;
mod starts;
mod tune;

pub use contenders::Contender;
pub use plan::MatchPlan;
pub use play::{median, play_match};
pub use resume::read_resume;
pub(crate) use resume::{game_score, log_text, plan_line, read_logs};
pub(crate) use sprt::elo;
pub use sprt::{Sprt, Verdict};
pub(crate) use starts::opening;
pub use starts::read_book;
pub use tune::tune;

use khet_engine::Game;
use khet_engine::search::DrawLimits;

/// A match's draws beyond the rule books (which have none): 200 plies, and 100 plies without
/// a capture, as Khet2-AI plays.
const LIMITS: DrawLimits = DrawLimits::MATCH;

/// Plies at the end of `game` in which no shot removed a piece.
pub(crate) fn quiet_plies(game: &Game) -> u32 {
    game.turns()
        .iter()
        .rev()
        .take_while(|t| t.shot.hits.is_empty())
        .count() as u32
}

/// Whether a match's game has ended: won, drawn by the rules, a limit or a repetition.
pub(crate) fn finished(game: &Game) -> bool {
    game.is_over()
        || LIMITS.reached(game.turns().len() as u32, quiet_plies(game))
        || game.can_claim_draw()
}
