//! Tournaments in the store: each a row with its settings and its rules state (one JSON
//! document, `tournament::Tournament`), changed only by a step that names the version it read,
//! in one transaction with the games its pairings made.

use super::rows::{ms, unms};
use super::{GameRow, Result, Store, StoreError};
use crate::tournament::Tournament;
use khet_protocol::{ClockSpec, TournamentKind, TournamentStatus};
use sqlx::Row;
use sqlx::any::AnyRow;

/// A tournament as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct TournamentRow {
    /// Its code.
    pub code: String,
    /// Its name.
    pub name: String,
    /// Its kind and length.
    pub kind: TournamentKind,
    /// Every game's setup.
    pub setup: String,
    /// Every game's clock.
    pub clock: ClockSpec,
    /// Rated games.
    pub rated: bool,
    /// On the public list.
    pub listed: bool,
    /// Where it is.
    pub status: TournamentStatus,
    /// The player who created it (none: the operator).
    pub creator: Option<String>,
    /// Unix milliseconds.
    pub created_ms: u64,
    /// When it starts by itself, or started.
    pub starts_ms: Option<u64>,
    /// When an arena ends.
    pub ends_ms: Option<u64>,
    /// The rules' state: players, rounds, pairings, results.
    pub state: Tournament,
    /// The version of `state` read (each step adds one).
    pub version: i64,
}

/// What one step of a tournament writes: its new state, and the games its new pairings made
/// (inserted in the same transaction, so that a step that loses to another node's leaves none).
pub struct TournamentStep {
    /// Where it is now.
    pub status: TournamentStatus,
    /// When it started (set by the step that starts it).
    pub starts_ms: Option<u64>,
    /// When an arena ends.
    pub ends_ms: Option<u64>,
    /// The new state.
    pub state: Tournament,
    /// The new games.
    pub games: Vec<GameRow>,
}

fn status_name(status: TournamentStatus) -> &'static str {
    match status {
        TournamentStatus::Created => "created",
        TournamentStatus::Running => "running",
        TournamentStatus::Paused => "paused",
        TournamentStatus::Finished => "finished",
    }
}

impl TournamentRow {
    fn from_row(row: &AnyRow) -> Result<TournamentRow> {
        let bad = |what: &str| StoreError::Corrupt(format!("a stored tournament has a bad {what}"));
        let status = match row.try_get::<String, _>("status")?.as_str() {
            "created" => TournamentStatus::Created,
            "running" => TournamentStatus::Running,
            "paused" => TournamentStatus::Paused,
            "finished" => TournamentStatus::Finished,
            _ => return Err(bad("status")),
        };
        let kind: String = row.try_get("kind")?;
        let state: String = row.try_get("state")?;
        Ok(TournamentRow {
            code: row.try_get("code")?,
            name: row.try_get("name")?,
            kind: serde_json::from_str(&kind).map_err(|_| bad("kind"))?,
            setup: row.try_get("setup")?,
            clock: ClockSpec {
                initial_ms: unms(row.try_get("initial_ms")?),
                increment_ms: unms(row.try_get("increment_ms")?),
            },
            rated: row.try_get::<i64, _>("rated")? != 0,
            listed: row.try_get::<i64, _>("listed")? != 0,
            status,
            creator: row.try_get("creator")?,
            created_ms: unms(row.try_get("created_ms")?),
            starts_ms: row.try_get::<Option<i64>, _>("starts_ms")?.map(unms),
            ends_ms: row.try_get::<Option<i64>, _>("ends_ms")?.map(unms),
            state: serde_json::from_str(&state).map_err(|e| bad(&format!("state ({e})")))?,
            version: row.try_get("version")?,
        })
    }
}

fn json<T: serde::Serialize>(value: &T) -> Result<String> {
    serde_json::to_string(value).map_err(|e| StoreError::Corrupt(e.to_string()))
}

