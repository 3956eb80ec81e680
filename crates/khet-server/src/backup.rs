//! The operator's copies of the built-in database: `khet-server backup FILE` while the server
//! runs, `khet-server restore FILE` while it does not, and the data folder's lock that tells
//! which is which. (PostgreSQL is backed up with its own `pg_dump`: docs/server.md.)

use crate::store::DATABASE_FILE;
use sqlx::AnyConnection;
use sqlx::Connection;
use std::fs::File;
use std::path::{Path, PathBuf};

/// The file a running server holds locked in its data folder.
const LOCK_FILE: &str = "khet-server.lock";

/// Takes the lock of data folder `dir` (made if missing) for as long as the file is kept: one
/// server a folder, and no restore under a running server.
pub fn lock_folder(dir: &Path) -> Result<File, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(LOCK_FILE);
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(format!(
            "a khet-server is running on {}; stop it first",
            dir.display()
        )),
        Err(std::fs::TryLockError::Error(e)) => Err(format!("{}: {e}", path.display())),
    }
}

fn url(file: &Path, mode: &str) -> String {
    format!("sqlite://{}?mode={mode}", file.display())
}

/// What a copy holds, to say so: its games and players.
#[derive(Debug, PartialEq, Eq)]
pub struct Contents {
    /// Games stored, of any status.
    pub games: i64,
    /// Players known.
    pub players: i64,
}

/// Checks that `file` is a whole Khet database this server can open: SQLite's integrity check
/// passes, and its schema is not from a newer server. Says what it holds.
pub async fn check(file: &Path) -> Result<Contents, String> {
    let at = |e: sqlx::Error| format!("{}: {e}", file.display());
    if !file.is_file() {
        return Err(format!("{}: no such file", file.display()));
    }
    sqlx::any::install_default_drivers();
    let mut conn = AnyConnection::connect(&url(file, "ro")).await.map_err(at)?;
    let integrity: String = sqlx::query_scalar("PRAGMA integrity_check")
        .fetch_one(&mut conn)
        .await
        .map_err(|e| format!("{}: not an SQLite database ({e})", file.display()))?;
    if integrity != "ok" {
        return Err(format!("{}: damaged: {integrity}", file.display()));
    }
    let newest: Option<i64> = sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations")
        .fetch_one(&mut conn)
        .await
        .map_err(|_| format!("{}: not a khet-server database", file.display()))?;
    if newest.unwrap_or(0) > crate::store::SCHEMA_VERSION {
        return Err(format!(
            "{}: made by a newer khet-server (schema {}; this one knows {})",
            file.display(),
            newest.unwrap_or(0),
            crate::store::SCHEMA_VERSION
        ));
    }
    let count = |table: &'static str| format!("SELECT COUNT(*) FROM {table}");
    let games: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(count("games")))
        .fetch_one(&mut conn)
        .await
        .map_err(|_| format!("{}: not a khet-server database", file.display()))?;
    let players: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(count("players")))
        .fetch_one(&mut conn)
        .await
        .map_err(|_| format!("{}: not a khet-server database", file.display()))?;
    conn.close().await.map_err(at)?;
    Ok(Contents { games, players })
}

/// A temporary name beside `file`, unique to this process.
fn beside(file: &Path, what: &str) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{what}-{}", std::process::id()));
    file.with_file_name(name)
}

/// Copies the database of data folder `dir` to `to`, whole and consistent even while a server
/// writes to it (SQLite's `VACUUM INTO` reads one snapshot): written beside `to` and renamed
/// onto it once checked, so `to` is never half a copy.
pub async fn backup(dir: &Path, to: &Path) -> Result<Contents, String> {
    let db = dir.join(DATABASE_FILE);
    if !db.is_file() {
        return Err(format!("{}: no database here", dir.display()));
    }
    let partial = beside(to, "partial");
    let _ = std::fs::remove_file(&partial);
    sqlx::any::install_default_drivers();
    let copied = async {
        let mut conn = AnyConnection::connect(&url(&db, "ro"))
            .await
            .map_err(|e| format!("{}: {e}", db.display()))?;
        sqlx::query("PRAGMA busy_timeout = 10000")
            .execute(&mut conn)
            .await
            .map_err(|e| format!("{}: {e}", db.display()))?;
        sqlx::query("VACUUM INTO ?")
            .bind(partial.to_string_lossy().into_owned())
            .execute(&mut conn)
            .await
            .map_err(|e| format!("copying to {}: {e}", partial.display()))?;
        conn.close().await.map_err(|e| e.to_string())?;
        let contents = check(&partial).await?;
        File::open(&partial)
            .and_then(|f| f.sync_all())
            .map_err(|e| format!("{}: {e}", partial.display()))?;
        std::fs::rename(&partial, to).map_err(|e| format!("{}: {e}", to.display()))?;
        Ok(contents)
    }
    .await;
    if copied.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    copied
}

/// Puts backup `from` in place as the database of data folder `dir`, which no server may be
/// using. The database it replaces is kept beside it, renamed `….before-restore-SECONDS` (with
/// its write-ahead log), so a restore loses nothing.
pub async fn restore(dir: &Path, from: &Path) -> Result<(Contents, Option<PathBuf>), String> {
    let _lock = lock_folder(dir)?;
    let contents = check(from).await?;
    let db = dir.join(DATABASE_FILE);
    let incoming = beside(&db, "restoring");
    std::fs::copy(from, &incoming)
        .and_then(|_| File::open(&incoming)?.sync_all())
        .map_err(|e| format!("{}: {e}", incoming.display()))?;
    let kept = if db.exists() {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let old = beside_name(&db, &format!("before-restore-{secs}"));
        // The log and shared memory go with their database: a new database beside an old log
        // would be read as the old one's changes.
        for suffix in ["-wal", "-shm"] {
            let (from_side, to_side) = (with_suffix(&db, suffix), with_suffix(&old, suffix));
            if from_side.exists() {
                std::fs::rename(&from_side, &to_side)
                    .map_err(|e| format!("{}: {e}", from_side.display()))?;
            }
        }
        std::fs::rename(&db, &old).map_err(|e| format!("{}: {e}", db.display()))?;
        Some(old)
    } else {
        None
    };
    std::fs::rename(&incoming, &db).map_err(|e| format!("{}: {e}", db.display()))?;
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok((contents, kept))
}

fn beside_name(file: &Path, what: &str) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{what}"));
    file.with_file_name(name)
}

fn with_suffix(file: &Path, suffix: &str) -> PathBuf {
    let mut name = file.as_os_str().to_os_string();
    name.push(suffix);
    PathBuf::from(name)
}
