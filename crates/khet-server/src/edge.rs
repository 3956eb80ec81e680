//! What every request meets before its route: whose it is (the peer's address, or the client's
//! as a proxy the operator trusts says in `X-Forwarded-For`), its address's budget of requests,
//! the WebSockets' rule on the page that opens them (`Origin`), and the security headers on every
//! answer. In one place, so that no route is left without them.

use crate::limits::Limits;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

/// A block of addresses, `ADDR` or `ADDR/PREFIX` (`--trusted-proxy`). An IPv4-mapped IPv6
/// address is its IPv4 address, as the limits key it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Prefix {
    addr: IpAddr,
    len: u8,
}

/// `ip` with all but its first `len` bits cleared.
fn masked(ip: IpAddr, len: u8) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(len)).unwrap_or(0);
            IpAddr::V4((u32::from(v4) & mask).into())
        }
        IpAddr::V6(v6) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(len)).unwrap_or(0);
            IpAddr::V6((u128::from(v6) & mask).into())
        }
    }
}

impl Prefix {
    /// Whether `ip` is in the block.
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        ip.is_ipv4() == self.addr.is_ipv4() && masked(ip, self.len) == self.addr
    }
}

impl FromStr for Prefix {
    type Err = String;

    fn from_str(s: &str) -> Result<Prefix, String> {
        let (addr, len) = match s.trim().split_once('/') {
            Some((addr, len)) => (addr, Some(len)),
            None => (s.trim(), None),
        };
        let given: IpAddr = addr
            .parse()
            .map_err(|_| format!("`{s}` is not an address, ADDR or ADDR/PREFIX"))?;
        let addr = given.to_canonical();
        let bits: u8 = if addr.is_ipv4() { 32 } else { 128 };
        // A mapped address's prefix counts the 96 bits before its IPv4 address.
        let skipped = if given.is_ipv6() && addr.is_ipv4() {
            96
        } else {
            0
        };
        let len = match len {
            None => bits,
            Some(len) => len
                .parse::<u8>()
                .ok()
                .and_then(|l| l.checked_sub(skipped))
                .filter(|l| *l <= bits)
                .ok_or_else(|| format!("`{s}`: the prefix is a number of bits, at most {bits}"))?,
        };
        Ok(Prefix {
            addr: masked(addr, len),
            len,
        })
    }
}

impl fmt::Display for Prefix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.len)
    }
}

/// An `--allow-origin`: `scheme://host[:port]`, lowercase, as browsers send `Origin`.
pub fn parse_origin(s: &str) -> Result<String, String> {
    let origin = s.trim().trim_end_matches('/').to_ascii_lowercase();
    let why = || format!("`{s}` is not an origin: https://HOST or https://HOST:PORT, no path");
    let (scheme, host) = origin.split_once("://").ok_or_else(why)?;
    let fine = |part: &str, extra: &str| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || extra.contains(c))
    };
    if !fine(scheme, "+-.") || !fine(host, "-.:[]_") {
        return Err(why());
    }
    Ok(origin)
}

/// The address a request is from: the peer's, or behind a trusted proxy the right-most address
/// of `X-Forwarded-For` that is not a trusted proxy's (the nearest hop the proxies did not
/// vouch for: what a client writes there itself is further left). A hop that is not an address
/// stops the walk at the last trusted one, so junk costs its sender only a shared budget.
pub fn client_address(peer: IpAddr, headers: &HeaderMap, trusted: &[Prefix]) -> IpAddr {
    let is_trusted = |ip: IpAddr| trusted.iter().any(|p| p.contains(ip));
    let peer = peer.to_canonical();
    if !is_trusted(peer) {
        return peer;
    }
    // Several headers are one list, in order; a header that is not text is one bad hop.
    let mut hops: Vec<Option<&str>> = Vec::new();
    for value in headers.get_all("x-forwarded-for") {
        match value.to_str() {
            Ok(text) => hops.extend(text.split(',').map(Some)),
            Err(_) => hops.push(None),
        }
    }
    let mut nearest = peer;
    for hop in hops.into_iter().rev() {
        let Some(ip) = hop.and_then(parse_hop) else {
            return nearest;
        };
        if !is_trusted(ip) {
            return ip;
        }
        nearest = ip;
    }
    nearest
}

