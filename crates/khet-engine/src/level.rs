//! Playing levels: a ladder of thirteen, each measured about 200 Elo above the one below by
//! `khet-engine ladder` (the figures in [`Level::rating`] and `docs/engine-ledger.md`), and
//! Grandmaster beyond it: Master with the learned evaluation ([`crate::learned`]). The four
//! lowest look a fixed number of plies ahead and choose among the moves that score nearly best
//! with some randomness (the lowest two without the capture search, so they miss some threats);
//! the others search to a node count, so that their strength is the same on any machine and under
//! any load, Master and Grandmaster with the opening book and the threat-space search. None ever plays a move
//! that loses by force when another does not.

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

/// How well the computer plays; see [`Level::description`] and [`Level::rating`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[allow(missing_docs)] // described by `Level::description`
pub enum Level {
    Novice,
    Beginner,
    Learner,
    Apprentice,
    Improver,
    Casual,
    Club,
    Skilled,
    Adept,
    Strong,
    Advanced,
    Expert,
    Master,
    Grandmaster,
}

/// How a level chooses its move.
enum Style {
    /// Every move scored by a search `depth` plies deep (with the capture search or not); one
    /// of those within `noise` of the best is chosen at random.
    Scored {
        depth: u32,
        noise: i32,
        quiescence: bool,
    },
    /// The best move of a search of about this many nodes (one thread); with `full`, the
    /// opening book's move where it has one, and the threat-space search when ahead; with
    /// `learned`, the learned evaluation added to the hand-written one ([`crate::learned`]).
    Nodes {
        nodes: u64,
        full: bool,
        learned: bool,
    },
}

impl Level {
    /// Every level, weakest first.
    pub const ALL: [Level; 14] = [
        Level::Novice,
        Level::Beginner,
        Level::Learner,
        Level::Apprentice,
        Level::Improver,
        Level::Casual,
        Level::Club,
        Level::Skilled,
        Level::Adept,
        Level::Strong,
        Level::Advanced,
        Level::Expert,
        Level::Master,
        Level::Grandmaster,
    ];

