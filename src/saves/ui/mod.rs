//! The saved games as the player sees them: the *Open* screen's list, the "save as" dialog,
//! and the offer at start to resume an unfinished game.

use crate::table::has_match;
use crate::theme::PanelSet;
use bevy::prelude::*;
use bevy_egui::EguiPrimaryContextPass;

pub mod open_games;
pub mod resume_offer;
pub mod save_as;
pub mod save_entry;
#[cfg(target_arch = "wasm32")]
pub mod transfer;

/// Ask the browser for `.ron` files to take into the saved games (the browser build's Open
/// screen; the desktop's saves are files already).
#[derive(Message, Clone, Copy, Debug)]
pub struct PickFiles;

pub(crate) fn plugin(app: &mut App) {
    open_games::plugin(app);
    app.add_message::<PickFiles>();
    #[cfg(target_arch = "wasm32")]
    transfer::plugin(app);
    app.init_resource::<save_as::SaveDialog>().add_systems(
        EguiPrimaryContextPass,
        (save_as::save_as, resume_offer::resume_offer)
            .run_if(has_match)
            .in_set(PanelSet::Overlays),
    );
}
