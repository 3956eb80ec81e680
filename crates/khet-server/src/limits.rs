//! Limits on what one address or one connection may do: requests a minute, sockets open at once
//! and new ones a minute per address, messages a second per connection (governor's token
//! buckets). A client that keeps to the protocol never meets them; a flood is refused and its
//! connection closed. An address is an IPv6 /64 (what one subscriber is given, so one
//! subscriber's countless addresses are one), or an IPv4 address.

use governor::{DefaultDirectRateLimiter, DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The address the limits count `ip` under: its /64 for IPv6, itself for IPv4 (an IPv4-mapped
/// IPv6 address is its IPv4 address).
pub fn key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => IpAddr::V6((u128::from(v6) & !u128::from(u64::MAX)).into()),
        v4 => v4,
    }
}

/// The limits' settings (`khet-server --help` lists them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitSettings {
    /// Sockets one address may have open at once.
    pub sockets_per_address: u32,
    /// New sockets one address may open a minute (after a burst of as many).
    pub connects_per_minute: u32,
    /// Messages one connection may send a second (after a burst of three times as many).
    pub messages_per_second: u32,
    /// Requests (pages, lists, files, socket openings) one address may make a minute (after a
    /// burst of a quarter as many).
    pub requests_per_minute: u32,
    /// Connections open at once, all addresses together.
    pub max_connections: u32,
}

impl Default for LimitSettings {
    /// Enough for a household behind one address with the game open on every computer, and
    /// for a player clicking as fast as anyone can.
    fn default() -> LimitSettings {
        LimitSettings {
            sockets_per_address: 16,
            connects_per_minute: 60,
            messages_per_second: 10,
            // The lobby's page asks every 5 s, a page's load is about ten files: a club room
            // behind one address has room, a script does not.
            requests_per_minute: 600,
            // Far below the unit's LimitNOFILE (16384): the database's and the system's files
            // still open past it.
            max_connections: 10_000,
        }
    }
}

fn nonzero(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN)
}

/// The server's limits, shared by its connections.
pub struct Limits {
    settings: LimitSettings,
    open: Mutex<HashMap<IpAddr, u32>>,
    connects: DefaultKeyedRateLimiter<IpAddr>,
    requests: DefaultKeyedRateLimiter<IpAddr>,
    /// The addresses whose request budget is spent, and until when: what a new connection is
    /// checked against before its request is read (see [`Limits::spent`]).
    spent: Mutex<HashMap<IpAddr, Instant>>,
}

/// One admitted socket; dropping it frees its place.
pub struct Permit {
    limits: Arc<Limits>,
    ip: IpAddr,
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut open = self
            .limits
            .open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(n) = open.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

impl Limits {
    /// Limits with `settings`.
    pub fn new(settings: LimitSettings) -> Arc<Limits> {
        let per_minute = nonzero(settings.connects_per_minute);
        let requests = nonzero(settings.requests_per_minute);
        Arc::new(Limits {
            settings,
            open: Mutex::new(HashMap::new()),
            connects: RateLimiter::keyed(Quota::per_minute(per_minute).allow_burst(per_minute)),
            requests: RateLimiter::keyed(
                Quota::per_minute(requests).allow_burst(nonzero(requests.get() / 4)),
            ),
            spent: Mutex::new(HashMap::new()),
        })
    }

