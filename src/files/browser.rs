//! The player's files in the browser build: entries of the page's local storage, one a file,
//! keyed by the same paths the desktop uses under a folder of their own (`/khet/data/…`,
//! `/khet/config/…`), with the time each was written beside it. A page's storage survives a
//! reload and a closed tab, and belongs to the page's origin, as the desktop's files belong to
//! the player. Files are text (the game writes RON); bytes that are not UTF-8 are refused, not
//! changed.

use super::Listed;
use std::io::{Error, ErrorKind};
use std::path::{Path, PathBuf};

/// The prefix of a file's content, and of the time it was written.
const FILE: &str = "khet:";
const WRITTEN: &str = "khet-written:";

/// The page's local storage, shared with the 2D page of the same origin.
pub(crate) fn local_storage() -> Option<web_sys::Storage> {
    web_sys::window().and_then(|w| w.local_storage().ok().flatten())
}

fn storage() -> std::io::Result<web_sys::Storage> {
    local_storage().ok_or_else(|| Error::other("this browser keeps no local storage for the page"))
}

fn key(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// The reason a browser API gave for refusing, as words for the player.
pub(crate) fn js_reason(e: wasm_bindgen::JsValue) -> String {
    js_sys::Error::from(e)
        .message()
        .as_string()
        .unwrap_or_else(|| "the browser refused it".into())
}

fn refused(e: wasm_bindgen::JsValue) -> Error {
    // A full storage (its quota is a few megabytes) is the usual reason.
    Error::other(js_reason(e))
}

pub(super) fn folder(kind: &str) -> Option<PathBuf> {
    Some(PathBuf::from("/khet").join(kind))
}

pub(super) fn read_bounded(path: &Path, max: usize) -> std::io::Result<Vec<u8>> {
    let text = storage()?
        .get_item(&format!("{FILE}{}", key(path)))
        .map_err(refused)?
        .ok_or_else(|| Error::new(ErrorKind::NotFound, "no such file"))?;
    let mut bytes = text.into_bytes();
    bytes.truncate(max + 1);
    Ok(bytes)
}

/// Writes the file in one step (a storage entry is replaced whole or not at all).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let text = std::str::from_utf8(bytes)
        .map_err(|_| Error::new(ErrorKind::InvalidData, "not text (UTF-8)"))?;
    let store = storage()?;
    store
        .set_item(&format!("{FILE}{}", key(path)), text)
        .map_err(refused)?;
    let _ = store.set_item(&format!("{WRITTEN}{}", key(path)), &now_ms().to_string());
    Ok(())
}

/// The folder's files and the folders below it that hold any.
pub fn list(dir: &Path) -> Vec<Listed> {
    let Ok(store) = storage() else {
        return Vec::new();
    };
    let prefix = format!("{FILE}{}/", key(dir));
    let count = store.length().unwrap_or(0);
    let mut out: Vec<Listed> = Vec::new();
    for i in 0..count {
        let Some(k) = store.key(i).ok().flatten() else {
            continue;
        };
        let Some(rest) = k.strip_prefix(&prefix) else {
            continue;
        };
        match rest.split_once('/') {
            // A file below a folder of this one: the folder, once.
            Some((sub, _)) => {
                let path = dir.join(sub);
                if !out.iter().any(|l| l.path == path) {
                    out.push(Listed {
                        path,
                        is_dir: true,
                        modified_ms: 0,
                    });
                }
            }
            None => {
                let path = dir.join(rest);
                let modified_ms = store
                    .get_item(&format!("{WRITTEN}{}", key(&path)))
                    .ok()
                    .flatten()
                    .and_then(|t| t.parse().ok())
                    .unwrap_or(0);
                out.push(Listed {
                    path,
                    is_dir: false,
                    modified_ms,
                });
            }
        }
    }
    out
}

pub fn remove(path: &Path) -> std::io::Result<()> {
    let store = storage()?;
    let file = format!("{FILE}{}", key(path));
    if store.get_item(&file).map_err(refused)?.is_none() {
        return Err(Error::new(ErrorKind::NotFound, "no such file"));
    }
    store.remove_item(&file).map_err(refused)?;
    let _ = store.remove_item(&format!("{WRITTEN}{}", key(path)));
    Ok(())
}

/// Whether there is a file at `path`.
pub fn exists(path: &Path) -> bool {
    storage().is_ok_and(|s| {
        s.get_item(&format!("{FILE}{}", key(path)))
            .ok()
            .flatten()
            .is_some()
    })
}

/// Folders need no making in the storage: a file's path is its key.
pub fn create_dir_all(_dir: &Path) -> std::io::Result<()> {
    Ok(())
}

/// Milliseconds since 1970, by the browser's clock.
pub fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}
