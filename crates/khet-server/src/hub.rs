//! The live games of one server: which room runs each game, the lobby of open games, and the
//! creating, joining and pairing that happen before a room has both players.

use crate::rating;
use crate::room::{Attached, Command, Refused, Room, now_ms};
use crate::secret;
use crate::store::{GameRow, PlayerRow, Store, StoreError};
use khet_engine::{Color, Setup};
use khet_protocol::{ClockSpec, NewGame, OpenGame, Refusal, SeatChoice, ServerMsg, Status};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
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

struct Inner {
    store: Store,
    /// How long a player must be gone before the other may claim the game.
    grace: std::time::Duration,
    /// Each live room's sender, with the room's number (so that a room that ends removes
    /// itself and not a successor).
    rooms: Mutex<HashMap<String, (u64, mpsc::Sender<Command>)>>,
    next_room: AtomicU64,
    /// Loading a room from the store happens once at a time, so no game gets two rooms.
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

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
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
    /// the other may claim the game.
    pub fn new(store: Store, grace: std::time::Duration) -> Hub {
        let (lobby_tx, _) = watch::channel(lobby_json(&Lobby::new()));
        Hub {
            inner: Arc::new(Inner {
                store,
                grace,
                rooms: Mutex::new(HashMap::new()),
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

    /// Takes up every game not over, so that their clocks run and their players find them.
    /// Returns how many.
    pub async fn resume_games(&self) -> Result<usize, StoreError> {
        let codes = self.inner.store.unfinished().await?;
        for code in &codes {
            self.room(code).await?;
        }
        Ok(codes.len())
    }

    /// The room of game `code`, loaded from the store if it is not live; `None` if there is
    /// no such game.
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
        let moves = self.inner.store.moves(code).await?;
        let mut players = [None, None];
        for side in Color::ALL {
            if let Some(id) = &row.players[side.index()] {
                players[side.index()] = self.inner.store.player(id).await?;
            }
        }
        Ok(Some(self.spawn(row, players, &moves)?))
    }

    fn live(&self, code: &str) -> Option<mpsc::Sender<Command>> {
        lock(&self.inner.rooms)
            .get(code)
            .filter(|(_, tx)| !tx.is_closed())
            .map(|(_, tx)| tx.clone())
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
        lock(&self.inner.rooms).insert(code, (id, tx.clone()));
        tokio::spawn(room.run(rx));
        Ok(tx)
    }

    /// Forgets room `id` of game `code` (it ended, or its game was withdrawn).
    pub fn remove_room(&self, code: &str, id: u64) {
        let mut rooms = lock(&self.inner.rooms);
        if rooms.get(code).is_some_and(|(i, _)| *i == id) {
            rooms.remove(code);
        }
    }

    /// How many rooms are live.
    pub fn live_rooms(&self) -> usize {
        lock(&self.inner.rooms).len()
    }

    /// Shows, updates or removes an open game in the lobby.
    pub fn set_lobby_entry(&self, code: &str, created_ms: u64, entry: Option<OpenGame>) {
        let mut lobby = lock(&self.inner.lobby);
        let key = (created_ms, code.to_string());
        let changed = match entry {
            Some(entry) => lobby.insert(key, entry.clone()).as_ref() != Some(&entry),
            None => lobby.remove(&key).is_some(),
        };
        if changed {
            self.inner.lobby_tx.send_replace(lobby_json(&lobby));
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
        };
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
        let candidates: Vec<String> = lock(&self.inner.lobby)
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
