//! Person or computer for each side, and the computer's level.

use super::side_color;
use bevy_egui::egui;
use khet_engine::{Color as Side, Level, Player};

/// Person or computer for each side, and the computer's level.
pub fn players(ui: &mut egui::Ui, players: &mut [Player; 2]) {
    ui.label("Players");
    for s in [Side::Silver, Side::Red] {
        let player = &mut players[s.index()];
        ui.horizontal(|ui| {
            ui.label(egui::RichText::new(format!("{s}:")).color(side_color(s)));
            let person = *player == Player::Person;
            if ui.selectable_label(person, "Person").clicked() {
                *player = Player::Person;
            }
            if ui.selectable_label(!person, "Computer").clicked() && person {
                *player = Player::Computer(Level::Casual);
            }
            if let Player::Computer(level) = player {
                egui::ComboBox::from_id_salt(("level", s.index()))
                    .selected_text(level.name())
                    .show_ui(ui, |ui| {
                        for l in Level::ALL {
                            ui.selectable_value(level, l, l.name())
                                .on_hover_text(l.description());
                        }
                    });
            }
        });
    }
}
