//! The Learn screen: the tutorial's steps and the puzzles, each marked when done; a click
//! starts it at the table.

use crate::learn::lesson::{LessonKind, PuzzleShelf, StartLesson};
use crate::learn::progress::Progress;
use crate::learn::tutorial::STEPS;
use crate::screen::Screen;
use crate::theme::{PanelSet, PanelSpace, nav, wide_side_panel};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        EguiPrimaryContextPass,
        panel.run_if(in_state(Screen::Learn)).in_set(PanelSet::Side),
    );
}

fn tick(done: bool) -> &'static str {
    if done { "✔" } else { "  " }
}

fn panel(
    mut contexts: EguiContexts,
    mut space: ResMut<PanelSpace>,
    shelf: Res<PuzzleShelf>,
    progress: Res<Progress>,
    mut go: ResMut<NextState<Screen>>,
    mut start: MessageWriter<StartLesson>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    wide_side_panel(&ctx, &mut space, 430.0, |ui| {
        nav(ui, Screen::Learn, &mut go);
        ui.heading("Tutorial");
        ui.label(format!(
            "{} of {} steps done. Each is one move.",
            progress.tutorial.len(),
            STEPS.len()
        ));
        for (i, step) in STEPS.iter().enumerate() {
            let text = format!(
                "{} {}. {}",
                tick(progress.tutorial.contains(&i)),
                i + 1,
                step.title
            );
            if ui.selectable_label(false, text).clicked() {
                start.write(StartLesson(LessonKind::Tutorial(i)));
            }
        }
        ui.separator();
        ui.heading("Puzzles");
        let solved = shelf
            .0
            .iter()
            .filter(|p| progress.puzzles.contains(&p.position))
            .count();
        ui.label(format!(
                "{solved} of {} solved. Found by the engine in its own games; each has one winning first move.",
                shelf.0.len()
            ));
        egui::ScrollArea::vertical().show(ui, |ui| {
            for (i, p) in shelf.0.iter().enumerate() {
                let text = format!(
                    "{} {:>2}. in {} {}  {}",
                    tick(progress.puzzles.contains(&p.position)),
                    i + 1,
                    p.moves,
                    super::lesson_panel::stars(p.difficulty),
                    p.name
                );
                if ui.selectable_label(false, text).clicked() {
                    start.write(StartLesson(LessonKind::Puzzle(i)));
                }
            }
        });
    });
    Ok(())
}
