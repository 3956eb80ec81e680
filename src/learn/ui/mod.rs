//! The learning panels: the *Learn* screen's list of tutorial steps and puzzles, the side
//! panel of a lesson at the table, and the tutorial's offer at the first start.

use crate::table::has_match;
use crate::theme::PanelSet;
use bevy::prelude::*;
use bevy_egui::EguiPrimaryContextPass;

pub mod learn_panel;
pub mod lesson_panel;
pub mod tutorial_offer;

pub(crate) fn plugin(app: &mut App) {
    learn_panel::plugin(app);
    lesson_panel::plugin(app);
    app.add_systems(
        EguiPrimaryContextPass,
        tutorial_offer::tutorial_offer
            .run_if(has_match)
            .in_set(PanelSet::Overlays),
    );
}
