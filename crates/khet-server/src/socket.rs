//! One client's WebSocket: `hello`, then its commands to the hub and its game's room, and the
//! room's events back. Anything that is not the protocol is refused with a reason; a flood, an
//! oversized frame or a client silent past the ping's patience closes the connection. Nothing
//! a client sends can change a game except through its room's checks.

mod challenges;

use crate::hub::{Director, Hub, Seat};
use crate::limits::{Limits, Permit};
use crate::messages::{Command, Out, Refused};
use axum::extract::ws::{CloseFrame, Message, WebSocket};
use governor::DefaultDirectRateLimiter;
use khet_engine::Color;
use khet_protocol::{ClientMsg, Refusal, ServerMsg, VERSION, check_code, check_name, is_secret};
use std::future::pending;
use std::sync::Arc;
use tokio::sync::{broadcast, mpsc, oneshot, watch};
use tokio::time::{Duration, Instant, interval, timeout};

/// How long a new connection may take to say hello.
const HELLO_WAIT: Duration = Duration::from_secs(10);

/// The server pings every connection this often…
const PING_EVERY: Duration = Duration::from_secs(10);

/// …and closes one it has heard nothing from for this long (a laptop closed, a cable pulled),
/// so that the player's presence is known within a few pings.
const SILENCE_LIMIT: Duration = Duration::from_secs(30);

/// Messages that are not the protocol a connection may send before it is closed.
const BAD_MESSAGES: u32 = 20;

/// The game a connection follows.
struct Follow {
    code: String,
    room: mpsc::Sender<Command>,
    seat: Option<Color>,
    secret: Option<String>,
    rx: broadcast::Receiver<Out>,
    /// The last event number sent to the client.
    last: u64,
}

