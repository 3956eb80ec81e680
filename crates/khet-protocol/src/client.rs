//! A blocking client of the server: one WebSocket, `hello` answered by `welcome`, then messages
//! both ways. The command line plays with it on its own thread, and the game on one of its own;
//! reconnecting and resynchronising are the caller's (it knows what it has), with
//! [`Backoff`] for the waits.

pub use crate::reach::Backoff;
use crate::{ClientMsg, PlayerInfo, Refusal, ServerMsg, VERSION};
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use rustls::{ClientConfig, RootCertStore};
use std::fmt;
use std::io;
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Connector, Message, WebSocket};

/// How long connecting and the server's `welcome` may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Why talking to the server failed.
#[derive(Debug)]
pub enum ClientError {
    /// The address is not `ws://host:port`.
    Address(String),
    /// The connection failed or was lost.
    Connection(String),
    /// The server refused a message.
    Refused(Refusal, String),
    /// The server said something that is not the protocol.
    Garbled(String),
}

impl ClientError {
    /// Whether trying again later may help (the connection, not the request, failed).
    pub fn is_transient(&self) -> bool {
        matches!(self, ClientError::Connection(_))
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Address(a) => write!(f, "{a}"),
            ClientError::Connection(e) => write!(f, "connection: {e}"),
            ClientError::Refused(_, reason) => write!(f, "the server refused: {reason}"),
            ClientError::Garbled(e) => write!(f, "the server said something unreadable: {e}"),
        }
    }
}

impl std::error::Error for ClientError {}

impl From<tungstenite::Error> for ClientError {
    fn from(e: tungstenite::Error) -> ClientError {
        ClientError::Connection(e.to_string())
    }
}

/// The WebSocket address of a server's base address, and its `host:port`
/// ([`reach::socket_url`](crate::reach::socket_url)).
pub fn socket_url(base: &str) -> Result<(String, String), ClientError> {
    crate::reach::socket_url(base).map_err(ClientError::Address)
}

/// The one more certificate [`trust_certificate`] was given, with the system's roots: the TLS
/// settings of every `wss://` connection of this process, made on first use.
static TLS: std::sync::Mutex<Option<Arc<ClientConfig>>> = std::sync::Mutex::new(None);
static EXTRA: std::sync::Mutex<Option<Vec<CertificateDer<'static>>>> = std::sync::Mutex::new(None);

