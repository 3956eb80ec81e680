//! What a tournament director checks of a Swiss.

use super::super::testing::*;
use super::super::{Kind, Outcome, PairingError, PlayerId, Points, Tournament};
use super::*;
use std::collections::{BTreeMap, BTreeSet};

/// Plays a whole Swiss of `n` players over `rounds` rounds with results from `seed`, checking
/// after each round what holds of every round; returns the tournament.
fn play_swiss(n: usize, rounds: u32, seed: u64) -> Tournament {
    let mut rng = Lcg::new(seed);
    let mut t = with_players(Kind::Swiss { rounds }, n);
    t.start()
        .unwrap_or_else(|e| panic!("seed {seed}: round 1: {e}"));
    for r in 0..rounds as usize {
        check_round(&t, r, seed);
        play_round(&mut t, r, &mut rng);
        if r + 1 < rounds as usize {
            t.pair_next_round()
                .unwrap_or_else(|e| panic!("seed {seed}: round {}: {e}", r + 2));
        }
    }
    t
}

/// Every active player is in round `r` exactly once; at most one bye, and only when the count
/// is odd.
fn check_round(t: &Tournament, r: usize, seed: u64) {
    let round = &t.rounds[r];
    let mut seen = BTreeSet::new();
    for p in &round.pairings {
        for player in [Some(&p.silver), p.red.as_ref()].into_iter().flatten() {
            assert!(seen.insert(player.clone()), "seed {seed}: {player} twice");
        }
    }
    let active: BTreeSet<PlayerId> = t.active().map(|e| e.id.clone()).collect();
    assert_eq!(seen, active, "seed {seed}: round {}", r + 1);
    let byes = round.pairings.iter().filter(|p| !p.is_game()).count();
    assert_eq!(byes, active.len() % 2, "seed {seed}: round {}", r + 1);
}

/// How often each unordered pair met.
fn meeting_counts(t: &Tournament) -> BTreeMap<(PlayerId, PlayerId), usize> {
    let mut counts = BTreeMap::new();
    for pair in meetings(t) {
        *counts.entry(pair).or_insert(0) += 1;
    }
    counts
}

/// Who had byes, round by round.
fn byes(t: &Tournament) -> Vec<PlayerId> {
    t.rounds
        .iter()
        .flat_map(|r| &r.pairings)
        .filter(|p| p.result == Some(Outcome::Bye))
        .map(|p| p.silver.clone())
        .collect()
}

#[test]
fn seven_players_over_three_rounds_never_meet_twice_and_each_bye_is_anothers() {
    for seed in 0..200 {
        let t = play_swiss(7, 3, seed);
        assert!(
            meeting_counts(&t).values().all(|&n| n == 1),
            "seed {seed}: a repeat pairing"
        );
        let byes = byes(&t);
        assert_eq!(byes.len(), 3, "seed {seed}: one bye a round");
        let distinct: BTreeSet<&PlayerId> = byes.iter().collect();
        assert_eq!(distinct.len(), 3, "seed {seed}: a second bye for {byes:?}");
        assert!(t.is_finished());
    }
}

/// Asserts that each of the `n` players of `t` met every other exactly once.
fn everyone_met_once(t: &Tournament, n: usize, seed: u64) {
    let counts = meeting_counts(t);
    assert_eq!(counts.len(), n * (n - 1) / 2, "{n} players, seed {seed}");
    assert!(
        counts.values().all(|&k| k == 1),
        "{n} players, seed {seed}: a repeat"
    );
}

#[test]
fn eight_players_over_seven_rounds_is_a_round_robin() {
    for seed in 0..100 {
        everyone_met_once(&play_swiss(8, 7, seed), 8, seed);
    }
}

#[test]
fn seven_players_over_seven_rounds_each_have_one_bye_and_meet_everyone() {
    for seed in 0..50 {
        let t = play_swiss(7, 7, seed);
        everyone_met_once(&t, 7, seed);
        let distinct: BTreeSet<PlayerId> = byes(&t).into_iter().collect();
        assert_eq!(distinct.len(), 7, "seed {seed}");
    }
}

