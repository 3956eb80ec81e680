//! What a shot is: the pieces it hits ([`Hits`], [`Hit`]), its straight runs ([`Segment`]),
//! the whole of it ([`Shot`]) and [`fire`], which traces it.

use super::hits::Hits;
use crate::piece::{Color, Kind, Piece};
use crate::position::Position;
use crate::square::{Direction, Square};
use std::fmt;

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
