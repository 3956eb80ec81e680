//! Time controls: a clock per side (time left and an increment), and how much of it a search
//! may use for one move. The game's clocks and the protocol's `go wtime … btime …` share it.

use crate::piece::Color;
use crate::search::Limits;
use std::time::Duration;

/// Both sides' clocks as the protocol's `go` gives them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Time left for each side, indexed by [`Color::index`].
    pub remaining: [Duration; 2],
    /// Time added after each of that side's moves.
    pub increment: [Duration; 2],
    /// Moves until the next time control, if the control has one.
    pub moves_to_go: Option<u32>,
}

/// How many more moves a side expects to make when the control does not say: Khet games last
/// about 50 moves a side, and a side that plans for fewer runs short in long games.
const EXPECTED_MOVES: u32 = 30;

/// What is held back for the time it takes a move to travel (a process, a pipe, a frame).
const OVERHEAD: Duration = Duration::from_millis(30);

impl Clock {
    /// The limits of a search for `side`: a soft target (about its share of the time left plus
    /// most of its increment) and a hard limit (never more than a third of what is left, so
    /// that a side with an increment of a second or more cannot run out).
    ///
    /// ```
    /// use khet_engine::{Clock, Color};
    /// use std::time::Duration;
    /// let clock = Clock {
    ///     remaining: [Duration::from_secs(60), Duration::from_secs(60)],
    ///     increment: [Duration::from_secs(1); 2],
    ///     moves_to_go: None,
    /// };
    /// let limits = clock.limits(Color::Silver);
    /// assert!(limits.time.unwrap() <= Duration::from_secs(20));
    /// assert!(limits.soft.unwrap() >= Duration::from_secs(2));
    /// ```
    pub fn limits(&self, side: Color) -> Limits {
        let left = self.remaining[side.index()].saturating_sub(OVERHEAD);
        let inc = self.increment[side.index()];
        let moves = self.moves_to_go.unwrap_or(EXPECTED_MOVES).clamp(1, 100);
        let share = left / moves + inc * 3 / 4;
        let hard = (share * 3).min(left / 3).max(Duration::from_millis(1));
        Limits {
            time: Some(hard),
            soft: Some(share.min(hard)),
            ..Limits::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_plans_past_the_flag() {
        for left_ms in [0u64, 5, 40, 100, 1_000, 30_000, 600_000] {
            for inc_ms in [0u64, 100, 1_000, 5_000] {
                let clock = Clock {
                    remaining: [Duration::from_millis(left_ms); 2],
                    increment: [Duration::from_millis(inc_ms); 2],
                    moves_to_go: None,
                };
                let l = clock.limits(Color::Red);
                let hard = l.time.unwrap_or_default();
                assert!(hard <= Duration::from_millis(left_ms / 3).max(Duration::from_millis(1)));
                assert!(l.soft.unwrap_or_default() <= hard);
            }
        }
    }
}
