//! The cluster's messages sealed with a secret its nodes share (`--cluster-secret-file`):
//! whoever can publish on the broker (anyone who reaches Redis) cannot speak for a node, and a
//! message heard once cannot be played again.
//!
//! A sealed message is one header line and the message: `k1 NODE MS SEQ MAC`, then a newline
//! and the JSON. `NODE` is the sender, `MS` its clock (Unix milliseconds), `SEQ` its count of
//! messages since it started, and `MAC` HMAC-SHA-256 (RFC 2104) in hexadecimal over the
//! channel it was published on, the header before `MAC`, and the JSON: a message moved to
//! another channel, or changed in any byte, does not verify. A message older (or newer) than
//! [`WINDOW`] by the receiver's clock is dropped, and one heard already within it too.

use hmac::{KeyInit, Mac};
use sha2::Sha256;
use std::collections::{HashSet, VecDeque};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

type HmacSha256 = hmac::Hmac<Sha256>;

/// The fewest bytes a shared secret may have: SHA-256's output, as RFC 2104 advises for a key.
pub const MIN_SECRET_BYTES: usize = 32;

/// How far a message's time may be from the receiver's: the nodes' clocks must agree within
/// it (NTP keeps them within milliseconds), and a message is kept this long to refuse it again.
pub const WINDOW: Duration = Duration::from_secs(30);

/// At most one warning of dropped messages this often, however many are dropped.
const WARN_EVERY: Duration = Duration::from_secs(60);

/// The version of the sealing, first on the header line.
const VERSION: &str = "k1";

/// A value shown as `(hidden)` in `Debug`: secrets and passwords go into settings that are
/// printed when debugging.
#[derive(Clone)]
pub struct Hidden<T>(pub T);

impl<T> std::fmt::Debug for Hidden<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("(hidden)")
    }
}

/// The secret the nodes of a cluster share.
#[derive(Clone, Debug)]
pub struct SharedSecret(Hidden<Vec<u8>>);

impl SharedSecret {
    /// `bytes` as the secret, if long enough.
    pub fn new(bytes: Vec<u8>) -> Result<SharedSecret, String> {
        if bytes.len() < MIN_SECRET_BYTES {
            return Err(format!(
                "the cluster's secret has {} bytes; it needs at least {MIN_SECRET_BYTES} \
                 (e.g. `head -c 48 /dev/urandom | base64 > FILE`)",
                bytes.len()
            ));
        }
        Ok(SharedSecret(Hidden(bytes)))
    }

    /// The content of `file` as the secret, less a final line break.
    pub fn from_file(file: &Path) -> Result<SharedSecret, String> {
        let bytes = read_secret_file(file)?;
        SharedSecret::new(bytes).map_err(|e| format!("{}: {e}", file.display()))
    }

    fn mac(&self) -> HmacSha256 {
        // HMAC takes a key of any length: this cannot fail.
        <HmacSha256 as KeyInit>::new_from_slice(&self.0.0).expect("HMAC takes any key length")
    }
}

/// The content of secret file `file`, less a final line break (as `echo` and editors leave
/// one), at most 4 KiB.
pub fn read_secret_file(file: &Path) -> Result<Vec<u8>, String> {
    let at = |e: std::io::Error| format!("{}: {e}", file.display());
    let meta = std::fs::metadata(file).map_err(at)?;
    if meta.len() > 4096 {
        return Err(format!("{}: more than 4096 bytes", file.display()));
    }
    let mut bytes = std::fs::read(file).map_err(at)?;
    while bytes.last().is_some_and(|b| matches!(b, b'\n' | b'\r')) {
        bytes.pop();
    }
    Ok(bytes)
}

/// Warns (in the log) if `file`, a secret or the settings, may be read by users other than its
/// owner and group: a password or secret there is theirs too. (Unix's permission bits;
/// Windows' rights are lists of users, not read here.)
pub fn warn_if_others_read(file: &Path) {
    #[cfg(not(unix))]
    let _ = file;
    #[cfg(unix)]
    use std::os::unix::fs::PermissionsExt;
    #[cfg(unix)]
    if let Ok(meta) = std::fs::metadata(file)
        && meta.permissions().mode() & 0o004 != 0
    {
        tracing::warn!(
            "{} is readable by every user of this machine; it may hold a password or secret: \
             chmod o-r it",
            file.display()
        );
    }
}

