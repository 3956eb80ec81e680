//! Mode, clock and swap rule: part of the settings and of the new-game form.

use crate::settings::Settings;
use crate::state::{Mode, TimeControl};
use bevy_egui::egui;
use khet_engine::SwapLanding;

/// Mode, clock and swap rule, shared with the new-game form.
pub fn rules(ui: &mut egui::Ui, s: &mut Settings) {
    ui.horizontal(|ui| {
        ui.label("Mode");
        ui.radio_value(&mut s.mode, Mode::Casual, "Casual")
            .on_hover_text("Take-backs and hints");
        ui.radio_value(&mut s.mode, Mode::Tournament, "Tournament")
            .on_hover_text("The move cannot be taken back; no hints");
    });
    ui.horizontal_wrapped(|ui| {
        ui.label("Clock");
        ui.selectable_value(&mut s.clock, None, "none");
        for tc in TimeControl::PRESETS {
            ui.selectable_value(
                &mut s.clock,
                Some(tc),
                format!("{}+{}", tc.minutes, tc.increment_seconds),
            );
        }
    });
    if let Some(tc) = &mut s.clock {
        ui.horizontal(|ui| {
            ui.add(
                egui::DragValue::new(&mut tc.minutes)
                    .range(1..=180)
                    .suffix(" min"),
            );
            ui.add(
                egui::DragValue::new(&mut tc.increment_seconds)
                    .range(0..=60)
                    .suffix(" s a move"),
            );
        });
    }
    ui.label("Swap landing");
    ui.radio_value(
        &mut s.swap_landing,
        SwapLanding::Strict,
        "Strict: a swapped piece may not land on the other colour's square",
    );
    ui.radio_value(
        &mut s.swap_landing,
        SwapLanding::Permissive,
        "Permissive: only the swapper's square is checked",
    );
}
