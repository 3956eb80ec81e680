//! Glicko-2 ratings (Glickman's system, as lichess rates): every player starts at 1500 with a
//! deviation of 350 and a volatility of 0.06 (the paper's values); a rating is shown as
//! provisional while its deviation is above 110. Each rated game updates both players at once.

use crate::store::{PlayerRow, RatingChange};
use khet_engine::{Color, GameResult};
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2};

/// A new player's rating.
pub fn initial() -> Glicko2Rating {
    Glicko2Rating::new()
}

/// Both players' new ratings after a rated game.
pub fn after(silver: &PlayerRow, red: &PlayerRow, result: GameResult) -> Vec<RatingChange> {
    let outcome = match result {
        GameResult::Win {
            winner: Color::Silver,
            ..
        } => Outcomes::WIN,
        GameResult::Win { .. } => Outcomes::LOSS,
        GameResult::Draw { .. } => Outcomes::DRAW,
    };
    let (s, r) = glicko2(
        &silver.rating,
        &red.rating,
        &outcome,
        &Glicko2Config::default(),
    );
    vec![
        RatingChange {
            id: silver.id.clone(),
            rating: s,
        },
        RatingChange {
            id: red.id.clone(),
            rating: r,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use khet_engine::WinReason;

    fn player(id: &str, rating: f64) -> PlayerRow {
        PlayerRow {
            id: id.into(),
            name: id.into(),
            rating: Glicko2Rating {
                rating,
                ..initial()
            },
            games: 0,
        }
    }

    #[test]
    fn the_winner_gains_what_the_loser_loses_between_equals() {
        let win = GameResult::Win {
            winner: Color::Red,
            reason: WinReason::PharaohHit,
        };
        let changes = after(&player("a", 1500.0), &player("b", 1500.0), win);
        let (silver, red) = (changes[0].rating, changes[1].rating);
        assert!(
            red.rating > 1600.0 && silver.rating < 1400.0,
            "{silver:?} {red:?}"
        );
        assert!((red.rating - 1500.0 - (1500.0 - silver.rating)).abs() < 1e-6);
        assert!(red.deviation < 350.0, "a game makes a rating surer");
        let draw = GameResult::Draw {
            reason: khet_engine::DrawReason::Agreement,
        };
        let changes = after(&player("a", 1700.0), &player("b", 1500.0), draw);
        assert!(changes[0].rating.rating < 1700.0 && changes[1].rating.rating > 1500.0);
    }
}
