//! The laser: a pure function from a position and a colour to the shot.
//!
//! [`fire`] returns the whole beam — every straight segment with where it turns, splits or
//! stops — because the game draws it; the search calls [`Position::trace_hits`], the same tracer
//! compiled without the recording. Beams travel along ranks and files; what a piece does to a
//! beam is looked up in a 256 × 4 table built at compile time from the beam algebra of the rule
//! books (see `docs/rules.md`, Beam algebra).

use crate::piece::cell::{self, OFF};
use crate::piece::{Color, Kind, Piece};
use crate::position::Position;
use crate::rules::Edition;
use crate::square::{Direction, FILES, MB_CELLS, MB_WIDTH, RANKS, SQUARES, Square, TO_MB};
use std::fmt;

// Beam actions; 0..4 are "continue in this direction".
const STOP: u8 = 4;
const HIT: u8 = 5;
const PHARAOH: u8 = 6;
const SPLIT: u8 = 7;
const EDGE: u8 = 8;

/// How a two-sided mirror (orientation 0 = `\`, 1 = `/`) turns a beam travelling `d`.
const fn two_sided(orientation: u8, d: u8) -> u8 {
    if orientation & 1 == 0 { 3 - d } else { d ^ 1 }
}

const fn action(byte: u8, d: u8) -> u8 {
    if byte == 0 {
        return d;
    }
    if byte == OFF {
        return EDGE;
    }
    let o = cell::orientation(byte);
    let entered_face = (d + 2) & 3;
    match cell::kind(byte) {
        0 => PHARAOH,
        1 => STOP, // Sphinx
        2 => {
            // Pyramid facing diagonal o has mirror faces o and o+1 (as directions).
            if entered_face == o {
                (o + 1) & 3
            } else if entered_face == (o + 1) & 3 {
                o
            } else {
                HIT
            }
        }
        3 => {
            // Anubis: its front stops the beam, any other face loses it.
            if entered_face == o { STOP } else { HIT }
        }
        4 | 5 => two_sided(o, d), // Scarab, Djed
        6 => HIT,                 // Obelisk (the top one)
        _ => SPLIT,               // Eye of Horus
    }
}

static ACTIONS: [[u8; 4]; 256] = {
    let mut t = [[0u8; 4]; 256];
    let mut b = 0;
    while b < 256 {
        let mut d = 0;
        while d < 4 {
            t[b][d] = action(b as u8, d as u8);
            d += 1;
        }
        b += 1;
    }
    t
};

const DELTAS: [isize; 4] = [MB_WIDTH as isize, 1, -(MB_WIDTH as isize), -1];

/// How many moves of its own pieces a side's beam is from the enemy Pharaoh and from its
/// nearest capture ([`Position::reaches`]), each at most [`REACH_CAP`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reach {
    /// Moves to light the enemy Pharaoh ([`Position::reach`]).
    pub pharaoh: u8,
    /// Moves to the first capture: an enemy piece hit where it is lost, or the Pharaoh lit.
    pub capture: u8,
    /// How many sides of the enemy Pharaoh the beam enters by within one move more than
    /// `pharaoh` (0 when it cannot be reached, and never past [`REACH_CAP`] − 1 moves).
    pub sides: u8,
}

impl Reach {
    /// Neither within reach (a side without a laser).
    pub const NONE: Reach = Reach {
        pharaoh: REACH_CAP,
        capture: REACH_CAP,
        sides: 0,
    };

    /// What a search found: the cost the enemy Pharaoh was first reached at (if it was), the
    /// directions it was entered in (one bit each), and the cost of the first capture.
    fn from_search(found: Option<u8>, dirs: u8, capture: u8) -> Reach {
        match found {
            Some(f) => Reach {
                pharaoh: f,
                capture: capture.min(f),
                sides: dirs.count_ones() as u8,
            },
            None => Reach {
                capture,
                ..Reach::NONE
            },
        }
    }
}

/// The most [`Position::reach`] counts.
pub const REACH_CAP: u8 = 6;

/// The squares of a file (bit = square index).
const fn file_mask(file: usize) -> u128 {
    let mut m = 0u128;
    let mut rank = 0;
    while rank < 8 {
        m |= 1u128 << (rank * 10 + file);
        rank += 1;
    }
    m
}

/// Every square (bit = square index), and the a- and j-files.
const BOARD: u128 = (1u128 << 80) - 1;
const FILE_A: u128 = file_mask(0);
const FILE_J: u128 = file_mask(9);

/// `ENTERABLE[colour]`: the squares a piece of that colour may stand on, all but the other
/// colour's reserved ones. The reach estimate places and swaps mirrors only there.
const ENTERABLE: [u128; 2] = {
    let mut sets = [0u128; 2];
    let mut i = 0;
    while i < SQUARES {
        let sq = Square::ALL[i];
        if !crate::position::is_reserved_against(sq, Color::Silver) {
            sets[0] |= 1u128 << i;
        }
        if !crate::position::is_reserved_against(sq, Color::Red) {
            sets[1] |= 1u128 << i;
        }
        i += 1;
    }
    sets
};

/// The squares (bit = square index) of `set` and next to them.
fn dilate(set: u128) -> u128 {
    // Masked before the sideways shifts, or a bit above the top rank would come back on it.
    let v = (set | (set << 10) | (set >> 10)) & BOARD;
    v | ((v & !FILE_J) << 1) | ((v & !FILE_A) >> 1)
}

/// `RAYS[d][i]`: the squares after square `i` in direction `d`, to the board's edge.
const RAYS: [[u128; SQUARES]; 4] = {
    let mut rays = [[0u128; SQUARES]; 4];
    let mut i = 0;
    let (files, ranks) = (FILES as i8, RANKS as i8);
    while i < SQUARES {
        let (file, rank) = ((i % FILES as usize) as i8, (i / FILES as usize) as i8);
        let mut d = 0;
        while d < 4 {
            let (df, dr) = Direction::ALL[d].delta();
            let (mut f, mut r) = (file + df, rank + dr);
            while f >= 0 && f < files && r >= 0 && r < ranks {
                rays[d][i] |= 1u128 << (r as i32 * files as i32 + f as i32);
                f += df;
                r += dr;
            }
            d += 1;
        }
        i += 1;
    }
    rays
};

