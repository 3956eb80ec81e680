//! Tournaments as players and the operator meet them: created, joined, left, started, paused
//! and ended, and shown (`TournamentView`). Their rounds are paired and their results recorded
//! by the director (`directing`); the rules themselves are `crate::tournament`'s.

use super::Hub;
use crate::messages::Refused;
use crate::secret;
use crate::store::{PlayerRow, StoreError, TournamentRow};
use crate::tournament::{Kind, PlayerId, Tournament};
use crate::util::now_ms;
use khet_engine::Setup;
use khet_protocol::tournament::{
    MAX_TOURNAMENT_NAME, TournamentEntry, TournamentPairing, TournamentPlayer,
};
use khet_protocol::{NewTournament, Refusal, TournamentKind, TournamentStatus, TournamentView};

/// How many tournaments not over a player may have created (the operator any number): each
/// costs the server a look every second.
pub const MAX_CREATED_BY_PLAYER: i64 = 3;

/// How many tournaments the list shows.
pub const LIST_LIMIT: u32 = 100;

/// Who asks: a player (the creator may start their own), or the operator (anything).
#[derive(Clone, Copy)]
pub enum Director<'a> {
    /// The server's operator.
    Operator,
    /// A player.
    Player(&'a PlayerRow),
}

fn unknown(code: &str) -> Refused {
    Refused::new(
        Refusal::UnknownGame,
        format!("no tournament has the code {code}"),
    )
}

fn rules_kind(kind: TournamentKind) -> Kind {
    match kind {
        TournamentKind::Swiss { rounds } => Kind::Swiss { rounds },
        TournamentKind::RoundRobin { double } => Kind::RoundRobin { double },
        TournamentKind::Arena { .. } => Kind::Arena,
    }
}

/// Checks a tournament's settings: a name, a kind of a length the server takes, a built-in
/// setup, a clock the server takes.
fn check(new: &NewTournament) -> Result<String, Refused> {
    let bad = |why: String| Refused::new(Refusal::BadGame, why);
    let name = khet_protocol::check_text(&new.name, "tournament's name", MAX_TOURNAMENT_NAME)
        .map_err(bad)?;
    new.kind.check().map_err(bad)?;
    Setup::builtin(&new.setup).map_err(|e| bad(e.to_string()))?;
    new.clock.check().map_err(bad)?;
    Ok(name)
}

impl Hub {
    /// Creates a tournament; its code.
    pub async fn create_tournament(
        &self,
        new: &NewTournament,
        by: Director<'_>,
    ) -> Result<String, Refused> {
        let name = check(new)?;
        if let Director::Player(p) = by
            && self.inner.store.tournaments_created_by(&p.id).await? >= MAX_CREATED_BY_PLAYER
        {
            return Err(Refused::new(
                Refusal::NotNow,
                format!(
                    "you have {MAX_CREATED_BY_PLAYER} tournaments not over: end or play one first"
                ),
            ));
        }
        let setup = Setup::builtin(&new.setup)
            .map_err(|e| Refused::new(Refusal::BadGame, e.to_string()))?;
        let mut row = TournamentRow {
            code: String::new(),
            name,
            kind: new.kind,
            setup: setup.name.clone(),
            clock: new.clock,
            rated: new.rated,
            listed: new.listed,
            status: TournamentStatus::Created,
            creator: match by {
                Director::Operator => None,
                Director::Player(p) => Some(p.id.clone()),
            },
            created_ms: now_ms(),
            starts_ms: new.starts_ms,
            ends_ms: None,
            state: Tournament::new(rules_kind(new.kind)),
            version: 0,
        };
        let mut tries = 0;
        loop {
            row.code = secret::new_code()
                .map_err(|_| Refused::new(Refusal::Storage, "the server has no random numbers"))?;
            match self.inner.store.insert_tournament(&row).await {
                Ok(()) => break,
                Err(e) if tries < 3 => {
                    tries += 1;
                    tracing::warn!("new tournament: {e}; trying another code");
                }
                Err(e) => return Err(e.into()),
            }
        }
        tracing::info!(code = %row.code, name = %row.name, kind = new.kind.name(), "tournament created");
        Ok(row.code)
    }

