//! `GET /web/{file}`: the pages' scripts, style, and the play page's engine (WebAssembly and its
//! glue, put in by `build.rs` when `scripts/build-web` has built them), all from the binary: a
//! copied `khet-server` serves its whole site.

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

include!(concat!(env!("OUT_DIR"), "/engine.rs"));

const JS: &str = "text/javascript; charset=utf-8";

/// The file and its type, if the server has it.
fn file(name: &str) -> Option<(&'static [u8], &'static str)> {
    let text = |s: &'static str, kind| Some((s.as_bytes(), kind));
    match name {
        "watch.js" => text(include_str!("../web/watch.js"), JS),
        "lobby.js" => text(include_str!("../web/lobby.js"), JS),
        "board.js" => text(include_str!("../web/board.js"), JS),
        "play.js" => text(include_str!("../web/play.js"), JS),
        "computer.js" => text(include_str!("../web/computer.js"), JS),
        "engine-worker.js" => text(include_str!("../web/engine-worker.js"), JS),
        "khet.css" => text(include_str!("../web/khet.css"), "text/css; charset=utf-8"),
        "khet_web.js" => ENGINE.map(|(js, _)| (js.as_bytes(), JS)),
        "khet_web_bg.wasm" => ENGINE.map(|(_, wasm)| (wasm, "application/wasm")),
        _ => None,
    }
}

/// Whether the play page's engine is in this binary.
pub fn has_engine() -> bool {
    ENGINE.is_some()
}

/// `GET /web/{file}`.
pub async fn asset(Path(name): Path<String>) -> Response {
    match file(&name) {
        Some((body, kind)) => ([(header::CONTENT_TYPE, kind)], body).into_response(),
        None if name.starts_with("khet_web") => (
            StatusCode::NOT_FOUND,
            "this server was built without the play page's engine (scripts/build-web)\n",
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "no such file\n").into_response(),
    }
}