/// One hop of `X-Forwarded-For`: an address, perhaps with a port (`[::1]:80`, `1.2.3.4:80`).
fn parse_hop(hop: &str) -> Option<IpAddr> {
    let hop = hop.trim();
    hop.parse::<IpAddr>()
        .ok()
        .or_else(|| hop.parse::<SocketAddr>().ok().map(|s| s.ip()))
        .or_else(|| hop.strip_prefix('[')?.strip_suffix(']')?.parse().ok())
        .map(|ip| ip.to_canonical())
}

/// Whether a WebSocket may be opened by the page that asks: no `Origin` (a program, not a
/// page: the desktop game, `khet-engine`), this server's own pages (the origin's host is the
/// request's `Host`), or an origin the operator allowed. Any other page would be acting for
/// its visitor with this server: refused.
pub fn origin_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(origin) = headers.get(header::ORIGIN) else {
        return true;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let origin = origin.trim().trim_end_matches('/').to_ascii_lowercase();
    if allowed.contains(&origin) {
        return true;
    }
    let Some((_, host)) = origin.split_once("://") else {
        return false;
    };
    headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .is_some_and(|h| h.trim().eq_ignore_ascii_case(host))
}

/// The pages' Content-Security-Policy: their scripts and style only from their own files (none
/// inline), WebAssembly compiled for the play page's engine, sockets and requests to this
/// server only, and no framing by another site.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; \
     script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; \
     connect-src 'self'; worker-src 'self'; object-src 'none'; base-uri 'none'; \
     form-action 'self'; frame-ancestors 'none'";

/// HSTS, when the server does TLS itself: a year, this host only (the operator's other hosts
/// are not the server's to vouch for).
const HSTS: &str = "max-age=31536000";

/// Puts the security headers on an answer (those its handler set are left as they are).
pub fn secure(headers: &mut HeaderMap, tls: bool) {
    let mut set = |name: HeaderName, value: &'static str| {
        headers
            .entry(name)
            .or_insert(HeaderValue::from_static(value));
    };
    set(header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY);
    set(header::X_CONTENT_TYPE_OPTIONS, "nosniff");
    set(header::X_FRAME_OPTIONS, "DENY");
    // A game's link is its code: no page tells another site where it came from.
    set(header::REFERRER_POLICY, "no-referrer");
    if tls {
        set(header::STRICT_TRANSPORT_SECURITY, HSTS);
    }
}

/// What the edge needs to know.
pub struct Edge {
    pub(crate) trusted: Vec<Prefix>,
    pub(crate) origins: Vec<String>,
    /// The server serves TLS itself: HSTS.
    pub(crate) tls: bool,
    pub(crate) limits: Arc<Limits>,
}

/// The address a request is from, for the handlers (their limits are per address).
#[derive(Clone, Copy, Debug)]
pub struct Client(pub IpAddr);

/// What an address past its request budget is told (here, and before its request is parsed).
pub const TOO_MANY_REQUESTS: &str = "too many requests from your address; wait a little\n";

/// A 429 that says when to come back.
pub fn too_many(wait: Duration, why: &'static str) -> Response {
    crate::metrics::turned_away();
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    (
        StatusCode::TOO_MANY_REQUESTS,
        [(header::RETRY_AFTER, seconds.max(1).to_string())],
        why,
    )
        .into_response()
}

/// Every request: its client found, its address's budget charged (refused with 429 past it),
/// and the security headers put on its answer.
pub async fn guard(State(edge): State<Arc<Edge>>, mut request: Request, next: Next) -> Response {
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::from([0, 0, 0, 0]), |c| c.0.ip());
    let client = client_address(peer, request.headers(), &edge.trusted);
    request.extensions_mut().insert(Client(client));
    let mut response = match edge.limits.request(client) {
        Ok(()) => next.run(request).await,
        Err(wait) => too_many(wait, TOO_MANY_REQUESTS),
    };
    secure(response.headers_mut(), edge.tls);
    response
}

