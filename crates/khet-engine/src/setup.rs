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
//! Silver always moves first from a setup. Unknown fields are refused (a misspelt `descripton`
//! would otherwise vanish), a UTF-8 byte-order mark is accepted, and every problem names the line
//! of the piece concerned.
//!
//! The official setups are built in ([`Setup::builtin`], [`catalogue`]); files are how players add
//! their own. Reading files is the caller's business: the engine does no I/O.

use crate::piece::{Color, Diagonal, Kind, Piece};
use crate::position::Position;
use crate::ronlines::RonLines;
use crate::rules::Edition;
use crate::square::{Direction, SQUARES, Square};
use crate::text::quote;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The largest setup text read: a full board takes about 3 KB; anything this big is not a setup.
pub const MAX_SETUP_BYTES: usize = 256 * 1024;

/// One piece of a setup file: kind, colour, square and orientation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[allow(missing_docs)] // the fields are the colour, the square and the orientation, as written
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
                        "an Obelisk stack is 1 or 2 high, not {h}: only two Obelisks may stack"
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
#[serde(rename = "Setup", deny_unknown_fields)]
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
    /// What players call it.
    pub name: String,
    /// Which game it is for.
    pub edition: Edition,
    /// A line or two for people choosing a setup.
    pub description: String,
    /// The arrangement, Silver to move.
    pub position: Position,
}

/// One problem of a setup file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupError {
    /// The file's name as the caller gave it.
    pub file: String,
    /// 1-based line; 0 when the problem is the whole file (it cannot be read).
    pub line: usize,
    /// What is wrong, on one line.
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

impl SetupErrors {
    /// One problem about the whole file (line 0), e.g. that it cannot be read.
    pub fn whole_file(file: &str, reason: impl Into<String>) -> SetupErrors {
        SetupErrors(vec![SetupError {
            file: file.to_string(),
            line: 0,
            reason: reason.into(),
        }])
    }
}

/// The official setups, built in: (catalogue name, RON text). The files are `setups/` at the
/// top of the repository (the engine's `setups` links there).
const BUILT_IN: [(&str, &str); 8] = [
    ("khet2/classic", include_str!("../setups/khet2/classic.ron")),
    ("khet2/imhotep", include_str!("../setups/khet2/imhotep.ron")),
    ("khet2/dynasty", include_str!("../setups/khet2/dynasty.ron")),
    (
        "khet2/imhotep-eyes",
        include_str!("../setups/khet2/imhotep-eyes.ron"),
    ),
    (
        "khet2/dynasty-eyes",
        include_str!("../setups/khet2/dynasty-eyes.ron"),
    ),
    ("khet1/classic", include_str!("../setups/khet1/classic.ron")),
    ("khet1/imhotep", include_str!("../setups/khet1/imhotep.ron")),
    ("khet1/dynasty", include_str!("../setups/khet1/dynasty.ron")),
];

/// The catalogue names of the built-in setups: `khet2/classic`, …, `khet1/dynasty`.
pub fn catalogue_names() -> impl Iterator<Item = &'static str> {
    BUILT_IN.iter().map(|(name, _)| *name)
}

/// Every built-in setup with its catalogue name, Khet 2.0's first.
pub fn catalogue() -> Vec<(&'static str, Setup)> {
    BUILT_IN
        .iter()
        .map(|(name, src)| (*name, builtin_setup(name, src)))
        .collect()
}

fn builtin_setup(name: &str, src: &str) -> Setup {
    match Setup::from_ron(src, name) {
        Ok(s) => s,
        Err(e) => unreachable!("the built-in setups are checked by the tests: {e}"),
    }
}

/// A name that is not in the catalogue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownSetup(pub String);

impl fmt::Display for UnknownSetup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> = catalogue_names().collect();
        write!(
            f,
            "no setup named '{}' (built in: {}, or classic, imhotep, dynasty, standard)",
            quote(&self.0),
            known.join(", ")
        )
    }
}

impl std::error::Error for UnknownSetup {}

