//! The egui panels, one file each: a side panel per screen (the game, the new-game form, the
//! saved games, the replay, the settings), the status bar, the overlays on the board (labels,
//! turn buttons, clocks) and the dialogs. Each panel takes its room from [`PanelSpace`], and the
//! camera's viewport is set from what is left.

use crate::state::has_match;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};

mod common;
pub use common::*;

pub mod clock_faces;
pub mod draw_offer;
pub mod editor_palette;
pub mod editor_panel;
pub mod editor_report;
pub mod evaluation;
pub mod game_over;
pub mod game_panel;
pub mod labels;
pub mod learn;
pub mod lesson_panel;
pub mod moves;
pub mod new_game;
pub mod notices;
pub mod open_games;
pub mod players;
pub mod preview;
pub mod replay_controls;
pub mod replay_panel;
pub mod rules_form;
pub mod save_as;
pub mod save_entry;
pub mod settings_panel;
pub mod setup_list;
pub mod status_bar;
pub mod table_buttons;
pub mod to_move;
pub mod tools;
pub mod turn_buttons;
pub mod tutorial_offer;

/// The part of the window (logical points) not yet taken by a panel this frame.
#[derive(Resource, Clone, Copy, Debug)]
pub struct PanelSpace {
    pub free: egui::Rect,
}

/// The order of the panels in a frame: the side panel takes the full height, the status bar
/// the bottom of what is left, then the board gets the rest and the overlays go on top.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub enum PanelSet {
    Begin,
    Side,
    Bottom,
    Viewport,
    Overlays,
}

pub(super) fn plugin(app: &mut App) {
    app.insert_resource(PanelSpace {
        free: egui::Rect::NOTHING,
    })
    .configure_sets(
        EguiPrimaryContextPass,
        (
            PanelSet::Begin,
            PanelSet::Side,
            PanelSet::Bottom,
            PanelSet::Viewport,
            PanelSet::Overlays,
        )
            .chain(),
    )
    .add_message::<save_as::OpenSaveDialog>()
    .init_resource::<save_as::SaveDialog>()
    .add_systems(EguiPrimaryContextPass, begin.in_set(PanelSet::Begin))
    .add_systems(
        EguiPrimaryContextPass,
        (
            labels::labels,
            // What belongs to the match's board stays off the editor's board.
            (
                turn_buttons::turn_buttons,
                clock_faces::clocks,
                game_over::game_over.run_if(not(crate::lesson::in_lesson)),
                draw_offer::draw_offer,
            )
                .run_if(not(in_state(crate::screen::Screen::Editor))),
            save_as::save_as,
            notices::resume_offer,
            notices::notices,
            tutorial_offer::tutorial_offer,
        )
            .run_if(has_match)
            .in_set(PanelSet::Overlays),
    );
    game_panel::plugin(app);
    learn::plugin(app);
    editor_panel::plugin(app);
    lesson_panel::plugin(app);
    new_game::plugin(app);
    open_games::plugin(app);
    replay_panel::plugin(app);
    settings_panel::plugin(app);
    status_bar::plugin(app);
}

fn begin(mut contexts: EguiContexts, mut space: ResMut<PanelSpace>) -> Result {
    space.free = contexts.ctx_mut()?.viewport_rect();
    Ok(())
}
