//! The messages of Khet's online play: what a client (the game, `khet-engine online`, a test)
//! and the server (`khet-server`) say to each other over one WebSocket, as JSON text frames.
//! `docs/online-protocol.md` is the reader's version of this file.
//!
//! The server owns the truth: it checks every move with the engine, fires the shot, runs the
//! clocks and stores each change before it tells anyone. A client keeps a [`Mirror`] of a game:
//! the engine's [`Game`] rebuilt from the moves the server sends, so that the board, the laser
//! and the rules a client shows are the engine's own.
//!
//! Everything that changes a game is an [`GameEvent`] with a number, one more than the last. A
//! client that misses one (a dropped connection, a restarted program) asks again with the last
//! number it has, and the server sends what it missed or the whole game ([`ServerMsg::Sync`]):
//! each move is applied exactly once. A move names the ply it answers, so a move sent twice is
//! refused the second time rather than played twice.

#![warn(missing_docs)]

mod challenge;
#[cfg(feature = "client")]
pub mod client;
pub mod correspondence;
mod mirror;
mod names;
pub mod reach;
pub mod tournament;
pub mod view;

pub use challenge::{
    CHALLENGE_LIFETIME_MS, ChallengeInfo, ChallengeStatus, MAX_PENDING_CHALLENGES,
};
pub use correspondence::{DAY_MS, DAYS_PER_MOVE, MyGame};
pub use mirror::{Applied, Mirror, MirrorError};
pub use names::{check_name, check_text, is_format_char};
pub use tournament::{NewTournament, TournamentKind, TournamentStatus, TournamentView};

use khet_engine::{Color, GameResult};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The protocol's version; a client says which it speaks in [`ClientMsg::Hello`].
pub const VERSION: u32 = 1;

/// The server's port unless `--listen` says otherwise.
pub const DEFAULT_PORT: u16 = 7878;

/// The largest message a client may send; every message a client has is far smaller (a name, a
/// code, a move), so anything larger is refused and the connection closed.
pub const MAX_CLIENT_MESSAGE_BYTES: usize = 4 * 1024;

/// The most characters a display name may have.
pub const MAX_NAME_CHARS: usize = 24;

/// A game's code: this many characters of [`CODE_ALPHABET`].
pub const CODE_CHARS: usize = 8;

/// The letters and digits of codes: no `i`, `l`, `o`, `0` or `1`, which people read out wrong.
pub const CODE_ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";

/// A secret (an identity or a seat) is this many lowercase hexadecimal digits: 128 random bits.
pub const SECRET_CHARS: usize = 32;

/// How long a player must have been gone before the one who stayed may claim the game (won or
/// drawn). lichess's players argue about this (lila#6044): too short and a dropped Wi-Fi costs a
/// game, too long and the one who stayed is held hostage. Half a minute covers a dropped
/// connection, a laptop lid reopened or the game restarted (the clients reconnect within a few
/// seconds), while the absent player's clock keeps running all the time.
pub const ABANDON_GRACE_MS: u64 = 30_000;

/// The shortest and longest time controls the server accepts: a second a side (the game offers
/// nothing under a minute, but a bot or a test may want it), and three hours a side, beyond
/// which a game is not live play.
pub const CLOCK_LIMITS_MS: (u64, u64) = (1_000, 3 * 60 * 60 * 1000);

/// The largest increment the server accepts.
pub const MAX_INCREMENT_MS: u64 = 60_000;

/// A time control: each side's time at the start and what each move adds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClockSpec {
    /// Each side's time at the start, in milliseconds.
    pub initial_ms: u64,
    /// What each move adds to the mover's clock, in milliseconds.
    pub increment_ms: u64,
}

impl ClockSpec {
    /// `minutes` + `seconds` a move.
    pub const fn minutes(minutes: u64, increment_seconds: u64) -> ClockSpec {
        ClockSpec {
            initial_ms: minutes * 60_000,
            increment_ms: increment_seconds * 1000,
        }
    }

    /// Whether the server accepts it ([`CLOCK_LIMITS_MS`], [`MAX_INCREMENT_MS`]).
    pub fn check(self) -> Result<(), String> {
        let (low, high) = CLOCK_LIMITS_MS;
        if !(low..=high).contains(&self.initial_ms) {
            return Err(format!(
                "a clock must start with {} s to {} h a side",
                low / 1000,
                high / 3_600_000
            ));
        }
        if self.increment_ms > MAX_INCREMENT_MS {
            return Err(format!(
                "the increment may be at most {} s",
                MAX_INCREMENT_MS / 1000
            ));
        }
        Ok(())
    }
}

