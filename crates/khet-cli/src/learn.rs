//! The learned evaluation's data and training ([`khet_engine::learned`], Grandmaster's):
//! `learn-data` plays seeded self-play games at a fixed depth and writes each quiet position with
//! the search's score and the game's result; `learn-train` fits the network to them and writes it.
//! Its games open as `match`'s do, seed for seed: a match's openings are positions such data has
//! passed through, so a network is tested from a book of others as well (the ledger's check).

use crate::matches::{finished, opening};
use crate::out::{Failure, Out, say};
use crate::texel::quiet;
use khet_engine::eval::evaluate;
use khet_engine::learned::{HIDDEN, INPUTS, Net, Q, active};
use khet_engine::{Color, GameResult, Limits, Position, Rng, Searcher};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Seeded random plies before a game's positions count.
const OPENING_PLIES: usize = 8;
/// Scores beyond this are wins found, not positions judged.
const SCORE_CAP: i32 = 3000;

/// One game's lines: each quiet position, the search's score for its side to move.
fn play_game(g: u32, depth: u32, searcher: &mut Searcher) -> Result<Vec<String>, String> {
    let (_, mut game) = opening(g, OPENING_PLIES)?;
    searcher.clear();
    let mut seen: Vec<(Position, i32)> = Vec::new();
    while !finished(&game) {
        let r = searcher.search_game(&game, Limits::depth(depth), |_| {});
        let Some(mv) = r.best else { break };
        let p = *game.position();
        if r.score.abs() < SCORE_CAP && quiet(&p) {
            seen.push((p, r.score));
        }
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
    Ok(seen
        .into_iter()
        .map(|(p, score)| {
            let result = if p.side_to_move() == Color::Silver {
                silver
            } else {
                1.0 - silver
            };
            format!("{p}\t{score}\t{result}")
        })
        .collect())
}

/// `learn-data`: games `from..from + games`, shared among `threads`, each game's lines written
/// to standard output as it ends (so a long run shows its progress, and a stopped one keeps the
/// games it finished).
pub fn data(from: u32, games: u32, depth: u32, threads: usize) -> Result<(), Failure> {
    let threads = threads.clamp(1, games.max(1) as usize);
    let results: Vec<Result<(), Failure>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mut searcher = Searcher::new(1 << 18);
                    for g in (from + t as u32..from + games).step_by(threads) {
                        let lines = play_game(g, depth, &mut searcher).map_err(Failure::Input)?;
                        let mut out = std::io::stdout().lock();
                        for line in lines {
                            writeln!(out, "{line}")?;
                        }
                        out.flush()?;
                    }
                    Ok(())
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| {
                w.join()
                    .unwrap_or_else(|_| Err(Failure::Input("a thread panicked".into())))
            })
            .collect()
    });
    results.into_iter().collect()
}

/// A position for training: its inputs, the hand-written evaluation, and the target (0..1).
struct Sample {
    active: Vec<u16>,
    hand: f32,
    target: f32,
    held_out: bool,
}

/// The chance of winning an evaluation of `cp` gives, at scale `k`.
fn sigmoid(cp: f32, k: f32) -> f32 {
    1.0 / (1.0 + 10f32.powf(-k * cp / 400.0))
}

/// The lines of `files`, each `position\tscore\tresult`, as samples, those of `check` held out
/// (none given: every tenth position by a hash of its text, which leaves the positions of a
/// game on both sides, so that the error held out flatters).
fn read(files: &[PathBuf], check: &[PathBuf], k: f32, lambda: f32) -> Result<Vec<Sample>, String> {
    let mut samples = Vec::new();
    for (file, checked) in files
        .iter()
        .map(|f| (f, false))
        .chain(check.iter().map(|f| (f, true)))
    {
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        for (n, line) in text.lines().enumerate() {
            let at = |why: &str| format!("{}:{}: {why}", file.display(), n + 1);
            let mut parts = line.split('\t');
            let (Some(pos), Some(score), Some(result)) = (parts.next(), parts.next(), parts.next())
            else {
                return Err(at("expected position, score and result"));
            };
            let p: Position = pos.parse().map_err(|e| at(&format!("{e}")))?;
            let score: f32 = score.parse().map_err(|_| at("a bad score"))?;
            let result: f32 = result.parse().map_err(|_| at("a bad result"))?;
            let mut on = Vec::new();
            active(&p, &mut on);
            let hash = pos.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
            });
            samples.push(Sample {
                active: on,
                hand: evaluate(&p) as f32,
                target: lambda * sigmoid(score, k) + (1.0 - lambda) * result,
                held_out: if check.is_empty() {
                    hash % 10 == 0
                } else {
                    checked
                },
            });
        }
    }
    Ok(samples)
}

