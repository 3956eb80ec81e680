//! The board value: pieces on squares, side to move, edition and rule options.
//!
//! `Position` is a small `Copy` value (about 130 bytes), so the search copies it instead of
//! undoing moves. The play API follows the chess crates: [`Position::play`] panics on an illegal
//! move, [`Position::try_play`] refuses it with the reason, [`Position::play_unchecked`] trusts
//! the caller (the search, with moves from the generator).

use crate::laser::hits::Hits;
use crate::moves::Move;
use crate::piece::cell::{self, EMPTY, OFF};
use crate::piece::{Color, Kind, Piece};
use crate::rules::{Edition, Rules};
use crate::square::{MB_CELLS, Square};
use crate::zobrist;
use std::fmt;

/// The corner of `color`'s laser: its Sphinx in Khet 2.0, where its fixed laser enters in 1.0.
pub const fn sphinx_square(color: Color) -> Square {
    match color {
        Color::Silver => Square::ALL[9], // j1
        Color::Red => Square::ALL[70],   // a8
    }
}

/// Whether a piece of `color` may never stand on `sq`: the other colour's reserved squares.
/// Silver may not enter the `a` file, `i1`, `i8`; Red may not enter the `j` file, `b1`, `b8`.
pub const fn is_reserved_against(sq: Square, color: Color) -> bool {
    let file = sq.file().index();
    let rank = sq.rank().index();
    match color {
        Color::Silver => file == 0 || (file == 8 && (rank == 0 || rank == 7)),
        Color::Red => file == 9 || (file == 1 && (rank == 0 || rank == 7)),
    }
}

/// The colour a square is reserved for, if any.
pub fn reserved_for(sq: Square) -> Option<Color> {
    if is_reserved_against(sq, Color::Red) {
        Some(Color::Silver)
    } else if is_reserved_against(sq, Color::Silver) {
        Some(Color::Red)
    } else {
        None
    }
}

/// `FORBIDDEN[color][mb]`: a piece of `color` may not stand there (reserved or off the board).
pub(crate) static FORBIDDEN: [[bool; MB_CELLS]; 2] = {
    let mut t = [[true; MB_CELLS]; 2];
    let mut i = 0;
    while i < 80 {
        let sq = Square::ALL[i];
        t[0][sq.mb()] = is_reserved_against(sq, Color::Silver);
        t[1][sq.mb()] = is_reserved_against(sq, Color::Red);
        i += 1;
    }
    t
};

/// The board: pieces on squares, the side to move, the edition and the rule options. A small
/// `Copy` value; its `Display` is the position string and [`Position::diagram`] draws it.
///
/// ```
/// use khet_engine::{Color, Setup};
/// let mut p = Setup::builtin("classic").expect("built in").position;
/// let mv = p.parse_move("h2g2")?; // Silver's Pyramid steps west
/// let hits = p.try_play(mv)?;      // the move, then Silver's shot
/// assert_eq!(hits.count(), 0);
/// assert_eq!(p.side_to_move(), Color::Red);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    cells: [u8; MB_CELLS],
    /// Occupancy, bit `rank * 10 + file`: lets the laser jump along a rank to the next piece.
    occ_ranks: u128,
    /// Occupancy, bit `file * 8 + rank`: the same along a file.
    occ_files: u128,
    side: Color,
    edition: Edition,
    rules: Rules,
    hash: u64,
    eyes: u8,
}

/// Whether `mv` moves, turns or lands on a piece on one of the squares of `set` (bit = square
/// index).
#[inline]
pub(crate) fn touches(mv: Move, set: u128) -> bool {
    let squares = (1u128 << mv.from().index()) | (1u128 << mv.to().index());
    set & squares != 0
}

/// Something wrong with an arrangement of pieces, found by [`Position::problems`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Problem {
    /// A side has no Pharaoh or more than one; `squares` are where its Pharaohs stand.
    PharaohCount {
        /// The side.
        color: Color,
        /// Its Pharaohs' squares (none, or two and more).
        squares: Vec<Square>,
    },
    /// A piece stands on a square reserved for the other colour.
    Reserved {
        /// The square.
        square: Square,
        /// The piece.
        piece: Piece,
    },
    /// A kind of piece the edition does not have.
    WrongEdition {
        /// Where it stands.
        square: Square,
        /// Its kind.
        kind: Kind,
        /// The position's edition.
        edition: Edition,
    },
    /// A Sphinx off its corner.
    SphinxOffCorner {
        /// Where it stands.
        square: Square,
        /// Its owner.
        color: Color,
    },
    /// A Sphinx in its corner pointing off the board.
    SphinxPointsAway {
        /// Its corner.
        square: Square,
        /// Its owner.
        color: Color,
    },
    /// A Khet 2.0 side without a Sphinx.
    NoSphinx {
        /// The side.
        color: Color,
    },
}

