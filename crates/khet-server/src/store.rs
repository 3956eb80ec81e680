//! Where the server keeps its games and players: SQLite by default, through sqlx's `Any` driver so
//! that the same queries and migrations serve PostgreSQL. Every change a player is told about is
//! committed here first; each change is one transaction.

use khet_engine::{Color, GameResult};
use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::{AnyPool, Row};
use std::borrow::Cow;
use std::fmt;
use std::path::Path;

/// The schema's steps, built into the program.
const MIGRATIONS: [(i64, &str, &str); 9] = [
    (1, "games", include_str!("../migrations/0001_games.sql")),
    (2, "leases", include_str!("../migrations/0002_leases.sql")),
    (
        3,
        "operator",
        include_str!("../migrations/0003_operator.sql"),
    ),
    (
        4,
        "identities",
        include_str!("../migrations/0004_identities.sql"),
    ),
    (5, "lists", include_str!("../migrations/0005_lists.sql")),
    (
        6,
        "tournaments",
        include_str!("../migrations/0006_tournaments.sql"),
    ),
    (
        7,
        "challenges",
        include_str!("../migrations/0007_challenges.sql"),
    ),
    (
        8,
        "rating history",
        include_str!("../migrations/0008_rating_history.sql"),
    ),
    (
        9,
        "correspondence",
        include_str!("../migrations/0009_correspondence.sql"),
    ),
];

/// The newest schema this server knows: a database brought further by a newer server is not
/// one it can restore.
pub const SCHEMA_VERSION: i64 = MIGRATIONS[MIGRATIONS.len() - 1].0;

/// How long a statement waits for a connection to the database before it fails (the player is
/// refused, nothing changed).
const ACQUIRE_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The built-in database's file in its data folder.
pub const DATABASE_FILE: &str = "khet-server.sqlite3";

/// A failure of the store or of what the server needs beside it, for the log and for a
/// [`khet_protocol::Refusal::Storage`]; its kind says what failed.
#[derive(Debug)]
pub enum StoreError {
    /// The database failed a statement, or could not be opened or brought up to date.
    Database(String),
    /// A write named a lease another node has taken since: this node no longer owns the game,
    /// and must write nothing more.
    Fenced,
    /// A stored game does not read back (a bad status, result, colour, start or moves), or a
    /// result does not write out.
    Corrupt(String),
    /// The broker (Redis), or a game owned by another node with no broker to reach it.
    Broker(String),
    /// The system: the database's folder, random numbers, the listening socket.
    System(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match self {
            StoreError::Fenced => "this node no longer owns the game",
            StoreError::Database(why)
            | StoreError::Corrupt(why)
            | StoreError::Broker(why)
            | StoreError::System(why) => why,
        };
        write!(f, "storage: {why}")
    }
}

impl std::error::Error for StoreError {}

impl StoreError {
    /// Whether the write was refused because the game's lease was taken over.
    pub fn is_fenced(&self) -> bool {
        matches!(self, StoreError::Fenced)
    }
}

