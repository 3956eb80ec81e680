//! Swiss pairing, in the spirit of FIDE's Dutch system.
//!
//! - The active players are ranked by points, then rating, then the order they joined.
//! - An odd count gives a bye (a point) to the lowest-ranked player who has not had one (at most
//!   one each), or the next one up when the rest could not be paired around them.
//! - From the top, each player is paired within their score group, top half against bottom half
//!   (the group's first against the first of its lower half, and so on); a player who cannot
//!   be floats down to the top of the next group. Never a repeat.
//! - A search with backtracking finds the first pairing in that order. It never walks into a
//!   dead end: every step keeps the rest pairable, which Edmonds' blossom algorithm decides
//!   exactly. If the round cannot be paired without a repeat, it says so.
//! - It also looks ahead: a pairing is taken only if the rounds still to come can be paired
//!   after it (so that, say, eight players over seven rounds always meet everyone once); when
//!   no pairing allows that, or the look-ahead's effort runs out, the first pairing is taken.
//! - Colours: each player gets the colour they have had less; when even, the other one than
//!   last time; never a third time running, nor two more of one than of the other, where the
//!   two players' wishes allow (their wishes weigh in choosing partners too). When both wish
//!   for the same colour, the stronger wish wins, then the one who had the other colour the
//!   last time they differed, then the higher-ranked. In the first round the higher-ranked
//!   player has Silver on the first board, Red on the second, and so on.
//!
//! Everything is deterministic: the same tournament gives the same round.

use super::matching::{MAX, Set, Verdict, members, one, perfect, rounds_possible};
use super::{Kind, Pairing, PairingError, PlayerId, Points, Round, Tournament};
use khet_engine::Color;
use std::cmp::Reverse;

/// Steps the look-ahead may take for one round (a few milliseconds).
const EFFORT: u64 = 200_000;

/// The next round of a Swiss, paired (not yet added).
pub(super) fn pair_next_round(t: &Tournament) -> Result<Round, PairingError> {
    let Kind::Swiss { rounds } = t.kind else {
        return Err(PairingError::WrongKind);
    };
    let played = t.rounds.len();
    if played >= rounds as usize {
        return Err(PairingError::AllRoundsPaired);
    }
    if let Some(round) = t.rounds.iter().position(|r| !r.is_complete()) {
        return Err(PairingError::ResultsMissing { round });
    }
    let field = Field::of(t)?;
    let later = u32::try_from(rounds as usize - played - 1).unwrap_or(u32::MAX);
    let (pairs, bye) = search(&field, later)?;
    Ok(field.round(&pairs, bye))
}

/// The active players as the pairing sees them, numbered by rank (0 the first).
struct Field {
    ids: Vec<PlayerId>,
    points: Vec<Points>,
    /// Whom each may still meet.
    may_meet: Vec<Set>,
    had_bye: Set,
    /// The colours of the games each played over the board, in order.
    colours: Vec<Vec<Color>>,
}

impl Field {
    fn of(t: &Tournament) -> Result<Field, PairingError> {
        let mut active: Vec<(usize, &super::Entrant, Points)> = t
            .players
            .iter()
            .enumerate()
            .filter(|(_, e)| !e.withdrawn)
            .map(|(joined, e)| (joined, e, t.points_of(&e.id)))
            .collect();
        if active.len() < 2 {
            return Err(PairingError::TooFewPlayers);
        }
        if active.len() > MAX {
            return Err(PairingError::TooManyPlayers);
        }
        active.sort_by_key(|&(joined, e, points)| (Reverse(points), Reverse(e.rating), joined));
        let ids: Vec<PlayerId> = active.iter().map(|(_, e, _)| e.id.clone()).collect();
        let rank = |id: &PlayerId| ids.iter().position(|i| i == id);
        let everyone: Set = members_below(ids.len());
        let mut may_meet: Vec<Set> = (0..ids.len()).map(|i| everyone & !one(i)).collect();
        let mut had_bye: Set = 0;
        let mut colours = vec![Vec::new(); ids.len()];
        for pairing in t.rounds.iter().flat_map(|r| &r.pairings) {
            let silver = rank(&pairing.silver);
            let red = pairing.red.as_ref().and_then(rank);
            if let (Some(s), Some(r)) = (silver, red) {
                may_meet[s] &= !one(r);
                may_meet[r] &= !one(s);
            }
            let result = pairing.result.expect("earlier rounds are complete");
            if let (Some(s), None, super::Outcome::Bye) = (silver, &pairing.red, result) {
                had_bye |= one(s);
            }
            if result.played() {
                silver
                    .into_iter()
                    .for_each(|s| colours[s].push(Color::Silver));
                red.into_iter().for_each(|r| colours[r].push(Color::Red));
            }
        }
        Ok(Field {
            points: active.iter().map(|&(_, _, points)| points).collect(),
            ids,
            may_meet,
            had_bye,
            colours,
        })
    }