impl fmt::Display for ClockSpec {
    /// `5+3`: minutes and seconds a move, as players write it (`0.5+0` for half a minute).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.initial_ms.is_multiple_of(60_000) {
            write!(f, "{}", self.initial_ms / 60_000)?;
        } else {
            write!(f, "{}", self.initial_ms as f64 / 60_000.0)?;
        }
        if self.increment_ms.is_multiple_of(1000) {
            write!(f, "+{}", self.increment_ms / 1000)
        } else {
            write!(f, "+{}", self.increment_ms as f64 / 1000.0)
        }
    }
}

impl std::str::FromStr for ClockSpec {
    type Err = String;

    /// `M+S`: minutes a side and seconds a move (`5+3`, `0.5+0`, `10`).
    fn from_str(s: &str) -> Result<ClockSpec, String> {
        let bad = || format!("`{s}` is not a time control: write minutes+seconds, e.g. 5+3");
        let (minutes, seconds) = s.trim().split_once('+').unwrap_or((s.trim(), "0"));
        let minutes: f64 = minutes.trim().parse().map_err(|_| bad())?;
        let seconds: f64 = seconds.trim().parse().map_err(|_| bad())?;
        if !minutes.is_finite() || !seconds.is_finite() || minutes < 0.0 || seconds < 0.0 {
            return Err(bad());
        }
        let spec = ClockSpec {
            initial_ms: (minutes.min(1e6) * 60_000.0).round() as u64,
            increment_ms: (seconds.min(1e6) * 1000.0).round() as u64,
        };
        spec.check()?;
        Ok(spec)
    }
}

/// Which side the creator of a game takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SeatChoice {
    /// Silver, who moves first.
    Silver,
    /// Red.
    Red,
    /// Drawn by the server when the second player joins.
    #[default]
    Random,
}

impl std::str::FromStr for SeatChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<SeatChoice, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "silver" => Ok(SeatChoice::Silver),
            "red" => Ok(SeatChoice::Red),
            "random" => Ok(SeatChoice::Random),
            _ => Err(format!("`{s}` is not a colour: silver, red or random")),
        }
    }
}

/// A game to create: where it starts, its clock, the creator's side and whether it is rated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewGame {
    /// A built-in setup (`classic`, `khet1/dynasty`, …).
    pub setup: String,
    /// The time control, or none for a game without clocks.
    #[serde(default)]
    pub clock: Option<ClockSpec>,
    /// The creator's side.
    #[serde(default)]
    pub color: SeatChoice,
    /// Rated games change both players' ratings and allow no take-backs.
    #[serde(default)]
    pub rated: bool,
    /// Shown in the lobby for anyone to accept; a game made for a friend is not.
    #[serde(default)]
    pub listed: bool,
    /// Days a move instead of a clock ([`correspondence`]); left out when none, so that an
    /// older server still reads every other game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days_per_move: Option<u32>,
}

