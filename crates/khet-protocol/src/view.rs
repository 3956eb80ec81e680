//! A game as a web page draws it ([`BoardView`]): the pieces with their turns, the last shot's
//! beam as lines, the clocks, the offers, and the legal moves of the side to move, all worked
//! out by the engine from a [`Mirror`]. The pages (`/watch/CODE`, `/play`) know no rules: the
//! server sends them this after each change ([`crate::ServerMsg::View`]), and they draw it.

use crate::{Clocks, GameView, Mirror, Status};
use khet_engine::{
    Color, Edition, Game, GameResult, HitEffect, Kind, Move, Piece, Rotation, Segment, SegmentEnd,
    Shot, Square, reserved_for,
};
use serde::{Deserialize, Serialize};

/// A square's top-left corner in board units (a square is 1 × 1, Silver's rank 1 at the bottom).
fn corner(sq: Square) -> [f32; 2] {
    [sq.file().index() as f32, 7.0 - sq.rank().index() as f32]
}

fn centre(sq: Square) -> [f32; 2] {
    let [x, y] = corner(sq);
    [x + 0.5, y + 0.5]
}

fn half_step(p: [f32; 2], dir: khet_engine::Direction, sign: f32) -> [f32; 2] {
    let (dx, dy) = dir.delta();
    // The engine's north is up the ranks; the page's y grows downwards.
    [
        p[0] + sign * 0.5 * f32::from(dx),
        p[1] - sign * 0.5 * f32::from(dy),
    ]
}

/// One straight run of the beam as a line: from the centre of the square that sent it (or the
/// board's edge) to the centre of its last square (or the edge it leaves by).
fn line(seg: &Segment) -> [f32; 4] {
    let start = match seg.from {
        Some(from) => centre(from),
        None => half_step(centre(seg.edge_entry()), seg.dir, -1.0),
    };
    let end = match seg.end {
        SegmentEnd::LeftBoard => half_step(centre(seg.to), seg.dir, 1.0),
        _ => centre(seg.to),
    };
    [start[0], start[1], end[0], end[1]]
}

/// A piece as a page draws it.
#[derive(Clone, Serialize, Deserialize, Debug, PartialEq)]
pub struct PieceView {
    /// Its square, `e4`.
    pub sq: String,
    /// The square's top-left corner.
    pub at: [f32; 2],
    /// `silver` or `red`.
    pub color: String,
    /// `pyramid`, `sphinx`, …
    pub kind: String,
    /// Quarter turns clockwise from the piece's base drawing: a Sphinx's or Anubis's facing
    /// from north, a mirror's from `NE`.
    pub turns: u8,
    /// 2 for a stack of Obelisks.
    pub height: u8,
    /// In words, for screen readers and the tooltip.
    pub label: String,
}

impl PieceView {
    /// `piece` on `sq`.
    pub fn new(sq: Square, piece: Piece) -> PieceView {
        let turns = match piece.kind() {
            Kind::Sphinx | Kind::Anubis => piece.facing().map_or(0, |d| d.index() as u8),
            Kind::Pyramid | Kind::Scarab | Kind::Djed | Kind::Eye => {
                piece.mirror().map_or(0, |m| m as u8)
            }
            Kind::Pharaoh | Kind::Obelisk => 0,
        };
        PieceView {
            sq: sq.to_string(),
            at: corner(sq),
            color: piece.color().id().into(),
            kind: piece.kind().id().into(),
            turns,
            height: piece.height(),
            label: format!("{} on {sq}", piece.describe()),
        }
    }
}

/// A piece the last shot hit.
#[derive(Clone, Serialize, Deserialize, Debug, PartialEq)]
pub struct HitView {
    /// The piece as it stood.
    pub piece: PieceView,
    /// `removed`, `top_removed` or `pharaoh_lit`.
    pub effect: String,
}

/// A shot: its beam as lines, and what it hit.
#[derive(Clone, Serialize, Deserialize, Debug, PartialEq)]
pub struct ShotView {
    /// Whose laser fired.
    pub color: String,
    /// Each straight run, `[x1, y1, x2, y2]` in board units, in the order traced.
    pub lines: Vec<[f32; 4]>,
    /// The pieces hit.
    pub hits: Vec<HitView>,
}

