//! `puzzles mine`: finds "light the Pharaoh in N" puzzles in the engine's own games;
//! `puzzles verify`: proves every puzzle of a file and names each failure.
//!
//! Mining plays Casual against Beginner from each setup of both editions (colours alternate).
//! Near the end of every game won by a Pharaoh hit, it asks the exact solver for the winner's
//! shortest forced win from the positions 1, 3, 5 and 7 plies before the end, at least ten
//! plies into the game (a middlegame), and keeps a position whose win has exactly one first
//! move. Each setup contributes at most a quota per N, so every N and setup is represented.

use crate::files::read_bounded;
use crate::out::{Failure, Out, say};
use khet_engine::puzzle::{
    MAX_PUZZLE_BOOK_BYTES, Puzzle, PuzzleBook, Solver, difficulty, hits_something,
};
use khet_engine::{Game, GameResult, Level, Searcher, Setup, WinReason};
use std::collections::HashSet;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

const SETUPS: [&str; 6] = [
    "khet2/classic",
    "khet2/imhotep",
    "khet2/dynasty",
    "khet1/classic",
    "khet1/imhotep",
    "khet1/dynasty",
];

/// Puzzles wanted per setup for N = 1, 2, 3, 4.
const QUOTA: [usize; 4] = [2, 3, 2, 1];
/// Nodes the solver may spend on one candidate position.
const NODE_LIMIT: u64 = 40_000_000;
const MAX_PLIES: usize = 160;