/// What a client says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClientMsg {
    /// The first message: the protocol version, the installation's secret identity (the
    /// server keeps only its hash) and the name to show.
    Hello {
        /// [`VERSION`].
        version: u32,
        /// [`SECRET_CHARS`] hexadecimal digits, made once per installation.
        identity: String,
        /// The display name ([`check_name`]).
        name: String,
        /// Send a [`ServerMsg::View`] of the followed game after each change: for a client that
        /// knows no rules (the browser page), which draws what the server works out.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        views: bool,
    },
    /// Create a game; the answer is a [`ServerMsg::Seat`], then the game's [`ServerMsg::Sync`].
    Create(NewGame),
    /// Take the free seat of a game by its code.
    Join {
        /// The game's code.
        code: String,
    },
    /// Quick pairing: join the oldest open game with this clock, or open one.
    Seek {
        /// The time control wanted.
        #[serde(default)]
        clock: Option<ClockSpec>,
        /// Rated or casual.
        #[serde(default)]
        rated: bool,
    },
    /// Ask for the open games now and whenever they change (until the next game command).
    Lobby,
    /// Ask for the best rated players ([`ServerMsg::Leaderboard`]).
    Leaderboard,
    /// Take one's seat in a game again (after a dropped connection or a restart).
    Play {
        /// The game's code.
        code: String,
        /// The seat's secret from [`ServerMsg::Seat`].
        secret: String,
        /// The last event number the client has, to receive only what it missed.
        #[serde(default)]
        since: Option<u64>,
    },
    /// Watch a game; anyone with the code may.
    Watch {
        /// The game's code.
        code: String,
        /// The last event number the client has.
        #[serde(default)]
        since: Option<u64>,
    },
    /// Stop following the current game.
    Leave,
    /// A move (text as the engine writes it: `h2g2`, `j1-`).
    Move {
        /// The number of turns played before it: a move sent twice names a ply already played
        /// and is refused.
        ply: u32,
        /// The move.
        mv: String,
    },
    /// Offer a draw (offers and take-back requests lapse with the next move).
    OfferDraw,
    /// Accept the opponent's draw offer.
    AcceptDraw,
    /// Decline it.
    DeclineDraw,
    /// Claim a draw by threefold repetition.
    ClaimRepetition,
    /// Resign.
    Resign,
    /// Ask to take back one's last move (casual games only).
    RequestTakeback,
    /// Accept the opponent's request.
    AcceptTakeback,
    /// Decline it.
    DeclineTakeback,
    /// The opponent has been gone [`ABANDON_GRACE_MS`], or, in a correspondence game, their
    /// days to move have run out (being away is how such a game is played): end the game, won
    /// (on time, for days run out) or drawn.
    ClaimAbandoned {
        /// A draw instead of the win.
        #[serde(default)]
        draw: bool,
    },
    /// Keeps a quiet connection open through proxies; answered with [`ServerMsg::Pong`].
    Ping,
    /// Ask for one's games being played or waiting for an opponent, those where it is one's
    /// move first ([`ServerMsg::MyGames`]).
    MyGames,
    /// Ask for the listed tournaments, newest first ([`ServerMsg::Tournaments`]).
    Tournaments,
    /// Ask for one's pending challenges ([`ServerMsg::Challenges`]) and to be told of each new
    /// one and each change on this connection ([`ServerMsg::Challenge`]); asked for, not sent
    /// unasked, so that an older client never meets a message it cannot read.
    Challenges,
    /// Challenge player `player` (their [`PlayerInfo::id`]) to a game; `game.color` is the
    /// challenger's side and `game.listed` is ignored (a challenge's game is never listed).
    /// Answered with [`ServerMsg::Challenge`], and this connection is told what becomes of it.
    Challenge {
        /// The challenged player's id.
        player: String,
        /// The game's setup, clock, the challenger's side and whether it is rated.
        game: NewGame,
    },
    /// Accept challenge `id`: the game is created with both players seated, and each is sent
    /// its [`ServerMsg::Seat`] and the game, as after a create and a join.
    AcceptChallenge {
        /// The challenge's id.
        id: String,
    },
    /// Decline challenge `id`; the challenger is told.
    DeclineChallenge {
        /// The challenge's id.
        id: String,
    },
    /// Withdraw one's own challenge `id`; the challenged player is told.
    WithdrawChallenge {
        /// The challenge's id.
        id: String,
    },
    /// After game `code` is over, either player asks for another with the same setup, clock
    /// and rating, colours swapped: the first to ask challenges the other
    /// ([`ChallengeInfo::rematch_of`]), the second's ask accepts it and the game starts.
    Rematch {
        /// The finished game's code.
        code: String,
    },
    /// Create a tournament (the creator may start it); answered with
    /// [`ServerMsg::Tournament`].
    CreateTournament(NewTournament),
    /// Join tournament `code` (before or during it); answered with [`ServerMsg::Tournament`].
    JoinTournament {
        /// The tournament's code.
        code: String,
    },
    /// Leave tournament `code`: paired no more (results so far stand); answered with
    /// [`ServerMsg::Tournament`].
    WithdrawTournament {
        /// The tournament's code.
        code: String,
    },
    /// Start tournament `code` (its creator only); answered with [`ServerMsg::Tournament`].
    StartTournament {
        /// The tournament's code.
        code: String,
    },
    /// Ask for tournament `code` as it is now: standings, pairings, and the games' codes (a
    /// paired player joins its game with [`ClientMsg::Join`]).
    Tournament {
        /// The tournament's code.
        code: String,
    },
}

/// A player as others see them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerInfo {
    /// The server's id for the player (not their secret).
    pub id: String,
    /// The display name.
    pub name: String,
    /// Glicko-2 rating.
    pub rating: f64,
    /// Glicko-2 rating deviation.
    pub deviation: f64,
    /// Rated games finished.
    pub games: u32,
}

