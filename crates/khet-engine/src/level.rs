//! Playing levels: they differ in style, not only in depth. The lower ones look less far, skip
//! the capture search (so they miss some threats) and choose among the reasonable moves with
//! some randomness; none ever plays a move that loses by force when another does not.

use crate::eval::WIN;
use crate::game::Game;
use crate::moves::Move;
use crate::position::Position;
use crate::rng::Rng;
use crate::search::{Limits, Searcher};
use std::time::Duration;

/// The worth of `position` to its side to move by a short search (depth 3): what the
/// computer weighs a draw offer or a repetition claim by, in the game and online.
pub fn quick_score(position: &Position) -> i32 {
    Searcher::new(1 << 14)
        .search(position, Limits::depth(3), |_| {})
        .score
}

/// How well the computer plays; see [`Level::description`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[allow(missing_docs)] // described by `Level::description`
pub enum Level {
    Beginner,
    Casual,
    Strong,
    Master,
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 4] = [Level::Beginner, Level::Casual, Level::Strong, Level::Master];

    /// The level's name, capitalised.
    pub fn name(self) -> &'static str {
        match self {
            Level::Beginner => "Beginner",
            Level::Casual => "Casual",
            Level::Strong => "Strong",
            Level::Master => "Master",
        }
    }

    /// One line for the new-game panel.
    pub fn description(self) -> &'static str {
        match self {
            Level::Beginner => {
                "Looks two moves ahead, misses threats beyond, varies its play freely."
            }
            Level::Casual => {
                "Looks three moves ahead and sees captures through; varies among good moves."
            }
            Level::Strong => {
                "Searches four moves deep in a quarter of its time (at most a second) and plays its best move."
            }
            Level::Master => {
                "Plays its opening book where it knows the position; else searches as deep as its whole time allows."
            }
        }
    }

    /// The computer's time for a move at this level when no clock says otherwise, the
    /// `budget` of [`Level::choose`]: what the desktop game and the browser page give it.
    /// Beginner and Casual search to a fixed depth and are done well within theirs.
    pub fn budget(self) -> Duration {
        match self {
            Level::Beginner | Level::Casual => Duration::from_millis(300),
            Level::Strong => Duration::from_millis(1500),
            Level::Master => Duration::from_millis(2500),
        }
    }

    /// Chooses a move for the game's side to move (`None` when it has none), knowing the game's
    /// history (it avoids repeating when ahead). `rng` varies the choice of the lower levels;
    /// the same generator state and game give the same move. Master uses all of `budget`.
    pub fn choose(
        self,
        searcher: &mut Searcher,
        game: &Game,
        budget: Duration,
        rng: &mut Rng,
    ) -> Option<Move> {
        let (depth, noise, quiescence) = match self {
            Level::Beginner => (2, 150, false),
            Level::Casual => (3, 50, true),
            Level::Strong => {
                searcher.options.quiescence = true;
                let limits = Limits {
                    depth: Some(4),
                    time: Some((budget / 4).min(Duration::from_secs(1))),
                    ..Limits::default()
                };
                return searcher.search_game(game, limits, |_| {}).best;
            }
            Level::Master => {
                searcher.options.quiescence = true;
                return searcher
                    .search_game(game, Limits::time(budget), |_| {})
                    .best;
            }
        };
        searcher.options.quiescence = quiescence;
        let scored = searcher.score_root_moves(game, depth);
        let best = scored.iter().map(|&(_, s)| s).max()?;
        let floor = if best <= -WIN / 2 {
            best
        } else {
            (best - noise).max(-WIN / 2 + 1)
        };
        pick_at_least(&scored, floor, rng)
    }
}

/// One of the scored moves whose score is at least `floor`, chosen by `rng`: how the lower
/// levels vary their play among good moves. `None` when no move reaches the floor.
pub fn pick_at_least(scored: &[(Move, i32)], floor: i32, rng: &mut Rng) -> Option<Move> {
    let good: Vec<Move> = scored
        .iter()
        .filter(|&&(_, s)| s >= floor)
        .map(|&(m, _)| m)
        .collect();
    rng.pick(&good)
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A level's name in any case.
impl std::str::FromStr for Level {
    type Err = crate::text::ParseNameError;
    fn from_str(s: &str) -> Result<Level, crate::text::ParseNameError> {
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| {
                crate::text::ParseNameError::new("level", s, "beginner, casual, strong or master")
            })
    }
}
