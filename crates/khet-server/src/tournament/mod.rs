//! Club tournaments, as pure rules: no storage, no network, no clock. A [`Tournament`] is a value
//! the server stores (it serializes with serde) and changes only through the calls here: players
//! join and withdraw, rounds are paired, results and absences are recorded, standings are read.
//!
//! - **Swiss** ([`Kind::Swiss`], `swiss`): a set number of rounds; each round paired by score in
//!   the spirit of FIDE's Dutch system, never a repeat, a bye (a point) to the lowest-placed
//!   player without one when the count is odd, colours balanced. A round is paired only once
//!   the previous one is complete ([`Tournament::pair_next_round`]).
//! - **Round robin** ([`Kind::RoundRobin`], `round_robin`): FIDE's Berger tables, every round
//!   known at the start ([`Tournament::start`]); double: the same table again, colours swapped.
//! - **Arena** ([`Kind::Arena`], `arena`): no rounds; whoever is free is paired again at once by
//!   score ([`Tournament::pair_arena`]), each batch of pairings kept as a [`Round`].
//!
//! Standings and their tie-breaks, and the rules chosen for byes and absences, are in
//! `standings` ([`Tournament::standings`]).

mod arena;
mod matching;
mod pairing;
mod round_robin;
mod standings;
mod swiss;

pub use arena::Free;
pub use pairing::{Outcome, Pairing, PlayerId, Points, Round};
pub use standings::{Standing, arena_score};

use khet_engine::Color;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The kind of tournament, with what sets its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Kind {
    /// A Swiss of this many rounds.
    Swiss {
        /// Rounds to play.
        rounds: u32,
    },
    /// Everyone meets everyone once, or twice with colours swapped.
    RoundRobin {
        /// Twice round.
        double: bool,
    },
    /// Free players paired again at once until the time is up (the server keeps the time).
    Arena,
}

/// A player in the tournament.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entrant {
    /// Who.
    pub id: PlayerId,
    /// Their name when they joined, for the standings (and the last tie-break).
    pub name: String,
    /// Their rating when they joined: the Swiss seeds players of equal score by it.
    pub rating: i32,
    /// Gone: withdrew, or was absent twice. Not paired again; their results stand.
    pub withdrawn: bool,
}

/// A tournament: its kind, its players in the order they joined, and its rounds so far (for a
/// round robin, every round from the start; for an arena, each batch of pairings made at once).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tournament {
    /// The kind.
    pub kind: Kind,
    /// The players, in the order they joined.
    pub players: Vec<Entrant>,
    /// The rounds paired so far, in order.
    pub rounds: Vec<Round>,
}

/// Why a round could not be paired.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PairingError {
    /// The tournament has rounds already.
    AlreadyStarted,
    /// Not something this kind of tournament does (an arena has no rounds to pair; a round
    /// robin's rounds are all made at the start).
    WrongKind,
    /// Every round the tournament has is paired.
    AllRoundsPaired,
    /// The round before has games without a result.
    ResultsMissing {
        /// The round (0 for the first).
        round: usize,
    },
    /// Fewer than two players to pair.
    TooFewPlayers,
    /// More players than the Swiss pairing handles.
    TooManyPlayers,
    /// Every active player has had a bye, and the count is odd.
    NoByeLeft,
    /// Every way to pair the round repeats a game: too many rounds for the players.
    RepeatUnavoidable,
}

impl fmt::Display for PairingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PairingError::AlreadyStarted => f.write_str("the tournament has started"),
            PairingError::WrongKind => f.write_str("this kind of tournament has no such round"),
            PairingError::AllRoundsPaired => f.write_str("every round is paired"),
            PairingError::ResultsMissing { round } => {
                write!(f, "round {} has games without a result", round + 1)
            }
            PairingError::TooFewPlayers => f.write_str("fewer than two players"),
            PairingError::TooManyPlayers => write!(
                f,
                "more than {} players: too many for the Swiss pairing",
                matching::MAX
            ),
            PairingError::NoByeLeft => {
                f.write_str("an odd count of players, each of whom has had a bye")
            }
            PairingError::RepeatUnavoidable => f.write_str(
                "no pairing without two players meeting again: too many rounds for the players",
            ),
        }
    }
}

