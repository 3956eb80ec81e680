//! The player's files: where they live, reading them with a size bound, and writing them
//! atomically (a temporary file beside the target, flushed to disk, then renamed over it), so a
//! game killed in the middle of a write leaves the previous file whole.
//!
//! Every feature reaches the player's files through this module. On the desktop they are files
//! (`disk`); in the browser build they are entries of the page's local storage named by the same
//! paths (`browser`), so saves, settings, progress and setups work there unchanged.

#[cfg(target_arch = "wasm32")]
mod browser;
#[cfg(not(target_arch = "wasm32"))]
mod disk;

#[cfg(target_arch = "wasm32")]
use browser as store;
#[cfg(not(target_arch = "wasm32"))]
use disk as store;

#[cfg(target_arch = "wasm32")]
pub(crate) use browser::{js_reason, local_storage};
#[cfg(not(target_arch = "wasm32"))]
pub use disk::temporary;
use std::path::{Path, PathBuf};
pub use store::{create_dir_all, exists, list, now_ms, remove, write_atomic};

/// One entry of a folder, as [`list`] gives it.
#[derive(Clone, Debug)]
pub struct Listed {
    pub path: PathBuf,
    pub is_dir: bool,
    /// When it was last written, in milliseconds since 1970 (0 when unknown).
    pub modified_ms: u64,
}

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
    store::folder(kind)
}

/// Reads at most `max + 1` bytes (so that the caller can refuse a file that is too big).
pub fn read_bounded(path: &Path, max: usize) -> std::io::Result<Vec<u8>> {
    store::read_bounded(path, max)
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
            let note = match write_atomic(&kept, &bytes) {
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

/// The time now in UTC as `2026-11-22T14:30:05Z` (no time-zone database needed).
pub fn now_utc() -> String {
    khet_engine::record::utc(now_ms() / 1000)
}
