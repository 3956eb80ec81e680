//! Colours, piece kinds and pieces with their orientation, packed into one byte.

use crate::square::Direction;
use crate::text::ParseNameError;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The board's cells as bytes: the one place that knows how a piece is packed (`1 c kkk s oo`:
/// occupied, colour, kind, stacked, orientation). The board, the laser's table and the move
/// generator read cells through these functions so that the layout can change here alone.
pub(crate) mod cell {
    /// An empty square.
    pub(crate) const EMPTY: u8 = 0;
    /// The sentinel of the cells around the board.
    pub(crate) const OFF: u8 = 0xFF;
    pub(crate) const OCCUPIED: u8 = 0x80;
    const RED: u8 = 0x40;
    const STACKED: u8 = 4;

    /// Packs a piece; `orientation` must already be reduced for its kind.
    pub(crate) const fn pack(color: u8, kind: u8, stacked: bool, orientation: u8) -> u8 {
        OCCUPIED | (color << 6) | (kind << 3) | ((stacked as u8) << 2) | (orientation & 3)
    }
    /// The kind's discriminant (meaningless for `EMPTY` and `OFF`).
    pub(crate) const fn kind(b: u8) -> u8 {
        (b >> 3) & 7
    }
    /// The colour's discriminant: 0 Silver, 1 Red.
    pub(crate) const fn color(b: u8) -> u8 {
        (b & RED) >> 6
    }
    /// The raw orientation index, 0..4.
    pub(crate) const fn orientation(b: u8) -> u8 {
        b & 3
    }
    /// The same cell with another orientation.
    pub(crate) const fn with_orientation(b: u8, o: u8) -> u8 {
        (b & !3) | (o & 3)
    }
    /// Whether an obelisk cell holds a stack of two.
    pub(crate) const fn is_stacked(b: u8) -> bool {
        b & STACKED != 0
    }
    /// The obelisk cell with a second obelisk on top.
    pub(crate) const fn stacked(b: u8) -> u8 {
        b | STACKED
    }
    /// The obelisk cell with its top obelisk gone (a single obelisk stays as it is).
    pub(crate) const fn single(b: u8) -> u8 {
        b & !STACKED
    }
    /// Whether the cell holds a piece (not empty, not off the board).
    pub(crate) const fn is_piece(b: u8) -> bool {
        b & OCCUPIED != 0 && b != OFF
    }
}

/// A side. Silver moves first and sits at rank 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Color {
    /// Moves first; its laser is in `j1`.
    Silver = 0,
    /// Its laser is in `a8`.
    Red = 1,
}

impl Color {
    /// Both sides, Silver first.
    pub const ALL: [Color; 2] = [Color::Silver, Color::Red];

    /// 0 for Silver, 1 for Red.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The opponent.
    pub const fn other(self) -> Color {
        match self {
            Color::Silver => Color::Red,
            Color::Red => Color::Silver,
        }
    }

    /// `"Silver"` or `"Red"`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Silver => "Silver",
            Color::Red => "Red",
        }
    }

    /// `"silver"` or `"red"`: the name as an identifier (the browser pages' classes and JSON).
    pub const fn id(self) -> &'static str {
        match self {
            Color::Silver => "silver",
            Color::Red => "red",
        }
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    fn not(self) -> Color {
        self.other()
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `silver` or `red` in any case, or the position string's side digit `0` or `1`.
impl FromStr for Color {
    type Err = ParseNameError;
    fn from_str(s: &str) -> Result<Color, ParseNameError> {
        match s.to_ascii_lowercase().as_str() {
            "silver" | "0" => Ok(Color::Silver),
            "red" | "1" => Ok(Color::Red),
            _ => Err(ParseNameError::new("colour", s, "silver or red")),
        }
    }
}

/// The kinds of piece of both editions and the Eye of Horus expansion.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Kind {
    /// Lose it to the laser and the game is lost. No mirror, never rotates.
    Pharaoh = 0,
    /// Khet 2.0's laser. Never moves or leaves the board; rotating it is a whole turn.
    Sphinx = 1,
    /// One diagonal mirror; its two other faces are vulnerable.
    Pyramid = 2,
    /// Khet 2.0: blocks a beam on its front (shield) and is removed when hit elsewhere.
    Anubis = 3,
    /// Khet 2.0: two-sided diagonal mirror, never removed, swaps with Pyramids and Anubises.
    Scarab = 4,
    /// Khet 1.0: two-sided diagonal mirror, never removed, swaps with Pyramids and Obelisks.
    Djed = 5,
    /// Khet 1.0: no mirror, removed when hit; two of one colour may stack.
    Obelisk = 6,
    /// Beam splitter: a semi-transparent two-sided mirror; never removed.
    Eye = 7,
}

