//! A refusal of what a player asked ([`Refused`]): its code and a sentence. Apart from the
//! messages that carry it, since the rules a room and the hub check (identity, rating) refuse
//! too.

use crate::store::StoreError;
use khet_protocol::Refusal;

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
