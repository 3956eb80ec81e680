//! Tuning the evaluation from data, by Texel's method: positions from seeded self-play games,
//! each labelled with its game's result, and the weights that best predict the results through
//! a logistic of the evaluation. The evaluation is linear in its weights
//! (`khet_engine::eval::features`), so each position's features are computed once and a weight
//! set is scored by dot products.
//!
//! One command makes it all again: `khet-engine texel --games N --depth D --threads T` (the
//! games, their openings and the fit are seeded, and each game is played from a cleared search
//! whichever thread plays it, so the same games and depth print the same weights for any T).
//! `texel --records DIR` labels the games a match kept instead (`match --records DIR`): games
//! played at a match's time a move search far deeper than self-play at a fixed depth can
//! afford, and a fit to shallow games teaches what a shallow search cannot defend.
//! The fit is cross-validated over tenths of the games: whether tuned weights predict games
//! they were not fitted to better than today's, and how far each weight moves between folds.
//! A result is a candidate; it is kept only after it passes a sequential test against the
//! weights before it (`match --sprt`).

use crate::files::load_record;
use crate::matches::{finished, opening};
use crate::out::{Failure, Out, say};
use khet_engine::eval::{FEATURES, WEIGHTS, capture_gain, features};
use khet_engine::{Color, Game, GameResult, Limits, Position, Searcher};
use std::io::Write;
use std::path::{Path, PathBuf};

/// A game still going after this many plies is drawn.
const MAX_PLIES: usize = 200;

/// The seeded random plies a self-play game starts with, and the plies of a kept record that
/// are not labelled: a match's seeded opening plies (4 by default, `--opening-plies`) are
/// random moves, not play.
const OPENING_PLIES: usize = 8;

/// Where the labelled positions come from.
pub enum Source {
    /// Seeded games between two searches of this depth, shared among the threads.
    SelfPlay {
        /// How many games.
        games: u32,
        /// Their search depth.
        depth: u32,
        /// Games played at once.
        threads: usize,
    },
    /// The game records (`*.ron`) in these folders, as `match --records` keeps them.
    Records(Vec<PathBuf>),
}

