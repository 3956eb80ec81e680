//! What an identity may do, since identities cost nothing: a new one plays rated only after a few
//! finished games, two identities' rated games count a limited number of times a day, and a bar
//! holds new identities from the barred one's networks for a while (docs/server.md, "What the
//! server defends against").

use khet_protocol::Refusal;
use std::net::IpAddr;
use std::time::Duration;

use crate::refused::Refused;

/// A day, the window of [`IdentityPolicy::rated_per_pair_per_day`].
pub const DAY_MS: u64 = 24 * 60 * 60 * 1000;

/// The server's settings for identities (`khet-server --help` lists them; 0 turns each off).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdentityPolicy {
    /// Games an identity must have finished (casual ones with a move from each side, or rated
    /// ones) before it may create, join or seek a rated game.
    pub games_before_rated: u32,
    /// Rated games two identities may start against each other in 24 hours; a join that would
    /// start one more is refused.
    pub rated_per_pair_per_day: u32,
    /// How long a bar holds new identities from the networks its identity was seen on (and how
    /// long the server keeps each identity's networks to know them).
    pub bar_holds_network: Duration,
}

impl Default for IdentityPolicy {
    /// Three casual games is a quarter of an hour's blitz for a real newcomer and a chore for a
    /// farm of identities; three rated games a day against the same opponent is a match, and
    /// more from a pair is what farming looks like. A day's hold outlasts the patience of most
    /// who are barred, and most home addresses change less often.
    fn default() -> IdentityPolicy {
        IdentityPolicy {
            games_before_rated: 3,
            rated_per_pair_per_day: 3,
            bar_holds_network: Duration::from_secs(24 * 60 * 60),
        }
    }
}

impl IdentityPolicy {
    /// The hold in milliseconds (0: bars hold no network, and no network is kept).
    pub fn hold_ms(&self) -> u64 {
        u64::try_from(self.bar_holds_network.as_millis()).unwrap_or(u64::MAX)
    }

    /// The refusal of a rated game to an identity that has finished `finished` games, if it
    /// has not finished enough.
    pub fn newcomer(&self, finished: i64) -> Result<(), Refused> {
        let needed = i64::from(self.games_before_rated);
        if finished >= needed {
            return Ok(());
        }
        let more = needed - finished;
        Err(Refused::new(
            Refusal::NotNow,
            format!(
                "rated games are for players who have finished {needed} game(s) on this server; \
                 play {more} more casual game(s) first"
            ),
        ))
    }
}

/// The refusal of one more rated game against `opponent` (named), with whom the player has
/// started `started` rated games in the last day.
pub fn pair_refusal(started: i64, opponent: &str) -> Refused {
    Refused::new(
        Refusal::NotNow,
        format!(
            "you and {opponent} have played {started} rated game(s) against each other in the \
             last 24 hours, as many as count a day; play a casual game, or a rated one once the \
             first of them is a day old"
        ),
    )
}

/// The network an address stands for: an IPv4 address itself, an IPv6 address's /64 (what one
/// household or one machine is given), as text. The least that tells a barred player's next
/// identity from another's.
pub fn network(ip: IpAddr) -> String {
    match ip.to_canonical() {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let s = v6.segments();
            let prefix = std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0);
            format!("{prefix}/64")
        }
    }
}

/// The refusal of a new identity from a network a bar holds until `until_ms` (now `now_ms`).
pub fn held(until_ms: u64, now_ms: u64) -> String {
    let minutes = until_ms.saturating_sub(now_ms).div_ceil(60_000).max(1);
    let left = if minutes > 90 {
        format!("{} hour(s)", minutes.div_ceil(60))
    } else {
        format!("{minutes} minute(s)")
    };
    format!(
        "a player the server's operator barred connected from your network recently: new \
         players from it are held for {left} more; a player known here may connect"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv4_address_is_its_own_network_and_an_ipv6_one_its_64() {
        assert_eq!(network("203.0.113.7".parse().unwrap()), "203.0.113.7");
        assert_eq!(
            network("::ffff:203.0.113.7".parse().unwrap()),
            "203.0.113.7"
        );
        let a = network("2001:db8:1:2:aaaa::1".parse().unwrap());
        let b = network("2001:db8:1:2:ffff:1:2:3".parse().unwrap());
        assert_eq!(a, "2001:db8:1:2::/64");
        assert_eq!(a, b, "one /64 is one network");
        assert_ne!(a, network("2001:db8:1:3::1".parse().unwrap()));
    }

    #[test]
    fn a_newcomer_is_told_how_many_games_are_left() {
        let policy = IdentityPolicy::default();
        let refused = policy.newcomer(1).unwrap_err();
        assert!(refused.reason.contains("2 more"), "{}", refused.reason);
        assert!(policy.newcomer(3).is_ok());
        let off = IdentityPolicy {
            games_before_rated: 0,
            ..policy
        };
        assert!(off.newcomer(0).is_ok());
        assert!(held(3_600_000 * 5, 0).contains("5 hour(s)"));
        assert!(held(30_000, 0).contains("1 minute(s)"));
    }
}
