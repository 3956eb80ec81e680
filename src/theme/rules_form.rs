//! Mode, clock and swap rule: part of the settings and of the new-game form.

use bevy_egui::egui;
use khet_engine::{Mode, SwapLanding, TimeControl};

/// Mode, clock and swap rule, shared with the new-game form.
pub fn rules(
    ui: &mut egui::Ui,
    mode: &mut Mode,
    clock: &mut Option<TimeControl>,
    swap_landing: &mut SwapLanding,
) {
    ui.horizontal(|ui| {
        ui.label("Mode");
        ui.radio_value(mode, Mode::Casual, "Casual")
            .on_hover_text("Take-backs and hints");
        ui.radio_value(mode, Mode::Tournament, "Tournament")
            .on_hover_text("The move cannot be taken back; no hints");
    });
    ui.horizontal_wrapped(|ui| {
        ui.label("Clock");
        ui.selectable_value(clock, None, "none");
        for tc in TimeControl::PRESETS {
            ui.selectable_value(
                clock,
                Some(tc),
                format!("{}+{}", tc.minutes, tc.increment_seconds),
            );
        }
    });
    if let Some(tc) = clock {
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
        swap_landing,
        SwapLanding::Strict,
        "Strict: a swapped piece may not land on the other colour's square",
    );
    ui.radio_value(
        swap_landing,
        SwapLanding::Permissive,
        "Permissive: only the swapper's square is checked",
    );
}
