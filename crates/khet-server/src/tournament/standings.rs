//! Standings and tie-breaks.
//!
//! - **Points**: a win 1 (over the board or by forfeit), a draw ½, a Swiss bye 1, a loss (over
//!   the board or by forfeit) 0, a round robin's rest 0. Games without a result count nothing.
//! - **Buchholz**: the sum of the opponents' points. A round without a game (a bye, a rest, a
//!   forfeit either way) counts as a game against oneself: the player's own points, as FIDE's
//!   tie-break rules since 2023 have it (not the older "virtual opponent").
//! - **Sonneborn–Berger**: the points of the opponents beaten plus half the points of those
//!   drawn, over games played over the board (a bye or a forfeit has no opponent to count).
//! - Order (Swiss and round robin): points, then Buchholz, then Sonneborn–Berger, then name,
//!   then id; the withdrawn keep their place by these.
//! - **Arena** ([`arena_score`]), as lichess counts it: a win 2, a draw 1, a loss 0; after two
//!   wins in a row a player is on fire and scores double (a win 4, a draw 2) until a game that
//!   is not a win. A forfeit counts as the win or loss it is. Ordered by arena score, then
//!   points, then name, then id (lichess's draw-streak and berserk rules are left out).

use super::{Kind, PlayerId, Points, Tournament};
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;
use std::collections::HashMap;

/// A player's line in the standings.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    /// Who.
    pub id: PlayerId,
    /// Their name.
    pub name: String,
    /// Their points.
    pub points: Points,
    /// Buchholz: the opponents' points.
    pub buchholz: Points,
    /// Sonneborn–Berger: the points of those beaten, and half of those drawn.
    pub sonneborn_berger: Points,
    /// The arena score (arenas only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arena_score: Option<u32>,
    /// Games played over the board.
    pub games: u32,
    /// Withdrawn.
    pub withdrawn: bool,
}

/// An arena score from a player's results in the order played (each 1, ½ or 0).
pub fn arena_score(results: &[Points]) -> u32 {
    let mut score = 0;
    let mut wins_running = 0;
    for &result in results {
        let base = match result {
            Points::ONE => 2,
            Points::HALF => 1,
            _ => 0,
        };
        let on_fire = wins_running >= 2;
        score += if on_fire { 2 * base } else { base };
        wins_running = if result == Points::ONE {
            wins_running + 1
        } else {
            0
        };
    }
    score
}

/// The standings of `t`, first place first.
pub(super) fn standings(t: &Tournament) -> Vec<Standing> {
    let points: HashMap<&PlayerId, Points> = t
        .players
        .iter()
        .map(|e| (&e.id, t.points_of(&e.id)))
        .collect();
    let points_of = |id: &PlayerId| points.get(id).copied().unwrap_or_default();
    let mut lines: Vec<Standing> = t
        .players
        .iter()
        .map(|e| {
            let own = points_of(&e.id);
            let mut line = Standing {
                id: e.id.clone(),
                name: e.name.clone(),
                points: own,
                buchholz: Points::ZERO,
                sonneborn_berger: Points::ZERO,
                arena_score: None,
                games: 0,
                withdrawn: e.withdrawn,
            };
            let mut results = Vec::new();
            for pairing in t.rounds.iter().filter_map(|r| r.pairing_of(&e.id)) {
                let Some(result) = pairing.result else {
                    continue;
                };
                let took = pairing.points_of(&e.id);
                results.push(took);
                match pairing.opponent_of(&e.id) {
                    Some(opponent) if result.played() => {
                        let theirs = points_of(opponent);
                        line.games += 1;
                        line.buchholz += theirs;
                        line.sonneborn_berger += match took {
                            Points::ONE => theirs,
                            Points::HALF => theirs.half(),
                            _ => Points::ZERO,
                        };
                    }
                    _ => line.buchholz += own,
                }
            }
            if t.kind == Kind::Arena {
                line.arena_score = Some(arena_score(&results));
            }
            line
        })
        .collect();
    if t.kind == Kind::Arena {
        lines.sort_by(|a, b| {
            (Reverse(a.arena_score), Reverse(a.points), &a.name, &a.id).cmp(&(
                Reverse(b.arena_score),
                Reverse(b.points),
                &b.name,
                &b.id,
            ))
        });
    } else {
        lines.sort_by(|a, b| order_key(a).cmp(&order_key(b)));
    }
    lines
}

/// The order of Swiss and round robin standings.
fn order_key(
    s: &Standing,
) -> (
    Reverse<Points>,
    Reverse<Points>,
    Reverse<Points>,
    &str,
    &PlayerId,
) {
    (
        Reverse(s.points),
        Reverse(s.buchholz),
        Reverse(s.sonneborn_berger),
        &s.name,
        &s.id,
    )
}

#[cfg(test)]
mod tests {
    use super::super::Outcome::*;
    use super::super::testing::*;
    use super::super::{Kind, Pairing, Round, Tournament};
    use super::*;