impl std::error::Error for PairingError {}

/// Why a join, a result or an absence was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EntryError {
    /// The player is in already.
    AlreadyIn,
    /// A round robin takes no one once its table is made.
    Closed,
    /// No such player in the tournament.
    NoSuchPlayer,
    /// No such round.
    NoSuchRound,
    /// The player has no game in that round (not paired, or a bye or a rest).
    NoGame,
    /// The game was played: it has a result over the board, not an absence.
    Played,
}

impl fmt::Display for EntryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EntryError::AlreadyIn => "the player is in the tournament already",
            EntryError::Closed => "a round robin takes no one once its table is made",
            EntryError::NoSuchPlayer => "no such player in the tournament",
            EntryError::NoSuchRound => "no such round",
            EntryError::NoGame => "the player has no game in that round",
            EntryError::Played => "the game was played",
        })
    }
}

impl std::error::Error for EntryError {}

/// The most players a tournament takes (the Swiss pairing's limit).
pub const MAX_PLAYERS: usize = matching::MAX;

/// Absences after which a player is withdrawn.
pub const ABSENCES_TO_WITHDRAW: usize = 2;

impl Tournament {
    /// A tournament of `kind` with no players yet.
    pub fn new(kind: Kind) -> Tournament {
        Tournament {
            kind,
            players: Vec::new(),
            rounds: Vec::new(),
        }
    }

    /// `id` joins (before or during the tournament; a withdrawn player comes back). A round
    /// robin takes no one once its table is made.
    pub fn join(&mut self, id: PlayerId, name: &str, rating: i32) -> Result<(), EntryError> {
        let closed = matches!(self.kind, Kind::RoundRobin { .. }) && !self.rounds.is_empty();
        if let Some(entrant) = self.players.iter_mut().find(|e| e.id == id) {
            if !entrant.withdrawn {
                return Err(EntryError::AlreadyIn);
            }
            if closed {
                return Err(EntryError::Closed);
            }
            entrant.withdrawn = false;
            return Ok(());
        }
        if closed {
            return Err(EntryError::Closed);
        }
        self.players.push(Entrant {
            id,
            name: name.to_owned(),
            rating,
            withdrawn: false,
        });
        Ok(())
    }

    /// `id` withdraws: paired no more (a round robin's games left to them are theirs to lose by
    /// forfeit: [`Tournament::forfeit_withdrawn`]).
    pub fn withdraw(&mut self, id: &PlayerId) -> Result<(), EntryError> {
        let entrant = self.entrant_mut(id).ok_or(EntryError::NoSuchPlayer)?;
        entrant.withdrawn = true;
        Ok(())
    }

    /// The player `id`.
    pub fn entrant(&self, id: &PlayerId) -> Option<&Entrant> {
        self.players.iter().find(|e| e.id == *id)
    }

    fn entrant_mut(&mut self, id: &PlayerId) -> Option<&mut Entrant> {
        self.players.iter_mut().find(|e| e.id == *id)
    }

    /// The players still in, in the order they joined.
    pub fn active(&self) -> impl Iterator<Item = &Entrant> {
        self.players.iter().filter(|e| !e.withdrawn)
    }

    /// Starts it: a Swiss pairs its first round, a round robin makes its whole table from the
    /// active players in the order they joined (their Berger numbers), an arena does nothing
    /// (its players are paired as they come free).
    pub fn start(&mut self) -> Result<(), PairingError> {
        if !self.rounds.is_empty() {
            return Err(PairingError::AlreadyStarted);
        }
        match self.kind {
            Kind::Swiss { .. } => self.pair_next_round().map(|_| ()),
            Kind::RoundRobin { double } => {
                let players: Vec<PlayerId> = self.active().map(|e| e.id.clone()).collect();
                if players.len() < 2 {
                    return Err(PairingError::TooFewPlayers);
                }
                self.rounds = round_robin::schedule(&players, double);
                Ok(())
            }
            Kind::Arena => Ok(()),
        }
    }

