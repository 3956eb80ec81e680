//! The laser: a pure function from a position and a colour to the shot.
//!
//! [`fire`] returns the whole beam — every straight segment with where it turns, splits or
//! stops — because the game draws it; the search calls [`Position::trace_hits`], the same tracer
//! compiled without the recording. Beams travel along ranks and files; what a piece does to a
//! beam is looked up in a 256 × 4 table built at compile time from the beam algebra of the rule
//! books (see `docs/rules.md`, Beam algebra).
//!
//! The files by job: `hits` what a shot does ([`Hits`]), `shot` what a shot is ([`Shot`] and
//! its segments, [`fire`]),
//! `trace` the tracers (jumping from piece to piece, and step by step where beam splitters
//! stand) and the beam's lit squares, `reach` how many moves a beam is from the enemy Pharaoh
//! ([`Reach`], on bitboards).

pub(crate) mod hits;
mod reach;
mod shot;
#[cfg(test)]
mod stepwise;
#[cfg(test)]
mod tests;
mod trace;

pub use hits::Hits;
pub use reach::{REACH_CAP, Reach};
pub use shot::{Hit, HitEffect, Segment, SegmentEnd, Shot, fire};

use crate::piece::cell::{self, OFF};
use crate::piece::{Color, Kind};
use crate::position::Position;
use crate::rules::Edition;
use crate::square::{Direction, MB_WIDTH, Square};

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
    #[inline]
    fn mb(self) -> (usize, u8) {
        match self {
            Origin::Sphinx(sq, d) => (sq.mb(), d),
            Origin::Edge(sq, d) => ((sq.mb() as isize - DELTAS[d as usize]) as usize, d),
        }
    }
}

impl Position {
    /// Where `color`'s beam starts, if it has a laser.
    #[inline]
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
}