/// What handling a message asks of the loop.
enum Next {
    Continue,
    Close(&'static str),
}

struct Session {
    socket: WebSocket,
    hub: Hub,
    player: crate::store::PlayerRow,
    follow: Option<Follow>,
    lobby: Option<watch::Receiver<Arc<str>>>,
    budget: DefaultDirectRateLimiter,
    bad: u32,
    heard: Instant,
    /// The page's views of its game, if its hello asked for them.
    views: Option<crate::views::Views>,
    /// The client's address, which the caps on open games count by.
    address: std::net::IpAddr,
    /// The player's notices (their challenges), once the client asked for them.
    notices: Option<broadcast::Receiver<Arc<crate::messages::Notice>>>,
}

/// Serves one connection, from `address`, until it closes. The caps on open games count by
/// it; of it only its network is kept, for a bar's hold ([`crate::identity`]).
pub async fn serve(
    mut socket: WebSocket,
    hub: Hub,
    limits: Arc<Limits>,
    _permit: Permit,
    address: std::net::IpAddr,
) {
    let _counted = crate::metrics::Connection::open();
    let network = crate::identity::network(address);
    let Some((player, views)) = hello(&mut socket, &hub, &network).await else {
        return;
    };
    let mut session = Session {
        socket,
        hub,
        player,
        follow: None,
        lobby: None,
        budget: limits.messages(),
        bad: 0,
        heard: Instant::now(),
        views: views.then(crate::views::Views::default),
        address,
        notices: None,
    };
    session.run().await;
    session.unfollow().await;
    session.stop_listening();
}

async fn refuse_and_close(socket: &mut WebSocket, code: Refusal, reason: &str) {
    crate::metrics::refused(code);
    let _ = socket
        .send(Message::Text(
            ServerMsg::refused(code, reason).to_json().into(),
        ))
        .await;
    close(socket, "").await;
}

/// How long a closing connection is read (and what arrives thrown away) for the client's half
/// of the close.
const CLOSE_WAIT: Duration = Duration::from_secs(2);

/// Closes with the WebSocket's handshake: the close frame, then what the client still sends
/// read and dropped until it closes too (or [`CLOSE_WAIT`] passes). Dropping a socket with
/// unread input makes the system reset it, and the reset can destroy the last messages sent,
/// the refusal that says why among them.
async fn close(socket: &mut WebSocket, why: &'static str) {
    let frame = CloseFrame {
        code: 1008,
        reason: why.into(),
    };
    if socket.send(Message::Close(Some(frame))).await.is_err() {
        return;
    }
    let _ = timeout(CLOSE_WAIT, async {
        while let Some(Ok(message)) = socket.recv().await {
            if matches!(message, Message::Close(_)) {
                break;
            }
        }
    })
    .await;
}

/// Waits for `hello` and answers `welcome`; `None` if the client said anything else. With the
/// player, whether the client asked for views.
async fn hello(
    socket: &mut WebSocket,
    hub: &Hub,
    network: &str,
) -> Option<(crate::store::PlayerRow, bool)> {
    let first = match timeout(HELLO_WAIT, socket.recv()).await {
        Ok(Some(Ok(Message::Text(text)))) => text,
        Ok(Some(Ok(_))) => {
            refuse_and_close(socket, Refusal::NotProtocol, "messages are JSON text").await;
            return None;
        }
        Ok(_) => return None,
        Err(_) => {
            refuse_and_close(socket, Refusal::NoHello, "no hello in time").await;
            return None;
        }
    };
    let (identity, name, views) = match ClientMsg::from_json(first.as_str()) {
        Ok(ClientMsg::Hello {
            version,
            identity,
            name,
            views,
        }) => {
            if version != VERSION {
                let why = format!("this server speaks version {VERSION}, not {version}");
                refuse_and_close(socket, Refusal::Version, &why).await;
                return None;
            }
            (identity, name, views)
        }
        Ok(_) => {
            refuse_and_close(socket, Refusal::NoHello, "say hello first").await;
            return None;
        }
        Err(e) => {
            refuse_and_close(socket, Refusal::NotProtocol, &e).await;
            return None;
        }
    };
    if !is_secret(&identity) {
        let why = "an identity is 32 lowercase hexadecimal digits";
        refuse_and_close(socket, Refusal::BadSecret, why).await;
        return None;
    }
    let name = match check_name(&name) {
        Ok(name) => name,
        Err(e) => {
            refuse_and_close(socket, Refusal::BadName, &e).await;
            return None;
        }
    };
    let player = match hub.player(&identity, &name, Some(network)).await {
        Ok(crate::hub::Admitted::Player(player)) => player,
        Ok(crate::hub::Admitted::Barred(reason)) => {
            let why = format!("the server's operator has barred you: {reason}");
            refuse_and_close(socket, Refusal::Barred, &why).await;
            return None;
        }
        Ok(crate::hub::Admitted::Held(why)) => {
            refuse_and_close(socket, Refusal::Barred, &why).await;
            return None;
        }
        Err(e) => {
            crate::metrics::failed("hello", &e);
            refuse_and_close(
                socket,
                Refusal::Storage,
                "the server cannot store players now",
            )
            .await;
            return None;
        }
    };
    let welcome = ServerMsg::Welcome {
        version: VERSION,
        player: player.info(),
    };
    socket
        .send(Message::Text(welcome.to_json().into()))
        .await
        .ok()?;
    Some((player, views))
}

async fn next_event(follow: &mut Option<Follow>) -> Result<Out, broadcast::error::RecvError> {
    match follow {
        Some(f) => f.rx.recv().await,
        None => pending().await,
    }
}

async fn lobby_changed(lobby: &mut Option<watch::Receiver<Arc<str>>>) -> Option<Arc<str>> {
    match lobby {
        Some(rx) => match rx.changed().await {
            Ok(()) => Some(rx.borrow_and_update().clone()),
            Err(_) => pending().await,
        },
        None => pending().await,
    }
}

impl Session {
    async fn run(&mut self) {
        let mut ping = interval(PING_EVERY);
        loop {
            let next = tokio::select! {
                incoming = self.socket.recv() => match incoming {
                    Some(Ok(message)) => {
                        self.heard = Instant::now();
                        self.incoming(message).await
                    }
                    // A frame over the size limit, a broken stream, or the end.
                    Some(Err(_)) | None => return,
                },
                out = next_event(&mut self.follow) => self.forward(out).await,
                notice = challenges::next_notice(&mut self.notices) => self.notice(notice).await,
                lobby = lobby_changed(&mut self.lobby) => match lobby {
                    Some(json) => self.send(&json).await,
                    None => Next::Continue,
                },
                _ = ping.tick() => {
                    if self.heard.elapsed() > SILENCE_LIMIT {
                        return;
                    }
                    match self.socket.send(Message::Ping(Vec::new().into())).await {
                        Ok(()) => Next::Continue,
                        Err(_) => return,
                    }
                }
            };
            if let Next::Close(why) = next {
                close(&mut self.socket, why).await;
                return;
            }
        }
    }