impl PlayerInfo {
    /// A rating is provisional (shown with `?`) while its deviation is above 110, as lichess
    /// shows it.
    pub fn provisional(&self) -> bool {
        self.deviation > 110.0
    }

    /// `1500?` or `1623`.
    pub fn rating_text(&self) -> String {
        let mark = if self.provisional() { "?" } else { "" };
        format!("{:.0}{mark}", self.rating)
    }
}

/// Both clocks as the server saw them when it sent the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clocks {
    /// Silver's and Red's time left, in milliseconds.
    pub remaining_ms: [u64; 2],
    /// The side whose clock is running, if any.
    pub running: Option<Color>,
}

impl Clocks {
    /// The time left of `side`, `elapsed_ms` after the message was sent.
    pub fn left(&self, side: Color, elapsed_ms: u64) -> u64 {
        let left = self.remaining_ms[side.index()];
        if self.running == Some(side) {
            left.saturating_sub(elapsed_ms)
        } else {
            left
        }
    }
}

/// Where a game stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Waiting for a second player.
    Open,
    /// Being played.
    Playing,
    /// Finished.
    Over,
}

/// A whole game, as the server sends it to a client that (re)joins or missed too much.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameView {
    /// The game's code.
    pub code: String,
    /// The setup's name.
    pub setup: String,
    /// The starting position string (with its rules).
    pub start: String,
    /// Rated or casual.
    pub rated: bool,
    /// The time control.
    pub clock: Option<ClockSpec>,
    /// Silver's and Red's players (an open game has one).
    pub players: [Option<PlayerInfo>; 2],
    /// The moves played, in order.
    pub moves: Vec<String>,
    /// The clocks now.
    pub clocks: Option<Clocks>,
    /// Where the game stands.
    pub status: Status,
    /// How it ended.
    pub result: Option<GameResult>,
    /// Who offers a draw.
    pub draw_offer: Option<Color>,
    /// Who asks for a take-back.
    pub takeback: Option<Color>,
    /// Days a move, for a correspondence game (whose `clock` is none, as an older client,
    /// which ignores this, sees it: a game without clocks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days_per_move: Option<u32>,
    /// When the side to move's days run out, in the server's Unix milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline_ms: Option<u64>,
}

/// Something that happened in a game; numbered in [`ServerMsg::Event`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GameEvent {
    /// The second player took their seat; the game and its clocks start.
    Started {
        /// Silver's and Red's players.
        players: [PlayerInfo; 2],
        /// The clocks.
        clocks: Option<Clocks>,
        /// In a correspondence game, when the side to move's days run out now.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deadline_ms: Option<u64>,
    },
    /// A move was played (and its shot fired).
    Moved {
        /// The number of turns before it.
        ply: u32,
        /// The move.
        mv: String,
        /// The clocks after it.
        clocks: Option<Clocks>,
        /// In a correspondence game, when the side to move's days run out now.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deadline_ms: Option<u64>,
    },
    /// A draw is offered.
    DrawOffered {
        /// By whom.
        by: Color,
    },
    /// The draw offer was declined or lapsed.
    DrawDeclined {
        /// The side that had offered.
        by: Color,
    },
    /// A take-back is asked for.
    TakebackRequested {
        /// By whom.
        by: Color,
    },
    /// The request was declined or lapsed.
    TakebackDeclined {
        /// The side that had asked.
        by: Color,
    },
    /// Moves were taken back.
    TakenBack {
        /// The number of turns left.
        plies: u32,
        /// The clocks after it.
        clocks: Option<Clocks>,
        /// In a correspondence game, when the side to move's days run out now.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        deadline_ms: Option<u64>,
    },
    /// The game ended.
    Ended {
        /// How.
        result: GameResult,
        /// The clocks at the end.
        clocks: Option<Clocks>,
        /// Both players after a rated game, with their new ratings.
        #[serde(default)]
        players: Option<[PlayerInfo; 2]>,
    },
}

