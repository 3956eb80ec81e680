//! The evaluation: what a Khet position is worth to the side to move, in centipawns. All
//! weights are in [`Weights`]; the defaults were set by hand and checked by self-play matches
//! (`khet-engine match`), see `docs/engine-ledger.md`.

use crate::laser::{Hits, REACH_CAP};
use crate::piece::{Color, Kind};
use crate::position::Position;
use crate::square::Square;

/// A forced Pharaoh hit scores `WIN - plies`.
pub const WIN: i32 = 100_000;

/// The evaluation's weights, in one place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weights {
    /// A Pyramid (the unit: 100).
    pub pyramid: i32,
    /// An Anubis.
    pub anubis: i32,
    /// One Obelisk (a stack is two).
    pub obelisk: i32,
    /// Each own piece next to the own Pharaoh (a shield against beams).
    pub pharaoh_guard: i32,
    /// The side to move's beam, as it stands, hits an enemy piece (a capture is on).
    pub beam_hits_enemy: i32,
    /// The opponent's beam, as it stands, hits one of ours.
    pub beam_hits_us: i32,
    /// Each square of a side's beam next to the enemy Pharaoh (pressure).
    pub beam_near_pharaoh: i32,
    /// A Pharaoh off its back two ranks is exposed.
    pub pharaoh_forward: i32,
    /// For a side ahead by [`REACH_LEAD`] or more: each move fewer its beam needs to reach the
    /// enemy Pharaoh ([`Position::reach`]), a plan for converting the lead.
    pub reach: i32,
    /// For a side ahead by [`REACH_LEAD`] or more: each move fewer its beam needs to its
    /// nearest capture ([`Reach::capture`](crate::laser::Reach::capture)): taking what guards
    /// the enemy Pharaoh, and a capture before the no-capture draw. Its tests at 20, from won
    /// positions and from the setups: `docs/engine-ledger.md`, *Converting won positions*.
    pub capture_reach: i32,
}

/// The material lead (centipawns) from which a side's [`Weights::reach`] counts: level
/// positions are judged without it.
pub const REACH_LEAD: i32 = 150;

/// How many weights (and features) the evaluation has.
pub const FEATURES: usize = 10;

impl Weights {
    /// The weights times the features: the evaluation of a position with features `f`.
    pub fn dot(&self, f: [i32; FEATURES]) -> i32 {
        self.to_array().iter().zip(f).map(|(w, x)| w * x).sum()
    }

    /// The weights in [`Weights::fields_mut`]'s order, as [`features`] pairs them.
    pub fn to_array(&self) -> [i32; FEATURES] {
        [
            self.pyramid,
            self.anubis,
            self.obelisk,
            self.pharaoh_guard,
            self.beam_hits_enemy,
            self.beam_hits_us,
            self.beam_near_pharaoh,
            self.pharaoh_forward,
            self.reach,
            self.capture_reach,
        ]
    }

