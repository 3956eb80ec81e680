//! The store's rows: a player, what the operator said of them, a game, its lease, and the
//! values written with a game's end, each read from a row of the database.

use super::{Result, StoreError};
use khet_engine::GameResult;
use khet_protocol::{ClockSpec, PlayerInfo, SeatChoice, Status};
use skillratings::glicko2::Glicko2Rating;
use sqlx::Row;
use sqlx::any::AnyRow;

/// What the operator said of a player.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Standing {
    /// The name is the operator's: the player's own is not taken again.
    pub named_by_operator: bool,
    /// Barred, with the reason the player is told.
    pub barred: Option<String>,
}

impl Standing {
    pub(super) fn from_row(row: &AnyRow) -> Result<Standing> {
        Ok(Standing {
            named_by_operator: row.try_get::<i64, _>("named_by_operator")? != 0,
            barred: row.try_get("barred")?,
        })
    }
}

/// A player as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerRow {
    /// Public id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Glicko-2 rating.
    pub rating: Glicko2Rating,
    /// Rated games finished.
    pub games: i64,
}

impl PlayerRow {
    /// As others see the player.
    pub fn info(&self) -> PlayerInfo {
        PlayerInfo {
            id: self.id.clone(),
            name: self.name.clone(),
            rating: self.rating.rating,
            deviation: self.rating.deviation,
            games: u32::try_from(self.games).unwrap_or(u32::MAX),
        }
    }

    pub(super) fn from_row(row: &AnyRow) -> Result<PlayerRow> {
        Ok(PlayerRow {
            id: row.try_get("id")?,
            name: row.try_get("name")?,
            rating: Glicko2Rating {
                rating: row.try_get("rating")?,
                deviation: row.try_get("deviation")?,
                volatility: row.try_get("volatility")?,
            },
            games: row.try_get("games")?,
        })
    }
}

/// A game as stored (its moves are in [`Store::moves`]).
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    /// The game's code, its key.
    pub code: String,
    /// The setup's name.
    pub setup: String,
    /// The starting position string.
    pub start: String,
    /// Rated or casual.
    pub rated: bool,
    /// Shown in the lobby.
    pub listed: bool,
    /// The time control.
    pub clock: Option<ClockSpec>,
    /// What the creator asked for.
    pub creator_choice: SeatChoice,
    /// Silver's and Red's player ids.
    pub players: [Option<String>; 2],
    /// The hashes of Silver's and Red's seat secrets.
    pub secrets: [Option<String>; 2],
    /// Where it stands.
    pub status: Status,
    /// How it ended.
    pub result: Option<GameResult>,
    /// Both clocks as of the last change.
    pub clocks_ms: [u64; 2],
    /// The last event's number.
    pub event: u64,
    /// When it was created, started and ended (Unix milliseconds).
    pub created_ms: u64,
    /// When the second player joined.
    pub started_ms: Option<u64>,
    /// When it ended.
    pub ended_ms: Option<u64>,
    /// The lease the room holds (its token names it in every write).
    pub lease: Lease,
    /// The tournament it is a game of: its seats are its two players', each of whom takes
    /// theirs by their identity (no secret was handed out when it was paired).
    pub tournament: Option<String>,
    /// Days a move, for a correspondence game (which has no clock).
    pub days_per_move: Option<u32>,
    /// When the side to move's turn began (Unix milliseconds): the game's start, or its last
    /// move or take-back.
    pub turn_ms: Option<u64>,
}

/// Which node owns a game, with which token, until when.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lease {
    /// The owning node's name.
    pub owner: Option<String>,
    /// Drawn anew at each taking; every write names it.
    pub token: i64,
    /// Unix milliseconds.
    pub until_ms: u64,
}

pub(super) fn status_text(status: Status) -> &'static str {
    match status {
        Status::Open => "open",
        Status::Playing => "playing",
        Status::Over => "over",
    }
}