    /// Points from a decimal written in the test (2.5 is ten quarters).
    fn pts(value: f64) -> Points {
        let quarters = (value * 4.0) as u32;
        assert_eq!(
            f64::from(quarters),
            value * 4.0,
            "a whole number of quarters"
        );
        Points::from_quarters(quarters)
    }

    /// A tournament of the `names` with the `rounds` written as a crosstable has them:
    /// `"A-B 1-0, C-D 1/2-1/2, E bye"` (Silver first; the outcomes as [`Outcome::as_str`]).
    fn tournament(kind: Kind, names: &[&str], rounds: &[&str]) -> Tournament {
        let mut t = Tournament::new(kind);
        for name in names {
            t.join(id(name), name, 1500).unwrap();
        }
        t.rounds = rounds
            .iter()
            .map(|round| Round {
                pairings: round.split(", ").map(pairing).collect(),
            })
            .collect();
        t
    }

    /// `"A-B 1-0"`, `"E bye"`, or `"A-B -"` for a game in play.
    fn pairing(written: &str) -> Pairing {
        let (players, outcome) = written.split_once(' ').expect("players and outcome");
        if outcome == "bye" {
            return Pairing::bye(id(players));
        }
        let (silver, red) = players.split_once('-').expect("silver-red");
        let outcomes = [SilverWon, RedWon, Draw, RedAbsent, SilverAbsent, BothAbsent];
        let result = outcomes.into_iter().find(|o| o.as_str() == outcome);
        Pairing {
            result,
            ..Pairing::game(id(silver), id(red))
        }
    }

    /// The rows of a table written in the test, `;` between players: name, points, Buchholz,
    /// Sonneborn–Berger, as decimals.
    fn rows(written: &str) -> Vec<(String, Points, Points, Points)> {
        written
            .split(';')
            .map(str::split_whitespace)
            .filter_map(|mut words| {
                let name = words.next()?.to_owned();
                let mut number =
                    || pts(words.next().expect("a number").parse().expect("a decimal"));
                Some((name, number(), number(), number()))
            })
            .collect()
    }

    /// (name, points, Buchholz, Sonneborn–Berger) in standings order.
    fn table(t: &Tournament) -> Vec<(String, Points, Points, Points)> {
        t.standings()
            .into_iter()
            .map(|s| (s.name, s.points, s.buchholz, s.sonneborn_berger))
            .collect()
    }

    #[test]
    fn a_small_swiss_with_byes_and_a_forfeit() {
        let t = tournament(
            Kind::Swiss { rounds: 3 },
            &["A", "B", "C", "D", "E"],
            &[
                "A-B 1-0, C-D 1/2-1/2, E bye",
                "A-C 1/2-1/2, B-E 1-0, D bye",
                // D does not come: A wins by forfeit.
                "A-D +/-, C-E 0-1, B bye",
            ],
        );
        // Points:
        //   A = 1 (beat B) + ½ (drew C) + 1 (forfeit) = 2.5
        //   B = 0 + 1 (beat E) + 1 (bye)              = 2
        //   C = ½ (drew D) + ½ (drew A) + 0           = 1
        //   D = ½ (drew C) + 1 (bye) + 0 (absent)     = 1.5
        //   E = 1 (bye) + 0 + 1 (beat C)              = 2
        // Buchholz (a bye or a forfeit counts the player's own points):
        //   A = B 2 + C 1 + own 2.5     = 5.5
        //   B = A 2.5 + E 2 + own 2     = 6.5
        //   C = D 1.5 + A 2.5 + E 2     = 6
        //   D = C 1 + own 1.5 + own 1.5 = 4
        //   E = own 2 + B 2 + C 1       = 5
        // Sonneborn–Berger (games played only):
        //   A = B 2 + ½·C 1             = 2.5
        //   B = E 2                     = 2
        //   C = ½·D 1.5 + ½·A 2.5       = 0.75 + 1.25 = 2
        //   D = ½·C 1                   = 0.5
        //   E = C 1                     = 1
        // Order: A 2.5; B and E on 2, B ahead on Buchholz (6.5 > 5); D 1.5; C 1.
        // Name, points, Buchholz, Sonneborn–Berger:
        assert_eq!(
            table(&t),
            rows("A 2.5 5.5 2.5; B 2.0 6.5 2.0; E 2.0 5.0 1.0; D 1.5 4.0 0.5; C 1.0 6.0 2.0")
        );
        let games: Vec<u32> = t.standings().iter().map(|s| s.games).collect();
        assert_eq!(games, [2, 2, 2, 1, 3], "A, B, E, D, C over the board");
    }

