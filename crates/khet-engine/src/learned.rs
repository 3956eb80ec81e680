//! A learned evaluation: a small network, added to the hand-written evaluation, trained on
//! self-play positions labelled by searches (`khet-engine learn-data`, `learn-train`). Used where
//! [`Options::learned`](crate::search::Options::learned) asks for it: by Grandmaster
//! ([`crate::Level`]), whose sequential tests against Master at equal time it passed
//! (`docs/engine-ledger.md`, *A learned evaluation*); Master and the levels below do without,
//! so that the ladder's measured steps stand.
//!
//! The inputs are one per (own or enemy, kind, orientation, square) from the side to move's
//! view (Red's positions turned half a turn with the colours swapped, as [`Position::mirrored`]),
//! [`INPUTS`] in all, of which a position has a few dozen on. One hidden layer of [`HIDDEN`]
//! units clipped to 0..1, and a linear output in centipawns. Integer inference: the first
//! layer's weights are scaled by [`Q`], the output's are whole centipawns. Trained on Khet 2.0
//! games only, it says nothing in Khet 1.0 (see [`evaluate`]).

use crate::piece::{Color, Kind};
use crate::position::Position;
use std::sync::OnceLock;

/// Orientations a piece's input tells apart (an Obelisk's height takes their place).
const ORIENTATIONS: usize = 4;
/// Kinds of piece.
const KINDS: usize = 8;
/// The network's inputs.
pub const INPUTS: usize = 2 * KINDS * ORIENTATIONS * 80;
/// The hidden layer's units.
pub const HIDDEN: usize = 32;
/// The first layer's scale: a hidden unit is on at `Q`.
pub const Q: i32 = 512;

/// The network's weights, quantised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Net {
    /// `INPUTS` rows of `HIDDEN`.
    pub w1: Vec<i16>,
    /// The hidden units' biases, scaled as `w1`.
    pub b1: [i16; HIDDEN],
    /// The output's weights, centipawns for a unit fully on.
    pub w2: [i32; HIDDEN],
    /// The output's bias, centipawns.
    pub b2: i32,
}

/// The shipped network (empty before one is trained: then it adds nothing).
static SHIPPED: &[u8] = include_bytes!("learned.net");

impl Net {
    /// The bytes [`Net::to_bytes`] wrote, or `None` when they are not a network of this shape.
    pub fn from_bytes(bytes: &[u8]) -> Option<Net> {
        let words = INPUTS * HIDDEN + HIDDEN;
        if bytes.len() != words * 2 + (HIDDEN + 1) * 4 {
            return None;
        }
        let (first, second) = bytes.split_at(words * 2);
        let i16s: Vec<i16> = first
            .chunks_exact(2)
            .map(|c| i16::from_le_bytes([c[0], c[1]]))
            .collect();
        let i32s: Vec<i32> = second
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Some(Net {
            w1: i16s[..INPUTS * HIDDEN].to_vec(),
            b1: i16s[INPUTS * HIDDEN..].try_into().ok()?,
            w2: i32s[..HIDDEN].try_into().ok()?,
            b2: i32s[HIDDEN],
        })
    }

    /// Little-endian: the first layer's weights and biases (i16), the output's (i32).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for w in self.w1.iter().chain(&self.b1) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for w in self.w2.iter().chain(std::iter::once(&self.b2)) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out
    }

    /// The network's output for the inputs that are on, in centipawns for the side to move.
    pub fn output(&self, active: &[u16]) -> i32 {
        let mut acc = [0i32; HIDDEN];
        for (a, b) in acc.iter_mut().zip(&self.b1) {
            *a = i32::from(*b);
        }
        for &i in active {
            let row = &self.w1[usize::from(i) * HIDDEN..][..HIDDEN];
            for (a, w) in acc.iter_mut().zip(row) {
                *a += i32::from(*w);
            }
        }
        let sum: i32 = acc
            .iter()
            .zip(&self.w2)
            .map(|(a, w)| a.clamp(&0, &Q) * w)
            .sum();
        self.b2 + sum / Q
    }
}

/// The inputs on in `p`, from the side to move's view.
pub fn active(p: &Position, out: &mut Vec<u16>) {
    out.clear();
    out.extend(inputs(p));
}

/// The inputs on in `p` (one a piece, so at most 80), from the side to move's view.
fn inputs(p: &Position) -> impl Iterator<Item = u16> + '_ {
    let red = p.side_to_move() == Color::Red;
    p.pieces().map(move |(sq, piece)| {
        let (sq, piece) = if red {
            (sq.rotate_180(), piece.mirrored())
        } else {
            (sq, piece)
        };
        let own = usize::from(piece.color() != Color::Silver);
        let orientation = match piece.kind() {
            Kind::Obelisk => usize::from(piece.height()) - 1,
            _ => usize::from(piece.orientation()),
        };
        (((own * KINDS + piece.kind() as usize) * ORIENTATIONS + orientation) * 80 + sq.index())
            as u16
    })
}

/// The shipped network's word on `p`: 0 when none is shipped, and in Khet 1.0, whose pieces
/// (Djeds, Obelisks) no game it was trained on had.
pub fn evaluate(p: &Position) -> i32 {
    if p.edition() != crate::rules::Edition::Khet2 {
        return 0;
    }
    static NET: OnceLock<Option<Net>> = OnceLock::new();
    let Some(net) = NET.get_or_init(|| Net::from_bytes(SHIPPED)) else {
        return 0;
    };
    // On the stack: this runs at every node the evaluation cache has not seen.
    let mut on = [0u16; 80];
    let mut n = 0;
    for (slot, i) in on.iter_mut().zip(inputs(p)) {
        *slot = i;
        n += 1;
    }
    net.output(&on[..n])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_and_its_mirror_have_the_same_inputs() {
        let mut p = crate::setup::Setup::builtin("classic").unwrap().position;
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..6 {
            active(&p, &mut a);
            active(&p.mirrored(), &mut b);
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b, "{p}");
            assert!(a.iter().all(|&i| usize::from(i) < INPUTS));
            let mv = p.legal_moves()[5];
            p.play(mv);
        }
    }

    /// The shipped network is read, says something of a game under way, the same from either
    /// side, and nothing in Khet 1.0.
    #[test]
    fn the_shipped_network_judges_khet_2_positions_alike_from_either_side() {
        assert!(
            Net::from_bytes(SHIPPED).is_some(),
            "a network of this shape"
        );
        let mut p = crate::setup::Setup::builtin("classic").unwrap().position;
        let mut said = 0;
        for i in 0..10 {
            assert_eq!(evaluate(&p), evaluate(&p.mirrored()), "{p}");
            said += i32::from(evaluate(&p) != 0);
            let moves = p.legal_moves();
            p.play(moves[(i * 7) % moves.len()]);
        }
        assert!(said > 5, "it judged {said} of 10 positions");
        let first = crate::setup::Setup::builtin("khet1/classic")
            .unwrap()
            .position;
        assert_eq!(evaluate(&first), 0);
    }

    #[test]
    fn a_network_reads_back_what_it_wrote() {
        let mut net = Net {
            w1: (0..INPUTS * HIDDEN)
                .map(|i| (i % 200) as i16 - 100)
                .collect(),
            b1: [3; HIDDEN],
            w2: [-7; HIDDEN],
            b2: 11,
        };
        net.w2[3] = 40;
        assert_eq!(Net::from_bytes(&net.to_bytes()), Some(net));
        assert_eq!(Net::from_bytes(&[0; 10]), None);
    }
}
