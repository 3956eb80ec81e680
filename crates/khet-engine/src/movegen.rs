//! Legal moves: generation for the search and checking, with reasons, for people and files.
//!
//! One move per distinct result: Pharaohs and Obelisks never rotate, a two-sided mirror has one
//! rotation (written `+`), a Sphinx has exactly one (toggling between its two directions).

use crate::moves::{Move, MoveText, ParseMoveError};
use crate::piece::cell::{self, EMPTY, OFF};
use crate::piece::{Color, Kind, Piece, Rotation};
use crate::position::{FORBIDDEN, Position, is_reserved_against};
use crate::rules::SwapLanding;
use crate::square::{NEIGHBOURS, Square};
use std::fmt;

const PHARAOH: u8 = Kind::Pharaoh as u8;
const SPHINX: u8 = Kind::Sphinx as u8;
const PYRAMID: u8 = Kind::Pyramid as u8;
const ANUBIS: u8 = Kind::Anubis as u8;
const OBELISK: u8 = Kind::Obelisk as u8;

/// Why a move was refused (its `Display` says it to a player).
#[derive(Clone, Debug, PartialEq, Eq)]
#[allow(missing_docs)] // each variant's message is in the Display below
pub enum Reason {
    NoPiece(Square),
    NotYourPiece { square: Square, piece: Piece },
    SphinxNeverMoves,
    CannotRotate(Kind),
    NotAdjacent,
    Reserved { square: Square, for_color: Color },
    Occupied { square: Square, piece: Piece },
    CannotSwapWith(Kind),
    SwapLandingReserved { piece: Piece, square: Square },
    StackTooHigh,
    NotAStack,
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::NoPiece(sq) => write!(f, "there is no piece on {sq}"),
            Reason::NotYourPiece { square, piece } => {
                write!(f, "the {} on {square} is not yours", piece.describe())
            }
            Reason::SphinxNeverMoves => {
                write!(f, "a Sphinx never leaves its corner; it can only turn")
            }
            Reason::CannotRotate(kind) => {
                write!(
                    f,
                    "turning {} changes nothing, so it is not a move",
                    kind.with_article()
                )
            }
            Reason::NotAdjacent => write!(f, "a piece moves one square (diagonals included)"),
            Reason::Reserved { square, for_color } => {
                write!(f, "{square} is reserved for {for_color}")
            }
            Reason::Occupied { square, piece } => {
                write!(f, "{square} is taken by the {}", piece.describe())
            }
            Reason::CannotSwapWith(kind) => {
                write!(
                    f,
                    "a swap is only with a Pyramid, Anubis or Obelisk, not {}",
                    kind.with_article()
                )
            }
            Reason::SwapLandingReserved { piece, square } => write!(
                f,
                "the swap would put the {} on {square}, reserved for {} (rule option permissive-swap allows it)",
                piece.describe(),
                piece.color().other()
            ),
            Reason::StackTooHigh => write!(f, "only two Obelisks may stack"),
            Reason::NotAStack => {
                write!(f, "only a stack of two Obelisks can move its top one alone")
            }
        }
    }
}

/// A refused move and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    /// The move as asked.
    pub mv: Move,
    /// Why it is refused.
    pub reason: Reason,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} is illegal: {}", self.mv, self.reason)
    }
}

impl std::error::Error for IllegalMove {}

