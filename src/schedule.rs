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

/// The board's drawn parts, each made by the systems in its set (in [`GameSet::View`]). The
/// game's state never waits on them, so the dev build's broken-features run (`KHET_BROKEN`) can
/// leave any out, to show that the window test sees each go.
#[derive(SystemSet, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Drawn {
    /// The pieces' models.
    Pieces,
    /// The shown beam, and the glow of a Pharaoh it lit.
    Beam,
    /// The selection ring, the destinations, the hovered square, the last move, the hint.
    Highlights,
    /// Flares, splashes, shards, the lit Pharaoh's pillar.
    Effects,
    /// The laser preview's beam.
    Preview,
    /// The editor's marks on problem squares.
    EditorMarks,
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
