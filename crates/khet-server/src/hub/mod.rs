//! The live games of one server: which room runs each game (or, on a node among several, which
//! proxy reaches it on its node). Its jobs, each in a file of its own: games loaded from the
//! store and taken up (`loading`), the seats a client asks for before it plays (`seats`), the
//! lobby of open games (`lobby`), a player's own games (`mine`), and the node's life among the
//! others (`nodes`).

mod challenges;
mod directing;
mod holds;
mod loading;
mod lobby;
mod mine;
mod nodes;
mod open;
mod seats;
mod tournaments;

pub use open::{OpenGameSettings, address_key};
pub use seats::Admitted;
pub use tournaments::{Director, view as tournament_view};

use crate::cluster::{self, Broker};
use crate::identity::IdentityPolicy;
use crate::messages::{Command, RoomHost};
use crate::remote::Followers;
use crate::room::Room;
use crate::store::{GameRow, PlayerRow, Store, StoreError};
use crate::util::{lock, now_ms};
use khet_engine::Color;
use khet_protocol::OpenGame;
use lobby::{Lobby, lobby_json};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, watch};

/// A seat given to a client: the game, the side and the secret to play it with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seat {
    /// The game's code.
    pub code: String,
    /// The side.
    pub color: Color,
    /// The secret (the server keeps only its hash).
    pub secret: String,
}

/// A node among several: its broker and how long its leases last.
pub struct Cluster {
    /// The connection to Redis.
    pub broker: Arc<Broker>,
    /// How long a lease lasts; it is renewed three times within it.
    pub lease: Duration,
}

/// A game live on this node: its room, or a proxy of another node's room.
struct Live {
    id: u64,
    tx: mpsc::Sender<Command>,
    /// A proxy's owning node and its followers (which this node tells the owner about); `None`
    /// for a room of this node's.
    proxy: Option<(String, Followers)>,
}

impl Live {
    /// A room of this node's (not a proxy).
    fn local(&self) -> bool {
        self.proxy.is_none()
    }
}

/// What another node last said.
struct Peer {
    heard: tokio::time::Instant,
    lobby: Vec<(u64, OpenGame)>,
}

struct Inner {
    store: Store,
    /// How long a player must be gone before the other may claim the game.
    grace: std::time::Duration,
    /// This node's name (`local` alone).
    node: String,
    cluster: Option<Cluster>,
    /// Each live room's (or proxy's) sender, with its number (so that one that ends removes
    /// itself and not a successor).
    rooms: Mutex<HashMap<String, Live>>,
    /// The other nodes, by name.
    peers: Mutex<HashMap<String, Peer>>,
    /// For each other node, the rooms here (game and room number) that may count followers on
    /// it (the rooms keep the followers themselves): those told when that node is taken for
    /// gone, or says who follows. Rooms that ended are dropped at its next list.
    remote_games: Mutex<HashMap<String, HashMap<String, u64>>>,
    /// This run's start (ms), and the number of the last list of followers told: see
    /// `cluster::NodeMsg::Followers`.
    run: u64,
    lists_told: AtomicU64,
    next_room: AtomicU64,
    /// Loading a room from the store, or creating a game, happens once at a time, so no game
    /// gets two rooms. Never held across a call to the broker, which can hang for long.
    loading: tokio::sync::Mutex<()>,
    /// Pairing happens once at a time, so two seekers do not both take one game.
    pairing: tokio::sync::Mutex<()>,
    lobby: Mutex<Lobby>,
    lobby_tx: watch::Sender<Arc<str>>,
    /// Players the operator barred while this node ran: their open connections here are
    /// closed at their next message (a new one is refused at its hello, from the store).
    barred: Mutex<std::collections::HashSet<String>>,
    /// Who may play rated, how often a pair, and how long a bar holds a network.
    policy: IdentityPolicy,
    /// The bounds on open games, and this node's open games by creator and address.
    open_games: OpenGameSettings,
    openers: Mutex<open::Openers>,
    /// The connections here that hear of their players' challenges.
    listeners: challenges::Listeners,
    /// The clock correspondence games' days are judged by.
    clock: Arc<crate::util::WallClock>,
}