    #[test]
    fn sonneborn_berger_splits_what_buchholz_cannot() {
        // A round robin of four; P beats Q, R beats P, Q beats R and S, P-S and R-S drawn.
        let t = tournament(
            Kind::RoundRobin { double: false },
            &["P", "Q", "R", "S"],
            &[
                "P-Q 1-0, R-S 1/2-1/2",
                "R-P 1-0, Q-S 1-0",
                "P-S 1/2-1/2, Q-R 1-0",
            ],
        );
        // Points: P = 1 + 0 + ½ = 1.5; Q = 0 + 1 + 1 = 2; R = ½ + 1 + 0 = 1.5; S = ½ + 0 + ½ = 1.
        // Buchholz: P = Q 2 + R 1.5 + S 1 = 4.5; R = S 1 + P 1.5 + Q 2 = 4.5: tied.
        // Q = P 1.5 + S 1 + R 1.5 = 4; S = R 1.5 + Q 2 + P 1.5 = 5.
        // Sonneborn–Berger: P = Q 2 + ½·S 1 = 2.5; R = P 1.5 + ½·S 1 = 2: P ahead.
        // Q = S 1 + R 1.5 = 2.5; S = ½·R 1.5 + ½·P 1.5 = 1.5.
        // Name, points, Buchholz, Sonneborn–Berger:
        assert_eq!(
            table(&t),
            rows("Q 2.0 4.0 2.5; P 1.5 4.5 2.5; R 1.5 4.5 2.0; S 1.0 5.0 1.5")
        );
    }

    #[test]
    fn buchholz_comes_before_sonneborn_berger() {
        let t = tournament(
            Kind::Swiss { rounds: 2 },
            &["A", "B", "C", "D", "E", "F"],
            &[
                "A-B 1-0, C-D 1-0, E-F 1/2-1/2",
                "A-C 1-0, B-E 1/2-1/2, D-F 1/2-1/2",
            ],
        );
        // Points: A 2; C, E, F 1; B, D ½.
        // C = 1 (beat D) + 0; Buchholz D ½ + A 2 = 2.5; Sonneborn–Berger D ½ = 0.5.
        // E = ½ + ½; Buchholz F 1 + B ½ = 1.5; Sonneborn–Berger ½·F 1 + ½·B ½ = 0.75.
        // F = ½ + ½; Buchholz E 1 + D ½ = 1.5; Sonneborn–Berger ½·E 1 + ½·D ½ = 0.75.
        // C's Buchholz puts it first of the three, though its Sonneborn–Berger is the lowest.
        // A: Buchholz B ½ + C 1 = 1.5, Sonneborn–Berger the same. B: Buchholz A 2 + E 1 = 3,
        // Sonneborn–Berger ½·E 1 = 0.5; D: Buchholz C 1 + F 1 = 2, Sonneborn–Berger ½·F 1 = 0.5.
        assert_eq!(
            table(&t),
            rows("A 2 1.5 1.5; C 1 2.5 0.5; E 1 1.5 0.75; F 1 1.5 0.75; B 0.5 3 0.5; D 0.5 2 0.5")
        );
    }

    #[test]
    fn the_name_breaks_a_complete_tie_and_unfinished_games_count_nothing() {
        let names = ["zed", "amy", "bob", "cat"];
        let t = tournament(
            Kind::Swiss { rounds: 2 },
            &names,
            &["zed-amy 1/2-1/2, bob-cat -"],
        );
        // zed and amy: ½ each, Buchholz ½, Sonneborn–Berger ½·½ = ¼; by name amy first.
        // bob and cat are still playing: nothing yet.
        // Name, points, Buchholz, Sonneborn–Berger:
        assert_eq!(
            table(&t),
            rows("amy 0.5 0.5 0.25; zed 0.5 0.5 0.25; bob 0.0 0.0 0.0; cat 0.0 0.0 0.0")
        );
    }

    #[test]
    fn arena_scores_double_on_fire() {
        let (w, d, l) = (Points::ONE, Points::HALF, Points::ZERO);
        // W W W D L W = 2 + 2 + (on fire) 4 + (on fire) 2 + 0 + 2 = 12
        assert_eq!(arena_score(&[w, w, w, d, l, w]), 12);
        // W W D D = 2 + 2 + (on fire) 2 + 1 = 7
        assert_eq!(arena_score(&[w, w, d, d]), 7);
        // W L W L = 2 + 0 + 2 + 0 = 4
        assert_eq!(arena_score(&[w, l, w, l]), 4);
        assert_eq!(arena_score(&[]), 0);
    }

    #[test]
    fn arena_standings_order_by_arena_score() {
        let t = tournament(
            Kind::Arena,
            &["a", "b", "c"],
            &["a-b 1-0", "c-a 1/2-1/2", "b-c 1-0", "b-a 1-0", "b-c 1-0"],
        );
        // a: W D L = 2 + 1 + 0 = 3 (points 1.5); b: L W W W = 0 + 2 + 2 + 4 = 8 (points 3);
        // c: D L L = 1 (points 0.5).
        let lines = t.standings();
        let arena: Vec<(&str, Option<u32>, Points)> = lines
            .iter()
            .map(|s| (s.name.as_str(), s.arena_score, s.points))
            .collect();
        assert_eq!(
            arena,
            [
                ("b", Some(8), pts(3.0)),
                ("a", Some(3), pts(1.5)),
                ("c", Some(1), pts(0.5))
            ]
        );
    }
}
