//! Starting setups as RON files, checked on loading with every problem reported by file, line and
//! reason.
//!
//! ```ron
//! Setup(
//!     name: "Classic",
//!     edition: Khet2,
//!     description: "Use this setup if this is your first time to play Khet.",
//!     pieces: [
//!         Sphinx(Red, "a8", S),
//!         Pharaoh(Red, "f8"),
//!         Pyramid(Red, "h8", SE),
//!         Scarab(Silver, "e4", NW),     // two-sided: NW and SE are the same mirror `/`
//!         Obelisk(Silver, "d1", 2),     // Khet 1.0: a stacked pair
//!     ],
//! )
//! ```
//!
//! Silver always moves first from a setup.

use crate::piece::{Color, Diagonal, Kind, Piece};
use crate::position::Position;
use crate::rules::Edition;
use crate::square::{Direction, Square};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// One piece of a setup file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SetupPiece {
    Pharaoh(Color, String),
    Sphinx(Color, String, Direction),
    Pyramid(Color, String, Diagonal),
    Anubis(Color, String, Direction),
    Scarab(Color, String, Diagonal),
    Djed(Color, String, Diagonal),
    /// Colour, square, stack height (1 or 2).
    Obelisk(Color, String, u8),
    Eye(Color, String, Diagonal),
}

impl SetupPiece {
    fn square_text(&self) -> &str {
        match self {
            SetupPiece::Pharaoh(_, s)
            | SetupPiece::Sphinx(_, s, _)
            | SetupPiece::Pyramid(_, s, _)
            | SetupPiece::Anubis(_, s, _)
            | SetupPiece::Scarab(_, s, _)
            | SetupPiece::Djed(_, s, _)
            | SetupPiece::Obelisk(_, s, _)
            | SetupPiece::Eye(_, s, _) => s,
        }
    }

    fn piece(&self) -> Result<Piece, String> {
        Ok(match *self {
            SetupPiece::Pharaoh(c, _) => Piece::pharaoh(c),
            SetupPiece::Sphinx(c, _, d) => Piece::sphinx(c, d),
            SetupPiece::Pyramid(c, _, d) => Piece::pyramid(c, d),
            SetupPiece::Anubis(c, _, d) => Piece::anubis(c, d),
            SetupPiece::Scarab(c, _, d) => Piece::scarab(c, d),
            SetupPiece::Djed(c, _, d) => Piece::djed(c, d),
            SetupPiece::Eye(c, _, d) => Piece::eye(c, d),
            SetupPiece::Obelisk(c, _, h) => match h {
                1 | 2 => Piece::obelisk(c, h),
                _ => {
                    return Err(format!(
                        "an obelisk stack is 1 or 2 high, not {h}: only two obelisks may stack"
                    ));
                }
            },
        })
    }

    fn from_piece(sq: Square, p: Piece) -> SetupPiece {
        let s = sq.to_string();
        let c = p.color();
        let dir = Direction::from_index(p.orientation() as usize);
        let diag = Diagonal::from_index(p.orientation() as usize);
        match p.kind() {
            Kind::Pharaoh => SetupPiece::Pharaoh(c, s),
            Kind::Sphinx => SetupPiece::Sphinx(c, s, dir),
            Kind::Pyramid => SetupPiece::Pyramid(c, s, diag),
            Kind::Anubis => SetupPiece::Anubis(c, s, dir),
            Kind::Scarab => SetupPiece::Scarab(c, s, diag),
            Kind::Djed => SetupPiece::Djed(c, s, diag),
            Kind::Obelisk => SetupPiece::Obelisk(c, s, p.height()),
            Kind::Eye => SetupPiece::Eye(c, s, diag),
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename = "Setup")]
struct SetupFile {
    name: String,
    edition: Edition,
    #[serde(default)]
    description: String,
    pieces: Vec<SetupPiece>,
}

/// A checked starting setup.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub name: String,
    pub edition: Edition,
    pub description: String,
    /// The arrangement, Silver to move.
    pub position: Position,
}

/// One problem of a setup file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupError {
    pub file: String,
    /// 1-based line.
    pub line: usize,
    pub reason: String,
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.file, self.reason)
        } else {
            write!(f, "{}:{}: {}", self.file, self.line, self.reason)
        }
    }
}

/// Every problem found in one setup file (never empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupErrors(pub Vec<SetupError>);

impl fmt::Display for SetupErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        f.write_str(&lines.join("\n"))
    }
}

impl std::error::Error for SetupErrors {}

/// The 1-based line of the `nth` (0-based) occurrence of `needle` in `src`, if any.
pub(crate) fn line_of(src: &str, needle: &str, nth: usize) -> Option<usize> {
    let (at, _) = src.match_indices(needle).nth(nth)?;
    Some(1 + src[..at].matches('\n').count())
}

