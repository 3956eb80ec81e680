//! The tournament director: every node looks at the tournaments under way each second and
//! steps each one: starts it when its time comes, records the results of its finished games
//! (a player who never took their seat lost by forfeit), pairs the next round (an arena: the
//! free players, until its time is up), makes the games of new pairings, and ends it. A step
//! is written only if nobody wrote the tournament since it was read, with the games it made, in
//! one transaction ([`crate::store::Store::step_tournament`]): nodes may step one tournament at
//! once, a node may die between any two statements, and every pairing is made and stored once,
//! before anyone is shown it. Then the node that made the games takes them up, so that their
//! clocks run whoever comes.

use super::Hub;
use crate::store::{GameRow, Lease, StoreError, TournamentRow, TournamentStep};
use crate::tournament::{Kind, Outcome, PlayerId, Round, Tournament};
use crate::util::now_ms;
use khet_engine::{Color, Setup};
use khet_protocol::{SeatChoice, Status, TournamentKind, TournamentStatus};
use std::time::Duration;

/// How often the director looks.
const LOOK_EVERY: Duration = Duration::from_secs(1);

impl Hub {
    /// Directs the tournaments, for as long as the server runs.
    pub async fn direct_tournaments(self) {
        let mut every = tokio::time::interval(LOOK_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            every.tick().await;
            let codes = match self.inner.store.tournaments_to_direct().await {
                Ok(codes) => codes,
                Err(e) => {
                    crate::metrics::failed("looking at the tournaments", &e);
                    continue;
                }
            };
            for code in codes {
                if let Err(e) = self.step_tournament(&code).await {
                    tracing::warn!(tournament = %code, "directing: {e}");
                }
            }
        }
    }

    /// One step of tournament `code` (nothing if nothing is to be done, or another node did
    /// it first: the next look sees what it did).
    pub(crate) async fn step_tournament(&self, code: &str) -> Result<(), StoreError> {
        let Some(row) = self.inner.store.tournament(code).await? else {
            return Ok(());
        };
        let now = now_ms();
        let mut next = Next {
            status: row.status,
            starts_ms: row.starts_ms,
            ends_ms: row.ends_ms,
            state: row.state.clone(),
        };
        if next.status == TournamentStatus::Created {
            if row.starts_ms.is_none_or(|at| at > now) {
                return Ok(());
            }
            self.start(&row, &mut next, now);
        }
        self.record_results(&mut next.state).await?;
        // Past its end (an arena's time, or the operator's `end`): games in play are played
        // out, nothing new is paired or made.
        let ended = next.ends_ms.is_some_and(|end| now >= end);
        if next.status == TournamentStatus::Running && !ended {
            pair(&row, &mut next, now);
        }
        let games = if next.status == TournamentStatus::Running && !ended {
            self.games_for(&row, &mut next.state)?
        } else {
            Vec::new()
        };
        if next.status != TournamentStatus::Finished && over(&row, &next, now) {
            next.status = TournamentStatus::Finished;
            tracing::info!(tournament = %row.code, "tournament finished");
        }
        let step = TournamentStep {
            status: next.status,
            starts_ms: next.starts_ms,
            ends_ms: next.ends_ms,
            state: next.state,
            games,
        };
        let unchanged = step.status == row.status
            && step.starts_ms == row.starts_ms
            && step.ends_ms == row.ends_ms
            && step.state == row.state;
        if unchanged {
            return Ok(());
        }
        if !self
            .inner
            .store
            .step_tournament(code, row.version, &step)
            .await?
        {
            return Ok(());
        }
        for game in &step.games {
            self.take_up(&game.code).await?;
        }
        Ok(())
    }

    /// Starts the tournament: a Swiss pairs its first round, a round robin makes its table,
    /// an arena sets its end.
    fn start(&self, row: &TournamentRow, next: &mut Next, now: u64) {
        next.status = TournamentStatus::Running;
        next.starts_ms = Some(now);
        if let TournamentKind::Arena { minutes } = row.kind {
            next.ends_ms = Some(now + u64::from(minutes) * 60_000);
        }
        match next.state.start() {
            Ok(()) => tracing::info!(tournament = %row.code, "tournament started"),
            Err(e) => {
                // Too few players when its time came: it ends as it is.
                tracing::info!(tournament = %row.code, "tournament not started: {e}");
                next.status = TournamentStatus::Finished;
            }
        }
    }

