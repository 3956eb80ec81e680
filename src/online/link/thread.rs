//! The connection to the server, on a thread of its own: Bevy's systems never wait on the
//! network. The thread connects, says hello, passes messages both ways over channels, wakes the
//! game's loop when one arrives, and after a lost connection reconnects with backoff until it is
//! told to stop; what to ask for again after a reconnection is the game's (it knows its game).

use super::FromLink;
use crate::frames::Waker;
use khet_protocol::client::{Backoff, ClientError, Connection};
use khet_protocol::{ClientMsg, ServerMsg};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::time::Duration;

/// The game's end of the connection.
pub struct Link {
    to: Sender<ClientMsg>,
    from: Mutex<Receiver<FromLink>>,
}

impl Link {
    /// Starts the thread that connects to `server` as `identity` named `name`.
    pub fn start(server: String, identity: String, name: String, waker: Waker) -> Link {
        let (to, outgoing) = channel();
        let (incoming, from) = channel();
        let spawned = std::thread::Builder::new()
            .name("khet-online".into())
            .spawn(move || run(&server, &identity, &name, &outgoing, &incoming, &waker));
        if let Err(e) = spawned {
            let (tx, rx) = channel();
            let _ = tx.send(FromLink::Failed(format!(
                "no thread for the connection: {e}"
            )));
            return Link {
                to,
                from: Mutex::new(rx),
            };
        }
        Link {
            to,
            from: Mutex::new(from),
        }
    }

    /// Sends a message (dropped if the thread has stopped: the game shows that it has).
    pub fn send(&self, msg: ClientMsg) {
        let _ = self.to.send(msg);
    }

    /// What has arrived since the last call.
    pub fn drain(&self) -> Vec<FromLink> {
        super::drain(&self.from)
    }
}

/// How often the thread looks for messages to send while it waits for the server's.
const POLL: Duration = Duration::from_millis(30);

/// The server is pinged this often when nothing else is said, so that it knows we are here.
const PING_EVERY: Duration = Duration::from_secs(8);

fn run(
    server: &str,
    identity: &str,
    name: &str,
    outgoing: &Receiver<ClientMsg>,
    incoming: &Sender<FromLink>,
    waker: &Waker,
) {
    let tell = |m: FromLink| {
        let alive = incoming.send(m).is_ok();
        waker.wake();
        alive
    };
    let mut backoff = Backoff::default();
    let mut ever_connected = false;
    loop {
        let mut conn = match Connection::open(server, identity, name) {
            Ok(conn) => conn,
            Err(e) if ever_connected && e.is_transient() => {
                if !tell(FromLink::Lost(e.to_string())) {
                    return;
                }
                std::thread::sleep(backoff.next_wait());
                continue;
            }
            Err(e) => {
                tell(FromLink::Failed(e.to_string()));
                return;
            }
        };
        ever_connected = true;
        backoff = Backoff::default();
        if !tell(FromLink::Connected(conn.player.clone())) {
            conn.close();
            return;
        }
        match serve(&mut conn, outgoing, &tell) {
            // The game let go of its end: stop.
            Ok(()) => {
                conn.close();
                return;
            }
            Err(e) => {
                if !tell(FromLink::Lost(e.to_string())) {
                    return;
                }
                std::thread::sleep(backoff.next_wait());
            }
        }
    }
}

/// Passes messages both ways until the connection fails (`Err`) or the game has gone (`Ok`).
fn serve(
    conn: &mut Connection,
    outgoing: &Receiver<ClientMsg>,
    tell: &impl Fn(FromLink) -> bool,
) -> Result<(), ClientError> {
    let mut quiet = std::time::Instant::now();
    loop {
        loop {
            match outgoing.try_recv() {
                Ok(msg) => {
                    conn.send(&msg)?;
                    quiet = std::time::Instant::now();
                }
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return Ok(()),
            }
        }
        if quiet.elapsed() > PING_EVERY {
            conn.send(&ClientMsg::Ping)?;
            quiet = std::time::Instant::now();
        }
        if let Some(msg) = conn.recv(POLL)?
            && !matches!(msg, ServerMsg::Pong)
            && !tell(FromLink::Msg(Box::new(msg)))
        {
            return Ok(());
        }
    }
}
