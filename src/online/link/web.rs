//! The connection to the server in the browser build: the page's own WebSocket. A page has no
//! threads to block, so the socket's callbacks do what the desktop's connection thread does
//! (`thread.rs`): say hello, pass messages both ways, wake the game's loop, and after a lost
//! connection try again with backoff until the game lets go. The same [`Link`] and [`FromLink`]
//! as on the desktop, so the rest of the feature does not know which it has.
//!
//! A page runs on one thread: the socket and its callbacks live in a thread-local table, keyed
//! by the link's number; the [`Link`] holds the number and the channel the callbacks fill.

use super::FromLink;
use crate::frames::Waker;
use khet_protocol::reach::{Backoff, socket_url};
use khet_protocol::{ClientMsg, ServerMsg, VERSION};
use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, Sender, channel};
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{CloseEvent, MessageEvent, WebSocket};

/// The game's end of the connection.
pub struct Link {
    id: u64,
    from: Mutex<Receiver<FromLink>>,
}

/// The server is pinged this often, so that it knows we are here.
const PING_EVERY_MS: i32 = 8_000;

/// One link's socket and what its callbacks need.
struct Socket {
    servers: Vec<String>,
    /// The server tried next (the list is tried in turn, as on the desktop).
    next: usize,
    identity: String,
    name: String,
    tell: Sender<FromLink>,
    waker: Waker,
    backoff: Backoff,
    ever_connected: bool,
    /// The socket of the attempt under way, and whether it has been welcomed.
    ws: Option<WebSocket>,
    welcomed: bool,
    /// Messages the game sent while there was no welcomed socket: sent once there is.
    waiting: VecDeque<ClientMsg>,
    /// The callbacks, kept alive as long as the link.
    opened: Option<Closure<dyn FnMut()>>,
    callbacks: Vec<Closure<dyn FnMut(MessageEvent)>>,
    closed: Vec<Closure<dyn FnMut(CloseEvent)>>,
    timers: Vec<Closure<dyn FnMut()>>,
    ping: Option<i32>,
}

thread_local! {
    static SOCKETS: RefCell<HashMap<u64, Socket>> = RefCell::new(HashMap::new());
    static NEXT_ID: RefCell<u64> = const { RefCell::new(0) };
}

impl Link {
    /// Connects to `server` (one address, or several separated by commas) as `identity` named
    /// `name`.
    pub fn start(server: String, identity: String, name: String, waker: Waker) -> Link {
        let (tell, from) = channel();
        let id = NEXT_ID.with_borrow_mut(|n| {
            *n += 1;
            *n
        });
        let servers: Vec<String> = server
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        let wrong = servers.iter().find_map(|s| socket_url(s).err());
        let link = Link {
            id,
            from: Mutex::new(from),
        };
        if let Some(why) = wrong.or_else(|| servers.is_empty().then(|| "no server address".into()))
        {
            let _ = tell.send(FromLink::Failed(why));
            waker.wake();
            return link;
        }
        SOCKETS.with_borrow_mut(|all| {
            all.insert(
                id,
                Socket {
                    servers,
                    next: 0,
                    identity,
                    name,
                    tell,
                    waker,
                    backoff: Backoff::default(),
                    ever_connected: false,
                    ws: None,
                    welcomed: false,
                    waiting: VecDeque::new(),
                    opened: None,
                    callbacks: Vec::new(),
                    closed: Vec::new(),
                    timers: Vec::new(),
                    ping: None,
                },
            )
        });
        connect(id);
        link
    }

    /// Sends a message now, or once connected (dropped if the link has stopped: the game shows
    /// that it has).
    pub fn send(&self, msg: ClientMsg) {
        SOCKETS.with_borrow_mut(|all| {
            let Some(s) = all.get_mut(&self.id) else {
                return;
            };
            match (&s.ws, s.welcomed) {
                (Some(ws), true) => {
                    let _ = ws.send_with_str(&msg.to_json());
                }
                _ => s.waiting.push_back(msg),
            }
        });
    }

    /// What has arrived since the last call.
    pub fn drain(&self) -> Vec<FromLink> {
        super::drain(&self.from)
    }
}

impl Drop for Link {
    /// The game let go: the socket is closed and no attempt follows.
    fn drop(&mut self) {
        let gone = SOCKETS.with_borrow_mut(|all| all.remove(&self.id));
        if let Some(s) = gone {
            stop_socket(&s);
        }
    }
}

fn stop_socket(s: &Socket) {
    if let Some(ws) = &s.ws {
        ws.set_onopen(None);
        ws.set_onmessage(None);
        ws.set_onclose(None);
        let _ = ws.close();
    }
    if let (Some(ping), Some(w)) = (s.ping, web_sys::window()) {
        w.clear_interval_with_handle(ping);
    }
}

/// Tells the game, waking its loop.
fn tell(s: &Socket, m: FromLink) {
    let _ = s.tell.send(m);
    s.waker.wake();
}