    /// Records the results of the tournament's games that ended since the last step.
    async fn record_results(&self, t: &mut Tournament) -> Result<(), StoreError> {
        let mut ended = Vec::new();
        for (round, r) in t.rounds.iter().enumerate() {
            for p in &r.pairings {
                let (Some(code), None, Some(red)) = (&p.code, p.result, &p.red) else {
                    continue;
                };
                if let Some(game) = self.inner.store.game(code).await?
                    && game.status == Status::Over
                {
                    ended.push((round, p.silver.clone(), red.clone(), game));
                }
            }
        }
        for (round, silver, red, game) in ended {
            // A seat nobody took: its player never came, and loses by forfeit.
            let came = [game.secrets[0].is_some(), game.secrets[1].is_some()];
            let outcome = match (came, game.result) {
                ([true, true], Some(result)) => Outcome::from_game(&result),
                ([false, false], _) => Outcome::BothAbsent,
                ([true, false], _) => Outcome::RedAbsent,
                ([false, true], _) => Outcome::SilverAbsent,
                ([true, true], None) => Outcome::BothAbsent,
            };
            t.record_result(round, &silver, outcome)
                .map_err(|e| StoreError::Corrupt(format!("a tournament's game: {e}")))?;
            for (side, id) in [(Color::Silver, &silver), (Color::Red, &red)] {
                if outcome.absent(side) && t.absences(id) >= crate::tournament::ABSENCES_TO_WITHDRAW
                {
                    let _ = t.withdraw(id);
                }
            }
        }
        Ok(())
    }

    /// The games of the pairings that have none yet, made (codes drawn, seats the players'),
    /// and their codes written into the pairings.
    fn games_for(
        &self,
        row: &TournamentRow,
        t: &mut Tournament,
    ) -> Result<Vec<GameRow>, StoreError> {
        let setup = Setup::builtin(&row.setup)
            .map_err(|e| StoreError::Corrupt(format!("a tournament's setup: {e}")))?;
        let now = now_ms();
        let mut games = Vec::new();
        // A round robin's rounds are all paired at the start, and played one at a time.
        let first_open = t.rounds.iter().position(|r| !r.is_complete());
        let round_robin = matches!(t.kind, Kind::RoundRobin { .. });
        for (n, round) in t.rounds.iter_mut().enumerate() {
            if round_robin && Some(n) != first_open {
                continue;
            }
            for p in &mut round.pairings {
                let Some(red) = &p.red else { continue };
                if p.code.is_some() || p.result.is_some() {
                    continue;
                }
                let code = crate::secret::new_code().map_err(StoreError::System)?;
                games.push(GameRow {
                    code: code.clone(),
                    setup: setup.name.clone(),
                    start: setup.position.to_string(),
                    rated: row.rated,
                    listed: row.listed,
                    clock: Some(row.clock),
                    creator_choice: SeatChoice::Silver,
                    players: [Some(p.silver.to_string()), Some(red.to_string())],
                    secrets: [None, None],
                    status: Status::Playing,
                    result: None,
                    clocks_ms: [row.clock.initial_ms; 2],
                    event: 0,
                    created_ms: now,
                    started_ms: Some(now),
                    ended_ms: None,
                    lease: Lease {
                        owner: Some(self.inner.node.clone()),
                        token: 1,
                        until_ms: self.lease_until(),
                    },
                    tournament: Some(row.code.clone()),
                    days_per_move: None,
                    turn_ms: Some(now),
                });
                p.code = Some(code);
            }
        }
        Ok(games)
    }
}

/// What a step makes of a tournament.
struct Next {
    status: TournamentStatus,
    starts_ms: Option<u64>,
    ends_ms: Option<u64>,
    state: Tournament,
}

/// Pairs what is to be paired now: a Swiss's next round once the last is complete, a round
/// robin's games of withdrawn players lost by forfeit, an arena's free players while its time
/// runs.
fn pair(row: &TournamentRow, next: &mut Next, now: u64) {
    let t = &mut next.state;
    match t.kind {
        Kind::Swiss { rounds } => {
            let complete = t.rounds.last().is_none_or(Round::is_complete);
            if complete && t.rounds.len() < rounds as usize {
                match t.pair_next_round() {
                    Ok(_) => {
                        tracing::info!(tournament = %row.code, round = t.rounds.len(), "round paired");
                    }
                    Err(e) => {
                        tracing::info!(tournament = %row.code, "no next round: {e}");
                        next.status = TournamentStatus::Finished;
                    }
                }
            }
        }
        Kind::RoundRobin { .. } => {
            for round in 0..t.rounds.len() {
                t.forfeit_withdrawn(round);
            }
        }
        Kind::Arena => {
            if next.ends_ms.is_some_and(|end| now < end) {
                let free: Vec<(PlayerId, u64)> = t
                    .active()
                    .filter(|e| t.unfinished_game(&e.id).is_none())
                    .map(|e| (e.id.clone(), 0))
                    .collect();
                if free.len() >= 2 {
                    let _ = t.pair_arena(&free);
                }
            }
        }
    }
}

/// Whether the tournament is over: every round played (a Swiss's, a round robin's), or its end
/// come (an arena's time, the operator's `end`) and the games it had made played out.
fn over(row: &TournamentRow, next: &Next, now: u64) -> bool {
    let t = &next.state;
    if next.ends_ms.is_some_and(|end| now >= end) {
        return t
            .rounds
            .iter()
            .flat_map(|r| &r.pairings)
            .all(|p| p.code.is_none() || p.result.is_some());
    }
    match row.kind {
        TournamentKind::Arena { .. } => false,
        _ => next.status != TournamentStatus::Created && t.is_finished(),
    }
}
