//! One live game: a task that owns the engine's game, the clocks and the seats. Connections send
//! it commands on a channel and receive its events on a broadcast; nothing else changes a game,
//! so its commands are handled one at a time, each stored before it is announced. A
//! correspondence game's days are judged in `correspondence`.

mod correspondence;
mod followers;

use crate::identity;
use crate::messages::{Attached, Command, Out, Refused, RoomHost};
use crate::rating;
use crate::store::{GameRow, PairCap, PlayerRow, Store, StoreError};
use khet_engine::{Color, Game, GameError, GameResult, parse_position};
use khet_protocol::{
    ClientMsg, Clocks, GameEvent, GameView, OpenGame, Refusal, SeatChoice, ServerMsg, Status,
};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use tokio::sync::{broadcast, mpsc};
use tokio::time::{Duration, Instant, sleep_until};

/// How many recent events a room keeps for clients that reconnect; one that missed more gets
/// the whole game.
const HISTORY: usize = 64;

/// A follower counted for another node.
struct RemoteFollower {
    seat: Option<Color>,
    /// When its attach was counted; none when counted because its node said so.
    attached: Option<Instant>,
}

/// A live game.
pub struct Room {
    /// The hub's number for this room.
    id: u64,
    row: GameRow,
    players: [Option<PlayerRow>; 2],
    game: Game,
    /// Each side's time left when `turn_started` was set.
    clocks_ms: [u64; 2],
    /// When the running clock started, if one runs.
    turn_started: Option<Instant>,
    history: VecDeque<(u64, Arc<str>)>,
    draw_offer: Option<Color>,
    /// The ply at which each side last offered a draw: one offer per move.
    offered_at: [Option<usize>; 2],
    takeback: Option<Color>,
    /// Connections per seat, and since when a seat has none.
    connected: [u32; 2],
    gone_since: [Option<Instant>; 2],
    spectators: u32,
    /// The followers counted for each other node (included in `connected` and `spectators`):
    /// kept here, and changed only by this room's commands, so that each count has its entry
    /// and no count outlives the follower.
    remote: HashMap<String, Vec<RemoteFollower>>,
    /// Another node holds the game's lease now: this room ends.
    fenced: bool,
    tx: broadcast::Sender<Out>,
    store: Store,
    /// The hub, as far as a room needs it.
    host: Box<dyn RoomHost>,
}

impl Room {
    /// The room of a stored game and its moves. A game whose last move ended it but whose end
    /// was not stored (the server stopped in between) is ended now.
    pub fn new(
        id: u64,
        row: GameRow,
        players: [Option<PlayerRow>; 2],
        moves: &[String],
        store: Store,
        host: Box<dyn RoomHost>,
    ) -> Result<Room, StoreError> {
        let name = crate::logs::game(&row.code, row.listed);
        let start = parse_position(&row.start)
            .map_err(|e| StoreError::Corrupt(format!("game {name}: start: {e}")))?;
        let mut game = Game::from_moves(start, moves)
            .map_err(|e| StoreError::Corrupt(format!("game {name}: moves: {e}")))?;
        if let Some(result) = row.result {
            game.end_with(result);
        }
        let now = Instant::now();
        let (tx, _) = broadcast::channel(256);
        let mut room = Room {
            id,
            clocks_ms: row.clocks_ms,
            players,
            game,
            turn_started: None,
            history: VecDeque::new(),
            draw_offer: None,
            offered_at: [None; 2],
            takeback: None,
            connected: [0; 2],
            // The server has just started (or the game was just made): nobody is here yet.
            gone_since: [Some(now); 2],
            spectators: 0,
            remote: HashMap::new(),
            fenced: false,
            tx,
            store,
            host,
            row,
        };
        // A restarted server charges nobody for the time it was down: nobody could move.
        if room.clock_runs() {
            room.turn_started = Some(now);
        }
        Ok(room)
    }

    /// The room's messages from now on (for another node's followers).
    pub fn subscribe(&self) -> broadcast::Receiver<Out> {
        self.tx.subscribe()
    }

    /// A store failure: one that says another node took the game over ends the room (its
    /// followers' connections close, and their clients find the game on its new node).
    fn lost(&mut self, e: StoreError) -> Refused {
        if e.is_fenced() {
            tracing::warn!(code = %self.logged(), "game taken over by another node");
            self.fenced = true;
            return Refused::unavailable();
        }
        e.into()
    }

