//! The editor's side panel: the palette, the tools, and what the engine says of the board
//! (its problems and the fairness batch's report).

use bevy::prelude::*;

pub mod palette;
pub mod panel;
pub mod report;

pub(crate) fn plugin(app: &mut App) {
    panel::plugin(app);
    super::marks::plugin(app);
}
