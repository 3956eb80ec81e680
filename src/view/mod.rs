//! What a player sees and does: board and pieces, the beam, highlights, mouse and keys, the
//! camera, and the egui panels. Each file is one feature with its own `plugin` function.

use bevy::prelude::*;

pub mod beam;
pub mod best_move;
pub mod board_image;
pub mod camera;
pub mod editor_marks;
pub mod effects;
pub mod emitters;
pub mod environment;
pub mod highlights;
pub mod input;
pub mod low_material;
pub mod model_file;
pub mod models;
pub mod panels;
pub mod preview_beam;
pub mod quality;
pub mod scene;

pub struct ViewPlugin;

/// The pieces' models, from the model file or built in; apart for the headless asset tests.
pub struct ModelsPlugin;

impl Plugin for ModelsPlugin {
    fn build(&self, app: &mut App) {
        models::plugin(app);
        model_file::plugin(app);
    }
}

impl Plugin for ViewPlugin {
    fn build(&self, app: &mut App) {
        app.add_plugins((
            bevy::picking::mesh_picking::MeshPickingPlugin,
            bevy_egui::EguiPlugin::default(),
        ));
        scene::plugin(app);
        board_image::plugin(app);
        app.add_plugins(ModelsPlugin);
        camera::plugin(app);
        beam::plugin(app);
        effects::plugin(app);
        best_move::plugin(app);
        highlights::plugin(app);
        editor_marks::plugin(app);
        emitters::plugin(app);
        environment::plugin(app);
        input::plugin(app);
        low_material::plugin(app);
        panels::plugin(app);
        preview_beam::plugin(app);
        quality::plugin(app);
    }
}