/// The squares of `set` and those after them in direction `d` through `empty` squares (a
/// Kogge-Stone fill: doubling steps, no loop over squares).
#[inline(always)]
fn run(set: u128, empty: u128, d: usize) -> u128 {
    let (mut g, mut p) = (set, empty);
    match d {
        0 => {
            p &= BOARD;
            g |= p & (g << 10);
            p &= p << 10;
            g |= p & (g << 20);
            p &= p << 20;
            g |= p & (g << 40);
        }
        1 => {
            p &= !FILE_A;
            g |= p & (g << 1);
            p &= p << 1;
            g |= p & (g << 2);
            p &= p << 2;
            g |= p & (g << 4);
            p &= p << 4;
            g |= p & (g << 8);
        }
        2 => {
            g |= p & (g >> 10);
            p &= p >> 10;
            g |= p & (g >> 20);
            p &= p >> 20;
            g |= p & (g >> 40);
        }
        _ => {
            p &= !FILE_J;
            g |= p & (g >> 1);
            p &= p >> 1;
            g |= p & (g >> 2);
            p &= p >> 2;
            g |= p & (g >> 4);
            p &= p >> 4;
            g |= p & (g >> 8);
        }
    }
    g
}

/// The squares one step from `set` in direction `d` (those off the board dropped).
#[inline(always)]
fn step(set: u128, d: usize) -> u128 {
    match d {
        0 => (set << 10) & BOARD,
        1 => (set & !FILE_J) << 1,
        2 => set >> 10,
        _ => (set & !FILE_A) >> 1,
    }
}

/// What the pieces a shot touched will suffer: a set of squares (bit = square index) and which
/// Pharaohs were lit. Every piece is counted once however many beams reach it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Hits {
    /// Bit `i` set: the piece on square `i` (not a Pharaoh) is hit.
    pub squares: u128,
    /// Bit `c` set: the Pharaoh of colour `c` is lit.
    pub pharaohs: u8,
}

impl Hits {
    /// Whether `color`'s Pharaoh was lit.
    pub fn pharaoh_hit(self, color: Color) -> bool {
        self.pharaohs & (1 << color as u8) != 0
    }

    /// Whether the shot ends the game.
    pub fn is_game_over(self) -> bool {
        self.pharaohs != 0
    }

    /// Hit squares, lowest index first.
    pub fn squares(self) -> impl Iterator<Item = Square> {
        let mut bits = self.squares;
        std::iter::from_fn(move || {
            if bits == 0 {
                return None;
            }
            let i = bits.trailing_zeros();
            bits &= bits - 1;
            Square::new(i as u8)
        })
    }

    /// How many pieces were hit, Pharaohs included.
    pub fn count(self) -> u32 {
        self.squares.count_ones() + self.pharaohs.count_ones()
    }
}

/// How a straight run of the beam ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SegmentEnd {
    /// A mirror on the last square turned the beam into this direction.
    Turned(Direction),
    /// An Eye of Horus on the last square split the beam: one part goes on straight, the other is
    /// reflected into this direction. Both go on as segments of their own.
    Split(Direction),
    /// A piece stopped the beam and survived (a Sphinx, an Anubis's front).
    Blocked,
    /// A piece stopped the beam and is hit (removed, its top obelisk removed, or a Pharaoh lit).
    Hit,
    /// The beam leaves the board past the last square.
    LeftBoard,
    /// The beam joins a path traced already (only possible with beam splitters).
    Joined,
}

/// One straight run of the beam, from `from` to `to` travelling `dir`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Segment {
    /// Where the light starts: the Sphinx, or the mirror that turned or split it. `None` when it
    /// comes in over the board edge (the fixed lasers of Khet 1.0).
    pub from: Option<Square>,
    /// Which way the light travels.
    pub dir: Direction,
    /// The last square the light reaches on this run (equal to `from` when a mirror on the edge
    /// sends it straight off the board).
    pub to: Square,
    /// What happens on `to`.
    pub end: SegmentEnd,
}

/// What a hit does to the piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HitEffect {
    /// The piece leaves the board.
    Removed,
    /// The top obelisk of a stack leaves the board; the bottom one stays.
    TopRemoved,
    /// A Pharaoh is lit: its owner loses.
    PharaohLit,
}

/// A piece the shot hit, as it stood before the shot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hit {
    /// Where it stood.
    pub square: Square,
    /// What it was.
    pub piece: Piece,
    /// What the hit does to it.
    pub effect: HitEffect,
}

/// A whole shot: who fired, every segment of the beam in the order it was traced (a split's
/// straight part first), and every piece hit.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shot {
    /// Whose laser fired.
    pub color: Color,
    /// The beam, run by straight run.
    pub segments: Vec<Segment>,
    /// The pieces hit, each once.
    pub hits: Vec<Hit>,
}

impl Shot {
    /// The Pharaohs lit by this shot.
    pub fn pharaohs_hit(&self) -> impl Iterator<Item = Color> + '_ {
        self.hits
            .iter()
            .filter(|h| h.effect == HitEffect::PharaohLit)
            .map(|h| h.piece.color())
    }

    /// The hits as the search sees them (squares and lit Pharaohs).
    pub fn impact(&self) -> Hits {
        let mut out = Hits::default();
        for hit in &self.hits {
            match hit.effect {
                HitEffect::PharaohLit => out.pharaohs |= 1 << hit.piece.color() as u8,
                _ => out.squares |= 1u128 << hit.square.index(),
            }
        }
        out
    }

    /// Every square the light passes, in tracing order (a square crossed twice appears twice).
    pub fn squares(&self) -> Vec<Square> {
        let mut out = Vec::new();
        for seg in &self.segments {
            let mut sq = match seg.from {
                Some(from) => from.step(seg.dir),
                None => Some(seg.edge_entry()),
            };
            while let Some(s) = sq {
                out.push(s);
                if s == seg.to {
                    break;
                }
                sq = s.step(seg.dir);
            }
        }
        out
    }
}

impl Segment {
    /// The square where this run's line meets the board edge behind it: for a segment that
    /// comes in over the edge (`from` is `None`), the first square it lights.
    pub fn edge_entry(&self) -> Square {
        let mut s = self.to;
        while let Some(prev) = s.step(self.dir.opposite()) {
            s = prev;
        }
        s
    }
}