impl Kind {
    /// The kind's letter in position strings (lower case; Silver's are written in upper case).
    pub(crate) fn letter(self) -> char {
        match self {
            Kind::Pharaoh => 'k',
            Kind::Sphinx => 'x',
            Kind::Pyramid => 'p',
            Kind::Anubis => 'a',
            Kind::Scarab => 's',
            Kind::Djed => 'd',
            Kind::Obelisk => 'o',
            Kind::Eye => 'e',
        }
    }

    /// The kind a position string's letter (either case) stands for.
    pub(crate) fn from_letter(letter: char) -> Option<Kind> {
        Kind::ALL
            .into_iter()
            .find(|k| k.letter() == letter.to_ascii_lowercase())
    }

    /// Every kind, in discriminant order.
    pub const ALL: [Kind; 8] = [
        Kind::Pharaoh,
        Kind::Sphinx,
        Kind::Pyramid,
        Kind::Anubis,
        Kind::Scarab,
        Kind::Djed,
        Kind::Obelisk,
        Kind::Eye,
    ];

    /// The discriminant, 0..8.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The kind's name as the rule books write it (`"Eye of Horus"` for the Eye).
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Pharaoh => "Pharaoh",
            Kind::Sphinx => "Sphinx",
            Kind::Pyramid => "Pyramid",
            Kind::Anubis => "Anubis",
            Kind::Scarab => "Scarab",
            Kind::Djed => "Djed",
            Kind::Obelisk => "Obelisk",
            Kind::Eye => "Eye of Horus",
        }
    }

    /// The kind as an identifier, one lowercase word (`"eye"` for the Eye of Horus): the browser
    /// pages' classes and JSON.
    pub const fn id(self) -> &'static str {
        match self {
            Kind::Pharaoh => "pharaoh",
            Kind::Sphinx => "sphinx",
            Kind::Pyramid => "pyramid",
            Kind::Anubis => "anubis",
            Kind::Scarab => "scarab",
            Kind::Djed => "djed",
            Kind::Obelisk => "obelisk",
            Kind::Eye => "eye",
        }
    }

    /// The indefinite article for the kind's name: "an Anubis", "an Obelisk", "a Pyramid".
    pub const fn article(self) -> &'static str {
        match self {
            Kind::Anubis | Kind::Obelisk | Kind::Eye => "an",
            _ => "a",
        }
    }

    /// The name with its article, for messages: `"an Obelisk"`.
    pub fn with_article(self) -> String {
        format!("{} {}", self.article(), self.name())
    }

    /// The two-sided mirrors that may swap places with a neighbour.
    pub const fn is_swapper(self) -> bool {
        matches!(self, Kind::Scarab | Kind::Djed | Kind::Eye)
    }

    /// The pieces a swapper may trade places with.
    pub const fn is_swappable(self) -> bool {
        matches!(self, Kind::Pyramid | Kind::Anubis | Kind::Obelisk)
    }

    /// How many distinct orientations the kind has (1, 2 or 4).
    pub const fn orientations(self) -> u8 {
        match self {
            Kind::Pharaoh | Kind::Obelisk => 1,
            Kind::Sphinx | Kind::Pyramid | Kind::Anubis => 4,
            Kind::Scarab | Kind::Djed | Kind::Eye => 2,
        }
    }

    /// Whether the kind's orientation is a facing (N/E/S/W) rather than a diagonal.
    pub const fn faces_a_direction(self) -> bool {
        matches!(self, Kind::Sphinx | Kind::Anubis)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A kind's name in any case (`pyramid`, `Eye of Horus` or `eye`) or its position-string letter
/// (`p`, `x`, `k`, …).
impl FromStr for Kind {
    type Err = ParseNameError;
    fn from_str(s: &str) -> Result<Kind, ParseNameError> {
        let lower = s.trim().to_ascii_lowercase();
        Kind::ALL
            .into_iter()
            .find(|k| {
                k.name().eq_ignore_ascii_case(&lower)
                    || (*k == Kind::Eye && lower == "eye")
                    || lower == k.letter().to_string()
            })
            .ok_or_else(|| {
                ParseNameError::new(
                    "kind of piece",
                    s,
                    "Pharaoh, Sphinx, Pyramid, Anubis, Scarab, Djed, Obelisk, Eye, or k x p a s d o e",
                )
            })
    }
}

/// A diagonal compass direction, used for mirrors. A Pyramid's is the way its mirror faces; a
/// two-sided mirror's `NE` and `SW` are the same (mirror line `\`), as are `SE` and `NW` (`/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[allow(missing_docs)] // the compass names say it
pub enum Diagonal {
    NE = 0,
    SE = 1,
    SW = 2,
    NW = 3,
}

impl Diagonal {
    /// The four diagonals, clockwise from `NE`.
    pub const ALL: [Diagonal; 4] = [Diagonal::NE, Diagonal::SE, Diagonal::SW, Diagonal::NW];

    /// The diagonal with index `i mod 4` (0 = `NE`, clockwise).
    pub const fn from_index(i: usize) -> Diagonal {
        Diagonal::ALL[i & 3]
    }

    /// `"NE"`, `"SE"`, `"SW"` or `"NW"`.
    pub const fn name(self) -> &'static str {
        match self {
            Diagonal::NE => "NE",
            Diagonal::SE => "SE",
            Diagonal::SW => "SW",
            Diagonal::NW => "NW",
        }
    }
}

