//! What the game keeps of online play in the data folder, `online.ron`: the installation's secret
//! identity (made at first use; the server keeps only its hash) and the secret of each seat it
//! holds, so that a game closed mid-game takes its seat again when it is opened. Written
//! atomically; a damaged file is reported and set aside, and a new identity made.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The largest `online.ron` read.
const MAX_BYTES: usize = 256 * 1024;

/// How many seats are remembered (the newest).
const KEPT: usize = 32;

/// A seat the installation holds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Seat {
    /// The server's address.
    pub server: String,
    /// The game's code.
    pub code: String,
    /// The seat's secret.
    pub secret: String,
    /// The game is over (kept for the list; no need to go back to it).
    #[serde(default)]
    pub over: bool,
}

/// The file's contents.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OnlineFile {
    /// 32 lowercase hexadecimal digits.
    pub identity: String,
    /// Newest last.
    pub seats: Vec<Seat>,
}

impl OnlineFile {
    fn from_bytes(bytes: &[u8], file: &str) -> Result<OnlineFile, String> {
        if bytes.len() > MAX_BYTES {
            return Err(format!("{file}:0: too big"));
        }
        let text =
            std::str::from_utf8(bytes).map_err(|e| format!("{file}:0: not UTF-8 text ({e})"))?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let f: OnlineFile = ron::from_str(text).map_err(|e| {
            format!(
                "{file}:{}: {}",
                e.span.start.line.max(1),
                khet_engine::text::quote(&e.code.to_string())
            )
        })?;
        if !f.identity.is_empty() && !khet_protocol::is_secret(&f.identity) {
            return Err(format!(
                "{file}:1: the identity is not 32 hexadecimal digits"
            ));
        }
        Ok(f)
    }

    /// Reads `path`: the file, an empty one when there is none, and a notice when it was
    /// damaged (then kept beside as `….damaged`).
    pub fn read(path: &Path) -> (OnlineFile, Option<String>) {
        crate::files::read_or_default(path, MAX_BYTES, "a new identity is made", |b, f| {
            OnlineFile::from_bytes(b, f)
        })
    }

    /// Writes it atomically.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        let config = ron::ser::PrettyConfig::new().struct_names(true);
        let text = ron::ser::to_string_pretty(self, config).map_err(|e| e.to_string())?;
        if let Some(dir) = path.parent() {
            crate::files::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        crate::files::write_atomic(path, text.as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))
    }

    /// The identity, made now if there is none. True when it was made.
    pub fn ensure_identity(&mut self) -> Result<bool, String> {
        if khet_protocol::is_secret(&self.identity) {
            return Ok(false);
        }
        self.identity = khet_protocol::new_secret()?;
        Ok(true)
    }

    /// Remembers a seat (the newest [`KEPT`]).
    pub fn remember(&mut self, seat: Seat) {
        self.seats.retain(|s| s.code != seat.code);
        self.seats.push(seat);
        let extra = self.seats.len().saturating_sub(KEPT);
        self.seats.drain(..extra);
    }

    /// The seat of game `code`.
    pub fn seat(&self, code: &str) -> Option<&Seat> {
        self.seats.iter().find(|s| s.code == code)
    }

    /// Marks game `code` over. True if that changed anything.
    pub fn finish(&mut self, code: &str) -> bool {
        match self.seats.iter_mut().find(|s| s.code == code && !s.over) {
            Some(s) => {
                s.over = true;
                true
            }
            None => false,
        }
    }

    /// The games not known to be over, newest first.
    pub fn unfinished(&self) -> impl Iterator<Item = &Seat> {
        self.seats.iter().rev().filter(|s| !s.over)
    }
}

/// Where the file lives: the data folder's `online.ron`.
pub fn path() -> Option<PathBuf> {
    crate::files::folder("data").map(|d| d.join("online.ron"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_round_trips_and_a_damaged_one_is_refused_with_its_line() {
        let mut f = OnlineFile::default();
        assert!(f.ensure_identity().unwrap());
        assert!(!f.ensure_identity().unwrap(), "kept once made");
        for i in 0..40 {
            f.remember(Seat {
                server: "ws://h:1".into(),
                code: format!("code{i:04}"),
                secret: "s".into(),
                over: false,
            });
        }
        assert_eq!(f.seats.len(), KEPT);
        assert!(f.finish("code0039"));
        assert!(!f.finish("code0039"));
        assert_eq!(f.unfinished().next().unwrap().code, "code0038");
        let config = ron::ser::PrettyConfig::new().struct_names(true);
        let text = ron::ser::to_string_pretty(&f, config).unwrap();
        assert_eq!(OnlineFile::from_bytes(text.as_bytes(), "o").unwrap(), f);
        let bom = format!("\u{feff}{text}");
        assert_eq!(OnlineFile::from_bytes(bom.as_bytes(), "o").unwrap(), f);
        let bad = text.replace("identity", "identty");
        assert!(
            OnlineFile::from_bytes(bad.as_bytes(), "o.ron")
                .unwrap_err()
                .starts_with("o.ron:2:")
        );
        assert!(OnlineFile::from_bytes(b"\xff", "o").is_err());
        assert!(OnlineFile::from_bytes(&text.as_bytes()[..text.len() / 2], "o").is_err());
        let forged = "OnlineFile(identity: \"xyz\")";
        assert!(OnlineFile::from_bytes(forged.as_bytes(), "o").is_err());
    }
}
