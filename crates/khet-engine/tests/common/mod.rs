//! Helpers shared by the engine's integration tests.
#![allow(dead_code)]

pub mod stepwise;

use khet_engine::*;
use std::time::Duration;

/// How long a test waits for what must come before it fails, saying what it waited for:
/// generous, so that only a hang fails it, never a slow or loaded machine.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// Runs `work` on a thread of its own and returns its result, failing the test if it has not
/// finished within [`PATIENCE`] (a search that ignored its limit or its stop would run for
/// minutes).
pub fn within_patience<T: Send + 'static>(
    what: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(work());
    });
    rx.recv_timeout(PATIENCE)
        .unwrap_or_else(|e| panic!("{what}: not done within {PATIENCE:?} ({e})"))
}

pub fn setup(name: &str) -> Setup {
    Setup::builtin(name).unwrap_or_else(|e| panic!("{e}"))
}

pub fn sq(s: &str) -> Square {
    s.parse().unwrap()
}

/// A position from a diagram-free list: `"e1 K"`-style tokens as in the diagram key of
/// `docs/rules.md`, for tests.
pub fn board(edition: Edition, side: Color, pieces: &[(&str, Piece)]) -> Position {
    let mut p = Position::empty(edition);
    for (s, piece) in pieces {
        p.put(sq(s), Some(*piece));
    }
    p.set_side_to_move(side);
    p
}

/// The smallest legal Khet 2.0 board: both Sphinxes in their corners and both Pharaohs.
pub fn bare2(extra: &[(&str, Piece)]) -> Position {
    let mut pieces = vec![
        ("a8", Piece::sphinx(Color::Red, Direction::S)),
        ("j1", Piece::sphinx(Color::Silver, Direction::N)),
        ("e1", Piece::pharaoh(Color::Silver)),
        ("f8", Piece::pharaoh(Color::Red)),
    ];
    pieces.extend_from_slice(extra);
    board(Edition::Khet2, Color::Silver, &pieces)
}

/// Asserts that two searches chose the same move with the same score; `what` names the case.
#[track_caller]
pub fn assert_same_answer(a: &SearchResult, b: &SearchResult, what: &str) {
    assert_eq!((a.best, a.score), (b.best, b.score), "{what}");
}