    /// The level's name, capitalised.
    pub fn name(self) -> &'static str {
        match self {
            Level::Novice => "Novice",
            Level::Beginner => "Beginner",
            Level::Learner => "Learner",
            Level::Apprentice => "Apprentice",
            Level::Improver => "Improver",
            Level::Casual => "Casual",
            Level::Club => "Club",
            Level::Skilled => "Skilled",
            Level::Adept => "Adept",
            Level::Strong => "Strong",
            Level::Advanced => "Advanced",
            Level::Expert => "Expert",
            Level::Master => "Master",
            Level::Grandmaster => "Grandmaster",
        }
    }

    /// The level's rating as measured by `khet-engine ladder` (see `docs/engine-ledger.md`):
    /// Elo above the greedy player ([`crate::greedy_move`]), the stand-in for a person who has
    /// just learned the rules, whose rating is 0; each the one below's plus the measured step
    /// between them. Every step is measured over 200 games but Master's, over 124 so far
    /// (+195 ± 51, its error bar already under ±60; the ledger's table has each); Grandmaster's
    /// is provisional (below).
    pub fn rating(self) -> i32 {
        match self {
            Level::Novice => 135,
            Level::Beginner => 365,
            Level::Learner => 593,
            Level::Apprentice => 777,
            Level::Improver => 939,
            Level::Casual => 1137,
            Level::Club => 1316,
            Level::Skilled => 1533,
            Level::Adept => 1684,
            Level::Strong => 1896,
            Level::Advanced => 2056,
            Level::Expert => 2234,
            Level::Master => 2429,
            // Provisional: Master's plus the learned evaluation's gain at equal time (100 ms a
            // move, the setups' openings: +126 ± 53), not yet the ladder's step at its nodes.
            Level::Grandmaster => 2555,
        }
    }

    /// The level one up the ladder, if any: what the game suggests after two wins against it.
    pub fn next(self) -> Option<Level> {
        let i = Level::ALL.iter().position(|&l| l == self)?;
        Level::ALL.get(i + 1).copied()
    }

    fn style(self) -> Style {
        let scored = |depth, noise, quiescence| Style::Scored {
            depth,
            noise,
            quiescence,
        };
        let nodes = |nodes| Style::Nodes {
            nodes,
            full: false,
            learned: false,
        };
        match self {
            Level::Novice => scored(1, 50, false),
            Level::Beginner => scored(2, 200, false),
            Level::Learner => scored(2, 200, true),
            Level::Apprentice => scored(2, 100, true),
            Level::Improver => scored(2, 40, true),
            Level::Casual => scored(3, 50, true),
            // From Expert down, each a factor of 2.75 fewer nodes: about 200 Elo.
            Level::Club => nodes(1_900),
            Level::Skilled => nodes(5_300),
            Level::Adept => nodes(14_500),
            Level::Strong => nodes(40_000),
            Level::Advanced => nodes(109_000),
            Level::Expert => nodes(300_000),
            Level::Master => Style::Nodes {
                nodes: 1_000_000,
                full: true,
                learned: false,
            },
            // Master judging positions with the learned evaluation as well: beyond Master.
            Level::Grandmaster => Style::Nodes {
                nodes: 1_000_000,
                full: true,
                learned: true,
            },
        }
    }

    /// One line for the new-game panel.
    pub fn description(self) -> String {
        match self.style() {
            Style::Scored {
                depth,
                quiescence: false,
                ..
            } => format!(
                "Looks {} ahead, misses threats beyond, varies its play freely.",
                plies(depth)
            ),
            Style::Scored { depth, .. } => format!(
                "Looks {} ahead and sees captures through; varies among good moves.",
                plies(depth)
            ),
            Style::Nodes {
                nodes, full: false, ..
            } => format!(
                "Searches about {} positions a move and plays its best move.",
                thousands(nodes)
            ),
            Style::Nodes {
                nodes,
                full: true,
                learned: false,
            } => format!(
                "Plays its opening book where it knows the position; else searches about {} \
                 positions a move, and chains of threats when ahead.",
                thousands(nodes)
            ),
            Style::Nodes {
                nodes,
                full: true,
                learned: true,
            } => format!(
                "As Master (its book, {} positions a move, chains of threats), judging positions \
                 with a network learnt from self-play as well.",
                thousands(nodes)
            ),
        }
    }

    /// The computer's time for a move at this level when no clock says otherwise, the
    /// `budget` of [`Level::choose`]: what the desktop game and the browser page give it.
    /// It is a bound the level's search is done well within on a computer of today (a slow
    /// phone may need it): a level's strength is its depth or node count, the same on any
    /// machine, so that its rating holds there.
    pub fn budget(self) -> Duration {
        match self.style() {
            Style::Scored { .. } => Duration::from_millis(300),
            // One thread of the 2-core machine the ladder was measured on searches about
            // 430,000 nodes a second: more than twice its time.
            Style::Nodes { nodes, .. } => Duration::from_millis(300 + nodes / 200),
        }
    }

    /// The least time the game lets the computer seem to think before its move is shown: a
    /// reply the moment a move is made feels like no opponent at all.
    pub fn least_pause(self) -> Duration {
        Duration::from_millis(700)
    }

    /// Chooses a move for the game's side to move (`None` when it has none), knowing the game's
    /// history (it avoids repeating when ahead). `rng` varies the choice of the lowest levels;
    /// the same generator state and game give the same move at every level, as long as
    /// `budget` does not cut the search short and the searcher has one thread. The searcher's
    /// book is its caller's, for Master and Grandmaster alone; its threads too (their nodes are
    /// shared among them; the lower levels search on one).
    pub fn choose(
        self,
        searcher: &mut Searcher,
        game: &Game,
        budget: Duration,
        rng: &mut Rng,
    ) -> Option<Move> {
        let (depth, noise, quiescence) = match self.style() {
            Style::Scored {
                depth,
                noise,
                quiescence,
            } => (depth, noise, quiescence),
            Style::Nodes {
                nodes,
                full,
                learned,
            } => {
                let (options, book) = (searcher.options, searcher.book.clone());
                searcher.options.quiescence = true;
                searcher.options.learned |= learned;
                // Master shares its nodes among the caller's threads: the same count sooner
                // (the ladder measures it on one; a few Elo may go to the threads' overlap).
                if !full {
                    searcher.options.threads = 1;
                }
                searcher.options.threat_space &= full;
                if !full {
                    searcher.book = None;
                }
                let limits = Limits {
                    nodes: Some(nodes),
                    time: Some(budget),
                    ..Limits::default()
                };
                let best = searcher.search_game(game, limits, |_| {}).best;
                (searcher.options, searcher.book) = (options, book);
                return best;
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

/// "one ply", "two plies", …
fn plies(depth: u32) -> String {
    let words = ["no", "one", "two", "three", "four"];
    let n = words
        .get(depth as usize)
        .map_or(depth.to_string(), ToString::to_string);
    if depth == 1 {
        format!("{n} ply")
    } else {
        format!("{n} plies")
    }
}

/// 20000 as "20,000".
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
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
                crate::text::ParseNameError::new(
                    "level",
                    s,
                    "novice, beginner, learner, apprentice, improver, casual, club, skilled, adept, \
                     strong, advanced, expert, master or grandmaster",
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ladder_climbs_and_its_words_read_well() {
        for pair in Level::ALL.windows(2) {
            assert!(pair[0].rating() < pair[1].rating(), "{pair:?}");
            assert_eq!(pair[0].next(), Some(pair[1]));
        }
        assert_eq!(Level::Grandmaster.next(), None);
        let names: Vec<String> = Level::ALL.iter().map(|l| l.name().to_lowercase()).collect();
        let wrong = "emperor".parse::<Level>().unwrap_err().to_string();
        let (all, last) = names.split_at(names.len() - 1);
        let expected = format!("({} or {})", all.join(", "), last[0]);
        assert!(wrong.ends_with(&expected), "{wrong}");
        assert_eq!(thousands(100_000), "100,000");
        assert_eq!(thousands(4_000), "4,000");
        assert!(Level::Novice.description().contains("one ply ahead"));
        assert!(Level::Casual.description().contains("three plies ahead"));
    }
}
