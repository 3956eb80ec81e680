//! Playing in a web browser, with nothing installed: `/play` (a name, a game created, joined or
//! paired, the lobby, the leaderboard) and `/play/{code}` (one game, the link a player sends a
//! friend). The page speaks the protocol on `/ws` like any client and asks for views
//! ([`khet_protocol::view`]), so the engine here works out what it shows and which moves are
//! legal; the page knows no rules.

use axum::Json;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use khet_engine::{Edition, catalogue};
use khet_protocol::check_code;
use serde::Serialize;

/// `GET /play`: the page, at its lobby.
pub async fn home() -> Html<&'static str> {
    Html(include_str!("../web/play.html"))
}

/// `GET /play/{code}`: the page, at game `code`.
pub async fn game(Path(code): Path<String>) -> Response {
    match check_code(&code) {
        Ok(_) => Html(include_str!("../web/play.html")).into_response(),
        Err(e) => (StatusCode::NOT_FOUND, format!("{e}\n")).into_response(),
    }
}

/// A setup a game may start from.
#[derive(Serialize)]
pub struct SetupEntry {
    /// Its name in [`khet_protocol::NewGame::setup`]: `khet2/classic`.
    id: &'static str,
    /// Its name for people: `Classic`.
    name: String,
    /// `2.0` or `1.0`.
    edition: &'static str,
}

/// `GET /setups`: the built-in setups, Khet 2.0's first.
pub async fn setups() -> Json<Vec<SetupEntry>> {
    Json(
        catalogue()
            .into_iter()
            .map(|(id, setup)| SetupEntry {
                id,
                name: setup.name.clone(),
                edition: match setup.position.edition() {
                    Edition::Khet2 => "2.0",
                    Edition::Khet1 => "1.0",
                },
            })
            .collect(),
    )
}
