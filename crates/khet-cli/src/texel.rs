//! Tuning the evaluation from data, by Texel's method: positions from seeded self-play games,
//! each labelled with its game's result, and the weights that best predict the results through
//! a logistic of the evaluation. The evaluation is linear in its weights
//! (`khet_engine::eval::features`), so each position's features are computed once and a weight
//! set is scored by dot products.
//!
//! One command makes it all again: `khet-engine texel --games N --depth D --threads T` (the
//! games, their openings and the fit are seeded, and each game is played from a cleared search
//! whichever thread plays it, so the same games and depth print the same weights for any T).
//! A result is a candidate; it is kept only after it passes a sequential test against the
//! weights before it (`match --sprt`).

use crate::matches::opening;
use crate::out::{Failure, Out, say};
use khet_engine::eval::{FEATURES, WEIGHTS, capture_gain, features};
use khet_engine::{Color, GameResult, Limits, Position, Searcher};
use std::io::Write;

/// A game still going after this many plies is drawn.
const MAX_PLIES: usize = 200;

/// One labelled position: its features from the side to move's view, and that side's result
/// (1 a win, ½ a draw, 0 a loss).
struct Sample {
    features: [i32; FEATURES],
    result: f64,
}

/// Plays `games` seeded games between two fixed-depth searches from varied openings and labels
/// every quiet position after the opening (see [`quiet`]) with the game's result. The games
/// are shared out among `threads` threads; each game starts from a cleared search, so the
/// samples (kept in game order) are the same however many threads play them.
fn play_games(games: u32, depth: u32, threads: usize) -> Result<(Vec<Sample>, u32), Failure> {
    let threads = threads.clamp(1, games.max(1) as usize);
    let per_thread: Vec<Result<Vec<(u32, Vec<Sample>, bool)>, String>> =
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|t| {
                    scope.spawn(move || {
                        let mut searcher = Searcher::new(1 << 16);
                        (t as u32..games)
                            .step_by(threads)
                            .map(|g| play_game(g, depth, &mut searcher).map(|(s, d)| (g, s, d)))
                            .collect()
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| {
                    w.join()
                        .unwrap_or_else(|_| Err("a self-play thread panicked".into()))
                })
                .collect()
        });
    let mut played = Vec::with_capacity(games as usize);
    for thread in per_thread {
        played.extend(thread?);
    }
    played.sort_by_key(|(g, _, _)| *g);
    let decisive = played.iter().filter(|(_, _, d)| *d).count() as u32;
    let samples = played.into_iter().flat_map(|(_, s, _)| s).collect();
    Ok((samples, decisive))
}

/// Whether no move of the side to move wins material or lights a Pharaoh. Only such positions
/// are labelled, as Texel's method asks: where a capture is on, the game's result follows from
/// the capture, which the search's capture search sees, and fitting the evaluation to it
/// inflates the terms that say a capture is on (the side to move's beam hitting an enemy piece
/// came out at 543 centipawns, five Pyramids, from 2,400 games at depth 4).
fn quiet(p: &Position) -> bool {
    let side = p.side_to_move();
    p.legal_moves().into_iter().all(|mv| {
        let mut q = *p;
        let hits = q.play_unchecked(mv);
        !hits.is_game_over() && capture_gain(p, mv, hits, side) <= 0
    })
}

/// Game `g` of the self-play: its labelled positions, and whether it was decided.
fn play_game(g: u32, depth: u32, searcher: &mut Searcher) -> Result<(Vec<Sample>, bool), String> {
    let (_, mut game) = opening(g, 8)?;
    let start = game.turns().len();
    searcher.clear();
    while !game.is_over() && game.turns().len() < MAX_PLIES && !game.can_claim_draw() {
        let Some(mv) = searcher
            .search_game(&game, Limits::depth(depth), |_| {})
            .best
        else {
            break;
        };
        game.play(mv).map_err(|e| e.to_string())?;
    }
    let silver = match game.result() {
        Some(GameResult::Win {
            winner: Color::Silver,
            ..
        }) => 1.0,
        Some(GameResult::Win { .. }) => 0.0,
        _ => 0.5,
    };
    let mut samples = Vec::new();
    for p in &game.positions()[start..game.positions().len() - 1] {
        if !quiet(p) {
            continue;
        }
        let result = if p.side_to_move() == Color::Silver {
            silver
        } else {
            1.0 - silver
        };
        samples.push(Sample {
            features: features(p),
            result,
        });
    }
    Ok((samples, silver != 0.5))
}

fn dot(w: &[i32; FEATURES], f: &[i32; FEATURES]) -> f64 {
    w.iter().zip(f).map(|(a, b)| f64::from(a * b)).sum()
}

/// The mean squared error of the predicted results: 1 / (1 + 10^(−k·eval/400)).
fn loss(samples: &[Sample], w: &[i32; FEATURES], k: f64) -> f64 {
    let sum: f64 = samples
        .iter()
        .map(|s| {
            let predicted = 1.0 / (1.0 + 10f64.powf(-k * dot(w, &s.features) / 400.0));
            (s.result - predicted).powi(2)
        })
        .sum();
    sum / samples.len().max(1) as f64
}

/// The scale `k` that fits the weights `w` best (golden-section search over 0.01–10).
fn fit_k(samples: &[Sample], w: &[i32; FEATURES]) -> f64 {
    let (mut lo, mut hi) = (0.01f64, 10.0f64);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let a = hi - ratio * (hi - lo);
        let b = lo + ratio * (hi - lo);
        if loss(samples, w, a) < loss(samples, w, b) {
            hi = b;
        } else {
            lo = a;
        }
    }
    (lo + hi) / 2.0
}

