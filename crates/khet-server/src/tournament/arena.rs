//! Arena pairing: whoever is free (not in a game) is paired again at once.
//!
//! - Free players are ordered by arena score (`standings::arena_score`), then by how long they
//!   have been free (longest first), then by id; each is paired from the top with the next free
//!   player, the closest in score.
//! - Not their last opponent again, when another choice exists: the pairing keeps everyone
//!   pairable without an immediate rematch (Edmonds' blossom algorithm decides it), and only
//!   when no such pairing exists at all does it pair neighbours regardless.
//! - An odd count leaves one waiting: the one free the shortest time (of those, the lowest
//!   placed), or the next when their waiting would force a rematch. A player free alone waits.
//! - Colours: Silver to the one who has had Silver fewer times; when equal, to the one who has
//!   had Red more; then to the higher placed.

use super::matching::{MAX, Set, members, one, perfect};
use super::{Pairing, PlayerId, Points, Tournament, arena_score};
use std::cmp::Reverse;

/// A free player as the arena's pairing weighs them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Free {
    /// Who.
    pub id: PlayerId,
    /// Their arena score.
    pub score: u32,
    /// Since when they have been free (any unit, the same for all; smaller is earlier).
    pub free_since: u64,
    /// Whom they played last, if anyone.
    pub last_opponent: Option<PlayerId>,
    /// Games they have had Silver in.
    pub silver_games: u32,
    /// Games they have had Red in.
    pub red_games: u32,
}

/// The pairings among the `free` players (the odd one out waits; a player listed twice counts
/// once).
pub fn pair(free: &[Free]) -> Vec<Pairing> {
    let mut order: Vec<&Free> = Vec::with_capacity(free.len());
    for f in free {
        if !order.iter().any(|o| o.id == f.id) {
            order.push(f);
        }
    }
    order.sort_by(|a, b| {
        (Reverse(a.score), a.free_since, &a.id).cmp(&(Reverse(b.score), b.free_since, &b.id))
    });
    if order.len() < 2 {
        return Vec::new();
    }
    let pairs = if order.len() <= MAX {
        without_rematch(&order).unwrap_or_else(|| neighbours(&order))
    } else {
        neighbours(&order)
    };
    pairs
        .into_iter()
        .map(|(a, b)| {
            let (silver, red) = if a_gets_silver(order[a], order[b]) {
                (a, b)
            } else {
                (b, a)
            };
            Pairing::game(order[silver].id.clone(), order[red].id.clone())
        })
        .collect()
}

/// Whether `a` and `b` may meet now: not each other's last opponent.
fn may_meet(a: &Free, b: &Free) -> bool {
    a.last_opponent.as_ref() != Some(&b.id) && b.last_opponent.as_ref() != Some(&a.id)
}

/// Who may wait when the count is odd, best first: the one free the shortest time, the lowest
/// placed among equals.
fn waiters(order: &[&Free]) -> Vec<Option<usize>> {
    if order.len().is_multiple_of(2) {
        return vec![None];
    }
    let mut waiters: Vec<usize> = (0..order.len()).collect();
    waiters.sort_by_key(|&i| (Reverse(order[i].free_since), Reverse(i)));
    waiters.into_iter().map(Some).collect()
}

/// Pairs (by places in `order`) with no immediate rematch, if there are any.
fn without_rematch(order: &[&Free]) -> Option<Vec<(usize, usize)>> {
    let graph: Vec<Set> = (0..order.len())
        .map(|i| {
            (0..order.len())
                .filter(|&j| j != i && may_meet(order[i], order[j]))
                .fold(0, |set, j| set | one(j))
        })
        .collect();
    let everyone = (0..order.len()).fold(0, |set: Set, i| set | one(i));
    for waiter in waiters(order) {
        let mut left = everyone & !waiter.map_or(0, one);
        if !perfect(&graph, left) {
            continue;
        }
        let mut pairs = Vec::new();
        while left != 0 {
            let p = left.trailing_zeros() as usize;
            // The closest in score that keeps the rest pairable: there is one, since all of
            // `left` can be paired.
            let q = members(graph[p] & left)
                .find(|&q| perfect(&graph, left & !one(p) & !one(q)))
                .expect("the rest stays pairable");
            pairs.push((p, q));
            left &= !one(p) & !one(q);
        }
        return Some(pairs);
    }
    None
}

