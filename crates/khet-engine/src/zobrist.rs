//! Zobrist keys, generated at compile time.
//!
//! The position hash covers the arrangement only (pieces, colours, squares, orientations), which
//! is exactly what the repetition rule compares; the side to move is folded in separately where a
//! search needs it.

use crate::square::MB_CELLS;

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (state, z ^ (z >> 31))
}

/// One key per (mailbox cell, piece byte without its occupied bit).
pub(crate) static PIECE_KEYS: [[u64; 128]; MB_CELLS] = {
    let mut keys = [[0u64; 128]; MB_CELLS];
    let mut state = 0x4B48_4554_4B48_4554; // "KHETKHET"
    let mut sq = 0;
    while sq < MB_CELLS {
        let mut p = 0;
        while p < 128 {
            let (s, k) = splitmix64(state);
            state = s;
            keys[sq][p] = k;
            p += 1;
        }
        sq += 1;
    }
    keys
};

/// Folded in when Red is to move.
pub(crate) const RED_TO_MOVE: u64 = splitmix64(0x5245_4454_4F4D_4F56).1;

#[inline(always)]
pub(crate) fn piece_key(mb: usize, byte: u8) -> u64 {
    PIECE_KEYS[mb][(byte & 0x7F) as usize]
}