/// The milliseconds since the Unix epoch.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Why a message was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dropped {
    /// No header line of this version (a message not sealed, or sealed otherwise).
    Unsealed,
    /// The MAC does not verify: another secret, or a changed message.
    BadSeal,
    /// Its time is outside [`WINDOW`].
    Stale,
    /// Heard already.
    Replayed,
}

impl std::fmt::Display for Dropped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Dropped::Unsealed => "not sealed",
            Dropped::BadSeal => "a seal that does not verify",
            Dropped::Stale => "too old or from the future",
            Dropped::Replayed => "heard already",
        })
    }
}

/// A message that verified: its sender and its JSON.
#[derive(Debug, PartialEq, Eq)]
pub struct Opened<'a> {
    /// The node that sealed it.
    pub node: &'a str,
    /// The message.
    pub body: &'a str,
}

/// The messages heard within the window, by their MAC, oldest first.
#[derive(Default)]
struct Heard {
    macs: HashSet<[u8; 32]>,
    order: VecDeque<(u64, [u8; 32])>,
}

/// The dropped messages since the last warning.
struct Warned {
    last: Option<Instant>,
    since: u64,
}

/// A node's seal: seals what it sends, opens what it hears.
pub struct Seal {
    secret: SharedSecret,
    node: String,
    sent: AtomicU64,
    heard: Mutex<Heard>,
    warned: Mutex<Warned>,
}

impl Seal {
    /// The seal of node `node` with `secret`.
    pub fn new(secret: SharedSecret, node: &str) -> Seal {
        Seal {
            secret,
            node: node.to_string(),
            sent: AtomicU64::new(0),
            heard: Mutex::new(Heard::default()),
            warned: Mutex::new(Warned {
                last: None,
                since: 0,
            }),
        }
    }

    fn tag(&self, channel: &str, header: &str, body: &str) -> HmacSha256 {
        let mut mac = self.secret.mac();
        for part in [channel, "\n", header, "\n", body] {
            mac.update(part.as_bytes());
        }
        mac
    }

    /// `body`, to be published on `channel`, sealed.
    pub fn seal(&self, channel: &str, body: &str) -> String {
        self.seal_at(channel, body, now_ms())
    }

    fn seal_at(&self, channel: &str, body: &str, ms: u64) -> String {
        let seq = self.sent.fetch_add(1, Ordering::Relaxed);
        let header = format!("{VERSION} {} {ms} {seq}", self.node);
        let mac = self.tag(channel, &header, body).finalize().into_bytes();
        let hex: String = mac.iter().map(|b| format!("{b:02x}")).collect();
        format!("{header} {hex}\n{body}")
    }

    /// The sender and message of `payload`, heard on `channel`, if it verifies, is within the
    /// window and was not heard before.
    pub fn open<'a>(&self, channel: &str, payload: &'a str) -> Result<Opened<'a>, Dropped> {
        self.open_at(channel, payload, now_ms())
    }

    fn open_at<'a>(
        &self,
        channel: &str,
        payload: &'a str,
        now: u64,
    ) -> Result<Opened<'a>, Dropped> {
        let (head, body) = payload.split_once('\n').ok_or(Dropped::Unsealed)?;
        let (header, hex) = head.rsplit_once(' ').ok_or(Dropped::Unsealed)?;
        let mut fields = header.split(' ');
        let (Some(VERSION), Some(node), Some(ms), Some(_seq), None) = (
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
            fields.next(),
        ) else {
            return Err(Dropped::Unsealed);
        };
        let given = unhex(hex).ok_or(Dropped::Unsealed)?;
        // Compared in constant time by the MAC itself.
        self.tag(channel, header, body)
            .verify_slice(&given)
            .map_err(|_| Dropped::BadSeal)?;
        let ms: u64 = ms.parse().map_err(|_| Dropped::Unsealed)?;
        let window = u64::try_from(WINDOW.as_millis()).unwrap_or(u64::MAX);
        if ms.abs_diff(now) > window {
            return Err(Dropped::Stale);
        }
        let mut heard = crate::util::lock(&self.heard);
        while let Some(&(expiry, mac)) = heard.order.front()
            && expiry < now
        {
            heard.order.pop_front();
            heard.macs.remove(&mac);
        }
        if !heard.macs.insert(given) {
            return Err(Dropped::Replayed);
        }
        heard.order.push_back((ms.saturating_add(window), given));
        Ok(Opened { node, body })
    }

    /// Counts a dropped message, and warns of those dropped at most once a [`WARN_EVERY`].
    pub fn dropped(&self, channel: &str, why: Dropped) {
        crate::metrics::cluster_message_dropped();
        let mut warned = crate::util::lock(&self.warned);
        warned.since += 1;
        if warned.last.is_none_or(|t| t.elapsed() >= WARN_EVERY) {
            tracing::warn!(
                dropped = warned.since,
                "broker: dropped {} message(s) not sealed by a node of this cluster (the last \
                 on {channel}: {why}); is another party publishing on this Redis, or a node \
                 given another --cluster-secret-file?",
                warned.since
            );
            warned.last = Some(Instant::now());
            warned.since = 0;
        }
    }
}

