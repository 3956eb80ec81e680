//! What online play holds between frames: what the Online screen and the table ask of it
//! ([`OnlineRequest`]), the connection and how it stands ([`Online`], [`LinkState`]), why it last
//! ended ([`OnlineNotice`]) and `online.ron` ([`OnlineFiles`]). The connection half, the pump and
//! the table half all work on these.

use super::link::Link;
use super::seats::OnlineFile;
use crate::news::News;
use bevy::prelude::*;
use khet_protocol::{ChallengeInfo, ClientMsg, MyGame, OpenGame, PlayerInfo, TournamentView};

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
    pub(super) link: Link,
    pub server: String,
    pub state: LinkState,
    /// The open games, oldest first.
    pub lobby: Vec<OpenGame>,
    /// The best rated players.
    pub leaders: Vec<PlayerInfo>,
    /// The player's own game waiting for an opponent: its code.
    pub waiting: Option<String>,
    /// The player's games at the server, those where it is their move first.
    pub mine: Vec<MyGame>,
    /// The player's challenges waiting for an answer, made and received.
    pub challenges: Vec<ChallengeInfo>,
    /// The listed tournaments, newest first, as the server last said.
    pub tournaments: Vec<khet_protocol::tournament::TournamentEntry>,
    /// The tournament the player opened, as the server last said.
    pub tournament: Option<Box<TournamentView>>,
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
