//! The news as the player sees it: the status line along the bottom of every screen, and the
//! notices that wait in a dialog until dismissed.

use crate::theme::PanelSet;
use bevy::prelude::*;
use bevy_egui::EguiPrimaryContextPass;

pub mod notices;
pub mod status_bar;

pub(crate) fn plugin(app: &mut App) {
    status_bar::plugin(app);
    app.add_systems(
        EguiPrimaryContextPass,
        notices::notices.in_set(PanelSet::Overlays),
    );
}