/// The bytes of a 64-digit hexadecimal MAC.
fn unhex(hex: &str) -> Option<[u8; 32]> {
    let digits = hex.as_bytes();
    if digits.len() != 64 {
        return None;
    }
    let mut out = [0; 32];
    for (i, pair) in digits.chunks(2).enumerate() {
        let text = std::str::from_utf8(pair).ok()?;
        out[i] = u8::from_str_radix(text, 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seal(node: &str, secret: u8) -> Seal {
        Seal::new(SharedSecret::new(vec![secret; 32]).unwrap(), node)
    }

    /// RFC 4231's test case 2 (a short key, "Jefe"): the MAC is HMAC-SHA-256 itself.
    #[test]
    fn the_mac_is_hmac_sha_256() {
        let mut mac = <HmacSha256 as KeyInit>::new_from_slice(b"Jefe").unwrap();
        mac.update(b"what do ya want for nothing?");
        let hex: String = mac
            .finalize()
            .into_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            hex,
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn a_sealed_message_opens_once_on_its_channel_with_its_secret_in_its_window() {
        let (a, b, stranger) = (seal("a", 1), seal("b", 1), seal("a", 2));
        let sealed = a.seal_at("k:node:b", r#"{"t":"x"}"#, 1_000_000);
        assert_eq!(
            b.open_at("k:node:b", &sealed, 1_000_500),
            Ok(Opened {
                node: "a",
                body: r#"{"t":"x"}"#
            })
        );
        assert_eq!(
            b.open_at("k:node:b", &sealed, 1_000_600),
            Err(Dropped::Replayed)
        );
        let fresh = a.seal_at("k:node:b", r#"{"t":"x"}"#, 1_000_000);
        assert_ne!(fresh, sealed, "each message is numbered");
        assert_eq!(
            b.open_at("k:node:c", &fresh, 1_000_000),
            Err(Dropped::BadSeal),
            "another channel"
        );
        assert_eq!(
            b.open_at("k:node:b", &fresh.replace("\"x\"", "\"y\""), 1_000_000),
            Err(Dropped::BadSeal),
            "a changed message"
        );
        assert_eq!(
            b.open_at("k:node:b", &fresh.replacen(" a ", " c ", 1), 1_000_000),
            Err(Dropped::BadSeal),
            "another sender"
        );
        let forged = stranger.seal_at("k:node:b", r#"{"t":"x"}"#, 1_000_000);
        assert_eq!(
            b.open_at("k:node:b", &forged, 1_000_000),
            Err(Dropped::BadSeal)
        );
        assert_eq!(
            b.open_at("k:node:b", r#"{"t":"x"}"#, 1_000_000),
            Err(Dropped::Unsealed)
        );
        let late = 1_000_000 + u64::try_from(WINDOW.as_millis()).unwrap() + 1;
        assert_eq!(
            b.open_at("k:node:b", &fresh, late),
            Err(Dropped::Stale),
            "too old"
        );
        assert_eq!(
            b.open_at("k:node:b", &fresh, 1_000_000 - 31_000),
            Err(Dropped::Stale),
            "from the future"
        );
        assert!(b.open_at("k:node:b", &fresh, 1_000_000).is_ok());
    }

    #[test]
    fn a_short_secret_is_refused() {
        assert!(SharedSecret::new(vec![7; 31]).is_err());
        assert!(SharedSecret::new(vec![7; 32]).is_ok());
        assert_eq!(
            format!("{:?}", SharedSecret::new(vec![7; 32]).unwrap()),
            "SharedSecret((hidden))"
        );
    }
}
