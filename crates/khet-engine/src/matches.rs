//! Matches between levels: from all three Khet 2.0 setups with both colours, at a fixed time per
//! move, scored as wins, draws and losses with an Elo difference and its 95% error bar.

use crate::game::{Game, GameResult};
use crate::level::Level;
use crate::piece::Color;
use crate::search::Searcher;
use crate::setup::find_setup;
use std::path::Path;
use std::time::Duration;

/// A game that reaches this many plies is drawn.
pub const MAX_PLIES: usize = 200;

/// The Elo difference for a score fraction, and its 95% error bar from the per-game results.
pub fn elo(results: &[f64]) -> (f64, f64) {
    let n = results.len() as f64;
    if n == 0.0 {
        return (0.0, 0.0);
    }
    let mean = results.iter().sum::<f64>() / n;
    let var = results.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / n;
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
    a: Level,
    b: Level,
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
        while !game.is_over() && game.turns().len() < MAX_PLIES && !game.can_claim_draw() {
            let (level, searcher) = if game.side_to_move() == a_color {
                (a, &mut sa)
            } else {
                (b, &mut sb)
            };
            let Some(mv) = level.choose(searcher, game.position(), movetime, &mut seed) else {
                break;
            };
            game.play(mv)
                .map_err(|e| format!("{} chose an illegal move: {e}", level.name()))?;
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
