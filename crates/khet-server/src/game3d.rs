//! `GET /3d`: the 3D game, the desktop game's own code built for the browser
//! (`scripts/build-game-web`), served from the binary when it was built with the `game-3d`
//! feature (build.rs puts the page in). `/3d/CODE` opens online game CODE in it. A server built
//! without it answers `/3d` with a short page that says so and leads to the 2D page.

use crate::assets::{accepts, respond};
use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use khet_protocol::check_code;

/// One file of the 3D game's page, as built, gzipped, and in Brotli where the build made it
/// (the large ones: browsers take Brotli over HTTPS).
pub struct Page3d {
    name: &'static str,
    kind: &'static str,
    plain: &'static [u8],
    gz: &'static [u8],
    br: Option<&'static [u8]>,
}

include!(concat!(env!("OUT_DIR"), "/game3d.rs"));

/// Whether this server carries the 3D game.
pub fn has_game_3d() -> bool {
    !GAME_3D.is_empty()
}

/// What `/3d` answers without the game: where to play instead.
const ABSENT: &str = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
<title>Khet in 3D</title><link rel=\"stylesheet\" href=\"/web/khet.css\"></head><body><main>\
<h1>Khet in 3D</h1><p>This server was built without the 3D game (its operator can build it \
with <code>scripts/build-game-web</code> and the server's <code>game-3d</code> feature).</p>\
<p><a href=\"/play\">Play on the 2D page</a></p></main></body></html>\n";

/// `GET /3d`: to `/3d/`, so that the page's files, named relative to it, are found.
pub async fn root() -> Redirect {
    Redirect::permanent("/3d/")
}

/// `GET /3d/`: the game.
pub async fn index(headers: HeaderMap) -> Response {
    page("index.html", &headers)
}

/// `GET /3d/{name}`: one of the page's files, or the game at online game `name`.
pub async fn file(Path(name): Path<String>, headers: HeaderMap) -> Response {
    if name.contains('.') {
        return page(&name, &headers);
    }
    match check_code(&name) {
        Ok(_) => page("index.html", &headers),
        Err(e) => (StatusCode::NOT_FOUND, format!("{e}\n")).into_response(),
    }
}

fn page(name: &str, headers: &HeaderMap) -> Response {
    if !has_game_3d() {
        return match name {
            "index.html" => (StatusCode::NOT_FOUND, Html(ABSENT)).into_response(),
            _ => (StatusCode::NOT_FOUND, "no such file\n").into_response(),
        };
    }
    let Some(f) = GAME_3D.iter().find(|f| f.name == name) else {
        return (StatusCode::NOT_FOUND, "no such file\n").into_response();
    };
    match f.br {
        Some(br) if accepts(headers, "br") => respond(f.kind, br, Some("br")),
        _ if accepts(headers, "gzip") => respond(f.kind, f.gz, Some("gzip")),
        _ => respond(f.kind, f.plain, None),
    }
}