    /// Every weight with its name, for tuning.
    pub fn fields_mut(&mut self) -> [(&'static str, &mut i32); FEATURES] {
        [
            ("pyramid", &mut self.pyramid),
            ("anubis", &mut self.anubis),
            ("obelisk", &mut self.obelisk),
            ("pharaoh_guard", &mut self.pharaoh_guard),
            ("beam_hits_enemy", &mut self.beam_hits_enemy),
            ("beam_hits_us", &mut self.beam_hits_us),
            ("beam_near_pharaoh", &mut self.beam_near_pharaoh),
            ("pharaoh_forward", &mut self.pharaoh_forward),
            ("reach", &mut self.reach),
            ("capture_reach", &mut self.capture_reach),
        ]
    }
}

impl Default for Weights {
    fn default() -> Weights {
        WEIGHTS
    }
}

/// The weights the engine plays with.
pub const WEIGHTS: Weights = Weights {
    pyramid: 100,
    anubis: 130,
    obelisk: 60,
    pharaoh_guard: 12,
    beam_hits_enemy: 40,
    beam_hits_us: 15,
    beam_near_pharaoh: 18,
    pharaoh_forward: 20,
    reach: 20,
    capture_reach: 20,
};

/// The value of losing this piece (one obelisk of a stack).
pub fn piece_value(kind: Kind) -> i32 {
    match kind {
        Kind::Pyramid => WEIGHTS.pyramid,
        Kind::Anubis => WEIGHTS.anubis,
        Kind::Obelisk => WEIGHTS.obelisk,
        _ => 0,
    }
}

/// Each side's material.
pub fn material(p: &Position) -> [i32; 2] {
    let mut m = [0; 2];
    for (_, piece) in p.pieces() {
        m[piece.color().index()] += piece_value(piece.kind()) * piece.height() as i32;
    }
    m
}

/// Material won by `mover`'s shot after `mv` from `before`: what the enemy lost minus what the
/// mover lost. Each hit removes one piece (a stack's top obelisk), valued from the board as the
/// laser saw it.
pub fn capture_gain(before: &Position, mv: crate::Move, hits: Hits, mover: Color) -> i32 {
    let mut gain = 0;
    for sq in hits.squares() {
        // The piece on `sq` after the move, before the shot.
        let piece = match mv {
            crate::Move::Step { from, to } | crate::Move::Unstack { from, to } if sq == to => {
                before.piece_at(from)
            }
            crate::Move::Swap { from, to } if sq == to => before.piece_at(from),
            crate::Move::Swap { from, to } if sq == from => before.piece_at(to),
            _ => before.piece_at(sq),
        };
        if let Some(p) = piece {
            let v = piece_value(p.kind());
            gain += if p.color() == mover { -v } else { v };
        }
    }
    gain
}

/// For each square, the bits of the squares at most `steps` kings' steps from it (the square
/// itself included).
const fn within(steps: i32) -> [u128; 80] {
    let mut t = [0u128; 80];
    let mut i = 0;
    while i < 80 {
        let (f, r) = ((i % 10) as i32, (i / 10) as i32);
        let mut j: usize = 0;
        while j < 80 {
            let (g, q) = ((j % 10) as i32, (j / 10) as i32);
            if (f - g).abs() <= steps && (r - q).abs() <= steps {
                t[i] |= 1u128 << j;
            }
            j += 1;
        }
        i += 1;
    }
    t
}

/// For each square, the bits of the squares next to it (the square itself included).
static NEIGHBOURHOOD: [u128; 80] = within(1);

/// The position's worth to the side to move, with the default weights.
pub fn evaluate(p: &Position) -> i32 {
    evaluate_with(p, &WEIGHTS)
}

/// The position's worth to the side to move: the weights times the features.
pub fn evaluate_with(p: &Position, w: &Weights) -> i32 {
    w.dot(features(p))
}

/// What each weight multiplies, in [`Weights::fields_mut`]'s order, from the side to move's
/// view: the evaluation is linear in its weights, which is what tuning from data needs.
pub fn features(p: &Position) -> [i32; FEATURES] {
    let us = p.side_to_move();
    // Per side: pyramids, anubis, obelisks, guards, forwardness, beam near the enemy Pharaoh,
    // enemy pieces the beam hits, and (when well ahead) reach and capture reach.
    let mut side = [[0i32; 9]; 2];
    let mut pharaoh = [None::<Square>; 2];
    let mut own = [0u128; 2];
    for (sq, piece) in p.pieces() {
        let c = piece.color().index();
        let bit = 1u128 << sq.index();
        own[c] |= bit;
        let height = piece.height() as i32;
        match piece.kind() {
            Kind::Pyramid => side[c][0] += height,
            Kind::Anubis => side[c][1] += height,
            Kind::Obelisk => side[c][2] += height,
            Kind::Pharaoh => pharaoh[c] = Some(sq),
            Kind::Scarab | Kind::Djed | Kind::Sphinx | Kind::Eye => {}
        }
    }
    for color in Color::ALL {
        let c = color.index();
        if let Some(ph) = pharaoh[c] {
            let ring = NEIGHBOURHOOD[ph.index()] & !(1u128 << ph.index());
            side[c][3] = (ring & own[c]).count_ones() as i32;
            let back = match color {
                Color::Silver => ph.rank().index(),
                Color::Red => 7 - ph.rank().index(),
            };
            if back >= 2 {
                side[c][4] = back as i32 - 1;
            }
        }
        // Beam pressure and threats, from each side's laser as it stands.
        let (lit, hits) = p.beam_summary(color);
        let enemy = color.other();
        if let Some(eph) = pharaoh[enemy.index()] {
            side[c][5] = (lit & NEIGHBOURHOOD[eph.index()]).count_ones() as i32;
        }
        side[c][6] = (hits
            .squares()
            .filter(|&sq| p.piece_at(sq).is_some_and(|x| x.color() == enemy))
            .count()
            + usize::from(hits.pharaoh_hit(enemy))) as i32;
    }
    let worth =
        |s: &[i32; 9]| s[0] * WEIGHTS.pyramid + s[1] * WEIGHTS.anubis + s[2] * WEIGHTS.obelisk;
    let lead = worth(&side[0]) - worth(&side[1]);
    for color in Color::ALL {
        let ahead = if color == Color::Silver { lead } else { -lead };
        if ahead >= REACH_LEAD && pharaoh[color.other().index()].is_some() {
            let reach = p.reaches_with(color, false);
            side[color.index()][7] = (REACH_CAP - reach.pharaoh) as i32;
            side[color.index()][8] = (REACH_CAP - reach.capture) as i32;
        }
    }
    let (a, b) = (side[us.index()], side[us.other().index()]);
    [
        a[0] - b[0],
        a[1] - b[1],
        a[2] - b[2],
        a[3] - b[3],
        // The side to move's beam hits enemy pieces: a capture is on.
        a[6],
        // The opponent's beam hits ours.
        -b[6],
        a[5] - b[5],
        // Forward Pharaohs cost their side.
        -(a[4] - b[4]),
        a[7] - b[7],
        a[8] - b[8],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_evaluation_is_the_same_from_either_side() {
        // Each built-in 2.0 setup after a few moves, and its mirror with the other side to move.
        for setup in ["classic", "imhotep", "dynasty"] {
            let mut p = crate::setup::Setup::builtin(setup).unwrap().position;
            for _ in 0..6 {
                assert_eq!(features(&p), features(&p.mirrored()), "{p}");
                let mv = p.legal_moves()[7];
                p.play(mv);
            }
        }
    }

    #[test]
    fn a_side_well_ahead_is_paid_for_each_move_its_beam_is_nearer_the_enemy_pharaoh_and_a_capture()
    {
        // Silver five Pyramids up; its beam three moves from Red's Pharaoh.
        let p: Position = "x39/8p2P3/6s11S11/4k1s23//p11P3A1A15/2S2K6/1P41P35X1 0"
            .parse()
            .unwrap();
        let reaches = p.reaches(Color::Silver);
        // Nothing to take on the way: the nearest capture is the Pharaoh.
        assert_eq!((reaches.pharaoh, reaches.capture), (3, 3));
        let mut names = WEIGHTS;
        let names = names.fields_mut().map(|(name, _)| name);
        let at = |name| names.iter().position(|&n| n == name).unwrap();
        let (reach, capture) = (at("reach"), at("capture_reach"));
        let f = features(&p);
        assert_eq!(
            (f[reach], f[capture]),
            ((REACH_CAP - 3) as i32, (REACH_CAP - reaches.capture) as i32),
            "only the side ahead counts them"
        );
        assert_eq!(features(&p.mirrored()), features(&p));
        // Level material: nobody counts them.
        let level = crate::setup::Setup::builtin("classic").unwrap().position;
        assert_eq!((features(&level)[reach], features(&level)[capture]), (0, 0));
        // The evaluation is the weights times the features.
        for q in [p, level] {
            assert_eq!(
                evaluate_with(&q, &WEIGHTS),
                WEIGHTS.dot(features(&q)),
                "{q}"
            );
        }
    }
}