/// Why move text was refused: unreadable, or readable and illegal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The text is not a move.
    Syntax(ParseMoveError),
    /// The text is a move, and an illegal one here.
    Illegal(IllegalMove),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Syntax(e) => e.fmt(f),
            MoveError::Illegal(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for MoveError {}

/// The rotation that toggles a Sphinx between its two directions (N↔W for Silver, S↔E for Red).
fn sphinx_rotation(piece: Piece) -> Rotation {
    let first = crate::position::sphinx_directions(piece.color())[0];
    if piece.facing() == Some(first) {
        Rotation::Anticlockwise
    } else {
        Rotation::Clockwise
    }
}

#[inline(always)]
fn sq_of(mb: usize) -> Square {
    match Square::from_mb(mb) {
        Some(s) => s,
        None => unreachable!("move generation stays on the board"),
    }
}

impl Position {
    /// Calls `f` with every legal move of the side to move.
    #[inline]
    pub fn for_each_move(&self, mut f: impl FnMut(Move)) {
        let side = self.side_to_move();
        let forbidden = &FORBIDDEN[side as usize];
        let cells = self.cells();
        let strict = self.rules().swap_landing == SwapLanding::Strict;
        for from in Square::ALL {
            let mb = from.mb();
            let c = cells[mb];
            if c == EMPTY || cell::color(c) != side as u8 {
                continue;
            }
            let kind = cell::kind(c);
            match kind {
                SPHINX => {
                    let rotation =
                        sphinx_rotation(Piece::from_byte(c).unwrap_or(Piece::pharaoh(side)));
                    f(Move::Rotate { at: from, rotation });
                    continue;
                }
                PHARAOH => {}
                PYRAMID | ANUBIS => {
                    f(Move::Rotate {
                        at: from,
                        rotation: Rotation::Clockwise,
                    });
                    f(Move::Rotate {
                        at: from,
                        rotation: Rotation::Anticlockwise,
                    });
                }
                OBELISK => {
                    let single = cell::single(c);
                    let stacked = c != single;
                    for n in NEIGHBOURS {
                        let t = (mb as isize + n) as usize;
                        let tc = cells[t];
                        if tc == EMPTY && !forbidden[t] {
                            f(Move::Step { from, to: sq_of(t) });
                            if stacked {
                                f(Move::Unstack { from, to: sq_of(t) });
                            }
                        } else if tc == single {
                            // Own single obelisk (it stands on an allowed square).
                            if stacked {
                                f(Move::Unstack { from, to: sq_of(t) });
                            } else {
                                f(Move::Step { from, to: sq_of(t) });
                            }
                        }
                    }
                    continue;
                }
                _ => {
                    // Scarab, Djed, Eye: one rotation, steps and swaps.
                    f(Move::Rotate {
                        at: from,
                        rotation: Rotation::Clockwise,
                    });
                    for n in NEIGHBOURS {
                        let t = (mb as isize + n) as usize;
                        let tc = cells[t];
                        if forbidden[t] {
                            continue;
                        }
                        if tc == EMPTY {
                            f(Move::Step { from, to: sq_of(t) });
                        } else {
                            let tk = cell::kind(tc);
                            if (tk == PYRAMID || tk == ANUBIS || tk == OBELISK)
                                && !(strict && FORBIDDEN[cell::color(tc) as usize][mb])
                            {
                                f(Move::Swap { from, to: sq_of(t) });
                            }
                        }
                    }
                    continue;
                }
            }
            for n in NEIGHBOURS {
                let t = (mb as isize + n) as usize;
                if cells[t] == EMPTY && !forbidden[t] {
                    f(Move::Step { from, to: sq_of(t) });
                }
            }
        }
    }

    /// Every legal move of the side to move.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut out = Vec::with_capacity(96);
        self.for_each_move(|m| out.push(m));
        out
    }

    /// How many legal moves the side to move has.
    #[inline]
    pub fn count_moves(&self) -> u64 {
        let mut n = 0;
        self.for_each_move(|_| n += 1);
        n
    }

    /// Checks `mv` for the side to move and returns it in canonical form (a step onto a piece a
    /// swapper may swap with is that swap; a two-sided mirror's turn is written clockwise; a
    /// Sphinx turns whichever way its one rotation goes), or the reason it is illegal.
    pub fn check_move(&self, mv: Move) -> Result<Move, IllegalMove> {
        let illegal = |reason| Err(IllegalMove { mv, reason });
        let side = self.side_to_move();
        let from = mv.from();
        let Some(piece) = self.piece_at(from) else {
            return illegal(Reason::NoPiece(from));
        };
        if piece.color() != side {
            return illegal(Reason::NotYourPiece {
                square: from,
                piece,
            });
        }
        let (to, top_only) = match mv {
            Move::Rotate { at, rotation } => {
                if !piece.can_rotate() {
                    return illegal(Reason::CannotRotate(piece.kind()));
                }
                let rotation = match piece.kind() {
                    Kind::Sphinx => sphinx_rotation(piece),
                    k if k.orientations() == 2 => Rotation::Clockwise,
                    _ => rotation,
                };
                return Ok(Move::Rotate { at, rotation });
            }
            Move::Step { to, .. } | Move::Swap { to, .. } => (to, false),
            Move::Unstack { to, .. } => (to, true),
        };
        if piece.kind() == Kind::Sphinx {
            return illegal(Reason::SphinxNeverMoves);
        }
        let df = from.file().index().abs_diff(to.file().index());
        let dr = from.rank().index().abs_diff(to.rank().index());
        if df > 1 || dr > 1 || from == to {
            return illegal(Reason::NotAdjacent);
        }
        if is_reserved_against(to, side) {
            return illegal(Reason::Reserved {
                square: to,
                for_color: side.other(),
            });
        }
        let target = self.piece_at(to);
        let own_single_obelisk = target.is_some_and(|t| t == Piece::obelisk(side, 1));
        if top_only {
            if piece.kind() != Kind::Obelisk || piece.height() != 2 {
                return illegal(Reason::NotAStack);
            }
            return match target {
                None => Ok(Move::Unstack { from, to }),
                Some(_) if own_single_obelisk => Ok(Move::Unstack { from, to }),
                Some(t) if t.kind() == Kind::Obelisk && t.color() == side => {
                    illegal(Reason::StackTooHigh)
                }
                Some(t) => illegal(Reason::Occupied {
                    square: to,
                    piece: t,
                }),
            };
        }
        let Some(t) = target else {
            return Ok(Move::Step { from, to });
        };
        if piece.kind() == Kind::Obelisk && t.kind() == Kind::Obelisk && t.color() == side {
            return if piece.height() == 1 && own_single_obelisk {
                Ok(Move::Step { from, to })
            } else {
                illegal(Reason::StackTooHigh)
            };
        }
        if !piece.kind().is_swapper() {
            return illegal(Reason::Occupied {
                square: to,
                piece: t,
            });
        }
        if !t.kind().is_swappable() {
            return illegal(Reason::CannotSwapWith(t.kind()));
        }
        if self.rules().swap_landing == SwapLanding::Strict && is_reserved_against(from, t.color())
        {
            return illegal(Reason::SwapLandingReserved {
                piece: t,
                square: from,
            });
        }
        Ok(Move::Swap { from, to })
    }

    /// Whether `mv` is legal as it stands (not merely after canonicalisation).
    pub fn is_legal(&self, mv: Move) -> bool {
        self.check_move(mv) == Ok(mv)
    }

    /// Reads move text against this board and checks it.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let parsed: MoveText = text.parse().map_err(MoveError::Syntax)?;
        let mv = match parsed {
            MoveText::Between(from, to) => Move::Step { from, to },
            MoveText::Turn(at, rotation) => Move::Rotate { at, rotation },
            MoveText::Top(from, to) => Move::Unstack { from, to },
        };
        self.check_move(mv).map_err(MoveError::Illegal)
    }
}

// The cells beyond the edge are never EMPTY, so the generator needs no bounds checks.
const _: () = assert!(OFF != EMPTY);
