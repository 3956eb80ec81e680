//! Watching in a web browser, with nothing installed: `/` lists the games being played,
//! `/watch/{code}` shows one live. The page's script is dumb on purpose: the server follows the
//! game as a spectator (the same room, the same numbered events, the engine's `Mirror`) and sends
//! the page a whole [`Frame`] after each change: the pieces, the last shot's beam as lines, the
//! moves, the clocks and the result. The rules stay in the engine; the page only draws.

use crate::hub::Hub;
use crate::limits::Permit;
use crate::messages::{Command, Out};
use crate::state::AppState;
use axum::extract::ws::{Message, WebSocket};
use axum::extract::{ConnectInfo, Path, State, WebSocketUpgrade};
use axum::http::{StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use khet_engine::{
    Color, Edition, HitEffect, Kind, Piece, Segment, SegmentEnd, Shot, Square, reserved_for,
};
use khet_protocol::{Clocks, GameView, Mirror, ServerMsg, Status, check_code};
use serde::Serialize;
use std::net::SocketAddr;
use tokio::sync::broadcast;
use tokio::time::{Duration, timeout};

/// `GET /`: the games being played.
pub async fn lobby() -> Html<&'static str> {
    Html(include_str!("../web/index.html"))
}

/// `GET /watch/{code}`: one game, live.
pub async fn page(Path(code): Path<String>) -> Response {
    match check_code(&code) {
        Ok(_) => Html(include_str!("../web/watch.html")).into_response(),
        Err(e) => (StatusCode::NOT_FOUND, format!("{e}\n")).into_response(),
    }
}

/// `GET /web/{file}`: the pages' script and style.
pub async fn asset(Path(file): Path<String>) -> Response {
    let (body, kind) = match file.as_str() {
        "watch.js" => (
            include_str!("../web/watch.js"),
            "text/javascript; charset=utf-8",
        ),
        "lobby.js" => (
            include_str!("../web/lobby.js"),
            "text/javascript; charset=utf-8",
        ),
        "khet.css" => (include_str!("../web/khet.css"), "text/css; charset=utf-8"),
        _ => return (StatusCode::NOT_FOUND, "no such file\n").into_response(),
    };
    ([(header::CONTENT_TYPE, kind)], body).into_response()
}

/// `GET /watch/{code}/ws`: the frames of game `code`, as a spectator (no hello, no secret, and
/// nothing the page sends changes anything).
pub async fn socket(
    State(state): State<AppState>,
    ConnectInfo(addr): ConnectInfo<SocketAddr>,
    Path(code): Path<String>,
    ws: WebSocketUpgrade,
) -> Response {
    let Ok(code) = check_code(&code) else {
        return (StatusCode::NOT_FOUND, "no such game\n").into_response();
    };
    let permit = match state.limits.admit(addr.ip()) {
        Ok(permit) => permit,
        Err(why) => return (StatusCode::TOO_MANY_REQUESTS, why).into_response(),
    };
    let hub = state.hub.clone();
    ws.max_message_size(1024)
        .on_upgrade(move |socket| watch(socket, hub, code, permit))
}

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

/// A piece as the page draws it.
#[derive(Serialize, Debug, PartialEq)]
pub struct PieceView {
    /// Its square, `e4`.
    pub sq: String,
    /// The square's top-left corner.
    pub at: [f32; 2],
    /// `silver` or `red`.
    pub color: &'static str,
    /// `pyramid`, `sphinx`, …
    pub kind: &'static str,
    /// Quarter turns clockwise from the piece's base drawing: a Sphinx's or Anubis's facing
    /// from north, a mirror's from `NE`.
    pub turns: u8,
    /// 2 for a stack of Obelisks.
    pub height: u8,
    /// In words, for screen readers and the tooltip.
    pub label: String,
}

/// A piece the last shot hit.
#[derive(Serialize, Debug, PartialEq)]
pub struct HitView {
    /// The piece as it stood.
    pub piece: PieceView,
    /// `removed`, `top_removed` or `pharaoh_lit`.
    pub effect: &'static str,
}

/// The last shot: its beam as lines, and what it hit.
#[derive(Serialize, Debug, PartialEq)]
pub struct ShotView {
    /// Whose laser fired.
    pub color: &'static str,
    /// Each straight run, `[x1, y1, x2, y2]` in board units, in the order traced.
    pub lines: Vec<[f32; 4]>,
    /// The pieces hit.
    pub hits: Vec<HitView>,
}

