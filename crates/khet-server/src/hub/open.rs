//! Open games (created, waiting for an opponent) counted by their creator and the creator's
//! address, so that nobody fills the server with them: each is a stored row and a running room.
//! A create past either cap is refused before it costs anything; an open game whose creator has
//! been gone a while is withdrawn by its room (`Room::withdraw_deadline`).
//!
//! The counts are this node's: on a node among several, a creator could reach each node's cap.

use super::Hub;
use crate::messages::Refused;
use crate::util::lock;
use khet_protocol::Refusal;
use std::collections::HashMap;
use std::net::IpAddr;
use std::time::Duration;

/// The bounds on open games (`khet-server --help` lists them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OpenGameSettings {
    /// Open games one player (identity) may have at once.
    pub per_player: u32,
    /// Open games the players of one address (an IPv6 /64) may have at once.
    pub per_address: u32,
    /// How long an open game waits for its creator to come back before it is withdrawn; at a
    /// start, open games older than this are withdrawn instead of loaded.
    pub withdraw_after: Duration,
}

impl Default for OpenGameSettings {
    /// A player waits for a few opponents at once; a household or a club behind one address
    /// for some more; a creator who closed the game is not waited for past ten minutes.
    fn default() -> OpenGameSettings {
        OpenGameSettings {
            per_player: 3,
            per_address: 10,
            withdraw_after: Duration::from_secs(600),
        }
    }
}

/// Whose an open game is.
struct Opener {
    player: String,
    /// Unknown for a game loaded from the store (the address is never stored).
    address: Option<IpAddr>,
}

/// This node's open games, and how many each player and address has.
#[derive(Default)]
pub(super) struct Openers {
    games: HashMap<String, Opener>,
    by_player: HashMap<String, u32>,
    by_address: HashMap<IpAddr, u32>,
}

/// What a cap counts of an address: the address, or an IPv6 address's /64 (one household or
/// machine is given a whole /64, and picks addresses in it at will).
pub fn address_key(ip: IpAddr) -> IpAddr {
    // The same key as the edge's limits, so an address is one address everywhere.
    crate::limits::key(ip)
}

fn bump<K: std::hash::Hash + Eq>(map: &mut HashMap<K, u32>, key: K, up: bool) {
    if up {
        *map.entry(key).or_insert(0) += 1;
    } else if let std::collections::hash_map::Entry::Occupied(mut e) = map.entry(key) {
        *e.get_mut() = e.get().saturating_sub(1);
        if *e.get() == 0 {
            e.remove();
        }
    }
}

impl Openers {
    fn add(&mut self, code: &str, opener: Opener) {
        self.remove(code);
        bump(&mut self.by_player, opener.player.clone(), true);
        if let Some(address) = opener.address {
            bump(&mut self.by_address, address, true);
        }
        self.games.insert(code.to_string(), opener);
    }

    fn remove(&mut self, code: &str) {
        if let Some(opener) = self.games.remove(code) {
            bump(&mut self.by_player, opener.player, false);
            if let Some(address) = opener.address {
                bump(&mut self.by_address, address, false);
            }
        }
    }
}

impl Hub {
    /// Whether `player`, from `address`, may open one more game; the refusal says why not.
    pub(super) fn may_open(&self, player: &str, address: Option<IpAddr>) -> Result<(), Refused> {
        let caps = self.inner.open_games;
        let openers = lock(&self.inner.openers);
        let mine = openers.by_player.get(player).copied().unwrap_or(0);
        if mine >= caps.per_player {
            return Err(Refused::new(
                Refusal::NotNow,
                format!(
                    "you have {mine} games waiting for an opponent, as many as this server \
                     allows: withdraw one (resign it) or wait until one is joined"
                ),
            ));
        }
        let from = address
            .map(address_key)
            .and_then(|a| openers.by_address.get(&a).copied())
            .unwrap_or(0);
        if from >= caps.per_address {
            return Err(Refused::new(
                Refusal::NotNow,
                format!(
                    "{from} games from your address wait for an opponent, as many as this \
                     server allows: withdraw one (resign it) or wait until one is joined"
                ),
            ));
        }
        Ok(())
    }

    /// Counts game `code`, just opened (or loaded open) by `player` from `address`.
    pub(super) fn opened(&self, code: &str, player: &str, address: Option<IpAddr>) {
        let opener = Opener {
            player: player.to_string(),
            address: address.map(address_key),
        };
        lock(&self.inner.openers).add(code, opener);
    }

    /// Game `code` no longer waits here: it started, was withdrawn, or its room ended.
    pub fn not_open(&self, code: &str) {
        lock(&self.inner.openers).remove(code);
    }

    /// How many games of this node wait for an opponent, listed or not.
    pub fn waiting_games(&self) -> usize {
        lock(&self.inner.openers).games.len()
    }

    /// How long an open game waits for its creator to come back.
    pub fn withdraw_after(&self) -> Duration {
        self.inner.open_games.withdraw_after
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_address_counts_as_its_slash_64_and_a_mapped_one_as_ipv4() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:ffff:1:2:3".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(address_key(a), address_key(b));
        assert_ne!(address_key(a), address_key(c));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(address_key(mapped), "192.0.2.7".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn counts_follow_games_opened_and_closed() {
        let mut o = Openers::default();
        let ip: IpAddr = "192.0.2.1".parse().unwrap();
        for code in ["a", "b", "b"] {
            let opener = Opener {
                player: "p".into(),
                address: Some(ip),
            };
            o.add(code, opener);
        }
        assert_eq!(o.by_player.get("p"), Some(&2));
        assert_eq!(o.by_address.get(&ip), Some(&2));
        o.remove("a");
        o.remove("a");
        o.remove("b");
        assert!(o.by_player.is_empty() && o.by_address.is_empty() && o.games.is_empty());
    }
}