/// Texel's local search: each weight but the Pyramid (the unit) moved by a step while that
/// lowers the error, the steps halved from 16 down to 1.
fn tune(samples: &[Sample], start: [i32; FEATURES], k: f64) -> [i32; FEATURES] {
    let mut best = start;
    let mut best_loss = loss(samples, &best, k);
    for step in [16, 8, 4, 2, 1] {
        loop {
            let mut improved = false;
            for i in 1..FEATURES {
                for delta in [step, -step] {
                    let mut trial = best;
                    trial[i] += delta;
                    let l = loss(samples, &trial, k);
                    if l < best_loss {
                        (best, best_loss) = (trial, l);
                        improved = true;
                    }
                }
            }
            if !improved {
                break;
            }
        }
    }
    best
}

/// Plays the games, fits the scale with today's weights, tunes, and prints the weights found
/// with the error before and after, on the games' positions and on a held-out tenth.
pub fn run(
    games: u32,
    depth: u32,
    threads: usize,
    out: &mut Out<impl Write>,
) -> Result<(), Failure> {
    let (samples, decisive) = play_games(games, depth, threads)?;
    if samples.len() < 100 {
        return Err(format!("only {} positions: play more games", samples.len()).into());
    }
    // Every tenth position is held out, to see the fit generalise.
    let (held, train): (Vec<(usize, Sample)>, Vec<(usize, Sample)>) = samples
        .into_iter()
        .enumerate()
        .partition(|(i, _)| i % 10 == 9);
    let held: Vec<Sample> = held.into_iter().map(|(_, s)| s).collect();
    let train: Vec<Sample> = train.into_iter().map(|(_, s)| s).collect();
    let today = WEIGHTS.to_array();
    let k = fit_k(&train, &today);
    let tuned = tune(&train, today, k);
    say!(
        out,
        "{} positions from {games} games at depth {depth} ({decisive} decided, the rest drawn; {} positions held out), scale k = {k:.3}",
        train.len(),
        held.len()
    );
    if decisive * 4 < games {
        // Drawn games label every position ½ whatever the material: such data teaches that
        // nothing matters.
        say!(
            out,
            "warning: only {decisive} of {games} games were decided; the weights below are not to be trusted (play deeper games)"
        );
    }
    say!(
        out,
        "error: today's weights {:.5} (held out {:.5}); tuned {:.5} (held out {:.5})",
        loss(&train, &today, k),
        loss(&held, &today, k),
        loss(&train, &tuned, k),
        loss(&held, &tuned, k)
    );
    let mut names = WEIGHTS;
    let fields = names.fields_mut();
    for (i, (name, _)) in fields.iter().enumerate() {
        say!(out, "{name}: {} -> {}", today[i], tuned[i]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_positions_where_no_move_wins_material_are_quiet() {
        let classic = khet_engine::Setup::builtin("classic").unwrap().position;
        assert!(quiet(&classic));
        // Silver can light the Red Pharaoh (see the evaluation's fork test).
        let fork: Position = "x39/////2k1A24P3/2P17/4K4X1 0".parse().unwrap();
        assert!(!quiet(&fork));
        // Ply 29 of a Classic game: Silver's g3f3 takes the Red Pyramid on h4.
        let capture: Position =
            "x32ka31a3p22/3p31s13P3/p12P46/2P42s22p21/p1P42S2p21p22/6S12P3//2P4A1KA11P11X1 0"
                .parse()
                .unwrap();
        assert!(!quiet(&capture));
    }

    #[test]
    fn the_samples_are_the_same_however_many_threads_play_the_games() {
        let (one, decided_one) = play_games(5, 1, 1).unwrap();
        let (three, decided_three) = play_games(5, 1, 3).unwrap();
        assert!(!one.is_empty());
        assert_eq!(decided_one, decided_three);
        let pairs = |s: &[Sample]| -> Vec<([i32; FEATURES], u64)> {
            s.iter().map(|x| (x.features, x.result.to_bits())).collect()
        };
        assert_eq!(pairs(&one), pairs(&three));
    }

    #[test]
    fn the_fit_finds_the_weights_that_made_the_results() {
        // Results drawn from a known logistic of two features: the search recovers its weights.
        let mut truth = [0; FEATURES];
        truth[..2].copy_from_slice(&[100, 60]);
        let mut rng = khet_engine::Rng::new(7);
        let samples: Vec<Sample> = (0..4000)
            .map(|_| {
                let f: [i32; FEATURES] = std::array::from_fn(|i| {
                    if i < 2 {
                        (rng.next_u64() % 7) as i32 - 3
                    } else {
                        0
                    }
                });
                let p = 1.0 / (1.0 + 10f64.powf(-dot(&truth, &f) / 400.0));
                Sample {
                    features: f,
                    result: p,
                }
            })
            .collect();
        let k = fit_k(&samples, &truth);
        assert!((k - 1.0).abs() < 0.01, "{k}");
        let mut start = [0; FEATURES];
        start[..2].copy_from_slice(&[100, 20]);
        let found = tune(&samples, start, k);
        assert!((found[1] - 60).abs() <= 1, "{found:?}");
        assert!(loss(&samples, &found, k) < 1e-6);
    }
}