/// Both clocks, with the running side named as `turn` names it (`silver` or `red`).
#[derive(Serialize, Debug, PartialEq)]
pub struct ClocksView {
    /// Silver's and Red's time left, in milliseconds.
    pub remaining_ms: [u64; 2],
    /// The side whose clock is running, if any.
    pub running: Option<&'static str>,
}

impl From<Clocks> for ClocksView {
    fn from(c: Clocks) -> Self {
        ClocksView {
            remaining_ms: c.remaining_ms,
            running: c.running.map(Color::id),
        }
    }
}

/// Everything the watch page shows, sent whole after each change.
#[derive(Serialize, Debug)]
pub struct Frame {
    /// The last event's number.
    pub event: u64,
    /// The game's code.
    pub code: String,
    /// The setup's name.
    pub setup: String,
    /// `2.0` or `1.0`.
    pub edition: &'static str,
    /// Silver's and Red's names and ratings.
    pub players: [Option<String>; 2],
    /// The squares reserved for a colour: `[file, rank from the top, colour]`.
    pub reserved: Vec<(u8, u8, &'static str)>,
    /// The pieces now.
    pub pieces: Vec<PieceView>,
    /// The moves in notation.
    pub moves: Vec<String>,
    /// The side to move.
    pub turn: &'static str,
    /// The last shot, if a move was played.
    pub shot: Option<ShotView>,
    /// The clocks as the server sent them (the page counts down from them).
    pub clocks: Option<ClocksView>,
    /// `open`, `playing` or `over`.
    pub status: Status,
    /// The result in words.
    pub result: Option<String>,
    /// Whether each player is connected.
    pub connected: [bool; 2],
}

fn piece_view(sq: Square, piece: Piece) -> PieceView {
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
        color: piece.color().id(),
        kind: piece.kind().id(),
        turns,
        height: piece.height(),
        label: format!("{} on {sq}", piece.describe()),
    }
}

fn shot_view(shot: &Shot) -> ShotView {
    ShotView {
        color: shot.color.id(),
        lines: shot.segments.iter().map(line).collect(),
        hits: shot
            .hits
            .iter()
            .map(|h| HitView {
                piece: piece_view(h.square, h.piece),
                effect: match h.effect {
                    HitEffect::Removed => "removed",
                    HitEffect::TopRemoved => "top_removed",
                    HitEffect::PharaohLit => "pharaoh_lit",
                },
            })
            .collect(),
    }
}

impl Frame {
    /// The frame of a followed game.
    pub fn of(mirror: &Mirror, connected: [bool; 2]) -> Frame {
        let game = &mirror.game;
        let position = game.position();
        let view: &GameView = &mirror.view;
        let player = |i: usize| {
            view.players[i].as_ref().map(|p| {
                if view.rated {
                    format!("{} ({})", p.name, p.rating.round())
                } else {
                    p.name.clone()
                }
            })
        };
        Frame {
            event: mirror.event,
            code: view.code.clone(),
            setup: view.setup.clone(),
            edition: match position.edition() {
                Edition::Khet2 => "2.0",
                Edition::Khet1 => "1.0",
            },
            players: [player(0), player(1)],
            reserved: Square::ALL
                .into_iter()
                .filter_map(|sq| {
                    reserved_for(sq).map(|c| {
                        let [x, y] = corner(sq);
                        (x as u8, y as u8, c.id())
                    })
                })
                .collect(),
            pieces: position.pieces().map(|(sq, p)| piece_view(sq, p)).collect(),
            moves: view.moves.clone(),
            turn: game.side_to_move().id(),
            shot: game.last_turn().map(|t| shot_view(&t.shot)),
            clocks: mirror.clocks().map(ClocksView::from),
            status: view.status,
            result: mirror.result().map(|r| r.to_string()),
            connected,
        }
    }
}

/// How long the page may be silent before it is closed (it pings every 20 s).
const SILENCE_LIMIT: Duration = Duration::from_secs(60);

async fn send_frame(socket: &mut WebSocket, mirror: &Mirror, connected: [bool; 2]) -> bool {
    let Ok(json) = serde_json::to_string(&Frame::of(mirror, connected)) else {
        return false;
    };
    socket.send(Message::Text(json.into())).await.is_ok()
}

