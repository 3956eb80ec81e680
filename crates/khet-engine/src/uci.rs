//! The UCI-like text protocol of the Khet2-AI engine (see `KHET.md`), so that existing tools and
//! that engine can play ours:
//!
//! ```text
//! position standard|classic|imhotep|dynasty|<position string> [moves] m1 m2 …
//! go depth N | movetime MS | infinite
//! stop | quit | newgame (ucinewgame) | uci | isready
//! ```
//! Answers `info depth D score S nodes N nps X time MS pv …` lines and `bestmove M`
//! (`bestmove none` when the game is over). Both forms of `position` are read: with the word
//! `moves` before the moves, as written, and without, as that program expects. Malformed
//! commands get `info string error: …` and are otherwise ignored.

use crate::search::{Limits, Searcher};
use crate::setup::find_setup;
use crate::{Position, parse_position};
use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

fn say<W: Write>(out: &Arc<Mutex<W>>, line: &str) {
    if let Ok(mut w) = out.lock() {
        let _ = writeln!(w, "{line}");
        let _ = w.flush();
    }
}

/// Reads `position …` into a position and whether its moves ended the game, or says what is
/// wrong.
fn read_position(words: &[&str], setups: &Path) -> Result<(Position, bool), String> {
    let Some(&first) = words.first() else {
        return Err("position needs standard, imhotep, dynasty or a position string".into());
    };
    let (mut p, rest) = match first {
        "standard" | "classic" | "imhotep" | "dynasty" => {
            let name = if first == "standard" {
                "classic"
            } else {
                first
            };
            (
                find_setup(name, setups)
                    .map_err(|e| e.to_string())?
                    .position,
                &words[1..],
            )
        }
        _ => {
            let side = words
                .get(1)
                .ok_or("a position string needs its side to move (0 or 1)")?;
            (
                parse_position(&format!("{first} {side}")).map_err(|e| e.to_string())?,
                &words[2..],
            )
        }
    };
    let moves = match rest.first() {
        Some(&"moves") => &rest[1..],
        _ => rest,
    };
    let mut over = false;
    for (i, m) in moves.iter().enumerate() {
        if over {
            return Err(format!("move {} ({m}) follows the end of the game", i + 1));
        }
        let mv = p
            .parse_move(m)
            .map_err(|e| format!("move {} ({m}): {e}", i + 1))?;
        over = p.play_unchecked(mv).is_game_over();
    }
    Ok((p, over))
}

struct Running {
    handle: JoinHandle<Searcher>,
    stop: Arc<std::sync::atomic::AtomicBool>,
}

fn finish(running: &mut Option<Running>, searcher: &mut Option<Searcher>) {
    if let Some(r) = running.take() {
        r.stop.store(true, Ordering::Relaxed);
        if let Ok(s) = r.handle.join() {
            *searcher = Some(s);
        }
    }
}

/// Runs the protocol until `quit` or the end of the input.
pub fn run<R: BufRead, W: Write + Send + 'static>(input: R, output: W, setups: &Path) {
    let out = Arc::new(Mutex::new(output));
    let mut searcher = Some(Searcher::default());
    let mut running: Option<Running> = None;
    let mut position = find_setup("classic", setups).map(|s| s.position).ok();
    let mut over = false;
    for line in input.lines() {
        let Ok(line) = line else { break };
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&command) = words.first() else {
            continue;
        };
        match command {
            "uci" => {
                say(&out, "id name khet-engine");
                say(&out, "id author the Khet project");
                say(&out, "uciok");
            }
            "isready" => say(&out, "readyok"),
            "newgame" | "ucinewgame" => {
                finish(&mut running, &mut searcher);
                if let Some(s) = searcher.as_mut() {
                    s.clear();
                }
            }
            "position" => match read_position(&words[1..], setups) {
                Ok((p, ended)) => {
                    position = Some(p);
                    over = ended;
                }
                Err(e) => say(&out, &format!("info string error: {e}")),
            },
            "go" => {
                finish(&mut running, &mut searcher);
                let Some(p) = position else {
                    say(&out, "info string error: no position");
                    continue;
                };
                let limits = match words.get(1..).unwrap_or(&[]) {
                    ["depth", n, ..] => match n.parse() {
                        Ok(d) => Limits {
                            depth: Some(d),
                            ..Limits::default()
                        },
                        Err(_) => {
                            say(
                                &out,
                                &format!("info string error: depth '{n}' is not a number"),
                            );
                            continue;
                        }
                    },
                    ["movetime", ms, ..] => match ms.parse() {
                        Ok(ms) => Limits {
                            time: Some(Duration::from_millis(ms)),
                            ..Limits::default()
                        },
                        Err(_) => {
                            say(
                                &out,
                                &format!("info string error: movetime '{ms}' is not a number"),
                            );
                            continue;
                        }
                    },
                    ["infinite", ..] | [] => Limits::default(),
                    other => {
                        say(
                            &out,
                            &format!("info string error: unknown go option '{}'", other.join(" ")),
                        );
                        continue;
                    }
                };
                if over || p.legal_moves().is_empty() {
                    say(&out, "bestmove none");
                    continue;
                }
                let mut s = searcher.take().unwrap_or_default();
                let stop = s.stop_flag();
                stop.store(false, Ordering::Relaxed);
                let o = out.clone();
                let handle = std::thread::spawn(move || {
                    let r = s.search(&p, limits, |r| say(&o, &r.to_string()));
                    say(
                        &o,
                        &format!(
                            "bestmove {}",
                            r.best.map_or("none".to_string(), |m| m.to_string())
                        ),
                    );
                    s
                });
                running = Some(Running { handle, stop });
            }
            "stop" => finish(&mut running, &mut searcher),
            "quit" => break,
            other => say(
                &out,
                &format!("info string error: unknown command '{other}'"),
            ),
        }
    }
    finish(&mut running, &mut searcher);
}
