//! The operator's commands on a running server (`khet-server admin …`): list the players and
//! the games, rename a player, bar an identity (its games end as resigned, it cannot connect
//! again) or let it back, take a game out of the lobby; create, start, pause and end
//! tournaments (`tournaments`).
//!
//! They arrive over a Unix socket (`admin.sock` in the data folder, or `--admin-socket`), which
//! only the server's user may open: the file's permissions are the authentication, as with
//! systemd's and Docker's own sockets, and nothing of it is reachable from the network. The
//! answers are plain text for a terminal.

mod tournaments;
pub use tournaments::TournamentCommand;

use crate::hub::Hub;
use crate::messages::Command;
use crate::store::StoreError;
use axum::Router;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use khet_protocol::{ClientMsg, Status, check_code, check_name};
use std::fmt::Write;
use tokio::sync::oneshot;

/// Why there are no operator's commands on Windows: Rust's standard library has no Unix
/// sockets there, and a named pipe's rights are another design (docs/server.md).
#[cfg(not(unix))]
const NO_SOCKET: &str = "the operator's commands arrive over a Unix socket, which this \
    server has only on Linux and other Unix systems; on Windows they are not available";

/// How many players and games the lists show.
const LIST_LIMIT: u32 = 1000;

/// The reason a barred player is told when the operator gave none.
const NO_REASON: &str = "no reason given";

fn failed(e: &StoreError) -> Response {
    crate::metrics::failed("an operator's command", e);
    (StatusCode::SERVICE_UNAVAILABLE, format!("{e}\n")).into_response()
}

fn refused(status: StatusCode, why: impl Into<String>) -> Response {
    (status, format!("{}\n", why.into())).into_response()
}

/// The admin routes.
pub fn router(hub: Hub) -> Router {
    Router::new()
        .route("/players", get(players))
        .route("/games", get(games))
        .route("/players/{id}/name", post(rename))
        .route("/players/{id}/bar", post(bar))
        .route("/players/{id}/unbar", post(unbar))
        .route("/games/{code}/unlist", post(unlist))
        .route("/tournaments", post(tournaments::create))
        .route("/tournaments/{code}/{what}", post(tournaments::steer))
        .with_state(hub)
}

/// The admin socket, bound (so that it exists before the server says it listens) and served
/// once the hub runs.
pub struct Socket {
    path: std::path::PathBuf,
    #[cfg(unix)]
    listener: std::sync::Mutex<Option<std::os::unix::net::UnixListener>>,
}

impl std::fmt::Debug for Socket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "admin socket {}", self.path.display())
    }
}

#[cfg(not(unix))]
impl Socket {
    /// Refused: see [`NO_SOCKET`].
    pub fn bind(path: &std::path::Path) -> Result<Socket, String> {
        Err(format!("{}: {NO_SOCKET}", path.display()))
    }

    pub fn serve(&self, _hub: Hub) -> Result<(), String> {
        Ok(())
    }

    pub fn remove(&self) {}
}

#[cfg(unix)]
impl Socket {
    /// Binds a Unix socket at `path` (a stale one from a server that died is replaced),
    /// readable and writable by this user only.
    pub fn bind(path: &std::path::Path) -> Result<Socket, String> {
        let at = |e: std::io::Error| format!("{}: {e}", path.display());
        if let Ok(meta) = std::fs::symlink_metadata(path) {
            if std::os::unix::fs::FileTypeExt::is_socket(&meta.file_type()) {
                std::fs::remove_file(path).map_err(at)?;
            } else {
                return Err(format!("{}: exists and is not a socket", path.display()));
            }
        }
        let listener = std::os::unix::net::UnixListener::bind(path).map_err(at)?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(at)?;
        listener.set_nonblocking(true).map_err(at)?;
        Ok(Socket {
            path: path.to_path_buf(),
            listener: std::sync::Mutex::new(Some(listener)),
        })
    }

    /// Serves the admin routes until the process ends (once: later calls do nothing).
    pub fn serve(&self, hub: Hub) -> Result<(), String> {
        let Some(listener) = crate::util::lock(&self.listener).take() else {
            return Ok(());
        };
        let listener = tokio::net::UnixListener::from_std(listener)
            .map_err(|e| format!("{}: {e}", self.path.display()))?;
        tokio::spawn(async move {
            if let Err(e) = axum::serve(listener, router(hub)).await {
                tracing::error!("the admin socket: {e}");
            }
        });
        Ok(())
    }

