//! *Host on this computer*: the game runs a Khet server itself (the server's own code,
//! `khet_server::host`), listening on the local network, for two players in one house or one
//! club room. The player's own game connects to it; a friend connects to the address shown, or
//! watches in a browser. It stops when the player stops hosting or leaves the game. Its games
//! are kept in the data folder's `hosted/`.

use super::{OnlineNotice, OnlineRequest};
use crate::settings::Settings;
use bevy::prelude::*;
#[cfg(not(target_arch = "wasm32"))]
use khet_server::{
    Settings as HostSettings,
    host::{Hosted, lan_address},
};
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
#[cfg(target_arch = "wasm32")]
use unhosted::{Hosted, Settings as HostSettings, lan_address};

/// A page in a browser can listen on no port: hosting is refused there with the reason.
#[cfg(target_arch = "wasm32")]
mod unhosted {
    use std::net::{IpAddr, SocketAddr};

    pub enum Hosted {}

    /// The server's settings, which a page has no use for.
    #[derive(Default)]
    pub struct Settings {
        _none: (),
    }

    impl Hosted {
        pub fn start(_: SocketAddr, _: &std::path::Path, _: Settings) -> Result<Hosted, String> {
            Err(
                "a page in a browser cannot be a server; the desktop game or khet-server can"
                    .into(),
            )
        }

        pub fn addr(&self) -> SocketAddr {
            match *self {}
        }
    }

    pub fn lan_address() -> Option<IpAddr> {
        None
    }
}

/// The server this game hosts.
#[derive(Resource)]
pub struct Hosting {
    server: Hosted,
    /// This computer's address on its network, if it has one besides the loopback.
    pub lan: Option<IpAddr>,
}

impl Hosting {
    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.server.addr().port()
    }

    /// The address a friend's game connects to (`ws://LAN-ADDRESS:PORT`).
    pub fn address(&self) -> String {
        let ip = self.lan.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
        format!("ws://{}", SocketAddr::new(ip, self.port()))
    }

    /// The page a friend opens in a browser.
    pub fn page(&self) -> String {
        let ip = self.lan.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
        format!("http://{}/", SocketAddr::new(ip, self.port()))
    }

    /// The address this game itself connects to.
    pub fn local(&self) -> String {
        format!("ws://127.0.0.1:{}", self.port())
    }
}

/// Where a hosted server listens and keeps its games: the port the Online screen offers, and
/// the data folder's `hosted/`.
#[derive(Resource)]
pub struct HostPort {
    pub port: u16,
    pub folder: Option<std::path::PathBuf>,
}

impl Default for HostPort {
    fn default() -> HostPort {
        HostPort {
            port: khet_protocol::DEFAULT_PORT,
            folder: crate::files::folder("data").map(|d| d.join("hosted")),
        }
    }
}

/// Starts and stops the hosted server; on start, the player's game connects to it.
pub(super) fn requests(
    mut requests: MessageReader<OnlineRequest>,
    hosting: Option<Res<Hosting>>,
    place: Res<HostPort>,
    mut settings: ResMut<Settings>,
    mut notice: ResMut<OnlineNotice>,
    mut commands: Commands,
) {
    let mut started = None;
    for request in requests.read() {
        match request {
            OnlineRequest::Host(port) if hosting.is_none() && started.is_none() => {
                let Some(data) = &place.folder else {
                    notice.0 = Some("Hosting: this system gives the game no data folder.".into());
                    continue;
                };
                let listen = SocketAddr::new(IpAddr::V4(Ipv4Addr::UNSPECIFIED), *port);
                match Hosted::start(listen, data, HostSettings::default()) {
                    Ok(server) => {
                        let hosted = Hosting {
                            server,
                            lan: lan_address(),
                        };
                        info!("hosting a server on {}", hosted.address());
                        notice.0 = None;
                        settings.online_server = hosted.local();
                        started = Some(hosted);
                    }
                    Err(e) => notice.0 = Some(format!("Hosting: {e}.")),
                }
            }
            OnlineRequest::StopHosting => {
                commands.remove_resource::<Hosting>();
                commands.write_message(OnlineRequest::Disconnect);
            }
            _ => {}
        }
    }
    if let Some(hosted) = started {
        commands.insert_resource(hosted);
        // Read next frame, once the server's address is in the settings.
        commands.write_message(OnlineRequest::Connect);
    }
}
