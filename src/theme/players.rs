//! Person or computer for each side, and the computer's level with its rating.

use super::side_color;
use bevy_egui::egui;
use khet_engine::{Color as Side, Level, Player};

/// Person or computer for each side, and the computer's level. "Computer" gives the level last
/// chosen, `last`; choosing a level makes it the last chosen.
pub fn players(ui: &mut egui::Ui, players: &mut [Player; 2], last: &mut Level) {
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
                *player = Player::Computer(*last);
            }
            if let Player::Computer(level) = player {
                level_choice(ui, s, level, last);
            }
        });
    }
}

/// The computer's level for `side`: each level with its rating, what it is on hover.
fn level_choice(ui: &mut egui::Ui, side: Side, level: &mut Level, last: &mut Level) {
    egui::ComboBox::from_id_salt(("level", side.index()))
        .selected_text(rated(*level))
        .show_ui(ui, |ui| {
            for l in Level::ALL {
                let choice = ui.selectable_value(level, l, rated(l));
                if choice.on_hover_text(about(l)).clicked() {
                    *last = l;
                }
            }
        })
        .response
        .on_hover_text(about(*level));
}

/// A level and its rating as the engine reports it: "Casual · 700".
pub fn rated(level: Level) -> String {
    format!("{} · {}", level.name(), level.rating())
}

/// What a level is, and what its rating means.
fn about(level: Level) -> String {
    format!(
        "{} Its rating, {}, is Elo above a player who has just learned the rules.",
        level.description(),
        level.rating()
    )
}
