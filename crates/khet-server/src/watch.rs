//! Watching in a web browser, with nothing installed: `/` lists the games being played,
//! `/watch/{code}` shows one live. The page's script is dumb on purpose: the server follows the
//! game as a spectator (the same room, the same numbered events, the engine's `Mirror`) and sends
//! the page a whole [`BoardView`] after each change: the pieces, the last shot's beam as lines,
//! the moves, the clocks and the result. The rules stay in the engine; the page only draws.

use crate::edge::Client;
use crate::hub::Hub;
use crate::limits::Permit;
use crate::messages::{Command, Out};
use crate::state::AppState;
use crate::views::{Seen, Views};
use axum::extract::ws::{Message, WebSocket};
use axum::extract::{Extension, Path, State, WebSocketUpgrade};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use governor::DefaultDirectRateLimiter;
use khet_protocol::view::BoardView;
use khet_protocol::{ServerMsg, check_code};
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

/// `GET /watch/{code}/ws`: the frames of game `code`, as a spectator (no hello, no secret, and
/// nothing the page sends changes anything).
pub async fn socket(
    State(state): State<AppState>,
    Extension(client): Extension<Client>,
    Path(code): Path<String>,
    ws: WebSocketUpgrade,
) -> Response {
    let Ok(code) = check_code(&code) else {
        return (StatusCode::NOT_FOUND, "no such game\n").into_response();
    };
    let permit = match state.limits.admit(client.0) {
        Ok(permit) => permit,
        Err(why) => return crate::turned_away(why),
    };
    let hub = state.hub.clone();
    let budget = state.limits.messages();
    // The page sends only its pings: frames, messages and the read buffer all small.
    ws.max_message_size(WATCH_MESSAGE_BYTES)
        .max_frame_size(WATCH_MESSAGE_BYTES)
        .read_buffer_size(4 * WATCH_MESSAGE_BYTES)
        .on_upgrade(move |socket| watch(socket, hub, code, permit, budget))
}

/// The largest message a watching page may send (it sends `ping`).
const WATCH_MESSAGE_BYTES: usize = 1024;

/// How long the page may be silent before it is closed (it pings every 20 s).
const SILENCE_LIMIT: Duration = Duration::from_secs(60);

async fn send_frame(socket: &mut WebSocket, view: &BoardView) -> bool {
    let Ok(json) = serde_json::to_string(view) else {
        return false;
    };
    socket.send(Message::Text(json.into())).await.is_ok()
}

/// Follows game `code` for a page until the page goes, or the game's room does.
async fn watch(
    mut socket: WebSocket,
    hub: Hub,
    code: String,
    _permit: Permit,
    budget: DefaultDirectRateLimiter,
) {
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
        let again = follow(&mut socket, &hub, attached.catch_up, attached.rx, &budget).await;
        let _ = room
            .send(Command::Detach {
                seat: None,
                node: None,
            })
            .await;
        if !again {
            return;
        }
    }
}

/// Sends a frame at each change; true if the game must be followed again from the start
/// (events were missed). A page that sends more than the message budget (as a player's
/// connection has) is closed.
async fn follow(
    socket: &mut WebSocket,
    hub: &Hub,
    catch_up: Vec<Out>,
    mut rx: broadcast::Receiver<Out>,
    budget: &DefaultDirectRateLimiter,
) -> bool {
    let mut views = Views::default();
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
                        Ok(Some(Ok(_))) if budget.check().is_err() => {
                            crate::metrics::turned_away();
                            return false;
                        }
                        Ok(Some(Ok(_))) => continue,
                    },
                }
            }
        };
        let Ok(msg) = ServerMsg::from_json(&next.1) else {
            continue;
        };
        match views.take(msg) {
            Seen::Changed => {}
            Seen::Same => continue,
            // Events missed: follow again, from a whole game.
            Seen::Gap => return true,
            Seen::Broken => return false,
        }
        if let Some(view) = views.view(hub.now_ms())
            && !send_frame(socket, &view).await
        {
            return false;
        }
    }
}
