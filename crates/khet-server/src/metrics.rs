//! What an operator's Prometheus reads at `/metrics` (served by `http`), counted here.
//!
//! The counters are process-wide statics, as Prometheus' own clients keep them: every part of
//! the server counts where the thing happens, with nothing threaded through it. A process runs
//! one server; a test that starts several in one process reads the sum.

use crate::store::StoreError;
use khet_protocol::Refusal;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering::Relaxed};
use std::time::Duration;

/// The upper bounds of the move round-trip histogram's buckets, in seconds: a move on loopback
/// takes about a millisecond, one stored on a busy PostgreSQL some tens.
const MOVE_BUCKETS: [f64; 11] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
];

struct Histogram {
    buckets: [AtomicU64; MOVE_BUCKETS.len()],
    count: AtomicU64,
    sum_micros: AtomicU64,
}

/// The server's counters.
pub struct Metrics {
    connections_open: AtomicI64,
    connections: AtomicU64,
    games_created: AtomicU64,
    games_finished: AtomicU64,
    moves: Histogram,
    refusals: Mutex<BTreeMap<&'static str, u64>>,
    rate_limited: AtomicU64,
    database_errors: AtomicU64,
    broker_errors: AtomicU64,
    takeovers: AtomicU64,
    cluster_dropped: AtomicU64,
}

/// The process's counters.
pub static METRICS: Metrics = Metrics {
    connections_open: AtomicI64::new(0),
    connections: AtomicU64::new(0),
    games_created: AtomicU64::new(0),
    games_finished: AtomicU64::new(0),
    moves: Histogram {
        buckets: [const { AtomicU64::new(0) }; MOVE_BUCKETS.len()],
        count: AtomicU64::new(0),
        sum_micros: AtomicU64::new(0),
    },
    refusals: Mutex::new(BTreeMap::new()),
    rate_limited: AtomicU64::new(0),
    database_errors: AtomicU64::new(0),
    broker_errors: AtomicU64::new(0),
    takeovers: AtomicU64::new(0),
    cluster_dropped: AtomicU64::new(0),
};

/// A player's connection, counted while it lasts.
pub struct Connection(());

impl Connection {
    /// Counts a new connection as open until the value is dropped.
    pub fn open() -> Connection {
        METRICS.connections.fetch_add(1, Relaxed);
        METRICS.connections_open.fetch_add(1, Relaxed);
        Connection(())
    }
}

impl Drop for Connection {
    fn drop(&mut self) {
        METRICS.connections_open.fetch_sub(1, Relaxed);
    }
}

/// A game was created.
pub fn game_created() {
    METRICS.games_created.fetch_add(1, Relaxed);
}

/// A game ended.
pub fn game_finished() {
    METRICS.games_finished.fetch_add(1, Relaxed);
}

/// A move was played, `took` after the client's message arrived.
pub fn move_played(took: Duration) {
    let h = &METRICS.moves;
    let secs = took.as_secs_f64();
    for (bucket, bound) in h.buckets.iter().zip(MOVE_BUCKETS) {
        if secs <= bound {
            bucket.fetch_add(1, Relaxed);
        }
    }
    h.count.fetch_add(1, Relaxed);
    h.sum_micros
        .fetch_add(u64::try_from(took.as_micros()).unwrap_or(u64::MAX), Relaxed);
}

/// A refusal was sent with `code`.
pub fn refused(code: Refusal) {
    if code == Refusal::RateLimited {
        METRICS.rate_limited.fetch_add(1, Relaxed);
    }
    let mut refusals = crate::util::lock(&METRICS.refusals);
    *refusals.entry(refusal_name(code)).or_insert(0) += 1;
}

/// A connection was turned away by the limits before it became a WebSocket.
pub fn turned_away() {
    METRICS.rate_limited.fetch_add(1, Relaxed);
}

/// `n` games of a node gone were taken up.
pub fn took_over(n: usize) {
    METRICS
        .takeovers
        .fetch_add(u64::try_from(n).unwrap_or(u64::MAX), Relaxed);
}

/// A failure of the store or the broker while doing `what`: logged, and counted by what failed.
pub fn failed(what: &str, e: &StoreError) {
    match e {
        StoreError::Broker(_) => METRICS.broker_errors.fetch_add(1, Relaxed),
        StoreError::Fenced => 0,
        _ => METRICS.database_errors.fetch_add(1, Relaxed),
    };
    tracing::error!("{what}: {e}");
}

/// The broker failed (publishing, or its connection lost).
pub fn broker_failed() {
    METRICS.broker_errors.fetch_add(1, Relaxed);
}

/// A message heard on the broker was dropped: not sealed by a node of this cluster, or heard
/// before (`seal`).
pub fn cluster_message_dropped() {
    METRICS.cluster_dropped.fetch_add(1, Relaxed);
}

/// The protocol's name of `code` (`"rate_limited"`), as a label.
fn refusal_name(code: Refusal) -> &'static str {
    match code {
        Refusal::NotProtocol => "not_protocol",
        Refusal::Version => "version",
        Refusal::TooLarge => "too_large",
        Refusal::RateLimited => "rate_limited",
        Refusal::NoHello => "no_hello",
        Refusal::BadName => "bad_name",
        Refusal::BadSecret => "bad_secret",
        Refusal::UnknownGame => "unknown_game",
        Refusal::SeatTaken => "seat_taken",
        Refusal::NotYourSeat => "not_your_seat",
        Refusal::NotPlaying => "not_playing",
        Refusal::NotYourTurn => "not_your_turn",
        Refusal::Stale => "stale",
        Refusal::Illegal => "illegal",
        Refusal::NotNow => "not_now",
        Refusal::BadGame => "bad_game",
        Refusal::Storage => "storage",
        Refusal::Barred => "barred",
        Refusal::UnknownPlayer => "unknown_player",
        Refusal::UnknownChallenge => "unknown_challenge",
    }
}

