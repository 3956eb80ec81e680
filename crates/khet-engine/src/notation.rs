//! Position strings: the Khet2-AI engine's format, read and written exactly for Khet 2.0.
//!
//! `<rank 8>/<rank 7>/…/<rank 1> <side>`; side `0` = Silver to move, `1` = Red. Upper case is
//! Silver, lower case Red. `x` Sphinx, `a` Anubis, `p` Pyramid, `s` Scarab, each followed by one
//! orientation digit; `k` Pharaoh, with none. A digit that follows no letter is a run of that many
//! empty squares; a wholly empty rank is an empty field. Digits: Pyramid 1 = NE, 2 = SE, 3 = SW,
//! 4 = NW; Anubis and Sphinx 1 = N, 2 = E, 3 = S, 4 = W; Scarab odd = `\`, even = `/` (we write
//! 1 and 2).
//!
//! Our extension, for what that engine does not play: `d` Djed (digit as the Scarab's), `o`
//! Obelisk with its stack height (`o1`, `o2`), `e` Eye of Horus (digit as the Scarab's). A string
//! with Sphinxes is a Khet 2.0 position; one without is Khet 1.0, whose lasers are fixed.

use crate::piece::{Color, Diagonal, Kind, Piece};
use crate::position::{Position, Problem};
use crate::rules::{Edition, Rules, SwapLanding};
use crate::square::{Direction, File, Rank, Square};
use crate::text::{char_number, quote};
use std::fmt;

/// The longest position string read: a full board is under 200 characters.
pub const MAX_POSITION_LEN: usize = 1000;

/// Why a position string could not be read: where and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionError {
    /// The 1-based number of the character (not byte) concerned, when there is one.
    pub at: Option<usize>,
    /// What is wrong.
    pub kind: PositionErrorKind,
}

/// What is wrong with a position string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionErrorKind {
    /// Longer than [`MAX_POSITION_LEN`] characters.
    TooLong(usize),
    /// No side to move after the ranks.
    NoSide,
    /// The side to move is not `0` or `1`.
    BadSide(String),
    /// Not eight ranks.
    RankCount(usize),
    /// A run of `0` empty squares.
    ZeroRun,
    /// A piece letter without its orientation digit.
    NeedsDigit(Kind),
    /// A digit that is no orientation of the kind.
    BadDigit {
        /// The digit read.
        digit: u8,
        /// The piece it follows.
        kind: Kind,
    },
    /// A rank of more than ten squares.
    TooManySquares(Rank),
    /// A rank of fewer than ten squares.
    TooFewSquares {
        /// The rank.
        rank: Rank,
        /// How many squares it has.
        squares: usize,
    },
    /// A character that is neither a piece letter nor a digit.
    NotAPiece(char),
    /// The arrangement breaks the rules (see [`Position::problems`]).
    Unplayable(Vec<Problem>),
}

impl fmt::Display for PositionErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PositionErrorKind::TooLong(n) => write!(
                f,
                "a position string is at most {MAX_POSITION_LEN} characters, not {n}"
            ),
            PositionErrorKind::NoSide => f.write_str("expected '<ranks> <side>', e.g. '... 0'"),
            PositionErrorKind::BadSide(s) => write!(
                f,
                "side to move must be 0 (Silver) or 1 (Red), not '{}'",
                quote(s)
            ),
            PositionErrorKind::RankCount(n) => {
                write!(f, "expected 8 ranks separated by '/', found {n}")
            }
            PositionErrorKind::ZeroRun => f.write_str("a run of empty squares is 1 to 9"),
            PositionErrorKind::NeedsDigit(kind) => write!(
                f,
                "'{}' ({}) needs an orientation digit",
                kind.letter(),
                kind.name()
            ),
            PositionErrorKind::BadDigit { digit, kind } => write!(
                f,
                "{digit} is not an orientation of {}",
                kind.with_article()
            ),
            PositionErrorKind::TooManySquares(rank) => {
                write!(f, "rank {rank} has more than 10 squares")
            }
            PositionErrorKind::TooFewSquares { rank, squares } => {
                write!(f, "rank {rank} has {squares} squares, not 10")
            }
            PositionErrorKind::NotAPiece(c) => write!(
                f,
                "'{}' is not a piece letter (k x a p s d o e) or a digit",
                quote(&c.to_string())
            ),
            PositionErrorKind::Unplayable(problems) => {
                let all: Vec<String> = problems.iter().map(ToString::to_string).collect();
                write!(f, "not a playable position: {}", all.join("; "))
            }
        }
    }
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some(at) => write!(f, "at character {at}: {}", self.kind),
            None => self.kind.fmt(f),
        }
    }
}

