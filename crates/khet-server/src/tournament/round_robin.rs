//! Round robin by FIDE's Berger tables (the circle method): players numbered by the order given,
//! an empty seat added when their count is odd (whoever meets it rests that round: no game, no
//! point), `n - 1` rounds for `n` seats. Colours alternate as the tables have them, so each
//! player has Silver in half their games, give or take one, and the player of the last seat
//! changes colour every round. A double round robin plays the table again with colours swapped.

use super::{Pairing, PlayerId, Round};

/// Every round of a round robin among `players` (in seat order), all known at the start.
pub(super) fn schedule(players: &[PlayerId], double: bool) -> Vec<Round> {
    let table = berger(players.len());
    let once = table.iter().map(|round| {
        round
            .iter()
            .map(|&(silver, red)| seat(players, silver, red))
            .collect::<Vec<Pairing>>()
    });
    let again = table.iter().map(|round| {
        round
            .iter()
            .map(|&(silver, red)| seat(players, red, silver))
            .collect::<Vec<Pairing>>()
    });
    let mut rounds: Vec<Round> = once.map(|pairings| Round { pairings }).collect();
    if double {
        rounds.extend(again.map(|pairings| Round { pairings }));
    }
    for round in &mut rounds {
        // The rest last, as a Swiss has its bye.
        round.pairings.sort_by_key(|p| !p.is_game());
    }
    rounds
}

/// The pairing of seats `silver` and `red`; a seat past the players is the empty one.
fn seat(players: &[PlayerId], silver: usize, red: usize) -> Pairing {
    match (players.get(silver), players.get(red)) {
        (Some(s), Some(r)) => Pairing::game(s.clone(), r.clone()),
        (Some(alone), None) | (None, Some(alone)) => Pairing::rest(alone.clone()),
        (None, None) => unreachable!("one empty seat"),
    }
}

