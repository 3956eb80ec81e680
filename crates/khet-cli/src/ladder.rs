//! `khet-engine ladder`: the computer's levels measured against each other, as players meet
//! them. Each neighbouring pair of rungs (the greedy player, then every level, weakest first)
//! plays a match, the stronger as `a`, each level with its own time a move (what the game gives
//! it); each step's Elo and its 95% error bar add up to each rung's rating, the greedy player's
//! being 0. A ladder may be measured in parts (`--from`, `--top`), side by side or over several
//! runs, and its logs read back (`--resume`): each step goes on where its log stopped, and a
//! step already played in full is read, not played again. The table it ends with goes to
//! `docs/engine-ledger.md`.

use crate::matches::{self, Contender, MatchPlan, median};
use crate::out::{Failure, Out, say};
use khet_engine::Level;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// How the ladder is measured.
pub struct Plan {
    /// Games for each step (a pair's two games count two).
    pub games: u32,
    /// Random plies from the setups before the rungs take over, for varied games.
    pub opening_plies: usize,
    /// The lowest rung measured (`None`: the greedy player): its rating is the one the engine
    /// gives it, and the steps above add to it.
    pub from: Option<Level>,
    /// The highest level measured (the rungs below it and it).
    pub top: Level,
    /// Ladder logs of earlier runs, in the order they were played.
    pub resume: Vec<PathBuf>,
}

