//! The live games of one server: which room runs each game, the lobby of open games, and the
//! creating, joining and pairing that happen before a room has both players.

use crate::cluster::{self, Answer, Beat, Broker, GameMsg, Incoming, Request};
use crate::rating;
use crate::remote::Proxy;
use crate::room::{Attached, Command, Refused, Room, now_ms};
use crate::secret;
use crate::store::{GameRow, Lease, PlayerRow, Store, StoreError};
use khet_engine::{Color, Setup};
use khet_protocol::{ClockSpec, NewGame, OpenGame, Refusal, SeatChoice, ServerMsg, Status};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, watch};

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

type Lobby = BTreeMap<(u64, String), OpenGame>;

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
    /// A room of this node's (not a proxy).
    local: bool,
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
    /// Followers other nodes attached to this node's rooms: by node, each game and side, so that
    /// a node that dies stops counting as its players' presence.
    remote_followers: Mutex<HashMap<String, Vec<(String, Option<Color>)>>>,
    next_room: AtomicU64,
    /// Loading a room from the store, or creating a game, happens once at a time, so no game
    /// gets two rooms.
    loading: tokio::sync::Mutex<()>,
    /// Pairing happens once at a time, so two seekers do not both take one game.
    pairing: tokio::sync::Mutex<()>,
    lobby: Mutex<Lobby>,
    lobby_tx: watch::Sender<Arc<str>>,
}