    /// A Swiss's next round, paired and added (the previous round must be complete).
    pub fn pair_next_round(&mut self) -> Result<&Round, PairingError> {
        let round = swiss::pair_next_round(self)?;
        self.rounds.push(round);
        Ok(self.rounds.last().expect("just pushed"))
    }

    /// An arena's pairings among the players `free` (each with the time, in any unit, since
    /// which they have been free), added as a round; `None` if no one could be paired.
    pub fn pair_arena(&mut self, free: &[(PlayerId, u64)]) -> Result<Option<&Round>, PairingError> {
        if self.kind != Kind::Arena {
            return Err(PairingError::WrongKind);
        }
        let pairings = arena::pair(&self.arena_free(free));
        if pairings.is_empty() {
            return Ok(None);
        }
        self.rounds.push(Round { pairings });
        Ok(self.rounds.last())
    }

    /// The round in which `player` has a game without a result, if any (an arena's game in
    /// play, a round's game to be played).
    pub fn unfinished_game(&self, player: &PlayerId) -> Option<usize> {
        self.rounds.iter().position(|round| {
            round
                .pairing_of(player)
                .is_some_and(|p| p.is_game() && p.result.is_none())
        })
    }

    /// Records the outcome of `player`'s game in round `round` (a correction replaces it).
    pub fn record_result(
        &mut self,
        round: usize,
        player: &PlayerId,
        outcome: Outcome,
    ) -> Result<(), EntryError> {
        let pairing = self.game_mut(round, player)?;
        pairing.result = Some(outcome);
        Ok(())
    }

    /// Records that `player` did not come to their game in round `round`: they lose it by
    /// forfeit (both do if their opponent was absent too). Tells whether the player is now
    /// withdrawn: they are after [`ABSENCES_TO_WITHDRAW`] absences in the tournament.
    pub fn record_absence(&mut self, round: usize, player: &PlayerId) -> Result<bool, EntryError> {
        let pairing = self.game_mut(round, player)?;
        let side = pairing.side_of(player).expect("the player's pairing");
        let outcome = match (pairing.result, side) {
            (Some(result), _) if result.played() => return Err(EntryError::Played),
            (Some(Outcome::RedAbsent), Color::Silver)
            | (Some(Outcome::SilverAbsent), Color::Red) => Outcome::BothAbsent,
            (Some(Outcome::BothAbsent), _) => Outcome::BothAbsent,
            (_, Color::Silver) => Outcome::SilverAbsent,
            (_, Color::Red) => Outcome::RedAbsent,
        };
        pairing.result = Some(outcome);
        let absences = self.absences(player);
        let entrant = self.entrant_mut(player).ok_or(EntryError::NoSuchPlayer)?;
        if absences >= ABSENCES_TO_WITHDRAW {
            entrant.withdrawn = true;
        }
        Ok(entrant.withdrawn)
    }

    /// `player`'s points so far (games without a result count nothing).
    pub fn points_of(&self, player: &PlayerId) -> Points {
        self.rounds
            .iter()
            .filter_map(|r| r.pairing_of(player))
            .map(|p| p.points_of(player))
            .sum()
    }

    /// How many games `player` has lost by not coming.
    pub fn absences(&self, player: &PlayerId) -> usize {
        self.rounds
            .iter()
            .filter_map(|round| round.pairing_of(player))
            .filter(|p| match (p.side_of(player), p.result) {
                (Some(side), Some(result)) => result.absent(side),
                _ => false,
            })
            .count()
    }