    /// Ends the room if the stored lease is no longer this room's (a new token: another node
    /// took the game up while this one stalled). A game over holds no lease.
    async fn check_lease(&mut self) {
        if self.row.status == Status::Over {
            return;
        }
        match self.store.game(&self.row.code).await {
            Ok(Some(row)) if row.lease.token == self.row.lease.token => {}
            Ok(_) => {
                self.lost(StoreError::Fenced);
            }
            Err(e) => crate::metrics::failed("checking a lease", &e),
        }
    }

    /// Runs the room until its game is over and nobody follows it.
    pub async fn run(mut self, mut rx: mpsc::Receiver<Command>) {
        if self.row.status == Status::Playing && self.game.result().is_some() {
            // The server stopped between a decisive move and its end being stored.
            if let Some(result) = self.game.result()
                && let Err(e) = self.finish(result).await
            {
                tracing::warn!(code = %self.logged(), "{}", e.reason);
            }
        }
        self.update_lobby();
        loop {
            let flag = self.flag_deadline();
            let withdraw = self.withdraw_deadline();
            tokio::select! {
                command = rx.recv() => match command {
                    Some(command) => self.handle(command).await,
                    None => break,
                },
                () = sleep_until(flag.unwrap_or_else(Instant::now)), if flag.is_some() => {
                    self.flag().await;
                }
                () = sleep_until(withdraw.unwrap_or_else(Instant::now)), if withdraw.is_some() => {
                    self.withdraw_abandoned().await;
                }
            }
            if (self.row.status == Status::Over && self.followers() == 0) || self.fenced {
                break;
            }
        }
        self.host.remove_room(&self.row.code, self.id);
        if self.fenced {
            // What waits is answered as by a room that lost its game (the clients reconnect
            // and find the owner), not as by a game closed.
            rx.close();
            while let Ok(command) = rx.try_recv() {
                command.refuse(Refused::unavailable());
            }
        }
    }

    /// How the log names this game (an unlisted game's code is its secret).
    fn logged(&self) -> String {
        crate::logs::game(&self.row.code, self.row.listed)
    }

    /// When an open game whose creator is gone is withdrawn: once they have been gone
    /// [`RoomHost::withdraw_after`], so that games nobody waits for do not pile up.
    fn withdraw_deadline(&self) -> Option<Instant> {
        if self.row.status != Status::Open || self.fenced {
            return None;
        }
        if let Some(until) = self.open_until_ms() {
            let left = until.saturating_sub(self.host.now_ms());
            return Some(Instant::now() + Duration::from_millis(left));
        }
        let creator = Color::ALL
            .into_iter()
            .find(|c| self.row.players[c.index()].is_some())?;
        let gone = self.gone_since[creator.index()]?;
        Some(gone + self.host.withdraw_after())
    }

    /// Withdraws the open game its creator left, as they would have.
    async fn withdraw_abandoned(&mut self) {
        match self.withdraw().await {
            Ok(()) => {
                tracing::info!(code = %self.logged(), "open game withdrawn: its creator is gone");
            }
            Err(e) => {
                tracing::warn!(code = %self.logged(), "withdrawing an open game: {}", e.reason);
                // Tried again after as long once more, not at once over and over.
                if let Some(side) = Color::ALL
                    .into_iter()
                    .find(|c| self.row.players[c.index()].is_some())
                {
                    self.gone_since[side.index()] = Some(Instant::now());
                }
            }
        }
    }

    fn followers(&self) -> u32 {
        self.connected[0] + self.connected[1] + self.spectators
    }

    async fn handle(&mut self, command: Command) {
        match command {
            Command::Join {
                player,
                secret_hash,
                reply,
            } => {
                let result = self.join(player, secret_hash).await;
                let _ = reply.send(result);
            }
            Command::Attach {
                seat,
                since,
                node,
                reply,
            } => {
                let result = self.attach(seat.as_deref(), since, node);
                let _ = reply.send(result);
            }
            Command::Detach { seat, node: None } => self.detach(seat),
            Command::Detach {
                seat,
                node: Some(node),
            } => self.detach_remote(&node, seat),
            Command::Recount {
                from,
                follow,
                young,
            } => self.recount(from, follow, young),
            Command::Forget { from } => {
                for f in self.remote.remove(&from).unwrap_or_default() {
                    self.detach(f.seat);
                }
            }
            Command::CheckLease => self.check_lease().await,
            Command::Act {
                seat,
                action,
                reply,
            } => {
                let result = self.act(seat, action).await;
                let _ = reply.send(result);
            }
        }
    }

