//! Challenges as stored: made, then ended once (accepted, declined, withdrawn or expired) by a
//! statement that finds it still pending, so that two answers at once cannot both take it.

use super::rows::{choice_text, ms, unms};
use super::{Result, Store, StoreError};
use khet_protocol::{CHALLENGE_LIFETIME_MS, ChallengeStatus, ClockSpec, SeatChoice};
use sqlx::Row;
use sqlx::any::AnyRow;

/// A challenge as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChallengeRow {
    /// Its id, its key.
    pub id: String,
    /// The challenger's player id.
    pub challenger: String,
    /// The challenged player's id.
    pub challenged: String,
    /// The setup's name.
    pub setup: String,
    /// The time control.
    pub clock: Option<ClockSpec>,
    /// Days a move, for a correspondence game.
    pub days_per_move: Option<u32>,
    /// The challenger's side.
    pub color: SeatChoice,
    /// Rated or casual.
    pub rated: bool,
    /// The finished game this is a rematch of.
    pub rematch_of: Option<String>,
    /// What became of it.
    pub status: ChallengeStatus,
    /// The game an accept created.
    pub game: Option<String>,
    /// When it was made (Unix milliseconds).
    pub created_ms: u64,
}

fn status_text(status: ChallengeStatus) -> &'static str {
    match status {
        ChallengeStatus::Pending => "pending",
        ChallengeStatus::Accepted => "accepted",
        ChallengeStatus::Declined => "declined",
        ChallengeStatus::Withdrawn => "withdrawn",
        ChallengeStatus::Expired => "expired",
    }
}

impl ChallengeRow {
    fn from_row(row: &AnyRow) -> Result<ChallengeRow> {
        let bad = |what: &str| StoreError::Corrupt(format!("a stored challenge has a bad {what}"));
        let status = match row.try_get::<String, _>("status")?.as_str() {
            "pending" => ChallengeStatus::Pending,
            "accepted" => ChallengeStatus::Accepted,
            "declined" => ChallengeStatus::Declined,
            "withdrawn" => ChallengeStatus::Withdrawn,
            "expired" => ChallengeStatus::Expired,
            _ => return Err(bad("status")),
        };
        let initial: Option<i64> = row.try_get("initial_ms")?;
        let increment: Option<i64> = row.try_get("increment_ms")?;
        let color: String = row.try_get("color")?;
        Ok(ChallengeRow {
            id: row.try_get("id")?,
            challenger: row.try_get("challenger")?,
            challenged: row.try_get("challenged")?,
            setup: row.try_get("setup")?,
            clock: initial.map(|i| ClockSpec {
                initial_ms: unms(i),
                increment_ms: unms(increment.unwrap_or(0)),
            }),
            days_per_move: row
                .try_get::<Option<i64>, _>("days_per_move")?
                .map(|d| u32::try_from(d).map_err(|_| bad("number of days")))
                .transpose()?,
            color: color.parse().map_err(|_| bad("colour"))?,
            rated: row.try_get::<i64, _>("rated")? != 0,
            rematch_of: row.try_get("rematch_of")?,
            status,
            game: row.try_get("game")?,
            created_ms: unms(row.try_get("created_ms")?),
        })
    }
}

/// The oldest a pending challenge may have been made at `now_ms` and still wait.
fn oldest_pending(now_ms: u64) -> i64 {
    ms(now_ms.saturating_sub(CHALLENGE_LIFETIME_MS))
}

impl Store {
    /// A new challenge.
    pub async fn insert_challenge(&self, c: &ChallengeRow) -> Result<()> {
        sqlx::query(
            "INSERT INTO challenges (id, challenger, challenged, setup, initial_ms, increment_ms, \
             color, rated, rematch_of, status, game, created_ms, days_per_move) VALUES ($1, $2, \
             $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
        )
        .bind(&c.id)
        .bind(&c.challenger)
        .bind(&c.challenged)
        .bind(&c.setup)
        .bind(c.clock.map(|k| ms(k.initial_ms)))
        .bind(c.clock.map(|k| ms(k.increment_ms)))
        .bind(choice_text(c.color))
        .bind(i64::from(c.rated))
        .bind(&c.rematch_of)
        .bind(status_text(c.status))
        .bind(&c.game)
        .bind(ms(c.created_ms))
        .bind(c.days_per_move.map(i64::from))
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Challenge `id`.
    pub async fn challenge(&self, id: &str) -> Result<Option<ChallengeRow>> {
        let row = sqlx::query("SELECT * FROM challenges WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(ChallengeRow::from_row).transpose()
    }

    /// Player `id`'s challenges still waiting at `now_ms`, made and received, oldest first (at
    /// most a hundred: what one screen shows). Those past their time are marked expired first.
    pub async fn pending_challenges(&self, id: &str, now_ms: u64) -> Result<Vec<ChallengeRow>> {
        sqlx::query(
            "UPDATE challenges SET status = 'expired', ended_ms = $1 WHERE status = 'pending' \
             AND created_ms < $2 AND (challenger = $3 OR challenged = $3)",
        )
        .bind(ms(now_ms))
        .bind(oldest_pending(now_ms))
        .bind(id)
        .execute(&self.pool)
        .await?;
        let rows = sqlx::query(
            "SELECT * FROM challenges WHERE status = 'pending' AND (challenger = $1 OR \
             challenged = $1) ORDER BY created_ms LIMIT 100",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(ChallengeRow::from_row).collect()
    }

    /// Ends pending challenge `id` as `status` at `now_ms`; whether it was pending (and not
    /// past its time), so that of two answers at once only one takes it.
    pub async fn end_challenge(
        &self,
        id: &str,
        status: ChallengeStatus,
        now_ms: u64,
    ) -> Result<bool> {
        let done = sqlx::query(
            "UPDATE challenges SET status = $1, ended_ms = $2 WHERE id = $3 AND status = \
             'pending' AND created_ms >= $4",
        )
        .bind(status_text(status))
        .bind(ms(now_ms))
        .bind(id)
        .bind(oldest_pending(now_ms))
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// Marks every pending challenge past its time at `now_ms` expired: those it marked.
    pub async fn expire_challenges(&self, now_ms: u64) -> Result<Vec<ChallengeRow>> {
        let rows = sqlx::query(
            "UPDATE challenges SET status = 'expired', ended_ms = $1 WHERE status = 'pending' \
             AND created_ms < $2 RETURNING *",
        )
        .bind(ms(now_ms))
        .bind(oldest_pending(now_ms))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(ChallengeRow::from_row).collect()
    }

    /// The game accepted challenge `id` created.
    pub async fn set_challenge_game(&self, id: &str, game: &str) -> Result<()> {
        sqlx::query("UPDATE challenges SET game = $1 WHERE id = $2")
            .bind(game)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Challenge `id`, accepted but without a game (its creation failed), waits again.
    pub async fn reopen_challenge(&self, id: &str) -> Result<()> {
        sqlx::query(
            "UPDATE challenges SET status = 'pending', ended_ms = NULL WHERE id = $1 AND status \
             = 'accepted' AND game IS NULL",
        )
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}