/// One labelled position: its features from the side to move's view, and that side's result
/// (1 a win, ½ a draw, 0 a loss).
#[derive(Clone)]
struct Sample {
    /// The game's number (for a record, a hash of its path), to hold out whole games.
    game: u32,
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

/// Whether no move of the side to move wins material or lights a Pharaoh, and the opponent's
/// beam as it stands does not light the side to move's (the check of chess). Only such
/// positions are labelled, as Texel's method asks: where a capture is on, the game's result
/// follows from the capture, which the search's capture search sees, and fitting the
/// evaluation to it inflates the terms that say a capture is on (the side to move's beam
/// hitting an enemy piece came out at 543 centipawns, five Pyramids, from 2,400 games at
/// depth 4). A Pharaoh in the beam counts as one piece hit in the evaluation, and the few such
/// positions (37 of 14,816 in 372 kept games, self-play and against Khet2-AI) moved the weight
/// of the opponent's beam hitting ours from 126 to 229.
pub(crate) fn quiet(p: &Position) -> bool {
    let side = p.side_to_move();
    !p.beam_summary(side.other()).1.pharaoh_hit(side)
        && p.legal_moves().into_iter().all(|mv| {
            let mut q = *p;
            let hits = q.play_unchecked(mv);
            !hits.is_game_over() && capture_gain(p, mv, hits, side) <= 0
        })
}

/// Game `g` of the self-play: its labelled positions, and whether it was decided.
fn play_game(g: u32, depth: u32, searcher: &mut Searcher) -> Result<(Vec<Sample>, bool), String> {
    let (game, start) = self_play(g, depth, searcher)?;
    let silver = silver_score(game.result());
    Ok((label(&game, start, silver, g), silver != 0.5))
}

/// Game `g` of the self-play, played from its seeded opening, and the ply it was played from.
fn self_play(g: u32, depth: u32, searcher: &mut Searcher) -> Result<(Game, usize), String> {
    let (_, mut game) = opening(g, OPENING_PLIES)?;
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
    Ok((game, start))
}

/// Silver's score in a game that ended with `result` (none: drawn by a limit or repetition).
fn silver_score(result: Option<GameResult>) -> f64 {
    match result {
        Some(GameResult::Win {
            winner: Color::Silver,
            ..
        }) => 1.0,
        Some(GameResult::Win { .. }) => 0.0,
        _ => 0.5,
    }
}

/// The quiet positions of `game` (number `index`) from ply `start` on, but for the last, each
/// labelled with the side to move's share of `silver`, Silver's score.
fn label(game: &Game, start: usize, silver: f64, index: u32) -> Vec<Sample> {
    let positions = game.positions();
    let end = positions.len().saturating_sub(1);
    positions[start.min(end)..end]
        .iter()
        .filter(|p| quiet(p))
        .map(|p| Sample {
            game: index,
            features: features(p),
            result: if p.side_to_move() == Color::Silver {
                silver
            } else {
                1.0 - silver
            },
        })
        .collect()
}

/// The labelled positions of every record (`*.ron`, in name order) in `dirs`, with the
/// number of games labelled and of those decided. A record that cannot be read or replayed is
/// reported and skipped, as is one that stops before the game ended: a record without a result
/// counts as drawn only where a match would have drawn it (its move limit, its plies without
/// a capture, or a repetition).
fn read_records(
    dirs: &[PathBuf],
    out: &mut Out<impl Write>,
) -> Result<(Vec<Sample>, u32, u32), Failure> {
    let files = crate::files::record_files(dirs)?;
    let (mut samples, mut games, mut decisive, mut skipped) = (Vec::new(), 0, 0, 0);
    for path in &files {
        match read_record(path) {
            Ok((game, silver)) => {
                samples.extend(label(&game, OPENING_PLIES, silver, path_number(path)));
                games += 1;
                decisive += u32::from(silver != 0.5);
            }
            Err(reason) => {
                say!(out, "skipped {reason}");
                skipped += 1;
            }
        }
    }
    if skipped > 0 {
        say!(out, "{skipped} of {} records skipped", files.len());
    }
    Ok((samples, games, decisive))
}

/// A record's number for holding games out: a hash (FNV-1a) of its path, so that a game stays
/// held out, or not, as its folder fills (numbers in name order would shift).
fn path_number(path: &Path) -> u32 {
    path.as_os_str()
        .as_encoded_bytes()
        .iter()
        .fold(0x811c_9dc5u32, |h, &b| {
            (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
        })
}

/// A record's game and Silver's score in it, or why it cannot be labelled. Replaying a record
/// gives its game the recorded result (a resignation, say), so the game's result is the one.
fn read_record(path: &Path) -> Result<(Game, f64), String> {
    let game = load_record(path).map_err(|e| e.to_string())?;
    if game.result().is_none() && !finished(&game) {
        return Err(format!("{}: the game had not ended", path.display()));
    }
    let silver = silver_score(game.result());
    Ok((game, silver))
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

/// Texel's local search: each `free` weight moved by a step while that lowers the error, the
/// steps halved from 16 down to 1.
fn tune(
    samples: &[Sample],
    start: [i32; FEATURES],
    free: [bool; FEATURES],
    k: f64,
) -> [i32; FEATURES] {
    let mut best = start;
    let mut best_loss = loss(samples, &best, k);
    for step in [16, 8, 4, 2, 1] {
        loop {
            let mut improved = false;
            for i in (0..FEATURES).filter(|&i| free[i]) {
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

/// Which weights the named ones are (all but the Pyramid, the unit, when none are named).
pub fn free_weights(names: &[String]) -> Result<[bool; FEATURES], String> {
    if names.is_empty() {
        return Ok(std::array::from_fn(|i| i > 0));
    }
    let mut weights = WEIGHTS;
    let fields = weights.fields_mut();
    let mut free = [false; FEATURES];
    for name in names {
        match fields.iter().position(|(n, _)| n == name) {
            Some(0) => return Err("the pyramid is the unit: its weight stays 100".into()),
            Some(i) => free[i] = true,
            None => {
                let all: Vec<&str> = fields.iter().map(|(n, _)| *n).collect();
                return Err(format!(
                    "no weight is called '{}' (the weights: {})",
                    khet_engine::text::quote(name),
                    all.join(", ")
                ));
            }
        }
    }
    Ok(free)
}

/// How many parts the games are cut into for cross-validation.
const FOLDS: u32 = 10;

/// One fold of the cross-validation: the weights tuned without its games, and the error on its
/// games of today's weights and of those.
struct Fold {
    weights: [i32; FEATURES],
    today: f64,
    tuned: f64,
}

/// Tunes the weights [`FOLDS`] times, each time without a tenth of the games (by their number),
/// and measures both weight sets on the games left out. A game's positions are alike, so whole
/// games are held out; and one held-out tenth is too few games to judge a fit by (over 626 kept
/// games, which tenth was held out decided whether the tuned weights did better or worse), so
/// every tenth is held out in turn.
fn cross_validate(
    samples: &[Sample],
    today: [i32; FEATURES],
    free: [bool; FEATURES],
    k: f64,
) -> Vec<Fold> {
    (0..FOLDS)
        .filter_map(|fold| {
            let (held, train): (Vec<Sample>, Vec<Sample>) = samples
                .iter()
                .cloned()
                .partition(|s| s.game % FOLDS == fold);
            if held.is_empty() || train.is_empty() {
                return None;
            }
            let weights = tune(&train, today, free, k);
            Some(Fold {
                weights,
                today: loss(&held, &today, k),
                tuned: loss(&held, &weights, k),
            })
        })
        .collect()
}

/// Gathers the positions, fits the scale with today's weights, tunes the `free` ones, and
/// prints the weights found with the error before and after, on all the positions and
/// cross-validated.
pub fn run(
    source: Source,
    free: [bool; FEATURES],
    out: &mut Out<impl Write>,
) -> Result<(), Failure> {
    let (samples, games, decisive, origin) = match source {
        Source::SelfPlay {
            games,
            depth,
            threads,
        } => {
            let (samples, decisive) = play_games(games, depth, threads)?;
            (samples, games, decisive, format!("at depth {depth}"))
        }
        Source::Records(dirs) => {
            let (samples, games, decisive) = read_records(&dirs, out)?;
            (samples, games, decisive, "kept".to_string())
        }
    };
    if samples.len() < 100 {
        return Err(format!(
            "only {} positions from {games} games: more games are needed",
            samples.len()
        )
        .into());
    }
    let today = WEIGHTS.to_array();
    let k = fit_k(&samples, &today);
    let tuned = tune(&samples, today, free, k);
    say!(
        out,
        "{} positions from {games} games {origin} ({decisive} decided, the rest drawn), scale k = {k:.3}",
        samples.len(),
    );
    if decisive * 4 < games {
        // Drawn games label every position ½ whatever the material: such data teaches that
        // nothing matters.
        say!(
            out,
            "warning: only {decisive} of {games} games were decided; the weights below are not to be trusted"
        );
    }
    say!(
        out,
        "error: today's weights {:.5}, tuned {:.5}",
        loss(&samples, &today, k),
        loss(&samples, &tuned, k)
    );
    let folds = cross_validate(&samples, today, free, k);
    let better = folds.iter().filter(|f| f.tuned < f.today).count();
    let mean = |f: fn(&Fold) -> f64| folds.iter().map(f).sum::<f64>() / folds.len() as f64;
    say!(
        out,
        "cross-validated ({} folds of the games, each tuned without it): error on the fold, today's {:.5}, tuned {:.5}; tuned lower in {better} of {}",
        folds.len(),
        mean(|f| f.today),
        mean(|f| f.tuned),
        folds.len()
    );
    let mut names = WEIGHTS;
    let fields = names.fields_mut();
    for (i, (name, _)) in fields.iter().enumerate() {
        if !free[i] {
            say!(out, "{name}: {} (not tuned)", today[i]);
            continue;
        }
        let low = folds.iter().map(|f| f.weights[i]).min().unwrap_or(tuned[i]);
        let high = folds.iter().map(|f| f.weights[i]).max().unwrap_or(tuned[i]);
        say!(
            out,
            "{name}: {} -> {} (the folds: {low} to {high})",
            today[i],
            tuned[i]
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use khet_engine::Record;

    #[test]
    fn only_positions_where_no_move_wins_material_are_quiet() {
        let classic = khet_engine::Setup::builtin("classic").unwrap().position;
        assert!(quiet(&classic));
        // Silver can light the Red Pharaoh (see the evaluation's fork test).
        let fork: Position = "x39/////2k1A24P3/2P17/4K4X1 0".parse().unwrap();
        assert!(!quiet(&fork));
        // From a kept game, Silver to move: no Silver move takes anything, but Red's beam as it
        // stands lights the Silver Pharaoh.
        let check: Position = "x33k1a3s22/4a33p21/7p22/5S13P3//p14s14/5K4/2S22p11p11X1 0"
            .parse()
            .unwrap();
        let side = check.side_to_move();
        assert!(check.legal_moves().into_iter().all(|mv| {
            let mut q = check;
            let hits = q.play_unchecked(mv);
            !hits.is_game_over() && capture_gain(&check, mv, hits, side) <= 0
        }));
        assert!(!quiet(&check));
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
    fn a_kept_record_is_labelled_as_its_game_and_bad_records_are_skipped_with_the_reason() {
        let dir = std::env::temp_dir().join(format!("khet-texel-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut searcher = Searcher::new(1 << 12);
        let mut expected = Vec::new();
        let mut decided = 0;
        for g in 0..3 {
            let (game, start) = self_play(g, 1, &mut searcher).unwrap();
            assert_eq!(start, OPENING_PLIES);
            let record = Record::from_game(&game, "classic").to_ron();
            std::fs::write(dir.join(format!("game-{g}.ron")), record).unwrap();
            let silver = silver_score(game.result());
            decided += u32::from(silver != 0.5);
            expected.extend(label(&game, start, silver, g));
        }
        // A record cut short (no result, no limit reached) and one that is not a record.
        let (game, _) = self_play(0, 1, &mut searcher).unwrap();
        let mut cut = Record::from_game(&game, "classic");
        cut.moves.truncate(20);
        cut.result = None;
        std::fs::write(dir.join("game-cut.ron"), cut.to_ron()).unwrap();
        std::fs::write(dir.join("notes.ron"), b"\xef\xbb\xbfRecord(setup: 3").unwrap();
        std::fs::write(dir.join("readme.txt"), "not a record").unwrap();

        let mut out = Out::memory();
        let (samples, games, decisive) =
            read_records(std::slice::from_ref(&dir), &mut out).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let text = out.text();
        assert_eq!((games, decisive), (3, decided), "{text}");
        let pairs = |s: &[Sample]| -> Vec<([i32; FEATURES], u64)> {
            s.iter().map(|x| (x.features, x.result.to_bits())).collect()
        };
        assert!(!expected.is_empty());
        assert_eq!(pairs(&samples), pairs(&expected));
        assert!(
            text.contains("game-cut.ron: the game had not ended"),
            "{text}"
        );
        assert!(text.contains("notes.ron:1"), "{text}");
        assert!(text.contains("2 of 5 records skipped"), "{text}");
    }

    #[test]
    fn the_fit_finds_the_weights_that_made_the_results() {
        // Results drawn from a known logistic of three features: the search recovers their
        // weights, and moves only the weights it is let move.
        let mut truth = [0; FEATURES];
        truth[..3].copy_from_slice(&[100, 60, 40]);
        let mut rng = khet_engine::Rng::new(7);
        let samples: Vec<Sample> = (0..4000)
            .map(|_| {
                let f: [i32; FEATURES] = std::array::from_fn(|i| {
                    if i < 3 {
                        (rng.next_u64() % 7) as i32 - 3
                    } else {
                        0
                    }
                });
                let p = 1.0 / (1.0 + 10f64.powf(-dot(&truth, &f) / 400.0));
                Sample {
                    game: 0,
                    features: f,
                    result: p,
                }
            })
            .collect();
        let k = fit_k(&samples, &truth);
        assert!((k - 1.0).abs() < 0.01, "{k}");
        let mut start = [0; FEATURES];
        start[..3].copy_from_slice(&[100, 20, 90]);
        let found = tune(&samples, start, free_weights(&[]).unwrap(), k);
        assert!((found[1] - 60).abs() <= 1, "{found:?}");
        assert!((found[2] - 40).abs() <= 1, "{found:?}");
        assert!(loss(&samples, &found, k) < 1e-6);
        let anubis = free_weights(&["anubis".to_string()]).unwrap();
        let found = tune(&samples, start, anubis, k);
        assert_ne!(found[1], 20, "{found:?}");
        assert_eq!(found[2], 90, "{found:?}");
        assert_eq!(found[0], 100, "{found:?}");
    }

    #[test]
    fn cross_validation_holds_each_tenth_of_the_games_out_in_turn() {
        // Two features; the truth is 100 and 60 where the weights start at 100 and 20.
        let mut truth = [0; FEATURES];
        truth[..2].copy_from_slice(&[100, 60]);
        let mut rng = khet_engine::Rng::new(11);
        let samples: Vec<Sample> = (0..3000u32)
            .map(|n| {
                let f: [i32; FEATURES] = std::array::from_fn(|i| {
                    if i < 2 {
                        (rng.next_u64() % 7) as i32 - 3
                    } else {
                        0
                    }
                });
                Sample {
                    game: n / 30,
                    features: f,
                    result: 1.0 / (1.0 + 10f64.powf(-dot(&truth, &f) / 400.0)),
                }
            })
            .collect();
        let mut start = [0; FEATURES];
        start[..2].copy_from_slice(&[100, 20]);
        let folds = cross_validate(&samples, start, free_weights(&[]).unwrap(), 1.0);
        assert_eq!(folds.len(), FOLDS as usize);
        for f in &folds {
            assert!(f.tuned < f.today, "{} {}", f.tuned, f.today);
            assert!((f.weights[1] - 60).abs() <= 2, "{:?}", f.weights);
        }
        // Few games: the folds without any are skipped.
        let few: Vec<Sample> = samples.iter().filter(|s| s.game < 3).cloned().collect();
        assert_eq!(
            cross_validate(&few, start, free_weights(&[]).unwrap(), 1.0).len(),
            3
        );
    }

    #[test]
    fn only_named_weights_other_than_the_pyramid_can_be_tuned() {
        let free = free_weights(&["reach".into(), "capture_reach".into()]).unwrap();
        assert_eq!(free.iter().filter(|&&f| f).count(), 2);
        assert!(free_weights(&[]).unwrap()[1..].iter().all(|&f| f));
        assert!(!free_weights(&[]).unwrap()[0]);
        assert!(
            free_weights(&["pyramid".into()])
                .unwrap_err()
                .contains("unit")
        );
        let err = free_weights(&["reech".into()]).unwrap_err();
        assert!(
            err.contains("no weight is called 'reech'") && err.contains("reach"),
            "{err}"
        );
    }
}
