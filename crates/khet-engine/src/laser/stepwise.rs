//! [`Position::reaches`] as a search over (square, direction) states by cost: the reference the
//! tests hold the bitboard version to (tests only).

use super::reach::{ENTERABLE, dilate};
use super::{ACTIONS, DELTAS, HIT, Origin, REACH_CAP, Reach};
use crate::piece::Color;
use crate::piece::cell::{self, OFF};
use crate::position::Position;
use crate::square::{MB_CELLS, Square};

impl Position {
    /// [`Position::reaches`] as a search over (square, direction) states by cost: the reference
    /// the tests hold the bitboard version to.
    pub(super) fn reaches_stepwise(&self, color: Color) -> Reach {
        let Some(origin) = self.laser_origin(color) else {
            return Reach::NONE;
        };
        let mut capture = REACH_CAP;
        let own = color as u8;
        let cells = self.cells();
        // Own mirrors (Pyramids, Scarabs, Djeds) and swappers (Scarabs, Djeds).
        let mirrors = own_pieces(cells, own, &[2, 4, 5]);
        let swappers = own_pieces(cells, own, &[4, 5]);
        // Placing a mirror where the side may not stand is no way to turn the beam.
        let enterable = ENTERABLE[own as usize];
        let may_enter =
            |mb: usize| Square::from_mb(mb).is_some_and(|sq| enterable >> sq.index() & 1 != 0);
        let place = |mb: usize| kings_steps(mirrors, mb);
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
                        let c = cost + kings_steps(swappers, n);
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
}

/// The squares (bit = square index) of the pieces of colour `own` whose kind is in `kinds`.
fn own_pieces(cells: &[u8; MB_CELLS], own: u8, kinds: &[u8]) -> u128 {
    let mut set = 0u128;
    for (i, &byte) in cells.iter().enumerate() {
        if cell::is_piece(byte)
            && cell::color(byte) == own
            && kinds.contains(&cell::kind(byte))
            && let Some(sq) = Square::from_mb(i)
        {
            set |= 1u128 << sq.index();
        }
    }
    set
}

/// Kings' steps from the nearest of `set` to mailbox cell `mb`: 1, 2, or 3 for any farther.
fn kings_steps(set: u128, mb: usize) -> u8 {
    let bit = Square::from_mb(mb).map_or(0, |sq| 1u128 << sq.index());
    if dilate(set) & bit != 0 {
        1
    } else if dilate(dilate(set)) & bit != 0 {
        2
    } else {
        3
    }
}
