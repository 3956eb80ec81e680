//! A server run inside another program: the desktop game's *Host on this computer*, for two
//! players in one house or one club room, and the tests that run a server in their own process.
//! It has its own tokio runtime on its own threads (the game has none), its own data folder
//! (locked, as `khet-server`'s is), and it stops when dropped, as `khet-server` does on SIGTERM.

use crate::store::Store;
use crate::{Settings, serve};
use std::net::{IpAddr, SocketAddr};
use std::path::Path;
use std::time::Duration;
use tokio::sync::oneshot;

/// How long dropping a hosted server waits for it to stop: its own bounds (`serving`, and the
/// release of its leases) are shorter.
const STOP_WAIT: Duration = Duration::from_secs(15);

/// A server running in this process.
pub struct Hosted {
    addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    done: Option<tokio::task::JoinHandle<()>>,
    runtime: Option<tokio::runtime::Runtime>,
    _lock: std::fs::File,
}

/// Why a port could not be listened on, in the words a player needs.
fn bind_error(addr: SocketAddr, e: &std::io::Error) -> String {
    let port = addr.port();
    match e.kind() {
        std::io::ErrorKind::AddrInUse => format!(
            "port {port} is taken on this computer (another server, or another game hosting?): \
             choose another port"
        ),
        std::io::ErrorKind::PermissionDenied => {
            format!("port {port} needs the administrator's rights: choose one above 1024")
        }
        std::io::ErrorKind::AddrNotAvailable => {
            format!("{} is not an address of this computer", addr.ip())
        }
        _ => format!("cannot listen on {addr}: {e}"),
    }
}

impl Hosted {
    /// Starts a server listening on `listen`, keeping its games in the SQLite database of
    /// folder `data`; it runs until dropped.
    pub fn start(listen: SocketAddr, data: &Path, settings: Settings) -> Result<Hosted, String> {
        let lock = crate::backup::lock_folder(data)?;
        let listener = std::net::TcpListener::bind(listen).map_err(|e| bind_error(listen, &e))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        listener.set_nonblocking(true).map_err(|e| e.to_string())?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("khet-server")
            .enable_all()
            .build()
            .map_err(|e| format!("the server's threads: {e}"))?;
        let store = runtime
            .block_on(Store::open_folder(data))
            .map_err(|e| format!("{}: {e}", data.display()))?;
        let (stop, stopped) = oneshot::channel::<()>();
        let done = runtime.spawn(async move {
            let listener = match tokio::net::TcpListener::from_std(listener) {
                Ok(listener) => listener,
                Err(e) => return tracing::error!("hosting: {e}"),
            };
            let stop = async {
                let _ = stopped.await;
            };
            if let Err(e) = serve(listener, store, settings, stop).await {
                tracing::error!("hosting: {e}");
            }
        });
        Ok(Hosted {
            addr,
            stop: Some(stop),
            done: Some(done),
            runtime: Some(runtime),
            _lock: lock,
        })
    }

    /// Where it listens (its port, when 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Whether it still serves (it stops only when dropped, or if its database failed at
    /// start).
    pub fn is_running(&self) -> bool {
        self.done.as_ref().is_some_and(|d| !d.is_finished())
    }
}

impl Drop for Hosted {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let (Some(runtime), Some(done)) = (self.runtime.take(), self.done.take()) {
            let _ = runtime.block_on(async { tokio::time::timeout(STOP_WAIT, done).await });
            runtime.shutdown_background();
        }
    }
}

/// This computer's address on its local network, as the others there reach it: the address
/// the system would send from towards the internet (nothing is sent to find it). `None` with no
/// network but the loopback.
pub fn lan_address() -> Option<IpAddr> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    // A documentation address (TEST-NET-1): connecting a UDP socket only picks the route.
    socket.connect("192.0.2.1:9").ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}
