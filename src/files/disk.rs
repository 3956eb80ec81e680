//! The player's files on the desktop: the platform's folders (through `directories`) and files.

use super::Listed;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The platform's folder for `kind` (`~/.local/share/khet`, `~/.config/khet` on Linux).
pub(super) fn folder(kind: &str) -> Option<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "khet")?;
    Some(if kind == "data" {
        dirs.data_dir().to_path_buf()
    } else {
        dirs.config_dir().to_path_buf()
    })
}

pub(super) fn read_bounded(path: &Path, max: usize) -> std::io::Result<Vec<u8>> {
    khet_engine::text::read_bounded(std::fs::File::open(path)?, max)
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

/// The folder's entries (none when it cannot be read), in no particular order.
pub fn list(dir: &Path) -> Vec<Listed> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    read.flatten()
        .map(|entry| {
            // Followed through links, as a folder of setups may be one.
            let meta = std::fs::metadata(entry.path()).ok();
            let modified_ms = meta
                .as_ref()
                .and_then(|m| m.modified().ok())
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_millis() as u64);
            Listed {
                path: entry.path(),
                is_dir: meta.is_some_and(|m| m.is_dir()),
                modified_ms,
            }
        })
        .collect()
}

pub fn remove(path: &Path) -> std::io::Result<()> {
    std::fs::remove_file(path)
}

/// Whether there is a file (or folder) at `path`.
pub fn exists(path: &Path) -> bool {
    path.exists()
}

pub fn create_dir_all(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// Milliseconds since 1970, by the system's clock.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