impl fmt::Display for Diagonal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Diagonal {
    type Err = ParseNameError;
    fn from_str(s: &str) -> Result<Diagonal, ParseNameError> {
        match s.to_ascii_uppercase().as_str() {
            "NE" => Ok(Diagonal::NE),
            "SE" => Ok(Diagonal::SE),
            "SW" => Ok(Diagonal::SW),
            "NW" => Ok(Diagonal::NW),
            _ => Err(ParseNameError::new("diagonal", s, "NE, SE, SW or NW")),
        }
    }
}

/// A quarter turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Rotation {
    /// Written `+`.
    Clockwise,
    /// Written `-`.
    Anticlockwise,
}

impl Rotation {
    /// `+` or `-`, as in move text.
    pub const fn symbol(self) -> char {
        match self {
            Rotation::Clockwise => '+',
            Rotation::Anticlockwise => '-',
        }
    }
}

/// A piece: colour, kind, orientation and, for obelisks, the height of the stack (1 or 2).
///
/// Packed in one byte (`1 c kkk s oo`: occupied, colour, kind, stacked, orientation) so that the
/// board is a small `Copy` array and the laser can look cells up in a table. The orientation
/// index is a [`Direction`] for Sphinx and Anubis, a [`Diagonal`] for mirrors (taken mod 2 for the
/// two-sided ones) and 0 for pieces without one, so equal pieces always have equal bytes.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Piece(u8);

impl Piece {
    const fn pack(color: Color, kind: Kind, stacked: bool, orientation: u8) -> Piece {
        let o = orientation % kind.orientations();
        Piece(cell::pack(color as u8, kind as u8, stacked, o))
    }

    /// A Pharaoh.
    pub const fn pharaoh(color: Color) -> Piece {
        Piece::pack(color, Kind::Pharaoh, false, 0)
    }
    /// A Sphinx whose laser points `dir`.
    pub const fn sphinx(color: Color, dir: Direction) -> Piece {
        Piece::pack(color, Kind::Sphinx, false, dir as u8)
    }
    /// An Anubis whose shield faces `front`.
    pub const fn anubis(color: Color, front: Direction) -> Piece {
        Piece::pack(color, Kind::Anubis, false, front as u8)
    }
    /// A Pyramid whose mirror faces `facing`.
    pub const fn pyramid(color: Color, facing: Diagonal) -> Piece {
        Piece::pack(color, Kind::Pyramid, false, facing as u8)
    }
    /// A Scarab; `NE`/`SW` is the mirror `\\`, `SE`/`NW` is `/`.
    pub const fn scarab(color: Color, mirror: Diagonal) -> Piece {
        Piece::pack(color, Kind::Scarab, false, mirror as u8)
    }
    /// A Djed (Khet 1.0's Scarab); mirrors as [`Piece::scarab`].
    pub const fn djed(color: Color, mirror: Diagonal) -> Piece {
        Piece::pack(color, Kind::Djed, false, mirror as u8)
    }
    /// An Eye of Horus; mirrors as [`Piece::scarab`].
    pub const fn eye(color: Color, mirror: Diagonal) -> Piece {
        Piece::pack(color, Kind::Eye, false, mirror as u8)
    }
    /// A single obelisk (`height` 1) or a stacked pair (`height` 2).
    pub const fn obelisk(color: Color, height: u8) -> Piece {
        Piece::pack(color, Kind::Obelisk, height >= 2, 0)
    }

    /// A piece of any kind with a raw orientation index (see the type's docs).
    pub const fn new(color: Color, kind: Kind, orientation: u8) -> Piece {
        Piece::pack(color, kind, false, orientation)
    }

    /// The owner.
    pub const fn color(self) -> Color {
        Color::ALL[cell::color(self.0) as usize]
    }

