//! Waiting in the headless tests for what runs on other threads (the computer's search, the
//! asset server's loading, a batch of games): frames run until it is done, or a named deadline
//! passes and the test fails saying what never came. Only a hang reaches the deadline.

use bevy::prelude::*;
use std::time::{Duration, Instant};

/// How long any one wait may take before the test fails: far longer than anything takes on a
/// loaded machine.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// Runs frames until `done` holds, a few milliseconds apart (the other threads' time); fails
/// after [`PATIENCE`], naming `what` never came.
pub fn update_until(app: &mut App, what: &str, mut done: impl FnMut(&mut App) -> bool) {
    let start = Instant::now();
    while !done(app) {
        assert!(start.elapsed() < PATIENCE, "{what} never came");
        app.update();
        std::thread::sleep(Duration::from_millis(5));
    }
}
