//! The replay's side panel: the players, the step controls, the evaluation bar and the best
//! line.

use crate::replay::Step;
use crate::screen::Screen;
use bevy::prelude::*;
use bevy_egui::input::egui_wants_any_keyboard_input;

pub mod controls;
pub mod evaluation;
pub mod panel;

pub(crate) fn plugin(app: &mut App) {
    panel::plugin(app);
    super::best_move::plugin(app);
    app.add_systems(
        Update,
        keys.run_if(in_state(Screen::Replay).and_then(not(egui_wants_any_keyboard_input)))
            .in_set(crate::GameSet::Input),
    );
}

/// Arrow keys, Home and End step through a replay; P plays or pauses it.
fn keys(
    keys: Res<ButtonInput<KeyCode>>,
    tape: Option<Res<crate::replay::Tape>>,
    mut steps: MessageWriter<Step>,
) {
    let end = tape.map_or(0, |t| t.game.turns().len());
    for (key, step) in [
        (KeyCode::ArrowRight, Step::Forward),
        (KeyCode::ArrowLeft, Step::Back),
        (KeyCode::Home, Step::To(0)),
        (KeyCode::End, Step::To(end)),
        (KeyCode::KeyP, Step::PlayPause),
    ] {
        if keys.just_pressed(key) {
            steps.write(step);
        }
    }
}
