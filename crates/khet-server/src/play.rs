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

/// `GET /play/{code}`: the page, at game `code` (or at the game against the computer that this
/// browser keeps, `/play/computer`).
pub async fn game(Path(code): Path<String>) -> Response {
    if code == "computer" {
        return home().await.into_response();
    }
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

/// What the page may offer.
#[derive(Serialize)]
pub struct Offer {
    /// The built-in setups, Khet 2.0's first.
    setups: Vec<SetupEntry>,
    /// Whether this server carries the page's engine, for games against the computer.
    computer: bool,
    /// Whether this server carries the 3D game (`/3d`), which the page then offers.
    game_3d: bool,
    /// The computer's levels, weakest first (the page offers them when `computer`).
    levels: Vec<LevelEntry>,
}

/// A level of the computer, as the engine names and rates it.
#[derive(Serialize)]
pub struct LevelEntry {
    /// The name the page's engine takes: `casual`.
    id: String,
    /// Its name for people: `Casual`.
    name: &'static str,
    /// Elo above a player who has just learned the rules ([`khet_engine::Level::rating`]).
    rating: i32,
}

/// `GET /setups`: the setups, and whether the computer plays here.
pub async fn setups() -> Json<Offer> {
    let setups = catalogue()
        .into_iter()
        .map(|(id, setup)| SetupEntry {
            id,
            name: setup.name.clone(),
            edition: match setup.position.edition() {
                Edition::Khet2 => "2.0",
                Edition::Khet1 => "1.0",
            },
        })
        .collect();
    Json(Offer {
        setups,
        computer: crate::assets::has_engine(),
        game_3d: crate::game3d::has_game_3d(),
        levels: khet_engine::Level::ALL
            .iter()
            .map(|l| LevelEntry {
                id: l.name().to_lowercase(),
                name: l.name(),
                rating: l.rating(),
            })
            .collect(),
    })
}