impl std::error::Error for PositionError {}

fn digit_of(piece: Piece) -> Option<u8> {
    match piece.kind() {
        Kind::Pharaoh => None,
        Kind::Obelisk => Some(piece.height()),
        _ => Some(piece.orientation() + 1),
    }
}

/// Writes the position string of `position`; the same as its `Display`.
fn position_to_string(position: &Position) -> String {
    let mut out = String::with_capacity(64);
    for (i, rank) in Rank::ALL.iter().rev().enumerate() {
        if i > 0 {
            out.push('/');
        }
        let mut run = 0;
        for file in File::ALL {
            match position.piece_at(Square::from_coords(file, *rank)) {
                None => run += 1,
                Some(p) => {
                    if run > 0 && run < 10 {
                        out.push((b'0' + run) as char);
                    }
                    run = 0;
                    let l = p.kind().letter();
                    out.push(if p.color() == Color::Silver {
                        l.to_ascii_uppercase()
                    } else {
                        l
                    });
                    if let Some(d) = digit_of(p) {
                        out.push((b'0' + d) as char);
                    }
                }
            }
        }
        if run > 0 && run < 10 {
            out.push((b'0' + run) as char);
        }
    }
    out.push(' ');
    out.push(match position.side_to_move() {
        Color::Silver => '0',
        Color::Red => '1',
    });
    out
}

fn piece_from(kind: Kind, color: Color, digit: u8) -> Option<Piece> {
    match kind {
        Kind::Pharaoh => Some(Piece::pharaoh(color)),
        Kind::Obelisk => match digit {
            1 | 2 => Some(Piece::obelisk(color, digit)),
            _ => None,
        },
        Kind::Sphinx | Kind::Anubis => match digit {
            1..=4 => Some(Piece::new(color, kind, digit - 1)),
            _ => None,
        },
        Kind::Pyramid => match digit {
            1..=4 => Some(Piece::new(color, kind, digit - 1)),
            _ => None,
        },
        Kind::Scarab | Kind::Djed | Kind::Eye => match digit {
            // Odd digits are `\` (orientation 0), even ones `/` (1).
            1..=9 => Some(Piece::new(color, kind, if digit % 2 == 1 { 0 } else { 1 })),
            _ => None,
        },
    }
}

/// Reads a position string (see the module docs) under the default rules, which refuse a piece on
/// a square reserved for the other colour.
///
/// ```
/// use khet_engine::{Color, parse_position};
/// let classic = "x33a3ka3p22/2p37/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23/7P12/2P4A1KA13X1 0";
/// let p = parse_position(classic)?;
/// assert_eq!(p.side_to_move(), Color::Silver);
/// assert_eq!(p.to_string(), classic);
/// # Ok::<(), khet_engine::PositionError>(())
/// ```
pub fn parse_position(text: &str) -> Result<Position, PositionError> {
    parse_position_with(text, Rules::default())
}