    fn len(&self) -> usize {
        self.ids.len()
    }

    /// The players `p` may meet among `unpaired`, best first: their score group's lower half
    /// from its top, then its upper half from its bottom, then the players below in rank order;
    /// within each of the three, those whose colour wishes fit `p`'s first.
    fn candidates(&self, p: usize, unpaired: Set) -> Vec<usize> {
        let others: Vec<usize> = members(unpaired & !one(p)).collect();
        let group: Vec<usize> = others
            .iter()
            .copied()
            .filter(|&q| self.points[q] == self.points[p])
            .collect();
        // p's group is p and `group`; its lower half starts at `group[half]`.
        let half = group.len().div_ceil(2).saturating_sub(1);
        let lower = &group[half..];
        let upper = group[..half].iter().rev();
        let below = others.iter().filter(|&&q| self.points[q] != self.points[p]);
        let mut ordered = Vec::with_capacity(others.len());
        for tier in [
            lower.to_vec(),
            upper.copied().collect(),
            below.copied().collect(),
        ] {
            let (fit, clash): (Vec<usize>, Vec<usize>) = tier
                .into_iter()
                .filter(|&q| self.may_meet[p] & one(q) != 0)
                .partition(|&q| !self.colours_clash(p, q));
            ordered.extend(fit);
            ordered.extend(clash);
        }
        ordered
    }

    /// Whether `p` and `q` both must have the same colour.
    fn colours_clash(&self, p: usize, q: usize) -> bool {
        let (a, strength_a) = wish(&self.colours[p]);
        let (b, strength_b) = wish(&self.colours[q]);
        strength_a == MUST && strength_b == MUST && a == b
    }

    /// The round: the pairs in board order (they come so from the search), colours given,
    /// the bye last.
    fn round(&self, pairs: &[(usize, usize)], bye: Option<usize>) -> Round {
        let mut pairings: Vec<Pairing> = pairs
            .iter()
            .enumerate()
            .map(|(board, &(high, low))| {
                let (silver, red) =
                    if high_gets_silver(&self.colours[high], &self.colours[low], board) {
                        (high, low)
                    } else {
                        (low, high)
                    };
                Pairing::game(self.ids[silver].clone(), self.ids[red].clone())
            })
            .collect();
        if let Some(b) = bye {
            pairings.push(Pairing::bye(self.ids[b].clone()));
        }
        Round { pairings }
    }
}

/// The set of players `0..n`.
fn members_below(n: usize) -> Set {
    if n >= MAX { Set::MAX } else { one(n) - 1 }
}

/// A round's pairs (by rank, the higher-ranked first) and its bye.
type Pairs = (Vec<(usize, usize)>, Option<usize>);

/// The pairs and the bye of the next round: the first in the Dutch order that lets the `later`
/// rounds be paired too, or else the first; without two players who must both have the same
/// colour meeting if that can be done, else with.
fn search(field: &Field, later: u32) -> Result<Pairs, PairingError> {
    let byes: Vec<Option<usize>> = if field.len().is_multiple_of(2) {
        vec![None]
    } else {
        let eligible: Vec<Option<usize>> = (0..field.len())
            .rev()
            .filter(|&b| field.had_bye & one(b) == 0)
            .map(Some)
            .collect();
        if eligible.is_empty() {
            return Err(PairingError::NoByeLeft);
        }
        eligible
    };
    let everyone = members_below(field.len());
    // Look no further than the rounds everyone still has opponents for: past them no pairing
    // would pass, and the search would only spend its effort finding so.
    let later = (0..field.len())
        .map(|i| (field.may_meet[i] & everyone).count_ones())
        .min()
        .map_or(0, |fewest| later.min(fewest.saturating_sub(1)));
    let colours_kept: Vec<Set> = (0..field.len())
        .map(|p| {
            members(field.may_meet[p])
                .filter(|&q| !field.colours_clash(p, q))
                .fold(0, |set, q| set | one(q))
        })
        .collect();
    let mut effort = EFFORT;
    let mut fallback = None;
    for graph in [&colours_kept, &field.may_meet] {
        for &bye in &byes {
            let players = everyone & !bye.map_or(0, one);
            if !perfect(graph, players) {
                continue;
            }
            let mut search = Search {
                field,
                graph,
                everyone,
                bye,
                later,
                effort: &mut effort,
                pairs: Vec::new(),
                first: None,
                chosen: None,
            };
            let flow = search.descend(players);
            let (first, chosen) = (search.first.take(), search.chosen.take());
            if let Some(pairs) = chosen {
                return Ok((pairs, bye));
            }
            if flow == Flow::Stop {
                return Ok((first.expect("a first pairing before stopping"), bye));
            }
            if fallback.is_none() {
                fallback = first.map(|pairs| (pairs, bye));
            }
        }
    }
    fallback.ok_or(PairingError::RepeatUnavoidable)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    /// Search on.
    Go,
    /// A pairing is chosen.
    Done,
    /// Out of effort: take the first pairing found.
    Stop,
}