/// One rung of the ladder, with how its step from the rung below went.
struct Rung {
    name: String,
    /// Its rating as measured: the lowest rung's is the engine's (the greedy player's 0).
    rating: f64,
    /// Its rating as the engine gives it ([`Level::rating`]; the greedy player's 0).
    shipped: i32,
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

/// The rungs from `from` (`None`: the greedy player) up to `top`, weakest first.
fn rungs(from: Option<Level>, top: Level) -> Vec<Contender> {
    let first = from.map_or(0, |f| Level::ALL.iter().position(|&l| l == f).unwrap_or(0));
    let levels = Level::ALL[first..]
        .iter()
        .take_while(|&&l| l != top)
        .copied()
        .chain([top])
        .map(Contender::level);
    from.map_or(Some(Contender::Greedy), |_| None)
        .into_iter()
        .chain(levels)
        .collect()
}

/// The rating the engine gives a rung.
fn shipped(rung: &Contender) -> i32 {
    match rung {
        Contender::Level { level, .. } => level.rating(),
        _ => 0,
    }
}

/// The heading a step's part of a ladder log starts with.
fn heading(upper: &Contender, lower: &Contender) -> String {
    format!("## {} against {}", upper.name(), lower.name())
}

/// Each log's parts under `heading` (to the next heading), named `FILE (STEP)` for errors.
fn sections(logs: &[(String, String)], heading: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    for (name, text) in logs {
        let mut current: Option<String> = None;
        for line in text.lines() {
            if line.starts_with("## ") || line.starts_with("| rung ") {
                found.extend(current.take().map(|t| (format!("{name} ({heading})"), t)));
                if line == heading {
                    current = Some(String::new());
                }
            } else if let Some(t) = current.as_mut() {
                *t += line;
                *t += "\n";
            }
        }
        found.extend(current.map(|t| (format!("{name} ({heading})"), t)));
    }
    found
}

/// A step's parts of earlier logs: those of this run's plan (to resume), and those of runs
/// played beside it with another number of opening plies (their games count too), by it.
#[allow(clippy::type_complexity)]
fn split_by_plan(
    parts: Vec<(String, String)>,
    plan: &MatchPlan,
) -> (Vec<(String, String)>, Vec<(usize, Vec<(String, String)>)>) {
    let ours = matches::plan_line(plan);
    let mut resumed = Vec::new();
    let mut beside: Vec<(usize, Vec<(String, String)>)> = Vec::new();
    for (name, text) in parts {
        let plies = text
            .lines()
            .find_map(|l| l.strip_prefix("plan: each level its own time a move, "))
            .and_then(|l| l.strip_suffix(" random opening plies"))
            .and_then(|n| n.parse::<usize>().ok());
        match plies {
            Some(n) if !text.contains(&format!("{ours}\n")) => {
                match beside.iter_mut().find(|(m, _)| *m == n) {
                    Some((_, logs)) => logs.push((name, text)),
                    None => beside.push((n, vec![(name, text)])),
                }
            }
            _ => resumed.push((name, text)),
        }
    }
    (resumed, beside)
}

/// The median times a move an earlier run's summary said for the step's two rungs, the last
/// said in `logs`: the times of a step read back, not played again.
fn said_times(logs: &[(String, String)], upper: &str, lower: &str) -> Option<[Duration; 2]> {
    let line = logs
        .iter()
        .rev()
        .flat_map(|(_, t)| t.lines().rev())
        .find_map(|l| l.strip_prefix("median time a move: "))?;
    let ms = |name: &str| -> Option<Duration> {
        let rest = line.split(&format!("{name} ")).nth(1)?;
        let n: f64 = rest.split(" ms").next()?.parse().ok()?;
        Some(Duration::from_secs_f64(n / 1000.0))
    };
    Some([ms(upper)?, ms(lower)?])
}

/// Plays each step of the ladder from `plan.from` up to `plan.top` in turn (each match's lines
/// as `khet-engine match` prints them, under the step's heading), then the ladder's table.
pub fn run(plan: &Plan, out: &mut Out<impl Write>) -> Result<(), Failure> {
    let rungs = rungs(plan.from, plan.top);
    let mut logs = Vec::new();
    for path in &plan.resume {
        let text = matches::log_text(path).map_err(Failure::Input)?;
        logs.push((path.display().to_string(), text));
    }
    let mut match_plan = MatchPlan {
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
        rating: f64::from(shipped(&rungs[0])),
        shipped: shipped(&rungs[0]),
        step: None,
        time: Duration::ZERO,
    }];
    for pair in rungs.windows(2) {
        let (lower, upper) = (&pair[0], &pair[1]);
        let heading = heading(upper, lower);
        let (earlier, beside) = split_by_plan(sections(&logs, &heading), &match_plan);
        match_plan.resume =
            matches::read_logs(&earlier, upper, &match_plan).map_err(Failure::Input)?;
        say!(out, "{heading}");
        let summary = matches::play_match(upper, lower, &match_plan, out)?;
        let mut times = summary.times.clone().map(|t| median(&t));
        if summary.times[0].is_empty() {
            times = said_times(&earlier, &upper.name(), &lower.name()).unwrap_or_default();
        }
        let mut results = summary.results;
        for (plies, logs) in &beside {
            let plan = MatchPlan {
                opening_plies: *plies,
                ..match_plan.clone()
            };
            let played = matches::read_logs(logs, upper, &plan).map_err(Failure::Input)?;
            say!(
                out,
                "and {} games of a run beside it, with {plies} random opening plies",
                played.len()
            );
            results.extend(played);
        }
        let (elo, margin) = matches::elo(&results);
        let count = |r: f64| results.iter().filter(|&&x| x == r).count();
        if let Some(below) = table.last_mut()
            && below.step.is_none()
        {
            below.time = times[1];
        }
        let rating = table.last().map_or(0.0, |r| r.rating) + elo;
        table.push(Rung {
            name: upper.name(),
            rating,
            shipped: shipped(upper),
            step: Some(Step {
                elo,
                margin,
                games: results.len(),
                score: [count(1.0), count(0.5), count(0.0)],
            }),
            time: times[0],
        });
    }
    say_table(&table, out)
}

