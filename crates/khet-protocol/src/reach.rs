//! Reaching a server, whatever the client: its WebSocket address from the address a player gives,
//! and the waits between attempts after a lost connection. The blocking client (`client`) and
//! the game's browser build use both.

use std::time::Duration;

/// The WebSocket address of a server's base address: `ws://host:port` gives
/// `ws://host:port/ws`, `wss://host:port` gives `wss://host:port/ws` (TLS, checked against the
/// system's roots and, in the blocking client, `trust_certificate`'s); `host:port` alone is taken as `ws://host:port`.
/// With its `host:port` (the port 80 or 443 when none is given).
pub fn socket_url(base: &str) -> Result<(String, String), String> {
    let base = base.trim();
    // The address of the server's page (a link a friend sent) names the same server.
    let (scheme, rest, port) = if let Some(rest) = base.strip_prefix("ws://") {
        ("ws", rest, 80)
    } else if let Some(rest) = base.strip_prefix("wss://") {
        ("wss", rest, 443)
    } else if let Some(rest) = base.strip_prefix("http://") {
        ("ws", rest.split('/').next().unwrap_or_default(), 80)
    } else if let Some(rest) = base.strip_prefix("https://") {
        ("wss", rest.split('/').next().unwrap_or_default(), 443)
    } else if base.contains("://") {
        return Err(format!(
            "{base}: a server's address starts with ws://, wss://, http:// or https://"
        ));
    } else {
        ("ws", base, 80)
    };
    let rest = rest.trim_end_matches('/');
    let host = rest.split('/').next().unwrap_or_default();
    if host.is_empty() {
        return Err(format!("{base}: no host"));
    }
    let host_port = if host
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
    {
        host.to_string()
    } else {
        format!("{host}:{port}")
    };
    Ok((format!("{scheme}://{rest}/ws"), host_port))
}

/// Waits between reconnection attempts: 0.25 s doubling to 4 s, so that a server back within
/// seconds is found within seconds, and a server that is down is not hammered.
#[derive(Clone, Debug)]
pub struct Backoff {
    next: Duration,
}

impl Default for Backoff {
    fn default() -> Backoff {
        Backoff {
            next: Duration::from_millis(250),
        }
    }
}

impl Backoff {
    /// The wait before the next attempt.
    pub fn next_wait(&mut self) -> Duration {
        let wait = self.next;
        self.next = (self.next * 2).min(Duration::from_secs(4));
        wait
    }
}