/// Why the server refused a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Refusal {
    /// Not JSON, or not a message of the protocol.
    NotProtocol,
    /// Another protocol version.
    Version,
    /// Larger than [`MAX_CLIENT_MESSAGE_BYTES`].
    TooLarge,
    /// Too many messages or connections; the connection is closed.
    RateLimited,
    /// The first message must be `hello`.
    NoHello,
    /// A name that is empty, too long or has control characters.
    BadName,
    /// An identity or secret that is not [`SECRET_CHARS`] hexadecimal digits.
    BadSecret,
    /// No game has this code.
    UnknownGame,
    /// The game has no free seat, or it is one's own.
    SeatTaken,
    /// The secret is not this game's.
    NotYourSeat,
    /// Not following a game, or only watching it.
    NotPlaying,
    /// It is the opponent's turn.
    NotYourTurn,
    /// The move answers a position already gone (sent twice, or late).
    Stale,
    /// The engine refuses the move.
    Illegal,
    /// The game is over, or has not started; or a create while the player (or their address)
    /// has as many games waiting for an opponent as the server allows.
    NotNow,
    /// A setup or clock the server does not offer.
    BadGame,
    /// The server could not store it; nothing changed.
    Storage,
    /// The server's operator barred this identity; the reason says why.
    Barred,
    /// No player has this id (a challenge's).
    UnknownPlayer,
    /// No challenge of the player's has this id, or it was answered already.
    UnknownChallenge,
}

/// What the server says.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// The answer to `hello`: who the server knows this installation as.
    Welcome {
        /// [`VERSION`].
        version: u32,
        /// The player, with their rating.
        player: PlayerInfo,
    },
    /// A seat is the client's: keep the secret to play it again after a restart.
    Seat {
        /// The game's code.
        code: String,
        /// The side, once known (a random side is drawn when the game starts).
        color: Option<Color>,
        /// The seat's secret.
        secret: String,
    },
    /// The whole game, and the number of the last event in it.
    Sync {
        /// The last event's number.
        event: u64,
        /// The client's side, if it plays.
        you: Option<Color>,
        /// The game.
        game: GameView,
    },
    /// One event, numbered one more than the last.
    Event {
        /// Its number.
        n: u64,
        /// What happened.
        event: GameEvent,
    },
    /// Who is connected; sent whenever it changes, not numbered (it is not part of the game).
    Presence {
        /// Silver's and Red's player connected.
        connected: [bool; 2],
        /// How long each side has been gone, in milliseconds.
        gone_ms: [Option<u64>; 2],
        /// How long a side must be gone before the other may claim ([`ABANDON_GRACE_MS`]).
        grace_ms: u64,
        /// The clocks now: a player's return is when a client's own count may be off (after
        /// a server restart, the time the server was down is charged to nobody).
        clocks: Option<Clocks>,
    },
    /// The open games, oldest first.
    Lobby {
        /// The games.
        games: Vec<OpenGame>,
    },
    /// The players with rated games, best first (at most a hundred).
    Leaderboard {
        /// The players.
        players: Vec<PlayerInfo>,
    },
    /// A message refused; nothing changed.
    Refused {
        /// Why, for programs.
        code: Refusal,
        /// Why, for people.
        reason: String,
    },
    /// The answer to `ping`.
    Pong,
    /// The followed game as a page draws it, after each change; only to a client whose hello
    /// asked for views.
    View {
        /// The game.
        view: Box<view::BoardView>,
    },
    /// The answer to [`ClientMsg::Challenges`]: the player's challenges waiting for an answer,
    /// made and received, oldest first.
    Challenges {
        /// The challenges.
        challenges: Vec<ChallengeInfo>,
    },
    /// A challenge made, received or changed (accepted, declined, withdrawn, expired); only on
    /// a connection that asked with [`ClientMsg::Challenges`] or made a challenge.
    Challenge {
        /// The challenge as it stands now.
        challenge: ChallengeInfo,
    },
    /// The answer to [`ClientMsg::MyGames`]: the player's games, those where it is their move
    /// first (the soonest deadline first), then the rest, newest first.
    MyGames {
        /// The games.
        games: Vec<MyGame>,
    },
    /// The answer to [`ClientMsg::Tournaments`]: the listed tournaments, newest first, as
    /// `GET /tournaments.json` has them.
    Tournaments {
        /// The tournaments.
        tournaments: Vec<tournament::TournamentEntry>,
    },
    /// A tournament as it is now, the answer to each of the tournament messages.
    Tournament {
        /// The tournament.
        tournament: Box<TournamentView>,
    },
}