    async fn send(&mut self, json: &str) -> Next {
        match self.socket.send(Message::Text(json.into())).await {
            Ok(()) => Next::Continue,
            Err(_) => Next::Close("gone"),
        }
    }

    /// Sends a message of the followed game, and the page's view after it if it asked for views.
    async fn send_game(&mut self, json: &str) -> Next {
        if let Next::Close(why) = self.send(json).await {
            return Next::Close(why);
        }
        let now_ms = self.hub.now_ms();
        match self.views.as_mut().and_then(|v| v.after(json, now_ms)) {
            Some(view) => self.send(&view).await,
            None => Next::Continue,
        }
    }

    async fn refuse(&mut self, refused: Refused) -> Next {
        crate::metrics::refused(refused.code);
        self.send(&ServerMsg::refused(refused.code, refused.reason).to_json())
            .await
    }

    async fn incoming(&mut self, message: Message) -> Next {
        if self.hub.is_barred(&self.player.id) {
            let why = "the server's operator has barred you";
            self.refuse(Refused::new(Refusal::Barred, why)).await;
            return Next::Close("barred");
        }
        if matches!(message, Message::Close(_)) {
            return Next::Close("bye");
        }
        // Every message counts, pings and pongs too: each costs the server an answer or a wake.
        if self.budget.check().is_err() {
            return self.flooded().await;
        }
        let text = match message {
            Message::Text(text) => text,
            Message::Binary(_) => return self.bad("messages are JSON text, not binary").await,
            // Pings are answered by the WebSocket itself; pongs only show the client is there.
            _ => return Next::Continue,
        };
        match ClientMsg::from_json(text.as_str()) {
            Ok(msg) => self.command(msg).await,
            Err(e) => self.bad(&e).await,
        }
    }

    async fn flooded(&mut self) -> Next {
        self.refuse(Refused::new(
            Refusal::RateLimited,
            "too many messages; the connection is closed",
        ))
        .await;
        Next::Close("too many messages")
    }

    async fn bad(&mut self, why: &str) -> Next {
        self.bad += 1;
        self.refuse(Refused::new(Refusal::NotProtocol, why)).await;
        if self.bad >= BAD_MESSAGES {
            Next::Close("too many messages that are not the protocol")
        } else {
            Next::Continue
        }
    }