impl Setup {
    /// Reads and checks a setup from RON text; `file` names it in errors.
    pub fn from_ron(src: &str, file: &str) -> Result<Setup, SetupErrors> {
        let error = |line: usize, reason: String| SetupError {
            file: file.to_string(),
            line,
            reason,
        };
        let parsed: SetupFile = ron::from_str(src)
            .map_err(|e| SetupErrors(vec![error(e.span.start.line.max(1), e.code.to_string())]))?;
        let pieces_line = line_of(src, "pieces", 0).unwrap_or(1);
        let mut errors = Vec::new();
        let mut position = Position::empty(parsed.edition);
        let mut seen: Vec<(Square, usize)> = Vec::new();
        for (i, entry) in parsed.pieces.iter().enumerate() {
            let text = entry.square_text();
            let quoted = format!("\"{text}\"");
            let before = parsed.pieces[..i]
                .iter()
                .filter(|p| p.square_text() == text)
                .count();
            let line = line_of(src, &quoted, before).unwrap_or(pieces_line);
            let sq: Square = match text.parse() {
                Ok(sq) => sq,
                Err(e) => {
                    errors.push(error(line, e.to_string()));
                    continue;
                }
            };
            let piece = match entry.piece() {
                Ok(p) => p,
                Err(reason) => {
                    errors.push(error(line, reason));
                    continue;
                }
            };
            if let Some(&(_, first_line)) = seen.iter().find(|(s, _)| *s == sq) {
                let hint = if piece.kind() == Kind::Obelisk {
                    format!(
                        " (to stack two obelisks write Obelisk({}, \"{sq}\", 2))",
                        piece.color()
                    )
                } else {
                    String::new()
                };
                errors.push(error(
                    line,
                    format!("two pieces on {sq}; the first is on line {first_line}{hint}"),
                ));
                continue;
            }
            seen.push((sq, line));
            position.put(sq, Some(piece));
        }
        for problem in position.problems() {
            let line = problem
                .square
                .and_then(|sq| seen.iter().find(|(s, _)| *s == sq).map(|&(_, l)| l))
                .unwrap_or(pieces_line);
            errors.push(error(line, problem.to_string()));
        }
        if !errors.is_empty() {
            errors.sort_by_key(|e| e.line);
            return Err(SetupErrors(errors));
        }
        Ok(Setup {
            name: parsed.name,
            edition: parsed.edition,
            description: parsed.description,
            position,
        })
    }

    /// Reads and checks a setup file.
    pub fn load(path: &Path) -> Result<Setup, SetupErrors> {
        let file = path.display().to_string();
        let src = std::fs::read_to_string(path).map_err(|e| {
            SetupErrors(vec![SetupError {
                file: file.clone(),
                line: 0,
                reason: format!("cannot read: {e}"),
            }])
        })?;
        Setup::from_ron(&src, &file)
    }

    /// A setup made from a position (for saving the player's own).
    pub fn from_position(name: &str, description: &str, position: &Position) -> Setup {
        let mut position = *position;
        position.set_side_to_move(Color::Silver);
        Setup {
            name: name.to_string(),
            edition: position.edition(),
            description: description.to_string(),
            position,
        }
    }

    /// The setup as RON text, one piece a line, Red's first from rank 8 down.
    pub fn to_ron(&self) -> String {
        let mut out = String::from("Setup(\n");
        out += &format!("    name: {:?},\n", self.name);
        out += &format!("    edition: {:?},\n", self.edition);
        out += &format!("    description: {:?},\n", self.description);
        out += "    pieces: [\n";
        let mut pieces: Vec<(Square, Piece)> = self.position.pieces().collect();
        pieces.sort_by_key(|(sq, p)| {
            (
                p.color() == Color::Silver,
                std::cmp::Reverse(sq.rank()),
                sq.file(),
            )
        });
        for (sq, p) in pieces {
            let entry = ron::to_string(&SetupPiece::from_piece(sq, p)).unwrap_or_default();
            out += &format!("        {entry},\n");
        }
        out += "    ],\n)\n";
        out
    }
}

/// A setup file found in a folder: its path and the setup or what is wrong with it.
#[derive(Clone, Debug)]
pub struct SetupEntry {
    pub path: PathBuf,
    pub setup: Result<Setup, SetupErrors>,
}

/// Every `.ron` file under `dir` (one level of subfolders too, e.g. `setups/khet2/`), sorted by
/// path. A folder that cannot be read gives no entries.
pub fn load_dir(dir: &Path) -> Vec<SetupEntry> {
    let mut paths = Vec::new();
    let visit = |d: &Path, paths: &mut Vec<PathBuf>, recurse: bool| -> Vec<PathBuf> {
        let mut subdirs = Vec::new();
        if let Ok(read) = std::fs::read_dir(d) {
            for entry in read.flatten() {
                let p = entry.path();
                if p.is_dir() && recurse {
                    subdirs.push(p);
                } else if p.extension().is_some_and(|e| e == "ron") {
                    paths.push(p);
                }
            }
        }
        subdirs
    };
    for sub in visit(dir, &mut paths, true) {
        visit(&sub, &mut paths, false);
    }
    paths.sort();
    paths
        .into_iter()
        .map(|path| SetupEntry {
            setup: Setup::load(&path),
            path,
        })
        .collect()
}

/// The setups folder of this repository (for the CLI and tests run from a checkout).
pub fn default_setups_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../setups")
}

/// Finds a setup by name: `classic`, `imhotep`, `dynasty` are Khet 2.0's; other names are file
/// stems under `setups/` (e.g. `khet1/classic`, `imhotep-eyes`), or a path to a file.
pub fn find_setup(name: &str, dir: &Path) -> Result<Setup, SetupErrors> {
    let not_found = |reason: String| {
        SetupErrors(vec![SetupError {
            file: name.to_string(),
            line: 0,
            reason,
        }])
    };
    let as_path = Path::new(name);
    if as_path.extension().is_some_and(|e| e == "ron") && as_path.exists() {
        return Setup::load(as_path);
    }
    let lower = name.to_ascii_lowercase();
    let candidates = [
        dir.join(format!("{lower}.ron")),
        dir.join("khet2").join(format!("{lower}.ron")),
        dir.join("khet1").join(format!("{lower}.ron")),
    ];
    for c in &candidates {
        if c.exists() {
            return Setup::load(c);
        }
    }
    let known: Vec<String> = load_dir(dir)
        .iter()
        .filter_map(|e| {
            let rel = e.path.strip_prefix(dir).ok()?.with_extension("");
            Some(rel.display().to_string())
        })
        .collect();
    Err(not_found(format!(
        "no setup named '{name}' (known: {})",
        known.join(", ")
    )))
}
