//! The match itself: the plan, the games in pairs, the tally, the records, and the summary.

use super::contenders::Contender;
use super::external::External;
use super::plan::MatchPlan;
use super::resume::plan_line;
use super::sprt::{Verdict, elo};
use super::starts::{color_of_a, start_of};
use super::{LIMITS, finished};
use crate::out::{Failure, Out, say};
use khet_engine::eval::material;
use khet_engine::{Color, Game, GameResult, Rng, Searcher};
use std::io::Write;
use std::time::{Duration, Instant};

/// Writes game `n`'s record into `dir` as `game-N.ron`, whole or not at all (a temporary file
/// renamed).
fn keep_record(dir: &std::path::Path, n: u32, setup: &str, game: &Game) -> Result<(), String> {
    let path = dir.join(format!("game-{n}.ron"));
    let tmp = dir.join(format!(".game-{n}.ron.tmp"));
    std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&tmp, khet_engine::Record::from_game(game, setup).to_ron()))
        .and_then(|()| std::fs::rename(&tmp, &path))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Why a game not won ended: `[0]` repetition, `[1]` the move limit, `[2]` the plies without a
/// capture.
const CAUSES: [&str; 3] = ["by repetition", "at the move limit", "without a capture"];

/// The index in [`CAUSES`] of why `game`, not won, ended.
fn draw_cause(game: &Game) -> usize {
    if game.can_claim_draw() {
        0
    } else if LIMITS.reached(game.turns().len() as u32, 0) {
        1
    } else {
        2
    }
}

/// A draw in which one side led by at least this much material (a Pyramid) was a win let slip.
const LEAD: i32 = 100;

/// For a game that started with a side [`LEAD`] or more ahead in material (Silver's lead
/// `start_lead`): which contender played that side (0 `a`, 1 `b`) and how it did (0 won, 1 drew,
/// 2 lost), from `a`'s score.
fn from_ahead(start_lead: i32, a_color: Color, a_score: f64) -> Option<(usize, usize)> {
    if start_lead.abs() < LEAD {
        return None;
    }
    let ahead = if start_lead > 0 {
        Color::Silver
    } else {
        Color::Red
    };
    let (side, score) = if ahead == a_color {
        (0, a_score)
    } else {
        (1, 1.0 - a_score)
    };
    let column = if score == 1.0 {
        0
    } else if score == 0.0 {
        2
    } else {
        1
    };
    Some((side, column))
}

/// What a match is counting.
#[derive(Default)]
struct Tally {
    wins: u32,
    draws: u32,
    losses: u32,
    /// Draws in which `a` (index 0) or `b` (1) was a Pyramid or more ahead, by cause (see
    /// [`CAUSES`]).
    draws_led: [[u32; 2]; 3],
    /// Games that started with a side a Pyramid or more ahead in material (a book's won
    /// positions): won, drawn and lost by `a` (index 0) or `b` (1) playing that side.
    from_ahead: [[u32; 3]; 2],
    results: Vec<f64>,
    /// Each finished pair's mean score, the sequential test's samples.
    pairs: Vec<f64>,
    /// The time each move took `a` (0) and `b` (1), this run's games.
    times: [Vec<Duration>; 2],
}

/// What a match came to: `a`'s score in each game, and the time each of its moves took `a`
/// (index 0) and `b` (1).
pub struct Summary {
    pub results: Vec<f64>,
    pub times: [Vec<Duration>; 2],
}

/// The median of `times` (zero when there are none).
pub fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort_unstable();
    sorted.get(sorted.len() / 2).copied().unwrap_or_default()
}

impl Tally {
    /// Counts one game's score for `a`; whether it finished a pair.
    fn add(&mut self, score: f64) -> bool {
        match score {
            1.0 => self.wins += 1,
            0.0 => self.losses += 1,
            _ => self.draws += 1,
        }
        self.results.push(score);
        let n = self.results.len();
        let paired = n.is_multiple_of(2);
        if paired {
            self.pairs
                .push((self.results[n - 2] + self.results[n - 1]) / 2.0);
        }
        paired
    }
}