/// The server's live games; cheap to clone.
#[derive(Clone)]
pub struct Hub {
    inner: Arc<Inner>,
}

impl Hub {
    /// A hub over `store`, with no rooms yet; `grace` is how long a player must be gone before
    /// the other may claim the game; `cluster` when this node is one of several; `open_games`
    /// bounds the games waiting for an opponent.
    pub fn new(
        store: Store,
        grace: std::time::Duration,
        cluster: Option<Cluster>,
        open_games: OpenGameSettings,
    ) -> Hub {
        Hub::with_policy(store, grace, cluster, open_games, IdentityPolicy::default())
    }

    /// A hub as [`Hub::new`] makes one, with `policy` for identities.
    pub fn with_policy(
        store: Store,
        grace: std::time::Duration,
        cluster: Option<Cluster>,
        open_games: OpenGameSettings,
        policy: IdentityPolicy,
    ) -> Hub {
        let (lobby_tx, _) = watch::channel(lobby_json(&Lobby::new()));
        let node = cluster
            .as_ref()
            .map_or_else(|| "local".to_string(), |c| c.broker.node().to_string());
        Hub {
            inner: Arc::new(Inner {
                store,
                grace,
                node,
                cluster,
                rooms: Mutex::new(HashMap::new()),
                peers: Mutex::new(HashMap::new()),
                remote_games: Mutex::new(HashMap::new()),
                run: now_ms(),
                lists_told: AtomicU64::new(0),
                next_room: AtomicU64::new(1),
                loading: tokio::sync::Mutex::new(()),
                pairing: tokio::sync::Mutex::new(()),
                lobby: Mutex::new(Lobby::new()),
                lobby_tx,
                barred: Mutex::new(std::collections::HashSet::new()),
                policy,
                open_games,
                openers: Mutex::new(open::Openers::default()),
                listeners: challenges::Listeners::default(),
                clock: Arc::default(),
            }),
        }
    }

    /// The hub judging days by `clock` (a test's, set forward); made before the hub is shared.
    pub fn with_clock(mut self, clock: Arc<crate::util::WallClock>) -> Hub {
        match Arc::get_mut(&mut self.inner) {
            Some(inner) => inner.clock = clock,
            None => tracing::error!("a hub's clock set after it was shared: left as it was"),
        }
        self
    }

    /// The milliseconds since 1970 as the server's clock says.
    pub fn now_ms(&self) -> u64 {
        self.inner.clock.now_ms()
    }

