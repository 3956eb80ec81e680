//! Notices that must not scroll away (a damaged settings file), until the player says OK.

use crate::news::Notices;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

pub fn notices(
    mut contexts: EguiContexts,
    space: Res<crate::theme::PanelSpace>,
    mut notices: ResMut<Notices>,
) -> Result {
    if notices.0.is_empty() {
        return Ok(());
    }
    crate::theme::dialog("Notice", egui::Align2::CENTER_TOP, [0.0, 60.0], &space).show(
        contexts.ctx_mut()?,
        |ui| {
            for n in &notices.0 {
                ui.label(n);
            }
            if ui.button("OK").clicked() {
                notices.0.clear();
            }
        },
    );
    Ok(())
}
