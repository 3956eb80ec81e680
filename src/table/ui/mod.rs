//! What the player sees and does at the table: the game's side panel (who is to move, the
//! moves, the lost pieces, the table's buttons and tools) or the new-game form in its place
//! ([`SideTab`]), and what lies over the board: the turn buttons, the clocks, the draw offer and
//! the game-over window. (The keys are the core's, `super::input`; the mouse on the board is the
//! stage's, `crate::stage::pointer`.)

use crate::screen::Screen;
use crate::table::{OnTable, has_match};
use crate::theme::PanelSet;
use bevy::prelude::*;
use bevy_egui::EguiPrimaryContextPass;

pub mod clock_faces;
pub mod draw_offer;
pub mod game_over;
pub mod game_panel;
pub mod new_game;
pub mod setup_list;
pub mod table_buttons;
pub mod to_move;
pub mod tools;
pub mod turn_buttons;

/// Which side panel the game screen shows; back to the game's whenever the screen is left.
#[derive(SubStates, Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[source(Screen = Screen::Playing)]
pub enum SideTab {
    #[default]
    Game,
    NewGame,
}

/// The table's panels (the view's).
pub(crate) fn plugin(app: &mut App) {
    crate::frames::wake_on_transition::<SideTab>(app);
    app.add_sub_state::<SideTab>().add_systems(
        EguiPrimaryContextPass,
        // What belongs to the match's board stays off the editor's board.
        (
            turn_buttons::turn_buttons,
            clock_faces::clocks,
            game_over::game_over.run_if(in_state(OnTable::Game)),
            draw_offer::draw_offer,
        )
            .run_if(has_match.and_then(not(in_state(Screen::Editor))))
            .in_set(PanelSet::Overlays),
    );
    game_panel::plugin(app);
    new_game::plugin(app);
}
