//! `GET /web/{file}`: the pages' scripts, style, and the play page's engine (WebAssembly and its
//! glue, put in by `build.rs` when `scripts/build-web` has built them), all from the binary: a
//! copied `khet-server` serves its whole site.

use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The play page's engine, as `build.rs` found it: each file as built and gzipped.
pub struct Engine {
    js: &'static [u8],
    js_gz: &'static [u8],
    wasm: &'static [u8],
    wasm_gz: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/engine.rs"));

const JS: &str = "text/javascript; charset=utf-8";

/// The file and its type, if the server has it (gzipped when `gzip` and it has it so, and
/// then whether it is).
fn file(name: &str, gzip: bool) -> Option<(&'static [u8], &'static str, bool)> {
    let text = |s: &'static str, kind| Some((s.as_bytes(), kind, false));
    let packed = |plain, gz, kind| {
        Some(if gzip {
            (gz, kind, true)
        } else {
            (plain, kind, false)
        })
    };
    match name {
        "watch.js" => text(include_str!("../web/watch.js"), JS),
        "lobby.js" => text(include_str!("../web/lobby.js"), JS),
        "board.js" => text(include_str!("../web/board.js"), JS),
        "play.js" => text(include_str!("../web/play.js"), JS),
        "play-ctrl.js" => text(include_str!("../web/play-ctrl.js"), JS),
        "play-view.js" => text(include_str!("../web/play-view.js"), JS),
        "play-input.js" => text(include_str!("../web/play-input.js"), JS),
        "protocol.js" => text(include_str!("../web/protocol.js"), JS),
        "socket.js" => text(include_str!("../web/socket.js"), JS),
        "clock.js" => text(include_str!("../web/clock.js"), JS),
        "table.js" => text(include_str!("../web/table.js"), JS),
        "tournament.js" => text(include_str!("../web/tournament.js"), JS),
        "player.js" => text(include_str!("../web/player.js"), JS),
        "store.js" => text(include_str!("../web/store.js"), JS),
        "computer.js" => text(include_str!("../web/computer.js"), JS),
        "engine-worker.js" => text(include_str!("../web/engine-worker.js"), JS),
        "khet.css" => text(include_str!("../web/khet.css"), "text/css; charset=utf-8"),
        "khet_web.js" => ENGINE.as_ref().and_then(|e| packed(e.js, e.js_gz, JS)),
        "khet_web_bg.wasm" => ENGINE
            .as_ref()
            .and_then(|e| packed(e.wasm, e.wasm_gz, "application/wasm")),
        _ => None,
    }
}

/// Whether the play page's engine is in this binary.
pub fn has_engine() -> bool {
    ENGINE.is_some()
}

/// Whether the browser takes answers in `coding` (`gzip`, `br`).
pub(crate) fn accepts(headers: &HeaderMap, coding: &str) -> bool {
    headers
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.split(',')
                .any(|e| e.split(';').next().is_some_and(|c| c.trim() == coding))
        })
}

/// A file's answer: its type, and the coding it is in, if any.
pub(crate) fn respond(
    kind: &'static str,
    body: &'static [u8],
    coding: Option<&'static str>,
) -> Response {
    match coding {
        Some(coding) => (
            [
                (header::CONTENT_TYPE, kind),
                (header::CONTENT_ENCODING, coding),
                (header::VARY, "Accept-Encoding"),
            ],
            body,
        )
            .into_response(),
        None => (
            [
                (header::CONTENT_TYPE, kind),
                (header::VARY, "Accept-Encoding"),
            ],
            body,
        )
            .into_response(),
    }
}

/// `GET /web/{file}`.
pub async fn asset(Path(name): Path<String>, headers: HeaderMap) -> Response {
    match file(&name, accepts(&headers, "gzip")) {
        Some((body, kind, gzipped)) => respond(kind, body, gzipped.then_some("gzip")),
        None if name.starts_with("khet_web") => (
            StatusCode::NOT_FOUND,
            "this server was built without the play page's engine (scripts/build-web)\n",
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "no such file\n").into_response(),
    }
}
