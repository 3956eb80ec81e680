//! `khet-engine ladder`: the computer's levels measured against each other, as players meet
//! them. Each neighbouring pair of rungs (the greedy player, then every level, weakest first)
//! plays a match, the stronger as `a`, each level with its own time a move (what the game gives
//! it); each step's Elo and its 95% error bar add up to each rung's rating, the greedy player's
//! being 0. The table it ends with goes to `docs/engine-ledger.md`.

use crate::matches::{self, Contender, MatchPlan, median};
use crate::out::{Failure, Out, say};
use khet_engine::Level;
use std::io::Write;
use std::time::Duration;

/// How the ladder is measured.
pub struct Plan {
    /// Games for each step (a pair's two games count two).
    pub games: u32,
    /// Random plies from the setups before the rungs take over, for varied games.
    pub opening_plies: usize,
    /// The highest level measured (the rungs below it and it).
    pub top: Level,
}

/// One rung of the ladder, with how its step from the rung below went.
struct Rung {
    name: String,
    /// Its rating: the greedy player's is 0.
    rating: f64,
    /// The step from the rung below: Elo, its error bar, games, wins, draws, losses.
    step: Option<Step>,
    /// Its median time a move in the step's match.
    time: Duration,
}

struct Step {
    elo: f64,
    margin: f64,
    games: usize,
    score: [usize; 3],
}

/// The rungs up to `top`, weakest first: the greedy player, then the levels.
fn rungs(top: Level) -> Vec<Contender> {
    let levels = Level::ALL.iter().take_while(|&&l| l != top).copied();
    std::iter::once(Contender::Greedy)
        .chain(levels.chain([top]).map(Contender::level))
        .collect()
}

/// Plays each step of the ladder up to `plan.top` in turn (each match's lines as
/// `khet-engine match` prints them), then the ladder's table.
pub fn run(plan: &Plan, out: &mut Out<impl Write>) -> Result<(), Failure> {
    let rungs = rungs(plan.top);
    let match_plan = MatchPlan {
        games: plan.games,
        movetime: Duration::ZERO,
        budgets: true,
        opening_plies: plan.opening_plies,
        sprt: None,
        records: None,
        book: None,
        resume: Vec::new(),
    };
    let mut table = vec![Rung {
        name: rungs[0].name(),
        rating: 0.0,
        step: None,
        time: Duration::ZERO,
    }];
    for pair in rungs.windows(2) {
        let (lower, upper) = (&pair[0], &pair[1]);
        say!(out, "## {} against {}", upper.name(), lower.name());
        let summary = matches::play_match(upper, lower, &match_plan, out)?;
        let (elo, margin) = matches::elo(&summary.results);
        let count = |r: f64| summary.results.iter().filter(|&&x| x == r).count();
        if let Some(below) = table.last_mut()
            && below.step.is_none()
        {
            below.time = median(&summary.times[1]);
        }
        let rating = table.last().map_or(0.0, |r| r.rating) + elo;
        table.push(Rung {
            name: upper.name(),
            rating,
            step: Some(Step {
                elo,
                margin,
                games: summary.results.len(),
                score: [count(1.0), count(0.5), count(0.0)],
            }),
            time: median(&summary.times[0]),
        });
    }
    say_table(&table, out)
}

/// The ladder as a Markdown table: each rung's name (the name `match`, `setoption name Level`
/// and `--level` take), rating, step from the rung below with its games, and median time a move.
fn say_table(table: &[Rung], out: &mut Out<impl Write>) -> Result<(), Failure> {
    say!(out, "");
    say!(
        out,
        "| rung | rating | step from the rung below | games (+ = -) | median time a move |"
    );
    say!(out, "|---|---|---|---|---|");
    for rung in table {
        let (step, games) = match &rung.step {
            Some(s) => (
                format!("{:+.0} ± {:.0}", s.elo, s.margin),
                format!(
                    "{} (+{} ={} -{})",
                    s.games, s.score[0], s.score[1], s.score[2]
                ),
            ),
            None => ("—".to_string(), "—".to_string()),
        };
        say!(
            out,
            "| {} | {:.0} | {step} | {games} | {:.0} ms |",
            rung.name,
            rung.rating,
            rung.time.as_secs_f64() * 1000.0
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rungs_are_greedy_then_the_levels_weakest_first_up_to_the_top() {
        let names = |top| rungs(top).iter().map(Contender::name).collect::<Vec<_>>();
        assert_eq!(names(Level::Beginner), ["Greedy", "Beginner"]);
        assert_eq!(
            names(Level::Master),
            ["Greedy", "Beginner", "Casual", "Strong", "Master"]
        );
    }

    #[test]
    fn a_short_ladder_plays_its_steps_and_adds_them_up() {
        let plan = Plan {
            games: 2,
            opening_plies: 2,
            top: Level::Beginner,
        };
        let mut out = Out::memory();
        run(&plan, &mut out).unwrap();
        let text = out.text();
        assert!(text.contains("## Beginner against Greedy"), "{text}");
        let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("| ")).collect();
        assert_eq!(rows.len(), 3, "the header and two rungs: {text}");
        assert!(rows[1].starts_with("| Greedy | 0 | — | — |"), "{text}");
        assert!(rows[2].starts_with("| Beginner | "), "{text}");
        assert!(rows[2].contains("2 (+"), "two games: {text}");
    }
}
