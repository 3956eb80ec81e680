//! The learning panels: the *Learn* screen's list of tutorial steps and puzzles, the side
//! panel of a lesson at the table, and the tutorial's offer at the first start.

use crate::screen::Screen;
use crate::table::Match;
use crate::theme::PanelSet;
use bevy::prelude::*;
use bevy_egui::EguiPrimaryContextPass;

pub mod learn_panel;
pub mod lesson_panel;
pub mod tutorial_offer;

pub(crate) fn plugin(app: &mut App) {
    learn_panel::plugin(app);
    lesson_panel::plugin(app);
    // At the table, over a game of one's own: a friend who came by a game's link came to play
    // it, and meets the offer at the first game that is not online.
    app.add_systems(
        EguiPrimaryContextPass,
        tutorial_offer::tutorial_offer
            .run_if(offline_match.and_then(in_state(Screen::Playing)))
            .in_set(PanelSet::Overlays),
    );
}

/// A game at the table that is not an online one.
fn offline_match(m: Option<Res<Match>>) -> bool {
    m.is_some_and(|m| !m.spec.online)
}