/// A game waiting for a second player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpenGame {
    /// Its code.
    pub code: String,
    /// Its setup.
    pub setup: String,
    /// Its time control.
    pub clock: Option<ClockSpec>,
    /// Rated or casual.
    pub rated: bool,
    /// Who waits.
    pub creator: PlayerInfo,
    /// The side the joiner gets, if the creator chose one.
    pub joiner_color: Option<Color>,
    /// Days a move, for a correspondence game (which waits for an opponent while its creator
    /// is away).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub days_per_move: Option<u32>,
}

impl ClientMsg {
    /// Reads one message; the error says what is wrong for a person.
    pub fn from_json(text: &str) -> Result<ClientMsg, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    /// The message as a JSON text frame.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }
}

impl ServerMsg {
    /// Reads one message.
    pub fn from_json(text: &str) -> Result<ServerMsg, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    /// The message as a JSON text frame.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A refusal.
    pub fn refused(code: Refusal, reason: impl Into<String>) -> ServerMsg {
        ServerMsg::Refused {
            code,
            reason: reason.into(),
        }
    }
}

/// A game's code as typed by a person: trimmed and lowercased, or why it cannot be one. A link
/// (`…/CODE`) gives its last part.
pub fn check_code(code: &str) -> Result<String, String> {
    let code = code.trim().trim_end_matches('/');
    let code = code
        .rsplit(['/', '#'])
        .next()
        .unwrap_or(code)
        .to_ascii_lowercase();
    if code.len() == CODE_CHARS && code.bytes().all(|b| CODE_ALPHABET.contains(&b)) {
        Ok(code)
    } else {
        Err(format!(
            "a game's code is {CODE_CHARS} letters and digits (no i, l, o, 0 or 1)"
        ))
    }
}

/// The page where game `code` is played in a browser, to send a friend: `http://host:port/play/CODE`
/// for a server at `ws://host:port` or `host:port`, `https://…` for `wss://…`. The game's Join
/// field and [`check_code`] take the link whole.
pub fn play_link(server: &str, code: &str) -> String {
    let server = server.trim().trim_end_matches('/');
    let server = server.strip_suffix("/ws").unwrap_or(server);
    let (scheme, rest) = if let Some(rest) = server.strip_prefix("wss://") {
        ("https", rest)
    } else if let Some(rest) = server.strip_prefix("ws://") {
        ("http", rest)
    } else if let Some((scheme, rest)) = server.split_once("://") {
        (scheme, rest)
    } else {
        ("http", server)
    };
    format!("{scheme}://{rest}/play/{code}")
}

