//! Khet in 3D: a thin ECS layer over the engine crate, which alone knows the rules.
//!
//! [`CorePlugin`] holds the match (a resource wrapping the engine's `Game`), the selection, the
//! shown shot, clocks, saves, settings, the screens, the messages that change them and the piece
//! entities derived from them; it runs headless (`MinimalPlugins`), which is how the tests drive
//! whole games. [`ViewPlugin`] adds what a player sees and does: the board
//! and piece models, the beam, the mouse and keys, the camera, and the egui panels.

use bevy::prelude::*;

pub mod ai;
pub mod autoplay;
pub mod autoplay_learn;
pub mod autoplay_tour;
pub mod board;
pub mod clock;
pub mod cues;
pub mod editor;
pub mod fairness;
pub mod files;
pub mod laser_preview;
pub mod lesson;
pub mod news;
pub mod pieces;
pub mod progress;
pub mod replay;
pub mod saves;
pub mod screen;
pub mod selection;
pub mod settings;
pub mod setups;
pub mod sound;
pub mod state;
pub mod tutorial;
pub mod view;

/// The order of the game's work in a frame.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub enum GameSet {
    /// Mouse, keys and panels write messages.
    Input,
    /// The game resource reads them and moves the show along.
    Logic,
    /// Piece entities follow the board.
    Pieces,
    /// Meshes, beam and highlights follow the entities.
    View,
}

/// The game without any drawing: state, rules (through the engine), entities.
pub struct CorePlugin;

impl Plugin for CorePlugin {
    fn build(&self, app: &mut App) {
        app.configure_sets(
            Update,
            (
                GameSet::Input,
                GameSet::Logic,
                GameSet::Pieces,
                GameSet::View,
            )
                .chain(),
        );
        screen::plugin(app);
        settings::plugin(app);
        news::plugin(app);
        state::plugin(app);
        cues::plugin(app);
        selection::plugin(app);
        clock::plugin(app);
        ai::plugin(app);
        laser_preview::plugin(app);
        progress::plugin(app);
        lesson::plugin(app);
        saves::plugin(app);
        replay::plugin(app);
        pieces::plugin(app);
        setups::plugin(app);
        editor::plugin(app);
    }
}

pub use view::ViewPlugin;
