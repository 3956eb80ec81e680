//! Matches between levels: from all three Khet 2.0 setups with both colours, at a fixed time per
//! move, scored as wins, draws and losses with an Elo difference and its 95% error bar.

use crate::eval::Weights;
use crate::game::{Game, GameResult};
use crate::level::Level;
use crate::piece::Color;
use crate::search::Searcher;
use crate::setup::find_setup;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Duration;

/// One side of a match: a level of ours, or an external engine command speaking the protocol
/// (written `engine:COMMAND`, run by `sh -c`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Contender {
    Level(Level),
    Engine(String),
}

impl Contender {
    pub fn name(&self) -> String {
        match self {
            Contender::Level(l) => l.name().to_string(),
            Contender::Engine(cmd) => format!("engine '{cmd}'"),
        }
    }
}

impl std::str::FromStr for Contender {
    type Err = String;
    fn from_str(s: &str) -> Result<Contender, String> {
        match s.strip_prefix("engine:") {
            Some(cmd) if !cmd.trim().is_empty() => Ok(Contender::Engine(cmd.trim().to_string())),
            Some(_) => Err("engine: needs a command, e.g. engine:'./khet2ai'".into()),
            None => s.parse().map(Contender::Level),
        }
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
pub const MAX_PLIES: usize = 200;

/// The Elo difference for a score fraction, and its 95% error bar from the per-game results.
pub fn elo(results: &[f64]) -> (f64, f64) {
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

/// Plays `games` games of `a` against `b` (alternating colours, cycling the setups) and returns
/// the summary line; `progress` gets one line per game.
pub fn play_match(
    a: Contender,
    b: Contender,
    games: u32,
    movetime: Duration,
    setups: &Path,
    mut progress: impl FnMut(String),
) -> Result<String, String> {
    let names = ["classic", "imhotep", "dynasty"];
    let (mut wins, mut draws, mut losses) = (0, 0, 0);
    let mut results = Vec::new();
    let mut sa = Searcher::new(1 << 18);
    let mut sb = Searcher::new(1 << 18);
    let mut engines: [Option<External>; 2] = [None, None];
    for (i, c) in [&a, &b].into_iter().enumerate() {
        if let Contender::Engine(cmd) = c {
            engines[i] = Some(External::start(cmd)?);
        }
    }
    for g in 0..games {
        let setup = names[(g as usize / 2) % 3];
        let start = find_setup(setup, setups)
            .map_err(|e| e.to_string())?
            .position;
        let a_color = if g % 2 == 0 {
            Color::Silver
        } else {
            Color::Red
        };
        let mut game = Game::new(start);
        let mut seed = 0x5EED_0000 + u64::from(g) * 7919;
        sa.clear();
        sb.clear();
        let mut forfeit: Option<Color> = None;
        while !game.is_over() && game.turns().len() < MAX_PLIES && !game.can_claim_draw() {
            let mover = game.side_to_move();
            let i = usize::from(mover != a_color);
            let contender = if i == 0 { &a } else { &b };
            let mv = match contender {
                Contender::Level(level) => {
                    let searcher = if i == 0 { &mut sa } else { &mut sb };
                    level.choose(searcher, game.position(), movetime, &mut seed)
                }
                Contender::Engine(_) => {
                    let moves: Vec<String> =
                        game.turns().iter().map(|t| t.mv.to_string()).collect();
                    let engine = engines[i].as_mut().ok_or("engine not started")?;
                    let text = engine.choose(setup, &moves, movetime)?;
                    match game.position().parse_move(&text) {
                        Ok(mv) => Some(mv),
                        Err(e) => {
                            progress(format!(
                                "{} answered '{text}': {e}; it forfeits",
                                contender.name()
                            ));
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
                wins += 1;
                1.0
            }
            Some(GameResult::Win { .. }) => {
                losses += 1;
                0.0
            }
            _ => {
                draws += 1;
                0.5
            }
        };
        results.push(score);
        progress(format!(
            "game {} ({setup}, {} plays {a_color}): {} after {} plies",
            g + 1,
            a.name(),
            game.result()
                .map_or("draw (move limit or repetition)".into(), |r| r.to_string()),
            game.turns().len()
        ));
    }
    let (e, margin) = elo(&results);
    Ok(format!(
        "{} vs {}: +{wins} ={draws} -{losses} over {games} games, score {:.1}%, Elo {e:+.0} ± {margin:.0}",
        a.name(),
        b.name(),
        100.0 * results.iter().sum::<f64>() / results.len().max(1) as f64
    ))
}

/// Plays one game between two fixed-depth searchers with the given weights, from `setup` after
/// `random_plies` seeded random opening moves; the score of `a` (1, ½ or 0).
fn weighted_game(
    a: Weights,
    b: Weights,
    a_color: Color,
    setup: &crate::Position,
    depth: u32,
    random_plies: usize,
    seed: &mut u64,
) -> f64 {
    let mut game = Game::new(*setup);
    let mut sa = Searcher::new(1 << 16);
    let mut sb = Searcher::new(1 << 16);
    sa.weights = a;
    sb.weights = b;
    while !game.is_over() && game.turns().len() < MAX_PLIES && !game.can_claim_draw() {
        let mv = if game.turns().len() < random_plies {
            let moves = game.legal_moves();
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            moves
                .get((*seed % moves.len().max(1) as u64) as usize)
                .copied()
        } else {
            let s = if game.side_to_move() == a_color {
                &mut sa
            } else {
                &mut sb
            };
            s.search(
                game.position(),
                crate::Limits {
                    depth: Some(depth),
                    ..Default::default()
                },
                |_| {},
            )
            .best
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
pub fn tune(
    games: u32,
    depth: u32,
    setups: &Path,
    mut progress: impl FnMut(String),
) -> Result<(), String> {
    let names = ["classic", "imhotep", "dynasty"];
    let starts: Vec<crate::Position> = names
        .iter()
        .map(|n| {
            find_setup(n, setups)
                .map(|s| s.position)
                .map_err(|e| e.to_string())
        })
        .collect::<Result<_, _>>()?;
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
                let mut seed = 0xC0FFEE + u64::from(g / 2) * 104_729;
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
                    &mut seed,
                ));
            }
            let (e, margin) = elo(&results);
            progress(format!(
                "{name} ×{factor}: score {:.1}% over {games} games, Elo {e:+.0} ± {margin:.0} against the defaults",
                100.0 * results.iter().sum::<f64>() / results.len().max(1) as f64
            ));
        }
    }
    Ok(())
}
