//! A shot traced a square at a time, through the engine's public API alone: the reference the
//! property tests hold the engine's tracer to (it jumps from piece to piece, and uses a table of
//! what each piece byte does to a beam). The beam algebra is `docs/rules.md`'s, written out here
//! again on purpose: a reference that read the engine's table would agree with any error in it.

use khet_engine::*;

/// What a piece does to a beam travelling in direction `d` (0 = north, clockwise).
enum Meets {
    /// The beam goes on in this direction (a mirror turned it).
    Turned(u8),
    /// The beam stops and the piece survives (a Sphinx, an Anubis's front).
    Stopped,
    /// The beam stops and the piece is hit.
    Hit,
    /// A Pharaoh is lit.
    Lit,
    /// An Eye of Horus: the beam goes on straight, and a part is reflected in this direction.
    Split(u8),
}

/// How a two-sided mirror of orientation `o` (even = `\`, odd = `/`) turns a beam travelling `d`.
fn two_sided(o: u8, d: u8) -> u8 {
    if o & 1 == 0 { 3 - d } else { d ^ 1 }
}

fn meets(piece: Piece, d: u8) -> Meets {
    let o = piece.orientation();
    // The face the beam comes in by, as a direction from the piece.
    let face = (d + 2) & 3;
    match piece.kind() {
        Kind::Pharaoh => Meets::Lit,
        Kind::Sphinx => Meets::Stopped,
        // A Pyramid facing diagonal `o` has mirror faces `o` and `o + 1`.
        Kind::Pyramid if face == o => Meets::Turned((o + 1) & 3),
        Kind::Pyramid if face == (o + 1) & 3 => Meets::Turned(o),
        Kind::Pyramid => Meets::Hit,
        Kind::Anubis if face == o => Meets::Stopped,
        Kind::Anubis => Meets::Hit,
        Kind::Scarab | Kind::Djed => Meets::Turned(two_sided(o, d)),
        Kind::Obelisk => Meets::Hit,
        Kind::Eye => Meets::Split(two_sided(o, d)),
    }
}

/// What `color`'s shot hits on `p`, traced a square at a time with a work stack of beams and a
/// record of each (square, direction) already lit, so that split beams that loop or join stop.
pub fn trace_hits_stepwise(p: &Position, color: Color) -> Hits {
    let corner = sphinx_square(color);
    // A beam leaves a Sphinx (Khet 2.0), or comes onto the corner from beyond the edge (the
    // fixed lasers of Khet 1.0, `None` for where it comes from).
    let start = match p.edition() {
        Edition::Khet2 => match p.piece_at(corner) {
            Some(s) if s.kind() == Kind::Sphinx && s.color() == color => {
                (Some(corner), s.orientation())
            }
            _ => return Hits::default(),
        },
        Edition::Khet1 => {
            let d = match color {
                Color::Silver => Direction::N,
                Color::Red => Direction::S,
            };
            (None, d.index() as u8)
        }
    };
    let mut lit = [0u8; 80];
    let mut hits = Hits::default();
    let mut beams = vec![start];
    while let Some((mut at, mut d)) = beams.pop() {
        loop {
            let next = match at {
                Some(sq) => sq.step(Direction::from_index(d as usize)),
                None => Some(corner),
            };
            // Off the board.
            let Some(sq) = next else { break };
            if lit[sq.index()] & (1 << d) != 0 {
                break;
            }
            lit[sq.index()] |= 1 << d;
            at = Some(sq);
            let Some(piece) = p.piece_at(sq) else {
                continue;
            };
            match meets(piece, d) {
                Meets::Turned(a) => d = a,
                Meets::Split(a) => beams.push((Some(sq), a)),
                Meets::Stopped => break,
                Meets::Hit => {
                    hits.squares |= 1u128 << sq.index();
                    break;
                }
                Meets::Lit => {
                    hits.pharaohs |= 1 << piece.color() as u8;
                    break;
                }
            }
        }
    }
    hits
}
