//! Setup and record files on disk: this reads the bytes (never more than the engine accepts),
//! the engine decodes and checks them.

use khet_engine::record::MAX_RECORD_BYTES;
use khet_engine::setup::MAX_SETUP_BYTES;
use khet_engine::{Game, Record, RecordError, Setup, SetupErrors};
use std::io::Write;
use std::path::{Path, PathBuf};

/// At most `max + 1` bytes of a file: enough for the engine to see that it is too big.
pub fn read_bounded(path: &Path, max: usize) -> std::io::Result<Vec<u8>> {
    khet_engine::text::read_bounded(std::fs::File::open(path)?, max)
}

/// Reads and checks a setup file.
pub fn load_setup(path: &Path) -> Result<Setup, SetupErrors> {
    let file = path.display().to_string();
    let bytes = read_bounded(path, MAX_SETUP_BYTES)
        .map_err(|e| SetupErrors::whole_file(&file, format!("cannot read: {e}")))?;
    Setup::from_bytes(&bytes, &file)
}

/// Reads and replays a game record file.
pub fn load_record(path: &Path) -> Result<Game, RecordError> {
    let file = path.display().to_string();
    let bytes = read_bounded(path, MAX_RECORD_BYTES).map_err(|e| RecordError {
        file: file.clone(),
        line: 0,
        reason: format!("cannot read: {e}"),
    })?;
    Record::game_from_bytes(&bytes, &file)
}

/// A setup by name: a `.ron` path; else a file under `dir` (`NAME.ron`, `khet2/NAME.ron`,
/// `khet1/NAME.ron`) when a folder is given; else a built-in setup.
pub fn find_setup(name: &str, dir: Option<&Path>) -> Result<Setup, String> {
    let one_line = |e: SetupErrors| e.to_string().replace('\n', "; ");
    let as_path = Path::new(name);
    if as_path.extension().is_some_and(|e| e == "ron") && as_path.exists() {
        return load_setup(as_path).map_err(one_line);
    }
    if let Some(dir) = dir {
        let lower = name.to_ascii_lowercase();
        let candidates: [PathBuf; 3] = [
            dir.join(format!("{lower}.ron")),
            dir.join("khet2").join(format!("{lower}.ron")),
            dir.join("khet1").join(format!("{lower}.ron")),
        ];
        if let Some(found) = candidates.iter().find(|c| c.is_file()) {
            return load_setup(found).map_err(one_line);
        }
    }
    Setup::builtin(name).map_err(|e| e.to_string())
}

/// Writes `bytes` to `path` whole or not at all: a temporary file beside it, synced, renamed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)
}

/// The game records (`*.ron`) in `dirs`, in name order.
pub fn record_files(dirs: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut files = Vec::new();
    for dir in dirs {
        let listing = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in listing {
            let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
            if path.extension().is_some_and(|e| e == "ron") {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}
