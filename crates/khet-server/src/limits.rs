//! Limits on what one address or one connection may do: sockets open at once and new ones a
//! minute per address, messages a second per connection (governor's token buckets). A client
//! that keeps to the protocol never meets them; a flood is refused and its connection closed.

use governor::{DefaultDirectRateLimiter, DefaultKeyedRateLimiter, Quota, RateLimiter};
use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};

/// The limits' settings (`khet-server --help` lists them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LimitSettings {
    /// Sockets one address may have open at once.
    pub sockets_per_address: u32,
    /// New sockets one address may open a minute (after a burst of as many).
    pub connects_per_minute: u32,
    /// Messages one connection may send a second (after a burst of three times as many).
    pub messages_per_second: u32,
}

impl Default for LimitSettings {
    /// Enough for a household behind one address with the game open on every computer, and
    /// for a player clicking as fast as anyone can.
    fn default() -> LimitSettings {
        LimitSettings {
            sockets_per_address: 16,
            connects_per_minute: 60,
            messages_per_second: 10,
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
        Arc::new(Limits {
            settings,
            open: Mutex::new(HashMap::new()),
            connects: RateLimiter::keyed(Quota::per_minute(per_minute).allow_burst(per_minute)),
        })
    }

    /// A place for a new socket from `ip`, or why not.
    pub fn admit(self: &Arc<Limits>, ip: IpAddr) -> Result<Permit, &'static str> {
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
        });
        let ip: IpAddr = [10, 0, 0, 1].into();
        let permits: Vec<_> = (0..10).map(|_| limits.admit(ip)).collect();
        assert_eq!(permits.iter().filter(|p| p.is_ok()).count(), 5);
    }
}