#[test]
fn a_round_that_would_repeat_a_game_is_refused() {
    // Four players meet everyone in three rounds; a fourth would repeat.
    let mut t4 = with_players(Kind::Swiss { rounds: 5 }, 4);
    t4.start().unwrap();
    let mut rng = Lcg::new(7);
    for r in 0..3 {
        play_round(&mut t4, r, &mut rng);
        if r < 2 {
            t4.pair_next_round().unwrap();
        }
    }
    assert_eq!(meeting_counts(&t4).len(), 6);
    let before = t4.clone();
    assert_eq!(
        t4.pair_next_round().unwrap_err(),
        PairingError::RepeatUnavoidable
    );
    assert_eq!(t4, before, "nothing added");
    // Three players: each has had a bye after three rounds, and the fourth has none to give.
    let mut t3 = with_players(Kind::Swiss { rounds: 4 }, 3);
    t3.start().unwrap();
    for r in 0..3 {
        play_round(&mut t3, r, &mut rng);
        if r < 2 {
            t3.pair_next_round().unwrap();
        }
    }
    assert_eq!(t3.pair_next_round().unwrap_err(), PairingError::NoByeLeft);
}

#[test]
fn a_round_waits_for_the_results_of_the_last() {
    let mut t = with_players(Kind::Swiss { rounds: 3 }, 4);
    t.start().unwrap();
    t.record_result(0, &id("p1"), Outcome::Draw).unwrap();
    assert_eq!(
        t.pair_next_round().unwrap_err(),
        PairingError::ResultsMissing { round: 0 }
    );
    let mut rng = Lcg::new(3);
    play_round(&mut t, 0, &mut rng);
    t.pair_next_round().unwrap();
    play_round(&mut t, 1, &mut rng);
    t.pair_next_round().unwrap();
    play_round(&mut t, 2, &mut rng);
    assert_eq!(
        t.pair_next_round().unwrap_err(),
        PairingError::AllRoundsPaired
    );
    assert_eq!(t.start().unwrap_err(), PairingError::AlreadyStarted);
    let mut arena = with_players(Kind::Arena, 4);
    assert_eq!(
        arena.pair_next_round().unwrap_err(),
        PairingError::WrongKind
    );
}

/// The pairs of a round as "silver-red".
fn written(t: &Tournament, r: usize) -> Vec<String> {
    t.rounds[r]
        .pairings
        .iter()
        .map(|p| match &p.red {
            Some(red) => format!("{}-{}", p.silver, red),
            None => format!("{} bye", p.silver),
        })
        .collect()
}

#[test]
fn the_first_round_pairs_top_half_against_bottom_half_alternating_colours() {
    // Rated p1 highest to p8 lowest: 1-5, 2-6, 3-7, 4-8, the higher-rated with Silver on the
    // first board, Red on the second, and so on.
    let mut t = with_players(Kind::Swiss { rounds: 5 }, 8);
    t.start().unwrap();
    assert_eq!(written(&t, 0), ["p1-p5", "p6-p2", "p3-p7", "p8-p4"]);
    // Seven: the lowest-rated has the bye; 1-4, 2-5, 3-6.
    let mut t = with_players(Kind::Swiss { rounds: 3 }, 7);
    t.start().unwrap();
    assert_eq!(written(&t, 0), ["p1-p4", "p5-p2", "p3-p6", "p7 bye"]);
}

#[test]
fn the_second_round_pairs_within_score_groups_and_balances_colours() {
    let mut t = with_players(Kind::Swiss { rounds: 5 }, 8);
    t.start().unwrap();
    // Silver wins everywhere: p1, p6, p3, p8 have a point.
    for pairing in &mut t.rounds[0].pairings {
        pairing.result = Some(Outcome::SilverWon);
    }
    t.pair_next_round().unwrap();
    // Winners ranked by rating: p1, p3, p6, p8 -> 1-6, 3-8; losers p2, p4, p5, p7 -> 2-5, 4-7.
    // The winners all had Silver and wish for Red, the losers the other way round: in each
    // pair the higher-ranked has their wish.
    assert_eq!(
        written(&t, 1),
        ["p6-p1", "p8-p3", "p2-p5", "p4-p7"],
        "winners meet winners, colours alternate"
    );
}