struct Search<'a> {
    field: &'a Field,
    /// Who may meet whom this round.
    graph: &'a [Set],
    everyone: Set,
    bye: Option<usize>,
    later: u32,
    effort: &'a mut u64,
    pairs: Vec<(usize, usize)>,
    first: Option<Vec<(usize, usize)>>,
    chosen: Option<Vec<(usize, usize)>>,
}

impl Search<'_> {
    /// Pairs the players of `unpaired` (which can all be paired), the highest-ranked first.
    fn descend(&mut self, unpaired: Set) -> Flow {
        if unpaired == 0 {
            return self.leaf();
        }
        let p = unpaired.trailing_zeros() as usize;
        for q in self.field.candidates(p, unpaired) {
            let rest = unpaired & !one(p) & !one(q);
            if self.graph[p] & one(q) == 0 || !perfect(self.graph, rest) {
                continue;
            }
            self.pairs.push((p, q));
            let flow = self.descend(rest);
            self.pairs.pop();
            if flow != Flow::Go {
                return flow;
            }
            if *self.effort == 0 {
                return Flow::Stop;
            }
            *self.effort -= 1;
        }
        Flow::Go
    }

    /// A whole pairing: taken if the later rounds can follow it.
    fn leaf(&mut self) -> Flow {
        if self.first.is_none() {
            self.first = Some(self.pairs.clone());
        }
        let mut may_meet = self.field.may_meet.clone();
        for &(p, q) in &self.pairs {
            may_meet[p] &= !one(q);
            may_meet[q] &= !one(p);
        }
        let had_bye = self.field.had_bye | self.bye.map_or(0, one);
        let verdict = rounds_possible(
            &may_meet,
            self.everyone,
            self.everyone & !had_bye,
            self.later,
            self.effort,
        );
        match verdict {
            Verdict::Yes => {
                self.chosen = Some(self.pairs.clone());
                Flow::Done
            }
            Verdict::No => Flow::Go,
            Verdict::Unknown => Flow::Stop,
        }
    }
}

/// A wish that must be granted where it can: no third colour running, no gap of three.
const MUST: u8 = 3;

/// The colour a player with these `colours` wishes for next, and how strongly (0: none; 1: the
/// other than last time; 2: the one had less; [`MUST`]).
fn wish(colours: &[Color]) -> (Option<Color>, u8) {
    let silver = colours.iter().filter(|&&c| c == Color::Silver).count();
    let red = colours.len() - silver;
    let less = if silver < red {
        Color::Silver
    } else {
        Color::Red
    };
    match colours {
        [.., a, b] if a == b => (Some(b.other()), MUST),
        _ if silver.abs_diff(red) >= 2 => (Some(less), MUST),
        _ if silver != red => (Some(less), 2),
        [.., last] => (Some(last.other()), 1),
        [] => (None, 0),
    }
}

/// Whether the higher-ranked of two players (`high`, with `low`'s colours beside) gets Silver
/// on board `board` (0 the first).
fn high_gets_silver(high: &[Color], low: &[Color], board: usize) -> bool {
    let (high_wish, high_strength) = wish(high);
    let (low_wish, low_strength) = wish(low);
    match (high_wish, low_wish) {
        (None, None) => board.is_multiple_of(2),
        (Some(c), None) => c == Color::Silver,
        (None, Some(c)) => c == Color::Red,
        (Some(h), Some(l)) if h != l => h == Color::Silver,
        (Some(both), Some(_)) => {
            let high_wins = if high_strength != low_strength {
                high_strength > low_strength
            } else {
                // The last time they had different colours, the one who had the other colour
                // gets it now; if they never did, the higher-ranked.
                high.iter()
                    .rev()
                    .zip(low.iter().rev())
                    .find(|(h, l)| h != l)
                    .is_none_or(|(h, _)| *h != both)
            };
            high_wins == (both == Color::Silver)
        }
    }
}

#[cfg(test)]
#[path = "swiss_tests.rs"]
mod tests;
