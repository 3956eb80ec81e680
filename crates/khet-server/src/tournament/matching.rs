//! Matchings in the small graph of who may still meet whom: whether everyone can be paired at
//! once (Edmonds' blossom algorithm, exact and fast), and whether several rounds more can be
//! (a search with a bounded effort). Players are numbered `0..n`, `n <= MAX`, and a set of them
//! is a bit set.

/// A set of players, bit `i` for player `i`.
pub(crate) type Set = u128;

/// The most players a graph holds.
pub(crate) const MAX: usize = Set::BITS as usize;

/// The players of a set, in increasing order.
pub(crate) fn members(set: Set) -> impl Iterator<Item = usize> {
    let mut rest = set;
    std::iter::from_fn(move || {
        if rest == 0 {
            return None;
        }
        let i = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        Some(i)
    })
}

/// The set of one player.
pub(crate) const fn one(i: usize) -> Set {
    1 << i
}

const NONE: usize = usize::MAX;

/// Whether the players of `within` can all be paired at once, each with one they may meet
/// (`may_meet[i]`: the players `i` may meet; symmetric, without `i` itself).
pub(crate) fn perfect(may_meet: &[Set], within: Set) -> bool {
    if within.count_ones() % 2 == 1 {
        return false;
    }
    let mut blossom = Blossom::new(may_meet, within);
    // Most graphs here are dense: a greedy start leaves little for the augmenting paths.
    blossom.greedy();
    for root in members(within) {
        if blossom.mate[root] == NONE {
            let end = blossom.augmenting_path(root);
            if end == NONE {
                // Edmonds: a vertex with no augmenting path now never gets one.
                return false;
            }
            blossom.augment(end);
        }
    }
    true
}

/// Edmonds' algorithm for a maximum matching in a general graph, as in the classic compact
/// form: a breadth-first search for an augmenting path from each free vertex, odd cycles
/// (blossoms) shrunk by giving their vertices one base.
struct Blossom<'a> {
    may_meet: &'a [Set],
    within: Set,
    mate: Vec<usize>,
    parent: Vec<usize>,
    base: Vec<usize>,
    used: Set,
    queue: Vec<usize>,
}

impl<'a> Blossom<'a> {
    fn new(may_meet: &'a [Set], within: Set) -> Blossom<'a> {
        let n = may_meet.len();
        Blossom {
            may_meet,
            within,
            mate: vec![NONE; n],
            parent: vec![NONE; n],
            base: (0..n).collect(),
            used: 0,
            queue: Vec::new(),
        }
    }

    fn greedy(&mut self) {
        for v in members(self.within) {
            if self.mate[v] != NONE {
                continue;
            }
            if let Some(w) = members(self.may_meet[v] & self.within).find(|&w| self.mate[w] == NONE)
            {
                self.mate[v] = w;
                self.mate[w] = v;
            }
        }
    }

    /// The lowest common ancestor of `a` and `b` in the search's forest, by bases.
    fn common_base(&self, mut a: usize, mut b: usize) -> usize {
        let mut seen: Set = 0;
        loop {
            a = self.base[a];
            seen |= one(a);
            if self.mate[a] == NONE {
                break;
            }
            a = self.parent[self.mate[a]];
        }
        loop {
            b = self.base[b];
            if seen & one(b) != 0 {
                return b;
            }
            b = self.parent[self.mate[b]];
        }
    }

    /// Marks the blossom's path from `v` down to `base`, pointing parents towards `child`.
    fn mark_path(&mut self, mut v: usize, base: usize, mut child: usize, blossom: &mut Set) {
        while self.base[v] != base {
            *blossom |= one(self.base[v]) | one(self.base[self.mate[v]]);
            self.parent[v] = child;
            child = self.mate[v];
            v = self.parent[self.mate[v]];
        }
    }

    /// The free vertex an augmenting path from `root` ends at, or `NONE`.
    fn augmenting_path(&mut self, root: usize) -> usize {
        self.used = one(root);
        self.parent.fill(NONE);
        for v in members(self.within) {
            self.base[v] = v;
        }
        self.queue.clear();
        self.queue.push(root);
        let mut head = 0;
        while head < self.queue.len() {
            let v = self.queue[head];
            head += 1;
            for to in members(self.may_meet[v] & self.within) {
                if self.base[v] == self.base[to] || self.mate[v] == to {
                    continue;
                }
                let odd_cycle =
                    to == root || (self.mate[to] != NONE && self.parent[self.mate[to]] != NONE);
                if odd_cycle {
                    self.shrink(v, to);
                } else if self.parent[to] == NONE {
                    self.parent[to] = v;
                    if self.mate[to] == NONE {
                        return to;
                    }
                    let next = self.mate[to];
                    self.used |= one(next);
                    self.queue.push(next);
                }
            }
        }
        NONE
    }

    /// Shrinks the blossom closed by the edge `v`–`to`.
    fn shrink(&mut self, v: usize, to: usize) {
        let base = self.common_base(v, to);
        let mut blossom: Set = 0;
        self.mark_path(v, base, to, &mut blossom);
        self.mark_path(to, base, v, &mut blossom);
        for i in members(self.within) {
            if blossom & one(self.base[i]) != 0 {
                self.base[i] = base;
                if self.used & one(i) == 0 {
                    self.used |= one(i);
                    self.queue.push(i);
                }
            }
        }
    }

    /// Flips the matching along the path that ends at `end`.
    fn augment(&mut self, mut end: usize) {
        while end != NONE {
            let previous = self.parent[end];
            let next = self.mate[previous];
            self.mate[end] = previous;
            self.mate[previous] = end;
            end = next;
        }
    }
}

/// What a bounded search found out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// It can be done.
    Yes,
    /// It cannot.
    No,
    /// The search ran out of effort before knowing.
    Unknown,
}