/// The server's live games; cheap to clone.
#[derive(Clone)]
pub struct Hub {
    inner: Arc<Inner>,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding one of these small maps leaves it consistent; go on with it.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn lobby_json(lobby: &Lobby) -> Arc<str> {
    ServerMsg::Lobby {
        games: lobby.values().cloned().collect(),
    }
    .to_json()
    .into()
}

impl Hub {
    /// A hub over `store`, with no rooms yet; `grace` is how long a player must be gone before
    /// the other may claim the game; `cluster` when this node is one of several.
    pub fn new(store: Store, grace: std::time::Duration, cluster: Option<Cluster>) -> Hub {
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
                remote_followers: Mutex::new(HashMap::new()),
                next_room: AtomicU64::new(1),
                loading: tokio::sync::Mutex::new(()),
                pairing: tokio::sync::Mutex::new(()),
                lobby: Mutex::new(Lobby::new()),
                lobby_tx,
            }),
        }
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

    /// Takes up the games not over that no node holds (alone: every one), so that their clocks
    /// run and their players find them. Returns how many.
    pub async fn resume_games(&self) -> Result<usize, StoreError> {
        let codes = match self.inner.cluster {
            None => self.inner.store.unfinished().await?,
            Some(_) => {
                let node = &self.inner.node;
                self.inner.store.orphans(now_ms(), node).await?
            }
        };
        let mut taken = 0;
        for code in &codes {
            if self.take_up(code).await? {
                taken += 1;
            }
        }
        Ok(taken)
    }

    /// The room of game `code`, loaded from the store if it is not live (or, when another node
    /// owns it, a proxy to that node); `None` if there is no such game.
    pub async fn room(&self, code: &str) -> Result<Option<mpsc::Sender<Command>>, StoreError> {
        if let Some(tx) = self.live(code) {
            return Ok(Some(tx));
        }
        let _loading = self.inner.loading.lock().await;
        if let Some(tx) = self.live(code) {
            return Ok(Some(tx));
        }
        let Some(row) = self.inner.store.game(code).await? else {
            return Ok(None);
        };
        if let Some(tx) = self.load(row).await? {
            return Ok(Some(tx));
        }
        // Another node holds the lease: reach the game there.
        match self.inner.store.game(code).await? {
            Some(GameRow {
                lease: Lease {
                    owner: Some(owner), ..
                },
                ..
            }) if owner != self.inner.node => self.proxy(code, &owner).await.map(Some),
            // It changed hands meanwhile: once more from the start.
            Some(row) => Ok(self.load(row).await?),
            None => Ok(None),
        }
    }

    /// Takes the lease of game `code` and runs its room here, unless it runs here already or
    /// another node holds it (a proxy of it here ends when the room's `moved` reaches it).
    /// Whether it did.
    async fn take_up(&self, code: &str) -> Result<bool, StoreError> {
        let _loading = self.inner.loading.lock().await;
        if self.is_local(code) {
            return Ok(false);
        }
        match self.inner.store.game(code).await? {
            Some(row) => Ok(self.load(row).await?.is_some()),
            None => Ok(false),
        }
    }

    /// Runs the room of a stored game here: a game over needs no lease (nothing is written);
    /// one not over needs this node to take its lease. `None` if another node holds it.
    async fn load(&self, mut row: GameRow) -> Result<Option<mpsc::Sender<Command>>, StoreError> {
        let code = row.code.clone();
        if row.status != Status::Over {
            let (now, until) = (now_ms(), self.lease_until());
            let alone = self.inner.cluster.is_none();
            let Some(token) = self
                .inner
                .store
                .acquire(&code, &self.inner.node, now, until, alone)
                .await?
            else {
                return Ok(None);
            };
            row.lease = Lease {
                owner: Some(self.inner.node.clone()),
                token,
                until_ms: until,
            };
        }
        let moves = self.inner.store.moves(&code).await?;
        let mut players = [None, None];
        for side in Color::ALL {
            if let Some(id) = &row.players[side.index()] {
                players[side.index()] = self.inner.store.player(id).await?;
            }
        }
        let taken_over = row.status != Status::Over;
        let tx = self.spawn(row, players, &moves)?;
        if taken_over && let Some(cluster) = &self.inner.cluster {
            // Proxies elsewhere of the game's last owner end; their followers come back here.
            let moved = GameMsg::Moved {
                owner: self.inner.node.clone(),
            };
            let channel = cluster.broker.channels().game(&code);
            cluster.broker.publish(&channel, &moved).await;
        }
        Ok(Some(tx))
    }

    /// A proxy here of game `code`, owned by node `owner`.
    async fn proxy(&self, code: &str, owner: &str) -> Result<mpsc::Sender<Command>, StoreError> {
        let Some(cluster) = &self.inner.cluster else {
            return Err(StoreError(format!("game {code} is owned by node {owner}")));
        };
        let game = cluster.broker.follow_game(code).await.map_err(StoreError)?;
        let id = self.inner.next_room.fetch_add(1, Ordering::Relaxed);
        let proxy = Proxy {
            id,
            code: code.to_string(),
            owner: owner.to_string(),
            broker: cluster.broker.clone(),
            hub: self.clone(),
        };
        let (tx, rx) = mpsc::channel(64);
        let live = Live {
            id,
            tx: tx.clone(),
            local: false,
        };
        lock(&self.inner.rooms).insert(code.to_string(), live);
        tokio::spawn(proxy.run(rx, game));
        Ok(tx)
    }

    /// Whether game `code`'s room runs on this node (not a proxy of another's).
    fn is_local(&self, code: &str) -> bool {
        lock(&self.inner.rooms)
            .get(code)
            .is_some_and(|live| live.local && !live.tx.is_closed())
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
            self.clone(),
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
            local: true,
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
        }
    }

    /// How many rooms are live.
    pub fn live_rooms(&self) -> usize {
        lock(&self.inner.rooms).len()
    }

    /// Shows, updates or removes an open game in the lobby.
    pub fn set_lobby_entry(&self, code: &str, created_ms: u64, entry: Option<OpenGame>) {
        let changed = {
            let mut lobby = lock(&self.inner.lobby);
            let key = (created_ms, code.to_string());
            match entry {
                Some(entry) => lobby.insert(key, entry.clone()).as_ref() != Some(&entry),
                None => lobby.remove(&key).is_some(),
            }
        };
        if changed {
            self.lobby_changed();
            if self.inner.cluster.is_some() {
                let hub = self.clone();
                tokio::spawn(async move { hub.beat().await });
            }
        }
    }

    /// The open games of every node.
    fn whole_lobby(&self) -> Lobby {
        let mut all = lock(&self.inner.lobby).clone();
        for peer in lock(&self.inner.peers).values() {
            for (created_ms, game) in &peer.lobby {
                all.insert((*created_ms, game.code.clone()), game.clone());
            }
        }
        all
    }

    /// The lobby of every node, as JSON, to everyone who follows it here.
    fn lobby_changed(&self) {
        self.inner
            .lobby_tx
            .send_replace(lobby_json(&self.whole_lobby()));
    }

    /// Says to the other nodes that this one is alive, with its open games.
    async fn beat(&self) {
        let Some(cluster) = &self.inner.cluster else {
            return;
        };
        let beat = Beat {
            node: self.inner.node.clone(),
            lobby: lock(&self.inner.lobby)
                .iter()
                .map(|((created_ms, _), game)| (*created_ms, game.clone()))
                .collect(),
        };
        cluster
            .broker
            .publish(&cluster.broker.channels().nodes(), &beat)
            .await;
    }

    /// A node's life among several, until the process ends: answers other nodes' requests,
    /// hears their heartbeats, beats its own, renews its leases and takes up the games of
    /// nodes that died.
    pub async fn run_cluster(self, mut incoming: mpsc::UnboundedReceiver<Incoming>) {
        let Some(cluster) = &self.inner.cluster else {
            return;
        };
        let lease = cluster.lease;
        let mut beat = tokio::time::interval(cluster::BEAT_EVERY);
        let mut renew = tokio::time::interval(lease / 3);
        loop {
            tokio::select! {
                msg = incoming.recv() => match msg {
                    Some(Incoming::Request { id, from, code, req }) => {
                        let hub = self.clone();
                        tokio::spawn(async move { hub.answer(id, from, code, req).await });
                    }
                    Some(Incoming::Beat(beat)) => {
                        lock(&self.inner.peers).insert(beat.node, Peer {
                            heard: tokio::time::Instant::now(),
                            lobby: beat.lobby,
                        });
                        self.lobby_changed();
                    }
                    None => return,
                },
                _ = beat.tick() => {
                    self.beat().await;
                    self.forget_silent_peers(lease).await;
                }
                _ = renew.tick() => self.keep_leases().await,
            }
        }
    }

    /// Renews this node's leases, and takes up the games no node holds.
    async fn keep_leases(&self) {
        if let Err(e) = self
            .inner
            .store
            .renew(&self.inner.node, self.lease_until())
            .await
        {
            eprintln!("khet-server: renewing leases: {e}");
        }
        match self.resume_games().await {
            Ok(0) => {}
            Ok(n) => eprintln!("khet-server: took up {n} game(s) of a node gone"),
            Err(e) => eprintln!("khet-server: taking up games: {e}"),
        }
    }

    /// Nodes not heard for a lease are gone: their open games leave the lobby, and their
    /// followers of this node's games stop counting.
    async fn forget_silent_peers(&self, lease: Duration) {
        let gone: Vec<String> = {
            let mut peers = lock(&self.inner.peers);
            let gone: Vec<String> = peers
                .iter()
                .filter(|(_, p)| p.heard.elapsed() > lease)
                .map(|(n, _)| n.clone())
                .collect();
            for node in &gone {
                peers.remove(node);
            }
            gone
        };
        if gone.is_empty() {
            return;
        }
        self.lobby_changed();
        for node in gone {
            let followers = lock(&self.inner.remote_followers)
                .remove(&node)
                .unwrap_or_default();
            for (code, seat) in followers {
                if let Some(room) = self.live(&code) {
                    let _ = room.send(Command::Detach { seat }).await;
                }
            }
        }
    }

    /// Answers another node's request about a game of this node's.
    async fn answer(&self, id: u64, from: String, code: String, req: Request) {
        let Some(cluster) = &self.inner.cluster else {
            return;
        };
        let result = self.answer_for(&from, &code, req).await;
        cluster.broker.reply(&from, id, result).await;
    }

    async fn answer_for(&self, from: &str, code: &str, req: Request) -> Result<Answer, Refused> {
        // Only a room of this node's answers: a proxy here, or no room, means the game is
        // elsewhere now, and the asker must look again.
        let room = match lock(&self.inner.rooms).get(code) {
            Some(live) if live.local && !live.tx.is_closed() => live.tx.clone(),
            _ => return Err(cluster::unavailable()),
        };
        let closed = |_| cluster::unavailable();
        match req {
            Request::Attach { seat, since } => {
                let (reply, answer) = oneshot::channel();
                room.send(Command::Attach { seat, since, reply })
                    .await
                    .map_err(closed)?;
                let attached = answer.await.map_err(|_| cluster::unavailable())??;
                lock(&self.inner.remote_followers)
                    .entry(from.to_string())
                    .or_default()
                    .push((code.to_string(), attached.you));
                Ok(Answer::Attached {
                    you: attached.you,
                    catch_up: attached
                        .catch_up
                        .into_iter()
                        .map(|(n, json)| (n, json.to_string()))
                        .collect(),
                })
            }
            Request::Detach { seat } => {
                let known = {
                    let mut all = lock(&self.inner.remote_followers);
                    let list = all.entry(from.to_string()).or_default();
                    match list.iter().position(|(c, s)| c == code && *s == seat) {
                        Some(i) => {
                            list.swap_remove(i);
                            true
                        }
                        None => false,
                    }
                };
                if known {
                    room.send(Command::Detach { seat }).await.map_err(closed)?;
                }
                Ok(Answer::Done)
            }
            Request::Join {
                player,
                secret_hash,
            } => {
                let (reply, answer) = oneshot::channel();
                room.send(Command::Join {
                    player: player.into(),
                    secret_hash,
                    reply,
                })
                .await
                .map_err(closed)?;
                Ok(Answer::Joined(
                    answer.await.map_err(|_| cluster::unavailable())??,
                ))
            }
            Request::Act { seat, action } => {
                let (reply, answer) = oneshot::channel();
                room.send(Command::Act {
                    seat,
                    action,
                    reply,
                })
                .await
                .map_err(closed)?;
                answer.await.map_err(|_| cluster::unavailable())??;
                Ok(Answer::Done)
            }
        }
    }

    /// The lobby as JSON, now and whenever it changes.
    pub fn lobby(&self) -> watch::Receiver<Arc<str>> {
        self.inner.lobby_tx.subscribe()
    }

    /// Creates a game for `creator`.
    pub async fn create(&self, creator: &PlayerRow, new: &NewGame) -> Result<Seat, Refused> {
        let setup = Setup::builtin(&new.setup)
            .map_err(|e| Refused::new(Refusal::BadGame, e.to_string()))?;
        if let Some(clock) = new.clock {
            clock
                .check()
                .map_err(|e| Refused::new(Refusal::BadGame, e))?;
        }
        let random = |_| Refused::new(Refusal::Storage, "the server has no random numbers");
        let color = match new.color {
            SeatChoice::Silver => Color::Silver,
            SeatChoice::Red => Color::Red,
            SeatChoice::Random => {
                if secret::new_secret().map_err(random)?.as_bytes()[0] % 2 == 0 {
                    Color::Silver
                } else {
                    Color::Red
                }
            }
        };
        let seat_secret = secret::new_secret().map_err(random)?;
        let mut players = [None, None];
        players[color.index()] = Some(creator.id.clone());
        let mut secrets = [None, None];
        secrets[color.index()] = Some(secret::hash(&seat_secret));
        let initial = new.clock.map_or(0, |c| c.initial_ms);
        let mut row = GameRow {
            code: String::new(),
            setup: setup.name.clone(),
            start: setup.position.to_string(),
            rated: new.rated,
            listed: new.listed,
            clock: new.clock,
            creator_choice: new.color,
            players,
            secrets,
            status: Status::Open,
            result: None,
            clocks_ms: [initial; 2],
            event: 0,
            created_ms: now_ms(),
            started_ms: None,
            ended_ms: None,
            lease: Lease {
                owner: Some(self.inner.node.clone()),
                token: 1,
                until_ms: self.lease_until(),
            },
        };
        // From its insert to its room a new game is a stored game not over without a live room,
        // which a node looking for games to take up (its own included: a restarted node takes
        // its games back) would load into a second room; so both happen as one load does.
        let _loading = self.inner.loading.lock().await;
        // A code already taken makes the insert fail; draw again (rare: about 40 bits).
        let mut tries = 0;
        loop {
            row.code = secret::new_code().map_err(random)?;
            match self.inner.store.insert_game(&row).await {
                Ok(()) => break,
                Err(e) if tries < 3 => {
                    tries += 1;
                    eprintln!("khet-server: new game: {e}; trying another code");
                }
                Err(e) => return Err(e.into()),
            }
        }
        let mut seated = [None, None];
        seated[color.index()] = Some(creator.clone());
        self.spawn(row.clone(), seated, &[])?;
        Ok(Seat {
            code: row.code,
            color,
            secret: seat_secret,
        })
    }

    /// Takes the free seat of game `code` for `player`.
    pub async fn join(&self, code: &str, player: &PlayerRow) -> Result<Seat, Refused> {
        let room = self.room(code).await?.ok_or_else(|| {
            Refused::new(Refusal::UnknownGame, format!("no game has the code {code}"))
        })?;
        let secret = secret::new_secret()
            .map_err(|_| Refused::new(Refusal::Storage, "the server has no random numbers"))?;
        let (reply, answer) = oneshot::channel();
        room.send(Command::Join {
            player: player.clone(),
            secret_hash: secret::hash(&secret),
            reply,
        })
        .await
        .map_err(|_| gone(code))?;
        let color = answer.await.map_err(|_| gone(code))??;
        Ok(Seat {
            code: code.to_string(),
            color,
            secret,
        })
    }

    /// Quick pairing: the oldest open game in the lobby with this clock and rating, or a new one.
    pub async fn seek(
        &self,
        player: &PlayerRow,
        clock: Option<ClockSpec>,
        rated: bool,
    ) -> Result<Seat, Refused> {
        let _pairing = self.inner.pairing.lock().await;
        let candidates: Vec<String> = self
            .whole_lobby()
            .values()
            .filter(|g| g.clock == clock && g.rated == rated && g.creator.id != player.id)
            .map(|g| g.code.clone())
            .collect();
        for code in candidates {
            match self.join(&code, player).await {
                Ok(seat) => return Ok(seat),
                Err(Refused(Refusal::SeatTaken | Refusal::UnknownGame, _)) => {}
                Err(e) => return Err(e),
            }
        }
        let new = NewGame {
            setup: "classic".into(),
            clock,
            color: SeatChoice::Random,
            rated,
            listed: true,
        };
        self.create(player, &new).await
    }

    /// Follows game `code` as the holder of `secret`, or as a spectator.
    pub async fn attach(
        &self,
        code: &str,
        secret: Option<&str>,
        since: Option<u64>,
    ) -> Result<(mpsc::Sender<Command>, Attached), Refused> {
        let room = self.room(code).await?.ok_or_else(|| {
            Refused::new(Refusal::UnknownGame, format!("no game has the code {code}"))
        })?;
        let (reply, answer) = oneshot::channel();
        room.send(Command::Attach {
            seat: secret.map(secret::hash),
            since,
            reply,
        })
        .await
        .map_err(|_| gone(code))?;
        let attached = answer.await.map_err(|_| gone(code))??;
        Ok((room, attached))
    }

    /// The player of an installation's identity, made on first sight; a new name is kept.
    pub async fn player(&self, identity: &str, name: &str) -> Result<PlayerRow, StoreError> {
        let hash = secret::hash(identity);
        if let Some(mut player) = self.inner.store.player_by_identity(&hash).await? {
            if player.name != name {
                self.inner.store.rename(&player.id, name).await?;
                player.name = name.to_string();
            }
            return Ok(player);
        }
        let player = PlayerRow {
            id: secret::new_code().map_err(StoreError)?,
            name: name.to_string(),
            rating: rating::initial(),
            games: 0,
        };
        self.inner
            .store
            .insert_player(&player, &hash, now_ms())
            .await?;
        Ok(player)
    }
}

fn gone(code: &str) -> Refused {
    Refused::new(
        Refusal::UnknownGame,
        format!("game {code} was just closed; try again"),
    )
}