/// Reads a position string for a game played under `rules`: under
/// [`SwapLanding::Permissive`] a swapped piece may stand on a square reserved for the other
/// colour, so such a position is accepted; under the default it is refused.
pub fn parse_position_with(text: &str, rules: Rules) -> Result<Position, PositionError> {
    let char_at = |at: usize| Some(char_number(text, at));
    let err = |at: Option<usize>, kind: PositionErrorKind| PositionError { at, kind };
    if text.len() > MAX_POSITION_LEN {
        return Err(err(None, PositionErrorKind::TooLong(text.chars().count())));
    }
    let lead = text.len() - text.trim_start().len();
    let trimmed = text.trim();
    let (board, side) = match trimmed.rsplit_once(char::is_whitespace) {
        Some((b, s)) => (b.trim_end(), s),
        None => return Err(err(None, PositionErrorKind::NoSide)),
    };
    let side_at = lead + trimmed.len() - side.len();
    let side = match side {
        "0" => Color::Silver,
        "1" => Color::Red,
        _ => {
            return Err(err(
                char_at(side_at),
                PositionErrorKind::BadSide(side.to_string()),
            ));
        }
    };
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(err(None, PositionErrorKind::RankCount(ranks.len())));
    }
    let mut placed: Vec<(Square, Piece)> = Vec::new();
    let mut offset = lead;
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = Rank::ALL[7 - i];
        let mut file = 0usize;
        let mut chars = rank_text.char_indices().peekable();
        while let Some((j, ch)) = chars.next() {
            let at = char_at(offset + j);
            if let Some(run) = ch.to_digit(10) {
                if run == 0 {
                    return Err(err(at, PositionErrorKind::ZeroRun));
                }
                file += run as usize;
            } else if let Some(kind) = Kind::from_letter(ch) {
                let color = if ch.is_ascii_uppercase() {
                    Color::Silver
                } else {
                    Color::Red
                };
                let digit = if kind == Kind::Pharaoh {
                    0
                } else {
                    match chars.next() {
                        Some((_, d)) if d.is_ascii_digit() => d as u8 - b'0',
                        _ => return Err(err(at, PositionErrorKind::NeedsDigit(kind))),
                    }
                };
                let Some(piece) = piece_from(kind, color, digit) else {
                    return Err(err(at, PositionErrorKind::BadDigit { digit, kind }));
                };
                if file >= 10 {
                    return Err(err(at, PositionErrorKind::TooManySquares(rank)));
                }
                placed.push((Square::from_coords(File::ALL[file], rank), piece));
                file += 1;
            } else {
                return Err(err(at, PositionErrorKind::NotAPiece(ch)));
            }
            if file > 10 {
                return Err(err(at, PositionErrorKind::TooManySquares(rank)));
            }
        }
        if file != 10 && !(file == 0 && rank_text.is_empty()) {
            return Err(err(
                char_at(offset),
                PositionErrorKind::TooFewSquares {
                    rank,
                    squares: file,
                },
            ));
        }
        offset += rank_text.len() + 1;
    }
    let edition = if placed.iter().any(|(_, p)| p.kind() == Kind::Sphinx) {
        Edition::Khet2
    } else {
        Edition::Khet1
    };
    let mut position = Position::empty(edition);
    for (sq, p) in placed {
        position.put(sq, Some(p));
    }
    position.set_side_to_move(side);
    position.set_rules(rules);
    // A piece on a square reserved against it is reachable only under `permissive-swap`.
    let problems = position.problems_with(rules.swap_landing == SwapLanding::Strict);
    if !problems.is_empty() {
        return Err(err(None, PositionErrorKind::Unplayable(problems)));
    }
    Ok(position)
}

/// [`parse_position`]: the default rules.
impl std::str::FromStr for Position {
    type Err = PositionError;
    fn from_str(s: &str) -> Result<Position, PositionError> {
        parse_position(s)
    }
}

/// The position string (see the module docs), so that `p.to_string().parse()` gives `p` back
/// (with the default rules). [`Position::diagram`] draws the board.
impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&position_to_string(self))
    }
}

impl Position {
    /// The board as a diagram in the key of `docs/rules.md` (Diagrams; upper case Silver), rank 8
    /// on top, with the reserved squares marked (`+` Silver's, `~` Red's), and a last line saying
    /// who moves.
    pub fn diagram(&self) -> String {
        let mut f = String::new();
        self.write_diagram(&mut f)
            .unwrap_or_else(|_| unreachable!("writing to a String cannot fail"));
        f
    }

