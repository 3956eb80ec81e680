//! A player's page: `/players/ID` (drawn by its script: the rating's history as a graph, the
//! games won, lost, drawn and in play with links to each, the tournaments) and
//! `/players/ID.json`, what it draws. Only listed games are named: an unlisted game's code is
//! its secret.

use crate::state::AppState;
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use khet_engine::{Color, GameResult};
use khet_protocol::{Status, TournamentStatus, check_code};
use serde::Serialize;

/// How many games and tournaments the page lists.
const LIST_LIMIT: u32 = 100;

/// A player as their page shows them.
#[derive(Serialize)]
pub struct Profile {
    id: String,
    name: String,
    rating: f64,
    deviation: f64,
    /// Rated games finished.
    games: u32,
    /// The rating before the first rated game.
    initial: f64,
    /// The rating after each rated game, oldest first.
    history: Vec<HistoryPoint>,
    /// The listed games, newest first.
    listed: Vec<ProfileGame>,
    /// The tournaments they are in, newest first.
    tournaments: Vec<ProfileTournament>,
}

#[derive(Serialize)]
struct HistoryPoint {
    code: String,
    at_ms: u64,
    rating: f64,
}

#[derive(Serialize)]
struct ProfileGame {
    code: String,
    setup: String,
    rated: bool,
    /// "silver" or "red".
    side: &'static str,
    opponent: Option<String>,
    /// "won", "lost", "drawn", or "playing".
    outcome: &'static str,
    created_ms: u64,
}

#[derive(Serialize)]
struct ProfileTournament {
    code: String,
    name: String,
    status: TournamentStatus,
}

fn outcome(status: Status, result: Option<GameResult>, side: Color) -> &'static str {
    match (status, result) {
        (Status::Over, Some(GameResult::Win { winner, .. })) if winner == side => "won",
        (Status::Over, Some(GameResult::Win { .. })) => "lost",
        (Status::Over, _) => "drawn",
        _ => "playing",
    }
}

fn unavailable() -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        "the server cannot read its players now\n",
    )
        .into_response()
}

/// Player `id`'s profile, if there is such a player.
async fn profile(state: &AppState, id: &str) -> Result<Option<Profile>, crate::store::StoreError> {
    let store = state.hub.store();
    let Some(player) = store.player(id).await? else {
        return Ok(None);
    };
    let history = store.rating_history(id).await?;
    let games = store.games_of(id, LIST_LIMIT).await?;
    let tournaments = store.tournaments_of(id, LIST_LIMIT).await?;
    let info = player.info();
    Ok(Some(Profile {
        id: info.id,
        name: info.name,
        rating: info.rating,
        deviation: info.deviation,
        games: info.games,
        initial: crate::rating::initial().rating,
        history: history
            .into_iter()
            .map(|p| HistoryPoint {
                code: p.code,
                at_ms: p.at_ms,
                rating: p.rating,
            })
            .collect(),
        listed: games
            .into_iter()
            .map(|g| {
                let side = if g.game.players[0].as_deref() == Some(id) {
                    Color::Silver
                } else {
                    Color::Red
                };
                ProfileGame {
                    outcome: outcome(g.game.status, g.game.result, side),
                    code: g.game.code,
                    setup: g.game.setup,
                    rated: g.game.rated,
                    side: if side == Color::Silver {
                        "silver"
                    } else {
                        "red"
                    },
                    opponent: g.names[side.other().index()].clone(),
                    created_ms: g.game.created_ms,
                }
            })
            .collect(),
        tournaments: tournaments
            .into_iter()
            .map(|t| ProfileTournament {
                code: t.code,
                name: t.name,
                status: t.status,
            })
            .collect(),
    }))
}

/// `GET /players/ID` (the page) and `/players/ID.json` (the profile).
pub async fn page(State(state): State<AppState>, Path(file): Path<String>) -> Response {
    let not_found = || (StatusCode::NOT_FOUND, "no such player\n").into_response();
    let (id, json) = match file.strip_suffix(".json") {
        Some(id) => (id, true),
        None => (file.as_str(), false),
    };
    let Ok(id) = check_code(id) else {
        return not_found();
    };
    match profile(&state, &id).await {
        Ok(Some(p)) if json => Json(p).into_response(),
        Ok(Some(_)) => Html(include_str!("../web/player.html")).into_response(),
        Ok(None) => not_found(),
        Err(e) => {
            crate::metrics::failed("reading a player's page", &e);
            unavailable()
        }
    }
}