    /// Removes the socket's file (at the server's stop).
    pub fn remove(&self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// `GET /players`: each player, newest first.
async fn players(State(hub): State<Hub>) -> Response {
    let list = match hub.store().players(LIST_LIMIT).await {
        Ok(list) => list,
        Err(e) => return failed(&e),
    };
    let mut out = String::new();
    for (player, standing) in list {
        let _ = write!(
            out,
            "{}  {:<24}  {:>4.0} ±{:<3.0}  {} rated game(s)",
            player.id, player.name, player.rating.rating, player.rating.deviation, player.games
        );
        if standing.named_by_operator {
            out.push_str("  named by the operator");
        }
        if let Some(reason) = standing.barred {
            let _ = write!(out, "  barred: {reason}");
        }
        out.push('\n');
    }
    out.into_response()
}

/// `GET /games`: the newest games, newest first.
async fn games(State(hub): State<Hub>) -> Response {
    let rows = match hub.store().recent_games(LIST_LIMIT).await {
        Ok(rows) => rows,
        Err(e) => return failed(&e),
    };
    let mut out = String::new();
    for (row, plies) in rows {
        let status = match row.status {
            Status::Open if row.listed => "open, listed",
            Status::Open => "open",
            Status::Playing => "playing",
            Status::Over => "over",
        };
        let seat = |i: usize| row.players[i].as_deref().unwrap_or("-").to_string();
        let _ = write!(
            out,
            "{}  {:<13}  {:<10}  silver {}  red {}  {plies} ply(ies)",
            row.code,
            status,
            row.setup,
            seat(0),
            seat(1)
        );
        if let Some(result) = row.result {
            let _ = write!(out, "  {result}");
        }
        out.push('\n');
    }
    out.into_response()
}

/// `POST /players/ID/name` with the new name: the operator's, kept whatever the player's game
/// says at its next hello.
async fn rename(State(hub): State<Hub>, Path(id): Path<String>, name: String) -> Response {
    let name = match check_name(&name) {
        Ok(name) => name,
        Err(why) => return refused(StatusCode::BAD_REQUEST, why),
    };
    match hub.store().name_by_operator(&id, &name).await {
        Ok(true) => {
            tracing::info!(player = %id, name = %name, "renamed by the operator");
            format!(
                "player {id} is named {name}; games already running show it once they are \
                 next loaded\n"
            )
            .into_response()
        }
        Ok(false) => refused(StatusCode::NOT_FOUND, format!("no player {id}")),
        Err(e) => failed(&e),
    }
}

/// `POST /players/ID/bar` with the reason: the identity cannot connect again, its connections
/// here are closed, its games not over end as resigned (an open one is withdrawn), and no new
/// identity is made from the networks it connected from lately, for a while.
async fn bar(State(hub): State<Hub>, Path(id): Path<String>, reason: String) -> Response {
    let reason = reason.trim();
    let reason = if reason.is_empty() {
        NO_REASON.to_string()
    } else {
        match check_name(reason) {
            Ok(_) if reason.chars().count() <= 200 => reason.to_string(),
            _ => {
                let why = "a reason is one line of at most 200 characters";
                return refused(StatusCode::BAD_REQUEST, why);
            }
        }
    };
    match hub.store().bar(&id, Some(&reason)).await {
        Ok(true) => {}
        Ok(false) => return refused(StatusCode::NOT_FOUND, format!("no player {id}")),
        Err(e) => return failed(&e),
    }
    hub.bar(&id);
    tracing::info!(player = %id, reason = %reason, "barred by the operator");
    let held = match hub.hold_networks(&id).await {
        Ok(held) => held,
        Err(e) => return failed(&e),
    };
    let seats = match hub.store().seats_of(&id).await {
        Ok(seats) => seats,
        Err(e) => return failed(&e),
    };
    let mut out = format!("player {id} is barred: {reason}\n");
    if held > 0 {
        let _ = writeln!(
            out,
            "new identities from the {held} network(s) it connected from lately are held"
        );
    }
    for (code, side) in seats {
        let said = match resign(&hub, &code, side).await {
            Ok(()) => "resigned".to_string(),
            Err(why) => format!("not resigned: {why}"),
        };
        let _ = writeln!(out, "game {code}: {said}");
    }
    out.into_response()
}

/// The player of `side` resigns game `code` (withdraws it, if nobody has joined).
async fn resign(hub: &Hub, code: &str, side: khet_engine::Color) -> Result<(), String> {
    let room = match hub.room(code).await {
        Ok(Some(room)) => room,
        Ok(None) => return Err("no such game".into()),
        Err(e) => return Err(e.to_string()),
    };
    let (reply, answer) = oneshot::channel();
    let command = Command::Act {
        seat: side,
        action: ClientMsg::Resign,
        reply,
    };
    room.send(command)
        .await
        .map_err(|_| "its room has closed".to_string())?;
    match answer.await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(refused)) => Err(refused.reason),
        Err(_) => Err("its room has closed".into()),
    }
}

