//! The transposition table, shared by the threads of a parallel search (Lazy SMP): each slot is
//! two atomic words, the entry packed into one and the key combined (exclusive or) with it in the other, so a slot
//! torn by two threads writing at once reads as a miss rather than as another position's entry.
//! One thread reads and writes exactly what a plain table would.

use crate::moves::Move;
use crate::piece::Rotation;
use crate::square::Square;
use std::sync::atomic::{AtomicU64, Ordering};

/// The score is exact.
pub(crate) const EXACT: u8 = 0;
/// The score is at least this (a cut-off).
pub(crate) const LOWER: u8 = 1;
/// The score is at most this (no move raised alpha).
pub(crate) const UPPER: u8 = 2;

/// One position's stored result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Entry {
    pub key: u64,
    pub mv: Option<Move>,
    pub score: i32,
    pub depth: i8,
    pub bound: u8,
    /// The search that stored it.
    pub age: u8,
}

/// Bytes a slot takes.
pub(crate) const SLOT_BYTES: usize = 16;

/// The slots; their number is a power of two.
pub(crate) struct Table {
    slots: Vec<[AtomicU64; 2]>,
}

impl Table {
    /// A table of `n` empty slots (`n` a power of two).
    pub fn new(n: usize) -> Table {
        debug_assert!(n.is_power_of_two());
        Table {
            slots: (0..n)
                .map(|_| [AtomicU64::new(0), AtomicU64::new(0)])
                .collect(),
        }
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// The slot of `key`.
    pub fn slot(&self, key: u64) -> usize {
        (key as usize) & (self.slots.len() - 1)
    }

    /// What the slot holds (an empty entry, key 0, when it holds nothing whole).
    pub fn read(&self, slot: usize) -> Entry {
        let [check, data] = &self.slots[slot];
        let data = data.load(Ordering::Relaxed);
        let key = check.load(Ordering::Relaxed) ^ data;
        if data == 0 {
            return Entry::default();
        }
        unpack(key, data)
    }

    pub fn write(&self, slot: usize, e: Entry) {
        let data = pack(&e);
        let [check, word] = &self.slots[slot];
        check.store(e.key ^ data, Ordering::Relaxed);
        word.store(data, Ordering::Relaxed);
    }

    pub fn clear(&self) {
        for [a, b] in &self.slots {
            a.store(0, Ordering::Relaxed);
            b.store(0, Ordering::Relaxed);
        }
    }
}

/// Bit 0: filled (so that a stored entry is never the zero word). Bits 1–18: the move (a flag
/// and 17 bits). Bits 19–42: the score, offset to be positive (24 bits hold ±8 million; a score
/// is within ±101,000). Bits 43–50: the depth. Bits 51–52: the bound. Bits 53–60: the age.
fn pack(e: &Entry) -> u64 {
    let mv = e.mv.map_or(0, |m| 1 | (u64::from(move_code(m)) << 1));
    let score = (i64::from(e.score) + (1 << 23)) as u64 & 0xFF_FFFF;
    1 | mv << 1
        | score << 19
        | u64::from(e.depth as u8) << 43
        | u64::from(e.bound & 3) << 51
        | u64::from(e.age) << 53
}

fn unpack(key: u64, data: u64) -> Entry {
    let mv_bits = (data >> 1) & 0x3_FFFF;
    Entry {
        key,
        mv: if mv_bits & 1 == 1 {
            move_from_code((mv_bits >> 1) as u32)
        } else {
            None
        },
        score: ((data >> 19) & 0xFF_FFFF) as i32 - (1 << 23),
        depth: ((data >> 43) & 0xFF) as u8 as i8,
        bound: ((data >> 51) & 3) as u8,
        age: ((data >> 53) & 0xFF) as u8,
    }
}

/// A move in 17 bits: from and to (7 bits each) and its kind (3 bits).
fn move_code(m: Move) -> u32 {
    let (from, to, kind) = match m {
        Move::Step { from, to } => (from, to, 0),
        Move::Swap { from, to } => (from, to, 1),
        Move::Rotate { at, rotation } => (at, at, 2 + rotation as u32),
        Move::Unstack { from, to } => (from, to, 4),
    };
    from.index() as u32 | (to.index() as u32) << 7 | kind << 14
}

fn move_from_code(code: u32) -> Option<Move> {
    let from = Square::new((code & 0x7F) as u8)?;
    let to = Square::new(((code >> 7) & 0x7F) as u8)?;
    Some(match code >> 14 {
        0 => Move::Step { from, to },
        1 => Move::Swap { from, to },
        2 => Move::Rotate {
            at: from,
            rotation: Rotation::Clockwise,
        },
        3 => Move::Rotate {
            at: from,
            rotation: Rotation::Anticlockwise,
        },
        4 => Move::Unstack { from, to },
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_read_back_as_written() {
        let t = Table::new(1024);
        let moves = [
            None,
            Some(Move::Step {
                from: Square::ALL[0],
                to: Square::ALL[79],
            }),
            Some(Move::Rotate {
                at: Square::ALL[41],
                rotation: Rotation::Anticlockwise,
            }),
            Some(Move::Unstack {
                from: Square::ALL[3],
                to: Square::ALL[14],
            }),
            Some(Move::Swap {
                from: Square::ALL[70],
                to: Square::ALL[61],
            }),
        ];
        for (i, mv) in moves.into_iter().enumerate() {
            for score in [0, 1, -1, 100_999, -100_999, 101_000, -101_000] {
                for depth in [-3i8, 0, 1, 60] {
                    let e = Entry {
                        key: 0x9E37_79B9_7F4A_7C15 ^ i as u64,
                        mv,
                        score,
                        depth,
                        bound: (i % 3) as u8,
                        age: 255 - i as u8,
                    };
                    let slot = t.slot(e.key);
                    t.write(slot, e);
                    assert_eq!(t.read(slot), e);
                }
            }
        }
        t.clear();
        assert_eq!(t.read(5), Entry::default());
    }
}