/// Whether a fenced statement found its game with the lease it named.
fn fenced(done: &sqlx::any::AnyQueryResult) -> Result<()> {
    if done.rows_affected() == 1 {
        Ok(())
    } else {
        Err(StoreError::Fenced)
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> StoreError {
        StoreError::Database(e.to_string())
    }
}

impl From<sqlx::migrate::MigrateError> for StoreError {
    fn from(e: sqlx::migrate::MigrateError) -> StoreError {
        StoreError::Database(e.to_string())
    }
}

type Result<T> = std::result::Result<T, StoreError>;

mod challenges;
mod players;
mod rows;
mod tournaments;
pub use challenges::ChallengeRow;
pub use players::RatingPoint;
pub use rows::{GameRow, Lease, PairCap, PlayerRow, PublicGame, RatingChange, Standing};
use rows::{choice_text, ms, status_text, unms};
pub use tournaments::{TournamentRow, TournamentStep};

/// Both clocks, the event number and the turn's start (`now_ms`) of game `code`, in a
/// transaction, if lease `token` still holds it. Made first in each transaction, so that
/// PostgreSQL locks the game's row against a takeover until the commit.
async fn set_clocks(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    code: &str,
    token: i64,
    clocks_ms: [u64; 2],
    event: u64,
    now_ms: u64,
) -> Result<()> {
    let done = sqlx::query(
        "UPDATE games SET silver_ms = $1, red_ms = $2, event = $3, turn_ms = $4 WHERE code = \
         $5 AND lease_token = $6",
    )
    .bind(ms(clocks_ms[0]))
    .bind(ms(clocks_ms[1]))
    .bind(ms(event))
    .bind(ms(now_ms))
    .bind(code)
    .bind(token)
    .execute(&mut **tx)
    .await?;
    fenced(&done)
}

/// Inserts game `g` through `executor` (the pool, or a transaction that makes games with
/// something else).
async fn insert_game<'e, E: sqlx::Executor<'e, Database = sqlx::Any>>(
    executor: E,
    g: &GameRow,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO games (code, setup, start, rated, listed, initial_ms, increment_ms, \
         creator_choice, silver_player, red_player, silver_secret, red_secret, status, \
         result, silver_ms, red_ms, event, created_ms, started_ms, ended_ms, owner, \
         lease_token, lease_until_ms, tournament, days_per_move, turn_ms) VALUES ($1, $2, $3, \
         $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, NULL, $14, $15, $16, $17, $18, NULL, $19, \
         $20, $21, $22, $23, $24)",
    )
    .bind(&g.code)
    .bind(&g.setup)
    .bind(&g.start)
    .bind(i64::from(g.rated))
    .bind(i64::from(g.listed))
    .bind(g.clock.map(|c| ms(c.initial_ms)))
    .bind(g.clock.map(|c| ms(c.increment_ms)))
    .bind(choice_text(g.creator_choice))
    .bind(g.players[0].clone())
    .bind(g.players[1].clone())
    .bind(g.secrets[0].clone())
    .bind(g.secrets[1].clone())
    .bind(status_text(g.status))
    .bind(ms(g.clocks_ms[0]))
    .bind(ms(g.clocks_ms[1]))
    .bind(ms(g.event))
    .bind(ms(g.created_ms))
    .bind(g.started_ms.map(ms))
    .bind(g.lease.owner.clone())
    .bind(g.lease.token)
    .bind(ms(g.lease.until_ms))
    .bind(g.tournament.clone())
    .bind(g.days_per_move.map(i64::from))
    .bind(g.turn_ms.map(ms))
    .execute(executor)
    .await?;
    Ok(())
}

/// A game and its number of moves (`plies`) from its row.
fn game_and_plies(r: &AnyRow) -> Result<(GameRow, u64)> {
    Ok((GameRow::from_row(r)?, unms(r.try_get("plies")?)))
}

/// A game of a public list from its row (the game's columns, both names and its plies).
fn public_game(r: &AnyRow) -> Result<PublicGame> {
    Ok(PublicGame {
        game: GameRow::from_row(r)?,
        names: [r.try_get("silver_name")?, r.try_get("red_name")?],
        plies: unms(r.try_get("plies")?),
    })
}

/// Column `name` of every row, as text.
fn texts(rows: &[AnyRow], name: &str) -> Result<Vec<String>> {
    rows.iter()
        .map(|r| r.try_get::<String, _>(name).map_err(StoreError::from))
        .collect()
}

/// The database.
#[derive(Clone)]
pub struct Store {
    pool: AnyPool,
}