/// The contenders of a match, ready to play.
struct Players<'a> {
    contenders: [&'a Contender; 2],
    searchers: [Searcher; 2],
    engines: [Option<External>; 2],
}

/// How one game ended, for `a`.
struct Outcome {
    score: f64,
    text: String,
    plies: usize,
    /// A draw in which `a` (0) or `b` (1) was a Pyramid or more ahead, and its cause (an index
    /// in [`CAUSES`]).
    draw_led: Option<(usize, usize)>,
    /// The game as played.
    game: Game,
    /// The time each of `a`'s (0) and `b`'s (1) moves took.
    times: [Vec<Duration>; 2],
}

impl<'a> Players<'a> {
    /// `a` and `b` ready to play: external engines started, the levels' settings applied.
    fn start(a: &'a Contender, b: &'a Contender) -> Result<Self, Failure> {
        let mut players = Players {
            contenders: [a, b],
            searchers: [Searcher::new(1 << 18), Searcher::new(1 << 18)],
            engines: [None, None],
        };
        for (i, c) in [a, b].into_iter().enumerate() {
            match c {
                Contender::Engine(cmd) => players.engines[i] = Some(External::start(cmd)?),
                Contender::Level { settings, .. } => settings.apply(&mut players.searchers[i]),
                Contender::Greedy => {}
            }
        }
        Ok(players)
    }

    /// Plays `game` on, `a` playing `a_color`, to its end or the move limit: each level with
    /// `movetime` a move, or its own time when `budgets`.
    #[allow(clippy::too_many_arguments)]
    fn play(
        &mut self,
        setup: &str,
        mut game: Game,
        a_color: Color,
        movetime: Duration,
        budgets: bool,
        seed: u64,
        out: &mut Out<impl Write>,
    ) -> Result<Outcome, Failure> {
        let mut rng = Rng::mixed(seed);
        let mut times: [Vec<Duration>; 2] = Default::default();
        self.searchers.iter_mut().for_each(Searcher::clear);
        for engine in self.engines.iter_mut().flatten() {
            engine.new_game()?;
        }
        let mut forfeit: Option<Color> = None;
        while !finished(&game) {
            let mover = game.side_to_move();
            let i = usize::from(mover != a_color);
            let contender = self.contenders[i];
            let asked = Instant::now();
            let mv = match contender {
                Contender::Level { level, settings } => {
                    let time = if budgets { level.budget() } else { movetime };
                    let time = time * settings.time_factor;
                    level.choose(&mut self.searchers[i], &game, time, &mut rng)
                }
                Contender::Greedy => khet_engine::greedy_move(&game, &mut rng),
                Contender::Engine(_) => {
                    let moves: Vec<String> =
                        game.turns().iter().map(|t| t.mv.to_string()).collect();
                    let engine = self.engines[i].as_mut().ok_or("engine not started")?;
                    let text = engine.choose(setup, &moves, movetime)?;
                    match game.position().parse_move(&text) {
                        Ok(mv) => Some(mv),
                        Err(e) => {
                            // Khet2-AI answers `none` when it sees every move lose.
                            let why = if text == "none" {
                                String::new()
                            } else {
                                format!(" ({e})")
                            };
                            out.now(format_args!(
                                "{} answered '{text}' in a game not over{why}: it resigns",
                                contender.name()
                            ))?;
                            forfeit = Some(mover);
                            break;
                        }
                    }
                }
            };
            times[i].push(asked.elapsed());
            let Some(mv) = mv else { break };
            game.play(mv)
                .map_err(|e| format!("{} chose an illegal move: {e}", contender.name()))?;
        }
        if let Some(loser) = forfeit {
            let _ = game.resign(loser);
        }
        let mut draw_led = None;
        let score = match game.result() {
            Some(GameResult::Win { winner, .. }) if winner == a_color => 1.0,
            Some(GameResult::Win { .. }) => 0.0,
            _ => {
                let m = material(game.position());
                let a_lead = m[a_color.index()] - m[a_color.other().index()];
                let cause = draw_cause(&game);
                if a_lead >= LEAD {
                    draw_led = Some((0, cause));
                } else if -a_lead >= LEAD {
                    draw_led = Some((1, cause));
                }
                0.5
            }
        };
        Ok(Outcome {
            score,
            text: match game.result() {
                Some(r) => r.to_string(),
                None => format!("draw {}", CAUSES[draw_cause(&game)]),
            },
            plies: game.turns().len(),
            draw_led,
            game,
            times,
        })
    }
}

