//! What a client asks for before it plays: a game created, joined or paired (a seat), a game
//! followed, and the player of its identity.

use super::{Hub, Seat};
use crate::messages::{Attached, Command, Refused};
use crate::rating;
use crate::secret;
use crate::store::{GameRow, Lease, PlayerRow, StoreError};
use crate::util::now_ms;
use khet_engine::{Color, Setup};
use khet_protocol::{ClockSpec, NewGame, Refusal, SeatChoice, Status};
use std::net::IpAddr;
use tokio::sync::{mpsc, oneshot};

impl Hub {
    /// Creates a game for `creator`, connected from `address` (none: the address is not
    /// known), unless they have as many open games as the caps allow: refused then before the
    /// game costs anything, and without waiting for the lock that creates and loads share.
    pub async fn create(
        &self,
        creator: &PlayerRow,
        new: &NewGame,
        address: Option<IpAddr>,
    ) -> Result<Seat, Refused> {
        self.may_open(&creator.id, address)?;
        if new.rated {
            self.may_play_rated(creator).await?;
        }
        self.open_game(creator, new, Caps::Counted(address)).await
    }

    /// Creates game `new` with `creator` seated, counted against the open-game caps or not.
    pub(super) async fn open_game(
        &self,
        creator: &PlayerRow,
        new: &NewGame,
        caps: Caps,
    ) -> Result<Seat, Refused> {
        let setup = offered(new)?;
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
            tournament: None,
            days_per_move: new.days_per_move,
            turn_ms: None,
        };
        // From its insert to its room a new game is a stored game not over without a live room,
        // which a node looking for games to take up (its own included: a restarted node takes
        // its games back) would load into a second room; so both happen as one load does.
        let _loading = self.inner.loading.lock().await;
        // Again under the lock, which every create takes: two creates at once cannot both
        // take the last place.
        if let Caps::Counted(address) = caps {
            self.may_open(&creator.id, address)?;
        }
        // A code already taken makes the insert fail; draw again (rare: about 40 bits).
        let mut tries = 0;
        loop {
            row.code = secret::new_code().map_err(random)?;
            match self.inner.store.insert_game(&row).await {
                Ok(()) => break,
                Err(e) if tries < 3 => {
                    tries += 1;
                    tracing::warn!("new game: {e}; trying another code");
                }
                Err(e) => return Err(e.into()),
            }
        }
        if let Caps::Counted(address) = caps {
            self.opened(&row.code, &creator.id, address);
        }
        crate::metrics::game_created();
        let game = crate::logs::game(&row.code, row.listed);
        tracing::info!(code = %game, setup = %row.setup, rated = row.rated, by = %creator.name, "game created");
        let mut seated = [None, None];
        seated[color.index()] = Some(creator.clone());
        if let Err(e) = self.spawn(row.clone(), seated, &[]) {
            self.not_open(&row.code);
            return Err(e.into());
        }
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
        address: Option<IpAddr>,
    ) -> Result<Seat, Refused> {
        if rated {
            self.may_play_rated(player).await?;
        }
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
                // `not_now`: this pair has played its rated games of the day; the next one.
                Err(Refused {
                    code: Refusal::SeatTaken | Refusal::UnknownGame | Refusal::NotNow,
                    ..
                }) => {}
                Err(e) => return Err(e),
            }
        }
        let new = NewGame {
            setup: "classic".into(),
            clock,
            color: SeatChoice::Random,
            rated,
            listed: true,
            days_per_move: None,
        };
        self.create(player, &new, address).await
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
            node: None,
            reply,
        })
        .await
        .map_err(|_| gone(code))?;
        let attached = answer.await.map_err(|_| gone(code))??;
        Ok((room, attached))
    }

    /// Refused if `player` has not finished the games a rated game needs.
    pub(super) async fn may_play_rated(&self, player: &PlayerRow) -> Result<(), Refused> {
        let policy = self.inner.policy;
        if policy.games_before_rated == 0 {
            return Ok(());
        }
        let finished = self.inner.store.finished_games(&player.id).await?;
        policy.newcomer(finished)
    }

    /// The player of an installation's identity, made on first sight; a new name is kept.
    /// `network` is where it connects from ([`crate::identity::network`]): kept a while, for a
    /// bar to hold, and no new identity is made from one a bar holds.
    pub async fn player(
        &self,
        identity: &str,
        name: &str,
        network: Option<&str>,
    ) -> Result<Admitted, StoreError> {
        let hash = secret::hash(identity);
        let keep_networks = self.inner.policy.hold_ms() > 0;
        let network = network.filter(|_| keep_networks);
        if let Some(mut player) = self.inner.store.player_by_identity(&hash).await? {
            let standing = self.inner.store.standing(&player.id).await?;
            let standing = standing.unwrap_or_default();
            if let Some(network) = network {
                self.inner
                    .store
                    .seen_on(&player.id, network, now_ms())
                    .await?;
            }
            if let Some(reason) = standing.barred {
                // Tried from here: its new identities are held here too.
                self.hold_networks(&player.id).await?;
                return Ok(Admitted::Barred(reason));
            }
            if player.name != name && !standing.named_by_operator {
                self.inner.store.rename(&player.id, name).await?;
                player.name = name.to_string();
            }
            return Ok(Admitted::Player(player));
        }
        if let Some(network) = network {
            let now = now_ms();
            if let Some(until) = self.inner.store.held_until(network, now).await? {
                return Ok(Admitted::Held(crate::identity::held(until, now)));
            }
        }
        let player = PlayerRow {
            id: secret::new_code().map_err(StoreError::System)?,
            name: name.to_string(),
            rating: rating::initial(),
            games: 0,
        };
        self.inner
            .store
            .insert_player(&player, &hash, now_ms())
            .await?;
        if let Some(network) = network {
            self.inner
                .store
                .seen_on(&player.id, network, now_ms())
                .await?;
        }
        Ok(Admitted::Player(player))
    }
}

/// Whether a new game counts against its creator's open-game caps.
#[derive(Clone, Copy)]
pub(super) enum Caps {
    /// It waits for an opponent: counted, by the creator and their address (if known).
    Counted(Option<IpAddr>),
    /// A challenge's game, joined at once by the player who accepted: the challenge caps
    /// bound these.
    Exempt,
}

/// Who said hello: a player, new or known, or an identity the operator barred.
pub enum Admitted {
    /// Welcome.
    Player(PlayerRow),
    /// Barred, with the operator's reason.
    Barred(String),
    /// A new identity from a network a bar holds, with what it is told.
    Held(String),
}

/// The setup of game `new`, if the server offers it and its clock.
pub(super) fn offered(new: &NewGame) -> Result<Setup, Refused> {
    let setup =
        Setup::builtin(&new.setup).map_err(|e| Refused::new(Refusal::BadGame, e.to_string()))?;
    if let Some(clock) = new.clock {
        clock
            .check()
            .map_err(|e| Refused::new(Refusal::BadGame, e))?;
    }
    if let Some(days) = new.days_per_move {
        khet_protocol::correspondence::check_days(days, new.clock)
            .map_err(|e| Refused::new(Refusal::BadGame, e))?;
    }
    Ok(setup)
}

fn gone(code: &str) -> Refused {
    Refused::new(
        Refusal::UnknownGame,
        format!("game {code} was just closed; try again"),
    )
}