/// Opens a socket to the next server; its callbacks carry the link on.
fn connect(id: u64) {
    SOCKETS.with_borrow_mut(|all| {
        let Some(s) = all.get_mut(&id) else { return };
        let base = s.servers[s.next % s.servers.len()].clone();
        s.next += 1;
        let Ok((url, _)) = socket_url(&base) else {
            return;
        };
        let ws = match WebSocket::new(&url) {
            Ok(ws) => ws,
            Err(e) => {
                tell(s, FromLink::Failed(format!("{url}: {e:?}")));
                return;
            }
        };
        let hello = ClientMsg::Hello {
            version: VERSION,
            identity: s.identity.clone(),
            name: s.name.clone(),
            views: false,
        }
        .to_json();
        let opened = Closure::<dyn FnMut()>::new(move || {
            SOCKETS.with_borrow(|all| {
                if let Some(ws) = all.get(&id).and_then(|s| s.ws.as_ref()) {
                    let _ = ws.send_with_str(&hello);
                }
            });
        });
        ws.set_onopen(Some(opened.as_ref().unchecked_ref()));
        let message = Closure::<dyn FnMut(MessageEvent)>::new(move |e: MessageEvent| {
            if let Some(text) = e.data().as_string() {
                received(id, &text);
            }
        });
        ws.set_onmessage(Some(message.as_ref().unchecked_ref()));
        let close = Closure::<dyn FnMut(CloseEvent)>::new(move |e: CloseEvent| {
            lost(id, &e.reason());
        });
        ws.set_onclose(Some(close.as_ref().unchecked_ref()));
        s.callbacks = vec![message];
        s.opened = Some(opened);
        s.closed = vec![close];
        s.ws = Some(ws);
        s.welcomed = false;
    });
}

/// A message from the server: the welcome, a refusal of the hello, or one for the game.
fn received(id: u64, text: &str) {
    SOCKETS.with_borrow_mut(|all| {
        let Some(s) = all.get_mut(&id) else { return };
        let msg = match ServerMsg::from_json(text) {
            Ok(msg) => msg,
            Err(e) => {
                warn_console(&format!("the server said something unreadable: {e}"));
                return;
            }
        };
        if s.welcomed {
            if !matches!(msg, ServerMsg::Pong) {
                tell(s, FromLink::Msg(Box::new(msg)));
            }
            return;
        }
        match msg {
            ServerMsg::Welcome { player, .. } => {
                s.welcomed = true;
                s.ever_connected = true;
                s.backoff = Backoff::default();
                tell(s, FromLink::Connected(player));
                if let Some(ws) = &s.ws {
                    while let Some(m) = s.waiting.pop_front() {
                        let _ = ws.send_with_str(&m.to_json());
                    }
                }
                start_ping(id, s);
            }
            ServerMsg::Refused { reason, .. } => {
                tell(s, FromLink::Failed(format!("the server refused: {reason}")));
                stop_socket(s);
                s.ws = None;
            }
            _ => {}
        }
    });
}

fn start_ping(id: u64, s: &mut Socket) {
    if s.ping.is_some() {
        return;
    }
    let ping = Closure::<dyn FnMut()>::new(move || {
        SOCKETS.with_borrow(|all| {
            if let Some(s) = all.get(&id)
                && s.welcomed
                && let Some(ws) = &s.ws
            {
                let _ = ws.send_with_str(&ClientMsg::Ping.to_json());
            }
        });
    });
    if let Some(w) = web_sys::window() {
        s.ping = w
            .set_interval_with_callback_and_timeout_and_arguments_0(
                ping.as_ref().unchecked_ref(),
                PING_EVERY_MS,
            )
            .ok();
    }
    s.timers.push(ping);
}

/// The socket closed: tried again after a wait if it had ever been welcomed, or if another
/// server of the list is left to try; else the link has failed.
fn lost(id: u64, reason: &str) {
    SOCKETS.with_borrow_mut(|all| {
        let Some(s) = all.get_mut(&id) else { return };
        let Some(ws) = s.ws.take() else { return };
        let why = if reason.is_empty() {
            format!("connection: {} closed", ws.url())
        } else {
            format!("connection: closed by the server {reason}")
        };
        s.welcomed = false;
        let untried = s.next < s.servers.len();
        if !s.ever_connected && !untried {
            tell(s, FromLink::Failed(why));
            return;
        }
        if s.ever_connected {
            tell(s, FromLink::Lost(why));
        }
        let wait = if untried {
            0
        } else {
            s.backoff.next_wait().as_millis() as i32
        };
        let again = Closure::<dyn FnMut()>::new(move || connect(id));
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(
                again.as_ref().unchecked_ref(),
                wait,
            );
        }
        // Kept until the link is dropped: a few bytes a reconnection.
        s.timers.push(again);
    });
}

fn warn_console(text: &str) {
    web_sys::console::warn_1(&text.into());
}