    async fn command(&mut self, msg: ClientMsg) -> Next {
        match msg {
            ClientMsg::Hello { .. } => self.bad("hello was said already").await,
            ClientMsg::Ping => self.send(&ServerMsg::Pong.to_json()).await,
            ClientMsg::Lobby => {
                let mut rx = self.hub.lobby();
                let json = rx.borrow_and_update().clone();
                self.lobby = Some(rx);
                self.send(&json).await
            }
            ClientMsg::Leaderboard => match self.hub.store().leaderboard(100).await {
                Ok(rows) => {
                    let players = rows.iter().map(crate::store::PlayerRow::info).collect();
                    self.send(&ServerMsg::Leaderboard { players }.to_json())
                        .await
                }
                Err(e) => self.refuse(e.into()).await,
            },
            ClientMsg::Leave => {
                self.unfollow().await;
                Next::Continue
            }
            ClientMsg::Create(new) => {
                let seat = self
                    .hub
                    .create(&self.player, &new, Some(self.address))
                    .await;
                self.seated(seat).await
            }
            ClientMsg::Join { code } => {
                let seat = match check_code(&code) {
                    Ok(code) => self.hub.join(&code, &self.player).await,
                    Err(e) => Err(Refused::new(Refusal::UnknownGame, e)),
                };
                self.seated(seat).await
            }
            ClientMsg::Seek { clock, rated } => {
                let from = Some(self.address);
                let seat = self.hub.seek(&self.player, clock, rated, from).await;
                self.seated(seat).await
            }
            ClientMsg::Play {
                code,
                secret,
                since,
            } => {
                if !is_secret(&secret) {
                    let why = "a seat's secret is 32 lowercase hexadecimal digits";
                    return self.refuse(Refused::new(Refusal::BadSecret, why)).await;
                }
                let since = self.since(since);
                self.follow(&code, Some(secret), since).await
            }
            ClientMsg::Watch { code, since } => {
                let since = self.since(since);
                self.follow(&code, None, since).await
            }
            ClientMsg::Tournaments => match self.hub.tournament_list().await {
                Ok(tournaments) => {
                    self.send(&ServerMsg::Tournaments { tournaments }.to_json())
                        .await
                }
                Err(e) => self.refuse(e.into()).await,
            },
            ClientMsg::MyGames => match self.hub.my_games(&self.player).await {
                Ok(games) => self.send(&ServerMsg::MyGames { games }.to_json()).await,
                Err(refused) => self.refuse(refused).await,
            },
            ClientMsg::Challenges
            | ClientMsg::Challenge { .. }
            | ClientMsg::AcceptChallenge { .. }
            | ClientMsg::DeclineChallenge { .. }
            | ClientMsg::WithdrawChallenge { .. }
            | ClientMsg::Rematch { .. } => self.challenge_command(msg).await,
            ClientMsg::CreateTournament(_)
            | ClientMsg::JoinTournament { .. }
            | ClientMsg::WithdrawTournament { .. }
            | ClientMsg::StartTournament { .. }
            | ClientMsg::Tournament { .. } => self.tournament(msg).await,
            // The rest are a player's actions at the table, for the game's room.
            action => self.act(action).await,
        }
    }

    /// A tournament's message: each answered with the tournament as it is then.
    async fn tournament(&mut self, msg: ClientMsg) -> Next {
        let hub = &self.hub;
        let by = Director::Player(&self.player);
        let checked =
            |code: &str| check_code(code).map_err(|e| Refused::new(Refusal::UnknownGame, e));
        let answer = match msg {
            ClientMsg::CreateTournament(new) => match hub.create_tournament(&new, by).await {
                Ok(code) => hub.tournament_view(&code).await,
                Err(e) => Err(e),
            },
            ClientMsg::JoinTournament { code } => match checked(&code) {
                Ok(code) => hub.join_tournament(&code, &self.player).await,
                Err(e) => Err(e),
            },
            ClientMsg::WithdrawTournament { code } => match checked(&code) {
                Ok(code) => hub.withdraw_from_tournament(&code, &self.player).await,
                Err(e) => Err(e),
            },
            ClientMsg::StartTournament { code } => match checked(&code) {
                Ok(code) => hub.start_tournament(&code, by).await,
                Err(e) => Err(e),
            },
            ClientMsg::Tournament { code } => match checked(&code) {
                Ok(code) => hub.tournament_view(&code).await,
                Err(e) => Err(e),
            },
            _ => return Next::Continue,
        };
        match answer {
            Ok(view) => {
                let msg = ServerMsg::Tournament {
                    tournament: Box::new(view),
                };
                self.send(&msg.to_json()).await
            }
            Err(refused) => self.refuse(refused).await,
        }
    }

    /// The events a client asks to be sent from: a page with views is sent the whole game,
    /// which its views start from.
    fn since(&self, since: Option<u64>) -> Option<u64> {
        since.filter(|_| self.views.is_none())
    }