impl Problem {
    /// The squares concerned (none for a missing piece), to mark on a board or to point at the
    /// lines of a setup file.
    pub fn squares(&self) -> Vec<Square> {
        match self {
            Problem::PharaohCount { squares, .. } => squares.clone(),
            Problem::Reserved { square, .. }
            | Problem::WrongEdition { square, .. }
            | Problem::SphinxOffCorner { square, .. }
            | Problem::SphinxPointsAway { square, .. } => vec![*square],
            Problem::NoSphinx { .. } => Vec::new(),
        }
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::PharaohCount { color, squares } => {
                let on: Vec<String> = squares.iter().map(ToString::to_string).collect();
                let on = if on.is_empty() {
                    String::new()
                } else {
                    format!(" (on {})", on.join(" and "))
                };
                write!(
                    f,
                    "{color} has {} Pharaohs{on}; each side needs exactly one",
                    squares.len()
                )
            }
            Problem::Reserved { square, piece } => write!(
                f,
                "{square}: the {} stands on a square reserved for {}",
                piece.describe(),
                piece.color().other()
            ),
            Problem::WrongEdition {
                square,
                kind,
                edition,
            } => write!(
                f,
                "{square}: {} has no place in {edition}",
                kind.with_article()
            ),
            Problem::SphinxOffCorner { square, color } => write!(
                f,
                "{square}: the {color} Sphinx must stand in its corner, {}",
                sphinx_square(*color)
            ),
            Problem::SphinxPointsAway { square, color } => {
                let [a, b] = sphinx_directions(*color);
                write!(
                    f,
                    "{square}: the {color} Sphinx must point {a} or {b}, along the board"
                )
            }
            Problem::NoSphinx { color } => write!(
                f,
                "{color} has no Sphinx; it belongs on {}",
                sphinx_square(*color)
            ),
        }
    }
}

impl Position {
    /// An empty board, Silver to move.
    pub fn empty(edition: Edition) -> Position {
        let mut cells = [OFF; MB_CELLS];
        for sq in Square::ALL {
            cells[sq.mb()] = EMPTY;
        }
        Position {
            cells,
            occ_ranks: 0,
            occ_files: 0,
            side: Color::Silver,
            edition,
            rules: Rules::default(),
            hash: 0,
            eyes: 0,
        }
    }

    /// Which game this is.
    pub fn edition(&self) -> Edition {
        self.edition
    }

    /// The rule options it is played under.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Sets the rule options.
    pub fn set_rules(&mut self, rules: Rules) {
        self.rules = rules;
    }

    /// The same position under other rule options.
    pub fn with_rules(mut self, rules: Rules) -> Position {
        self.rules = rules;
        self
    }

    /// Whose turn it is.
    pub fn side_to_move(&self) -> Color {
        self.side
    }

    /// Sets whose turn it is.
    pub fn set_side_to_move(&mut self, side: Color) {
        self.side = side;
    }

    /// Hash of the arrangement (pieces, colours, squares, orientations), not of the side to move:
    /// equal arrangements repeat, whoever is to move.
    pub fn arrangement_hash(&self) -> u64 {
        self.hash
    }

    /// Hash of the arrangement and the side to move, for transposition tables.
    pub fn key(&self) -> u64 {
        match self.side {
            Color::Silver => self.hash,
            Color::Red => self.hash ^ zobrist::RED_TO_MOVE,
        }
    }

    /// The hash computed from scratch (tests compare it with the incremental one).
    pub fn compute_hash(&self) -> u64 {
        Square::ALL
            .iter()
            .map(|sq| sq.mb())
            .filter(|&mb| self.cells[mb] != EMPTY)
            .fold(0, |h, mb| h ^ zobrist::piece_key(mb, self.cells[mb]))
    }

    /// Whether the two positions have the same arrangement (the repetition rule's test).
    pub fn same_arrangement(&self, other: &Position) -> bool {
        self.hash == other.hash && self.cells == other.cells
    }

    pub(crate) fn cells(&self) -> &[u8; MB_CELLS] {
        &self.cells
    }

