//! The connection to the server: on the desktop a thread of its own (`thread`), in the browser
//! build the page's WebSocket and its callbacks (`web`). Both are a [`Link`] that tells the game
//! what happened as [`FromLink`]s, so the rest of the feature does not know which it has.

use khet_protocol::{PlayerInfo, ServerMsg};
use std::sync::Mutex;
use std::sync::mpsc::Receiver;

#[cfg(not(target_arch = "wasm32"))]
mod thread;
#[cfg(target_arch = "wasm32")]
mod web;

#[cfg(not(target_arch = "wasm32"))]
pub use thread::Link;
#[cfg(target_arch = "wasm32")]
pub use web::Link;

/// What the connection tells the game.
#[derive(Debug)]
pub enum FromLink {
    /// Connected (again), as this player.
    Connected(PlayerInfo),
    /// The connection was lost; it is being tried again.
    Lost(String),
    /// The server cannot be reached or refused us; the connection has stopped.
    Failed(String),
    /// A message from the server (boxed: a whole game is large beside the rest).
    Msg(Box<ServerMsg>),
}

/// What has arrived on `from` since the last call.
fn drain(from: &Mutex<Receiver<FromLink>>) -> Vec<FromLink> {
    let Ok(rx) = from.lock() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    while let Ok(m) = rx.try_recv() {
        out.push(m);
    }
    out
}
