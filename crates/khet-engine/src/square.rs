//! Squares, files, ranks and compass directions of the 10 × 8 board.
//!
//! Files `a`..`j` run left to right as Silver sees the board, ranks `1`..`8` with Silver at rank 1;
//! north is towards rank 8. Internally the board is a padded "mailbox" of 12 × 10 cells whose
//! border cells hold a sentinel, so the laser and the move generator never test coordinates.

use crate::text::ParseNameError;
use std::fmt;
use std::str::FromStr;

/// Number of files (columns).
pub const FILES: u8 = 10;
/// Number of ranks (rows).
pub const RANKS: u8 = 8;
/// Number of squares on the board.
pub const SQUARES: usize = 80;

/// Width of the padded mailbox board.
pub(crate) const MB_WIDTH: usize = 12;
/// Number of cells in the padded mailbox board.
pub(crate) const MB_CELLS: usize = 120;

/// A file (column), `a`..`j`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct File(u8);

/// A rank (row), `1`..`8`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rank(u8);

impl File {
    /// Every file, `a` to `j`.
    pub const ALL: [File; 10] = {
        let mut all = [File(0); 10];
        let mut i = 0;
        while i < 10 {
            all[i] = File(i as u8);
            i += 1;
        }
        all
    };

    /// The file with this index (0 = `a`), if there is one.
    pub const fn new(index: u8) -> Option<File> {
        if index < FILES {
            Some(File(index))
        } else {
            None
        }
    }

    /// 0 for `a` up to 9 for `j`.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The letter of this file.
    pub const fn char(self) -> char {
        (b'a' + self.0) as char
    }
}

impl Rank {
    /// Every rank, `1` to `8`.
    pub const ALL: [Rank; 8] = {
        let mut all = [Rank(0); 8];
        let mut i = 0;
        while i < 8 {
            all[i] = Rank(i as u8);
            i += 1;
        }
        all
    };

    /// The rank with this index (0 = rank 1), if there is one.
    pub const fn new(index: u8) -> Option<Rank> {
        if index < RANKS {
            Some(Rank(index))
        } else {
            None
        }
    }

    /// 0 for rank 1 up to 7 for rank 8.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The digit of this rank.
    pub const fn char(self) -> char {
        (b'1' + self.0) as char
    }
}

/// One of the 80 squares. Index = rank × 10 + file, so `a1` = 0 and `j8` = 79. Serialized as
/// its index; an index off the board does not deserialize.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(into = "u8", try_from = "u8")]
pub struct Square(u8);

impl From<Square> for u8 {
    fn from(square: Square) -> u8 {
        square.0
    }
}

impl TryFrom<u8> for Square {
    type Error = String;

    fn try_from(index: u8) -> Result<Square, String> {
        Square::new(index).ok_or_else(|| format!("no square has the index {index}"))
    }
}

impl Square {
    /// Every square, `a1`, `b1`, … `j8`.
    pub const ALL: [Square; SQUARES] = {
        let mut all = [Square(0); SQUARES];
        let mut i = 0;
        while i < SQUARES {
            all[i] = Square(i as u8);
            i += 1;
        }
        all
    };

    /// The square on this file and rank.
    pub const fn from_coords(file: File, rank: Rank) -> Square {
        Square(rank.0 * FILES + file.0)
    }

    /// The square with this index (0..80), if there is one.
    pub const fn new(index: u8) -> Option<Square> {
        if (index as usize) < SQUARES {
            Some(Square(index))
        } else {
            None
        }
    }

    /// 0..80, rank × 10 + file.
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The square's file.
    pub const fn file(self) -> File {
        File(self.0 % FILES)
    }

    /// The square's rank.
    pub const fn rank(self) -> Rank {
        Rank(self.0 / FILES)
    }

    /// The neighbouring square one step in `dir`, if it is on the board.
    pub fn step(self, dir: Direction) -> Option<Square> {
        let (df, dr) = dir.delta();
        let f = self.file().0 as i8 + df;
        let r = self.rank().0 as i8 + dr;
        if (0..FILES as i8).contains(&f) && (0..RANKS as i8).contains(&r) {
            Some(Square(r as u8 * FILES + f as u8))
        } else {
            None
        }
    }

    /// The square reached by turning the board half a turn (how Red sees this square).
    pub const fn rotate_180(self) -> Square {
        Square(SQUARES as u8 - 1 - self.0)
    }

    /// Index of this square on the padded mailbox board.
    pub(crate) const fn mb(self) -> usize {
        TO_MB[self.0 as usize] as usize
    }

    /// The square at a mailbox index, if that cell is on the board.
    pub(crate) fn from_mb(mb: usize) -> Option<Square> {
        let s = FROM_MB[mb];
        if s == u8::MAX { None } else { Some(Square(s)) }
    }
}

pub(crate) const TO_MB: [u8; SQUARES] = {
    let mut t = [0u8; SQUARES];
    let mut i = 0;
    while i < SQUARES {
        let file = i % FILES as usize;
        let rank = i / FILES as usize;
        t[i] = ((rank + 1) * MB_WIDTH + file + 1) as u8;
        i += 1;
    }
    t
};