/// The ladder as a Markdown table: each rung's name (the name `match`, `setoption name Level`
/// and `--level` take), rating as measured and as the engine gives it, step from the rung below
/// with its games, and median time a move.
fn say_table(table: &[Rung], out: &mut Out<impl Write>) -> Result<(), Failure> {
    say!(out, "");
    say!(
        out,
        "| rung | rating | the engine says | step from the rung below | games (+ = -) | median time a move |"
    );
    say!(out, "|---|---|---|---|---|---|");
    for rung in table {
        let (step, games) = match &rung.step {
            Some(s) if s.games == 0 => ("not measured".to_string(), "0".to_string()),
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
            "| {} | {:.0} | {} | {step} | {games} | {:.0} ms |",
            rung.name,
            rung.rating,
            rung.shipped,
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
        let names = |from, top| {
            rungs(from, top)
                .iter()
                .map(Contender::name)
                .collect::<Vec<_>>()
        };
        assert_eq!(names(None, Level::Novice), ["Greedy", "Novice"]);
        assert_eq!(names(None, Level::Grandmaster).len(), 1 + Level::ALL.len());
        assert_eq!(
            names(Some(Level::Advanced), Level::Master),
            ["Advanced", "Expert", "Master"]
        );
    }

    #[test]
    fn a_short_ladder_plays_its_steps_and_adds_them_up() {
        let plan = Plan {
            games: 2,
            opening_plies: 2,
            from: None,
            top: Level::Novice,
            resume: Vec::new(),
        };
        let mut out = Out::memory();
        run(&plan, &mut out).unwrap();
        let text = out.text();
        assert!(text.contains("## Novice against Greedy"), "{text}");
        let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("| ")).collect();
        assert_eq!(rows.len(), 3, "the header and two rungs: {text}");
        assert!(rows[1].starts_with("| Greedy | 0 | 0 | — | — |"), "{text}");
        assert!(rows[2].starts_with("| Novice | "), "{text}");
        assert!(rows[2].contains("2 (+"), "two games: {text}");
    }

    #[test]
    fn a_ladder_read_back_goes_on_where_it_stopped_and_plays_no_step_twice() {
        let dir = std::env::temp_dir().join(format!("khet-ladder-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("first.log");
        let plan = |games, resume: Vec<PathBuf>| Plan {
            games,
            opening_plies: 2,
            from: None,
            top: Level::Novice,
            resume,
        };
        let mut out = Out::memory();
        run(&plan(2, Vec::new()), &mut out).unwrap();
        let first = out.text();
        std::fs::write(&log, &first).unwrap();
        let row = |text: &str| {
            text.lines()
                .find(|l| l.starts_with("| Novice"))
                .unwrap()
                .to_string()
        };
        // No games and no logs: the table says the step is not measured.
        let mut out = Out::memory();
        run(&plan(0, Vec::new()), &mut out).unwrap();
        let none = out.text();
        assert!(row(&none).contains("| not measured | 0 |"), "{none}");
        // Read back in full: no game played, the same row, its time from the log.
        let mut out = Out::memory();
        run(&plan(2, vec![log.clone()]), &mut out).unwrap();
        let again = out.text();
        assert!(!again.contains("\ngame "), "{again}");
        assert_eq!(row(&again), row(&first));
        // Two more games: the first two read, games 3 and 4 played.
        let mut out = Out::memory();
        run(&plan(4, vec![log.clone()]), &mut out).unwrap();
        let more = out.text();
        assert!(more.contains("resumed after 2 games"), "{more}");
        assert!(
            more.contains("\ngame 3 (") && !more.contains("\ngame 1 ("),
            "{more}"
        );
        assert!(row(&more).contains("| 4 (+"), "{more}");
        // A run beside it, with other opening plies: its own games, and the first run's counted.
        let mut out = Out::memory();
        let beside = Plan {
            opening_plies: 3,
            ..plan(2, vec![log.clone()])
        };
        run(&beside, &mut out).unwrap();
        let both = out.text();
        assert!(both.contains("\ngame 1 ("), "{both}");
        assert!(
            both.contains("and 2 games of a run beside it, with 2 random opening plies"),
            "{both}"
        );
        assert!(row(&both).contains("| 4 (+"), "{both}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