    fn clock_runs(&self) -> bool {
        self.row.clock.is_some() && self.row.status == Status::Playing && !self.game.is_over()
    }

    /// Both clocks now.
    fn clocks(&self) -> Option<Clocks> {
        self.row.clock?;
        let mut remaining_ms = self.clocks_ms;
        let running = self.turn_started.map(|_| self.game.side_to_move());
        if let (Some(side), Some(started)) = (running, self.turn_started) {
            let spent = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
            remaining_ms[side.index()] = remaining_ms[side.index()].saturating_sub(spent);
        }
        Some(Clocks {
            remaining_ms,
            running,
        })
    }

    fn flag_deadline(&self) -> Option<Instant> {
        let started = self.turn_started?;
        let side = self.game.side_to_move();
        Some(started + Duration::from_millis(self.clocks_ms[side.index()]))
    }

    /// The side to move ran out of time.
    async fn flag(&mut self) {
        let side = self.game.side_to_move();
        let mut game = self.game.clone();
        if let Ok(result) = game.lose_on_time(side)
            && let Err(e) = self.finish(result).await
        {
            tracing::warn!(code = %self.logged(), "{}", e.reason);
        }
    }

    fn view(&self) -> GameView {
        GameView {
            code: self.row.code.clone(),
            setup: self.row.setup.clone(),
            start: self.row.start.clone(),
            rated: self.row.rated,
            clock: self.row.clock,
            players: [
                self.players[0].as_ref().map(PlayerRow::info),
                self.players[1].as_ref().map(PlayerRow::info),
            ],
            moves: self.game.turns().iter().map(|t| t.mv.to_string()).collect(),
            clocks: self.clocks(),
            status: self.row.status,
            result: self.game.result(),
            draw_offer: self.draw_offer,
            takeback: self.takeback,
            days_per_move: self.row.days_per_move,
            deadline_ms: self.deadline_ms(),
        }
    }

    fn presence(&self) -> ServerMsg {
        ServerMsg::Presence {
            connected: [self.connected[0] > 0, self.connected[1] > 0],
            gone_ms: self
                .gone_since
                .map(|g| g.map(|t| u64::try_from(t.elapsed().as_millis()).unwrap_or(u64::MAX))),
            grace_ms: u64::try_from(self.host.grace().as_millis()).unwrap_or(u64::MAX),
            clocks: self.clocks(),
        }
    }

    fn send_presence(&self) {
        let _ = self.tx.send((None, self.presence().to_json().into()));
    }

    /// Announces event `n` (already stored).
    fn publish(&mut self, n: u64, event: GameEvent) {
        let json: Arc<str> = ServerMsg::Event { n, event }.to_json().into();
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history.push_back((n, json.clone()));
        self.row.event = n;
        let _ = self.tx.send((Some(n), json));
    }

    fn update_lobby(&self) {
        let open = self.row.status == Status::Open && self.row.listed;
        let creator = self.players.iter().flatten().next();
        let entry = match (open, creator) {
            // A game waits in the lobby while its creator is there to play it; a
            // correspondence game waits while they are away.
            (true, Some(creator))
                if self.connected.iter().any(|&c| c > 0) || self.row.days_per_move.is_some() =>
            {
                Some(OpenGame {
                    code: self.row.code.clone(),
                    setup: self.row.setup.clone(),
                    clock: self.row.clock,
                    rated: self.row.rated,
                    creator: creator.info(),
                    joiner_color: match self.row.creator_choice {
                        SeatChoice::Silver => Some(Color::Red),
                        SeatChoice::Red => Some(Color::Silver),
                        SeatChoice::Random => None,
                    },
                    days_per_move: self.row.days_per_move,
                })
            }
            _ => None,
        };
        self.host
            .set_lobby_entry(&self.row.code, self.row.created_ms, entry);
    }

