//! The head of the game panel: the setup, whose move it is (or the result), the computer
//! thinking, who plays; and the pieces each side has lost.

use super::{piece_letter, side_color};
use crate::state::{Match, Mode, Player};
use bevy_egui::egui;
use khet_engine::Color as Side;

/// `thinking`: for how many seconds the computer has been thinking, if it is.
pub fn to_move(ui: &mut egui::Ui, m: &Match, thinking: Option<f32>) {
    let side = m.game.side_to_move();
    let mode = if m.spec.mode == Mode::Tournament {
        " · tournament"
    } else {
        ""
    };
    ui.label(format!(
        "{} · {}{mode}",
        m.setup_name,
        m.game.start().edition()
    ));
    match m.game.result() {
        Some(r) => {
            ui.label(egui::RichText::new(r.to_string()).strong());
        }
        None => {
            ui.horizontal(|ui| {
                let (dot, _) = ui.allocate_exact_size(egui::vec2(16.0, 16.0), egui::Sense::hover());
                ui.painter()
                    .circle_filled(dot.center(), 7.0, side_color(side));
                ui.label(
                    egui::RichText::new(format!("{side} to move"))
                        .color(side_color(side))
                        .strong()
                        .size(18.0),
                );
            });
        }
    }
    if let Some(secs) = thinking {
        ui.horizontal(|ui| {
            ui.spinner();
            let level = match m.player(side) {
                Player::Computer(l) => l.name(),
                Player::Person => "",
            };
            ui.label(format!("{side} ({level}) is thinking… {:.0} s", secs));
        });
    }
    for s in [Side::Silver, Side::Red] {
        if let Player::Computer(l) = m.player(s) {
            ui.small(
                egui::RichText::new(format!("{s}: computer, {}", l.name())).color(side_color(s)),
            );
        }
    }
}

pub fn lost(ui: &mut egui::Ui, m: &Match) {
    let lost = m.lost();
    for s in [Side::Silver, Side::Red] {
        let letters: Vec<&str> = lost[s.index()]
            .iter()
            .map(|p| piece_letter(p.kind()))
            .collect();
        let text = if letters.is_empty() {
            "nothing".into()
        } else {
            letters.join(" ")
        };
        ui.label(egui::RichText::new(format!("{s} lost: {text}")).color(side_color(s)));
    }
}