pub(super) fn choice_text(choice: SeatChoice) -> &'static str {
    match choice {
        SeatChoice::Silver => "silver",
        SeatChoice::Red => "red",
        SeatChoice::Random => "random",
    }
}

pub(super) fn ms(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

pub(super) fn unms(v: i64) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

impl GameRow {
    /// When the side to move's days run out (Unix milliseconds), in a correspondence game
    /// being played: the game's days a move from the turn's start.
    pub fn deadline_ms(&self) -> Option<u64> {
        let days = self.days_per_move?;
        if self.status != Status::Playing {
            return None;
        }
        let since = self.turn_ms.or(self.started_ms)?;
        Some(since.saturating_add(u64::from(days) * khet_protocol::DAY_MS))
    }

    pub(super) fn from_row(row: &AnyRow) -> Result<GameRow> {
        let bad = |what: &str| StoreError::Corrupt(format!("a stored game has a bad {what}"));
        let status = match row.try_get::<String, _>("status")?.as_str() {
            "open" => Status::Open,
            "playing" => Status::Playing,
            "over" => Status::Over,
            _ => return Err(bad("status")),
        };
        let result = match row.try_get::<Option<String>, _>("result")? {
            Some(json) => Some(serde_json::from_str(&json).map_err(|_| bad("result"))?),
            None => None,
        };
        let initial: Option<i64> = row.try_get("initial_ms")?;
        let increment: Option<i64> = row.try_get("increment_ms")?;
        let clock = initial.map(|i| ClockSpec {
            initial_ms: unms(i),
            increment_ms: unms(increment.unwrap_or(0)),
        });
        let choice: String = row.try_get("creator_choice")?;
        Ok(GameRow {
            code: row.try_get("code")?,
            setup: row.try_get("setup")?,
            start: row.try_get("start")?,
            rated: row.try_get::<i64, _>("rated")? != 0,
            listed: row.try_get::<i64, _>("listed")? != 0,
            clock,
            creator_choice: choice.parse().map_err(|_| bad("colour"))?,
            players: [row.try_get("silver_player")?, row.try_get("red_player")?],
            secrets: [row.try_get("silver_secret")?, row.try_get("red_secret")?],
            status,
            result,
            clocks_ms: [
                unms(row.try_get::<Option<i64>, _>("silver_ms")?.unwrap_or(0)),
                unms(row.try_get::<Option<i64>, _>("red_ms")?.unwrap_or(0)),
            ],
            event: unms(row.try_get("event")?),
            created_ms: unms(row.try_get("created_ms")?),
            started_ms: row.try_get::<Option<i64>, _>("started_ms")?.map(unms),
            ended_ms: row.try_get::<Option<i64>, _>("ended_ms")?.map(unms),
            lease: Lease {
                owner: row.try_get("owner")?,
                token: row.try_get("lease_token")?,
                until_ms: unms(row.try_get("lease_until_ms")?),
            },
            tournament: row.try_get("tournament")?,
            days_per_move: row
                .try_get::<Option<i64>, _>("days_per_move")?
                .map(|d| u32::try_from(d).map_err(|_| bad("number of days")))
                .transpose()?,
            turn_ms: row.try_get::<Option<i64>, _>("turn_ms")?.map(unms),
        })
    }
}

/// A game of the public list.
pub struct PublicGame {
    /// The game.
    pub game: GameRow,
    /// Silver's and Red's names.
    pub names: [Option<String>; 2],
    /// Its number of moves.
    pub plies: u64,
}

/// A rating change to store with a game's end.
pub struct RatingChange {
    /// The player.
    pub id: String,
    /// Their new rating.
    pub rating: Glicko2Rating,
}

/// A limit on the rated games a joiner may start against its opponent: fewer than `games`
/// since `since_ms` ([`crate::identity::IdentityPolicy::rated_per_pair_per_day`]).
pub struct PairCap {
    /// The opponent's id.
    pub opponent: String,
    /// The most rated games started since `since_ms`.
    pub games: u32,
    /// Unix milliseconds.
    pub since_ms: u64,
}