    fn write_diagram(&self, f: &mut String) -> fmt::Result {
        use std::fmt::Write;
        for rank in Rank::ALL.iter().rev() {
            write!(f, "{} ", rank.char())?;
            for file in File::ALL {
                let sq = Square::from_coords(file, *rank);
                let text = match self.piece_at(sq) {
                    Some(p) => diagram_token(p),
                    None => match crate::position::reserved_for(sq) {
                        Some(Color::Silver) => "+".to_string(),
                        Some(Color::Red) => "~".to_string(),
                        None => ".".to_string(),
                    },
                };
                write!(f, "{text:^5}")?;
            }
            writeln!(f)?;
        }
        write!(f, "  ")?;
        for file in File::ALL {
            write!(f, "{:^5}", file.char())?;
        }
        writeln!(f)?;
        write!(f, "{} to move ({})", self.side_to_move(), self.edition())
    }
}

/// The diagram token of a piece, in the key of `docs/rules.md` (Diagrams): `PNE`, `S/`, `AN`,
/// `XS`, `K`, plus `D\` (Djed), `O`/`OO` (obelisk, stack) and `E/` (Eye). Upper case is Silver.
pub fn diagram_token(p: Piece) -> String {
    let mut s = String::new();
    let l = p.kind().letter();
    let cased = |c: char| {
        if p.color() == Color::Silver {
            c.to_ascii_uppercase()
        } else {
            c
        }
    };
    s.push(cased(l));
    match p.kind() {
        Kind::Pharaoh => {}
        Kind::Obelisk => {
            if p.height() == 2 {
                s.push(cased('o'));
            }
        }
        Kind::Sphinx | Kind::Anubis => {
            s.push(Direction::from_index(p.orientation() as usize).char());
        }
        Kind::Pyramid => s += Diagonal::from_index(p.orientation() as usize).name(),
        _ => s.push(if p.orientation() == 0 { '\\' } else { '/' }),
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLASSIC: &str =
        "x33a3ka3p22/2p37/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23/7P12/2P4A1KA13X1 0";

    #[test]
    fn classic_round_trips() {
        let p = parse_position(CLASSIC).unwrap();
        assert_eq!(position_to_string(&p), CLASSIC);
        assert_eq!(p.edition(), Edition::Khet2);
        assert_eq!(p.pieces().count(), 26);
    }

    #[test]
    fn empty_rank_is_an_empty_field() {
        let s = "x33a3ka3p22/2p37/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23//2P4A1KA13X1 1";
        let p = parse_position(s).unwrap();
        assert_eq!(position_to_string(&p), s);
        assert_eq!(p.side_to_move(), Color::Red);
    }

    #[test]
    fn errors_name_the_place() {
        let e = parse_position(
            "x33a3ka3p22/2p37/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23/7P12/2P4A1KA13X1 2",
        )
        .unwrap_err();
        assert!(e.to_string().contains("side to move"), "{e}");
        let e = parse_position(
            "x33a3ka3p22/2p37/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23/7P12/2P4A1KA13X 0",
        )
        .unwrap_err();
        assert!(e.to_string().contains("orientation digit"), "{e}");
        let e = parse_position(
            "x33a3ka3p22/2p37/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23/7P13/2P4A1KA13X1 0",
        )
        .unwrap_err();
        assert!(e.to_string().contains("more than 10"), "{e}");
        let e = parse_position(
            "x33a3ka3p22/2p37/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23/7P12/2P4A1KA14X1 0",
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("more than 10") || e.to_string().contains("squares"),
            "{e}"
        );
        let e = parse_position("x33a3ka3p22/2p37/3P46 0").unwrap_err();
        assert!(e.to_string().contains("8 ranks"), "{e}");
        let e = parse_position(
            "x33a3ka3p22/2p37/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23/7P12/2P4A1?A13X1 0",
        )
        .unwrap_err();
        assert!(e.to_string().contains("'?'"), "{e}");
        // Two red Pharaohs and none for Silver.
        let e = parse_position(
            "x33a3ka3p22/2p37/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23/7P12/2P4A1kA13X1 0",
        )
        .unwrap_err();
        assert!(e.to_string().contains("Pharaoh"), "{e}");
    }
}