/// `sqlite://` and `file`, percent-encoded, and `mode`: for the `Any` driver, which takes only a
/// URL. Every byte but the unreserved ones and `/` is encoded, so `?`, `#`, `%` and spaces in a
/// folder's name stay part of the path; a name that is not UTF-8 is refused by the driver (a
/// lossy name would open another file).
pub fn sqlite_url(file: &Path, mode: &str) -> String {
    #[cfg(unix)]
    let bytes = std::os::unix::ffi::OsStrExt::as_bytes(file.as_os_str()).to_vec();
    // Windows' paths are UTF-16: one that is not Unicode keeps a replacement character, which
    // names no file, so the driver refuses it as on Unix. `\` is written as `/`, which SQLite
    // takes there too.
    #[cfg(not(unix))]
    let bytes = file.to_string_lossy().replace('\\', "/").into_bytes();
    let mut url = String::from("sqlite://");
    for &b in &bytes {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            url.push(char::from(b));
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url.push_str("?mode=");
    url.push_str(mode);
    url
}

impl Store {
    /// Opens (creating if needed) the SQLite database in `dir` and brings its schema up to date.
    pub async fn open_folder(dir: &Path) -> Result<Store> {
        std::fs::create_dir_all(dir)
            .map_err(|e| StoreError::System(format!("{}: {e}", dir.display())))?;
        let file = dir.join(DATABASE_FILE);
        Store::open(&sqlite_url(&file, "rwc")).await
    }

    /// Opens the database at `url` (`sqlite://…` or `postgres://…`).
    pub async fn open(url: &str) -> Result<Store> {
        sqlx::any::install_default_drivers();
        let pool = AnyPoolOptions::new()
            .max_connections(8)
            // A database that is down refuses a move within this, not sqlx's default 30 s.
            .acquire_timeout(ACQUIRE_WAIT)
            .after_connect(|conn, _| {
                Box::pin(async move {
                    if conn.backend_name().eq_ignore_ascii_case("sqlite") {
                        // WAL lets readers (the lists, the records) run beside the one writer;
                        // FULL makes each commit durable before the player is told.
                        for pragma in [
                            "PRAGMA journal_mode = WAL",
                            "PRAGMA synchronous = FULL",
                            "PRAGMA busy_timeout = 10000",
                            "PRAGMA foreign_keys = ON",
                        ] {
                            sqlx::query(pragma).execute(&mut *conn).await?;
                        }
                    }
                    Ok(())
                })
            })
            .connect(url)
            .await?;
        let migrations = MIGRATIONS
            .iter()
            .map(|&(version, name, sql)| {
                Migration::new(
                    version,
                    Cow::Borrowed(name),
                    MigrationType::Simple,
                    sqlx::SqlSafeStr::into_sql_str(sqlx::AssertSqlSafe(sql)),
                    false,
                )
            })
            .collect::<Vec<_>>();
        let migrator = Migrator {
            migrations: Cow::Owned(migrations),
            ..Migrator::DEFAULT
        };
        migrator.run(&pool).await?;
        Ok(Store { pool })
    }

    /// Whether the database answers a statement (`/readyz`).
    pub async fn ping(&self) -> Result<()> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    /// The player whose identity hashes to `hash`.
    pub async fn player_by_identity(&self, hash: &str) -> Result<Option<PlayerRow>> {
        let row = sqlx::query("SELECT * FROM players WHERE identity_hash = $1")
            .bind(hash)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(PlayerRow::from_row).transpose()
    }

    /// The player `id`.
    pub async fn player(&self, id: &str) -> Result<Option<PlayerRow>> {
        let row = sqlx::query("SELECT * FROM players WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(PlayerRow::from_row).transpose()
    }

    /// A new player.
    pub async fn insert_player(&self, player: &PlayerRow, hash: &str, now_ms: u64) -> Result<()> {
        sqlx::query(
            "INSERT INTO players (id, identity_hash, name, rating, deviation, volatility, games, \
             created_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(&player.id)
        .bind(hash)
        .bind(&player.name)
        .bind(player.rating.rating)
        .bind(player.rating.deviation)
        .bind(player.rating.volatility)
        .bind(player.games)
        .bind(ms(now_ms))
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// What the operator said of player `id` (`None`: no such player).
    pub async fn standing(&self, id: &str) -> Result<Option<Standing>> {
        let row = sqlx::query("SELECT named_by_operator, barred FROM players WHERE id = $1")
            .bind(id)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(Standing::from_row).transpose()
    }

    /// The operator names player `id` `name`, for good: the player's own name is not taken
    /// again. Whether there is such a player.
    pub async fn name_by_operator(&self, id: &str, name: &str) -> Result<bool> {
        let done = sqlx::query("UPDATE players SET name = $1, named_by_operator = 1 WHERE id = $2")
            .bind(name)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Bars player `id` (`Some(reason)`), or lets them back (`None`). Whether there is such a
    /// player.
    pub async fn bar(&self, id: &str, reason: Option<&str>) -> Result<bool> {
        let done = sqlx::query("UPDATE players SET barred = $1 WHERE id = $2")
            .bind(reason)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() > 0)
    }

    /// Every player, newest first, with what the operator said of each (at most `limit`).
    pub async fn players(&self, limit: u32) -> Result<Vec<(PlayerRow, Standing)>> {
        let rows = sqlx::query("SELECT * FROM players ORDER BY created_ms DESC LIMIT $1")
            .bind(i64::from(limit))
            .fetch_all(&self.pool)
            .await?;
        rows.iter()
            .map(|row| Ok((PlayerRow::from_row(row)?, Standing::from_row(row)?)))
            .collect()
    }

    /// The games not over in which player `id` has a seat: each code with the side.
    pub async fn seats_of(&self, id: &str) -> Result<Vec<(String, Color)>> {
        let rows = sqlx::query(
            "SELECT code, silver_player, red_player FROM games WHERE status <> 'over' \
             AND (silver_player = $1 OR red_player = $1) ORDER BY created_ms",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        rows.iter()
            .map(|row| {
                let silver: Option<String> = row.try_get("silver_player")?;
                let side = if silver.as_deref() == Some(id) {
                    Color::Silver
                } else {
                    Color::Red
                };
                Ok((row.try_get("code")?, side))
            })
            .collect()
    }

    /// A player's new display name.
    pub async fn rename(&self, id: &str, name: &str) -> Result<()> {
        sqlx::query("UPDATE players SET name = $1 WHERE id = $2")
            .bind(name)
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// A new game.
    pub async fn insert_game(&self, g: &GameRow) -> Result<()> {
        insert_game(&self.pool, g).await
    }

    /// The second player takes the free seat: the game starts. False if it was not open, or
    /// if `cap` is given and `player` has started that many rated games against its opponent
    /// since its time (the count made in the same statement, so that joins at once do not all
    /// pass it).
    pub async fn start_game(
        &self,
        code: &str,
        token: i64,
        player: &str,
        secret_hash: &str,
        event: u64,
        now_ms: u64,
        cap: Option<&PairCap>,
    ) -> Result<bool> {
        // Exactly one seat is free; COALESCE fills that one.
        let done = sqlx::query(
            "UPDATE games SET silver_player = COALESCE(silver_player, $1), red_player = \
             COALESCE(red_player, $1), silver_secret = COALESCE(silver_secret, $2), red_secret \
             = COALESCE(red_secret, $2), status = 'playing', event = $3, started_ms = $4, \
             turn_ms = $4 WHERE \
             code = $5 AND status = 'open' AND lease_token = $6 AND ($7 = 0 OR (SELECT \
             COUNT(*) FROM games p WHERE p.rated = 1 AND p.started_ms >= $8 AND \
             ((p.silver_player = $1 AND p.red_player = $9) OR (p.silver_player = $9 AND \
             p.red_player = $1))) < $7)",
        )
        .bind(player)
        .bind(secret_hash)
        .bind(ms(event))
        .bind(ms(now_ms))
        .bind(code)
        .bind(token)
        .bind(cap.map_or(0, |c| i64::from(c.games)))
        .bind(ms(cap.map_or(0, |c| c.since_ms)))
        .bind(cap.map_or("", |c| c.opponent.as_str()))
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected() == 1)
    }

    /// The rated games players `a` and `b` started against each other since `since_ms`.
    pub async fn rated_between(&self, a: &str, b: &str, since_ms: u64) -> Result<i64> {
        let n: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM games WHERE rated = 1 AND started_ms >= $1 AND \
             ((silver_player = $2 AND red_player = $3) OR (silver_player = $3 AND red_player = \
             $2))",
        )
        .bind(ms(since_ms))
        .bind(a)
        .bind(b)
        .fetch_one(&self.pool)
        .await?;
        Ok(n)
    }

    /// The games player `id` finished that count towards playing rated: its rated games, and
    /// its casual ones with a move from each side (0 for no such player).
    pub async fn finished_games(&self, id: &str) -> Result<i64> {
        let n: Option<i64> =
            sqlx::query_scalar("SELECT games + casual_games FROM players WHERE id = $1")
                .bind(id)
                .fetch_optional(&self.pool)
                .await?;
        Ok(n.unwrap_or(0))
    }

    /// Player `id` connected from `network` at `now_ms` (kept until [`Store::forget_networks`]).
    pub async fn seen_on(&self, id: &str, network: &str, now_ms: u64) -> Result<()> {
        sqlx::query(
            "INSERT INTO player_networks (player, network, last_ms) VALUES ($1, $2, $3) ON \
             CONFLICT (player, network) DO UPDATE SET last_ms = excluded.last_ms",
        )
        .bind(id)
        .bind(network)
        .bind(ms(now_ms))
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    /// Holds, until `until_ms`, every network player `id` connected from since `since_ms`: no
    /// new identity is made from them. How many.
    pub async fn hold_networks(&self, id: &str, since_ms: u64, until_ms: u64) -> Result<u64> {
        // SQLite reads `SELECT … ON CONFLICT` as a join unless the SELECT has a WHERE.
        let done = sqlx::query(
            "INSERT INTO held_networks (network, player, until_ms) SELECT network, player, $1 \
             FROM player_networks WHERE player = $2 AND last_ms >= $3 ON CONFLICT (network, \
             player) DO UPDATE SET until_ms = excluded.until_ms",
        )
        .bind(ms(until_ms))
        .bind(id)
        .bind(ms(since_ms))
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }

    /// Lets go of the networks held for player `id` (let back by the operator).
    pub async fn release_networks(&self, id: &str) -> Result<()> {
        sqlx::query("DELETE FROM held_networks WHERE player = $1")
            .bind(id)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Until when `network` is held at `now_ms`, if it is.
    pub async fn held_until(&self, network: &str, now_ms: u64) -> Result<Option<u64>> {
        let until: Option<i64> = sqlx::query_scalar(
            "SELECT MAX(until_ms) FROM held_networks WHERE network = $1 AND until_ms > $2",
        )
        .bind(network)
        .bind(ms(now_ms))
        .fetch_one(&self.pool)
        .await?;
        Ok(until.map(unms))
    }

    /// Deletes the networks players were seen on before `seen_before_ms`, and the holds that
    /// ran out by `now_ms`.
    pub async fn forget_networks(&self, seen_before_ms: u64, now_ms: u64) -> Result<()> {
        sqlx::query("DELETE FROM player_networks WHERE last_ms < $1")
            .bind(ms(seen_before_ms))
            .execute(&self.pool)
            .await?;
        sqlx::query("DELETE FROM held_networks WHERE until_ms <= $1")
            .bind(ms(now_ms))
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// A move, with both clocks after it and the event's number.
    pub async fn add_move(
        &self,
        code: &str,
        token: i64,
        ply: u32,
        mv: &str,
        clocks_ms: [u64; 2],
        event: u64,
        now_ms: u64,
    ) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        set_clocks(&mut tx, code, token, clocks_ms, event, now_ms).await?;
        sqlx::query(
            "INSERT INTO moves (code, ply, mv, silver_ms, red_ms, at_ms) VALUES ($1, $2, $3, $4, \
             $5, $6)",
        )
        .bind(code)
        .bind(i64::from(ply))
        .bind(mv)
        .bind(ms(clocks_ms[0]))
        .bind(ms(clocks_ms[1]))
        .bind(ms(now_ms))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Moves taken back at `now_ms`: `plies` remain.
    pub async fn take_back(
        &self,
        code: &str,
        token: i64,
        plies: u32,
        clocks_ms: [u64; 2],
        event: u64,
        now_ms: u64,
    ) -> Result<()> {
        let mut tx = self.pool.begin().await?;
        set_clocks(&mut tx, code, token, clocks_ms, event, now_ms).await?;
        sqlx::query("DELETE FROM moves WHERE code = $1 AND ply >= $2")
            .bind(code)
            .bind(i64::from(plies))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// An event that changes nothing else stored (a draw offer, a request).
    pub async fn set_event(&self, code: &str, token: i64, event: u64) -> Result<()> {
        let done = sqlx::query("UPDATE games SET event = $1 WHERE code = $2 AND lease_token = $3")
            .bind(ms(event))
            .bind(code)
            .bind(token)
            .execute(&self.pool)
            .await?;
        fenced(&done)
    }

    /// The end of a game, with both players' new ratings if it was rated, and the players whose
    /// casual games it counts as one more if it was casual.
    pub async fn finish(
        &self,
        code: &str,
        token: i64,
        result: GameResult,
        clocks_ms: [u64; 2],
        event: u64,
        now_ms: u64,
        ratings: &[RatingChange],
        casual: &[String],
    ) -> Result<()> {
        let json =
            serde_json::to_string(&result).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let mut tx = self.pool.begin().await?;
        let done = sqlx::query(
            "UPDATE games SET status = 'over', result = $1, silver_ms = $2, red_ms = $3, event = \
             $4, ended_ms = $5, owner = NULL, lease_until_ms = 0 WHERE code = $6 AND lease_token \
             = $7",
        )
        .bind(json)
        .bind(ms(clocks_ms[0]))
        .bind(ms(clocks_ms[1]))
        .bind(ms(event))
        .bind(ms(now_ms))
        .bind(code)
        .bind(token)
        .execute(&mut *tx)
        .await?;
        fenced(&done)?;
        for change in ratings {
            sqlx::query(
                "UPDATE players SET rating = $1, deviation = $2, volatility = $3, games = games + \
                 1 WHERE id = $4",
            )
            .bind(change.rating.rating)
            .bind(change.rating.deviation)
            .bind(change.rating.volatility)
            .bind(&change.id)
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "INSERT INTO rating_history (player, code, rating, deviation, at_ms) VALUES ($1, \
                 $2, $3, $4, $5)",
            )
            .bind(&change.id)
            .bind(code)
            .bind(change.rating.rating)
            .bind(change.rating.deviation)
            .bind(ms(now_ms))
            .execute(&mut *tx)
            .await?;
        }
        for id in casual {
            sqlx::query("UPDATE players SET casual_games = casual_games + 1 WHERE id = $1")
                .bind(id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// An open game withdrawn by its creator.
    pub async fn delete_open(&self, code: &str, token: i64) -> Result<()> {
        sqlx::query("DELETE FROM games WHERE code = $1 AND status = 'open' AND lease_token = $2")
            .bind(code)
            .bind(token)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Takes the lease of game `code` for `node` until `until_ms`: if nobody holds it, `node`
    /// does already, it ran out before `now_ms`, or `force` (one node alone on its database).
    /// Returns the new token, or `None` if another node holds it (or the game is over or gone).
    pub async fn acquire(
        &self,
        code: &str,
        node: &str,
        now_ms: u64,
        until_ms: u64,
        force: bool,
    ) -> Result<Option<i64>> {
        let row = sqlx::query(
            "UPDATE games SET owner = $1, lease_token = lease_token + 1, lease_until_ms = $2 \
             WHERE code = $3 AND status <> 'over' AND (owner IS NULL OR owner = $1 OR \
             lease_until_ms < $4 OR $5 = 1) RETURNING lease_token",
        )
        .bind(node)
        .bind(ms(until_ms))
        .bind(code)
        .bind(ms(now_ms))
        .bind(i64::from(force))
        .fetch_optional(&self.pool)
        .await?;
        row.map(|r| r.try_get::<i64, _>("lease_token"))
            .transpose()
            .map_err(StoreError::from)
    }

    /// Extends every lease `node` holds to `until_ms`: the games it still owns.
    pub async fn renew(&self, node: &str, until_ms: u64) -> Result<Vec<String>> {
        let rows = sqlx::query(
            "UPDATE games SET lease_until_ms = $1 WHERE owner = $2 AND status <> 'over' \
             RETURNING code",
        )
        .bind(ms(until_ms))
        .bind(node)
        .fetch_all(&self.pool)
        .await?;
        texts(&rows, "code")
    }

    /// Gives up every lease `node` holds (at a clean shutdown, so that others take its games up
    /// at once).
    pub async fn release_all(&self, node: &str) -> Result<()> {
        sqlx::query("UPDATE games SET owner = NULL, lease_until_ms = 0 WHERE owner = $1")
            .bind(node)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The games not over whose lease nobody holds at `now_ms` (their node stopped or died),
    /// or that `node` holds (from before it restarted): at most `limit`, the newest first (the
    /// rest at the next look).
    pub async fn orphans(&self, now_ms: u64, node: &str, limit: u32) -> Result<Vec<String>> {
        let rows = sqlx::query(
            "SELECT code FROM games WHERE status <> 'over' AND (owner IS NULL OR lease_until_ms \
             < $1 OR owner = $2) ORDER BY created_ms DESC LIMIT $3",
        )
        .bind(ms(now_ms))
        .bind(node)
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        texts(&rows, "code")
    }

    /// The game `code`.
    pub async fn game(&self, code: &str) -> Result<Option<GameRow>> {
        let row = sqlx::query("SELECT * FROM games WHERE code = $1")
            .bind(code)
            .fetch_optional(&self.pool)
            .await?;
        row.as_ref().map(GameRow::from_row).transpose()
    }

    /// The moves of game `code`, in order.
    pub async fn moves(&self, code: &str) -> Result<Vec<String>> {
        let rows = sqlx::query("SELECT mv FROM moves WHERE code = $1 ORDER BY ply")
            .bind(code)
            .fetch_all(&self.pool)
            .await?;
        texts(&rows, "mv")
    }

    /// The games not over (to take up again when the server starts), at most `limit`, the
    /// newest first: the rest are loaded when a player comes back to one.
    pub async fn unfinished(&self, limit: u32) -> Result<Vec<String>> {
        let rows = sqlx::query(
            "SELECT code FROM games WHERE status <> 'over' ORDER BY created_ms DESC LIMIT $1",
        )
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        texts(&rows, "code")
    }

    /// Withdraws (deletes, as its creator would) every open game created before `before_ms`
    /// that no node holds at `now_ms`, or that `mine` held before it restarted: nobody waits
    /// for it any more. A correspondence game waits its days a move, with or without its
    /// creator. How many.
    pub async fn withdraw_overdue(
        &self,
        before_ms: u64,
        now_ms: u64,
        mine: Option<&str>,
    ) -> Result<u64> {
        let done = sqlx::query(
            "DELETE FROM games WHERE status = 'open' AND created_ms < $1 AND (days_per_move IS \
             NULL OR created_ms + days_per_move * 86400000 < $2) AND (owner IS NULL OR \
             lease_until_ms < $2 OR owner = $3)",
        )
        .bind(ms(before_ms))
        .bind(ms(now_ms))
        .bind(mine)
        .execute(&self.pool)
        .await?;
        Ok(done.rows_affected())
    }

    /// The newest listed games being played or over, with their players' names and number of
    /// moves, in one statement: what anyone may see (an unlisted game's code is its secret, and
    /// an open game is shown by the lobby, while its creator waits).
    pub async fn public_games(&self, limit: u32) -> Result<Vec<PublicGame>> {
        let rows = sqlx::query(
            "SELECT g.*, s.name AS silver_name, r.name AS red_name, (SELECT COUNT(*) FROM moves \
             m WHERE m.code = g.code) AS plies FROM games g LEFT JOIN players s ON s.id = \
             g.silver_player LEFT JOIN players r ON r.id = g.red_player WHERE g.listed = 1 AND \
             g.status <> 'open' ORDER BY g.created_ms DESC LIMIT $1",
        )
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(public_game).collect()
    }

    /// The newest games, unlisted ones too (for the operator's eyes only: see
    /// [`Store::public_games`]), with their number of moves.
    pub async fn recent_games(&self, limit: u32) -> Result<Vec<(GameRow, u64)>> {
        let rows = sqlx::query(
            "SELECT g.*, (SELECT COUNT(*) FROM moves m WHERE m.code = g.code) AS plies FROM games \
             g ORDER BY g.created_ms DESC LIMIT $1",
        )
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(game_and_plies).collect()
    }

    /// The players with rated games, best first.
    pub async fn leaderboard(&self, limit: u32) -> Result<Vec<PlayerRow>> {
        let rows = sqlx::query(
            "SELECT * FROM players WHERE games > 0 ORDER BY rating DESC, games DESC LIMIT $1",
        )
        .bind(i64::from(limit))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(PlayerRow::from_row).collect()
    }

    /// Closes the pool (at shutdown, so that SQLite checkpoints its log).
    pub async fn close(&self) {
        self.pool.close().await;
    }
}
