//! The Khet rules engine: both editions, the Eye of Horus, the laser, setups, notation, perft,
//! and a computer opponent.
//!
//! Pure Rust with no I/O, no globals and no logging: the game (a Bevy app), the command line and
//! the search all call it, and it is the single source of truth for the rules. Reading files,
//! speaking the protocol and running matches are the callers' business (`khet-cli`).
//!
//! ```
//! use khet_engine::{Color, Game, Limits, Searcher, Setup, fire, perft};
//!
//! // The official setups are built in.
//! let start = Setup::builtin("khet2/classic")?.position;
//! assert_eq!(perft(&start, 2), 5_920);
//!
//! // Where does Silver's laser go?
//! let shot = fire(&start, Color::Silver);
//! assert!(shot.hits.is_empty());
//!
//! // Play a game: moves as text, each followed by the mover's shot.
//! let mut game = Game::new(start);
//! let turn = game.play_text("j1-")?; // Silver turns its Sphinx west…
//! assert_eq!(turn.shot.hits[0].square.to_string(), "f1"); // …and lights its own Anubis.
//! assert_eq!(game.side_to_move(), Color::Red);
//!
//! // Ask the computer for a move.
//! let result = Searcher::default().search_game(&game, Limits::depth(3), |_| {});
//! assert!(result.best.is_some());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! - [`Position`]: the board, a small `Copy` value; [`Position::legal_moves`],
//!   [`Position::check_move`] (with reasons), [`Position::play`] / [`Position::try_play`] /
//!   [`Position::play_unchecked`].
//! - [`fire`]: the laser as a pure function, returning the whole beam ([`Shot`]).
//! - [`Game`]: history, results, threefold repetition, draws by agreement, resignation.
//! - [`Setup`]: RON setups, checked with file, line and reason; [`Record`]: RON game records.
//! - [`notation`]: position strings (the Khet2-AI format, extended) and move text.
//! - [`perft()`]: move counting.
//! - [`Level`]: the computer's levels; [`greedy_move`]: a one-ply greedy player below them.
//!
//! # Where the rule books are silent
//! Each choice is written here; those that players may want otherwise are [`Rules`] options.
//! - Swap landing ([`SwapLanding`], default strict): the piece a Scarab/Djed swaps back may not land
//!   on a square reserved for the other colour.
//! - No legal move ([`NoMoves`], default draw): only possible in Khet 1.0.
//! - Eye of Horus: moves, rotates and swaps like a Scarab; never removed; nothing swaps with it. A
//!   beam meeting it goes straight on *and* is reflected as a Scarab of the same diagonal would
//!   reflect it. All beams are traced on the board as it stood before the shot; each piece hit is
//!   removed once (a stack loses one obelisk); both Pharaohs lit in one shot is a draw. The Eye
//!   may be used in either edition.
//! - A Pharaoh that is lit stays on the board: the game is over and the picture shows it.
//! - Repetition compares arrangements only (pieces, squares, orientations), not whose turn it is,
//!   as the rule books say.

#![warn(missing_docs)]

pub mod book;
mod clock;
pub mod eval;
pub mod fairness;
pub mod game;
pub mod greedy;
pub mod laser;
pub mod learned;
pub mod level;
pub mod movegen;
pub mod moves;
pub mod notation;
pub mod perft;
pub mod piece;
pub mod position;
pub mod puzzle;
pub mod record;
pub mod rng;
mod ronlines;
pub mod rules;
pub mod search;
pub mod setup;
pub mod square;
pub mod terms;
pub mod text;
pub mod time;
mod tt;
mod zobrist;

pub use book::{Book, BookError, BookMove};
/// The clock of [`puzzle::Solver::deadline`] and of the search: std's `Instant`, or on
/// `wasm32-unknown-unknown` (a browser, where std's panics) the `web-time` crate's.
pub use clock::Instant;
pub use game::{DrawReason, Game, GameError, GameResult, Turn, WinReason};
pub use greedy::greedy_move;
pub use laser::{Hit, HitEffect, Hits, Segment, SegmentEnd, Shot, fire};
pub use level::Level;
pub use movegen::{IllegalMove, MoveError, Reason};
pub use moves::{Move, MoveText, ParseMoveError};
pub use notation::{PositionError, PositionErrorKind, parse_position, parse_position_with};
pub use perft::{divide, perft};
pub use piece::{Color, Diagonal, Kind, Piece, Rotation};
pub use position::{Position, Problem, reserved_for, sphinx_square};
pub use record::{Record, RecordClock, RecordError};
pub use rng::Rng;
pub use rules::{Edition, NoMoves, Rules, SwapLanding};
pub use search::{DrawLimits, Limits, Report, Score, SearchResult, Searcher};
pub use setup::{
    Setup, SetupError, SetupErrors, SetupPiece, UnknownSetup, catalogue, catalogue_names,
};
pub use square::{Direction, File, ParseSquareError, Rank, Square};
pub use terms::{Mode, Player, TimeControl};
pub use text::ParseNameError;
pub use time::Clock;
