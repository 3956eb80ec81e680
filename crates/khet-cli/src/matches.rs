//! Matches: from all three Khet 2.0 setups with both colours, at a fixed time per move, scored
//! as wins, draws and losses with an Elo difference and its 95% error bar; and self-play tuning
//! of the evaluation's weights.

use crate::out::{Failure, Out, say};
use khet_engine::eval::{Weights, material};
use khet_engine::{Color, Game, GameResult, Level, Limits, Position, Rng, Searcher, Setup};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

/// One side of a match: a level of ours (with or without the search's repetition rule), or an
/// external engine command speaking the protocol (written `engine:COMMAND`, run by `sh -c`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Contender {
    /// A level of ours; `repetitions: false` is the search before it knew repetitions.
    Level {
        /// The level.
        level: Level,
        /// Whether its search scores repetitions as draws.
        repetitions: bool,
    },
    /// A program speaking the protocol.
    Engine(String),
}

impl Contender {
    fn name(&self) -> String {
        match self {
            Contender::Level {
                level,
                repetitions: true,
            } => level.name().to_string(),
            Contender::Level { level, .. } => format!("{level} (no repetitions)"),
            Contender::Engine(cmd) => format!("engine '{cmd}'"),
        }
    }
}

/// `master`, `master-norep` (the search blind to repetitions), `engine:COMMAND`.
impl std::str::FromStr for Contender {
    type Err = String;
    fn from_str(s: &str) -> Result<Contender, String> {
        if let Some(cmd) = s.strip_prefix("engine:") {
            return match cmd.trim() {
                "" => Err("engine: needs a command, e.g. engine:'./khet2ai'".into()),
                cmd => Ok(Contender::Engine(cmd.to_string())),
            };
        }
        let (name, repetitions) = match s.strip_suffix("-norep") {
            Some(name) => (name, false),
            None => (s, true),
        };
        let level = name.parse().map_err(|e: khet_engine::ParseNameError| {
            format!("{e}; add -norep for a search blind to repetitions")
        })?;
        Ok(Contender::Level { level, repetitions })
    }
}

/// An external engine process.
struct External {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl External {
    fn start(cmd: &str) -> Result<External, String> {
        let mut child = Command::new("sh")
            .args(["-c", cmd])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start '{cmd}': {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut e = External {
            child,
            stdin,
            stdout,
        };
        e.send("uci")?;
        e.wait_for("uciok")?;
        Ok(e)
    }

    fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("engine gone: {e}"))
    }

    fn wait_for(&mut self, prefix: &str) -> Result<String, String> {
        let mut line = String::new();
        loop {
            line.clear();
            if self
                .stdout
                .read_line(&mut line)
                .map_err(|e| e.to_string())?
                == 0
            {
                return Err(format!("the engine closed before answering '{prefix}'"));
            }
            if line.trim_start().starts_with(prefix) {
                return Ok(line.trim().to_string());
            }
        }
    }

    /// Asks for a move in `setup` after `moves`, in the form without the word `moves` that the
    /// Khet2-AI program expects.
    fn choose(
        &mut self,
        setup: &str,
        moves: &[String],
        movetime: Duration,
    ) -> Result<String, String> {
        let start = if setup == "classic" {
            "standard"
        } else {
            setup
        };
        self.send(format!("position {start} {}", moves.join(" ")).trim_end())?;
        self.send(&format!("go movetime {}", movetime.as_millis()))?;
        let line = self.wait_for("bestmove")?;
        Ok(line.split_whitespace().nth(1).unwrap_or("none").to_string())
    }
}

