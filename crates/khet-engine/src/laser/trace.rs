//! The tracers: from piece to piece on occupancy bitboards where no beam splitter stands, step
//! by step over the mailbox where one does, and the squares a beam lights.

use super::{
    ACTIONS, DELTAS, HIT, Hits, Origin, PHARAOH, SPLIT, STOP, Segment, SegmentEnd, two_sided,
};
use crate::piece::Color;
use crate::piece::cell::{self, OFF};
use crate::position::Position;
use crate::square::{Direction, FILES, MB_CELLS, RANKS, SQUARES, Square};

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

impl Position {
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

    /// Traces `color`'s shot without recording the path: what the search uses.
    #[inline]
    pub fn trace_hits(&self, color: Color) -> Hits {
        self.trace::<false>(color, &mut Vec::new())
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
