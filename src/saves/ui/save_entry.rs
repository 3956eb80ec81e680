//! One saved game in the list: what it is, and what can be done with it.

use crate::saves::{SaveEntry, Saved};
use bevy_egui::egui;
use std::path::PathBuf;

pub enum Action {
    Continue,
    Watch,
    Delete,
    /// The browser build: the save as its `.ron` file.
    Download,
}

/// When, what, who, how it ended and how long.
pub fn summary(saved: &Saved) -> String {
    let r = &saved.record;
    let date = r.date.replace('T', " ").replace('Z', " UTC");
    let players = format!(
        "{} vs {}",
        or_unknown(&r.players[0]),
        or_unknown(&r.players[1])
    );
    let result = saved
        .result()
        .map_or_else(|| "unfinished".into(), |r| r.to_string());
    format!(
        "{date} · {} · {players}\n{result} · {} moves",
        r.setup,
        saved.game.turns().len()
    )
}

fn or_unknown(s: &str) -> &str {
    if s.is_empty() { "?" } else { s }
}

pub fn buttons(
    ui: &mut egui::Ui,
    entry: &SaveEntry,
    saved: &Saved,
    asking: &mut Option<PathBuf>,
) -> Option<Action> {
    let mut action = None;
    ui.horizontal(|ui| {
        if saved.result().is_none() && ui.button("Continue").clicked() {
            action = Some(Action::Continue);
        }
        if ui.button("Watch").clicked() {
            action = Some(Action::Watch);
        }
        if cfg!(target_arch = "wasm32")
            && ui
                .button("Download")
                .on_hover_text(
                    "This game as its .ron file, for the desktop game or another browser",
                )
                .clicked()
        {
            action = Some(Action::Download);
        }
        if asking.as_ref() == Some(&entry.path) {
            ui.label("Delete this game?");
            if ui.button("Yes, delete").clicked() {
                action = Some(Action::Delete);
                *asking = None;
            }
            if ui.button("No").clicked() {
                *asking = None;
            }
        } else if ui.button("Delete…").clicked() {
            *asking = Some(entry.path.clone());
        }
    });
    action
}