/// The path as `docs/rules.md` writes it (Shot text): each square, with `(D)` where the beam turns
/// into direction `D`, `[split D]` where an Eye splits it, and how it ends (`off`, `hit e4`,
/// `blocked e4`).
impl fmt::Display for Shot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut words: Vec<String> = Vec::new();
        for seg in &self.segments {
            let mut sq = match seg.from {
                Some(from) => from.step(seg.dir),
                None => Some(seg.edge_entry()),
            };
            while let Some(s) = sq {
                if s == seg.to {
                    break;
                }
                words.push(s.to_string());
                sq = s.step(seg.dir);
            }
            let last = seg.to;
            let reached = match seg.from {
                Some(from) => from != last,
                None => true,
            };
            let mut word = if reached {
                last.to_string()
            } else {
                String::new()
            };
            match seg.end {
                SegmentEnd::Turned(d) => {
                    if reached {
                        word += &format!("({d})");
                    }
                }
                SegmentEnd::Split(d) => word += &format!("(split {d})"),
                SegmentEnd::Blocked => word += " blocked",
                SegmentEnd::Hit => word += " hit",
                SegmentEnd::LeftBoard => {
                    if reached {
                        word += ",";
                    }
                    word += if reached { " off" } else { "off" };
                }
                SegmentEnd::Joined => word += " joins",
            }
            words.push(word);
        }
        f.write_str(&words.join(" "))
    }
}

/// Fires `color`'s laser on `position` as it stands and returns the whole shot. Nothing is
/// removed: that is [`Position::play`]'s business.
///
/// ```
/// use khet_engine::{Color, Setup, fire};
/// let dynasty = Setup::builtin("dynasty")?.position;
/// let shot = fire(&dynasty, Color::Red);
/// assert_eq!(shot.to_string(), "a7 a6(E) b6 c6 d6 e6(S) e5(W) d5 c5(N) c6 c7 c8, off");
/// assert!(shot.hits.is_empty());
/// # Ok::<(), khet_engine::UnknownSetup>(())
/// ```
pub fn fire(position: &Position, color: Color) -> Shot {
    let mut segments = Vec::new();
    let hits = position.trace::<true>(color, &mut segments);
    let hits = hits_list(position, hits);
    Shot {
        color,
        segments,
        hits,
    }
}

fn hits_list(position: &Position, hits: Hits) -> Vec<Hit> {
    let mut out: Vec<Hit> = hits
        .squares()
        .filter_map(|sq| {
            let piece = position.piece_at(sq)?;
            let effect = if piece.kind() == Kind::Obelisk && piece.height() == 2 {
                HitEffect::TopRemoved
            } else {
                HitEffect::Removed
            };
            Some(Hit {
                square: sq,
                piece,
                effect,
            })
        })
        .collect();
    for color in Color::ALL {
        if hits.pharaoh_hit(color)
            && let Some((sq, piece)) = position.pharaoh(color)
        {
            out.push(Hit {
                square: sq,
                piece,
                effect: HitEffect::PharaohLit,
            });
        }
    }
    out
}

/// Where a laser starts.
#[derive(Clone, Copy)]
enum Origin {
    /// A Sphinx on this square fires in this direction.
    Sphinx(Square, u8),
    /// A fixed laser beyond the edge fires onto this square in this direction.
    Edge(Square, u8),
}

impl Origin {
    /// The mailbox cell the beam starts from, for the step-by-step tracer.
    fn mb(self) -> (usize, u8) {
        match self {
            Origin::Sphinx(sq, d) => (sq.mb(), d),
            Origin::Edge(sq, d) => ((sq.mb() as isize - DELTAS[d as usize]) as usize, d),
        }
    }
}

impl Position {
    /// Where `color`'s beam starts, if it has a laser.
    fn laser_origin(&self, color: Color) -> Option<Origin> {
        let corner = crate::position::sphinx_square(color);
        match self.edition() {
            Edition::Khet2 => {
                let piece = self.piece_at(corner)?;
                if piece.kind() != Kind::Sphinx || piece.color() != color {
                    return None;
                }
                Some(Origin::Sphinx(corner, piece.orientation()))
            }
            Edition::Khet1 => {
                let dir = match color {
                    Color::Silver => Direction::N,
                    Color::Red => Direction::S,
                };
                Some(Origin::Edge(corner, dir as u8))
            }
        }
    }

    /// The first occupied square after `s` going `d`, or the last square before the edge.
    /// Returns (square index, whether it holds a piece).
    #[inline(always)]
    fn next_piece(&self, s: usize, d: u8) -> (usize, bool) {
        let (occ_ranks, occ_files) = self.occupancy();
        let file = s % 10;
        let rank = s / 10;
        match d {
            1 => {
                // East: higher bits of the same rank.
                let rest = 9 - file;
                let n = (occ_ranks >> (s + 1)).trailing_zeros() as usize;
                if n < rest {
                    (s + 1 + n, true)
                } else {
                    (s + rest, false)
                }
            }
            3 => {
                // West: lower bits of the same rank.
                let start = s - file;
                let bits = occ_ranks & ((1u128 << s) - 1) & !((1u128 << start) - 1);
                if bits != 0 {
                    (127 - bits.leading_zeros() as usize, true)
                } else {
                    (start, false)
                }
            }
            0 => {
                // North: higher bits of the same file, file-major.
                let t = file * 8 + rank;
                let rest = 7 - rank;
                let n = (occ_files >> (t + 1)).trailing_zeros() as usize;
                if n < rest {
                    (s + 10 * (1 + n), true)
                } else {
                    (s + 10 * rest, false)
                }
            }
            _ => {
                // South: lower bits of the same file.
                let t = file * 8 + rank;
                let start = file * 8;
                let bits = occ_files & ((1u128 << t) - 1) & !((1u128 << start) - 1);
                if bits != 0 {
                    (
                        file + 10 * (127 - bits.leading_zeros() as usize - start),
                        true,
                    )
                } else {
                    (file, false)
                }
            }
        }
    }