/// Plays `a` against `b` in pairs of games (one opening from both sides, cycling the setups),
/// one progress line a game, until `plan.games` or the test's verdict; then the summary: W/D/L,
/// score, Elo, the test's result, each side's median time a move, and the drawn games a side
/// led. What it came to.
pub fn play_match(
    a: &Contender,
    b: &Contender,
    plan: &MatchPlan,
    out: &mut Out<impl Write>,
) -> Result<Summary, Failure> {
    let mut players = Players::start(a, b)?;
    let mut tally = resumed_tally(plan, out)?;
    let verdict = play_games(&mut players, plan, &mut tally, out)?;
    say_score(a, b, plan, &tally, verdict, out)?;
    say_leads(a, b, &tally, out)?;
    Ok(Summary {
        results: tally.results,
        times: tally.times,
    })
}

/// The tally of the games an earlier run played (none for a fresh match), after printing the
/// plan's line and what was resumed.
fn resumed_tally(plan: &MatchPlan, out: &mut Out<impl Write>) -> Result<Tally, Failure> {
    let mut tally = Tally::default();
    for &score in &plan.resume {
        tally.add(score);
    }
    say!(out, "{}", plan_line(plan));
    if !plan.resume.is_empty() {
        say!(
            out,
            "resumed after {} games (+{} ={} -{}); drawn-while-ahead counts are this run's only",
            plan.resume.len(),
            tally.wins,
            tally.draws,
            tally.losses
        );
    }
    Ok(tally)
}

/// Plays the games after those resumed, until `plan.games` or the test's verdict (asked after
/// each pair); the verdict.
fn play_games(
    players: &mut Players<'_>,
    plan: &MatchPlan,
    tally: &mut Tally,
    out: &mut Out<impl Write>,
) -> Result<Verdict, Failure> {
    let mut verdict = match plan.sprt {
        Some(test) if !tally.pairs.is_empty() => test.verdict(&tally.pairs),
        _ => Verdict::Continue,
    };
    let first = plan.resume.len() as u32;
    for g in first..plan.games {
        if verdict != Verdict::Continue {
            break;
        }
        let paired = play_game(players, plan, g, tally, out)?;
        if paired && let Some(test) = plan.sprt {
            verdict = test.verdict(&tally.pairs);
            if verdict != Verdict::Continue {
                break;
            }
        }
    }
    Ok(verdict)
}

