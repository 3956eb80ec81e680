//! The offer at start to take up an unfinished game.

use crate::news::Notices;
use crate::saves::{ResumeOffer, read};
use crate::table::NewGameRequested;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

pub fn resume_offer(
    mut contexts: EguiContexts,
    space: Res<crate::theme::PanelSpace>,
    mut offer: ResMut<ResumeOffer>,
    mut new_game: MessageWriter<NewGameRequested>,
    mut notices: ResMut<Notices>,
) -> Result {
    let Some(path) = offer.0.clone() else {
        return Ok(());
    };
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    crate::theme::dialog("Resume?", egui::Align2::CENTER_CENTER, [0.0, 0.0], &space).show(
        contexts.ctx_mut()?,
        |ui| {
            ui.label(format!("The game \"{name}\" is unfinished. Play on?"));
            ui.horizontal(|ui| {
                if ui.button("Resume").clicked() {
                    match read(&path) {
                        Ok(saved) => {
                            new_game.write(NewGameRequested(saved.spec(&path)));
                        }
                        Err(e) => notices.0.push(e),
                    }
                    offer.0 = None;
                }
                if ui.button("Not now").clicked() {
                    offer.0 = None;
                }
            });
        },
    );
    Ok(())
}
