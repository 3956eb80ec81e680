//! Stepping through a replay: start, back, play / pause, forward, end, and the pace of play.

use crate::replay::{AutoPlay, Step};
use bevy::prelude::*;
use bevy_egui::egui;

/// `at` moves of `end` are on the board.
pub fn controls(
    ui: &mut egui::Ui,
    at: usize,
    end: usize,
    auto: &mut AutoPlay,
    steps: &mut MessageWriter<Step>,
) {
    ui.horizontal(|ui| {
        let b = |ui: &mut egui::Ui, on: bool, text: &str, hover: &str| {
            ui.add_enabled(on, egui::Button::new(text))
                .on_hover_text(hover)
                .clicked()
        };
        if b(ui, at > 0, "⏮", "Start (Home)") {
            steps.write(Step::To(0));
        }
        if b(ui, at > 0, "◀", "Back a move (←)") {
            steps.write(Step::Back);
        }
        if b(
            ui,
            at < end,
            if auto.playing { "⏸" } else { "▶▶" },
            "Play / pause (P)",
        ) {
            steps.write(Step::PlayPause);
        }
        if b(ui, at < end, "▶", "Forward a move (→)") {
            steps.write(Step::Forward);
        }
        if b(ui, at < end, "⏭", "End (End)") {
            steps.write(Step::To(end));
        }
    });
    ui.add(egui::Slider::new(&mut auto.interval, 0.0..=3.0).text("s between moves"));
}