#[cfg(feature = "secrets")]
/// A new secret: [`SECRET_CHARS`] lowercase hexadecimal digits (128 random bits from the
/// system), for an installation's identity or a seat.
pub fn new_secret() -> Result<String, String> {
    let mut bytes = [0u8; SECRET_CHARS / 2];
    getrandom::fill(&mut bytes).map_err(|e| format!("no random numbers: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether `secret` looks like one: [`SECRET_CHARS`] lowercase hexadecimal digits.
pub fn is_secret(secret: &str) -> bool {
    secret.len() == SECRET_CHARS
        && secret
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_read_back_as_written() {
        let msgs = [
            ClientMsg::Hello {
                version: VERSION,
                identity: "0".repeat(SECRET_CHARS),
                name: "Ada".into(),
                views: false,
            },
            ClientMsg::Create(NewGame {
                setup: "classic".into(),
                clock: Some(ClockSpec::minutes(5, 3)),
                color: SeatChoice::Red,
                rated: true,
                listed: false,
                days_per_move: None,
            }),
            ClientMsg::Move {
                ply: 3,
                mv: "h2g2".into(),
            },
            ClientMsg::OfferDraw,
            ClientMsg::Challenge {
                player: "abcd2345".into(),
                game: NewGame {
                    setup: "classic".into(),
                    clock: None,
                    color: SeatChoice::Random,
                    rated: false,
                    listed: false,
                    days_per_move: None,
                },
            },
            ClientMsg::Rematch {
                code: "abcd2345".into(),
            },
        ];
        for msg in msgs {
            assert_eq!(ClientMsg::from_json(&msg.to_json()), Ok(msg));
        }
        assert_eq!(
            ClientMsg::OfferDraw.to_json(),
            r#"{"type":"offer_draw"}"#,
            "the documented form"
        );
        assert_eq!(
            ClientMsg::Rematch {
                code: "abcd2345".into()
            }
            .to_json(),
            r#"{"type":"rematch","code":"abcd2345"}"#,
            "the documented form"
        );
        assert_eq!(
            ClientMsg::from_json(r#"{"type":"accept_challenge","id":"abcd2345"}"#),
            Ok(ClientMsg::AcceptChallenge {
                id: "abcd2345".into()
            })
        );
    }

    #[test]
    fn misspelt_and_unknown_messages_are_refused_with_a_reason() {
        for bad in [
            "",
            "{",
            r#"{"type":"move","ply":1}"#,
            r#"{"type":"move","ply":1,"mv":"a1a2","extra":1}"#,
            r#"{"type":"mvoe","ply":1,"mv":"a1a2"}"#,
            r#"{"type":"move","ply":-1,"mv":"a1a2"}"#,
            "\u{feff}{\"type\":\"ping\"}",
        ] {
            assert!(ClientMsg::from_json(bad).is_err(), "{bad:?} was read");
        }
    }

    #[test]
    fn time_controls_read_as_players_write_them() {
        assert_eq!("5+3".parse(), Ok(ClockSpec::minutes(5, 3)));
        assert_eq!("10".parse(), Ok(ClockSpec::minutes(10, 0)));
        assert_eq!(
            "0.5+0".parse::<ClockSpec>().map(|c| c.initial_ms),
            Ok(30_000)
        );
        assert_eq!(ClockSpec::minutes(5, 3).to_string(), "5+3");
        for bad in [
            "", "+", "5+", "-1+0", "0+0", "0.01+0", "NaN+1", "1e9+0", "5+61", "five",
        ] {
            assert!(bad.parse::<ClockSpec>().is_err(), "{bad:?} was read");
        }
    }

    #[test]
    fn names_and_codes_are_checked() {
        assert_eq!(check_name("  Ada  "), Ok("Ada".into()));
        assert!(check_name("").is_err());
        assert!(check_name("a\u{7}b").is_err());
        // Bidirectional overrides and isolates, zero-width characters, the byte-order mark.
        for bad in [
            '\u{202A}',
            '\u{202B}',
            '\u{202C}',
            '\u{202D}',
            '\u{202E}',
            '\u{2066}',
            '\u{2067}',
            '\u{2068}',
            '\u{2069}',
            '\u{200B}',
            '\u{200C}',
            '\u{200D}',
            '\u{200E}',
            '\u{2060}',
            '\u{FEFF}',
            '\u{00AD}',
            '\u{2028}',
            '\u{E0041}',
        ] {
            let name = format!("Ad{bad}a");
            let why = check_name(&name).expect_err(&name);
            assert!(why.contains(&format!("U+{:04X}", u32::from(bad))), "{why}");
        }
        // Letters of every script, accents, emoji are names.
        for good in ["Ada Lovelace", "Ådne", "محمد", "李小龍", "Zoë ♛", "🐍"] {
            assert_eq!(check_name(good), Ok(good.to_string()));
        }
        assert!(check_name(&"x".repeat(MAX_NAME_CHARS + 1)).is_err());
        assert_eq!(
            check_name(&"é".repeat(MAX_NAME_CHARS)).map(|n| n.chars().count()),
            Ok(24)
        );
        assert_eq!(check_code(" ABCD2345 "), Ok("abcd2345".into()));
        assert_eq!(
            check_code("ws://host:7878/game/abcd2345"),
            Ok("abcd2345".into())
        );
        assert_eq!(
            check_code("https://host/play/abcd2345"),
            Ok("abcd2345".into())
        );
        for (server, link) in [
            ("ws://127.0.0.1:7878", "http://127.0.0.1:7878/play/abcd2345"),
            (
                "wss://khet.example.org/",
                "https://khet.example.org/play/abcd2345",
            ),
            (
                "khet.example.org:7878",
                "http://khet.example.org:7878/play/abcd2345",
            ),
            ("ws://host:7878/ws", "http://host:7878/play/abcd2345"),
            ("https://host", "https://host/play/abcd2345"),
        ] {
            assert_eq!(play_link(server, "abcd2345"), link, "{server}");
        }
        for bad in [
            "",
            "abcd234",
            "abcd23450",
            "abcd234l",
            "abcd 234",
            "ábcd2345",
        ] {
            assert!(check_code(bad).is_err(), "{bad:?} passed");
        }
        assert!(is_secret(&"a1".repeat(16)));
        assert!(!is_secret(&"A1".repeat(16)));
        assert!(!is_secret("a1"));
    }
}