    async fn join(&mut self, player: PlayerRow, secret_hash: String) -> Result<Color, Refused> {
        if let Some(side) = self.reserved_seat(&player) {
            self.store
                .take_reserved_seat(&self.row.code, self.row.lease.token, side, &secret_hash)
                .await
                .map_err(|e| self.lost(e))?;
            self.row.secrets[side.index()] = Some(secret_hash);
            return Ok(side);
        }
        if self.row.status != Status::Open {
            return Err(Refused::new(
                Refusal::SeatTaken,
                "this game has both its players",
            ));
        }
        let Some(free) = Color::ALL
            .into_iter()
            .find(|c| self.players[c.index()].is_none())
        else {
            return Err(Refused::new(
                Refusal::SeatTaken,
                "this game has both its players",
            ));
        };
        if self.players[free.other().index()]
            .as_ref()
            .is_some_and(|p| p.id == player.id)
        {
            return Err(Refused::new(
                Refusal::SeatTaken,
                "this is your own game: send its code to your opponent",
            ));
        }
        let cap = self.rated_join(&player).await?;
        let n = self.row.event + 1;
        let now = self.host.now_ms();
        if !self
            .store
            .start_game(
                &self.row.code,
                self.row.lease.token,
                &player.id,
                &secret_hash,
                n,
                now,
                cap.as_ref(),
            )
            .await
            .map_err(|e| self.lost(e))?
        {
            return Err(self.not_started(&player, cap.as_ref()).await);
        }
        self.row.players[free.index()] = Some(player.id.clone());
        self.row.secrets[free.index()] = Some(secret_hash);
        self.players[free.index()] = Some(player);
        self.row.status = Status::Playing;
        self.row.started_ms = Some(now);
        self.row.turn_ms = Some(now);
        self.host.not_open(&self.row.code);
        if self.clock_runs() {
            self.turn_started = Some(Instant::now());
        }
        let players = [
            self.players[0].as_ref().map(PlayerRow::info),
            self.players[1].as_ref().map(PlayerRow::info),
        ];
        if let [Some(silver), Some(red)] = players {
            let clocks = self.clocks();
            self.publish(
                n,
                GameEvent::Started {
                    players: [silver, red],
                    clocks,
                    deadline_ms: self.deadline_ms(),
                },
            );
        }
        self.update_lobby();
        Ok(free)
    }

    /// The side of a tournament game that is `player`'s: paired by the tournament, they take
    /// it by their identity, with a new secret (one from another device no longer plays it).
    fn reserved_seat(&self, player: &PlayerRow) -> Option<Color> {
        if self.row.tournament.is_none() || self.row.status == Status::Over {
            return None;
        }
        Color::ALL
            .into_iter()
            .find(|c| self.row.players[c.index()].as_deref() == Some(player.id.as_str()))
    }

    /// A rated game is joined only by a player who has finished enough games, and starts only
    /// while the pair has started fewer rated games than the day's cap: the cap, if any, for
    /// the store to check as the game starts.
    async fn rated_join(&mut self, player: &PlayerRow) -> Result<Option<PairCap>, Refused> {
        if !self.row.rated {
            return Ok(None);
        }
        let policy = self.host.identity_policy();
        if policy.games_before_rated > 0 {
            let finished = self
                .store
                .finished_games(&player.id)
                .await
                .map_err(|e| self.lost(e))?;
            policy.newcomer(finished)?;
        }
        let opponent = self.row.players.iter().flatten().next();
        Ok(match opponent {
            Some(opponent) if policy.rated_per_pair_per_day > 0 => Some(PairCap {
                opponent: opponent.clone(),
                games: policy.rated_per_pair_per_day,
                since_ms: self.host.now_ms().saturating_sub(identity::DAY_MS),
            }),
            _ => None,
        })
    }

    /// Why a join did not start the game: the pair's cap, if it was reached, or the seat taken.
    async fn not_started(&mut self, player: &PlayerRow, cap: Option<&PairCap>) -> Refused {
        if let Some(cap) = cap {
            let started = self
                .store
                .rated_between(&player.id, &cap.opponent, cap.since_ms)
                .await;
            match started {
                Ok(n) if n >= i64::from(cap.games) => {
                    let name = self.players.iter().flatten().next().map_or("", |p| &p.name);
                    return identity::pair_refusal(n, name);
                }
                Ok(_) => {}
                Err(e) => return self.lost(e),
            }
        }
        Refused::new(Refusal::SeatTaken, "this game has both its players")
    }

