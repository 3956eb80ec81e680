//! The connection half of online play: what the Online screen and the table ask of it
//! ([`OnlineRequest`]), the connection and how it stands ([`Online`], [`LinkState`]), why it last
//! ended ([`OnlineNotice`]), `online.ron` ([`OnlineFiles`]), and the pump that takes what the
//! link's thread heard each frame, handing a game's messages to the table half
//! (`super::table`).

use super::link::{FromLink, Link};
use super::seats::{self, OnlineFile, Seat};
use super::table::{Following, OnlineTable, Table, game_message};
use crate::frames::Waker;
use crate::news::News;
use crate::settings::Settings;
use bevy::prelude::*;
use khet_protocol::{ClientMsg, OpenGame, PlayerInfo, ServerMsg};

/// What the Online screen and the table ask of online play.
#[derive(Message, Clone, Debug, PartialEq)]
pub enum OnlineRequest {
    /// Connect to the server in the settings, with the name in the settings.
    Connect,
    /// Close the connection (a game in progress goes on at the server; its clock runs).
    Disconnect,
    /// Send this to the server.
    Send(ClientMsg),
    /// Take one's seat again in game `code` (after a restart of the game).
    Return(String),
    /// Run a server in the game, on this port of every address of the computer, and connect to
    /// it (`host`).
    Host(u16),
    /// Stop the server the game runs.
    StopHosting,
}

/// How the connection stands.
#[derive(Clone, Debug, PartialEq)]
pub enum LinkState {
    Connecting,
    Connected(PlayerInfo),
    /// Lost, and being taken up again: why.
    Lost(String),
}

/// The connection to the server and what it has said outside a game.
#[derive(Resource)]
pub struct Online {
    link: Link,
    pub server: String,
    pub state: LinkState,
    /// The open games, oldest first.
    pub lobby: Vec<OpenGame>,
    /// The best rated players.
    pub leaders: Vec<PlayerInfo>,
    /// The player's own game waiting for an opponent: its code.
    pub waiting: Option<String>,
}

impl Online {
    pub fn send(&self, msg: ClientMsg) {
        self.link.send(msg);
    }
}

/// Why the last connection ended, for the Online screen.
#[derive(Resource, Default, Debug)]
pub struct OnlineNotice(pub Option<String>);

/// The installation's identity and seats, as read at start (`online.ron`).
#[derive(Resource, Default, Debug)]
pub struct OnlineFiles {
    pub file: OnlineFile,
    pub path: Option<std::path::PathBuf>,
}

impl OnlineFiles {
    pub(super) fn save(&self, news: &mut MessageWriter<News>) {
        if let Some(path) = &self.path
            && let Err(e) = self.file.write(path)
        {
            news.write(News::Online(format!("Online: not saved: {e}")));
        }
    }
}

/// Reads `online.ron` at start (unless a test put its own in place).
pub(super) fn read_files(
    present: Option<Res<OnlineFiles>>,
    mut commands: Commands,
    mut news: MessageWriter<News>,
) {
    if present.is_some() {
        return;
    }
    let path = seats::path();
    let (file, notice) = match &path {
        Some(p) => OnlineFile::read(p),
        None => (OnlineFile::default(), None),
    };
    if let Some(n) = notice {
        news.write(News::Damaged(n));
    }
    commands.insert_resource(OnlineFiles { file, path });
}