    /// Charges a request from `ip` to its address; past the address's budget, how long until
    /// the next is let through.
    /// The address is then spent until that time: [`Limits::spent`] says so without charging.
    pub fn request(&self, ip: IpAddr) -> Result<(), Duration> {
        use governor::clock::{Clock, DefaultClock};
        let ip = key(ip);
        self.requests.check_key(&ip).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            self.spent
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(ip, Instant::now() + wait);
            wait
        })
    }

    /// If `ip`'s address was refused a request and its budget has not come back yet, how long
    /// until it does; charges nothing. (Governor's buckets have no look without a charge, so
    /// the refusals are remembered: an address is spent from its first refusal until the time
    /// governor gave, and no request could have been let through meanwhile.)
    pub fn spent(&self, ip: IpAddr) -> Option<Duration> {
        let ip = key(ip);
        let mut spent = self
            .spent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let until = *spent.get(&ip)?;
        let left = until.checked_duration_since(Instant::now());
        if left.is_none() {
            spent.remove(&ip);
        }
        left
    }

    /// A place for a new socket from `ip`, or why not.
    pub fn admit(self: &Arc<Limits>, ip: IpAddr) -> Result<Permit, &'static str> {
        let ip = key(ip);
        if self.connects.check_key(&ip).is_err() {
            return Err("too many new connections from your address; wait a minute");
        }
        let mut open = self
            .open
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let n = open.entry(ip).or_insert(0);
        if *n >= self.settings.sockets_per_address {
            return Err("too many connections from your address");
        }
        *n += 1;
        Ok(Permit {
            limits: Arc::clone(self),
            ip,
        })
    }

    /// Forgets addresses that have been quiet a while, so the table does not grow forever
    /// (the server calls it every minute).
    pub fn forget_quiet(&self) {
        self.connects.retain_recent();
        self.requests.retain_recent();
        let now = Instant::now();
        self.spent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .retain(|_, until| *until > now);
    }

    /// A connection's message budget.
    pub fn messages(&self) -> DefaultDirectRateLimiter {
        let per_second = nonzero(self.settings.messages_per_second);
        RateLimiter::direct(
            Quota::per_second(per_second).allow_burst(nonzero(per_second.get().saturating_mul(3))),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_gets_its_sockets_and_no_more_until_one_closes() {
        let limits = Limits::new(LimitSettings {
            sockets_per_address: 2,
            connects_per_minute: 100,
            messages_per_second: 1,
            ..LimitSettings::default()
        });
        let ip: IpAddr = [127, 0, 0, 1].into();
        let a = limits.admit(ip).unwrap();
        let _b = limits.admit(ip).unwrap();
        assert!(limits.admit(ip).is_err());
        assert!(
            limits.admit([127, 0, 0, 2].into()).is_ok(),
            "another address"
        );
        drop(a);
        assert!(limits.admit(ip).is_ok());
        let messages = limits.messages();
        let allowed = (0..10).filter(|_| messages.check().is_ok()).count();
        assert_eq!(allowed, 3, "a burst of three times the rate");
    }

    #[test]
    fn new_connections_are_limited_per_minute() {
        let limits = Limits::new(LimitSettings {
            sockets_per_address: 100,
            connects_per_minute: 5,
            messages_per_second: 1,
            ..LimitSettings::default()
        });
        let ip: IpAddr = [10, 0, 0, 1].into();
        let permits: Vec<_> = (0..10).map(|_| limits.admit(ip)).collect();
        assert_eq!(permits.iter().filter(|p| p.is_ok()).count(), 5);
    }

    #[test]
    fn an_ipv6_slash_64_is_one_address_and_a_mapped_ipv4_its_ipv4() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(
            key(ip("2001:db8:1:2:aaaa::1")),
            key(ip("2001:db8:1:2:bbbb::9"))
        );
        assert_ne!(key(ip("2001:db8:1:2::1")), key(ip("2001:db8:1:3::1")));
        assert_eq!(key(ip("::ffff:198.51.100.4")), ip("198.51.100.4"));
        let limits = Limits::new(LimitSettings {
            requests_per_minute: 8,
            ..LimitSettings::default()
        });
        let served = (0..10)
            .filter(|i| limits.request(ip(&format!("2001:db8::{i}"))).is_ok())
            .count();
        assert_eq!(
            served, 2,
            "a burst of a quarter of the minute's, shared by the /64"
        );
        let wait = limits.request(ip("2001:db8::1")).unwrap_err();
        assert!(
            wait > Duration::ZERO && wait <= Duration::from_secs(8),
            "{wait:?}"
        );
        assert!(limits.request(ip("2001:db8:0:1::1")).is_ok(), "another /64");
    }

    #[test]
    fn an_address_is_spent_from_its_first_refusal_and_looking_charges_nothing() {
        let limits = Limits::new(LimitSettings {
            requests_per_minute: 8,
            ..LimitSettings::default()
        });
        let ip: IpAddr = [10, 0, 0, 1].into();
        assert!(limits.spent(ip).is_none());
        assert!(limits.request(ip).is_ok());
        assert!(limits.spent(ip).is_none(), "a look charges nothing");
        assert!(limits.request(ip).is_ok(), "the burst's second");
        assert!(limits.spent(ip).is_none(), "not refused yet");
        let wait = limits.request(ip).unwrap_err();
        let left = limits.spent(ip).expect("spent");
        assert!(left <= wait && left > Duration::ZERO, "{left:?} {wait:?}");
        assert!(
            limits.spent([10, 0, 0, 2].into()).is_none(),
            "another address"
        );
        assert!(limits.spent("::ffff:10.0.0.1".parse().unwrap()).is_some());
    }
}