impl ShotView {
    /// The engine's `shot`, drawn.
    pub fn new(shot: &Shot) -> ShotView {
        ShotView {
            color: shot.color.id().into(),
            lines: shot.segments.iter().map(line).collect(),
            hits: shot
                .hits
                .iter()
                .map(|h| HitView {
                    piece: PieceView::new(h.square, h.piece),
                    effect: match h.effect {
                        HitEffect::Removed => "removed",
                        HitEffect::TopRemoved => "top_removed",
                        HitEffect::PharaohLit => "pharaoh_lit",
                    }
                    .into(),
                })
                .collect(),
        }
    }
}

/// Both clocks, with the running side named as [`BoardView::turn`] names it.
#[derive(Clone, Serialize, Deserialize, Debug, PartialEq)]
pub struct ClocksView {
    /// Silver's and Red's time left, in milliseconds, when the view was made.
    pub remaining_ms: [u64; 2],
    /// `silver` or `red`: the side whose clock is running, if any.
    pub running: Option<String>,
}

impl From<Clocks> for ClocksView {
    fn from(c: Clocks) -> Self {
        ClocksView {
            remaining_ms: c.remaining_ms,
            running: c.running.map(|c| c.id().into()),
        }
    }
}

/// A legal move of the side to move, as a page offers it: click `from`, then `to` (a step, a
/// swap, or the top of a stack), or a turn button.
#[derive(Clone, Serialize, Deserialize, Debug, PartialEq, Eq)]
pub struct LegalMove {
    /// The move's text, to send in [`crate::ClientMsg::Move`].
    pub mv: String,
    /// The square of the piece that moves.
    pub from: String,
    /// Where it goes, for a step, swap or unstack.
    #[serde(default)]
    pub to: Option<String>,
    /// `cw` or `ccw`, for a turn.
    #[serde(default)]
    pub rotate: Option<String>,
    /// Only the top Obelisk of the stack goes.
    #[serde(default)]
    pub unstack: bool,
}

impl LegalMove {
    /// The engine's `mv`.
    pub fn new(mv: Move) -> LegalMove {
        let (from, to, rotate, unstack) = match mv {
            Move::Step { from, to } | Move::Swap { from, to } => (from, Some(to), None, false),
            Move::Unstack { from, to } => (from, Some(to), None, true),
            Move::Rotate { at, rotation } => {
                let turn = match rotation {
                    Rotation::Clockwise => "cw",
                    Rotation::Anticlockwise => "ccw",
                };
                (at, None, Some(turn.to_string()), false)
            }
        };
        LegalMove {
            mv: mv.to_string(),
            from: from.to_string(),
            to: to.map(|s| s.to_string()),
            rotate,
            unstack,
        }
    }
}

/// Who is at the table: what [`crate::ServerMsg::Presence`] last said.
#[derive(Clone, Copy, Serialize, Deserialize, Debug, PartialEq, Eq, Default)]
pub struct Presence {
    /// Silver's and Red's player connected.
    pub connected: [bool; 2],
    /// How long each side has been gone, in milliseconds, when the view was made.
    pub gone_ms: [Option<u64>; 2],
    /// How long a side must be gone before the other may claim the game.
    pub grace_ms: u64,
}