impl Store {
    /// A new tournament.
    pub async fn insert_tournament(&self, t: &TournamentRow) -> Result<()> {
        sqlx::query(
            "INSERT INTO tournaments (code, name, kind, setup, initial_ms, increment_ms, rated, \
             listed, status, creator, created_ms, starts_ms, ends_ms, state, version) VALUES \
             ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
        )
        .bind(&t.code)
        .bind(&t.name)
        .bind(json(&t.kind)?)
        .bind(&t.setup)
        .bind(ms(t.clock.initial_ms))
        .bind(ms(t.clock.increment_ms))
        .bind(i64::from(t.rated))
        .bind(i64::from(t.listed))
        .bind(status_name(t.status))
        .bind(t.creator.clone())
        .bind(ms(t.created_ms))
        .bind(t.starts_ms.map(ms))
        .bind(t.ends_ms.map(ms))
        .bind(json(&t.state)?)
        .bind(t.version)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// How many tournaments player `id` created that are not over.
    pub async fn tournaments_created_by(&self, id: &str) -> Result<i64> {
        let n: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM tournaments WHERE creator = $1 AND status <> 'finished'",
        )
        .bind(id)
        .fetch_one(&self.pool)
        .await?;
        Ok(n)
    }

    /// Tournament `code`.
    pub async fn tournament(&self, code: &str) -> Result<Option<TournamentRow>> {
        let row = sqlx::query("SELECT * FROM tournaments WHERE code = $1")
            .bind(code)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(TournamentRow::from_row).transpose()
    }

    /// The listed tournaments, newest first, at most `limit`.
    pub async fn tournaments(&self, limit: u32) -> Result<Vec<TournamentRow>> {
        let rows = sqlx::query(
            "SELECT * FROM tournaments WHERE listed = 1 ORDER BY created_ms DESC LIMIT $1",
        )
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(TournamentRow::from_row).collect()
    }

    /// The codes of the tournaments a director looks at: running or paused (their games'
    /// results to record), and those created with a start time (to start when it comes).
    pub async fn tournaments_to_direct(&self) -> Result<Vec<String>> {
        let rows = sqlx::query(
            "SELECT code FROM tournaments WHERE status IN ('running', 'paused') OR (status = \
             'created' AND starts_ms IS NOT NULL) ORDER BY created_ms",
        )
        .fetch_all(&self.pool)
        .await?;
        super::texts(&rows, "code")
    }

    /// Writes a step of tournament `code` made from version `version`, with its new games, in
    /// one transaction: false (and nothing written) if another step wrote first.
    pub async fn step_tournament(
        &self,
        code: &str,
        version: i64,
        step: &TournamentStep,
    ) -> Result<bool> {
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query(
            "UPDATE tournaments SET status = $1, starts_ms = $2, ends_ms = $3, state = $4, \
             version = version + 1 WHERE code = $5 AND version = $6",
        )
        .bind(status_name(step.status))
        .bind(step.starts_ms.map(ms))
        .bind(step.ends_ms.map(ms))
        .bind(json(&step.state)?)
        .bind(code)
        .bind(version)
        .execute(&mut *tx)
        .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        for game in &step.games {
            super::insert_game(&mut *tx, game).await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    /// A tournament game's player takes its seat (reserved for them: its secret is theirs
    /// now, the seat's earlier one, from another device, no longer).
    pub async fn take_reserved_seat(
        &self,
        code: &str,
        token: i64,
        side: khet_engine::Color,
        secret_hash: &str,
    ) -> Result<()> {
        let sql = match side {
            khet_engine::Color::Silver => {
                "UPDATE games SET silver_secret = $1 WHERE code = $2 AND lease_token = $3"
            }
            khet_engine::Color::Red => {
                "UPDATE games SET red_secret = $1 WHERE code = $2 AND lease_token = $3"
            }
        };
        let done = sqlx::query(sql)
            .bind(secret_hash)
            .bind(code)
            .bind(token)
            .execute(&self.pool)
            .await?;
        super::fenced(&done)
    }
}