#[test]
fn each_gets_the_colour_they_wish_for_the_most() {
    use Color::{Red as R, Silver as S};
    // (the higher-ranked's colours, the lower-ranked's, board) -> the higher-ranked has Silver.
    let cases: [(&[Color], &[Color], usize, bool); 10] = [
        // Neither has played: Silver to the higher-ranked on the first board, Red on the second.
        (&[], &[], 0, true),
        (&[], &[], 1, false),
        // One wishes, the other has no games: the wish is granted.
        (&[S], &[], 0, false),
        (&[], &[S], 0, true),
        // Different wishes: both granted.
        (&[S, R, S], &[R, S, R], 0, false),
        // Both want Red: a third Silver running weighs more than one Silver more than Red.
        (&[R, S, S], &[S], 0, false),
        (&[S], &[R, S, S], 0, true),
        // Both want Red as much: the one who had Silver the last time they differed has Red.
        (&[S, R, S], &[S, S, R], 0, false),
        (&[S, S, R], &[S, R, S], 0, true),
        // Never differed: the higher-ranked has their wish.
        (&[R, S], &[R, S], 0, false),
    ];
    for (high, low, board, expected) in cases {
        assert_eq!(
            super::high_gets_silver(high, low, board),
            expected,
            "{high:?} against {low:?} on board {}",
            board + 1
        );
    }
}

#[test]
fn a_bye_goes_to_the_lowest_ranked_who_has_not_had_one() {
    let mut t = with_players(Kind::Swiss { rounds: 3 }, 5);
    t.start().unwrap();
    assert_eq!(byes(&t), [id("p5")]);
    // Round 1: p1-p3 and p4-p2 (colours alternate), p5 bye. Draws all round: p5 leads on
    // its point and the others are ranked by rating, p4 lowest.
    for pairing in &mut t.rounds[0].pairings {
        if pairing.result.is_none() {
            pairing.result = Some(Outcome::Draw);
        }
    }
    t.pair_next_round().unwrap();
    assert_eq!(byes(&t), [id("p5"), id("p4")]);
}

#[test]
fn pairing_is_deterministic() {
    for seed in 0..20 {
        let mut t = with_players(Kind::Swiss { rounds: 6 }, 11);
        let mut rng = Lcg::new(seed);
        t.start().unwrap();
        for r in 0..5 {
            play_round(&mut t, r, &mut rng);
            let copy = t.clone();
            let a = super::pair_next_round(&copy).unwrap();
            let b = super::pair_next_round(&copy).unwrap();
            assert_eq!(a, b);
            t.pair_next_round().unwrap();
        }
    }
}

/// The colours `player` had in the games of the first `rounds` rounds.
fn colours_of(t: &Tournament, player: &PlayerId, rounds: usize) -> Vec<Color> {
    t.rounds[..rounds]
        .iter()
        .filter_map(|r| r.pairing_of(player))
        .filter(|p| p.result.is_some_and(Outcome::played))
        .filter_map(|p| p.side_of(player))
        .collect()
}

/// The colour a player with `colours` must have next, if any: not a third running, not a
/// third more of one than of the other (written here apart from the pairing's own rule).
fn must_have(colours: &[Color]) -> Option<Color> {
    let silver = colours.iter().filter(|&&c| c == Color::Silver).count();
    let red = colours.len() - silver;
    match colours {
        [.., a, b] if a == b => Some(a.other()),
        _ if silver >= red + 2 => Some(Color::Red),
        _ if red >= silver + 2 => Some(Color::Silver),
        _ => None,
    }
}

