//! Online play: a game against a person elsewhere, through a Khet server (`khet-server`).
//!
//! The server owns the game; the table shows it. A thread holds the connection ([`link`]); the
//! [`OnlineTable`] keeps the server's game as a [`Mirror`](khet_protocol::Mirror) (each numbered
//! event applied once), and each frame the table is brought to it: the opponent's moves are
//! played at the table in turn, with the same animation, laser and sounds as any move; the
//! player's own moves go to the server as they are made; draws, resignations, take-backs and
//! clocks are the server's, which the table shows (`NewGameSpec::online` tells the table to leave
//! them to this feature). A dropped connection is taken up again with backoff, and the game
//! resynchronised from the last event; a game closed mid-game takes its seat again from the
//! secret kept in `online.ron`.
//!
//! What online play holds ([`Online`], [`LinkState`], the requests, `online.ron`) is in
//! `state`; the connection half (the requests carried out) in `connection`; the pump, which
//! takes in what the link heard, in `pump`; the table half ([`OnlineTable`], the mirror brought
//! to the table, clocks, absence) in `table`. `ui/` holds the Online screen and the table's
//! online notices.

mod connection;
mod host;
mod link;
#[cfg(target_arch = "wasm32")]
mod page;
mod pump;
pub mod seats;
mod state;
mod table;
pub mod ui;

pub use host::{HostPort, Hosting};
pub use state::{LinkState, Online, OnlineFiles, OnlineNotice, OnlineRequest};
pub use table::{Absence, OnlineTable, describe};

use bevy::prelude::*;
use connection::{read_files, requests};
use pump::pump;
use table::{forward_actions, leave_on_new_game, reconcile, send_moves, show_clocks};

pub(super) fn plugin(app: &mut App) {
    trust_club_certificate();
    #[cfg(target_arch = "wasm32")]
    page::plugin(app);
    crate::frames::add_waking_message::<OnlineRequest>(app)
        .init_resource::<OnlineNotice>()
        .init_resource::<HostPort>()
        .add_systems(Startup, read_files)
        .add_systems(OnEnter(crate::screen::Screen::Online), pump::ask_again)
        .add_systems(
            Update,
            (
                host::requests,
                requests,
                pump.run_if(resource_exists::<Online>),
                pump::ask_while_shown.run_if(
                    resource_exists::<Online>.and_then(in_state(crate::screen::Screen::Online)),
                ),
                // These read messages: they run every frame, so that they never find old ones.
                (forward_actions, send_moves, leave_on_new_game),
                (reconcile, show_clocks)
                    .run_if(resource_exists::<OnlineTable>.and_then(crate::table::has_match)),
            )
                .chain()
                .after(crate::table::Flow)
                .in_set(crate::GameSet::Logic),
        );
}

/// `KHET_TRUST_CERT=FILE`: trust the certificate in that PEM file for `wss://` servers, beside
/// the system's roots, as `khet-engine online --trust-cert` does (a club's server with a
/// certificate it made itself; docs/server.md).
fn trust_club_certificate() {
    #[cfg(not(target_arch = "wasm32"))]
    if let Some(path) = std::env::var_os("KHET_TRUST_CERT")
        && let Err(e) = khet_protocol::client::trust_certificate(std::path::Path::new(&path))
    {
        warn!("KHET_TRUST_CERT: {e}");
    }
}