    /// How long a player must be gone before the other may claim the game.
    pub fn grace(&self) -> std::time::Duration {
        self.inner.grace
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    /// This node's name.
    pub fn node(&self) -> &str {
        &self.inner.node
    }

    /// When a lease taken now runs out (alone, an hour: nobody else takes it anyway).
    fn lease_until(&self) -> u64 {
        let lease = self
            .inner
            .cluster
            .as_ref()
            .map_or(Duration::from_secs(3600), |c| c.lease);
        now_ms() + u64::try_from(lease.as_millis()).unwrap_or(u64::MAX)
    }

    /// Whether game `code`'s room runs on this node (not a proxy of another's).
    fn is_local(&self, code: &str) -> bool {
        lock(&self.inner.rooms)
            .get(code)
            .is_some_and(|live| live.local() && !live.tx.is_closed())
    }

    fn live(&self, code: &str) -> Option<mpsc::Sender<Command>> {
        lock(&self.inner.rooms)
            .get(code)
            .filter(|live| !live.tx.is_closed())
            .map(|live| live.tx.clone())
    }

    fn spawn(
        &self,
        row: GameRow,
        players: [Option<PlayerRow>; 2],
        moves: &[String],
    ) -> Result<mpsc::Sender<Command>, StoreError> {
        let code = row.code.clone();
        let id = self.inner.next_room.fetch_add(1, Ordering::Relaxed);
        let room = Room::new(
            id,
            row,
            players,
            moves,
            self.inner.store.clone(),
            Box::new(self.clone()),
        )?;
        let (tx, rx) = mpsc::channel(64);
        if let Some(cluster) = &self.inner.cluster {
            // Every message of the room goes to the game's channel too, for followers on other
            // nodes; subscribed before the room runs, so that nothing goes before.
            let mut out = room.subscribe();
            let broker = cluster.broker.clone();
            let channel = cluster.broker.channels().game(&code);
            tokio::spawn(async move {
                loop {
                    match out.recv().await {
                        Ok(msg) => broker.publish(&channel, &cluster::out_msg(&msg)).await,
                        // Followers elsewhere see the gap in the numbers and follow again.
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                        Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                    }
                }
            });
        }
        let live = Live {
            id,
            tx: tx.clone(),
            proxy: None,
        };
        lock(&self.inner.rooms).insert(code, live);
        tokio::spawn(room.run(rx));
        Ok(tx)
    }

    /// Forgets room `id` of game `code` (it ended, or its game was withdrawn).
    pub fn remove_room(&self, code: &str, id: u64) {
        let mut rooms = lock(&self.inner.rooms);
        if rooms.get(code).is_some_and(|live| live.id == id) {
            rooms.remove(code);
            self.not_open(code);
        }
    }

    /// How many rooms are live.
    pub fn live_rooms(&self) -> usize {
        lock(&self.inner.rooms).len()
    }

    /// The operator barred player `id`: its connections here close.
    pub fn bar(&self, id: &str) {
        lock(&self.inner.barred).insert(id.to_string());
    }

    /// The operator let player `id` back.
    pub fn unbar(&self, id: &str) {
        lock(&self.inner.barred).remove(id);
    }

    /// Whether the operator barred player `id` while this node ran.
    pub fn is_barred(&self, id: &str) -> bool {
        lock(&self.inner.barred).contains(id)
    }

    /// The broker, on a node among several.
    pub fn broker(&self) -> Option<&Arc<Broker>> {
        self.inner.cluster.as_ref().map(|c| &c.broker)
    }
}

/// For the unit tests: a runtime, and a hub of one node on a store in a fresh folder named
/// after `name`, which the test removes at its end.
#[cfg(test)]
fn hub_for_test(name: &str) -> (tokio::runtime::Runtime, Hub, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("khet-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let store = runtime.block_on(Store::open_folder(&dir)).unwrap();
    let hub = Hub::new(
        store,
        Duration::from_secs(60),
        None,
        OpenGameSettings::default(),
    );
    (runtime, hub, dir)
}

/// For the unit tests: the player of identity `identity` (one character, repeated) named
/// `name`.
#[cfg(test)]
async fn player_for_test(hub: &Hub, identity: char, name: &str) -> PlayerRow {
    match hub
        .player(&identity.to_string().repeat(32), name, None)
        .await
    {
        Ok(Admitted::Player(p)) => p,
        _ => panic!("no player {name}"),
    }
}

impl RoomHost for Hub {
    fn grace(&self) -> Duration {
        Hub::grace(self)
    }

    fn set_lobby_entry(&self, code: &str, created_ms: u64, entry: Option<OpenGame>) {
        Hub::set_lobby_entry(self, code, created_ms, entry);
    }

    fn remove_room(&self, code: &str, id: u64) {
        Hub::remove_room(self, code, id);
    }

    fn identity_policy(&self) -> IdentityPolicy {
        self.inner.policy
    }

    fn withdraw_after(&self) -> Duration {
        Hub::withdraw_after(self)
    }

    fn not_open(&self, code: &str) {
        Hub::not_open(self, code);
    }

    fn now_ms(&self) -> u64 {
        Hub::now_ms(self)
    }
}