pub(super) fn requests(
    mut requests: MessageReader<OnlineRequest>,
    online: Option<Res<Online>>,
    settings: Res<Settings>,
    mut files: ResMut<OnlineFiles>,
    waker: Res<Waker>,
    mut notice: ResMut<OnlineNotice>,
    mut news: MessageWriter<News>,
    mut commands: Commands,
) {
    for request in requests.read() {
        match request {
            OnlineRequest::Connect | OnlineRequest::Return(_) if online.is_none() => {
                let name = match khet_protocol::check_name(&settings.online_name) {
                    Ok(name) => name,
                    Err(e) => {
                        notice.0 = Some(format!("Your name: {e}."));
                        continue;
                    }
                };
                match files.file.ensure_identity() {
                    Ok(true) => files.save(&mut news),
                    Ok(false) => {}
                    Err(e) => {
                        notice.0 = Some(e);
                        continue;
                    }
                }
                notice.0 = None;
                let server = settings.online_server.trim().to_string();
                let link = Link::start(
                    server.clone(),
                    files.file.identity.clone(),
                    name,
                    waker.clone(),
                );
                if let OnlineRequest::Return(code) = request
                    && let Some(seat) = files.file.seat(code)
                {
                    link.send(ClientMsg::Play {
                        code: seat.code.clone(),
                        secret: seat.secret.clone(),
                        since: None,
                    });
                }
                commands.insert_resource(Online {
                    link,
                    server,
                    state: LinkState::Connecting,
                    lobby: Vec::new(),
                    leaders: Vec::new(),
                    waiting: None,
                });
            }
            OnlineRequest::Connect => {}
            OnlineRequest::Return(code) => {
                if let (Some(online), Some(seat)) = (&online, files.file.seat(code)) {
                    online.send(ClientMsg::Play {
                        code: seat.code.clone(),
                        secret: seat.secret.clone(),
                        since: None,
                    });
                }
            }
            OnlineRequest::Disconnect => {
                commands.remove_resource::<Online>();
                commands.remove_resource::<OnlineTable>();
            }
            OnlineRequest::Send(msg) => {
                if let Some(online) = &online {
                    online.send(msg.clone());
                }
            }
            OnlineRequest::Host(_) | OnlineRequest::StopHosting => {}
        }
    }
}

pub(super) fn pump(
    mut online: ResMut<Online>,
    mut table: Option<ResMut<OnlineTable>>,
    mut files: ResMut<OnlineFiles>,
    mut notice: ResMut<OnlineNotice>,
    mut news: MessageWriter<News>,
    mut t: Table,
    mut commands: Commands,
) {
    let mut fresh = None;
    for event in online.link.drain() {
        match event {
            FromLink::Connected(player) => {
                news.write(News::Online(format!(
                    "Online: connected to {} as {} ({}).",
                    online.server,
                    player.name,
                    player.rating_text()
                )));
                online.state = LinkState::Connected(player);
                // Take up what we follow again, from the last event we have.
                match table.as_deref().or(fresh.as_ref()) {
                    Some(tab) => online.send(tab.follow_again()),
                    None => online.send(ClientMsg::Lobby),
                }
                online.send(ClientMsg::Leaderboard);
            }
            FromLink::Lost(why) => {
                if !matches!(online.state, LinkState::Lost(_)) {
                    news.write(News::Online(format!(
                        "Online: connection lost ({why}); reconnecting…"
                    )));
                }
                online.state = LinkState::Lost(why);
            }
            FromLink::Failed(why) => {
                news.write(News::Online(format!("Online: {why}")));
                notice.0 = Some(why);
                commands.remove_resource::<Online>();
                return;
            }
            FromLink::Msg(msg) => {
                if let Some(game) = message(*msg, &mut online, &mut files, &mut news) {
                    let mut following = Following {
                        live: table.as_deref_mut(),
                        fresh: &mut fresh,
                    };
                    game_message(
                        game,
                        &mut online,
                        &mut following,
                        &mut files,
                        &mut news,
                        &mut t,
                    );
                }
            }
        }
    }
    if let Some(fresh) = fresh {
        commands.insert_resource(fresh);
    }
}

/// A message from the server outside a game, taken in here; a game's is handed back, for the
/// table half.
fn message(
    msg: ServerMsg,
    online: &mut Online,
    files: &mut OnlineFiles,
    news: &mut MessageWriter<News>,
) -> Option<ServerMsg> {
    match msg {
        ServerMsg::Lobby { games } => online.lobby = games,
        ServerMsg::Leaderboard { players } => online.leaders = players,
        ServerMsg::Seat { code, secret, .. } => {
            files.file.remember(Seat {
                server: online.server.clone(),
                code,
                secret,
                over: false,
            });
            files.save(news);
        }
        ServerMsg::Welcome { .. } | ServerMsg::Pong => {}
        game => return Some(game),
    }
    None
}