impl Setup {
    /// A built-in setup by catalogue name (`khet2/classic`, `khet1/dynasty`,
    /// `khet2/imhotep-eyes`), any case. Khet 2.0's may be named without their folder
    /// (`classic`, `imhotep-eyes`), and `standard` is Classic, as in the protocol.
    ///
    /// ```
    /// use khet_engine::{Edition, Setup};
    /// let setup = Setup::builtin("khet1/dynasty")?;
    /// assert_eq!(setup.edition, Edition::Khet1);
    /// assert_eq!(Setup::builtin("standard")?, Setup::builtin("khet2/classic")?);
    /// # Ok::<(), khet_engine::UnknownSetup>(())
    /// ```
    pub fn builtin(name: &str) -> Result<Setup, UnknownSetup> {
        let lower = name.trim().trim_end_matches(".ron").to_ascii_lowercase();
        let wanted = match lower.as_str() {
            "standard" => "khet2/classic".to_string(),
            l if l.contains('/') => l.to_string(),
            l => format!("khet2/{l}"),
        };
        BUILT_IN
            .iter()
            .find(|(n, _)| *n == wanted)
            .map(|(n, src)| builtin_setup(n, src))
            .ok_or_else(|| UnknownSetup(name.to_string()))
    }

    /// Reads and checks a setup from a file's bytes (see [`crate::text::decode`]): too big, not
    /// UTF-8 and every problem of [`Setup::from_ron`] are reported against `file`.
    pub fn from_bytes(bytes: &[u8], file: &str) -> Result<Setup, SetupErrors> {
        let src = crate::text::decode(bytes, MAX_SETUP_BYTES, "a setup")
            .map_err(|reason| SetupErrors::whole_file(file, reason))?;
        Setup::from_ron(src, file)
    }

    /// Reads and checks a setup from RON text; `file` names it in errors. Every problem is
    /// reported, each with the line of the piece concerned.
    pub fn from_ron(src: &str, file: &str) -> Result<Setup, SetupErrors> {
        let error = |line: usize, reason: String| SetupError {
            file: file.to_string(),
            line,
            reason,
        };
        if src.len() > MAX_SETUP_BYTES {
            return Err(SetupErrors(vec![error(
                0,
                format!(
                    "{} bytes is too big for a setup (at most {MAX_SETUP_BYTES})",
                    src.len()
                ),
            )]));
        }
        let src = src.strip_prefix('\u{feff}').unwrap_or(src);
        let parsed: SetupFile = ron::from_str(src).map_err(|e| {
            SetupErrors(vec![error(
                e.span.start.line.max(1),
                quote(&e.code.to_string()),
            )])
        })?;
        let lines = RonLines::scan(src);
        let pieces_line = lines.field("pieces").unwrap_or(1);
        if parsed.pieces.len() > SQUARES {
            return Err(SetupErrors(vec![error(
                pieces_line,
                format!(
                    "{} pieces cannot stand on a board of {SQUARES} squares",
                    parsed.pieces.len()
                ),
            )]));
        }
        let mut errors = Vec::new();
        let mut position = Position::empty(parsed.edition);
        let mut line_of_square: [Option<usize>; SQUARES] = [None; SQUARES];
        for (i, entry) in parsed.pieces.iter().enumerate() {
            let line = lines.string_in("pieces", i);
            let sq: Square = match entry.square_text().parse() {
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
            if let Some(first_line) = line_of_square[sq.index()] {
                let hint = if piece.kind() == Kind::Obelisk {
                    format!(
                        " (to stack two Obelisks write Obelisk({}, \"{sq}\", 2))",
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
            line_of_square[sq.index()] = Some(line);
            position.put(sq, Some(piece));
        }
        for problem in position.problems() {
            let mut at: Vec<usize> = problem
                .squares()
                .iter()
                .filter_map(|sq| line_of_square[sq.index()])
                .collect();
            if at.is_empty() {
                at.push(pieces_line);
            }
            for line in at {
                errors.push(error(line, problem.to_string()));
            }
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