    fn attach(
        &mut self,
        seat: Option<&str>,
        since: Option<u64>,
        node: Option<String>,
    ) -> Result<Attached, Refused> {
        let you = match seat {
            None => None,
            Some(hash) => Some(
                Color::ALL
                    .into_iter()
                    .find(|c| self.row.secrets[c.index()].as_deref() == Some(hash))
                    .ok_or_else(|| {
                        Refused::new(Refusal::NotYourSeat, "that secret is not this game's")
                    })?,
            ),
        };
        let rx = self.tx.subscribe();
        let mut catch_up: Vec<Out> = match since {
            Some(k) if k == self.row.event => Vec::new(),
            Some(k)
                if k < self.row.event
                    && self
                        .history
                        .front()
                        .is_some_and(|&(first, _)| first <= k + 1) =>
            {
                self.history
                    .iter()
                    .filter(|(n, _)| *n > k)
                    .map(|(n, json)| (Some(*n), json.clone()))
                    .collect()
            }
            _ => {
                let sync = ServerMsg::Sync {
                    event: self.row.event,
                    you,
                    game: self.view(),
                };
                vec![(Some(self.row.event), sync.to_json().into())]
            }
        };
        self.count(you);
        match node {
            None if you.is_none() => catch_up.push((None, self.presence().to_json().into())),
            None => {}
            Some(node) => {
                let attached = Some(Instant::now());
                let entry = RemoteFollower {
                    seat: you,
                    attached,
                };
                self.remote.entry(node).or_default().push(entry);
                // Told live, not in the catch-up: another node's proxy hands its catch-up out
                // after what it got live meanwhile, where an unnumbered presence would overwrite
                // a newer one. A player's attach was told live already.
                if you.is_none() {
                    self.send_presence();
                }
            }
        }
        Ok(Attached { you, rx, catch_up })
    }

    async fn act(&mut self, seat: Color, action: ClientMsg) -> Result<(), Refused> {
        if action == ClientMsg::Resign && self.row.status == Status::Open {
            return self.withdraw().await;
        }
        if self.row.status != Status::Playing || self.game.is_over() {
            let why = if self.row.status == Status::Open {
                "the game has not started: nobody has joined yet"
            } else {
                "the game is over"
            };
            return Err(Refused::new(Refusal::NotNow, why));
        }
        match action {
            ClientMsg::Move { ply, mv } => self.play(seat, ply, &mv).await,
            ClientMsg::OfferDraw => self.offer_draw(seat).await,
            ClientMsg::AcceptDraw => {
                if self.draw_offer != Some(seat.other()) {
                    return Err(Refused::new(
                        Refusal::NotNow,
                        "there is no draw offer to accept",
                    ));
                }
                let mut game = self.game.clone();
                self.end(game.agree_draw()).await
            }
            ClientMsg::DeclineDraw => {
                if self.draw_offer != Some(seat.other()) {
                    return Err(Refused::new(
                        Refusal::NotNow,
                        "there is no draw offer to decline",
                    ));
                }
                self.announce(GameEvent::DrawDeclined { by: seat.other() })
                    .await?;
                self.draw_offer = None;
                Ok(())
            }
            ClientMsg::ClaimRepetition => {
                if self.game.side_to_move() != seat {
                    return Err(Refused::new(
                        Refusal::NotYourTurn,
                        "a repetition is claimed by the player to move",
                    ));
                }
                let mut game = self.game.clone();
                self.end(game.claim_draw()).await
            }
            ClientMsg::Resign => {
                let mut game = self.game.clone();
                self.end(game.resign(seat)).await
            }
            ClientMsg::RequestTakeback => self.request_takeback(seat).await,
            ClientMsg::AcceptTakeback => self.accept_takeback(seat).await,
            ClientMsg::DeclineTakeback => {
                if self.takeback != Some(seat.other()) {
                    return Err(Refused::new(
                        Refusal::NotNow,
                        "there is no take-back to decline",
                    ));
                }
                self.announce(GameEvent::TakebackDeclined { by: seat.other() })
                    .await?;
                self.takeback = None;
                Ok(())
            }
            ClientMsg::ClaimAbandoned { draw } if self.row.days_per_move.is_some() => {
                self.claim_days(seat, draw).await
            }
            ClientMsg::ClaimAbandoned { draw } => {
                let gone = seat.other();
                let away = self.gone_since[gone.index()].map(|t| t.elapsed());
                let grace = self.host.grace();
                if away.is_none_or(|a| a < grace) {
                    return Err(Refused::new(
                        Refusal::NotNow,
                        format!(
                            "your opponent must be gone {} s before you may claim the game",
                            grace.as_secs_f64()
                        ),
                    ));
                }
                let mut game = self.game.clone();
                self.end(game.abandon(gone, draw)).await
            }
            _ => Err(Refused::new(Refusal::NotProtocol, "not a move or a claim")),
        }
    }

