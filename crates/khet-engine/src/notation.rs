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
use crate::position::Position;
use crate::rules::Edition;
use crate::square::{Direction, File, Rank, Square};
use std::fmt;

/// Why a position string could not be read: where (a character offset) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionError {
    /// Byte offset into the string, when the problem is at one place.
    pub at: Option<usize>,
    pub reason: String,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.at {
            Some(at) => write!(f, "at character {}: {}", at + 1, self.reason),
            None => f.write_str(&self.reason),
        }
    }
}

impl std::error::Error for PositionError {}

fn letter(kind: Kind) -> char {
    match kind {
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

fn kind_of(letter: char) -> Option<Kind> {
    Some(match letter.to_ascii_lowercase() {
        'k' => Kind::Pharaoh,
        'x' => Kind::Sphinx,
        'p' => Kind::Pyramid,
        'a' => Kind::Anubis,
        's' => Kind::Scarab,
        'd' => Kind::Djed,
        'o' => Kind::Obelisk,
        'e' => Kind::Eye,
        _ => return None,
    })
}

fn digit_of(piece: Piece) -> Option<u8> {
    match piece.kind() {
        Kind::Pharaoh => None,
        Kind::Obelisk => Some(piece.height()),
        _ => Some(piece.orientation() + 1),
    }
}

/// Writes the position string of `position`.
pub fn position_to_string(position: &Position) -> String {
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
                    let l = letter(p.kind());
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

/// Reads a position string (see the module docs) and checks the arrangement.
pub fn parse_position(text: &str) -> Result<Position, PositionError> {
    let err = |at: Option<usize>, reason: String| PositionError { at, reason };
    let text = text.trim();
    let (board, side) = match text.rsplit_once(char::is_whitespace) {
        Some((b, s)) => (b.trim_end(), s),
        None => return Err(err(None, "expected '<ranks> <side>', e.g. '... 0'".into())),
    };
    let side_at = text.len() - side.len();
    let side = match side {
        "0" => Color::Silver,
        "1" => Color::Red,
        _ => {
            return Err(err(
                Some(side_at),
                format!("side to move must be 0 (Silver) or 1 (Red), not '{side}'"),
            ));
        }
    };
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 8 {
        return Err(err(
            None,
            format!("expected 8 ranks separated by '/', found {}", ranks.len()),
        ));
    }
    let mut placed: Vec<(Square, Piece)> = Vec::new();
    let mut offset = 0;
    for (i, rank_text) in ranks.iter().enumerate() {
        let rank = Rank::ALL[7 - i];
        let mut file = 0usize;
        let mut chars = rank_text.char_indices().peekable();
        while let Some((j, ch)) = chars.next() {
            let at = Some(offset + j);
            if let Some(run) = ch.to_digit(10) {
                if run == 0 {
                    return Err(err(at, "a run of empty squares is 1 to 9".into()));
                }
                file += run as usize;
            } else if let Some(kind) = kind_of(ch) {
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
                        _ => {
                            return Err(err(
                                at,
                                format!("'{ch}' ({}) needs an orientation digit", kind.name()),
                            ));
                        }
                    }
                };
                let Some(piece) = piece_from(kind, color, digit) else {
                    return Err(err(
                        at,
                        format!("{digit} is not an orientation of a {}", kind.name()),
                    ));
                };
                if file >= 10 {
                    return Err(err(
                        at,
                        format!("rank {} has more than 10 squares", rank.char()),
                    ));
                }
                placed.push((Square::from_coords(File::ALL[file], rank), piece));
                file += 1;
            } else {
                return Err(err(
                    at,
                    format!("'{ch}' is not a piece letter (k x a p s d o e) or a digit"),
                ));
            }
            if file > 10 {
                return Err(err(
                    at,
                    format!("rank {} has more than 10 squares", rank.char()),
                ));
            }
        }
        if file != 10 && !(file == 0 && rank_text.is_empty()) {
            return Err(err(
                Some(offset),
                format!("rank {} has {file} squares, not 10", rank.char()),
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
    // A piece on a square reserved against it is reachable under `permissive-swap`.
    let problems = position.problems_with(false);
    if !problems.is_empty() {
        let all: Vec<String> = problems.iter().map(ToString::to_string).collect();
        return Err(err(
            None,
            format!("not a playable position: {}", all.join("; ")),
        ));
    }
    Ok(position)
}

impl std::str::FromStr for Position {
    type Err = PositionError;
    fn from_str(s: &str) -> Result<Position, PositionError> {
        parse_position(s)
    }
}

/// The diagram token of a piece, in `KHET.md`'s key: `PNE`, `S/`, `AN`, `XS`, `K`, plus `D\`
/// (Djed), `O`/`OO` (obelisk, stack) and `E/` (Eye). Upper case is Silver.
pub fn diagram_token(p: Piece) -> String {
    let mut s = String::new();
    let l = letter(p.kind());
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