/// Berger's table for `n` players: each round's boards as (Silver's seat, Red's seat), seats
/// `0..n` and, when `n` is odd, the empty seat `n`.
///
/// With `m = seats - 1` and the last seat fixed, round `r` (from 0) has on its first board the
/// seat `f = r * seats / 2 mod m` against the last seat, the last seat taking Red in even
/// rounds and Silver in odd ones; board `j` has seat `f + j` (Silver) against `f - j` (Red),
/// mod `m`. For six players this is FIDE's table: 1-6 2-5 3-4, 6-4 5-3 1-2, 2-6 3-1 4-5...
pub(super) fn berger(n: usize) -> Vec<Vec<(usize, usize)>> {
    let seats = n + n % 2;
    if seats < 2 {
        return Vec::new();
    }
    let m = seats - 1;
    let last = m;
    (0..m)
        .map(|r| {
            let first = r * (seats / 2) % m;
            let mut boards = Vec::with_capacity(seats / 2);
            boards.push(if r % 2 == 0 {
                (first, last)
            } else {
                (last, first)
            });
            for j in 1..seats / 2 {
                boards.push(((first + j) % m, (first + m - j) % m));
            }
            boards
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{Kind, Outcome};
    use super::*;
    use khet_engine::Color;
    use std::collections::{BTreeMap, BTreeSet};

    fn ids(n: usize) -> Vec<PlayerId> {
        (1..=n).map(|i| id(&format!("p{i}"))).collect()
    }

    /// How often each unordered pair meets over `rounds`.
    fn meetings(rounds: &[Round]) -> BTreeMap<(PlayerId, PlayerId), usize> {
        let mut count = BTreeMap::new();
        for p in rounds.iter().flat_map(|r| &r.pairings) {
            if let Some(red) = &p.red {
                let key = if p.silver < *red {
                    (p.silver.clone(), red.clone())
                } else {
                    (red.clone(), p.silver.clone())
                };
                *count.entry(key).or_insert(0) += 1;
            }
        }
        count
    }

    #[test]
    fn six_players_follow_fides_berger_table() {
        // FIDE's table for six, seats numbered from 1 (C.05, Annex 1).
        let fide = [
            "1-6 2-5 3-4",
            "6-4 5-3 1-2",
            "2-6 3-1 4-5",
            "6-5 1-4 2-3",
            "3-6 4-2 5-1",
        ];
        for (round, expected) in berger(6).iter().zip(fide) {
            let written: Vec<String> = round
                .iter()
                .map(|(s, r)| format!("{}-{}", s + 1, r + 1))
                .collect();
            assert_eq!(written.join(" "), expected);
        }
    }

    #[test]
    fn four_players_meet_once_in_three_rounds_and_twice_when_double() {
        let players = ids(4);
        let single = schedule(&players, false);
        assert_eq!(single.len(), 3);
        for round in &single {
            let seen: BTreeSet<&PlayerId> = round
                .pairings
                .iter()
                .flat_map(|p| [Some(&p.silver), p.red.as_ref()])
                .flatten()
                .collect();
            assert_eq!(seen.len(), 4, "everyone plays every round");
        }
        let met = meetings(&single);
        assert_eq!(met.len(), 6, "all six pairs");
        assert!(met.values().all(|&n| n == 1));

        let double = schedule(&players, true);
        assert_eq!(double.len(), 6);
        assert_eq!(&double[..3], &single[..]);
        for (first, second) in double[..3].iter().zip(&double[3..]) {
            for (a, b) in first.pairings.iter().zip(&second.pairings) {
                assert_eq!(Some(&a.silver), b.red.as_ref(), "colours swapped");
                assert_eq!(a.red.as_ref(), Some(&b.silver));
            }
        }
        assert!(meetings(&double).values().all(|&n| n == 2));
    }

    #[test]
    fn five_players_rest_once_each_over_five_rounds() {
        let players = ids(5);
        let rounds = schedule(&players, false);
        assert_eq!(rounds.len(), 5);
        let mut rested = BTreeSet::new();
        for round in &rounds {
            let rests: Vec<&Pairing> = round.pairings.iter().filter(|p| !p.is_game()).collect();
            assert_eq!(rests.len(), 1, "one rest a round");
            assert_eq!(rests[0].result, Some(Outcome::Rest));
            assert!(rested.insert(rests[0].silver.clone()), "a second rest");
            assert_eq!(round.pairings.len(), 3);
        }
        assert_eq!(rested.len(), 5);
        let met = meetings(&rounds);
        assert_eq!(met.len(), 10, "all ten pairs");
        assert!(met.values().all(|&n| n == 1));
    }

    #[test]
    fn colours_are_balanced_for_every_size() {
        for n in 2..=24 {
            let players = ids(n);
            let rounds = schedule(&players, false);
            let mut silver: BTreeMap<&PlayerId, i32> = BTreeMap::new();
            for p in rounds.iter().flat_map(|r| &r.pairings) {
                if let Some(red) = &p.red {
                    *silver.entry(&p.silver).or_insert(0) += 1;
                    *silver.entry(red).or_insert(0) -= 1;
                }
            }
            for (player, balance) in silver {
                assert!(
                    balance.abs() <= 1,
                    "{n} players: {player} has Silver {balance} more than Red"
                );
            }
            let met = meetings(&rounds);
            assert_eq!(met.len(), n * (n - 1) / 2, "{n} players");
            assert!(met.values().all(|&k| k == 1), "{n} players");
        }
    }

    #[test]
    fn a_round_robin_tournament_has_every_round_from_its_start() {
        let mut t = with_players(Kind::RoundRobin { double: true }, 4);
        t.start().unwrap();
        assert_eq!(t.rounds.len(), 6);
        assert_eq!(
            t.pair_next_round().unwrap_err(),
            super::super::PairingError::WrongKind
        );
        let p1 = id("p1");
        let sides: Vec<Color> = t
            .rounds
            .iter()
            .map(|r| r.pairing_of(&p1).unwrap().side_of(&p1).unwrap())
            .collect();
        for (a, b) in sides[..3].iter().zip(&sides[3..]) {
            assert_eq!(*a, b.other());
        }
    }
}
