//! The saved games, newest first: date, setup, players, result and length; continue an
//! unfinished one, watch any, delete one (after asking). A damaged file is listed with its
//! `file:line: reason` and offered nothing.

use crate::saves::{DeleteSave, SavedGames};
use crate::screen::Screen;
use crate::table::NewGameRequested;
use crate::table::Watch;
use crate::theme::{PanelSet, PanelSpace, nav, wide_side_panel};
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
    mut go: ResMut<NextState<Screen>>,
    mut new_game: MessageWriter<NewGameRequested>,
    mut watch: MessageWriter<Watch>,
    mut delete: MessageWriter<DeleteSave>,
    mut news: MessageWriter<crate::news::News>,
    mut clipboard: ResMut<bevy_egui::EguiClipboard>,
    mut pick: MessageWriter<super::PickFiles>,
    mut asking: Local<Option<PathBuf>>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    wide_side_panel(&ctx, &mut space, 470.0, |ui| {
        nav(ui, Screen::Open, &mut go);
        ui.horizontal(|ui| {
            ui.label(format!("{} saved games", games.0.len()));
            let paste = ui.button("Watch pasted");
            if paste
                .on_hover_text("Replay a protocol line or position string from the clipboard")
                .clicked()
            {
                let text = clipboard.get_text().unwrap_or_default();
                match crate::table::spec::game_from_text(&text, khet_engine::Rules::default()) {
                    Ok(game) => {
                        watch.write(Watch {
                            game,
                            name: "Pasted".into(),
                            back_to: None,
                        });
                    }
                    Err(e) => {
                        news.write(crate::news::News::PasteFailed(e));
                    }
                }
            }
            if cfg!(target_arch = "wasm32")
                && ui
                    .button("Open .ron files…")
                    .on_hover_text("Saved games from the disk: the desktop game's, or downloaded")
                    .clicked()
            {
                pick.write(super::PickFiles);
            }
        });
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
                            ui.label(super::save_entry::summary(saved));
                            if let Some(action) =
                                super::save_entry::buttons(ui, entry, saved, &mut asking)
                            {
                                match action {
                                    super::save_entry::Action::Continue => {
                                        new_game.write(NewGameRequested(saved.spec(&entry.path)));
                                        go.set(Screen::Playing);
                                    }
                                    super::save_entry::Action::Watch => {
                                        watch.write(Watch {
                                            game: saved.game.clone(),
                                            name: saved.record.setup.clone(),
                                            back_to: None,
                                        });
                                    }
                                    super::save_entry::Action::Delete => {
                                        delete.write(DeleteSave(entry.path.clone()));
                                    }
                                    super::save_entry::Action::Download => {
                                        download(&entry.path, &mut news);
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
    Ok(())
}

/// The browser build: the save offered as a download.
#[cfg(target_arch = "wasm32")]
fn download(path: &std::path::Path, news: &mut MessageWriter<crate::news::News>) {
    if let Err(e) = super::transfer::download(path) {
        news.write(crate::news::News::SaveFailed(format!(
            "{}: not downloaded: {e}",
            path.display()
        )));
    }
}

/// The desktop's saves are files already: nothing to download.
#[cfg(not(target_arch = "wasm32"))]
fn download(_path: &std::path::Path, _news: &mut MessageWriter<crate::news::News>) {}
