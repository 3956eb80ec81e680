//! The operator's copies of the built-in database: `khet-server backup FILE` while the server
//! runs, `khet-server restore FILE` while it does not, and the data folder's lock that tells
//! which is which. (PostgreSQL is backed up with its own `pg_dump`: docs/server.md.)

use crate::store::DATABASE_FILE;
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection};
use sqlx::{ConnectOptions, Connection};
use std::fs::{DirBuilder, File, OpenOptions};
use std::path::{Path, PathBuf};

/// The file a running server holds locked in its data folder.
const LOCK_FILE: &str = "khet-server.lock";

/// Takes the lock of data folder `dir` (made if missing) for as long as the file is kept: one
/// server a folder, and no restore under a running server.
pub fn lock_folder(dir: &Path) -> Result<File, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(LOCK_FILE);
    // Not through a symbolic link planted in the folder: that would make (or lock) a file
    // elsewhere.
    let mut options = File::options();
    options.create(true).truncate(false).write(true);
    let file = no_follow(&mut options).open(&path).map_err(|e| {
        if is_link_refused(&e) {
            format!("{}: a symbolic link; refused", path.display())
        } else {
            format!("{}: {e}", path.display())
        }
    })?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(format!(
            "a khet-server is running on {}; stop it first",
            dir.display()
        )),
        Err(std::fs::TryLockError::Error(e)) => Err(format!("{}: {e}", path.display())),
    }
}

/// Opens the SQLite database `file` read-only. Options, not a URL: a path with `?`, `#`, `%`
/// or spaces is a path, not a URL's parameters.
async fn open_read_only(file: &Path) -> Result<SqliteConnection, sqlx::Error> {
    SqliteConnectOptions::new()
        .filename(file)
        .read_only(true)
        .connect()
        .await
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
    let mut conn = open_read_only(file).await.map_err(at)?;
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

/// A folder of this process's own beside `file`, for what is written before it is whole: made
/// new (`mkdir` fails on anything already there, a symbolic link included) with a name nobody
/// can guess, and only this user may enter it, so nothing planted can redirect what is written
/// in it.
struct Scratch(PathBuf);

impl Scratch {
    fn beside(file: &Path, what: &str) -> Result<Scratch, String> {
        let parent = match file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        let random = crate::secret::new_code()?;
        let dir = parent.join(format!(".{name}.{what}-{random}"));
        owner_only_dir(&mut DirBuilder::new())
            .create(&dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(Scratch(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Refuses `file` if it is a symbolic link: what replaces it would not go where it points, and
/// an operator (or whoever planted it) expecting that is told so.
fn not_a_link(file: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(file) {
        Ok(meta) if meta.file_type().is_symlink() => Err(format!(
            "{}: a symbolic link; refused (give the real path)",
            file.display()
        )),
        _ => Ok(()),
    }
}

/// Copies the database of data folder `dir` to `to`, whole and consistent even while a server
/// writes to it (SQLite's `VACUUM INTO` reads one snapshot): written in a folder of its own
/// beside `to` and renamed onto it once checked, so `to` is never half a copy.
pub async fn backup(dir: &Path, to: &Path) -> Result<Contents, String> {
    let db = dir.join(DATABASE_FILE);
    if !db.is_file() {
        return Err(format!("{}: no database here", dir.display()));
    }
    not_a_link(to)?;
    let scratch = Scratch::beside(to, "partial")?;
    let partial = scratch.0.join("copy");
    let mut conn = open_read_only(&db)
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
    // A rename replaces a link planted at `to` since the check; it never writes through it.
    std::fs::rename(&partial, to).map_err(|e| format!("{}: {e}", to.display()))?;
    Ok(contents)
}

/// Puts backup `from` in place as the database of data folder `dir`, which no server may be
/// using. The database it replaces is kept beside it, renamed `….before-restore-SECONDS` (with
/// its write-ahead log), so a restore loses nothing. Every file it writes is made new in a
/// folder of its own ([`Scratch`]) and renamed into place: a link planted in the data folder is
/// replaced, never written through.
pub async fn restore(dir: &Path, from: &Path) -> Result<(Contents, Option<PathBuf>), String> {
    let _lock = lock_folder(dir)?;
    let contents = check(from).await?;
    let db = dir.join(DATABASE_FILE);
    let scratch = Scratch::beside(&db, "restoring")?;
    let incoming = scratch.0.join(DATABASE_FILE);
    copy_new(from, &incoming).map_err(|e| format!("{}: {e}", incoming.display()))?;
    let kept = if std::fs::symlink_metadata(&db).is_ok() {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let old = beside_name(&db, &format!("before-restore-{secs}"));
        // The log and shared memory go with their database: a new database beside an old log
        // would be read as the old one's changes.
        for suffix in ["-wal", "-shm"] {
            let (from_side, to_side) = (with_suffix(&db, suffix), with_suffix(&old, suffix));
            if std::fs::symlink_metadata(&from_side).is_ok() {
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

/// Copies `from` to `to`, a file made new (never one already there, nor a link's target), and
/// syncs it.
fn copy_new(from: &Path, to: &Path) -> std::io::Result<()> {
    let mut source = File::open(from)?;
    let mut copy = owner_only_file(File::options().write(true).create_new(true)).open(to)?;
    std::io::copy(&mut source, &mut copy)?;
    copy.sync_all()
}

/// Opens the link itself, never its target: on Unix the open fails (`is_link_refused`); on
/// Windows it opens the reparse point, which is harmless to lock.
fn no_follow(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(options, libc::O_NOFOLLOW);
    #[cfg(windows)]
    std::os::windows::fs::OpenOptionsExt::custom_flags(options, FILE_FLAG_OPEN_REPARSE_POINT);
    options
}

/// Windows' flag to open a link rather than what it points to (`winbase.h`).
#[cfg(windows)]
const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;

/// The error of an open through a link with `O_NOFOLLOW`.
#[cfg(unix)]
fn is_link_refused(e: &std::io::Error) -> bool {
    e.raw_os_error() == Some(libc::ELOOP)
}

#[cfg(not(unix))]
fn is_link_refused(_: &std::io::Error) -> bool {
    false
}

/// A folder only its owner may enter. On Windows, new folders and files take the rights of
/// the folder they are made in, the data folder under the user's profile.
fn owner_only_dir(builder: &mut DirBuilder) -> &mut DirBuilder {
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(builder, 0o700);
    builder
}

/// A file only its owner may read (see [`owner_only_dir`]).
fn owner_only_file(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(options, 0o600);
    options
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
