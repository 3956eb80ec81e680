//! Learning at the table: the tutorial's steps (`tutorial`), lessons (a tutorial step or a
//! puzzle played as a casual game from a small position with a goal, judged move by move:
//! `lesson`), and the player's progress (`progress`); `ui/` holds their panels.

use bevy::prelude::*;

pub mod lesson;
pub mod progress;
pub mod tutorial;
pub mod ui;

pub(super) fn plugin(app: &mut App) {
    progress::plugin(app);
    lesson::plugin(app);
}
