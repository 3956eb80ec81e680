//! How many moves a side's beam is from the enemy Pharaoh and from its nearest capture
//! ([`Position::reaches`]), on bitboards, and the bitboard helpers it runs on.

use super::{ACTIONS, HIT, Origin};
use crate::piece::Color;
use crate::piece::cell;
use crate::position::Position;
use crate::square::{SQUARES, Square, TO_MB};

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
    pub(super) fn from_search(found: Option<u8>, dirs: u8, capture: u8) -> Reach {
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
pub(super) const ENTERABLE: [u128; 2] = {
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
pub(super) fn dilate(set: u128) -> u128 {
    // Masked before the sideways shifts, or a bit above the top rank would come back on it.
    let v = (set | (set << 10) | (set >> 10)) & BOARD;
    v | ((v & !FILE_J) << 1) | ((v & !FILE_A) >> 1)
}

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

impl Position {
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
    /// this is several times faster than the search over (square, direction) states it is
    /// tested against (`reaches_stepwise`, in the tests).
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
        // hit[d]: enemy pieces a beam travelling `d` removes (or takes the top obelisk of).
        let mut hit = [0u128; 4];
        // turns[d][k]: squares whose piece turns a beam travelling `d` to its side `k` (0: to
        // direction d + 1, 1: to d + 3; a mirror never passes a beam on or sends it back).
        let mut turns = [[0u128; 2]; 4];
        let ReachBoard {
            enemy_pharaoh,
            movable,
            empty,
            turn,
        } = self.reach_board(color as u8, &mut hit, &mut turns);
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
        let mut capture = REACH_CAP;
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
            open(&entered, cost, &mut more, movable, &hit, &turn);
        }
        Reach::from_search(found, dirs, capture)
    }

    /// The board as [`Position::reaches_with`] reads it for the side of colour `own`, with the
    /// enemy pieces a beam removes (`hit`) and the pieces that turn it (`turns`) by direction.
    #[inline]
    fn reach_board(&self, own: u8, hit: &mut [u128; 4], turns: &mut [[u128; 2]; 4]) -> ReachBoard {
        let cells = self.cells();
        let mut enemy_pharaoh = 0u128;
        let mut movable = 0u128;
        let mut mirrors = 0u128;
        let mut swappers = 0u128;
        let mut swappable = 0u128;
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
        ReachBoard {
            enemy_pharaoh,
            movable,
            empty,
            turn: turn_costs(own, empty, mirrors, swappers, swappable),
        }
    }
}

/// What [`Position::reaches_with`] needs of the board for one side, beside the pieces that
/// remove or turn a beam (bit = square index).
struct ReachBoard {
    /// The enemy Pharaoh.
    enemy_pharaoh: u128,
    /// Own pieces that can move off a beam (all but the Sphinx).
    movable: u128,
    /// The empty squares.
    empty: u128,
    /// Where a beam can be turned for one, two or three moves ([`turn_costs`]).
    turn: [u128; 3],
}

/// What one, two or three moves more open from `entered` (the squares the beam enters in each
/// direction at `cost`), added to `more`: an own piece moved off (`movable`) or an enemy piece
/// the shot removes (`hit`), and a beam turned where [`ReachBoard::turn`] says.
#[inline(always)]
fn open(
    entered: &[u128; 4],
    cost: usize,
    more: &mut [[u128; 4]; REACH_CAP as usize + 3],
    movable: u128,
    hit: &[u128; 4],
    turn: &[u128; 3],
) {
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

/// Where the side of colour `own` can turn a beam for one, two or three moves: an own mirror
/// turned, or a mirror placed (on an `empty` square, as far as the nearest of its `mirrors`)
/// or swapped in (for a `swappable` enemy piece, as far as the nearest of its `swappers`).
#[inline]
fn turn_costs(own: u8, empty: u128, mirrors: u128, swappers: u128, swappable: u128) -> [u128; 3] {
    let near1 = dilate(mirrors);
    let near2 = dilate(near1);
    // Where placing a mirror costs 1, 2 or 3 moves: not on a square reserved against it.
    let enterable = ENTERABLE[own as usize];
    let open = empty & enterable;
    let place = [open & near1, open & near2 & !near1, open & !near2];
    let swappable = swappable & enterable;
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
    [
        mirrors | place[0] | swap[0],
        place[1] | swap[1],
        place[2] | swap[2],
    ]
}