/// Everything a page shows of a game, sent whole after each change.
#[derive(Clone, Serialize, Deserialize, Debug, PartialEq)]
pub struct BoardView {
    /// The last event's number.
    pub event: u64,
    /// The game's code.
    pub code: String,
    /// The setup's name.
    pub setup: String,
    /// `2.0` or `1.0`.
    pub edition: String,
    /// The viewer's side (`silver` or `red`), if they play.
    pub you: Option<String>,
    /// Silver's and Red's names, with the rating in a rated game.
    pub players: [Option<String>; 2],
    /// Whether the game is rated.
    pub rated: bool,
    /// The squares reserved for a colour: `[file, rank from the top, colour]`.
    pub reserved: Vec<(u8, u8, String)>,
    /// The pieces now.
    pub pieces: Vec<PieceView>,
    /// The moves in notation.
    pub moves: Vec<String>,
    /// The side to move: `silver` or `red`.
    pub turn: String,
    /// The last shot, if a move was played.
    pub shot: Option<ShotView>,
    /// The clocks as the server last sent them (a page counts down from them).
    pub clocks: Option<ClocksView>,
    /// Days a move, for a correspondence game.
    pub days_per_move: Option<u32>,
    /// When the side to move's days run out (the server's Unix milliseconds).
    pub deadline_ms: Option<u64>,
    /// The time the side to move had left of their days when the server sent this: a page
    /// counts down from it by its own clock, as from `clocks`, so that a device whose clock is
    /// wrong still shows the right time.
    pub left_ms: Option<u64>,
    /// `open`, `playing` or `over`.
    pub status: Status,
    /// The result in words.
    pub result: Option<String>,
    /// The side that offers a draw, if one does.
    pub draw_offer: Option<String>,
    /// The side that asks to take a move back, if one does.
    pub takeback: Option<String>,
    /// The side to move may claim a draw by threefold repetition.
    pub repetition: bool,
    /// Who is at the table.
    pub presence: Presence,
    /// The legal moves of the side to move, while the game is played, for a viewer who plays it
    /// (empty otherwise).
    pub legal: Vec<LegalMove>,
}

impl BoardView {
    /// The view of a followed game.
    pub fn new(mirror: &Mirror, presence: Presence) -> BoardView {
        let mut view = BoardView::of(&mirror.game, &mirror.view, mirror.you, mirror.result());
        view.event = mirror.event;
        view.presence = presence;
        view
    }