    /// Tournament `code`, or why not.
    async fn stored_tournament(&self, code: &str) -> Result<TournamentRow, Refused> {
        self.inner
            .store
            .tournament(code)
            .await?
            .ok_or_else(|| unknown(code))
    }

    /// Changes tournament `code` by `change` (which may refuse) and stores it, read again and
    /// changed again if the director (on this node or another) stepped it meanwhile.
    async fn change_tournament(
        &self,
        code: &str,
        change: impl Fn(&mut TournamentRow) -> Result<(), Refused>,
    ) -> Result<TournamentRow, Refused> {
        for _ in 0..20 {
            let mut row = self.stored_tournament(code).await?;
            change(&mut row)?;
            let step = crate::store::TournamentStep {
                status: row.status,
                starts_ms: row.starts_ms,
                ends_ms: row.ends_ms,
                state: row.state.clone(),
                games: Vec::new(),
            };
            if self
                .inner
                .store
                .step_tournament(code, row.version, &step)
                .await?
            {
                row.version += 1;
                return Ok(row);
            }
        }
        Err(Refused::new(
            Refusal::Storage,
            "the tournament changed too often meanwhile; try again",
        ))
    }

    /// `player` joins tournament `code` (before it or during it).
    pub async fn join_tournament(
        &self,
        code: &str,
        player: &PlayerRow,
    ) -> Result<TournamentView, Refused> {
        let id = PlayerId::from(player.id.as_str());
        let rating = player.rating.rating.round() as i32;
        let row = self
            .change_tournament(code, |row| {
                if row.status == TournamentStatus::Finished {
                    return Err(Refused::new(Refusal::NotNow, "the tournament is over"));
                }
                let max = crate::tournament::MAX_PLAYERS;
                if row.state.players.len() >= max && row.state.entrant(&id).is_none() {
                    return Err(Refused::new(
                        Refusal::NotNow,
                        format!("the tournament is full: {max} players"),
                    ));
                }
                row.state
                    .join(id.clone(), &player.name, rating)
                    .map_err(|e| Refused::new(Refusal::NotNow, e.to_string()))
            })
            .await?;
        Ok(view(&row))
    }

    /// `player` leaves tournament `code`: paired no more, their results stand.
    pub async fn withdraw_from_tournament(
        &self,
        code: &str,
        player: &PlayerRow,
    ) -> Result<TournamentView, Refused> {
        let id = PlayerId::from(player.id.as_str());
        let row = self
            .change_tournament(code, |row| {
                row.state
                    .withdraw(&id)
                    .map_err(|e| Refused::new(Refusal::NotNow, e.to_string()))
            })
            .await?;
        Ok(view(&row))
    }

    /// Starts tournament `code` now (its creator or the operator); the director pairs it.
    pub async fn start_tournament(
        &self,
        code: &str,
        by: Director<'_>,
    ) -> Result<TournamentView, Refused> {
        self.change_tournament(code, |row| {
            may_direct(row, by)?;
            if row.status != TournamentStatus::Created {
                return Err(Refused::new(Refusal::NotNow, "the tournament has started"));
            }
            if row.state.active().count() < 2 {
                return Err(Refused::new(
                    Refusal::NotNow,
                    "a tournament needs two players to start",
                ));
            }
            row.starts_ms = Some(now_ms());
            Ok(())
        })
        .await?;
        self.step_tournament(code).await?;
        self.tournament_view(code).await
    }

    /// The operator holds tournament `code` (games in play go on, no new pairings), or lets it
    /// go on (`paused` false).
    pub async fn pause_tournament(
        &self,
        code: &str,
        paused: bool,
    ) -> Result<TournamentView, Refused> {
        let (from, to) = if paused {
            (TournamentStatus::Running, TournamentStatus::Paused)
        } else {
            (TournamentStatus::Paused, TournamentStatus::Running)
        };
        let row = self
            .change_tournament(code, |row| {
                if row.status != from {
                    return Err(Refused::new(
                        Refusal::NotNow,
                        format!("the tournament is not {}", status_word(from)),
                    ));
                }
                row.status = to;
                Ok(())
            })
            .await?;
        Ok(view(&row))
    }