    pub(crate) fn eyes(&self) -> u8 {
        self.eyes
    }

    /// The piece on `sq`, if any.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        Piece::from_byte(self.cells[sq.mb()])
    }

    /// Puts `piece` on `sq` (or empties it), keeping the hash. No rule is checked.
    pub fn put(&mut self, sq: Square, piece: Option<Piece>) {
        let mb = sq.mb();
        self.set_cell(mb, piece.map_or(EMPTY, Piece::byte));
    }

    #[inline(always)]
    pub(crate) fn set_cell(&mut self, mb: usize, byte: u8) {
        let old = self.cells[mb];
        if old != EMPTY {
            self.hash ^= zobrist::piece_key(mb, old);
            if cell::kind(old) == Kind::Eye as u8 {
                self.eyes -= 1;
            }
        }
        if byte != EMPTY {
            self.hash ^= zobrist::piece_key(mb, byte);
            if cell::kind(byte) == Kind::Eye as u8 {
                self.eyes += 1;
            }
        }
        if (old == EMPTY) != (byte == EMPTY)
            && let Some(sq) = Square::from_mb(mb)
        {
            self.occ_ranks ^= 1u128 << sq.index();
            self.occ_files ^= 1u128 << (sq.file().index() * 8 + sq.rank().index());
        }
        self.cells[mb] = byte;
    }

    pub(crate) fn occupancy(&self) -> (u128, u128) {
        (self.occ_ranks, self.occ_files)
    }

    /// Every piece with its square, `a1` first.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        // The occupied squares' bits in index order (a dozen or two in an ending, of 80).
        let mut occupied = self.occ_ranks;
        std::iter::from_fn(move || {
            while occupied != 0 {
                let sq = Square::ALL[occupied.trailing_zeros() as usize];
                occupied &= occupied - 1;
                if let Some(piece) = self.piece_at(sq) {
                    return Some((sq, piece));
                }
            }
            None
        })
    }

    /// The Pharaoh of `color` and its square.
    pub fn pharaoh(&self, color: Color) -> Option<(Square, Piece)> {
        self.pieces()
            .find(|(_, p)| p.kind() == Kind::Pharaoh && p.color() == color)
    }

    /// Every way this arrangement breaks the rules of its edition; empty when it is playable.
    ///
    /// Checked: one Pharaoh per side; in Khet 2.0 each side's Sphinx in its corner, pointing along
    /// the board, and no Djed or Obelisk; in Khet 1.0 no Sphinx, Scarab or Anubis; no piece on a
    /// square reserved for the other colour. (Two pieces on a square and stacks of more than two
    /// obelisks cannot be represented here; the setup and string readers report those.)
    pub fn problems(&self) -> Vec<Problem> {
        self.problems_with(true)
    }

    /// [`Position::problems`], optionally without the reserved-square check: a position reached
    /// under the `permissive-swap` option may hold a swapped piece on such a square.
    pub fn problems_with(&self, check_reserved: bool) -> Vec<Problem> {
        let mut out = Vec::new();
        for color in Color::ALL {
            let squares: Vec<Square> = self
                .pieces()
                .filter(|(_, p)| p.kind() == Kind::Pharaoh && p.color() == color)
                .map(|(sq, _)| sq)
                .collect();
            if squares.len() != 1 {
                out.push(Problem::PharaohCount { color, squares });
            }
        }
        for (square, piece) in self.pieces() {
            let (color, kind) = (piece.color(), piece.kind());
            if check_reserved && is_reserved_against(square, color) {
                out.push(Problem::Reserved { square, piece });
            }
            let wrong_edition = match self.edition {
                Edition::Khet2 => matches!(kind, Kind::Djed | Kind::Obelisk),
                Edition::Khet1 => matches!(kind, Kind::Sphinx | Kind::Scarab | Kind::Anubis),
            };
            if wrong_edition {
                out.push(Problem::WrongEdition {
                    square,
                    kind,
                    edition: self.edition,
                });
            }
            if kind == Kind::Sphinx && self.edition == Edition::Khet2 {
                if square != sphinx_square(color) {
                    out.push(Problem::SphinxOffCorner { square, color });
                } else if !sphinx_directions(color)
                    .contains(&piece.facing().unwrap_or(crate::Direction::N))
                {
                    out.push(Problem::SphinxPointsAway { square, color });
                }
            }
        }
        if self.edition == Edition::Khet2 {
            for color in Color::ALL {
                if !self
                    .pieces()
                    .any(|(_, p)| p.kind() == Kind::Sphinx && p.color() == color)
                {
                    out.push(Problem::NoSphinx { color });
                }
            }
        }
        out
    }

    /// Makes `mv` without firing or changing the side to move: the board the laser will see.
    /// The move must be legal.
    #[inline]
    pub fn apply_move(&mut self, mv: Move) {
        match mv {
            Move::Step { from, to } => {
                let (f, t) = (from.mb(), to.mb());
                let moving = self.cells[f];
                let target = self.cells[t];
                self.set_cell(f, EMPTY);
                // Onto an own single obelisk: the two stack.
                let byte = if target == EMPTY {
                    moving
                } else {
                    cell::stacked(target)
                };
                self.set_cell(t, byte);
            }
            Move::Swap { from, to } => {
                let (f, t) = (from.mb(), to.mb());
                let a = self.cells[f];
                let b = self.cells[t];
                self.set_cell(f, b);
                self.set_cell(t, a);
            }
            Move::Rotate { at, rotation } => {
                let mb = at.mb();
                if let Some(p) = Piece::from_byte(self.cells[mb]) {
                    self.set_cell(mb, p.rotated(rotation).byte());
                }
            }
            Move::Unstack { from, to } => {
                let (f, t) = (from.mb(), to.mb());
                let stack = self.cells[f];
                let single = cell::single(stack);
                let target = self.cells[t];
                self.set_cell(f, single);
                self.set_cell(
                    t,
                    if target == EMPTY {
                        single
                    } else {
                        cell::stacked(single)
                    },
                );
            }
        }
    }

    /// Removes what a shot hit: pieces leave, stacks lose their top obelisk. Pharaohs stay (the
    /// game is over and the board shows where the light fell).
    #[inline]
    pub fn remove_hits(&mut self, hits: Hits) {
        let mut bits = hits.squares;
        while bits != 0 {
            let i = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let mb = Square::ALL[i].mb();
            let byte = self.cells[mb];
            let after = if cell::is_stacked(byte) {
                cell::single(byte)
            } else {
                EMPTY
            };
            self.set_cell(mb, after);
        }
    }

    /// A whole turn for a trusted move: make it, fire the mover's laser, remove what it hit, pass
    /// the turn. Returns what the shot hit.
    #[inline]
    pub fn play_unchecked(&mut self, mv: Move) -> Hits {
        self.apply_move(mv);
        let hits = self.trace_hits(self.side);
        self.remove_hits(hits);
        self.side = !self.side;
        hits
    }

    /// [`Position::play_unchecked`] given `beam`, what the mover's laser lights and hits before
    /// the move ([`Position::beam_before_move`]): a move that touches none of those squares
    /// leaves the beam as it is, so its shot hits what the beam hits now and is not traced
    /// again. Most moves of a node are such moves; the search makes every one of them.
    #[inline]
    pub(crate) fn play_beside(&mut self, mv: Move, beam: (u128, Hits)) -> Hits {
        if touches(mv, beam.0) {
            return self.play_unchecked(mv);
        }
        self.apply_move(mv);
        self.remove_hits(beam.1);
        self.side = !self.side;
        beam.1
    }

    /// A whole turn for a move from a person or a file: refused with the reason when illegal.
    pub fn try_play(&mut self, mv: Move) -> Result<Hits, crate::IllegalMove> {
        let mv = self.check_move(mv)?;
        Ok(self.play_unchecked(mv))
    }

    /// A whole turn; panics on an illegal move (use [`Position::try_play`] for untrusted input).
    pub fn play(&mut self, mv: Move) -> Hits {
        match self.try_play(mv) {
            Ok(hits) => hits,
            Err(e) => panic!("illegal move {mv}: {e}"),
        }
    }

    /// The position turned half a turn with the colours swapped (Red's view of the game as
    /// Silver's). Every official setup equals its own mirror.
    pub fn mirrored(&self) -> Position {
        let mut out = Position::empty(self.edition);
        out.rules = self.rules;
        out.side = !self.side;
        for (sq, p) in self.pieces() {
            out.put(sq.rotate_180(), Some(p.mirrored()));
        }
        out
    }
}

/// The two directions a Sphinx of `color` may point.
pub const fn sphinx_directions(color: Color) -> [crate::Direction; 2] {
    match color {
        Color::Silver => [crate::Direction::N, crate::Direction::W],
        Color::Red => [crate::Direction::S, crate::Direction::E],
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position(\"{self}\")")
    }
}