    /// The view of `game`, which `info` describes (its players, status, offers) and `you` play
    /// (if you do), ended with `result` (the server's word, or the engine's); event 0, nobody
    /// connected.
    pub fn of(
        game: &Game,
        info: &GameView,
        you: Option<Color>,
        result: Option<GameResult>,
    ) -> BoardView {
        let position = game.position();
        let player = |i: usize| {
            info.players[i].as_ref().map(|p| {
                if info.rated {
                    format!("{} ({})", p.name, p.rating_text())
                } else {
                    p.name.clone()
                }
            })
        };
        let playing = info.status == Status::Playing && result.is_none();
        let id = |c: Color| c.id().to_string();
        BoardView {
            event: 0,
            code: info.code.clone(),
            setup: info.setup.clone(),
            edition: match position.edition() {
                Edition::Khet2 => "2.0",
                Edition::Khet1 => "1.0",
            }
            .into(),
            you: you.map(id),
            players: [player(0), player(1)],
            rated: info.rated,
            reserved: Square::ALL
                .into_iter()
                .filter_map(|sq| {
                    reserved_for(sq).map(|c| {
                        let [x, y] = corner(sq);
                        (x as u8, y as u8, id(c))
                    })
                })
                .collect(),
            pieces: position
                .pieces()
                .map(|(sq, p)| PieceView::new(sq, p))
                .collect(),
            moves: info.moves.clone(),
            turn: id(game.side_to_move()),
            shot: game.last_turn().map(|t| ShotView::new(&t.shot)),
            clocks: info.clocks.map(ClocksView::from),
            days_per_move: info.days_per_move,
            deadline_ms: info.deadline_ms.filter(|_| playing),
            left_ms: None,
            status: info.status,
            result: result.map(|r| r.to_string()),
            draw_offer: info.draw_offer.map(id),
            takeback: info.takeback.map(id),
            repetition: playing && game.can_claim_draw(),
            presence: Presence::default(),
            // A spectator has no use for them.
            legal: if playing && you.is_some() {
                game.legal_moves().into_iter().map(LegalMove::new).collect()
            } else {
                Vec::new()
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use khet_engine::Setup;

    fn view_after(setup: &str, moves: &[&str]) -> BoardView {
        let position = Setup::builtin(setup).unwrap().position;
        let mut game = Game::new(position);
        for mv in moves {
            game.play_text(mv).unwrap();
        }
        let view = GameView {
            code: "abcdefgh".into(),
            setup: setup.into(),
            start: position.to_string(),
            rated: false,
            clock: None,
            players: [None, None],
            moves: game.turns().iter().map(|t| t.mv.to_string()).collect(),
            clocks: None,
            status: Status::Playing,
            result: None,
            draw_offer: None,
            takeback: None,
            days_per_move: None,
            deadline_ms: None,
        };
        let mirror = Mirror::from_sync(3, Some(Color::Red), view).unwrap();
        BoardView::new(&mirror, Presence::default())
    }

    #[test]
    fn the_beam_starts_at_the_laser_and_ends_where_the_light_does() {
        // Khet 2.0: Silver's Sphinx on j1 fires north from the centre of its square.
        let f = view_after("classic", &["c1d2"]);
        let shot = f.shot.expect("a shot");
        assert_eq!(shot.color, "silver");
        assert_eq!(&shot.lines[0][..2], &[9.5, 7.5]);
        assert_eq!(f.pieces.len(), 26);
        assert_eq!(f.turn, "red");
        assert_eq!(f.you.as_deref(), Some("red"));
        // Each line joins the last: one beam, not pieces of one.
        for pair in shot.lines.windows(2) {
            assert_eq!(&pair[0][2..], &pair[1][..2]);
        }
        // Khet 1.0: the fixed laser is outside the board, so the beam comes in over the edge
        // below j1.
        let f = view_after("khet1/classic", &["c1d2"]);
        let shot = f.shot.expect("a shot");
        assert_eq!(&shot.lines[0][..2], &[9.5, 8.0]);
        assert_eq!(f.edition, "1.0");
    }

    #[test]
    fn the_running_clock_is_named_as_the_turn_is() {
        let clocks = Clocks {
            remaining_ms: [600_000, 590_000],
            running: Some(Color::Red),
        };
        let json = serde_json::to_value(ClocksView::from(clocks)).unwrap();
        assert_eq!(json["running"], "red");
        assert_eq!(json["remaining_ms"][1], 590_000);
    }

    #[test]
    fn reserved_squares_and_orientations_are_the_engines() {
        let f = view_after("classic", &[]);
        // Ten squares each: a file and two corners of the other side's.
        assert_eq!(f.reserved.iter().filter(|r| r.2 == "silver").count(), 10);
        assert_eq!(f.reserved.iter().filter(|r| r.2 == "red").count(), 10);
        assert!(f.reserved.contains(&(9, 0, "silver".into())));
        assert!(f.reserved.contains(&(0, 7, "red".into())));
        let sphinx = f.pieces.iter().find(|p| p.sq == "j1").unwrap();
        assert_eq!(
            (sphinx.kind.as_str(), sphinx.turns),
            ("sphinx", 0),
            "Silver's fires north"
        );
        let red_sphinx = f.pieces.iter().find(|p| p.sq == "a8").unwrap();
        assert_eq!(red_sphinx.turns, 2, "Red's fires south");
        assert!(f.shot.is_none());
    }

    #[test]
    fn the_legal_moves_are_the_engines_and_read_back_as_moves() {
        let f = view_after("classic", &["c1d2"]);
        let position = {
            let mut g = Game::new(Setup::builtin("classic").unwrap().position);
            g.play_text("c1d2").unwrap();
            *g.position()
        };
        assert_eq!(f.legal.len(), position.legal_moves().len());
        for m in &f.legal {
            let mv = position
                .parse_move(&m.mv)
                .expect("the text is a legal move");
            assert_eq!(LegalMove::new(mv), *m);
            assert!(m.to.is_some() != m.rotate.is_some(), "{m:?}");
        }
        // Red's Sphinx on a8 turns one way only; Pyramids turn both ways.
        let turns = |sq: &str| {
            f.legal
                .iter()
                .filter(|m| m.from == sq && m.rotate.is_some())
                .count()
        };
        assert_eq!(turns("a8"), 1);
        let pyramid = f
            .pieces
            .iter()
            .find(|p| p.color == "red" && p.kind == "pyramid")
            .unwrap();
        assert_eq!(turns(&pyramid.sq), 2);
    }
}
