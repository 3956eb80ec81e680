//! `khet-server`: Khet's online play on one machine. Players connect over WebSockets
//! (`docs/online-protocol.md`); each live game is a task that owns the engine's game and the
//! clocks (`room`); every change is stored in SQLite (`store`) before anyone is told; games and
//! players are listed over plain HTTP (`http`), and games are watched in a browser (`watch`).

pub mod admin;
mod assets;
pub mod backup;
pub mod club;
pub mod cluster;
pub mod edge;
mod game3d;
pub mod host;
mod http;
pub mod hub;
pub mod identity;
pub mod limits;
pub mod logs;
pub mod messages;
pub mod metrics;
mod play;
mod profile;
pub mod rating;
pub mod refused;
pub mod remote;
pub mod room;
pub mod seal;
pub mod secret;
pub mod serving;
mod socket;
mod state;
pub mod store;
pub mod tls;
pub mod tournament;
mod util;
pub use util::WallClock;
mod views;
pub mod watch;

use axum::Router;
use axum::extract::{Extension, State, WebSocketUpgrade};
use axum::http::{StatusCode, header};
use axum::middleware::from_fn_with_state;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use hub::Hub;
use khet_protocol::MAX_CLIENT_MESSAGE_BYTES;
use limits::{LimitSettings, Limits};
pub use state::AppState;
use std::future::Future;
use std::sync::Arc;
use store::{Store, StoreError};
use tokio::net::TcpListener;

/// A socket turned away by the limits: 429, to come back in a minute.
pub(crate) fn turned_away(why: &'static str) -> Response {
    metrics::turned_away();
    (
        StatusCode::TOO_MANY_REQUESTS,
        [(header::RETRY_AFTER, "60")],
        why,
    )
        .into_response()
}

async fn upgrade(
    State(state): State<AppState>,
    Extension(client): Extension<edge::Client>,
    ws: WebSocketUpgrade,
) -> Response {
    let permit = match state.limits.admit(client.0) {
        Ok(permit) => permit,
        Err(why) => return turned_away(why),
    };
    let (hub, limits) = (state.hub.clone(), state.limits.clone());
    // A client's messages are small: a small read buffer (tungstenite's default is 128 KiB a
    // connection, most of a game's memory under load).
    ws.max_message_size(MAX_CLIENT_MESSAGE_BYTES)
        .max_frame_size(MAX_CLIENT_MESSAGE_BYTES)
        .read_buffer_size(2 * MAX_CLIENT_MESSAGE_BYTES)
        .on_upgrade(move |socket| socket::serve(socket, hub, limits, permit, client.0))
}

/// The server's routes, behind the edge (`edge`): every request charged to its address and
/// answered with the security headers; the WebSockets refused to other sites' pages.
pub fn router(hub: Hub, settings: &Settings) -> Router {
    routes(hub, settings).0
}

/// The routes and their edge (which the connections consult too: a spent address is refused
/// before its request is parsed).
fn routes(hub: Hub, settings: &Settings) -> (Router, Arc<edge::Edge>) {
    let state = AppState {
        hub,
        limits: Limits::new(settings.limits),
    };
    let edge = Arc::new(edge::Edge {
        trusted: settings.trusted_proxies.clone(),
        origins: settings.allowed_origins.clone(),
        tls: settings.tls.is_some(),
        limits: state.limits.clone(),
    });
    let same_origin = || from_fn_with_state(edge.clone(), edge::same_origin);
    let limits = state.limits.clone();
    tokio::spawn(async move {
        let mut every = tokio::time::interval(std::time::Duration::from_secs(60));
        loop {
            every.tick().await;
            limits.forget_quiet();
        }
    });
    let router = Router::new()
        .route("/", get(watch::lobby))
        .route("/about", get(http::index))
        .route("/watch/{code}", get(watch::page))
        .route("/watch/{code}/ws", get(watch::socket).layer(same_origin()))
        .route("/web/{file}", get(assets::asset))
        .route("/3d", get(game3d::root))
        .route("/3d/", get(game3d::index))
        .route("/3d/{name}", get(game3d::file))
        .route("/play", get(play::home))
        .route("/play/{code}", get(play::game))
        .route("/setups", get(play::setups))
        .route("/ws", get(upgrade).layer(same_origin()))
        .route("/games", get(http::games))
        .route("/games/{file}", get(http::record))
        .route("/players", get(http::players))
        .route("/players/{file}", get(profile::page))
        .route("/tournaments", get(club::list_page))
        .route("/tournaments.json", get(club::list))
        .route("/tournaments/{file}", get(club::one))
        .route("/metrics", get(http::scrape))
        .route("/healthz", get(http::healthz))
        .route("/readyz", get(http::readyz))
        .with_state(state)
        .layer(from_fn_with_state(edge.clone(), edge::guard));
    (router, edge)
}