    /// In round `round`, every game without a result in which a withdrawn player sits is lost by
    /// them by forfeit (by both if both are withdrawn); how many games that decided. For a round
    /// robin, whose table keeps the withdrawn.
    pub fn forfeit_withdrawn(&mut self, round: usize) -> usize {
        let gone = |t: &Tournament, id: Option<&PlayerId>| {
            id.and_then(|id| t.entrant(id)).is_some_and(|e| e.withdrawn)
        };
        let decided: Vec<(usize, Outcome)> = self
            .rounds
            .get(round)
            .map(|r| {
                r.pairings
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.is_game() && p.result.is_none())
                    .filter_map(|(board, p)| {
                        let silver_gone = gone(self, Some(&p.silver));
                        let red_gone = gone(self, p.red.as_ref());
                        let outcome = match (silver_gone, red_gone) {
                            (true, true) => Outcome::BothAbsent,
                            (true, false) => Outcome::SilverAbsent,
                            (false, true) => Outcome::RedAbsent,
                            (false, false) => return None,
                        };
                        Some((board, outcome))
                    })
                    .collect()
            })
            .unwrap_or_default();
        for &(board, outcome) in &decided {
            self.rounds[round].pairings[board].result = Some(outcome);
        }
        decided.len()
    }

    /// Whether every round is paired and complete (an arena ends by the server's clock).
    pub fn is_finished(&self) -> bool {
        let all_rounds = match self.kind {
            Kind::Swiss { rounds } => self.rounds.len() >= rounds as usize,
            Kind::RoundRobin { .. } => !self.rounds.is_empty(),
            Kind::Arena => false,
        };
        all_rounds && self.rounds.iter().all(Round::is_complete)
    }

    /// The standings, first place first (`standings` says how they are ordered).
    pub fn standings(&self) -> Vec<Standing> {
        standings::standings(self)
    }

    /// `player`'s game in round `round`.
    fn game_mut(&mut self, round: usize, player: &PlayerId) -> Result<&mut Pairing, EntryError> {
        let round = self.rounds.get_mut(round).ok_or(EntryError::NoSuchRound)?;
        match round.pairing_of_mut(player) {
            Some(pairing) if pairing.is_game() => Ok(pairing),
            _ => Err(EntryError::NoGame),
        }
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! What the tests share: a seeded generator and quick ways to make fields.

    use super::*;

    /// A linear congruential generator (Knuth's MMIX constants): the same numbers for the same
    /// seed, and no dependency.
    pub(crate) struct Lcg(u64);

    impl Lcg {
        pub(crate) fn new(seed: u64) -> Lcg {
            Lcg(seed ^ 0x9E37_79B9_7F4A_7C15)
        }

        /// A number below `n`.
        pub(crate) fn below(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 33) % n
        }

        /// A game's outcome: wins, losses and draws, as a club plays them.
        pub(crate) fn outcome(&mut self) -> Outcome {
            match self.below(5) {
                0 | 1 => Outcome::SilverWon,
                2 | 3 => Outcome::RedWon,
                _ => Outcome::Draw,
            }
        }
    }

    /// The player called `name` (id and name alike).
    pub(crate) fn id(name: &str) -> PlayerId {
        PlayerId::from(name)
    }

    /// A tournament of `kind` with `n` players, `p1`, `p2`..., rated 2000, 1990...
    pub(crate) fn with_players(kind: Kind, n: usize) -> Tournament {
        let mut t = Tournament::new(kind);
        for i in 0..n {
            let name = format!("p{}", i + 1);
            let rating = 2000 - 10 * i32::try_from(i).expect("small");
            t.join(id(&name), &name, rating).expect("a new player");
        }
        t
    }

    /// Every game of round `round` given an outcome from `rng`.
    pub(crate) fn play_round(t: &mut Tournament, round: usize, rng: &mut Lcg) {
        for pairing in &mut t.rounds[round].pairings {
            if pairing.result.is_none() {
                pairing.result = Some(rng.outcome());
            }
        }
    }

    /// The unordered pairs of players who met (or were paired to meet) in the tournament.
    pub(crate) fn meetings(t: &Tournament) -> Vec<(PlayerId, PlayerId)> {
        let mut pairs = Vec::new();
        for round in &t.rounds {
            for p in &round.pairings {
                if let Some(red) = &p.red {
                    let (a, b) = if p.silver < *red {
                        (p.silver.clone(), red.clone())
                    } else {
                        (red.clone(), p.silver.clone())
                    };
                    pairs.push((a, b));
                }
            }
        }
        pairs
    }
}