    /// Stores an event that changes nothing else stored, then announces it.
    async fn announce(&mut self, event: GameEvent) -> Result<(), Refused> {
        let n = self.row.event + 1;
        self.store
            .set_event(&self.row.code, self.row.lease.token, n)
            .await
            .map_err(|e| self.lost(e))?;
        self.publish(n, event);
        Ok(())
    }

    async fn play(&mut self, seat: Color, ply: u32, mv: &str) -> Result<(), Refused> {
        let at = self.game.turns().len();
        if ply as usize != at {
            return Err(Refused::new(
                Refusal::Stale,
                format!("that move answers ply {ply}, but the game is at ply {at}"),
            ));
        }
        if self.game.side_to_move() != seat {
            return Err(Refused::new(
                Refusal::NotYourTurn,
                "it is your opponent's turn",
            ));
        }
        let mut clocks_ms = self.clocks_ms;
        if let Some(clocks) = self.clocks() {
            if clocks.remaining_ms[seat.index()] == 0 {
                self.flag().await;
                return Err(Refused::new(Refusal::NotNow, "your time ran out"));
            }
            clocks_ms = clocks.remaining_ms;
            if let Some(spec) = self.row.clock {
                clocks_ms[seat.index()] += spec.increment_ms;
            }
        }
        let mut game = self.game.clone();
        let text = match game.play_text(mv) {
            Ok(turn) => turn.mv.to_string(),
            Err(e) => return Err(Refused::new(Refusal::Illegal, format!("{mv}: {e}"))),
        };
        let n = self.row.event + 1;
        let token = self.row.lease.token;
        let now = self.host.now_ms();
        self.store
            .add_move(&self.row.code, token, ply, &text, clocks_ms, n, now)
            .await
            .map_err(|e| self.lost(e))?;
        self.row.turn_ms = Some(now);
        self.game = game;
        self.clocks_ms = clocks_ms;
        self.turn_started = self.clock_runs().then(Instant::now);
        self.draw_offer = None;
        self.takeback = None;
        let clocks = self.clocks();
        self.publish(
            n,
            GameEvent::Moved {
                ply,
                mv: text,
                clocks,
                deadline_ms: self.deadline_ms(),
            },
        );
        if let Some(result) = self.game.result()
            && let Err(e) = self.finish(result).await
        {
            // The move is stored; the end will be stored when the room is next loaded.
            tracing::warn!(code = %self.logged(), "{}", e.reason);
        }
        Ok(())
    }

    async fn offer_draw(&mut self, seat: Color) -> Result<(), Refused> {
        if self.draw_offer == Some(seat.other()) {
            let mut game = self.game.clone();
            return self.end(game.agree_draw()).await;
        }
        let ply = self.game.turns().len();
        if self.draw_offer == Some(seat) || self.offered_at[seat.index()] == Some(ply) {
            return Err(Refused::new(
                Refusal::NotNow,
                "you have offered a draw already; one offer a move",
            ));
        }
        self.announce(GameEvent::DrawOffered { by: seat }).await?;
        self.draw_offer = Some(seat);
        self.offered_at[seat.index()] = Some(ply);
        Ok(())
    }

    async fn request_takeback(&mut self, seat: Color) -> Result<(), Refused> {
        if self.row.rated {
            return Err(Refused::new(
                Refusal::NotNow,
                "rated games have no take-backs",
            ));
        }
        if !self.game.turns().iter().any(|t| t.color == seat) {
            return Err(Refused::new(
                Refusal::NotNow,
                "you have no move to take back",
            ));
        }
        if self.takeback.is_some() {
            return Err(Refused::new(
                Refusal::NotNow,
                "a take-back is already asked for",
            ));
        }
        self.announce(GameEvent::TakebackRequested { by: seat })
            .await?;
        self.takeback = Some(seat);
        Ok(())
    }