/// Mines puzzles from `games` games per setup and writes them to `file` (or prints them).
pub fn mine(games: u32, file: Option<&Path>, out: &mut Out<impl Write>) -> Result<(), Failure> {
    let started = Instant::now();
    let results: Vec<Result<Vec<Puzzle>, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2)
            .map(|worker| {
                scope.spawn(move || {
                    let mut found = Vec::new();
                    for setup in SETUPS.iter().skip(worker).step_by(2) {
                        found.extend(mine_setup(setup, games)?);
                    }
                    Ok(found)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a miner stopped".into())))
            .collect()
    });
    let mut book = PuzzleBook::default();
    for r in results {
        book.puzzles.extend(r?);
    }
    book.puzzles
        .sort_by_key(|p| (p.moves, p.difficulty, p.name.clone()));
    for p in &book.puzzles {
        say!(out, "{} ({}): {}", p.name, p.source, p.solution.join(" "));
    }
    say!(
        out,
        "{} puzzles from {} games in {:.0} s",
        book.puzzles.len(),
        games as usize * SETUPS.len(),
        started.elapsed().as_secs_f64()
    );
    let text = format!(
        "// Mined by `khet-engine puzzles mine --games {games}` ({} games a setup at most); every\n\
         // puzzle is proven by `khet-engine puzzles verify` (a legal line, a win in exactly N\n\
         // against the best defence, one winning first move).\n{}",
        games,
        book.to_ron()
    );
    match file {
        Some(path) => crate::files::write_atomic(path, text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?,
        None => say!(out, "{text}"),
    }
    Ok(())
}

fn mine_setup(name: &str, games: u32) -> Result<Vec<Puzzle>, String> {
    let setup = Setup::builtin(name).map_err(|e| e.to_string())?;
    let title = if setup.name.contains("Khet") {
        setup.name.clone()
    } else {
        format!("{} ({})", setup.name, setup.edition)
    };
    let mut seen = HashSet::new();
    let mut count = [0usize; 4];
    let mut found = Vec::new();
    let mut searchers = [Searcher::new(1 << 16), Searcher::new(1 << 16)];
    for g in 0..games {
        if count.iter().zip(QUOTA).all(|(&c, q)| c >= q) {
            break;
        }
        let mut game = Game::new(setup.position);
        let mut rng = khet_engine::Rng::new(0x9E37_79B9 ^ (u64::from(g) << 20) ^ name.len() as u64);
        let levels = if g % 2 == 0 {
            [Level::Casual, Level::Beginner]
        } else {
            [Level::Beginner, Level::Casual]
        };
        while !game.is_over() && game.turns().len() < MAX_PLIES && !game.can_claim_draw() {
            let i = game.side_to_move().index();
            let budget = Duration::from_millis(100);
            let Some(mv) = levels[i].choose(&mut searchers[i], &game, budget, &mut rng) else {
                break;
            };
            game.play(mv).map_err(|e| e.to_string())?;
        }
        let Some(GameResult::Win {
            reason: WinReason::PharaohHit,
            ..
        }) = game.result()
        else {
            continue;
        };
        let end = game.turns().len();
        for back in [1, 3, 5, 7] {
            let Some(at) = end.checked_sub(back).filter(|&at| at >= 10) else {
                continue;
            };
            let position = game.positions()[at];
            if !seen.insert(position.key()) {
                continue;
            }
            let mut solver = Solver::with_limit(NODE_LIMIT);
            let Ok(Some(n)) = solver.shortest_win(&position, 4) else {
                continue;
            };
            let slot = n as usize - 1;
            if count[slot] >= QUOTA[slot] {
                continue;
            }
            let Ok(winners) = solver.winning_moves(&position, n) else {
                continue;
            };
            let [first] = winners[..] else { continue };
            let Ok(Some(line)) = solver.line(&position, n) else {
                continue;
            };
            let hits = hits_something(&position, first);
            count[slot] += 1;
            let side = position.side_to_move();
            found.push(Puzzle {
                name: format!("{title}: {side} lights the Pharaoh in {n}"),
                position: position.to_string(),
                to_move: side,
                moves: n,
                solution: line.iter().map(ToString::to_string).collect(),
                difficulty: difficulty(n, hits),
                source: format!("{name}, mining game {}, ply {}", g + 1, at + 1),
            });
        }
    }
    Ok(found)
}

/// Verifies every puzzle in `path`; fails naming each puzzle that does not hold.
pub fn verify(path: &Path, out: &mut Out<impl Write>) -> Result<(), Failure> {
    let file = path.display().to_string();
    let bytes = read_bounded(path, MAX_PUZZLE_BOOK_BYTES)
        .map_err(|e| format!("{file}: cannot read: {e}"))?;
    let book = PuzzleBook::from_bytes(&bytes, &file)?;
    let started = Instant::now();
    // The puzzles are independent: one thread a core, answers printed in order.
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let mut verdicts: Vec<(Result<(), String>, u64)> =
        vec![(Err("not verified (a verifier thread stopped)".into()), 0); book.puzzles.len()];
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let puzzles = &book.puzzles;
                scope.spawn(move || {
                    (t..puzzles.len())
                        .step_by(threads)
                        .map(|i| {
                            let mut solver = Solver::default();
                            let verdict = puzzles[i].verify(&mut solver).map_err(|f| f.to_string());
                            (i, verdict, solver.nodes)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        for (i, verdict, nodes) in handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
        {
            verdicts[i] = (verdict, nodes);
        }
    });
    let mut faults = Vec::new();
    for (i, (p, (verdict, nodes))) in book.puzzles.iter().zip(verdicts).enumerate() {
        match verdict {
            Ok(()) => say!(
                out,
                "ok {}: {} (in {}, difficulty {}, {nodes} nodes)",
                i + 1,
                p.name,
                p.moves,
                p.difficulty
            ),
            Err(fault) => {
                say!(out, "FAILED {}: {fault}", i + 1);
                faults.push(i + 1);
            }
        }
    }
    say!(
        out,
        "{} of {} puzzles verified in {:.1} s",
        book.puzzles.len() - faults.len(),
        book.puzzles.len(),
        started.elapsed().as_secs_f64()
    );
    if faults.is_empty() && !book.puzzles.is_empty() {
        Ok(())
    } else if book.puzzles.is_empty() {
        Err(format!("{file}: no puzzles").into())
    } else {
        let list: Vec<String> = faults.iter().map(ToString::to_string).collect();
        Err(format!("{file}: puzzles {} failed", list.join(", ")).into())
    }
}