/// The network being trained, in floats (the output in Pyramids).
struct Float {
    w1: Vec<f32>,
    b1: [f32; HIDDEN],
    w2: [f32; HIDDEN],
    b2: f32,
}

impl Float {
    /// The hidden units' sums and the output (centipawns) for `on`.
    fn forward(&self, on: &[u16], acc: &mut [f32; HIDDEN]) -> f32 {
        *acc = self.b1;
        for &i in on {
            let row = &self.w1[usize::from(i) * HIDDEN..][..HIDDEN];
            for (a, w) in acc.iter_mut().zip(row) {
                *a += w;
            }
        }
        let out: f32 = acc
            .iter()
            .zip(&self.w2)
            .map(|(a, w)| a.clamp(0.0, 1.0) * w)
            .sum();
        100.0 * (out + self.b2)
    }

    /// The network in integers, the rows of inputs not `seen` in training (still as they were
    /// drawn at random) set to 0.
    fn quantise(&self, seen: &[bool]) -> Net {
        let q = Q as f32;
        Net {
            w1: self
                .w1
                .iter()
                .enumerate()
                .map(|(i, w)| {
                    if seen[i / HIDDEN] {
                        (w * q).round() as i16
                    } else {
                        0
                    }
                })
                .collect(),
            b1: self.b1.map(|b| (b * q).round() as i16),
            w2: self.w2.map(|w| (w * 100.0).round() as i32),
            b2: (self.b2 * 100.0).round() as i32,
        }
    }
}

/// Adam's moments for one parameter array.
struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
}

impl Adam {
    fn new(n: usize) -> Adam {
        Adam {
            m: vec![0.0; n],
            v: vec![0.0; n],
        }
    }

    /// One step of Adam with weight decay (`AdamW`): `decay` pulls each weight towards 0 by that share of `lr`.
    fn step(&mut self, params: &mut [f32], grads: &mut [f32], lr: f32, decay: f32, t: i32) {
        let (b1, b2) = (0.9f32, 0.999f32);
        let (c1, c2) = (1.0 - b1.powi(t), 1.0 - b2.powi(t));
        for (((p, g), m), v) in params
            .iter_mut()
            .zip(grads.iter_mut())
            .zip(&mut self.m)
            .zip(&mut self.v)
        {
            *m = b1 * *m + (1.0 - b1) * *g;
            *v = b2 * *v + (1.0 - b2) * *g * *g;
            *p -= lr * ((*m / c1) / ((*v / c2).sqrt() + 1e-8) + decay * *p);
            *g = 0.0;
        }
    }
}

/// The mean squared error of the hand evaluation plus the network (none: the hand's alone) on
/// the samples held out (or not).
fn loss(samples: &[Sample], net: Option<&Float>, k: f32, held_out: bool) -> f64 {
    let mut acc = [0.0; HIDDEN];
    let (mut sum, mut n) = (0.0f64, 0usize);
    for s in samples.iter().filter(|s| s.held_out == held_out) {
        let out = s.hand + net.map_or(0.0, |f| f.forward(&s.active, &mut acc));
        let d = sigmoid(out, k) - s.target;
        sum += f64::from(d * d);
        n += 1;
    }
    sum / n.max(1) as f64
}

/// Adds the batch's gradients of the error to `g1`, `gb1`, `g2` and `gb2` (the network's
/// parameters' order).
fn gradients(
    net: &Float,
    batch: &[&Sample],
    k: f32,
    (g1, gb1, g2, gb2): (&mut [f32], &mut [f32; HIDDEN], &mut [f32; HIDDEN], &mut f32),
) {
    let mut acc = [0.0f32; HIDDEN];
    for s in batch {
        let y = s.hand + net.forward(&s.active, &mut acc);
        let p = sigmoid(y, k);
        // d(error)/d(y), the output in centipawns; the network's output is 100 × its sum.
        let dy = 2.0 * (p - s.target) * p * (1.0 - p) * k * std::f32::consts::LN_10 / 400.0 * 100.0
            / batch.len() as f32;
        *gb2 += dy;
        for h in 0..HIDDEN {
            let a = acc[h];
            g2[h] += dy * a.clamp(0.0, 1.0);
            if a > 0.0 && a < 1.0 {
                let d = dy * net.w2[h];
                gb1[h] += d;
                for &i in &s.active {
                    g1[usize::from(i) * HIDDEN + h] += d;
                }
            }
        }
    }
}

