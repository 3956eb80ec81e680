//! A person answers the other side's draw offer (a computer answers by itself).

use crate::table::{Match, TableAction};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

pub fn draw_offer(
    mut contexts: EguiContexts,
    space: Res<crate::theme::PanelSpace>,
    m: Res<Match>,
    mut actions: MessageWriter<TableAction>,
) -> Result {
    let Some(by) = m.draw_offer else {
        return Ok(());
    };
    // A computer answers by itself.
    if m.player(by.other()) != khet_engine::Player::Person {
        return Ok(());
    }
    crate::theme::dialog(
        "Draw offered",
        egui::Align2::CENTER_TOP,
        [0.0, 20.0],
        &space,
    )
    .show(contexts.ctx_mut()?, |ui| {
        ui.label(format!(
            "{by} offers a draw. {}, do you accept?",
            by.other()
        ));
        ui.horizontal(|ui| {
            if ui.button("Accept").clicked() {
                actions.write(TableAction::AcceptDraw);
            }
            if ui.button("Decline").clicked() {
                actions.write(TableAction::DeclineDraw);
            }
        });
    });
    Ok(())
}