    /// The squares `color`'s beam lights now (bit = square index) and what it would hit, without
    /// allocating: what the evaluation reads at every node.
    pub fn beam_summary(&self, color: Color) -> (u128, Hits) {
        thread_local! {
            static SEGMENTS: std::cell::RefCell<Vec<Segment>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        SEGMENTS.with(|cell| {
            let mut segments = cell.borrow_mut();
            segments.clear();
            let hits = self.trace::<true>(color, &mut segments);
            let mut lit = 0u128;
            for seg in segments.iter() {
                let d = seg.dir.index();
                let to = seg.to.index();
                // The squares past `from` up to `to`, or from the edge up to `to`.
                lit |= match seg.from {
                    Some(from) => RAYS[d][from.index()] & !RAYS[d][to],
                    None => RAYS[seg.dir.opposite().index()][to] | 1u128 << to,
                };
            }
            (lit, hits)
        })
    }

    /// For [`Position::play_beside`]: the squares the side to move's beam lights now (bit =
    /// square index), its laser's corner included (a Sphinx that turns changes the beam), and
    /// what the beam hits.
    pub(crate) fn beam_before_move(&self) -> (u128, Hits) {
        let color = self.side_to_move();
        let (lit, hits) = self.beam_summary(color);
        let corner = crate::position::sphinx_square(color);
        (lit | 1u128 << corner.index(), hits)
    }

    /// How many moves of `color`'s own pieces its beam is from the enemy Pharaoh, were the
    /// enemy to stand still: 0 when the beam lights it now, at most [`REACH_CAP`] (also when it
    /// cannot be reached). A measure of the plan a side that is ahead has to carry out, for the
    /// evaluation; it is a cheap estimate, not a search. Along the way, turning or moving one
    /// of its own pieces on the beam costs one move, and a mirror placed on an empty square
    /// costs as many moves as the nearest own mirror is squares away (kings' steps,
    /// at most 3); an enemy mirror turns the beam as it stands. An enemy piece the beam takes
    /// costs a move (the shot that takes it; the next one passes), and an enemy Pyramid,
    /// Anubis or Obelisk on the beam can be swapped for an own Scarab or Djed, turning the beam
    /// either way, for as many moves as the nearest one is away (at most 3): the two ways
    /// through a wall of pieces round a Pharaoh. Any other enemy piece stops the beam (a stack
    /// of two Obelisks is taken as one). A beam splitter is taken as a stop. No mirror is
    /// placed or swapped onto a square reserved against `color`: a beam the enemy's reserved
    /// file would have to turn is not counted as near.
    ///
    /// Computed on bitboards, one cost at a time: the squares a beam can leave in each
    /// direction for at most that many moves, closed under what costs nothing (running on over
    /// empty squares, turning at mirrors). The evaluation asks at every node of a side ahead;
    /// this is several times faster than [`Position::reaches_stepwise`], the search over
    /// (square, direction) states it is tested against.
    pub fn reach(&self, color: Color) -> u8 {
        self.reaches_with(color, false).pharaoh
    }

    /// [`Position::reach`], and by the same measure how many moves `color`'s beam is from its
    /// nearest capture (an enemy piece hit on a side that loses it, or the Pharaoh lit): the
    /// plan of a side that is ahead but cannot reach the Pharaoh yet, to take what guards it.
    /// Also how many of the Pharaoh's sides the beam enters by within one move more than the
    /// reach: from two, one enemy move cannot shield it from both (a fork).
    pub fn reaches(&self, color: Color) -> Reach {
        self.reaches_with(color, true)
    }

    /// [`Position::reaches`], counting the Pharaoh's sides only if `sides` (else
    /// [`Reach::sides`] is 0): they take the search a cost level past the Pharaoh, about a
    /// tenth more work in a won ending, which the evaluation (it does not weigh them) saves.
    pub(crate) fn reaches_with(&self, color: Color, sides: bool) -> Reach {
        let Some(origin) = self.laser_origin(color) else {
            return Reach::NONE;
        };
        let own = color as u8;
        let cells = self.cells();
        // hit[d]: enemy pieces a beam travelling `d` removes (or takes the top obelisk of).
        let mut hit = [0u128; 4];
        let mut capture = REACH_CAP;
        let mut enemy_pharaoh = 0u128;
        let mut movable = 0u128;
        let mut mirrors = 0u128;
        let mut swappers = 0u128;
        let mut swappable = 0u128;
        // turns[d][k]: squares whose piece turns a beam travelling `d` to its side `k` (0: to
        // direction d + 1, 1: to d + 3; a mirror never passes a beam on or sends it back).
        let mut turns = [[0u128; 2]; 4];
        // Only the pieces are looked at (a dozen or two in an ending, of 80 squares).
        let occupied = self.occupancy().0;
        let empty = BOARD & !occupied;
        let mut pieces = occupied;
        while pieces != 0 {
            let i = pieces.trailing_zeros() as usize;
            pieces &= pieces - 1;
            let byte = cells[TO_MB[i] as usize];
            let bit = 1u128 << i;
            let kind = cell::kind(byte);
            let mine = cell::color(byte) == own;
            if kind == 0 && !mine {
                enemy_pharaoh |= bit;
                continue;
            }
            if mine && kind != 1 {
                movable |= bit;
                if matches!(kind, 2 | 4 | 5) {
                    mirrors |= bit;
                }
                if matches!(kind, 4 | 5) {
                    swappers |= bit;
                }
            }
            if !mine && matches!(kind, 2 | 3 | 6) {
                swappable |= bit;
            }
            for d in 0..4 {
                let a = ACTIONS[byte as usize][d];
                if a < 4 {
                    debug_assert!(a as usize & 1 != d & 1, "a mirror turns a beam sideways");
                    turns[d][usize::from(a as usize != (d + 1) & 3)] |= bit;
                } else if a == HIT && !mine {
                    hit[d] |= bit;
                }
            }
        }
        let near1 = dilate(mirrors);
        let near2 = dilate(near1);
        // Where placing a mirror costs 1, 2 or 3 moves: not on a square reserved against it.
        let enterable = ENTERABLE[own as usize];
        let open = empty & enterable;
        let place = [open & near1, open & near2 & !near1, open & !near2];
        swappable &= enterable;
        // Enemy pieces an own Scarab or Djed 1, 2 or 3 moves away can swap with.
        let (swap1, swap2) = (dilate(swappers), dilate(dilate(swappers)));
        let swap = if swappers == 0 {
            [0; 3]
        } else {
            [
                swappable & swap1,
                swappable & swap2 & !swap1,
                swappable & !swap2,
            ]
        };
        // Where a beam can be turned for one, two or three moves: an own mirror turned, or a
        // mirror placed or swapped in.
        let turn = [
            mirrors | place[0] | swap[0],
            place[1] | swap[1],
            place[2] | swap[2],
        ];
        // lit[d]: squares a beam leaves travelling `d`, at the cost reached so far; more[c][d]:
        // what becomes reachable at cost `c` (carried forward from cheaper costs).
        let mut lit = [0u128; 4];
        let mut more = [[0u128; 4]; REACH_CAP as usize + 3];
        let mut entry = [0u128; 4];
        match origin {
            Origin::Sphinx(sq, d) => {
                lit[d as usize] = 1u128 << sq.index();
                more[1] = [1u128 << sq.index(); 4];
            }
            Origin::Edge(sq, d) => {
                // The beam comes onto the board here; on an empty square it runs on.
                entry[d as usize] = 1u128 << sq.index();
                lit[d as usize] = entry[d as usize] & empty;
            }
        }
        let mut found: Option<u8> = None;
        let mut dirs = 0u8;
        // entered[d]: the squares the beam enters travelling `d`, from lit[d]. Only the
        // directions whose lit squares grew (`dirty`) are run again: the others would give what
        // they gave, and their turns were taken when they did.
        let mut entered = [0u128; 4];
        let mut dirty = 0b1111u8;
        for cost in 0..REACH_CAP as usize {
            if let Some(f) = found
                && cost > f as usize + 1
            {
                break;
            }
            for d in 0..4 {
                if more[cost][d] & !lit[d] != 0 {
                    lit[d] |= more[cost][d];
                    dirty |= 1 << d;
                }
            }
            // Close under the free steps: running on over empty squares, turning at mirrors.
            // One direction at a time, its turns marking the others to run (again): what a
            // direction gathers from several turns is run once.
            while dirty != 0 {
                let d = dirty.trailing_zeros() as usize;
                dirty &= dirty - 1;
                lit[d] = run(lit[d], empty, d);
                let e = step(lit[d], d) | entry[d];
                entered[d] = e;
                if e & enemy_pharaoh != 0 {
                    dirs |= 1 << d;
                    found.get_or_insert(cost as u8);
                    if !sides {
                        // A capture this cost or later counts as the Pharaoh's cost.
                        return Reach::from_search(found, 0, capture);
                    }
                }
                if capture == REACH_CAP && e & hit[d] != 0 {
                    capture = cost as u8;
                }
                for (k, a) in [(d + 1) & 3, (d + 3) & 3].into_iter().enumerate() {
                    let new = e & turns[d][k] & !lit[a];
                    if new != 0 {
                        lit[a] |= new;
                        dirty |= 1 << a;
                    }
                }
            }
            // What one, two or three moves more open from here.
            for (d, &e) in entered.iter().enumerate() {
                if e == 0 {
                    continue;
                }
                // An own piece moved off, or an enemy piece this shot removes.
                more[cost + 1][d] |= e & (movable | hit[d]);
                let turned = [e & turn[0], e & turn[1], e & turn[2]];
                for t in [(d + 1) & 3, (d + 3) & 3] {
                    for (k, &squares) in turned.iter().enumerate() {
                        more[cost + 1 + k][t] |= squares;
                    }
                }
            }
        }
        Reach::from_search(found, dirs, capture)
    }

    /// [`Position::reaches`] as a search over (square, direction) states by cost: the reference
    /// the tests hold the bitboard version to.
    #[doc(hidden)]
    pub fn reaches_stepwise(&self, color: Color) -> Reach {
        let Some(origin) = self.laser_origin(color) else {
            return Reach::NONE;
        };
        let mut capture = REACH_CAP;
        let own = color as u8;
        let cells = self.cells();
        // Own mirrors (Pyramids, Scarabs, Djeds) and the squares one and two kings' steps
        // from them; any other square is three.
        let mut mirrors = 0u128;
        for (i, &byte) in cells.iter().enumerate() {
            if cell::is_piece(byte)
                && cell::color(byte) == own
                && matches!(cell::kind(byte), 2 | 4 | 5)
                && let Some(sq) = Square::from_mb(i)
            {
                mirrors |= 1u128 << sq.index();
            }
        }
        let mut swappers = 0u128;
        for (i, &byte) in cells.iter().enumerate() {
            if cell::is_piece(byte)
                && cell::color(byte) == own
                && matches!(cell::kind(byte), 4 | 5)
                && let Some(sq) = Square::from_mb(i)
            {
                swappers |= 1u128 << sq.index();
            }
        }
        // Kings' steps from the nearest of `set`: 1, 2, or 3 for any farther.
        let steps = |set: u128, mb: usize| -> u8 {
            let bit = Square::from_mb(mb).map_or(0, |sq| 1u128 << sq.index());
            if dilate(set) & bit != 0 {
                1
            } else if dilate(dilate(set)) & bit != 0 {
                2
            } else {
                3
            }
        };
        // Placing a mirror where the side may not stand is no way to turn the beam.
        let enterable = ENTERABLE[own as usize];
        let may_enter =
            |mb: usize| Square::from_mb(mb).is_some_and(|sq| enterable >> sq.index() & 1 != 0);
        let place = |mb: usize| steps(mirrors, mb);
        // A bucket queue by cost of states `cell the beam leaves × 4 + direction`, its buckets
        // kept from call to call: the evaluation asks at many leaves.
        thread_local! {
            static BUCKETS: std::cell::RefCell<[Vec<u16>; REACH_CAP as usize]> =
                std::cell::RefCell::new(Default::default());
        }
        BUCKETS.with(|buckets| {
            let buckets = &mut *buckets.borrow_mut();
            buckets.iter_mut().for_each(Vec::clear);
            let mut best = [REACH_CAP; MB_CELLS * 4];
            let push = |best: &mut [u8; MB_CELLS * 4],
                        buckets: &mut [Vec<u16>; REACH_CAP as usize],
                        state: usize,
                        cost: u8| {
                if cost < best[state] {
                    best[state] = cost;
                    buckets[cost as usize].push(state as u16);
                }
            };
            let (start, dir) = origin.mb();
            push(&mut best, buckets, start * 4 + dir as usize, 0);
            if matches!(origin, Origin::Sphinx(..)) {
                for d in 0..4 {
                    push(&mut best, buckets, start * 4 + d, 1);
                }
            }
            // The cost the Pharaoh was first reached at, and the directions it was entered in.
            let mut found: Option<u8> = None;
            let mut dirs = 0u8;
            for cost in 0..REACH_CAP {
                if found.is_some_and(|f| cost > f + 1) {
                    break;
                }
                let mut i = 0;
                while let Some(&state) = buckets[cost as usize].get(i) {
                    i += 1;
                    let (at, d) = (state as usize / 4, state as u8 & 3);
                    if best[state as usize] < cost {
                        continue;
                    }
                    let n = (at as isize + DELTAS[d as usize]) as usize;
                    let byte = cells[n];
                    if byte == OFF {
                        continue;
                    }
                    let sides = [(d + 1) & 3, (d + 3) & 3];
                    if byte == 0 {
                        push(&mut best, buckets, n * 4 + d as usize, cost);
                        if may_enter(n) {
                            let c = cost + place(n);
                            for t in sides {
                                push(&mut best, buckets, n * 4 + t as usize, c);
                            }
                        }
                        continue;
                    }
                    let kind = cell::kind(byte);
                    if kind == 0 && cell::color(byte) != own {
                        found.get_or_insert(cost);
                        dirs |= 1 << d;
                        continue;
                    }
                    let action = ACTIONS[byte as usize][d as usize];
                    let enemy = cell::color(byte) != own;
                    if action == HIT && enemy {
                        // Taken by this shot, it lets the next one through.
                        capture = capture.min(cost);
                        push(&mut best, buckets, n * 4 + d as usize, cost + 1);
                    }
                    if enemy && swappers != 0 && matches!(kind, 2 | 3 | 6) && may_enter(n) {
                        let c = cost + steps(swappers, n);
                        for t in sides {
                            push(&mut best, buckets, n * 4 + t as usize, c);
                        }
                    }
                    if action < 4 {
                        push(&mut best, buckets, n * 4 + action as usize, cost);
                    }
                    if cell::color(byte) == own && kind != 1 {
                        // Moved off the beam, or (a mirror) turned the other way.
                        push(&mut best, buckets, n * 4 + d as usize, cost + 1);
                        if matches!(kind, 2 | 4 | 5) {
                            for t in sides {
                                push(&mut best, buckets, n * 4 + t as usize, cost + 1);
                            }
                        }
                    }
                }
            }
            Reach::from_search(found, dirs, capture)
        })
    }

    /// Traces `color`'s shot without recording the path: what the search uses.
    #[inline]
    pub fn trace_hits(&self, color: Color) -> Hits {
        self.trace::<false>(color, &mut Vec::new())
    }

    /// The step-by-step tracer (the one used with beam splitters) on any position: a reference
    /// the tests hold the fast tracer to.
    #[doc(hidden)]
    pub fn trace_hits_stepwise(&self, color: Color) -> Hits {
        match self.laser_origin(color) {
            Some(origin) => {
                let (start, dir) = origin.mb();
                self.trace_split::<false>(start, dir, &mut Vec::new())
            }
            None => Hits::default(),
        }
    }

    /// The tracer. With `RECORD` it pushes every segment into `segments`.
    pub(crate) fn trace<const RECORD: bool>(
        &self,
        color: Color,
        segments: &mut Vec<Segment>,
    ) -> Hits {
        let Some(origin) = self.laser_origin(color) else {
            return Hits::default();
        };
        if self.eyes() > 0 {
            let (start, dir) = origin.mb();
            return self.trace_split::<RECORD>(start, dir, segments);
        }
        // Without beam splitters one beam meets each (square, direction) at most once, so it
        // ends within 4 × 80 turns and needs no guard. It jumps from piece to piece.
        let cells = self.cells();
        let mut hits = Hits::default();
        let (mut from, mut d, mut next) = match origin {
            Origin::Sphinx(sq, d) => (Some(sq), d, self.next_piece(sq.index(), d)),
            Origin::Edge(sq, d) => {
                let s = sq.index();
                let first = if self.piece_at(sq).is_some() {
                    (s, true)
                } else {
                    self.next_piece(s, d)
                };
                (None, d, first)
            }
        };
        loop {
            let (t, found) = next;
            let to = Square::ALL[t];
            let dir = Direction::from_index(d as usize);
            if !found {
                if RECORD {
                    segments.push(Segment {
                        from,
                        dir,
                        to,
                        end: SegmentEnd::LeftBoard,
                    });
                }
                return hits;
            }
            let byte = cells[to.mb()];
            let a = ACTIONS[byte as usize][d as usize];
            if a < 4 {
                if RECORD {
                    let end = SegmentEnd::Turned(Direction::from_index(a as usize));
                    segments.push(Segment { from, dir, to, end });
                }
                from = Some(to);
                d = a;
                next = self.next_piece(t, d);
                continue;
            }
            let end = match a {
                STOP => SegmentEnd::Blocked,
                PHARAOH => {
                    hits.pharaohs |= 1 << cell::color(byte);
                    SegmentEnd::Hit
                }
                _ => {
                    // HIT (SPLIT cannot happen without eyes).
                    hits.squares |= 1u128 << t;
                    SegmentEnd::Hit
                }
            };
            if RECORD {
                segments.push(Segment { from, dir, to, end });
            }
            return hits;
        }
    }

    /// The tracer for positions with beam splitters: a work stack of beams and a record of
    /// every (cell, direction) already lit, so that split beams that loop or join stop.
    #[cold]
    fn trace_split<const RECORD: bool>(
        &self,
        start: usize,
        dir: u8,
        segments: &mut Vec<Segment>,
    ) -> Hits {
        let cells = self.cells();
        let mut lit = [0u8; MB_CELLS];
        let mut hits = Hits::default();
        let mut beams: Vec<(usize, u8)> = vec![(start, dir)];
        while let Some((origin, mut d)) = beams.pop() {
            let mut from = origin;
            let mut mb = origin;
            loop {
                mb = (mb as isize + DELTAS[d as usize]) as usize;
                let cell = cells[mb];
                if cell != OFF {
                    if lit[mb] & (1 << d) != 0 {
                        if RECORD {
                            segments.push(segment(from, mb, d, SegmentEnd::Joined));
                        }
                        break;
                    }
                    lit[mb] |= 1 << d;
                }
                let a = ACTIONS[cell as usize][d as usize];
                if a < 4 {
                    if RECORD && a != d {
                        segments.push(segment(
                            from,
                            mb,
                            d,
                            SegmentEnd::Turned(Direction::from_index(a as usize)),
                        ));
                        from = mb;
                    }
                    d = a;
                    continue;
                }
                match a {
                    SPLIT => {
                        let reflected = two_sided(cell::orientation(cell), d);
                        if RECORD {
                            segments.push(segment(
                                from,
                                mb,
                                d,
                                SegmentEnd::Split(Direction::from_index(reflected as usize)),
                            ));
                        }
                        beams.push((mb, reflected));
                        from = mb;
                        continue;
                    }
                    STOP => {
                        if RECORD {
                            segments.push(segment(from, mb, d, SegmentEnd::Blocked));
                        }
                    }
                    HIT => {
                        if RECORD {
                            segments.push(segment(from, mb, d, SegmentEnd::Hit));
                        }
                        hits.squares |= square_bit(mb);
                    }
                    PHARAOH => {
                        if RECORD {
                            segments.push(segment(from, mb, d, SegmentEnd::Hit));
                        }
                        hits.pharaohs |= 1 << cell::color(cell);
                    }
                    _ => {
                        if RECORD {
                            let last = (mb as isize - DELTAS[d as usize]) as usize;
                            segments.push(segment(from, last, d, SegmentEnd::LeftBoard));
                        }
                    }
                }
                break;
            }
        }
        // A split beam may be pushed for an Eye whose reflected part starts where it was already
        // traced in the same direction: the `lit` record stops it at its first square.
        hits
    }
}

#[inline(always)]
fn square_bit(mb: usize) -> u128 {
    match Square::from_mb(mb) {
        Some(sq) => 1u128 << sq.index(),
        None => 0,
    }
}

fn segment(from: usize, to: usize, dir: u8, end: SegmentEnd) -> Segment {
    let from_sq = Square::from_mb(from);
    // A segment that leaves the board at once from the 1.0 laser's border cell cannot happen
    // (the beam always enters the board first), so `to` is on the board.
    let to_sq = Square::from_mb(to).or(from_sq).unwrap_or(Square::ALL[0]);
    Segment {
        from: from_sq,
        dir: Direction::from_index(dir as usize),
        to: to_sq,
        end,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::moves::Move;

    #[test]
    fn the_beam_summary_lights_the_squares_the_shot_passes() {
        // Every built-in setup (fixed lasers, Obelisks and Eyes among them) along a game.
        for (name, setup) in crate::setup::catalogue() {
            let mut p = setup.position;
            for ply in 0..60 {
                for color in Color::ALL {
                    let shot = fire(&p, color);
                    let walked = shot
                        .squares()
                        .iter()
                        .fold(0u128, |b, s| b | 1u128 << s.index());
                    assert_eq!(
                        p.beam_summary(color),
                        (walked, shot.impact()),
                        "{name}: {p}"
                    );
                }
                let moves = p.legal_moves();
                if moves.is_empty() || p.play(moves[(ply * 7) % moves.len()]).is_game_over() {
                    break;
                }
            }
        }
    }

    #[test]
    fn reach_counts_the_moves_a_plan_needs() {
        // Red's beam leaves a8 south and turns east at its own Pyramid on a7. Moving that
        // Pyramid off the file (1) and bringing the one on b3 to a1, facing north-east (2),
        // sends the beam along rank 1 into Silver's Pharaoh on e1.
        let mut p: Position =
            "x33a3s2a33/p13p4kp23/4s11p12P3/1S27P3/8p11/1p1P41A11p23/4S2A14/4K4X1 0"
                .parse()
                .unwrap();
        assert_eq!(p.reach(Color::Red), 3);
        p.set_side_to_move(Color::Red);
        let sq = |s: &str| s.parse::<Square>().unwrap();
        p.play_unchecked(Move::Step {
            from: sq("a7"),
            to: sq("b7"),
        });
        assert_eq!(p.reach(Color::Red), 2);
    }

    #[test]
    fn reach_goes_through_a_wall_by_capture_or_by_swap() {
        // Silver's beam turns west at j3 and takes Red's Pyramid on f3 from behind; the next
        // shot runs on to Red's Pharaoh on c3.
        let p: Position = "x39/////2k2p43P3//4K4X1 0".parse().unwrap();
        assert_eq!(
            p.reaches(Color::Silver),
            Reach {
                pharaoh: 1,
                capture: 0,
                sides: 1
            }
        );
        // An Anubis facing the beam is not taken, but the Scarab beside it can swap onto f3
        // and turn the beam north, into the Pharaoh on f6.
        let p: Position = "x39//5k4//6S23/5a23P3//4K4X1 0".parse().unwrap();
        assert_eq!(p.reach(Color::Silver), 1);
        let far: Position = "x39//5k4///5a23P3//4K4X1 0".parse().unwrap();
        assert!(far.reach(Color::Silver) > 1, "{}", far.reach(Color::Silver));
        for p in [p, far] {
            assert_eq!(p.reaches(Color::Silver), p.reaches_stepwise(Color::Silver));
        }
    }

    #[test]
    fn reach_places_no_mirror_on_a_square_reserved_against_the_side() {
        // Silver's beam turns west at j3 and runs off the board at a3. A Pyramid on a3, one
        // step from Silver's on b2, would turn it north into Red's Pharaoh on a6, but the a
        // file is Red's: Silver has to go round, a Pyramid to b3 (1) and another to b6 (3).
        let p: Position = "x39//k9///9P3/1P18/4K4X1 0".parse().unwrap();
        let reach = p.reaches(Color::Silver);
        assert_eq!(reach.pharaoh, 4);
        assert_eq!(reach, p.reaches_stepwise(Color::Silver));
        // Red, the same mirrored, may not place one on j6 either.
        assert_eq!(p.mirrored().reaches(Color::Red), reach);
        // On the b file the same plan is one move.
        let b: Position = "x39//1k8///9P3/2P17/4K4X1 0".parse().unwrap();
        assert_eq!(b.reach(Color::Silver), 1);
    }

    #[test]
    fn reach_counts_the_sides_of_the_pharaoh_a_move_more_opens() {
        // Silver's beam turns west at j3 into its own Anubis on e3: moving the Anubis off (1)
        // lights Red's Pharaoh on c3 from the east. Moving the j3 Pyramid down to j2 (1) sends
        // the beam along rank 2 to the Pyramid on c2, which turns it north into the Pharaoh
        // from the south. Two sides open with one move each: one Red move cannot shut both.
        let p: Position = "x39/////2k1A24P3/2P17/4K4X1 0".parse().unwrap();
        let fork = Reach {
            pharaoh: 1,
            capture: 1,
            sides: 2,
        };
        assert_eq!(p.reaches(Color::Silver), fork);
        assert_eq!(p.reaches_stepwise(Color::Silver), fork);
        // Without the Pyramid on c2 only the east side is open within two moves.
        let one: Position = "x39/////2k1A24P3//4K4X1 0".parse().unwrap();
        assert_eq!(one.reaches(Color::Silver).sides, 1);
        assert_eq!(
            one.reaches(Color::Silver),
            one.reaches_stepwise(Color::Silver)
        );
    }

    #[test]
    fn reach_is_nought_exactly_when_the_beam_lights_the_enemy_pharaoh_and_is_symmetric() {
        let mut rng = crate::rng::Rng::new(5);
        let mut lit = 0;
        for setup in [
            "classic",
            "imhotep",
            "dynasty",
            "khet1/classic",
            "khet1/dynasty",
        ] {
            for _ in 0..30 {
                let mut p = crate::setup::Setup::builtin(setup).unwrap().position;
                for _ in 0..100 {
                    for color in Color::ALL {
                        let reach = p.reach(color);
                        assert!(reach <= REACH_CAP);
                        let lights = p.trace_hits(color).pharaoh_hit(color.other());
                        assert_eq!(reach == 0, lights, "{p}");
                        lit += lights as u32;
                        assert_eq!(reach, p.mirrored().reach(color.other()), "{p}");
                    }
                    let moves = p.legal_moves();
                    let Some(mv) = rng.pick(&moves) else { break };
                    if p.play_unchecked(mv).is_game_over() {
                        break;
                    }
                }
            }
        }
        assert!(lit > 10, "{lit} positions with a lit Pharaoh");
    }

    /// Calls `f` at every position of `games` random games of up to `plies` from every kind of
    /// setup (Sphinxes, fixed lasers, beam splitters), and at the same position thinned out,
    /// where beams run far and plans are long.
    fn random_positions(seed: u64, games: usize, plies: usize, mut f: impl FnMut(&Position)) {
        let mut rng = crate::rng::Rng::new(seed);
        for setup in [
            "classic",
            "imhotep",
            "dynasty",
            "khet1/classic",
            "khet1/imhotep",
            "khet2/imhotep-eyes",
            "khet2/dynasty-eyes",
        ] {
            for _ in 0..games {
                let mut p = crate::setup::Setup::builtin(setup).unwrap().position;
                for _ in 0..plies {
                    f(&p);
                    f(&thinned(&p, &mut rng));
                    let moves = p.legal_moves();
                    let Some(mv) = rng.pick(&moves) else { break };
                    if p.play_unchecked(mv).is_game_over() {
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn reaches_on_bitboards_are_reaches_square_by_square() {
        let mut seen = [0u32; REACH_CAP as usize + 1];
        let mut captures = [0u32; REACH_CAP as usize + 1];
        let mut sides = [0u32; 5];
        random_positions(17, 20, 120, |q| {
            for color in Color::ALL {
                let reaches = q.reaches(color);
                assert_eq!(
                    q.reaches_with(color, false),
                    Reach {
                        sides: 0,
                        ..reaches
                    },
                    "{q} {color:?}"
                );
                assert_eq!(reaches, q.reaches_stepwise(color), "{q} {color:?}");
                assert!(reaches.capture <= reaches.pharaoh, "{q} {color:?}");
                seen[reaches.pharaoh as usize] += 1;
                captures[reaches.capture as usize] += 1;
                sides[reaches.sides as usize] += 1;
            }
        });
        assert!(seen.iter().all(|&n| n > 20), "every reach is met: {seen:?}");
        assert!(
            captures[..4].iter().all(|&n| n > 20),
            "captures: {captures:?}"
        );
        assert!(sides[..4].iter().all(|&n| n > 20), "sides: {sides:?}");
    }

    #[test]
    fn a_move_beside_the_beam_makes_the_same_turn_as_one_traced() {
        // Every move: the turn made with the beam before the move is the turn made by tracing.
        let (mut beside, mut across) = (0u32, 0u32);
        random_positions(23, 6, 80, |q| {
            let beam = q.beam_before_move();
            for mv in q.legal_moves() {
                let (mut traced, mut shortcut) = (*q, *q);
                let hits = traced.play_unchecked(mv);
                assert_eq!(shortcut.play_beside(mv, beam), hits, "{q} {mv}");
                assert_eq!(shortcut, traced, "{q} {mv}");
                assert_eq!(shortcut.key(), traced.key(), "{q} {mv}");
                if crate::position::touches(mv, beam.0) {
                    across += 1;
                } else {
                    beside += 1;
                }
            }
        });
        assert!(
            beside > 10_000 && across > 1_000,
            "{beside} beside, {across} across"
        );
    }

    /// `p` with about half of the pieces that are neither Pharaohs nor lasers taken off.
    fn thinned(p: &Position, rng: &mut crate::rng::Rng) -> Position {
        let mut q = *p;
        for (sq, piece) in p.pieces() {
            if !matches!(piece.kind(), Kind::Pharaoh | Kind::Sphinx) && rng.below(2) == 0 {
                q.put(sq, None);
            }
        }
        q
    }
}