/// The WebSockets' routes: refused (403) to a page of another site.
pub async fn same_origin(State(edge): State<Arc<Edge>>, request: Request, next: Next) -> Response {
    if origin_allowed(request.headers(), &edge.origins) {
        next.run(request).await
    } else {
        crate::metrics::turned_away();
        (
            StatusCode::FORBIDDEN,
            "this server's sockets are not open to pages of other sites\n",
        )
            .into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn prefixes_hold_their_addresses_and_mapped_ones_are_ipv4() {
        let p: Prefix = "10.1.0.0/16".parse().unwrap();
        assert!(p.contains(ip("10.1.200.3")));
        assert!(p.contains(ip("::ffff:10.1.0.9")));
        assert!(!p.contains(ip("10.2.0.1")));
        let one: Prefix = "::ffff:192.0.2.1".parse().unwrap();
        assert_eq!(one.to_string(), "192.0.2.1/32");
        let v6: Prefix = "2001:db8::/32".parse().unwrap();
        assert!(v6.contains(ip("2001:db8:ffff::1")));
        assert!(!v6.contains(ip("10.0.0.1")));
        let all: Prefix = "0.0.0.0/0".parse().unwrap();
        assert!(all.contains(ip("203.0.113.9")));
        for bad in ["10.0.0.1/33", "::/129", "nonsense", "10.0.0.1/x", ""] {
            assert!(bad.parse::<Prefix>().is_err(), "{bad}");
        }
    }

    #[test]
    fn the_client_is_the_right_most_untrusted_hop_behind_a_trusted_proxy() {
        let trusted: Vec<Prefix> =
            vec!["127.0.0.1".parse().unwrap(), "10.0.0.0/8".parse().unwrap()];
        let with = |xff: &[&str]| {
            let mut h = HeaderMap::new();
            for v in xff {
                h.append("x-forwarded-for", HeaderValue::from_str(v).unwrap());
            }
            h
        };
        let proxy = ip("127.0.0.1");
        // What the client wrote itself (left) is passed over.
        let h = with(&["6.6.6.6, 198.51.100.7, 10.0.0.2"]);
        assert_eq!(client_address(proxy, &h, &trusted), ip("198.51.100.7"));
        // Two headers are one list; ports and brackets are read.
        let h = with(&["6.6.6.6", "[2001:db8::7]:443"]);
        assert_eq!(client_address(proxy, &h, &trusted), ip("2001:db8::7"));
        // An untrusted peer's header is ignored.
        let h = with(&["198.51.100.7"]);
        assert_eq!(
            client_address(ip("203.0.113.1"), &h, &trusted),
            ip("203.0.113.1")
        );
        // Junk stops at the nearest trusted hop; no header is the proxy itself.
        let h = with(&["198.51.100.7, junk, 10.0.0.3"]);
        assert_eq!(client_address(proxy, &h, &trusted), ip("10.0.0.3"));
        assert_eq!(client_address(proxy, &HeaderMap::new(), &trusted), proxy);
        assert_eq!(
            client_address(
                ip("::ffff:127.0.0.1"),
                &with(&["::ffff:198.51.100.8"]),
                &trusted
            ),
            ip("198.51.100.8")
        );
    }

    #[test]
    fn sockets_open_to_no_origin_the_own_origin_and_the_allowed_ones() {
        let headers = |origin: Option<&str>| {
            let mut h = HeaderMap::new();
            h.insert(header::HOST, HeaderValue::from_static("khet.example.org"));
            if let Some(o) = origin {
                h.insert(header::ORIGIN, HeaderValue::from_str(o).unwrap());
            }
            h
        };
        let allowed = vec![parse_origin("https://Club.Example.net/").unwrap()];
        assert!(origin_allowed(&headers(None), &allowed));
        assert!(origin_allowed(
            &headers(Some("https://khet.example.org")),
            &allowed
        ));
        assert!(origin_allowed(
            &headers(Some("https://club.example.net")),
            &allowed
        ));
        assert!(!origin_allowed(
            &headers(Some("https://evil.example")),
            &allowed
        ));
        assert!(!origin_allowed(&headers(Some("null")), &allowed));
        assert!(!origin_allowed(
            &headers(Some("https://khet.example.org.evil")),
            &[]
        ));
        assert!(parse_origin("https://x.example/path").is_err());
        assert!(parse_origin("x.example").is_err());
    }
}