/// `learn-train`: fits the network to the lines of `files` for `epochs`, keeps the epoch best
/// on the positions held out, and writes it to `to`.
pub fn train(
    files: &[PathBuf],
    check: &[PathBuf],
    to: &Path,
    epochs: u32,
    k: f32,
    lambda: f32,
    (lr, decay): (f32, f32),
    out: &mut Out<impl Write>,
) -> Result<(), Failure> {
    let mut samples = read(files, check, k, lambda).map_err(Failure::Input)?;
    let held = samples.iter().filter(|s| s.held_out).count();
    say!(
        out,
        "{} positions, {held} held out; the hand evaluation alone: error {:.5} (held out {:.5})",
        samples.len(),
        loss(&samples, None, k, false),
        loss(&samples, None, k, true)
    );
    let mut seen = vec![false; INPUTS];
    for s in samples.iter().filter(|s| !s.held_out) {
        for &i in &s.active {
            seen[usize::from(i)] = true;
        }
    }
    say!(
        out,
        "{} of the {INPUTS} inputs are on in some training position",
        seen.iter().filter(|&&s| s).count()
    );
    let mut rng = Rng::new(66);
    let mut small = || (rng.next_u64() % 2001) as f32 / 1000.0 - 1.0;
    let mut net = Float {
        w1: (0..INPUTS * HIDDEN).map(|_| small() * 0.05).collect(),
        b1: [0.3; HIDDEN],
        w2: [0.0; HIDDEN],
        b2: 0.0,
    };
    let (mut a1, mut ab1, mut a2, mut ab2) = (
        Adam::new(INPUTS * HIDDEN),
        Adam::new(HIDDEN),
        Adam::new(HIDDEN),
        Adam::new(1),
    );
    let (mut g1, mut gb1, mut g2, mut gb2) = (
        vec![0.0f32; INPUTS * HIDDEN],
        [0.0f32; HIDDEN],
        [0.0f32; HIDDEN],
        [0.0f32],
    );
    let mut best = (loss(&samples, None, k, true), None::<Net>);
    let mut t = 0;
    const BATCH: usize = 1024;
    for epoch in 1..=epochs {
        // Shuffle the training positions (Fisher–Yates, seeded).
        for i in (1..samples.len()).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            samples.swap(i, j);
        }
        let train: Vec<&Sample> = samples.iter().filter(|s| !s.held_out).collect();
        for batch in train.chunks(BATCH) {
            gradients(&net, batch, k, (&mut g1, &mut gb1, &mut g2, &mut gb2[0]));
            t += 1;
            a1.step(&mut net.w1, &mut g1, lr, decay, t);
            ab1.step(&mut net.b1, &mut gb1, lr, 0.0, t);
            a2.step(&mut net.w2, &mut g2, lr, decay, t);
            ab2.step(std::slice::from_mut(&mut net.b2), &mut gb2, lr, 0.0, t);
        }
        let (train_loss, held_loss) = (
            loss(&samples, Some(&net), k, false),
            loss(&samples, Some(&net), k, true),
        );
        say!(
            out,
            "epoch {epoch}: error {train_loss:.5}, held out {held_loss:.5}"
        );
        if held_loss < best.0 {
            let q = net.quantise(&seen);
            let mut acc = [0.0; HIDDEN];
            let drift: f32 = samples
                .iter()
                .take(10_000)
                .map(|s| (net.forward(&s.active, &mut acc) - q.output(&s.active) as f32).abs())
                .sum::<f32>()
                / samples.len().clamp(1, 10_000) as f32;
            say!(
                out,
                "  kept; quantised, it differs by {drift:.1} centipawns on average"
            );
            best = (held_loss, Some(q));
        }
    }
    let Some(chosen) = best.1 else {
        say!(
            out,
            "no epoch did better than the hand evaluation on the held-out positions: nothing written"
        );
        return Ok(());
    };
    std::fs::write(to, chosen.to_bytes())
        .map_err(|e| Failure::Input(format!("{}: {e}", to.display())))?;
    say!(out, "wrote {} (held out {:.5})", to.display(), best.0);
    Ok(())
}