/// A node among several (`--broker`).
#[derive(Clone, Debug)]
pub struct ClusterSettings {
    /// Redis's URL, `redis://HOST:PORT`.
    pub broker: String,
    /// The cluster's name: the prefix of its channels, so that clusters can share one Redis.
    pub name: String,
    /// This node's name, unique among the nodes.
    pub node: String,
    /// The secret the nodes share, which seals their messages (`seal`).
    pub secret: seal::SharedSecret,
    /// Redis's password, if not in the URL (`--broker-password-file`).
    pub broker_password: Option<seal::Hidden<String>>,
    /// How long a node's hold on its games lasts without renewal: how soon a surviving node
    /// takes up the games of one that died.
    pub lease: std::time::Duration,
}

/// The server's settings (`khet-server --help`).
#[derive(Clone, Debug)]
pub struct Settings {
    /// Limits per address and connection.
    pub limits: LimitSettings,
    /// How long a player must be gone before the other may claim the game
    /// ([`khet_protocol::ABANDON_GRACE_MS`] unless a test wants it shorter).
    pub abandon_grace: std::time::Duration,
    /// One node among several, or alone.
    pub cluster: Option<ClusterSettings>,
    /// Serve `https` and `wss` with this certificate, or plain `http` and `ws`.
    pub tls: Option<tls::Tls>,
    /// Where the operator's commands arrive (`admin`), if anywhere.
    pub admin: Option<std::sync::Arc<admin::Socket>>,
    /// Who may play rated, how often a pair, and how long a bar holds a network.
    pub identity: identity::IdentityPolicy,
    /// The bounds on games waiting for an opponent.
    pub open_games: hub::OpenGameSettings,
    /// Reverse proxies whose `X-Forwarded-For` names the client (`--trusted-proxy`).
    pub trusted_proxies: Vec<edge::Prefix>,
    /// Other sites whose pages may open the WebSockets (`--allow-origin`).
    pub allowed_origins: Vec<String>,
    /// The clock correspondence games' days are judged by: the system's, unless a test sets it
    /// forward.
    pub clock: std::sync::Arc<WallClock>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            limits: LimitSettings::default(),
            abandon_grace: std::time::Duration::from_millis(khet_protocol::ABANDON_GRACE_MS),
            cluster: None,
            tls: None,
            admin: None,
            identity: identity::IdentityPolicy::default(),
            open_games: hub::OpenGameSettings::default(),
            trusted_proxies: Vec::new(),
            allowed_origins: Vec::new(),
            clock: std::sync::Arc::default(),
        }
    }
}

/// Runs the server on `listener` with `store` until `shutdown` completes: takes up the games
/// left unfinished, then serves.
pub async fn serve(
    listener: TcpListener,
    store: Store,
    settings: Settings,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), StoreError> {
    let (cluster, incoming) = match &settings.cluster {
        Some(c) => {
            let (broker, stream) = cluster::Broker::connect(c)
                .await
                .map_err(StoreError::Broker)?;
            let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
            tokio::spawn(broker.clone().run(stream, tx));
            let cluster = hub::Cluster {
                broker,
                lease: c.lease,
            };
            (Some(cluster), Some(rx))
        }
        None => (None, None),
    };
    let hub = Hub::with_policy(
        store.clone(),
        settings.abandon_grace,
        cluster,
        settings.open_games,
        settings.identity,
    )
    .with_clock(settings.clock.clone());
    tokio::spawn(hub.clone().sweep_networks());
    tokio::spawn(hub.clone().direct_tournaments());
    tokio::spawn(hub.clone().expire_challenges());
    if let Some(incoming) = incoming {
        tokio::spawn(hub.clone().run_cluster(incoming));
    }
    let resumed = hub.resume_games(true).await?;
    if resumed > 0 {
        tracing::info!(games = resumed, "took up the unfinished games");
    }
    if let Some(socket) = &settings.admin {
        socket.serve(hub.clone()).map_err(StoreError::System)?;
    }
    let (app, edge) = routes(hub, &settings);
    let cap = usize::try_from(settings.limits.max_connections).unwrap_or(usize::MAX);
    serving::run(listener, app, edge, settings.tls.clone(), cap, shutdown).await;
    tracing::info!("stopping");
    // Other nodes (or this one started among several) take its games up at once instead of
    // after its leases; as far as the database lets it, and no longer than RELEASE_WAIT.
    let node = settings
        .cluster
        .as_ref()
        .map_or("local", |c| c.node.as_str());
    match tokio::time::timeout(RELEASE_WAIT, store.release_all(node)).await {
        Ok(Ok(())) => {}
        Ok(Err(e)) => tracing::warn!("giving up the leases: {e}; they run out by themselves"),
        Err(_) => tracing::warn!("giving up the leases: no answer; they run out by themselves"),
    }
    if tokio::time::timeout(RELEASE_WAIT, store.close())
        .await
        .is_err()
    {
        tracing::warn!("closing the database: no answer; left");
    }
    if let Some(socket) = &settings.admin {
        socket.remove();
    }
    Ok(())
}

/// How long a stop waits for the database to take back the node's leases, and then to close:
/// a node whose database is gone still ends.
pub const RELEASE_WAIT: std::time::Duration = std::time::Duration::from_secs(3);
