//! The saved games, newest first: date, setup, players, result and length; continue an
//! unfinished one, watch any, delete one (after asking). A damaged file is listed with its
//! `file:line: reason` and offered nothing.

use super::{PanelSet, PanelSpace, nav, root};
use crate::replay::Watch;
use crate::saves::{DeleteSave, SaveEntry, Saved, SavedGames};
use crate::screen::{GoTo, Screen};
use crate::state::NewGameRequested;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use std::path::PathBuf;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        EguiPrimaryContextPass,
        panel.run_if(in_state(Screen::Open)).in_set(PanelSet::Side),
    );
}

fn panel(
    mut contexts: EguiContexts,
    mut space: ResMut<PanelSpace>,
    games: Res<SavedGames>,
    mut go: MessageWriter<GoTo>,
    mut new_game: MessageWriter<NewGameRequested>,
    mut watch: MessageWriter<Watch>,
    mut delete: MessageWriter<DeleteSave>,
    mut asking: Local<Option<PathBuf>>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    let mut root = root(&ctx, &space, "open");
    let panel = egui::Panel::left("side")
        .default_size(470.0)
        .resizable(false)
        .show(&mut root, |ui| {
            nav(ui, Screen::Open, &mut go);
            ui.label(format!("{} saved games", games.0.len()));
            egui::ScrollArea::vertical().show(ui, |ui| {
                for entry in &games.0 {
                    ui.group(|ui| {
                        let name = entry
                            .path
                            .file_stem()
                            .map(|s| s.to_string_lossy().into_owned())
                            .unwrap_or_default();
                        ui.label(egui::RichText::new(name).strong());
                        match &entry.game {
                            Ok(saved) => {
                                ui.label(summary(saved));
                                if let Some(action) = buttons(ui, entry, saved, &mut asking) {
                                    match action {
                                        Action::Continue => {
                                            new_game
                                                .write(NewGameRequested(saved.spec(&entry.path)));
                                            go.write(GoTo(Screen::Playing));
                                        }
                                        Action::Watch => {
                                            watch.write(Watch {
                                                game: saved.game.clone(),
                                                name: saved.record.setup.clone(),
                                                back_to: None,
                                            });
                                        }
                                        Action::Delete => {
                                            delete.write(DeleteSave(entry.path.clone()));
                                        }
                                    }
                                }
                            }
                            Err(e) => {
                                ui.label(
                                    egui::RichText::new(format!("⚠ {e}"))
                                        .small()
                                        .color(egui::Color32::from_rgb(230, 150, 90)),
                                );
                            }
                        }
                    });
                }
            });
        });
    space.free.min.x += panel.response.rect.width();
    Ok(())
}

enum Action {
    Continue,
    Watch,
    Delete,
}

/// When, what, who, how it ended and how long.
fn summary(saved: &Saved) -> String {
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

fn buttons(
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
