//! The one-shot commands: perft, divide, fire, show, search, replay and fairness.

use crate::Start;
use crate::files::{find_setup, load_record};
use crate::out::{Failure, Out, say};
use khet_engine::search::Options;
use khet_engine::{Color, HitEffect, Limits, Position, Score, Searcher, Shot, parse_position_with};
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// The position a command starts from: the setup or position string, the rules, the moves.
pub fn start_position(o: &Start) -> Result<Position, String> {
    let mut p = match &o.position {
        Some(text) => parse_position_with(text, o.rules).map_err(|e| format!("--position: {e}"))?,
        None => {
            let name = o.setup.as_deref().unwrap_or("classic");
            find_setup(name, o.setups.as_deref())?
                .position
                .with_rules(o.rules)
        }
    };
    let moves: Vec<&str> = o.moves.split_whitespace().collect();
    for (i, m) in moves.iter().enumerate() {
        let mv = p
            .parse_move(m)
            .map_err(|e| format!("--moves, move {}: {e}", i + 1))?;
        if p.play_unchecked(mv).is_game_over() && i + 1 < moves.len() {
            return Err(format!(
                "--moves, move {}: {m} ends the game; nothing can follow it",
                i + 1
            ));
        }
    }
    Ok(p)
}

pub fn perft(o: &Start, depth: u32, out: &mut Out<impl Write>) -> Result<(), Failure> {
    let p = start_position(o)?;
    let t = Instant::now();
    let n = khet_engine::perft(&p, depth);
    let s = t.elapsed().as_secs_f64();
    say!(out, "perft({depth}) = {n}");
    eprintln!("{s:.3} s, {:.1} M nodes/s", n as f64 / s.max(1e-9) / 1e6);
    Ok(())
}

pub fn divide(o: &Start, depth: u32, out: &mut Out<impl Write>) -> Result<(), Failure> {
    let p = start_position(o)?;
    let mut total = 0;
    for (mv, n) in khet_engine::divide(&p, depth) {
        say!(out, "{mv} {n}");
        total += n;
    }
    say!(out, "total {total}");
    Ok(())
}

fn print_hits(shot: &Shot, out: &mut Out<impl Write>) -> Result<(), Failure> {
    if shot.hits.is_empty() {
        say!(out, "hits nothing");
    }
    for hit in &shot.hits {
        let what = match hit.effect {
            HitEffect::Removed => "removed",
            HitEffect::TopRemoved => "loses its top Obelisk",
            HitEffect::PharaohLit => "lit: its owner loses",
        };
        say!(out, "hit {}: {} {what}", hit.square, hit.piece);
    }
    Ok(())
}

pub fn fire(o: &Start, color: Option<Color>, out: &mut Out<impl Write>) -> Result<(), Failure> {
    let p = start_position(o)?;
    let color = color.unwrap_or(p.side_to_move());
    let shot = khet_engine::fire(&p, color);
    say!(out, "{color} fires: {shot}");
    print_hits(&shot, out)
}

pub fn show(o: &Start, out: &mut Out<impl Write>) -> Result<(), Failure> {
    let p = start_position(o)?;
    say!(out, "{}", p.diagram());
    say!(out, "{p}");
    Ok(())
}

pub fn search(
    o: &Start,
    depth: Option<u32>,
    movetime: Option<u64>,
    options: Options,
    out: &mut Out<impl Write>,
) -> Result<(), Failure> {
    let p = start_position(o)?;
    let limits = Limits {
        depth: depth.or(if movetime.is_none() { Some(5) } else { None }),
        time: movetime.map(Duration::from_millis),
        ..Limits::default()
    };
    let mut written = Ok(());
    let mut searcher = Searcher::default();
    searcher.options = options;
    let r = searcher.search(&p, limits, |r| {
        if written.is_ok() {
            written = out.now(format_args!("{r}"));
        }
    });
    written?;
    // Flushed before the note on standard error, so that a terminal shows them in order.
    out.now(format_args!(
        "bestmove {}",
        r.best.map_or("none".into(), |m| m.to_string())
    ))?;
    if let Score::Mate(n) = Score::from_raw(r.score) {
        eprintln!("a forced Pharaoh hit in {} moves", n.abs());
    }
    Ok(())
}

/// Replays a record: each ply and what its shot hit, then the final position and the result.
/// Given a depth or a move time, the engine's view of each position before its move is printed
/// beside the move played (its best move, score and depth), to find where a game was won or
/// thrown away.
pub fn replay(
    file: &Path,
    depth: Option<u32>,
    movetime: Option<u64>,
    out: &mut Out<impl Write>,
) -> Result<(), Failure> {
    let analysis = (depth.is_some() || movetime.is_some()).then(|| Limits {
        depth,
        time: movetime.map(Duration::from_millis),
        ..Limits::default()
    });
    let game = load_record(file).map_err(|e| e.to_string())?;
    say!(out, "start {}", game.start());
    let mut searcher = analysis.map(|_| Searcher::with_hash_mb(64));
    let mut so_far = khet_engine::Game::new(*game.start());
    for (i, turn) in game.turns().iter().enumerate() {
        let view = match (&mut searcher, analysis) {
            (Some(searcher), Some(limits)) => {
                let r = searcher.search_game(&so_far, limits, |_| {});
                match r.best {
                    Some(best) => format!(
                        " (engine: {best}, score {}, depth {})",
                        Score::from_raw(r.score),
                        r.depth
                    ),
                    None => " (engine: no move)".to_string(),
                }
            }
            _ => String::new(),
        };
        let hits: Vec<String> = turn
            .shot
            .hits
            .iter()
            .map(|h| format!("{} on {}", h.piece, h.square))
            .collect();
        let hit = if hits.is_empty() {
            "hits nothing".to_string()
        } else {
            format!("hits {}", hits.join(", "))
        };
        say!(out, "{:>3}. {} {}: {hit}{view}", i + 1, turn.color, turn.mv);
        if analysis.is_some() {
            so_far
                .play(turn.mv)
                .map_err(|e| format!("{}: move {} ({}): {e}", file.display(), i + 1, turn.mv))?;
        }
    }
    say!(out, "final {}", game.position());
    say!(
        out,
        "result {}",
        game.result().map_or("unfinished".into(), |r| r.to_string())
    );
    Ok(())
}

/// "Is it fair?" from the command line: the setup editor's batch of quick games, timed, on this
/// thread, and its report in one line (`khet_engine::fairness`).
pub fn fairness(
    o: &Start,
    games: u32,
    max_plies: usize,
    out: &mut Out<impl Write>,
) -> Result<(), Failure> {
    use khet_engine::fairness::{Batch, measure};
    use std::sync::atomic::{AtomicBool, AtomicU32};
    let p = start_position(o)?;
    let t = Instant::now();
    let r = measure(
        p,
        Batch { games, max_plies },
        &AtomicU32::new(0),
        &AtomicBool::new(false),
    );
    say!(out, "{r}");
    say!(out, "time {:.1} s", t.elapsed().as_secs_f64());
    Ok(())
}