/// `POST /players/ID/unbar`: the identity may connect again, and its networks are no longer
/// held.
async fn unbar(State(hub): State<Hub>, Path(id): Path<String>) -> Response {
    match hub.store().bar(&id, None).await {
        Ok(true) => {
            if let Err(e) = hub.release_networks(&id).await {
                return failed(&e);
            }
            hub.unbar(&id);
            tracing::info!(player = %id, "let back by the operator");
            format!("player {id} may connect again\n").into_response()
        }
        Ok(false) => refused(StatusCode::NOT_FOUND, format!("no player {id}")),
        Err(e) => failed(&e),
    }
}

/// `POST /games/CODE/unlist`: an open game taken out of the lobby (withdrawn, as its creator
/// would).
async fn unlist(State(hub): State<Hub>, Path(code): Path<String>) -> Response {
    let Ok(code) = check_code(&code) else {
        return refused(
            StatusCode::BAD_REQUEST,
            format!("{code} is not a game's code"),
        );
    };
    let row = match hub.store().game(&code).await {
        Ok(Some(row)) => row,
        Ok(None) => return refused(StatusCode::NOT_FOUND, format!("no game {code}")),
        Err(e) => return failed(&e),
    };
    let creator = match (row.status, &row.players) {
        (Status::Open, [Some(_), _]) => khet_engine::Color::Silver,
        (Status::Open, [None, Some(_)]) => khet_engine::Color::Red,
        _ => {
            let why = format!("game {code} is not waiting for an opponent");
            return refused(StatusCode::CONFLICT, why);
        }
    };
    match resign(&hub, &code, creator).await {
        Ok(()) => {
            let game = crate::logs::game(&code, row.listed);
            tracing::info!(code = %game, "taken out of the lobby by the operator");
            format!("game {code} is withdrawn\n").into_response()
        }
        Err(why) => refused(StatusCode::CONFLICT, format!("game {code}: {why}")),
    }
}

/// How long `khet-server admin` waits for the server's answer.
#[cfg(unix)]
const ANSWER_WAIT: std::time::Duration = std::time::Duration::from_secs(60);

/// Sends one request to the admin socket at `socket` (what `khet-server admin` does): its
/// status and its text.
pub fn request(
    socket: &std::path::Path,
    method: &str,
    path: &str,
    body: &str,
) -> Result<(u16, String), String> {
    #[cfg(not(unix))]
    {
        let _ = (method, path, body);
        Err(format!("{}: {NO_SOCKET}", socket.display()))
    }
    #[cfg(unix)]
    request_unix(socket, method, path, body)
}

#[cfg(unix)]
fn request_unix(
    socket: &std::path::Path,
    method: &str,
    path: &str,
    body: &str,
) -> Result<(u16, String), String> {
    use std::io::{Read, Write as _};
    let at = |e: std::io::Error| {
        format!(
            "{}: {e} (is the server running, and are you its user or root?)",
            socket.display()
        )
    };
    let mut stream = std::os::unix::net::UnixStream::connect(socket).map_err(at)?;
    stream.set_read_timeout(Some(ANSWER_WAIT)).map_err(at)?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: admin\r\nConnection: close\r\n\
         Content-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .map_err(at)?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).map_err(at)?;
    let answer = String::from_utf8_lossy(&answer);
    let (head, text) = answer
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("{}: not an answer: {answer}", socket.display()))?;
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("{}: not an answer: {head}", socket.display()))?;
    // The answer's body may come in chunks.
    let text = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        unchunk(text)
    } else {
        text.to_string()
    };
    Ok((status, text))
}

/// The body of a chunked answer.
#[cfg(unix)]
fn unchunk(mut text: &str) -> String {
    let mut body = String::new();
    while let Some((size, rest)) = text.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        body.push_str(&rest[..size]);
        text = rest[size..].trim_start_matches("\r\n");
    }
    body
}