    async fn accept_takeback(&mut self, seat: Color) -> Result<(), Refused> {
        let Some(asker) = self.takeback.filter(|&a| a == seat.other()) else {
            return Err(Refused::new(
                Refusal::NotNow,
                "there is no take-back to accept",
            ));
        };
        // The asker's last move goes, and the reply to it if there was one.
        let mut game = self.game.clone();
        while let Some(turn) = game.last_turn().map(|t| t.color) {
            let _ = game.undo();
            if turn == asker {
                break;
            }
        }
        let plies = u32::try_from(game.turns().len()).unwrap_or(u32::MAX);
        let clocks_ms = self.clocks().map_or(self.clocks_ms, |c| c.remaining_ms);
        let n = self.row.event + 1;
        let now = self.host.now_ms();
        self.store
            .take_back(
                &self.row.code,
                self.row.lease.token,
                plies,
                clocks_ms,
                n,
                now,
            )
            .await
            .map_err(|e| self.lost(e))?;
        self.row.turn_ms = Some(now);
        self.game = game;
        self.clocks_ms = clocks_ms;
        self.turn_started = self.clock_runs().then(Instant::now);
        self.takeback = None;
        self.draw_offer = None;
        let clocks = self.clocks();
        let deadline_ms = self.deadline_ms();
        self.publish(
            n,
            GameEvent::TakenBack {
                plies,
                clocks,
                deadline_ms,
            },
        );
        Ok(())
    }

    /// Ends the game with what the engine said, or passes on its refusal.
    async fn end(&mut self, result: Result<GameResult, GameError>) -> Result<(), Refused> {
        match result {
            Ok(result) => self.finish(result).await,
            Err(e) => Err(Refused::new(Refusal::NotNow, e.to_string())),
        }
    }

    /// Stores the end (and the new ratings), then announces it.
    async fn finish(&mut self, result: GameResult) -> Result<(), Refused> {
        let clocks_ms = self.clocks().map_or(self.clocks_ms, |c| c.remaining_ms);
        let changes = match self.stored_players().await? {
            Some([silver, red]) if self.row.rated => {
                let changes = rating::after(&silver, &red, result);
                self.players = [Some(silver), Some(red)];
                changes
            }
            _ => Vec::new(),
        };
        // A casual game counts towards playing rated once each side has moved: one resigned at
        // once proves nothing.
        let casual = match (&self.row.players, self.row.rated) {
            ([Some(silver), Some(red)], false) if self.game.turns().len() >= 2 => {
                vec![silver.clone(), red.clone()]
            }
            _ => Vec::new(),
        };
        let n = self.row.event + 1;
        let token = self.row.lease.token;
        self.store
            .finish(
                &self.row.code,
                token,
                result,
                clocks_ms,
                n,
                self.host.now_ms(),
                &changes,
                &casual,
            )
            .await
            .map_err(|e| self.lost(e))?;
        self.game.end_with(result);
        crate::metrics::game_finished();
        tracing::info!(code = %self.logged(), result = %result, "game ended");
        self.clocks_ms = clocks_ms;
        self.turn_started = None;
        self.row.status = Status::Over;
        self.row.result = Some(result);
        self.draw_offer = None;
        self.takeback = None;
        for change in &changes {
            for player in self.players.iter_mut().flatten() {
                if player.id == change.id {
                    player.rating = change.rating;
                    player.games += 1;
                }
            }
        }
        let players = match (&self.players, changes.is_empty()) {
            ([Some(silver), Some(red)], false) => Some([silver.info(), red.info()]),
            _ => None,
        };
        let clocks = self.clocks();
        self.publish(
            n,
            GameEvent::Ended {
                result,
                clocks,
                players,
            },
        );
        Ok(())
    }

    /// Both players as stored now, for a rated game's end: the rows the room was given are
    /// those of the players' hellos, older than any rated game they finished since on the same
    /// connection, and a rating worked out from them would undo those games' changes.
    async fn stored_players(&mut self) -> Result<Option<[PlayerRow; 2]>, Refused> {
        let [Some(silver), Some(red)] = self.row.players.clone() else {
            return Ok(None);
        };
        if !self.row.rated {
            return Ok(None);
        }
        let silver = self.store.player(&silver).await.map_err(|e| self.lost(e))?;
        let red = self.store.player(&red).await.map_err(|e| self.lost(e))?;
        Ok(silver.zip(red).map(|(silver, red)| [silver, red]))
    }

    /// The creator withdraws a game nobody has joined: it is deleted, and its code is unknown
    /// from now on.
    async fn withdraw(&mut self) -> Result<(), Refused> {
        self.store
            .delete_open(&self.row.code, self.row.lease.token)
            .await
            .map_err(|e| self.lost(e))?;
        self.row.status = Status::Over;
        self.update_lobby();
        self.host.not_open(&self.row.code);
        self.host.remove_room(&self.row.code, self.id);
        Ok(())
    }
}
