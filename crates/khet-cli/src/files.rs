//! Setup and record files on disk: the engine library reads text, this reads the files, and
//! refuses what is too big before reading it or is not UTF-8, naming the file.

use khet_engine::record::MAX_RECORD_BYTES;
use khet_engine::setup::MAX_SETUP_BYTES;
use khet_engine::{Game, Record, RecordError, Setup, SetupErrors};
use std::path::{Path, PathBuf};

/// A file's text, or one line saying why it cannot be had.
fn read_text(path: &Path, max: usize, what: &str) -> Result<String, String> {
    let len = std::fs::metadata(path)
        .map_err(|e| format!("cannot read: {e}"))?
        .len();
    if len > max as u64 {
        return Err(format!(
            "{len} bytes is too big for {what} (at most {max}); not read"
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not UTF-8 text (byte {} is not valid)",
            e.utf8_error().valid_up_to() + 1
        )
    })
}

/// Reads and checks a setup file.
pub fn load_setup(path: &Path) -> Result<Setup, SetupErrors> {
    let file = path.display().to_string();
    let src = read_text(path, MAX_SETUP_BYTES, "a setup")
        .map_err(|reason| SetupErrors::whole_file(&file, reason))?;
    Setup::from_ron(&src, &file)
}

/// Reads and replays a game record file.
pub fn load_record(path: &Path) -> Result<Game, RecordError> {
    let file = path.display().to_string();
    let src = read_text(path, MAX_RECORD_BYTES, "a game record").map_err(|reason| RecordError {
        file: file.clone(),
        line: 0,
        reason,
    })?;
    Record::from_ron(&src, &file)?.replay(&src, &file)
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
