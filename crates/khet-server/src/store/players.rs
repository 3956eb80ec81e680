//! What a player's page shows: their listed games, newest first, and their rating after each
//! rated game; and what their own list of games shows them.

use super::rows::unms;
use super::{GameRow, PublicGame, Result, Store};
use sqlx::Row;

/// A player's rating after a rated game.
pub struct RatingPoint {
    /// The game.
    pub code: String,
    /// When it ended (Unix milliseconds).
    pub at_ms: u64,
    /// The rating then.
    pub rating: f64,
}

impl Store {
    /// Player `id`'s listed games (an unlisted game's code is its secret), newest first, at
    /// most `limit`.
    pub async fn games_of(&self, id: &str, limit: u32) -> Result<Vec<PublicGame>> {
        let rows = sqlx::query(
            "SELECT g.*, s.name AS silver_name, r.name AS red_name, (SELECT COUNT(*) FROM moves \
             m WHERE m.code = g.code) AS plies FROM games g LEFT JOIN players s ON s.id = \
             g.silver_player LEFT JOIN players r ON r.id = g.red_player WHERE (g.silver_player = \
             $1 OR g.red_player = $1) AND g.listed = 1 AND g.status <> 'open' ORDER BY \
             g.created_ms DESC LIMIT $2",
        )
        .bind(id)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(super::public_game).collect()
    }

    /// Player `id`'s games not over (waiting for an opponent or being played), listed or not,
    /// each with its number of moves, newest first, at most `limit`.
    pub async fn unfinished_of(&self, id: &str, limit: u32) -> Result<Vec<(GameRow, u64)>> {
        let rows = sqlx::query(
            "SELECT g.*, (SELECT COUNT(*) FROM moves m WHERE m.code = g.code) AS plies FROM \
             games g WHERE (g.silver_player = $1 OR g.red_player = $1) AND g.status <> 'over' \
             ORDER BY g.created_ms DESC LIMIT $2",
        )
        .bind(id)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(super::game_and_plies).collect()
    }

    /// Player `id`'s rating after each of their rated games, oldest first.
    pub async fn rating_history(&self, id: &str) -> Result<Vec<RatingPoint>> {
        let rows = sqlx::query(
            "SELECT code, at_ms, rating FROM rating_history WHERE player = $1 ORDER BY at_ms, \
             code",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|r| {
                Ok(RatingPoint {
                    code: r.try_get("code")?,
                    at_ms: unms(r.try_get("at_ms")?),
                    rating: r.try_get("rating")?,
                })
            })
            .collect()
    }

    /// The tournaments player `id` is in (of the newest `limit`), newest first.
    pub async fn tournaments_of(&self, id: &str, limit: u32) -> Result<Vec<super::TournamentRow>> {
        let all = self.tournaments(limit).await?;
        Ok(all
            .into_iter()
            .filter(|t| t.state.players.iter().any(|e| e.id.0 == id))
            .collect())
    }
}