    /// The operator ends tournament `code` now: no more pairings; its games in play are played
    /// out (their results count), and it is over once they are (at once if none is).
    pub async fn end_tournament(&self, code: &str) -> Result<TournamentView, Refused> {
        let now = now_ms();
        self.change_tournament(code, |row| {
            match row.status {
                TournamentStatus::Finished => {
                    return Err(Refused::new(Refusal::NotNow, "the tournament is over"));
                }
                TournamentStatus::Created => row.status = TournamentStatus::Finished,
                TournamentStatus::Running | TournamentStatus::Paused => {
                    row.status = TournamentStatus::Running;
                    row.ends_ms = Some(row.ends_ms.map_or(now, |end| end.min(now)));
                }
            }
            Ok(())
        })
        .await?;
        self.step_tournament(code).await?;
        self.tournament_view(code).await
    }

    /// Tournament `code` as everyone sees it.
    pub async fn tournament_view(&self, code: &str) -> Result<TournamentView, Refused> {
        Ok(view(&self.stored_tournament(code).await?))
    }

    /// The listed tournaments, newest first.
    pub async fn tournament_list(&self) -> Result<Vec<TournamentEntry>, StoreError> {
        let rows = self.inner.store.tournaments(LIST_LIMIT).await?;
        Ok(rows
            .iter()
            .map(|row| TournamentEntry {
                code: row.code.clone(),
                name: row.name.clone(),
                kind: row.kind,
                clock: row.clock,
                status: row.status,
                starts_ms: row.starts_ms,
                players: u32::try_from(row.state.players.len()).unwrap_or(u32::MAX),
            })
            .collect())
    }
}

fn status_word(status: TournamentStatus) -> &'static str {
    match status {
        TournamentStatus::Created => "created",
        TournamentStatus::Running => "running",
        TournamentStatus::Paused => "paused",
        TournamentStatus::Finished => "finished",
    }
}

/// Refused unless `by` may start or steer the tournament: its creator, or the operator.
fn may_direct(row: &TournamentRow, by: Director<'_>) -> Result<(), Refused> {
    match by {
        Director::Operator => Ok(()),
        Director::Player(p) if row.creator.as_deref() == Some(p.id.as_str()) => Ok(()),
        Director::Player(_) => Err(Refused::new(
            Refusal::NotYourSeat,
            "only the tournament's creator or the server's operator may start it",
        )),
    }
}

/// A tournament as everyone sees it: its standings, and its rounds with the players' names.
pub fn view(row: &TournamentRow) -> TournamentView {
    let t = &row.state;
    let name = |id: &PlayerId| {
        t.entrant(id)
            .map_or_else(|| id.to_string(), |e| e.name.clone())
    };
    let players = t
        .standings()
        .into_iter()
        .map(|s| TournamentPlayer {
            id: s.id.to_string(),
            name: s.name,
            points: s.points.as_f64(),
            buchholz: s.buchholz.as_f64(),
            sonneborn_berger: s.sonneborn_berger.as_f64(),
            arena_score: s.arena_score,
            games: s.games,
            withdrawn: s.withdrawn,
        })
        .collect();
    let rounds = t
        .rounds
        .iter()
        .map(|round| {
            round
                .pairings
                .iter()
                .map(|p| TournamentPairing {
                    silver: name(&p.silver),
                    red: p.red.as_ref().map(name),
                    silver_id: p.silver.to_string(),
                    red_id: p.red.as_ref().map(ToString::to_string),
                    result: p.result.map(|r| r.as_str().to_string()),
                    code: p.code.clone(),
                })
                .collect()
        })
        .collect();
    TournamentView {
        code: row.code.clone(),
        name: row.name.clone(),
        kind: row.kind,
        setup: row.setup.clone(),
        clock: row.clock,
        rated: row.rated,
        status: row.status,
        starts_ms: row.starts_ms,
        ends_ms: row.ends_ms,
        players,
        rounds,
    }
}
