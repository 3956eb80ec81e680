//! What passes between a game's room (or a proxy of a room on another node, `remote`) and the
//! rest of the server: the commands a room takes, its answers and messages, its refusals, and
//! the little a room asks of the server around it ([`RoomHost`]). A leaf: the hub, the rooms,
//! the proxies and the connections all speak these types, and none of them is needed here.

pub use crate::refused::Refused;
use crate::store::PlayerRow;
use khet_engine::Color;
use khet_protocol::{ClientMsg, OpenGame};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, oneshot};

/// A message for the connections following a game: its event number (none for presence) and
/// its JSON, made once for all of them.
pub type Out = (Option<u64>, Arc<str>);

/// A connection following the game.
pub struct Attached {
    /// The side it plays, if any.
    pub you: Option<Color>,
    /// The game's messages from now on.
    pub rx: broadcast::Receiver<Out>,
    /// What it missed, to send first.
    pub catch_up: Vec<Out>,
}

/// What a player's connections are told apart from any game they follow (`hub::challenges`);
/// sent between nodes too, to the player's connections there.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum Notice {
    /// A challenge made, received or changed: its `ServerMsg::Challenge`, made once.
    Challenge {
        /// The message's JSON.
        json: String,
    },
    /// The player's seat in the game their challenge (or rematch) became: a connection that
    /// plays no other game takes it and follows the game, as after a create.
    Seated {
        /// The game's code.
        code: String,
        /// The side.
        color: Color,
        /// The seat's secret.
        secret: String,
    },
}

/// What a room is asked.
pub enum Command {
    /// Take the free seat.
    Join {
        /// Who.
        player: PlayerRow,
        /// The seat's secret, made by the caller; only its hash is kept.
        secret_hash: String,
        /// The side taken.
        reply: oneshot::Sender<Result<Color, Refused>>,
    },
    /// Follow the game: as a player (with the seat's secret hash) or as a spectator.
    Attach {
        /// The hash of the seat's secret, for a player.
        seat: Option<String>,
        /// The last event the client has.
        since: Option<u64>,
        /// The node the follower is connected to, when not this one: the room keeps it by
        /// node, so that what that node later says of its followers is set against it.
        node: Option<String>,
        /// The answer.
        reply: oneshot::Sender<Result<Attached, Refused>>,
    },
    /// A connection stops following.
    Detach {
        /// The side it played.
        seat: Option<Color>,
        /// The node it was connected to, when not this one: uncounted only if the room still
        /// counts it for that node (a node taken for gone, or a list, may have uncounted it).
        node: Option<String>,
    },
    /// Node `from` says who follows the game through it now (see
    /// `cluster::NodeMsg::Followers`): the room counts them as said, in turn with its attaches
    /// and detaches, so that a detach can never be undone by a count that overtook it.
    Recount {
        /// The node.
        from: String,
        /// Each follower's side (none for a spectator).
        follow: Vec<Option<Color>>,
        /// A follower attached less than this ago stays counted though not said: `from` may
        /// have spoken before the answer to its attach reached it.
        young: Duration,
    },
    /// Node `from` is taken for gone (silent for a lease): its followers stop counting, until
    /// it says otherwise.
    Forget {
        /// The node.
        from: String,
    },
    /// A player acts: a move, an offer, a claim, a resignation (the other messages are not
    /// a room's).
    Act {
        /// The player's side.
        seat: Color,
        /// What they do.
        action: ClientMsg,
        /// Done, or why not.
        reply: oneshot::Sender<Result<(), Refused>>,
    },
    /// The node's renewal of its leases did not cover this game: the room checks the stored
    /// lease, and ends if another node has taken the game (a room of a node that stalled past
    /// its lease writes nothing, but its followers would otherwise wait on it for ever).
    CheckLease,
}

impl Command {
    /// Answers the command with `refused`, if it waits for an answer: for a room or proxy
    /// that ends with commands still queued, so that their clients learn why.
    pub fn refuse(self, refused: Refused) {
        match self {
            Command::Attach { reply, .. } => {
                let _ = reply.send(Err(refused));
            }
            Command::Join { reply, .. } => {
                let _ = reply.send(Err(refused));
            }
            Command::Act { reply, .. } => {
                let _ = reply.send(Err(refused));
            }
            Command::Detach { .. }
            | Command::Recount { .. }
            | Command::Forget { .. }
            | Command::CheckLease => {}
        }
    }
}

/// What a room (or a proxy of one) needs of the server that runs it: the hub, which implements
/// it. Only this, so that a room does not depend on the hub.
pub trait RoomHost: Send + Sync {
    /// How long a player must be gone before the other may claim the game.
    fn grace(&self) -> Duration;

    /// Shows, updates (`Some`) or removes (`None`) game `code`'s open game in the lobby.
    fn set_lobby_entry(&self, code: &str, created_ms: u64, entry: Option<OpenGame>);

    /// Forgets room (or proxy) `id` of game `code`: it ended, or its game was withdrawn.
    fn remove_room(&self, code: &str, id: u64);

    /// Who may play rated, and how often against the same opponent.
    fn identity_policy(&self) -> crate::identity::IdentityPolicy;

    /// How long an open game waits for its creator to come back before it is withdrawn.
    fn withdraw_after(&self) -> Duration;

    /// Game `code` no longer waits for an opponent (it started, or was withdrawn).
    fn not_open(&self, code: &str);

    /// The milliseconds since 1970 as the server's clock says ([`crate::WallClock`]): what
    /// is stored, and what days a move are judged by.
    fn now_ms(&self) -> u64;
}