/// Pairs of neighbours in `order`, rematches or not; the first waiter waits.
fn neighbours(order: &[&Free]) -> Vec<(usize, usize)> {
    let waiter = waiters(order)[0];
    let playing: Vec<usize> = (0..order.len()).filter(|&i| Some(i) != waiter).collect();
    playing.chunks(2).map(|pair| (pair[0], pair[1])).collect()
}

/// Whether `a` (placed above `b`) gets Silver.
fn a_gets_silver(a: &Free, b: &Free) -> bool {
    (a.silver_games, Reverse(a.red_games)) <= (b.silver_games, Reverse(b.red_games))
}

impl Tournament {
    /// The free players of an arena, from the server's list of who is free since when: the
    /// withdrawn, strangers and anyone whose game has no result yet are left out, and a player
    /// listed twice counts once.
    pub fn arena_free(&self, free: &[(PlayerId, u64)]) -> Vec<Free> {
        free.iter()
            .enumerate()
            .filter(|&(i, (id, _))| free[..i].iter().all(|(other, _)| other != id))
            .map(|(_, listed)| listed)
            .filter(|(id, _)| self.entrant(id).is_some_and(|e| !e.withdrawn))
            .filter(|(id, _)| self.unfinished_game(id).is_none())
            .map(|(id, since)| {
                let games: Vec<&Pairing> = self
                    .rounds
                    .iter()
                    .filter_map(|r| r.pairing_of(id))
                    .filter(|p| p.is_game())
                    .collect();
                let results: Vec<Points> = games.iter().map(|p| p.points_of(id)).collect();
                let silver_games = games.iter().filter(|p| p.silver == *id).count();
                Free {
                    id: id.clone(),
                    score: arena_score(&results),
                    free_since: *since,
                    last_opponent: games.last().and_then(|p| p.opponent_of(id)).cloned(),
                    silver_games: u32::try_from(silver_games).unwrap_or(u32::MAX),
                    red_games: u32::try_from(games.len() - silver_games).unwrap_or(u32::MAX),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::super::{Kind, Outcome};
    use super::*;

    fn free(name: &str, score: u32, since: u64, last: Option<&str>) -> Free {
        Free {
            id: id(name),
            score,
            free_since: since,
            last_opponent: last.map(id),
            silver_games: 0,
            red_games: 0,
        }
    }

    /// The pairs as "silver-red" by name.
    fn written(pairings: &[Pairing]) -> Vec<String> {
        pairings
            .iter()
            .map(|p| format!("{}-{}", p.silver, p.red.as_ref().unwrap()))
            .collect()
    }

    #[test]
    fn pairs_by_closest_score_and_leaves_the_latest_free_waiting() {
        let pairings = pair(&[
            free("a", 10, 5, None),
            free("b", 2, 1, None),
            free("c", 9, 2, None),
            free("d", 3, 3, None),
            free("e", 0, 9, None),
        ]);
        // By score: a 10, c 9, d 3, b 2, e 0; e became free last and waits.
        assert_eq!(written(&pairings), ["a-c", "d-b"]);
        assert!(pair(&[free("alone", 4, 0, None)]).is_empty(), "alone waits");
        let twice = free("twice", 4, 0, None);
        assert!(
            pair(&[twice.clone(), twice]).is_empty(),
            "not with themselves"
        );
        assert!(pair(&[]).is_empty());
    }

    #[test]
    fn avoids_an_immediate_rematch_when_it_can() {
        // a and b just played each other, c and d too: a plays c, b plays d.
        let pairings = pair(&[
            free("a", 8, 0, Some("b")),
            free("b", 8, 0, Some("a")),
            free("c", 6, 0, Some("d")),
            free("d", 6, 0, Some("c")),
        ]);
        assert_eq!(written(&pairings), ["a-c", "b-d"]);
        // Three free, two of them just played: the third must not wait, though free last.
        let pairings = pair(&[
            free("a", 4, 0, Some("b")),
            free("b", 4, 0, Some("a")),
            free("c", 0, 9, None),
        ]);
        assert_eq!(written(&pairings), ["a-c"]);
        // Only the two of them: they play again rather than wait.
        let pairings = pair(&[free("a", 4, 0, Some("b")), free("b", 4, 0, Some("a"))]);
        assert_eq!(written(&pairings), ["a-b"]);
    }

    #[test]
    fn silver_goes_to_who_had_it_less() {
        let mut a = free("a", 5, 0, None);
        let mut b = free("b", 1, 0, None);
        a.silver_games = 3;
        a.red_games = 1;
        b.silver_games = 1;
        b.red_games = 3;
        assert_eq!(written(&pair(&[a.clone(), b.clone()])), ["b-a"]);
        b.silver_games = 3;
        b.red_games = 2;
        assert_eq!(
            written(&pair(&[a, b])),
            ["b-a"],
            "equal Silver: b has had Red more"
        );
    }

    #[test]
    fn never_with_themselves_and_rarely_again_over_many_waves() {
        for seed in 0..40 {
            let mut rng = Lcg::new(seed);
            let n = 2 + rng.below(11) as usize;
            let mut t = with_players(Kind::Arena, n);
            for wave in 0..30u64 {
                // Some of those in a game finish; then everyone free is paired.
                for round in 0..t.rounds.len() {
                    for board in 0..t.rounds[round].pairings.len() {
                        let pairing = &mut t.rounds[round].pairings[board];
                        if pairing.result.is_none() && rng.below(2) == 0 {
                            pairing.result = Some(rng.outcome());
                        }
                    }
                }
                let mut listed: Vec<(PlayerId, u64)> = t
                    .players
                    .iter()
                    .map(|e| (e.id.clone(), wave * 100 + rng.below(100)))
                    .collect();
                // The server may list someone twice; a player in a game is left out.
                listed.push(listed[0].clone());
                let free = t.arena_free(&listed);
                let before: Vec<Free> = free.clone();
                let Some(round) = t.pair_arena(&listed).unwrap() else {
                    assert!(free.len() < 2, "seed {seed}: free players left unpaired");
                    continue;
                };
                let mut seen = Vec::new();
                for p in &round.pairings {
                    let red = p.red.clone().unwrap();
                    assert_ne!(p.silver, red, "seed {seed}: paired with themselves");
                    assert!(!seen.contains(&p.silver) && !seen.contains(&red));
                    seen.extend([p.silver.clone(), red.clone()]);
                    let last = |id: &PlayerId| {
                        before
                            .iter()
                            .find(|f| f.id == *id)
                            .unwrap()
                            .last_opponent
                            .clone()
                    };
                    if last(&p.silver) == Some(red.clone()) || last(&red) == Some(p.silver.clone())
                    {
                        // A rematch only when nothing else was possible: two free.
                        assert_eq!(before.len(), 2, "seed {seed}: a needless rematch");
                    }
                }
                assert_eq!(seen.len(), before.len() / 2 * 2, "seed {seed}");
            }
        }
    }

    #[test]
    fn arena_free_knows_scores_last_opponents_and_colours() {
        let mut t = with_players(Kind::Arena, 3);
        let (p1, p2, p3) = (id("p1"), id("p2"), id("p3"));
        t.rounds.push(super::super::Round {
            pairings: vec![Pairing::game(p1.clone(), p2.clone())],
        });
        let free = t.arena_free(&[(p1.clone(), 0), (p2.clone(), 0), (p3.clone(), 0)]);
        assert_eq!(free.len(), 1, "p1 and p2 are in their game");
        t.record_result(0, &p1, Outcome::SilverWon).unwrap();
        let free = t.arena_free(&[(p1.clone(), 0), (p2.clone(), 0), (p3.clone(), 0)]);
        assert_eq!(free[0].score, 2, "a win is two");
        assert_eq!(free[0].last_opponent, Some(p2.clone()));
        assert_eq!((free[0].silver_games, free[0].red_games), (1, 0));
        assert_eq!(free[1].score, 0);
        assert_eq!((free[1].silver_games, free[1].red_games), (0, 1));
        assert_eq!(free[2].last_opponent, None);
        t.withdraw(&p3).unwrap();
        assert_eq!(t.arena_free(&[(p3, 0)]), Vec::new());
    }
}
