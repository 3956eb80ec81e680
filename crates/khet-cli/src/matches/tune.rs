//! Self-play tuning of the evaluation's weights.

use super::sprt::elo;
use super::starts::SETUPS;
use super::{LIMITS, finished};
use crate::out::{Failure, Out};
use khet_engine::eval::Weights;
use khet_engine::{Color, Game, GameResult, Limits, Position, Rng, Searcher, Setup};
use std::io::Write;

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
    sa.options.weights = a;
    sb.options.weights = b;
    sa.options.draw_limits = LIMITS;
    sb.options.draw_limits = LIMITS;
    while !finished(&game) {
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
