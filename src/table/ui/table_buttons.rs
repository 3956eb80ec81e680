//! The table's buttons: draws, resignation, take-back, hint, the shot again, skip.

use crate::table::ai::HintRequested;
use crate::table::{Match, Show, TableAction};
use bevy::prelude::*;
use bevy_egui::egui;
use khet_engine::Mode;

pub fn table_buttons(
    ui: &mut egui::Ui,
    m: &Match,
    show: &Show,
    thinking: bool,
    actions: &mut MessageWriter<TableAction>,
    hints: &mut MessageWriter<HintRequested>,
) {
    let live = !m.game.is_over();
    let casual = m.spec.mode == Mode::Casual;
    ui.horizontal_wrapped(|ui| {
        if ui
            .add_enabled(
                live && m.draw_offer.is_none(),
                egui::Button::new("Offer draw"),
            )
            .clicked()
        {
            actions.write(TableAction::OfferDraw);
        }
        let claim = ui.add_enabled(m.game.can_claim_draw(), egui::Button::new("Claim draw"));
        if claim.clicked() {
            actions.write(TableAction::ClaimDraw);
        }
        claim.on_disabled_hover_text(format!(
            "A draw may be claimed when the same arrangement appears for the third time (now: {}).",
            m.game.repetitions()
        ));
        if ui.add_enabled(live, egui::Button::new("Resign")).clicked() {
            actions.write(TableAction::Resign);
        }
    });
    ui.horizontal_wrapped(|ui| {
        let undo = ui.add_enabled(
            casual && show.is_idle() && !m.game.turns().is_empty(),
            egui::Button::new("Take back"),
        );
        if undo
            .on_hover_text("Ctrl+Z; against the computer, back to your last move")
            .on_disabled_hover_text("Not in tournament games")
            .clicked()
        {
            actions.write(TableAction::Undo);
        }
        let hint = ui.add_enabled(
            casual && !m.spec.online && m.person_to_move() && !thinking && show.is_idle(),
            egui::Button::new("Hint"),
        );
        if hint.on_hover_text("The move Master would play").clicked() {
            hints.write(HintRequested);
        }
        if ui
            .add_enabled(
                show.is_idle() && show.shot.is_some(),
                egui::Button::new("Replay shot"),
            )
            .clicked()
        {
            actions.write(TableAction::ReplayShot);
        }
        if ui
            .add_enabled(!show.is_idle(), egui::Button::new("Skip"))
            .clicked()
        {
            actions.write(TableAction::Skip);
        }
    });
}
