//! Tournaments over plain HTTP: `/tournaments` (the page listing them), `/tournaments.json`
//! (the list), `/tournaments/CODE` (one tournament's page: standings, rounds and results,
//! drawn by its script from the JSON it asks for again every few seconds) and
//! `/tournaments/CODE.json` ([`khet_protocol::TournamentView`]).

use crate::state::AppState;
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use khet_protocol::check_code;

/// `GET /tournaments`: the page of the tournaments.
pub async fn list_page() -> Html<&'static str> {
    Html(include_str!("../web/tournaments.html"))
}

/// `GET /tournaments.json`: the listed tournaments, newest first.
pub async fn list(State(state): State<AppState>) -> Response {
    match state.hub.tournament_list().await {
        Ok(list) => Json(list).into_response(),
        Err(e) => {
            crate::metrics::failed("listing the tournaments", &e);
            (
                StatusCode::SERVICE_UNAVAILABLE,
                "the server cannot read its tournaments now\n",
            )
                .into_response()
        }
    }
}

/// `GET /tournaments/CODE` (its page) and `/tournaments/CODE.json` (it, as everyone sees it).
pub async fn one(State(state): State<AppState>, Path(file): Path<String>) -> Response {
    let not_found = |why: String| (StatusCode::NOT_FOUND, format!("{why}\n")).into_response();
    let (code, json) = match file.strip_suffix(".json") {
        Some(code) => (code, true),
        None => (file.as_str(), false),
    };
    let code = match check_code(code) {
        Ok(code) => code,
        Err(e) => return not_found(e),
    };
    match state.hub.tournament_view(&code).await {
        Ok(view) if json => Json(view).into_response(),
        Ok(_) => Html(include_str!("../web/tournament.html")).into_response(),
        Err(refused) if refused.code == khet_protocol::Refusal::UnknownGame => {
            not_found(refused.reason)
        }
        Err(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            "the server cannot read its tournaments now\n",
        )
            .into_response(),
    }
}
