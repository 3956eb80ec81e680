//! Benchmarks: perft from Classic, the make-and-fire rate of the search's inner loop, and the depth
//! the search reaches in a fixed time. Figures go in `docs/performance.md` with these commands.

use crate::out::{Failure, Out, say};
use khet_engine::{Limits, Move, Position, Rng, Searcher, Setup, perft};
use std::io::Write;
use std::time::{Duration, Instant};

fn builtin(name: &str) -> Result<Position, Failure> {
    Ok(Setup::builtin(name).map_err(|e| e.to_string())?.position)
}

/// Times perft from Classic and the make-and-fire loop of the search (copy the position, make a
/// move, trace the beam, remove what it hit) over the positions of a fixed set of random games.
pub fn bench(depth: u32, out: &mut Out<impl Write>) -> Result<(), Failure> {
    let classic = builtin("classic")?;
    let t = Instant::now();
    let n = perft(&classic, depth);
    let s = t.elapsed().as_secs_f64();
    say!(
        out,
        "perft({depth}) from Classic = {n} in {s:.2} s ({:.1} M nodes/s)",
        n as f64 / s / 1e6
    );
    out.flush()?;

    // Positions from deterministic pseudo-random games from the three setups.
    let mut positions = Vec::new();
    let mut rng = Rng::new(0x2545_F491_4F6C_DD1D);
    for name in ["classic", "imhotep", "dynasty"] {
        let start = builtin(name)?;
        for _ in 0..20 {
            let mut p = start;
            for _ in 0..40 {
                positions.push(p);
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                if p.play_unchecked(moves[rng.below(moves.len())])
                    .is_game_over()
                {
                    break;
                }
            }
        }
    }
    let lists: Vec<(Position, Vec<Move>)> =
        positions.iter().map(|p| (*p, p.legal_moves())).collect();
    let mut made = 0u64;
    let mut checksum = 0u64;
    let t = Instant::now();
    while t.elapsed().as_secs_f64() < 2.0 {
        for (p, moves) in &lists {
            for &m in moves {
                let mut q = *p;
                let hits = q.play_unchecked(m);
                checksum = checksum.wrapping_add(q.arrangement_hash() ^ hits.squares as u64);
                made += 1;
            }
        }
    }
    let s = t.elapsed().as_secs_f64();
    say!(
        out,
        "make-and-fire: {made} in {s:.2} s = {:.1} M/s over {} positions (checksum {:x})",
        made as f64 / s / 1e6,
        lists.len(),
        checksum & 0xFFFF
    );
    Ok(())
}

/// The depth and speed of the search in `ms` milliseconds from each Khet 2.0 setup, with the
/// time each depth was completed at.
pub fn bench_search(ms: u64, threads: usize, out: &mut Out<impl Write>) -> Result<(), Failure> {
    for name in ["classic", "imhotep", "dynasty"] {
        let p = builtin(name)?;
        let mut searcher = Searcher::default();
        searcher.options.threads = threads;
        let mut reached = Vec::new();
        let r = searcher.search(&p, Limits::time(Duration::from_millis(ms)), |r| {
            reached.push(format!("{} {:.2} s", r.depth, r.elapsed.as_secs_f64()));
        });
        out.now(format_args!(
            "{name}: {threads} thread(s), depth {} in {:.2} s, {} nodes, {:.0} k nodes/s, best {} (depths: {})",
            r.depth,
            r.elapsed.as_secs_f64(),
            r.nodes,
            r.nodes as f64 / r.elapsed.as_secs_f64().max(1e-9) / 1e3,
            r.best.map_or("none".into(), |m| m.to_string()),
            reached.join(", ")
        ))?;
    }
    Ok(())
}