/// Whether the `players` (who have not met where `met` says so) can be paired with no two who
/// must have the same colour meeting: every pairing tried.
fn colours_can_be_kept(
    players: &[PlayerId],
    met: &BTreeSet<(PlayerId, PlayerId)>,
    must: &BTreeMap<PlayerId, Option<Color>>,
) -> bool {
    let Some((first, rest)) = players.split_first() else {
        return true;
    };
    rest.iter().enumerate().any(|(i, other)| {
        let clash = must[first].is_some() && must[first] == must[other];
        let key = if first < other {
            (first.clone(), other.clone())
        } else {
            (other.clone(), first.clone())
        };
        let mut left = rest.to_vec();
        left.remove(i);
        !clash && !met.contains(&key) && colours_can_be_kept(&left, met, must)
    })
}

#[test]
fn colours_alternate_and_balance_wherever_the_pairings_allow() {
    let mut broken = 0;
    for seed in 0..100 {
        let t = play_swiss(8, 6, seed);
        for r in 0..t.rounds.len() {
            let must: BTreeMap<PlayerId, Option<Color>> = t
                .players
                .iter()
                .map(|e| (e.id.clone(), must_have(&colours_of(&t, &e.id, r))))
                .collect();
            let given_against_must = t.players.iter().any(|e| {
                let side = t.rounds[r].pairing_of(&e.id).and_then(|p| p.side_of(&e.id));
                must[&e.id].is_some() && side.is_some() && must[&e.id] != side
            });
            if given_against_must {
                // Only when every pairing without a repeat puts two who must have the same
                // colour together.
                let players: Vec<PlayerId> = t.players.iter().map(|e| e.id.clone()).collect();
                let mut earlier = t.clone();
                earlier.rounds.truncate(r);
                let met: BTreeSet<(PlayerId, PlayerId)> = meetings(&earlier).into_iter().collect();
                assert!(
                    !colours_can_be_kept(&players, &met, &must),
                    "seed {seed}, round {}: a colour rule broken needlessly",
                    r + 1
                );
                broken += 1;
            }
        }
    }
    // And it is rare.
    assert!(broken <= 10, "{broken} rounds of 600 broke a colour rule");
}

#[test]
fn scores_decide_the_pairing_in_later_rounds() {
    // Over many tournaments, most games are between players on equal points: the pairing
    // keeps to score groups and floats only what it must.
    let (mut equal, mut games) = (0, 0);
    for seed in 0..50 {
        let mut rng = Lcg::new(seed);
        let mut t = with_players(Kind::Swiss { rounds: 4 }, 16);
        t.start().unwrap();
        for r in 0..4 {
            play_round(&mut t, r, &mut rng);
            if r < 3 {
                let points: BTreeMap<PlayerId, Points> = t
                    .standings()
                    .into_iter()
                    .map(|s| (s.id, s.points))
                    .collect();
                let round = t.pair_next_round().unwrap();
                for p in &round.pairings {
                    let red = p.red.as_ref().unwrap();
                    games += 1;
                    equal += usize::from(points[&p.silver] == points[red]);
                }
            }
        }
    }
    assert!(
        equal * 10 >= games * 7,
        "{equal} of {games} games between equal scores"
    );
}

#[test]
fn a_swiss_as_long_as_a_round_robin_meets_everyone_once_for_every_size() {
    // n - 1 rounds for an even count, n for an odd one (each has one bye): the look-ahead
    // keeps every round pairable to the end.
    for n in 4..=14 {
        let rounds = u32::try_from(n - 1 + n % 2).unwrap();
        for seed in 0..10 {
            everyone_met_once(&play_swiss(n, rounds, seed), n, seed);
        }
    }
}

#[test]
fn a_big_club_night_is_paired() {
    // Forty players over nine rounds: no repeats, everyone plays.
    for seed in 0..3 {
        let t = play_swiss(40, 9, seed);
        assert!(meeting_counts(&t).values().all(|&k| k == 1), "seed {seed}");
    }
}
