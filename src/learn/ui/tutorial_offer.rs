//! At the first start: "New to Khet?", offering the tutorial once.

use crate::learn::lesson::{LessonKind, StartLesson};
use crate::learn::progress::{Progress, TutorialOffer};
use crate::saves::ResumeOffer;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};

pub fn tutorial_offer(
    mut contexts: EguiContexts,
    space: Res<crate::theme::PanelSpace>,
    mut offer: ResMut<TutorialOffer>,
    resume: Res<ResumeOffer>,
    mut progress: ResMut<Progress>,
    mut start: MessageWriter<StartLesson>,
) -> Result {
    // One question at a time: an unfinished game is asked about first.
    if !offer.0 || resume.0.is_some() {
        return Ok(());
    }
    let mut answered = false;
    crate::theme::dialog(
        "New to Khet?",
        egui::Align2::CENTER_CENTER,
        [0.0, 0.0],
        &space,
    )
    .show(contexts.ctx_mut()?, |ui| {
        ui.label("Nine short steps teach the laser: mirrors, shields, moves and turns.");
        ui.horizontal(|ui| {
            if ui.button("Start the tutorial").clicked() {
                start.write(StartLesson(LessonKind::Tutorial(progress.next_step())));
                answered = true;
            }
            if ui.button("Not now").clicked() {
                answered = true;
            }
        });
        ui.small("It is always on the Learn screen.");
    });
    if answered {
        offer.0 = false;
        progress.tutorial_offered = true;
    }
    Ok(())
}
