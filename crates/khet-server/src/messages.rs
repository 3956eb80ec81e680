//! What passes between a game's room (or a proxy of a room on another node, `remote`) and the
//! rest of the server: the commands a room takes, its answers and messages, its refusals, and
//! the little a room asks of the server around it ([`RoomHost`]). A leaf: the hub, the rooms,
//! the proxies and the connections all speak these types, and none of them is needed here.

use crate::store::{PlayerRow, StoreError};
use khet_engine::Color;
use khet_protocol::{ClientMsg, OpenGame, Refusal};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, oneshot};

/// A message for the connections following a game: its event number (none for presence) and
/// its JSON, made once for all of them.
pub type Out = (Option<u64>, Arc<str>);

/// The reason of [`Refused::unavailable`], as the client reads it.
const UNAVAILABLE: &str = "the game's server is not answering; reconnect";

/// A refusal: its code and a sentence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The code.
    pub code: Refusal,
    /// Why, in a sentence.
    pub reason: String,
    /// The game's node is not answering: see [`Refused::unavailable`].
    unavailable: bool,
}

impl Refused {
    /// A refusal with `code` and `reason`.
    pub fn new(code: Refusal, reason: impl Into<String>) -> Refused {
        Refused {
            code,
            reason: reason.into(),
            unavailable: false,
        }
    }

    /// The refusal when the game's node does not answer (or no longer holds the game): the
    /// client's connection is closed instead, so that it reconnects and finds the game where it
    /// is now.
    pub fn unavailable() -> Refused {
        Refused {
            unavailable: true,
            ..Refused::new(Refusal::Storage, UNAVAILABLE)
        }
    }

    /// Whether this is [`Refused::unavailable`].
    pub fn is_unavailable(&self) -> bool {
        self.unavailable
    }
}

impl From<StoreError> for Refused {
    fn from(e: StoreError) -> Refused {
        crate::metrics::failed("storing", &e);
        Refused::new(
            Refusal::Storage,
            "the server could not store that; nothing changed",
        )
    }
}

/// A connection following the game.
pub struct Attached {
    /// The side it plays, if any.
    pub you: Option<Color>,
    /// The game's messages from now on.
    pub rx: broadcast::Receiver<Out>,
    /// What it missed, to send first.
    pub catch_up: Vec<Out>,
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
        /// The answer.
        reply: oneshot::Sender<Result<Attached, Refused>>,
    },
    /// A connection stops following.
    Detach {
        /// The side it played.
        seat: Option<Color>,
    },
    /// A follower on another node, attached before, counts again: its node said it is still
    /// there after this node had stopped counting it (see `cluster::NodeMsg::Followers`).
    /// Counted as an attach is, with nothing to send it.
    Present {
        /// The side it plays.
        seat: Option<Color>,
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

/// What a room (or a proxy of one) needs of the server that runs it: the hub, which implements
/// it. Only this, so that a room does not depend on the hub.
pub trait RoomHost: Send + Sync {
    /// How long a player must be gone before the other may claim the game.
    fn grace(&self) -> Duration;

    /// Shows, updates (`Some`) or removes (`None`) game `code`'s open game in the lobby.
    fn set_lobby_entry(&self, code: &str, created_ms: u64, entry: Option<OpenGame>);

    /// Forgets room (or proxy) `id` of game `code`: it ended, or its game was withdrawn.
    fn remove_room(&self, code: &str, id: u64);
}