impl Drop for External {
    fn drop(&mut self) {
        let _ = self.send("quit");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A game that reaches this many plies is drawn.
const MAX_PLIES: usize = 200;

/// A draw in which one side led by at least this much material (a Pyramid) was a win let slip.
const LEAD: i32 = 100;

/// The Elo difference for a score fraction, and its 95% error bar from the per-game results.
fn elo(results: &[f64]) -> (f64, f64) {
    let n = results.len() as f64;
    if n == 0.0 {
        return (0.0, 0.0);
    }
    let mean = results.iter().sum::<f64>() / n;
    let mut var = results.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / n;
    if var == 0.0 {
        // All results alike: take the spread of a score shrunk by half a game towards 50%.
        let p = (mean * n + 0.5) / (n + 1.0);
        var = p * (1.0 - p);
    }
    let to_elo = |s: f64| {
        let s = s.clamp(0.5 / n, 1.0 - 0.5 / n);
        -400.0 * (1.0 / s - 1.0).log10()
    };
    let margin = 1.96 * (var / n).sqrt();
    let e = to_elo(mean);
    (e, (to_elo(mean + margin) - to_elo(mean - margin)) / 2.0)
}

/// The Khet 2.0 setups a match cycles through.
const SETUPS: [&str; 3] = ["classic", "imhotep", "dynasty"];

/// What a match is counting.
#[derive(Default)]
struct Tally {
    wins: u32,
    draws: u32,
    losses: u32,
    /// Draws in which `a` (index 0) or `b` (1) was a Pyramid or more ahead: by repetition
    /// (`[0]`), at the move limit (`[1]`).
    draws_led: [[u32; 2]; 2],
    results: Vec<f64>,
}

/// Plays `games` games of `a` against `b` (alternating colours, cycling the setups), one
/// progress line a game, then the summary: W/D/L, score, Elo, and the drawn games a side led.
pub fn play_match(
    a: &Contender,
    b: &Contender,
    games: u32,
    movetime_ms: u64,
    out: &mut Out<impl Write>,
) -> Result<(), Failure> {
    let movetime = Duration::from_millis(movetime_ms);
    let mut tally = Tally::default();
    let mut searchers = [Searcher::new(1 << 18), Searcher::new(1 << 18)];
    let mut engines: [Option<External>; 2] = [None, None];
    for (i, c) in [a, b].into_iter().enumerate() {
        match c {
            Contender::Engine(cmd) => engines[i] = Some(External::start(cmd)?),
            Contender::Level { repetitions, .. } => searchers[i].repetitions = *repetitions,
        }
    }
    for g in 0..games {
        let setup = SETUPS[(g as usize / 2) % 3];
        let start = Setup::builtin(setup).map_err(|e| e.to_string())?.position;
        let a_color = if g % 2 == 0 {
            Color::Silver
        } else {
            Color::Red
        };
        let mut game = Game::new(start);
        let mut rng = Rng::new(0x5EED_0000 + u64::from(g) * 7919);
        searchers.iter_mut().for_each(Searcher::clear);
        let mut forfeit: Option<Color> = None;
        while !game.is_over() && game.turns().len() < MAX_PLIES && !game.can_claim_draw() {
            let mover = game.side_to_move();
            let i = usize::from(mover != a_color);
            let contender = if i == 0 { a } else { b };
            let mv = match contender {
                Contender::Level { level, .. } => {
                    level.choose(&mut searchers[i], &game, movetime, &mut rng)
                }
                Contender::Engine(_) => {
                    let moves: Vec<String> =
                        game.turns().iter().map(|t| t.mv.to_string()).collect();
                    let engine = engines[i].as_mut().ok_or("engine not started")?;
                    let text = engine.choose(setup, &moves, movetime)?;
                    match game.position().parse_move(&text) {
                        Ok(mv) => Some(mv),
                        Err(e) => {
                            out.now(format_args!(
                                "{} answered '{text}': {e}; it forfeits",
                                contender.name()
                            ))?;
                            forfeit = Some(mover);
                            break;
                        }
                    }
                }
            };
            let Some(mv) = mv else { break };
            game.play(mv)
                .map_err(|e| format!("{} chose an illegal move: {e}", contender.name()))?;
        }
        if let Some(loser) = forfeit {
            let _ = game.resign(loser);
        }
        let score = match game.result() {
            Some(GameResult::Win { winner, .. }) if winner == a_color => {
                tally.wins += 1;
                1.0
            }
            Some(GameResult::Win { .. }) => {
                tally.losses += 1;
                0.0
            }
            _ => {
                tally.draws += 1;
                let m = material(game.position());
                let a_lead = m[a_color.index()] - m[a_color.other().index()];
                let cause = usize::from(!game.can_claim_draw());
                if a_lead >= LEAD {
                    tally.draws_led[cause][0] += 1;
                } else if -a_lead >= LEAD {
                    tally.draws_led[cause][1] += 1;
                }
                0.5
            }
        };
        tally.results.push(score);
        out.now(format_args!(
            "game {} ({setup}, {} plays {a_color}): {} after {} plies",
            g + 1,
            a.name(),
            match game.result() {
                Some(r) => r.to_string(),
                None if game.can_claim_draw() => "draw by repetition".into(),
                None => "draw at the move limit".into(),
            },
            game.turns().len()
        ))?;
    }
    let (e, margin) = elo(&tally.results);
    say!(
        out,
        "{} vs {}: +{} ={} -{} over {games} games, score {:.1}%, Elo {e:+.0} ± {margin:.0}",
        a.name(),
        b.name(),
        tally.wins,
        tally.draws,
        tally.losses,
        100.0 * tally.results.iter().sum::<f64>() / tally.results.len().max(1) as f64
    );
    let [rep, limit] = tally.draws_led;
    say!(
        out,
        "drawn while a Pyramid or more ahead: {} by {} ({} by repetition), {} by {} ({} by repetition)",
        rep[0] + limit[0],
        a.name(),
        rep[0],
        rep[1] + limit[1],
        b.name(),
        rep[1]
    );
    Ok(())
}

/// Plays one game between two fixed-depth searchers with the given weights, from `setup` after
/// `random_plies` seeded random opening moves; the score of `a` (1, ½ or 0).
fn weighted_game(
    a: Weights,
    b: Weights,
    a_color: Color,
    setup: &Position,
    depth: u32,
    random_plies: usize,
    rng: &mut Rng,
) -> f64 {
    let mut game = Game::new(*setup);
    let mut sa = Searcher::new(1 << 16);
    let mut sb = Searcher::new(1 << 16);
    sa.weights = a;
    sb.weights = b;
    while !game.is_over() && game.turns().len() < MAX_PLIES && !game.can_claim_draw() {
        let mv = if game.turns().len() < random_plies {
            rng.pick(&game.legal_moves())
        } else {
            let s = if game.side_to_move() == a_color {
                &mut sa
            } else {
                &mut sb
            };
            s.search_game(&game, Limits::depth(depth), |_| {}).best
        };
        let Some(mv) = mv else { break };
        if game.play(mv).is_err() {
            break;
        }
    }
    match game.result() {
        Some(GameResult::Win { winner, .. }) if winner == a_color => 1.0,
        Some(GameResult::Win { .. }) => 0.0,
        _ => 0.5,
    }
}

/// Self-play tuning: each weight at ×0.5 and ×1.5 against the defaults, `games` games each
/// (pairs of colours from the same seeded random opening), fixed `depth`. One line per variant.
pub fn tune(games: u32, depth: u32, out: &mut Out<impl Write>) -> Result<(), Failure> {
    let starts: Vec<Position> = SETUPS
        .iter()
        .map(|n| Setup::builtin(n).map(|s| s.position))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let count = Weights::default().fields_mut().len();
    for field in 0..count {
        for factor in [0.5, 1.5] {
            let mut variant = Weights::default();
            let name = {
                let mut fields = variant.fields_mut();
                let (name, value) = &mut fields[field];
                **value = (f64::from(**value) * factor).round() as i32;
                *name
            };
            let mut results = Vec::new();
            for g in 0..games {
                let mut rng = Rng::new(0xC0FFEE + u64::from(g / 2) * 104_729);
                let color = if g % 2 == 0 {
                    Color::Silver
                } else {
                    Color::Red
                };
                let start = &starts[(g as usize / 2) % 3];
                results.push(weighted_game(
                    variant,
                    Weights::default(),
                    color,
                    start,
                    depth,
                    4,
                    &mut rng,
                ));
            }
            let (e, margin) = elo(&results);
            out.now(format_args!(
                "{name} ×{factor}: score {:.1}% over {games} games, Elo {e:+.0} ± {margin:.0} against the defaults",
                100.0 * results.iter().sum::<f64>() / results.len().max(1) as f64
            ))?;
        }
    }
    Ok(())
}