fn metric(out: &mut String, name: &str, kind: &str, help: &str, value: impl std::fmt::Display) {
    let _ = writeln!(
        out,
        "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
    );
}

/// The counters in Prometheus' text format, with the hub's own gauges: games live, in the lobby,
/// and waiting for an opponent (listed or not). Counts only: no game's code is ever a label.
pub fn render(live_games: usize, open_games: usize, waiting_games: usize) -> String {
    let mut out = String::new();
    render_connections(&mut out);
    render_games(&mut out, live_games, open_games, waiting_games);
    render_moves(&mut out);
    render_refusals(&mut out);
    render_store_and_cluster(&mut out);
    out
}

/// The players' connections: open now, and accepted in all.
fn render_connections(out: &mut String) {
    let m = &METRICS;
    metric(
        out,
        "khet_connections_open",
        "gauge",
        "Players' WebSocket connections open now.",
        m.connections_open.load(Relaxed),
    );
    metric(
        out,
        "khet_connections_total",
        "counter",
        "Players' WebSocket connections accepted.",
        m.connections.load(Relaxed),
    );
}

/// The games: the hub's gauges (live, in the lobby, waiting), then those created and finished.
fn render_games(out: &mut String, live_games: usize, open_games: usize, waiting_games: usize) {
    let m = &METRICS;
    metric(
        out,
        "khet_games_live",
        "gauge",
        "Games whose room runs on this node now.",
        live_games,
    );
    metric(
        out,
        "khet_games_open",
        "gauge",
        "Games in the lobby, waiting for an opponent.",
        open_games,
    );
    metric(
        out,
        "khet_games_waiting",
        "gauge",
        "Games of this node waiting for an opponent, listed or not (bounded per player and \
         address).",
        waiting_games,
    );
    metric(
        out,
        "khet_games_created_total",
        "counter",
        "Games created on this node.",
        m.games_created.load(Relaxed),
    );
    metric(
        out,
        "khet_games_finished_total",
        "counter",
        "Games that ended on this node.",
        m.games_finished.load(Relaxed),
    );
}

/// The histogram of the moves' round trips: its buckets, sum and count.
fn render_moves(out: &mut String) {
    let h = &METRICS.moves;
    let _ = writeln!(
        out,
        "# HELP khet_move_seconds From a player's move arriving to the server's answer (stored \
         and told).\n# TYPE khet_move_seconds histogram"
    );
    for (bucket, bound) in h.buckets.iter().zip(MOVE_BUCKETS) {
        let _ = writeln!(
            out,
            "khet_move_seconds_bucket{{le=\"{bound}\"}} {}",
            bucket.load(Relaxed)
        );
    }
    let count = h.count.load(Relaxed);
    let _ = writeln!(out, "khet_move_seconds_bucket{{le=\"+Inf\"}} {count}");
    #[allow(clippy::cast_precision_loss)] // microseconds summed: exact far past any uptime
    let sum = h.sum_micros.load(Relaxed) as f64 / 1e6;
    let _ = writeln!(
        out,
        "khet_move_seconds_sum {sum}\nkhet_move_seconds_count {count}"
    );
}

/// The refusals sent, by code, and what the rate limits turned away or refused.
fn render_refusals(out: &mut String) {
    let m = &METRICS;
    let _ = writeln!(
        out,
        "# HELP khet_refusals_total Refusals sent to clients, by the protocol's code.\n\
         # TYPE khet_refusals_total counter"
    );
    for (code, n) in crate::util::lock(&m.refusals).iter() {
        let _ = writeln!(out, "khet_refusals_total{{code=\"{code}\"}} {n}");
    }
    metric(
        out,
        "khet_rate_limited_total",
        "counter",
        "Connections turned away and messages refused by the rate limits.",
        m.rate_limited.load(Relaxed),
    );
}

/// The database's and the broker's failures, and the cluster's takeovers and dropped messages.
fn render_store_and_cluster(out: &mut String) {
    let m = &METRICS;
    metric(
        out,
        "khet_database_errors_total",
        "counter",
        "Failed database statements.",
        m.database_errors.load(Relaxed),
    );
    metric(
        out,
        "khet_broker_errors_total",
        "counter",
        "Failures of the broker (Redis): publishing, requests, lost connections.",
        m.broker_errors.load(Relaxed),
    );
    metric(
        out,
        "khet_lease_takeovers_total",
        "counter",
        "Games of a node gone taken up by this node.",
        m.takeovers.load(Relaxed),
    );
    metric(
        out,
        "khet_cluster_messages_dropped_total",
        "counter",
        "Messages heard on the broker and dropped: not sealed with this cluster's secret, \
         outside the time window, or heard already.",
        m.cluster_dropped.load(Relaxed),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refusal_is_named_as_the_protocol_names_it() {
        for code in [
            Refusal::NotProtocol,
            Refusal::Version,
            Refusal::TooLarge,
            Refusal::RateLimited,
            Refusal::NoHello,
            Refusal::BadName,
            Refusal::BadSecret,
            Refusal::UnknownGame,
            Refusal::SeatTaken,
            Refusal::NotYourSeat,
            Refusal::NotPlaying,
            Refusal::NotYourTurn,
            Refusal::Stale,
            Refusal::Illegal,
            Refusal::NotNow,
            Refusal::BadGame,
            Refusal::Storage,
            Refusal::Barred,
            Refusal::UnknownPlayer,
            Refusal::UnknownChallenge,
        ] {
            let json = serde_json::to_value(code).unwrap();
            assert_eq!(json.as_str(), Some(refusal_name(code)), "{code:?}");
        }
    }
}
