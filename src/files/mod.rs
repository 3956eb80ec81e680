//! The player's files: where they live, reading them with a size bound, and writing them
//! atomically (a temporary file beside the target, flushed to disk, then renamed over it), so a
//! game killed in the middle of a write leaves the previous file whole.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The game's folders for `kind` ("data" or "config"): `$KHET_DATA` / `$KHET_CONFIG` when set,
/// else the platform's (`~/.local/share/khet`, `~/.config/khet` on Linux).
pub fn folder(kind: &str) -> Option<PathBuf> {
    let var = if kind == "data" {
        "KHET_DATA"
    } else {
        "KHET_CONFIG"
    };
    if let Some(dir) = std::env::var_os(var) {
        return Some(PathBuf::from(dir));
    }
    let dirs = directories::ProjectDirs::from("", "", "khet")?;
    Some(if kind == "data" {
        dirs.data_dir().to_path_buf()
    } else {
        dirs.config_dir().to_path_buf()
    })
}

/// Reads at most `max + 1` bytes (so that the caller can refuse a file that is too big).
pub fn read_bounded(path: &Path, max: usize) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(max as u64 + 1)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Reads one of the player's small files (settings, progress) with `parse`: the value, or the
/// default when there is no file yet, and a notice when the file could not be read or was
/// damaged. A damaged file is kept beside it as `….damaged` (the original stays until the
/// player's next change overwrites it); `what` says what the game does instead.
pub fn read_or_default<T: Default>(
    path: &Path,
    max: usize,
    what: &str,
    parse: impl FnOnce(&[u8], &str) -> Result<T, String>,
) -> (T, Option<String>) {
    let name = path.display().to_string();
    let bytes = match read_bounded(path, max) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (T::default(), None),
        Err(e) => {
            return (
                T::default(),
                Some(format!("{name}: cannot read ({e}). {what}.")),
            );
        }
    };
    match parse(&bytes, &name) {
        Ok(value) => (value, None),
        Err(reason) => {
            let file_name = path
                .file_name()
                .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
            let kept = path.with_file_name(format!("{file_name}.damaged"));
            let note = match std::fs::write(&kept, &bytes) {
                Ok(()) => format!("kept as {}", kept.display()),
                Err(e) => format!("could not keep a copy: {e}"),
            };
            (
                T::default(),
                Some(format!("{reason}. {what}; the damaged file is {note}.")),
            )
        }
    }
}

/// A name made safe as a file name: letters, digits, spaces, `-` and `_` kept, at most 60
/// characters, trimmed; `fallback` when nothing is left. It cannot leave its folder.
pub fn safe_stem(name: &str, fallback: &str) -> String {
    let clean: String = name
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .take(60)
        .collect();
    let clean = clean.trim();
    if clean.is_empty() {
        fallback.into()
    } else {
        clean.into()
    }
}

/// The temporary file a write of `path` goes through.
pub fn temporary(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    path.with_file_name(format!(".{name}.tmp"))
}

/// Writes `bytes` to `path` atomically, creating its folder. On any error the old file, if
/// there was one, is untouched and the temporary file is removed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = temporary(path);
    let written = std::fs::File::create(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    let result = written.and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// The time now in UTC as `2026-11-22T14:30:05Z` (no time-zone database needed).
pub fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    khet_engine::record::utc(secs)
}
