//! What draws the board: the board's picture and where it is shown (`board_image`), the mouse
//! routed into it and what it means on tiles and pieces (`pointer`), the graphics presets (`quality`, with the Low material), the
//! camera, the scene and its lights, the pieces' models (built in, or from the model file),
//! the beam, the laser preview's beam, the shot's effects, the highlights, Khet 1.0's
//! emitters, the board's letters and the reflections' hall; and the window's loop at rest when
//! nothing moves (`rest`). It follows the table's state; nothing here changes the game.

use bevy::prelude::*;

pub mod beam;
pub mod board_image;
pub mod camera;
pub mod effects;
pub mod emitters;
pub mod environment;
pub mod highlights;
pub mod labels;
pub mod low_material;
pub mod model_file;
pub mod models;
pub mod pointer;
pub mod preview_beam;
pub mod quality;
pub mod rest;
pub mod scene;

/// The pieces' models, from the model file or built in; apart for the headless asset tests
/// (`tests/assets.rs`), which add it without the rest of the board.
pub fn models_plugin(app: &mut App) {
    models::plugin(app);
    model_file::plugin(app);
}

/// The board as drawn: everything in this folder.
pub(super) fn plugin(app: &mut App) {
    app.add_plugins((
        bevy::picking::mesh_picking::MeshPickingPlugin,
        models_plugin,
    ));
    scene::plugin(app);
    board_image::plugin(app);
    pointer::plugin(app);
    camera::plugin(app);
    beam::plugin(app);
    effects::plugin(app);
    highlights::plugin(app);
    emitters::plugin(app);
    environment::plugin(app);
    low_material::plugin(app);
    preview_beam::plugin(app);
    quality::plugin(app);
    rest::plugin(app);
    app.add_systems(
        bevy_egui::EguiPrimaryContextPass,
        labels::labels
            .run_if(crate::table::has_match)
            .in_set(crate::theme::PanelSet::Overlays),
    );
}