/// Whether `rounds` more rounds can be paired among `players` without two meeting twice: each
/// round a perfect matching of the players, less one of `may_have_bye` (who then cannot have
/// another) when their count is odd, no edge used twice. Exact unless it runs out of `effort`
/// (steps of the search, spent from the caller's count).
pub(crate) fn rounds_possible(
    may_meet: &[Set],
    players: Set,
    may_have_bye: Set,
    rounds: u32,
    effort: &mut u64,
) -> Verdict {
    let mut search = Lookahead {
        may_meet: may_meet.to_vec(),
        players,
        may_have_bye,
        effort,
    };
    search.rounds(rounds)
}

struct Lookahead<'a> {
    may_meet: Vec<Set>,
    players: Set,
    may_have_bye: Set,
    effort: &'a mut u64,
}

impl Lookahead<'_> {
    fn rounds(&mut self, rounds: u32) -> Verdict {
        if rounds == 0 {
            return Verdict::Yes;
        }
        let odd = self.players.count_ones() % 2 == 1;
        // Everyone needs `rounds` more opponents (or a bye among them).
        let short = members(self.players).any(|i| {
            let byes = u32::from(odd && self.may_have_bye & one(i) != 0);
            (self.may_meet[i] & self.players).count_ones() + byes < rounds
        });
        if short || (odd && self.may_have_bye & self.players == 0) {
            return Verdict::No;
        }
        if !odd {
            return self.fill(self.players, rounds);
        }
        self.first_yes(members(self.may_have_bye & self.players), |search, bye| {
            search.may_have_bye &= !one(bye);
            let verdict = search.fill(search.players & !one(bye), rounds);
            search.may_have_bye |= one(bye);
            verdict
        })
    }

    /// Pairs everyone in `left` this round (the most constrained first), then the next rounds.
    fn fill(&mut self, left: Set, rounds: u32) -> Verdict {
        if *self.effort == 0 {
            return Verdict::Unknown;
        }
        *self.effort -= 1;
        if left == 0 {
            return self.rounds(rounds - 1);
        }
        let Some(p) =
            members(left).min_by_key(|&i| (self.may_meet[i] & left & !one(i)).count_ones())
        else {
            return Verdict::Yes;
        };
        self.first_yes(members(self.may_meet[p] & left), |search, q| {
            search.may_meet[p] &= !one(q);
            search.may_meet[q] &= !one(p);
            let verdict = search.fill(left & !one(p) & !one(q), rounds);
            search.may_meet[p] |= one(q);
            search.may_meet[q] |= one(p);
            verdict
        })
    }

    /// Tries `choices` in turn: yes at the first yes; unknown if any was, or the effort ran out;
    /// else no.
    fn first_yes(
        &mut self,
        choices: impl Iterator<Item = usize>,
        mut try_one: impl FnMut(&mut Self, usize) -> Verdict,
    ) -> Verdict {
        let mut unknown = false;
        for choice in choices {
            match try_one(self, choice) {
                Verdict::Yes => return Verdict::Yes,
                Verdict::Unknown => unknown = true,
                Verdict::No => {}
            }
            if *self.effort == 0 {
                return Verdict::Unknown;
            }
        }
        if unknown {
            Verdict::Unknown
        } else {
            Verdict::No
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The graph of `n` players with these edges.
    fn graph(n: usize, edges: &[(usize, usize)]) -> Vec<Set> {
        let mut may_meet = vec![0; n];
        for &(a, b) in edges {
            may_meet[a] |= one(b);
            may_meet[b] |= one(a);
        }
        may_meet
    }

    /// Everyone meets everyone among `n` players.
    fn complete(n: usize) -> Vec<Set> {
        (0..n).map(|i| everyone(n) & !one(i)).collect()
    }

    fn everyone(n: usize) -> Set {
        (1 << n) - 1
    }

    #[test]
    fn perfect_matchings_are_found_exactly() {
        assert!(perfect(&complete(8), everyone(8)));
        assert!(!perfect(&complete(7), everyone(7)), "an odd count");
        // Two triangles: each is odd, so no perfect matching, though everyone has two to meet.
        let triangles = [(0, 1), (1, 2), (0, 2), (3, 4), (4, 5), (3, 5)];
        assert!(!perfect(&graph(6, &triangles), everyone(6)));
        // Joined by one edge, they have one: 0-1, 2-3, 4-5.
        let joined = [&triangles[..], &[(2, 3)]].concat();
        assert!(perfect(&graph(6, &joined), everyone(6)));
        // A five-cycle with a tail: 0-1-2-3-4-0 and 4-5; without 4 and 0, the tail's 5 has no
        // one.
        let tailed = graph(6, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (4, 5)]);
        assert!(perfect(&tailed, everyone(6)));
        assert!(!perfect(&tailed, everyone(6) & !one(4) & !one(0)));
        // The greedy start pairs 0-2 and 1-3, leaving 4 and 5; the one perfect matching,
        // 0-5 1-3 2-4, is reached only through the odd cycle 0-2-4.
        let blossom = [(0, 2), (0, 4), (0, 5), (1, 3), (2, 3), (2, 4), (3, 4)];
        assert!(perfect(&graph(6, &blossom), everyone(6)));
    }

    #[test]
    fn lookahead_knows_when_rounds_run_out() {
        let mut effort = 1_000_000;
        let mut rounds = |may_meet: &[Set], n: usize, rounds: u32| {
            rounds_possible(may_meet, everyone(n), 0, rounds, &mut effort)
        };
        // Eight players who have met no one: seven rounds, not eight.
        assert_eq!(rounds(&complete(8), 8, 7), Verdict::Yes);
        assert_eq!(rounds(&complete(8), 8, 8), Verdict::No);
        // Left to meet: a triangle and a five-cycle (each player two opponents). Not even one
        // round: odd cycles have no perfect matching.
        let cycles = [
            (0, 1),
            (1, 2),
            (2, 0),
            (3, 4),
            (4, 5),
            (5, 6),
            (6, 7),
            (7, 3),
        ];
        assert_eq!(rounds(&graph(8, &cycles), 8, 1), Verdict::No);
        // Two triangles joined by one edge: every perfect matching needs that edge, so one
        // round can be paired and two cannot, though everyone has two opponents left.
        let joined = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)];
        assert_eq!(rounds(&graph(6, &joined), 6, 1), Verdict::Yes);
        assert_eq!(rounds(&graph(6, &joined), 6, 2), Verdict::No);
        // Seven players, one of whom has had a bye: three rounds need three other byes.
        let byes = everyone(7) & !one(0);
        let verdict = rounds_possible(&complete(7), everyone(7), byes, 6, &mut 1_000_000);
        assert_eq!(verdict, Verdict::Yes);
        let verdict = rounds_possible(&complete(7), everyone(7), byes, 7, &mut 1_000_000);
        assert_eq!(verdict, Verdict::No, "six byes left for seven rounds");
        // With no effort left it cannot know.
        let verdict = rounds_possible(&complete(8), everyone(8), 0, 7, &mut 0);
        assert_eq!(verdict, Verdict::Unknown);
    }
}
