//! The side panel during a lesson: what to do, how it went, and the way on (hint, try again,
//! next, leave).

use crate::learn::lesson::{Lesson, LessonAction, LessonKind, PuzzleShelf, Verdict};
use crate::learn::tutorial::STEPS;
use crate::screen::Screen;
use crate::table::{Match, OnTable, Phase, Show, has_match};
use crate::theme::{PanelSet, PanelSpace, moves::move_list, nav, side_panel};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        EguiPrimaryContextPass,
        panel
            .run_if(
                in_state(Screen::Playing)
                    .and_then(has_match)
                    .and_then(in_state(OnTable::Lesson)),
            )
            .in_set(PanelSet::Side),
    );
}

/// Difficulty as stars: ★★☆☆☆.
pub fn stars(difficulty: u8) -> String {
    (1..=5)
        .map(|i| if i <= difficulty { '★' } else { '☆' })
        .collect()
}

fn panel(
    mut contexts: EguiContexts,
    mut space: ResMut<PanelSpace>,
    lesson: Res<Lesson>,
    shelf: Res<PuzzleShelf>,
    m: Res<Match>,
    show: Res<Show>,
    hint: Res<crate::table::ai::Hint>,
    mut go: ResMut<NextState<Screen>>,
    mut actions: MessageWriter<LessonAction>,
) -> Result {
    let ctx = contexts.ctx_mut()?.clone();
    side_panel(&ctx, &mut space, |ui| {
        nav(ui, Screen::Playing, &mut go);
        match lesson.kind {
            LessonKind::Tutorial(i) => {
                let Some(step) = STEPS.get(i) else { return };
                ui.heading(format!(
                    "Tutorial {} of {}: {}",
                    i + 1,
                    STEPS.len(),
                    step.title
                ));
                ui.label(step.text);
                ui.label(egui::RichText::new(format!("Goal: {}.", step.goal.describe())).strong());
            }
            LessonKind::Puzzle(i) => {
                let Some(p) = shelf.0.get(i) else { return };
                ui.heading(format!("Puzzle {} of {}", i + 1, shelf.0.len()));
                ui.label(&p.name);
                ui.label(
                    egui::RichText::new(format!(
                        "{} to move: light the {} Pharaoh in {}.",
                        p.to_move,
                        p.to_move.other(),
                        p.moves
                    ))
                    .strong(),
                );
                ui.label(format!("Difficulty {}", stars(p.difficulty)));
                ui.small("The defender answers with its best reply.");
            }
        }
        ui.add_space(6.0);
        let landed = matches!(show.phase, Phase::Idle | Phase::Lingering { .. });
        verdict(ui, &lesson.verdict, landed);
        if let Some((at, mv)) = hint.0
            && at == *m.game.position()
            && let Some(piece) = at.piece_at(mv.from())
        {
            ui.label(format!(
                "Hint: the {} on {} (ringed).",
                piece.describe(),
                mv.from()
            ));
        }
        ui.add_space(6.0);
        ui.horizontal_wrapped(|ui| {
            let trying = lesson.verdict == Verdict::Trying;
            if ui.add_enabled(trying, egui::Button::new("Hint")).clicked() {
                actions.write(LessonAction::Hint);
            }
            if ui.button("Try again").clicked() {
                actions.write(LessonAction::Retry);
            }
            let label = if lesson.verdict == Verdict::Solved {
                "Next ▶"
            } else {
                "Skip ▶"
            };
            if ui.button(label).clicked() {
                actions.write(LessonAction::Next);
            }
            if ui
                .button("Leave")
                .on_hover_text("A casual game of Classic")
                .clicked()
            {
                actions.write(LessonAction::Leave);
            }
        });
        ui.separator();
        ui.label("Moves");
        move_list(ui, m.game.turns(), None, 160.0);
        ui.small("Left click: select and move · Q / E or ↺ ↻: turn · Space: skip the shot");
    });
    Ok(())
}

fn verdict(ui: &mut egui::Ui, verdict: &Verdict, idle: bool) {
    let orange = egui::Color32::from_rgb(255, 170, 60);
    let green = egui::Color32::from_rgb(110, 230, 120);
    match verdict {
        Verdict::Trying => {
            ui.label("Your move.");
        }
        Verdict::Answering => {
            ui.label("The defender is answering…");
        }
        _ if !idle => {
            ui.label("…");
        }
        Verdict::Solved => {
            ui.label(egui::RichText::new("Solved!").color(green).heading());
        }
        Verdict::Missed(why) => {
            ui.label(egui::RichText::new(why).color(orange));
        }
    }
}