const FROM_MB: [u8; MB_CELLS] = {
    let mut t = [u8::MAX; MB_CELLS];
    let mut i = 0;
    while i < SQUARES {
        t[TO_MB[i] as usize] = i as u8;
        i += 1;
    }
    t
};

impl fmt::Display for File {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

/// A letter `a`..`j` (either case).
impl FromStr for File {
    type Err = ParseNameError;
    fn from_str(s: &str) -> Result<File, ParseNameError> {
        match s.as_bytes() {
            [b] => File::new(b.to_ascii_lowercase().wrapping_sub(b'a')),
            _ => None,
        }
        .ok_or_else(|| ParseNameError::new("file", s, "a letter from a to j"))
    }
}

impl fmt::Display for Rank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

/// A digit `1`..`8`.
impl FromStr for Rank {
    type Err = ParseNameError;
    fn from_str(s: &str) -> Result<Rank, ParseNameError> {
        match s.as_bytes() {
            [b] => Rank::new(b.wrapping_sub(b'1')),
            _ => None,
        }
        .ok_or_else(|| ParseNameError::new("rank", s, "a digit from 1 to 8"))
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.file().char(), self.rank().char())
    }
}

/// Why a square's text could not be read; holds the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSquareError(pub String);

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a square (files a-j, ranks 1-8, e.g. e4)",
            crate::text::quote(&self.0)
        )
    }
}

impl std::error::Error for ParseSquareError {}

impl FromStr for Square {
    type Err = ParseSquareError;

    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        let err = || ParseSquareError(s.to_string());
        let b = s.as_bytes();
        if b.len() != 2 {
            return Err(err());
        }
        let file = File::new(b[0].to_ascii_lowercase().wrapping_sub(b'a')).ok_or_else(err)?;
        let rank = Rank::new(b[1].wrapping_sub(b'1')).ok_or_else(err)?;
        Ok(Square::from_coords(file, rank))
    }
}

/// A compass direction of travel or facing: N is towards rank 8, E towards file `j`.
///
/// The discriminants go clockwise, so a clockwise quarter turn is `+1 mod 4`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[allow(missing_docs)] // the compass names say it
pub enum Direction {
    N = 0,
    E = 1,
    S = 2,
    W = 3,
}

impl Direction {
    /// The four directions, clockwise from north.
    pub const ALL: [Direction; 4] = [Direction::N, Direction::E, Direction::S, Direction::W];

    /// 0 for N, clockwise.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The direction with index `i mod 4`.
    pub const fn from_index(i: usize) -> Direction {
        Direction::ALL[i & 3]
    }

    /// The direction half a turn away.
    pub const fn opposite(self) -> Direction {
        Direction::from_index(self as usize + 2)
    }

    /// The direction a quarter turn clockwise.
    pub const fn clockwise(self) -> Direction {
        Direction::from_index(self as usize + 1)
    }

    /// The direction a quarter turn anticlockwise.
    pub const fn anticlockwise(self) -> Direction {
        Direction::from_index(self as usize + 3)
    }

    /// (file, rank) change of one step.
    pub const fn delta(self) -> (i8, i8) {
        match self {
            Direction::N => (0, 1),
            Direction::E => (1, 0),
            Direction::S => (0, -1),
            Direction::W => (-1, 0),
        }
    }

    /// `N`, `E`, `S` or `W`.
    pub const fn char(self) -> char {
        match self {
            Direction::N => 'N',
            Direction::E => 'E',
            Direction::S => 'S',
            Direction::W => 'W',
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

impl FromStr for Direction {
    type Err = ParseNameError;
    fn from_str(s: &str) -> Result<Direction, ParseNameError> {
        match s {
            "N" | "n" => Ok(Direction::N),
            "E" | "e" => Ok(Direction::E),
            "S" | "s" => Ok(Direction::S),
            "W" | "w" => Ok(Direction::W),
            _ => Err(ParseNameError::new("direction", s, "N, E, S or W")),
        }
    }
}

/// The mailbox steps to the eight neighbours of a cell (king moves).
pub(crate) const NEIGHBOURS: [isize; 8] = [
    MB_WIDTH as isize - 1,
    MB_WIDTH as isize,
    MB_WIDTH as isize + 1,
    -1,
    1,
    -(MB_WIDTH as isize) - 1,
    -(MB_WIDTH as isize),
    -(MB_WIDTH as isize) + 1,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_text_round_trips() {
        for sq in Square::ALL {
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
            assert_eq!(Square::from_mb(sq.mb()), Some(sq));
        }
        assert!("k1".parse::<Square>().is_err());
        assert!("a9".parse::<Square>().is_err());
        assert!("a".parse::<Square>().is_err());
        assert_eq!("j1".parse::<Square>().map(Square::index), Ok(9));
    }

    #[test]
    fn steps_stop_at_the_edge() {
        let a1: Square = "a1".parse().unwrap();
        assert_eq!(a1.step(Direction::S), None);
        assert_eq!(a1.step(Direction::W), None);
        assert_eq!(
            a1.step(Direction::N).map(|s| s.to_string()),
            Some("a2".into())
        );
        assert_eq!(a1.rotate_180().to_string(), "j8");
    }
}