/// Follows game `code` for a page until the page goes, or the game's room does.
async fn watch(mut socket: WebSocket, hub: Hub, code: String, _permit: Permit) {
    loop {
        let (room, attached) = match hub.attach(&code, None, None).await {
            Ok(ok) => ok,
            // Between two nodes: the page reconnects and finds the game.
            Err(refused) if refused.is_unavailable() => return,
            Err(refused) => {
                let msg = ServerMsg::refused(refused.code, refused.reason).to_json();
                let _ = socket.send(Message::Text(msg.into())).await;
                let _ = socket.send(Message::Close(None)).await;
                return;
            }
        };
        let again = follow(&mut socket, attached.catch_up, attached.rx).await;
        let _ = room.send(Command::Detach { seat: None }).await;
        if !again {
            return;
        }
    }
}

/// Sends a frame at each change; true if the game must be followed again from the start
/// (events were missed).
async fn follow(
    socket: &mut WebSocket,
    catch_up: Vec<Out>,
    mut rx: broadcast::Receiver<Out>,
) -> bool {
    let mut mirror: Option<Mirror> = None;
    let mut connected = [false; 2];
    let mut pending: std::collections::VecDeque<Out> = catch_up.into();
    loop {
        let next = match pending.pop_front() {
            Some(out) => out,
            None => {
                tokio::select! {
                    out = rx.recv() => match out {
                        Ok(out) => out,
                        Err(broadcast::error::RecvError::Lagged(_)) => return true,
                        Err(broadcast::error::RecvError::Closed) => return false,
                    },
                    incoming = timeout(SILENCE_LIMIT, socket.recv()) => match incoming {
                        Ok(Some(Ok(Message::Close(_)) | Err(_)) | None) | Err(_) => return false,
                        Ok(Some(Ok(_))) => continue,
                    },
                }
            }
        };
        let Ok(msg) = ServerMsg::from_json(&next.1) else {
            continue;
        };
        let changed = match msg {
            ServerMsg::Sync { event, game, .. } => match Mirror::from_sync(event, None, game) {
                Ok(m) => {
                    mirror = Some(m);
                    true
                }
                Err(_) => return false,
            },
            ServerMsg::Event { n, event } => match mirror.as_mut().map(|m| m.apply(n, &event)) {
                Some(Ok(khet_protocol::Applied::Changed(_))) => true,
                Some(Ok(khet_protocol::Applied::Duplicate)) => false,
                // A gap: follow again, from a whole game.
                Some(Err(_)) | None => return true,
            },
            ServerMsg::Presence {
                connected: now,
                clocks,
                ..
            } => {
                connected = now;
                if let Some(m) = mirror.as_mut() {
                    m.set_clocks(clocks);
                }
                true
            }
            _ => false,
        };
        if changed
            && let Some(m) = &mirror
            && !send_frame(socket, m, connected).await
        {
            return false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use khet_engine::{Game, Setup};
    use khet_protocol::{GameView, Mirror};

    fn frame_after(setup: &str, moves: &[&str]) -> Frame {
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
        };
        let mirror = Mirror::from_sync(3, None, view).unwrap();
        Frame::of(&mirror, [true, true])
    }

    #[test]
    fn the_beam_starts_at_the_laser_and_ends_where_the_light_does() {
        // Khet 2.0: Silver's Sphinx on j1 fires north from the centre of its square.
        let f = frame_after("classic", &["c1d2"]);
        let shot = f.shot.expect("a shot");
        assert_eq!(shot.color, "silver");
        assert_eq!(&shot.lines[0][..2], &[9.5, 7.5]);
        assert_eq!(f.pieces.len(), 26);
        assert_eq!(f.turn, "red");
        // Each line joins the last: one beam, not pieces of one.
        for pair in shot.lines.windows(2) {
            assert_eq!(&pair[0][2..], &pair[1][..2]);
        }
        // Khet 1.0: the fixed laser is outside the board, so the beam comes in over the edge
        // below j1.
        let f = frame_after("khet1/classic", &["c1d2"]);
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
        let f = frame_after("classic", &[]);
        // Ten squares each: a file and two corners of the other side's.
        assert_eq!(f.reserved.iter().filter(|r| r.2 == "silver").count(), 10);
        assert_eq!(f.reserved.iter().filter(|r| r.2 == "red").count(), 10);
        assert!(f.reserved.contains(&(9, 0, "silver")));
        assert!(f.reserved.contains(&(0, 7, "red")));
        let sphinx = f.pieces.iter().find(|p| p.sq == "j1").unwrap();
        assert_eq!(
            (sphinx.kind, sphinx.turns),
            ("sphinx", 0),
            "Silver's fires north"
        );
        let red_sphinx = f.pieces.iter().find(|p| p.sq == "a8").unwrap();
        assert_eq!(red_sphinx.turns, 2, "Red's fires south");
        assert!(f.shot.is_none());
    }
}
