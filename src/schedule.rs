//! The order of the game's work in a frame: input, logic, pieces, view. A leaf every feature
//! may use (as `crate::GameSet`).

use bevy::prelude::*;

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

/// The sets in their order, in `Update`.
pub(super) fn plugin(app: &mut App) {
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
}
