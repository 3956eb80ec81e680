//! Challenges: one player asks another, by id, for a game; the other accepts or declines
//! wherever they are connected.

#[cfg(doc)]
use crate::ClientMsg;
use crate::{ClockSpec, PlayerInfo, SeatChoice};
use serde::{Deserialize, Serialize};

/// What became of a challenge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChallengeStatus {
    /// Waiting for the challenged player's answer.
    Pending,
    /// Accepted: the game is [`ChallengeInfo::game`].
    Accepted,
    /// Declined by the challenged player.
    Declined,
    /// Withdrawn by the challenger.
    Withdrawn,
    /// Not answered in time ([`CHALLENGE_LIFETIME_MS`]).
    Expired,
}

/// How long a challenge waits for an answer: long enough for a player who is away for the day
/// to find it when they come back.
pub const CHALLENGE_LIFETIME_MS: u64 = 24 * 60 * 60 * 1000;

/// The most challenges one player may have waiting for an answer at once, as the open-game
/// caps bound creates: each is a stored row and a message to someone else.
pub const MAX_PENDING_CHALLENGES: usize = 10;

/// A challenge as both of its players see it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChallengeInfo {
    /// Its id, for [`ClientMsg::AcceptChallenge`] and the others.
    pub id: String,
    /// The challenger.
    pub from: PlayerInfo,
    /// The challenged player.
    pub to: PlayerInfo,
    /// The setup.
    pub setup: String,
    /// The time control.
    pub clock: Option<ClockSpec>,
    /// The challenger's side.
    pub color: SeatChoice,
    /// Rated or casual.
    pub rated: bool,
    /// The finished game this is a rematch of.
    #[serde(default)]
    pub rematch_of: Option<String>,
    /// Days a move, for a correspondence game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days_per_move: Option<u32>,
    /// What became of it.
    pub status: ChallengeStatus,
    /// The game an accept created.
    #[serde(default)]
    pub game: Option<String>,
}
