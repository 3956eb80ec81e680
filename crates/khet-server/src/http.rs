//! What the server answers over plain HTTP: the list of games, each game's record in the
//! engine's RON format (`khet-engine replay` reads it), and the leaderboard; and for the
//! operator, `/metrics` in Prometheus' text format, `/healthz` (the process answers) and
//! `/readyz` (its database and broker answer too).

use crate::state::AppState;
use crate::store::{GameRow, StoreError};
use axum::Json;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use khet_engine::record::utc;
use khet_engine::{Record, RecordClock, Rules};
use khet_protocol::{ClockSpec, PlayerInfo, Status, check_code};
use serde::Serialize;

/// How many games and players the lists show.
const LIST_LIMIT: u32 = 100;

/// How long `/readyz` waits for the database or the broker before it says they do not answer.
pub const READY_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

fn failed(e: StoreError) -> Response {
    crate::metrics::failed("answering a request", &e);
    (
        StatusCode::SERVICE_UNAVAILABLE,
        "the server cannot read its games now\n",
    )
        .into_response()
}

/// `GET /about`: what this is and where to look, in plain text.
pub async fn index() -> &'static str {
    concat!(
        "khet-server ",
        env!("CARGO_PKG_VERSION"),
        ": Khet online. Play from the game's Online screen or with `khet-engine online`.\n",
        "GET /: the games being played, to watch in a browser (/watch/CODE); GET /games: the newest listed games; GET /games/CODE.ron: a game's record; ",
        "GET /players: the leaderboard; /ws: the WebSocket (docs/online-protocol.md).\n",
        "For the operator: GET /metrics (Prometheus), /healthz, /readyz.\n"
    )
}

/// A game in the list.
#[derive(Serialize)]
pub struct GameSummary {
    code: String,
    setup: String,
    status: Status,
    rated: bool,
    clock: Option<ClockSpec>,
    /// Silver's and Red's names.
    players: [Option<String>; 2],
    plies: u64,
    /// The result in words.
    result: Option<String>,
    /// When it was created (UTC).
    created: String,
}

/// `GET /games`: the newest listed games being played or over, newest first. An unlisted
/// game's code is its secret (whoever has it may join), so it is never here.
pub async fn games(State(state): State<AppState>) -> Response {
    let rows = match state.hub.store().public_games(LIST_LIMIT).await {
        Ok(rows) => rows,
        Err(e) => return failed(e),
    };
    let list: Vec<GameSummary> = rows
        .into_iter()
        .map(|p| GameSummary {
            code: p.game.code,
            setup: p.game.setup,
            status: p.game.status,
            rated: p.game.rated,
            clock: p.game.clock,
            players: p.names,
            plies: p.plies,
            result: p.game.result.map(|r| r.to_string()),
            created: utc(p.game.created_ms / 1000),
        })
        .collect();
    Json(list).into_response()
}

async fn names(state: &AppState, row: &GameRow) -> Result<[Option<String>; 2], StoreError> {
    let mut names = [None, None];
    for (i, id) in row.players.iter().enumerate() {
        if let Some(id) = id {
            names[i] = state.hub.store().player(id).await?.map(|p| p.name);
        }
    }
    Ok(names)
}

/// `GET /games/CODE.ron`: the game's record, as far as it has been played.
pub async fn record(State(state): State<AppState>, Path(file): Path<String>) -> Response {
    let not_found = || (StatusCode::NOT_FOUND, "no such game\n").into_response();
    let Some(code) = file.strip_suffix(".ron").and_then(|c| check_code(c).ok()) else {
        return not_found();
    };
    let store = state.hub.store();
    let row = match store.game(&code).await {
        Ok(Some(row)) => row,
        Ok(None) => return not_found(),
        Err(e) => return failed(e),
    };
    let moves = match store.moves(&code).await {
        Ok(moves) => moves,
        Err(e) => return failed(e),
    };
    let players = match names(&state, &row).await {
        Ok(names) => names.map(Option::unwrap_or_default),
        Err(e) => return failed(e),
    };
    let record = Record {
        setup: row.setup.clone(),
        start: row.start.clone(),
        rules: Rules::default(),
        moves,
        result: row.result,
        date: utc(row.started_ms.unwrap_or(row.created_ms) / 1000),
        players,
        tournament: row.rated,
        clock: row.clock.map(|c| RecordClock {
            initial_ms: c.initial_ms,
            increment_ms: c.increment_ms,
            remaining_ms: row.clocks_ms,
        }),
    };
    (
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        record.to_ron(),
    )
        .into_response()
}

/// `GET /players`: the players with rated games, best first.
pub async fn players(State(state): State<AppState>) -> Response {
    match state.hub.store().leaderboard(LIST_LIMIT).await {
        Ok(rows) => Json(
            rows.iter()
                .map(crate::store::PlayerRow::info)
                .collect::<Vec<PlayerInfo>>(),
        )
        .into_response(),
        Err(e) => failed(e),
    }
}

/// `GET /metrics`.
pub async fn scrape(State(state): State<AppState>) -> Response {
    let hub = &state.hub;
    let text = crate::metrics::render(hub.live_rooms(), hub.open_games(), hub.waiting_games());
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        text,
    )
        .into_response()
}

/// `GET /healthz`: the process answers.
pub async fn healthz() -> &'static str {
    "ok\n"
}

/// `GET /readyz`: the database (and the broker, on a node among several) answer within
/// [`READY_WAIT`]; 503 with which does not, otherwise. Why it does not goes to the log only:
/// the answer is anyone's, and a database's error can name its host, user or schema.
pub async fn readyz(State(state): State<AppState>) -> Response {
    let mut failing = Vec::new();
    match tokio::time::timeout(READY_WAIT, state.hub.store().ping()).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => {
            tracing::warn!("not ready: the database: {e}");
            failing.push("database: not answering");
        }
        Err(_) => {
            tracing::warn!("not ready: the database: no answer within {READY_WAIT:?}");
            failing.push("database: not answering");
        }
    }
    if let Some(broker) = state.hub.broker() {
        match tokio::time::timeout(READY_WAIT, broker.ping()).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                tracing::warn!("not ready: the broker: {e}");
                failing.push("broker: not answering");
            }
            Err(_) => {
                tracing::warn!("not ready: the broker: no answer within {READY_WAIT:?}");
                failing.push("broker: not answering");
            }
        }
    }
    if failing.is_empty() {
        (StatusCode::OK, "ready\n").into_response()
    } else {
        (
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready: {}\n", failing.join("; ")),
        )
            .into_response()
    }
}