    async fn act(&mut self, action: ClientMsg) -> Next {
        let Some((room, seat)) = self
            .follow
            .as_ref()
            .and_then(|f| f.seat.map(|s| (f.room.clone(), s)))
        else {
            let why = "you are not playing a game on this connection";
            return self.refuse(Refused::new(Refusal::NotPlaying, why)).await;
        };
        let arrived = Instant::now();
        let is_move = matches!(action, ClientMsg::Move { .. });
        let (reply, answer) = oneshot::channel();
        let sent = room
            .send(Command::Act {
                seat,
                action,
                reply,
            })
            .await;
        // A room gone under a follower lost its game (another node took it up) or, for a
        // proxy, its owner: the client is told to reconnect, as the room itself would.
        let result = match sent {
            Ok(()) => answer.await.unwrap_or_else(|_| Err(Refused::unavailable())),
            Err(_) => Err(Refused::unavailable()),
        };
        match result {
            Ok(()) => {
                if is_move {
                    crate::metrics::move_played(arrived.elapsed());
                }
                Next::Continue
            }
            Err(refused) => self.refuse(refused).await,
        }
    }

    /// After a create, join or seek: tell the client its seat, then follow the game.
    async fn seated(&mut self, seat: Result<Seat, Refused>) -> Next {
        let seat = match seat {
            Ok(seat) => seat,
            Err(refused) => return self.refuse(refused).await,
        };
        let msg = ServerMsg::Seat {
            code: seat.code.clone(),
            color: Some(seat.color),
            secret: seat.secret.clone(),
        };
        if let Next::Close(why) = self.send(&msg.to_json()).await {
            return Next::Close(why);
        }
        self.follow(&seat.code, Some(seat.secret), None).await
    }

    async fn follow(&mut self, code: &str, secret: Option<String>, since: Option<u64>) -> Next {
        let code = match check_code(code) {
            Ok(code) => code,
            Err(e) => return self.refuse(Refused::new(Refusal::UnknownGame, e)).await,
        };
        self.unfollow().await;
        self.lobby = None;
        if since.is_none()
            && let Some(views) = self.views.as_mut()
        {
            views.reset();
        }
        let (room, attached) = match self.hub.attach(&code, secret.as_deref(), since).await {
            Ok(ok) => ok,
            // The game is between two nodes: the client reconnects and finds it.
            Err(refused) if refused.is_unavailable() => {
                return Next::Close("the game is moving to another server: reconnect");
            }
            Err(refused) => return self.refuse(refused).await,
        };
        let mut follow = Follow {
            code,
            room,
            seat: attached.you,
            secret,
            rx: attached.rx,
            last: since.unwrap_or(0),
        };
        for (n, json) in attached.catch_up {
            if let Some(n) = n {
                follow.last = n;
            }
            if let Next::Close(why) = self.send_game(&json).await {
                self.follow = Some(follow);
                return Next::Close(why);
            }
        }
        self.follow = Some(follow);
        Next::Continue
    }

    async fn unfollow(&mut self) {
        if let Some(f) = self.follow.take() {
            let _ = f
                .room
                .send(Command::Detach {
                    seat: f.seat,
                    node: None,
                })
                .await;
        }
    }

    async fn forward(&mut self, out: Result<Out, broadcast::error::RecvError>) -> Next {
        match out {
            Ok((n, json)) => {
                if let (Some(n), Some(f)) = (n, self.follow.as_mut()) {
                    if n <= f.last {
                        return Next::Continue;
                    }
                    if n > f.last + 1 {
                        // A message lost on the way from another node: follow again from the
                        // last one sent, and the room sends what is missing.
                        let (code, secret, last) = (f.code.clone(), f.secret.clone(), f.last);
                        return self.follow(&code, secret, Some(last)).await;
                    }
                    f.last = n;
                }
                self.send_game(&json).await
            }
            Err(broadcast::error::RecvError::Lagged(_)) => {
                // Too slow to keep up: follow again from the last event sent.
                let Some(f) = self.follow.as_ref() else {
                    return Next::Continue;
                };
                let (code, secret, last) = (f.code.clone(), f.secret.clone(), f.last);
                self.follow(&code, secret, Some(last)).await
            }
            Err(broadcast::error::RecvError::Closed) => {
                // The room ended under a follower: another node took the game over (or its
                // owner stopped answering). The client reconnects and finds it there.
                self.follow = None;
                Next::Close("the game moved to another server: reconnect")
            }
        }
    }
}