/// Trusts the certificate(s) in the PEM file `path` for `wss://` from now on, beside the
/// system's roots: a club's server with a certificate it made itself.
pub fn trust_certificate(path: &std::path::Path) -> Result<(), ClientError> {
    let at = |why: String| ClientError::Address(format!("{}: {why}", path.display()));
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| at(e.to_string()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| at(e.to_string()))?;
    if certs.is_empty() {
        return Err(at("no certificate in it (PEM, BEGIN CERTIFICATE)".into()));
    }
    *lock(&EXTRA) = Some(certs);
    *lock(&TLS) = None;
    Ok(())
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The TLS settings: the system's root certificates and the one more trusted.
fn tls() -> Result<Arc<ClientConfig>, ClientError> {
    let mut made = lock(&TLS);
    if let Some(config) = made.as_ref() {
        return Ok(config.clone());
    }
    let mut roots = RootCertStore::empty();
    // A root the system has but rustls cannot read is left out, as browsers do.
    let (_added, _ignored) =
        roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
    for cert in lock(&EXTRA).iter().flatten() {
        roots
            .add(cert.clone())
            .map_err(|e| ClientError::Address(format!("the certificate to trust: {e}")))?;
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| ClientError::Connection(format!("TLS: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    let config = Arc::new(config);
    *made = Some(config.clone());
    Ok(config)
}

/// One connection to the server, after `hello`.
pub struct Connection {
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
    /// Who the server knows this installation as.
    pub player: PlayerInfo,
}

impl Connection {
    /// Connects to the server at `base` (`ws://host:port`) and says hello. `base` may list
    /// several nodes of one service, separated by commas (`ws://a:7878,ws://b:7878`): each is
    /// tried in turn, and the first that answers is used, so that a client whose node died
    /// reconnects to a surviving one.
    pub fn open(base: &str, identity: &str, name: &str) -> Result<Connection, ClientError> {
        let servers: Vec<&str> = base
            .split(',')
            .map(str::trim)
            .filter(|b| !b.is_empty())
            .collect();
        // A wrong address is wrong whatever the others do: said at once.
        for one in &servers {
            socket_url(one)?;
        }
        let mut last = None;
        for one in servers {
            match Connection::open_one(one, identity, name) {
                Ok(conn) => return Ok(conn),
                Err(e) => last = Some(e),
            }
        }
        Err(last.unwrap_or_else(|| ClientError::Address("no server address".into())))
    }

    fn open_one(base: &str, identity: &str, name: &str) -> Result<Connection, ClientError> {
        let (url, host_port) = socket_url(base)?;
        let addr = host_port
            .to_socket_addrs()
            .map_err(|e| ClientError::Connection(format!("{host_port}: {e}")))?
            .next()
            .ok_or_else(|| ClientError::Connection(format!("{host_port}: no address")))?;
        let stream = TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT)
            .map_err(|e| ClientError::Connection(format!("{host_port}: {e}")))?;
        stream
            .set_read_timeout(Some(CONNECT_TIMEOUT))
            .and_then(|()| stream.set_write_timeout(Some(CONNECT_TIMEOUT)))
            .and_then(|()| stream.set_nodelay(true))
            .map_err(|e| ClientError::Connection(e.to_string()))?;
        let connector = if url.starts_with("wss://") {
            Connector::Rustls(tls()?)
        } else {
            Connector::Plain
        };
        let (socket, _) =
            tungstenite::client_tls_with_config(url.as_str(), stream, None, Some(connector))
                .map_err(|e| ClientError::Connection(format!("{url}: {e}")))?;
        let mut conn = Connection {
            socket,
            player: PlayerInfo {
                id: String::new(),
                name: String::new(),
                rating: 0.0,
                deviation: 0.0,
                games: 0,
            },
        };
        conn.send(&ClientMsg::Hello {
            version: VERSION,
            identity: identity.to_string(),
            name: name.to_string(),
            views: false,
        })?;
        let deadline = Instant::now() + CONNECT_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match conn.recv(left)? {
                Some(ServerMsg::Welcome { player, .. }) => {
                    conn.player = player;
                    return Ok(conn);
                }
                Some(ServerMsg::Refused { code, reason }) => {
                    return Err(ClientError::Refused(code, reason));
                }
                Some(_) => {}
                None => {
                    return Err(ClientError::Connection("no answer to hello in time".into()));
                }
            }
        }
    }

    /// The connection under the WebSocket (and its TLS).
    fn tcp(&self) -> &TcpStream {
        match self.socket.get_ref() {
            MaybeTlsStream::Rustls(tls) => tls.get_ref(),
            MaybeTlsStream::Plain(tcp) => tcp,
            // No other kind is built (no native-tls).
            _ => unreachable!("a plain or rustls stream"),
        }
    }

    /// Sends one message.
    pub fn send(&mut self, msg: &ClientMsg) -> Result<(), ClientError> {
        self.socket.send(Message::text(msg.to_json()))?;
        Ok(())
    }

    /// The next message, waiting at most `wait`; `None` if none came in time.
    ///
    /// A read interrupted by a signal is read again: on a socket with a timeout Linux never
    /// restarts one, whatever the handler asked (signal(7)), and a signal to the process (a
    /// child's end, a terminal's resize) says nothing about the connection.
    pub fn recv(&mut self, wait: Duration) -> Result<Option<ServerMsg>, ClientError> {
        let deadline = Instant::now() + wait;
        loop {
            // What is left of the wait, never zero (which would mean no timeout at all).
            let left = deadline
                .saturating_duration_since(Instant::now())
                .max(Duration::from_millis(1));
            self.tcp()
                .set_read_timeout(Some(left))
                .map_err(|e| ClientError::Connection(e.to_string()))?;
            match self.socket.read() {
                Ok(Message::Text(text)) => {
                    return ServerMsg::from_json(text.as_str())
                        .map(Some)
                        .map_err(ClientError::Garbled);
                }
                Ok(Message::Close(frame)) => {
                    let why = frame.map_or_else(String::new, |f| f.reason.to_string());
                    return Err(ClientError::Connection(format!(
                        "closed by the server {why}"
                    )));
                }
                Err(tungstenite::Error::Io(e))
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
                    ) =>
                {
                    return Ok(None);
                }
                // A ping, a pong or a frame's part, or a read a signal interrupted: go on
                // reading while there is time.
                Ok(_) => {}
                Err(tungstenite::Error::Io(e)) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
            if Instant::now() >= deadline {
                return Ok(None);
            }
        }
    }

    /// Closes the connection politely (errors are of no interest then).
    pub fn close(mut self) {
        let _ = self.socket.close(None);
        let _ = self.socket.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_addresses_become_socket_addresses() {
        let url = |s: &str| socket_url(s).map(|(u, h)| format!("{u} {h}"));
        assert_eq!(
            url("ws://127.0.0.1:7878").unwrap(),
            "ws://127.0.0.1:7878/ws 127.0.0.1:7878"
        );
        assert_eq!(
            url("localhost:9/").unwrap(),
            "ws://localhost:9/ws localhost:9"
        );
        assert_eq!(
            url("ws://example.org").unwrap(),
            "ws://example.org/ws example.org:80"
        );
        assert_eq!(
            url("wss://example.org").unwrap(),
            "wss://example.org/ws example.org:443"
        );
        // A game's page, as a friend sends it, names its server.
        assert_eq!(
            url("http://127.0.0.1:7878/play/abcd2345").unwrap(),
            "ws://127.0.0.1:7878/ws 127.0.0.1:7878"
        );
        assert_eq!(
            url("https://example.org/play/abcd2345").unwrap(),
            "wss://example.org/ws example.org:443"
        );
        assert!(url("ftp://example.org").is_err());
        assert!(url("ws://").is_err());
    }

    #[test]
    fn a_list_of_nodes_is_tried_in_turn_and_a_wrong_address_said_at_once() {
        // Nothing listens on these ports of this machine: each is tried, and the last failure
        // is the answer.
        let free = |_| {
            std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .map(|a| a.port())
                .unwrap()
        };
        let [p, q]: [u16; 2] = std::array::from_fn(free);
        let list = format!("ws://127.0.0.1:{p}, ws://127.0.0.1:{q}");
        let identity = "0123456789abcdef0123456789abcdef";
        match Connection::open(&list, identity, "me") {
            Err(ClientError::Connection(why)) => assert!(why.contains(&q.to_string()), "{why}"),
            other => panic!("{:?}", other.err()),
        }
        // A wrong address anywhere in the list is reported before anything is tried.
        let wrong = format!("ws://127.0.0.1:{p},ftp://example.org");
        assert!(matches!(
            Connection::open(&wrong, identity, "me"),
            Err(ClientError::Address(_))
        ));
        assert!(matches!(
            Connection::open(" , ", identity, "me"),
            Err(ClientError::Address(_))
        ));
    }

    #[test]
    fn the_backoff_doubles_to_four_seconds() {
        let mut b = Backoff::default();
        let waits: Vec<u64> = (0..7).map(|_| b.next_wait().as_millis() as u64).collect();
        assert_eq!(waits, [250, 500, 1000, 2000, 4000, 4000, 4000]);
    }
}