    /// What kind of piece it is.
    pub const fn kind(self) -> Kind {
        Kind::ALL[cell::kind(self.0) as usize]
    }

    /// The raw orientation index, 0..4.
    pub const fn orientation(self) -> u8 {
        cell::orientation(self.0)
    }

    /// The facing of a Sphinx or Anubis.
    pub const fn facing(self) -> Option<Direction> {
        if self.kind().faces_a_direction() {
            Some(Direction::from_index(self.orientation() as usize))
        } else {
            None
        }
    }

    /// The mirror of a Pyramid, Scarab, Djed or Eye (two-sided ones give `NE` for `\`, `SE` for `/`).
    pub const fn mirror(self) -> Option<Diagonal> {
        match self.kind() {
            Kind::Pyramid | Kind::Scarab | Kind::Djed | Kind::Eye => {
                Some(Diagonal::from_index(self.orientation() as usize))
            }
            _ => None,
        }
    }

    /// Obelisk stack height (1 or 2); 1 for every other piece.
    pub const fn height(self) -> u8 {
        if cell::is_stacked(self.0) { 2 } else { 1 }
    }

    /// This piece after a quarter turn.
    pub const fn rotated(self, rotation: Rotation) -> Piece {
        let step = match rotation {
            Rotation::Clockwise => 1,
            Rotation::Anticlockwise => 3,
        };
        let kind = self.kind();
        let o = (self.orientation() + step) % kind.orientations();
        Piece(cell::with_orientation(self.0, o))
    }

    /// Whether a quarter turn changes anything (not for Pharaoh and Obelisk).
    pub const fn can_rotate(self) -> bool {
        self.kind().orientations() > 1
    }

    /// The piece as the other side's, turned half a turn: what stands on the partner square
    /// of a symmetric setup. A half turn adds 2 to a facing or a diagonal; two-sided mirrors
    /// map to themselves.
    pub const fn mirrored(self) -> Piece {
        Piece::new(self.color().other(), self.kind(), self.orientation() + 2)
            .with_height(self.height())
    }

    /// The same piece with the stack height changed (obelisks only).
    pub(crate) const fn with_height(self, height: u8) -> Piece {
        if height >= 2 {
            Piece(cell::stacked(self.0))
        } else {
            Piece(cell::single(self.0))
        }
    }

    pub(crate) const fn byte(self) -> u8 {
        self.0
    }

    pub(crate) const fn from_byte(b: u8) -> Option<Piece> {
        if cell::is_piece(b) {
            Some(Piece(b))
        } else {
            None
        }
    }

    /// A short text form: colour letter case as in position strings, kind, orientation.
    pub fn describe(self) -> String {
        let mut s = format!("{} {}", self.color(), self.kind());
        if let Some(d) = self.facing() {
            s += &format!(" facing {d}");
        } else if let Some(m) = self.mirror() {
            match self.kind() {
                Kind::Pyramid => s += &format!(" facing {m}"),
                _ => {
                    s += if (m as u8).is_multiple_of(2) {
                        " \\"
                    } else {
                        " /"
                    }
                }
            }
        } else if self.kind() == Kind::Obelisk && self.height() == 2 {
            s += " (stack of 2)";
        }
        s
    }
}

impl fmt::Debug for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips() {
        for color in Color::ALL {
            for kind in Kind::ALL {
                for o in 0..4 {
                    let p = Piece::new(color, kind, o);
                    assert_eq!(p.color(), color);
                    assert_eq!(p.kind(), kind);
                    assert_eq!(p.orientation(), o % kind.orientations());
                    assert_eq!(Piece::from_byte(p.byte()), Some(p));
                }
            }
        }
    }

    #[test]
    fn rotations() {
        let p = Piece::pyramid(Color::Silver, Diagonal::NE);
        assert_eq!(p.rotated(Rotation::Clockwise).mirror(), Some(Diagonal::SE));
        assert_eq!(
            p.rotated(Rotation::Anticlockwise).mirror(),
            Some(Diagonal::NW)
        );
        let s = Piece::scarab(Color::Red, Diagonal::SW);
        assert_eq!(s, Piece::scarab(Color::Red, Diagonal::NE));
        assert_eq!(
            s.rotated(Rotation::Clockwise),
            s.rotated(Rotation::Anticlockwise)
        );
        assert_ne!(s.rotated(Rotation::Clockwise), s);
        let o = Piece::obelisk(Color::Red, 2);
        assert_eq!(o.height(), 2);
        assert_eq!(o.with_height(1), Piece::obelisk(Color::Red, 1));
        assert!(!o.can_rotate());
    }
}
