//! The replay screen's panel: step, jump and play controls, the moves (click to jump), the
//! engine's analysis (evaluation bar, best line) and "continue from here".

use crate::replay::{Analysis, AutoPlay, Step, Tape};
use crate::screen::Screen;
use crate::settings::Settings;
use crate::table::{Match, NewGameRequested, NewGameSpec, has_match};
use crate::theme::{PanelSet, PanelSpace, moves::move_list, side_panel};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass};

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        EguiPrimaryContextPass,
        panel
            .run_if(in_state(Screen::Replay).and_then(has_match))
            .in_set(PanelSet::Side),
    );
}

fn panel(
    mut contexts: EguiContexts,
    mut space: ResMut<PanelSpace>,
    tape: Option<Res<Tape>>,
    m: Res<Match>,
    mut auto: ResMut<AutoPlay>,
    mut analysis: ResMut<Analysis>,
    mut settings: ResMut<Settings>,
    mut steps: MessageWriter<Step>,
    mut go: ResMut<NextState<Screen>>,
    mut new_game: MessageWriter<NewGameRequested>,
) -> Result {
    let Some(tape) = tape else { return Ok(()) };
    let ctx = contexts.ctx_mut()?.clone();
    let (at, end) = (m.game.turns().len(), tape.game.turns().len());
    side_panel(&ctx, &mut space, |ui| {
        ui.horizontal(|ui| {
            ui.heading("Replay");
            if ui.button("Back").clicked() {
                match &tape.back_to {
                    Some(spec) => {
                        new_game.write(NewGameRequested(spec.clone()));
                        go.set(Screen::Playing);
                    }
                    None => {
                        go.set(Screen::Open);
                    }
                }
            }
        });
        ui.label(format!("{} · move {at} of {end}", tape.name));
        if let Some(r) = tape.game.result() {
            ui.small(r.to_string());
        }
        super::controls::controls(ui, at, end, &mut auto, &mut steps);
        if let Some(n) = move_list(ui, tape.game.turns(), Some(at), 180.0) {
            steps.write(Step::To(n));
        }
        ui.separator();
        ui.checkbox(
            &mut analysis.enabled,
            "Analyse (the engine's view of each position)",
        );
        if analysis.enabled {
            super::evaluation::evaluation(ui, &analysis, &m);
        }
        ui.separator();
        ui.label("Continue from here, casual:");
        let s = &mut *settings;
        crate::theme::players::players(ui, &mut s.players, &mut s.computer_level);
        if ui.button("Continue from here").clicked() {
            let spec = NewGameSpec::resuming(
                format!("{} (from move {at})", tape.name),
                m.game.clone(),
                settings.players,
                crate::files::now_utc(),
            );
            new_game.write(NewGameRequested(spec));
            go.set(Screen::Playing);
        }
    });
    Ok(())
}
