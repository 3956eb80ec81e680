//! Notices that must not scroll away (a damaged settings file), and the offer at start to take
//! up an unfinished game.

use crate::news::Notices;
use crate::saves::{ResumeOffer, read};
use crate::state::NewGameRequested;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

pub fn notices(mut contexts: EguiContexts, mut notices: ResMut<Notices>) -> Result {
    if notices.0.is_empty() {
        return Ok(());
    }
    super::dialog("Notice", egui::Align2::CENTER_TOP, [0.0, 60.0]).show(
        contexts.ctx_mut()?,
        |ui| {
            for n in &notices.0 {
                ui.label(n);
            }
            if ui.button("OK").clicked() {
                notices.0.clear();
            }
        },
    );
    Ok(())
}

pub fn resume_offer(
    mut contexts: EguiContexts,
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
    super::dialog("Resume?", egui::Align2::CENTER_CENTER, [0.0, 0.0]).show(
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