#[cfg(test)]
mod tests {
    use super::testing::*;
    use super::*;

    #[test]
    fn two_absences_withdraw_a_player_and_lose_their_games() {
        let mut t = with_players(Kind::Swiss { rounds: 4 }, 4);
        t.start().unwrap();
        let p4 = id("p4");
        let first = t.record_absence(0, &p4).unwrap();
        assert!(!first, "one absence leaves them in");
        let pairing = t.rounds[0].pairing_of(&p4).unwrap().clone();
        let side = pairing.side_of(&p4).unwrap();
        assert_eq!(pairing.points_of(&p4), Points::ZERO);
        let opponent = pairing.opponent_of(&p4).unwrap();
        assert_eq!(pairing.points_of(opponent), Points::ONE, "a win by forfeit");
        assert!(pairing.result.unwrap().absent(side));
        let mut rng = Lcg::new(1);
        play_round(&mut t, 0, &mut rng);
        t.pair_next_round().unwrap();
        assert!(t.record_absence(1, &p4).unwrap(), "two absences withdraw");
        assert!(t.entrant(&p4).unwrap().withdrawn);
        play_round(&mut t, 1, &mut rng);
        // Three players left: two play, one has the bye; p4 is not paired.
        let round = t.pair_next_round().unwrap();
        assert!(round.pairing_of(&p4).is_none());
        assert_eq!(round.pairings.len(), 2);
        // A played game is not turned into an absence.
        let silver = round.pairings[0].silver.clone();
        t.record_result(2, &silver, Outcome::Draw).unwrap();
        assert_eq!(t.record_absence(2, &silver), Err(EntryError::Played));
    }

    #[test]
    fn both_absent_both_lose() {
        let mut t = with_players(Kind::Swiss { rounds: 3 }, 2);
        t.start().unwrap();
        t.record_absence(0, &id("p1")).unwrap();
        t.record_absence(0, &id("p2")).unwrap();
        assert_eq!(t.rounds[0].pairings[0].result, Some(Outcome::BothAbsent));
        // The same absence told twice counts once.
        t.record_absence(0, &id("p2")).unwrap();
        assert_eq!(t.absences(&id("p2")), 1);
    }

    #[test]
    fn a_round_robin_closes_at_its_start_and_forfeits_the_withdrawn() {
        let mut t = with_players(Kind::RoundRobin { double: false }, 4);
        t.start().unwrap();
        assert_eq!(
            t.join(id("late"), "late", 1500),
            Err(EntryError::Closed),
            "the table is made"
        );
        t.withdraw(&id("p2")).unwrap();
        assert_eq!(t.forfeit_withdrawn(1), 1, "p2's one game of round 2");
        let pairing = t.rounds[1].pairing_of(&id("p2")).unwrap();
        assert_eq!(pairing.points_of(&id("p2")), Points::ZERO);
        assert_eq!(
            pairing.points_of(pairing.opponent_of(&id("p2")).unwrap()),
            Points::ONE
        );
    }

    #[test]
    fn a_tournament_goes_to_json_and_back() {
        let mut t = with_players(Kind::Swiss { rounds: 3 }, 3);
        t.start().unwrap();
        t.record_result(0, &id("p1"), Outcome::Draw).unwrap();
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(json["kind"]["type"], "swiss");
        assert_eq!(json["kind"]["rounds"], 3);
        let pairing = &json["rounds"][0][0];
        assert_eq!(pairing["result"], "1/2-1/2");
        let bye = &json["rounds"][0][1];
        assert_eq!(bye["red"], serde_json::Value::Null);
        assert_eq!(bye["result"], "bye");
        let back: Tournament = serde_json::from_value(json).unwrap();
        assert_eq!(back, t);
        let standings = serde_json::to_value(t.standings()).unwrap();
        assert_eq!(standings[0]["points"], 1.0, "the bye");
        assert_eq!(standings[1]["points"], 0.5);
    }
}