/// Plays game `g` (from 0), counts it, keeps its record and prints its line; whether it
/// finished a pair.
fn play_game(
    players: &mut Players<'_>,
    plan: &MatchPlan,
    g: u32,
    tally: &mut Tally,
    out: &mut Out<impl Write>,
) -> Result<bool, Failure> {
    let (setup, game, label) = start_of(plan, g / 2)?;
    let a_color = color_of_a(g);
    let seed = 0x5EED_0000 + u64::from(g) * 7919;
    let start_lead = {
        let m = material(game.position());
        m[0] - m[1]
    };
    let o = players.play(
        &setup,
        game,
        a_color,
        plan.movetime,
        plan.budgets,
        seed,
        out,
    )?;
    for (all, these) in tally.times.iter_mut().zip(&o.times) {
        all.extend(these);
    }
    if let Some((side, column)) = from_ahead(start_lead, a_color, o.score) {
        tally.from_ahead[side][column] += 1;
    }
    let paired = tally.add(o.score);
    if let Some((side, cause)) = o.draw_led {
        tally.draws_led[cause][side] += 1;
    }
    if let Some(dir) = &plan.records {
        keep_record(dir, g + 1, &setup, &o.game)?;
    }
    let a = players.contenders[0];
    out.now(format_args!(
        "game {} ({label}, {} plays {a_color}): {} after {} plies",
        g + 1,
        a.name(),
        o.text,
        o.plies
    ))?;
    Ok(paired)
}

/// The summary's score: W/D/L, score and Elo, then the sequential test's result if one ran.
fn say_score(
    a: &Contender,
    b: &Contender,
    plan: &MatchPlan,
    tally: &Tally,
    verdict: Verdict,
    out: &mut Out<impl Write>,
) -> Result<(), Failure> {
    let played = tally.results.len();
    let (e, margin) = elo(&tally.results);
    say!(
        out,
        "{} vs {}: +{} ={} -{} over {played} games, score {:.1}%, Elo {e:+.0} ± {margin:.0}",
        a.name(),
        b.name(),
        tally.wins,
        tally.draws,
        tally.losses,
        100.0 * tally.results.iter().sum::<f64>() / played.max(1) as f64
    );
    say!(
        out,
        "median time a move: {} {:.0} ms, {} {:.0} ms",
        a.name(),
        median(&tally.times[0]).as_secs_f64() * 1000.0,
        b.name(),
        median(&tally.times[1]).as_secs_f64() * 1000.0
    );
    if let Some(test) = plan.sprt {
        let (pe, pm) = elo(&tally.pairs);
        let (lower, upper) = test.bounds();
        say!(
            out,
            "SPRT [{}, {}] (alpha {}, beta {}): {} after {played} games ({} pairs), LLR {:.2} in [{lower:.2}, {upper:.2}], Elo from the pairs {pe:+.0} ± {pm:.0}",
            test.elo0,
            test.elo1,
            test.alpha,
            test.beta,
            match verdict {
                Verdict::H1 => "H1 accepted (it gains)".to_string(),
                Verdict::H0 => "H0 accepted (it does not gain that much)".to_string(),
                Verdict::Continue => format!("no verdict within {} games", plan.games),
            },
            tally.pairs.len(),
            test.llr(&tally.pairs)
        );
    }
    Ok(())
}

/// The summary's leads: the draws each side let slip a Pyramid or more ahead, by cause, and
/// (when some game started so) how the side ahead did from a start already ahead.
fn say_leads(
    a: &Contender,
    b: &Contender,
    tally: &Tally,
    out: &mut Out<impl Write>,
) -> Result<(), Failure> {
    let led = |side: usize| {
        let by: Vec<String> = CAUSES
            .iter()
            .zip(tally.draws_led)
            .map(|(cause, n)| format!("{} {cause}", n[side]))
            .collect();
        let total: u32 = tally.draws_led.iter().map(|n| n[side]).sum();
        format!("{total} ({})", by.join(", "))
    };
    say!(
        out,
        "drawn while a Pyramid or more ahead: {} by {}, {} by {}",
        led(0),
        a.name(),
        led(1),
        b.name()
    );
    if tally.from_ahead.iter().flatten().any(|&n| n > 0) {
        let record = |side: usize| {
            let [w, d, l] = tally.from_ahead[side];
            format!("won {w}, drew {d}, lost {l}")
        };
        say!(
            out,
            "from a start a Pyramid or more ahead, the side ahead: {} by {}, {} by {}",
            record(0),
            a.name(),
            record(1),
            b.name()
        );
    }
    Ok(())
}
