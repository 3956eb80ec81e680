//! The replay's side panel: the players, the step controls, the evaluation bar and the best
//! line.

use bevy::prelude::*;

pub mod controls;
pub mod evaluation;
pub mod panel;

pub(crate) fn plugin(app: &mut App) {
    panel::plugin(app);
    super::best_move::plugin(app);
}
