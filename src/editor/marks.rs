//! The editor on the 3D board: squares with a problem glow red, the picked-up piece has a ring,
//! the hovered square a soft light (its keys are in `keys`).

use crate::board::square_center;
use crate::editor::Editor;
use crate::screen::Screen;
use crate::table::selection::Hovered;
use bevy::prelude::*;
use khet_engine::Square;

#[derive(Component)]
struct EditorMark;

#[derive(Resource)]
struct MarkAssets {
    flat: Handle<Mesh>,
    ring: Handle<Mesh>,
    problem: Handle<StandardMaterial>,
    selected: Handle<StandardMaterial>,
    hover: Handle<StandardMaterial>,
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, make_assets).add_systems(
        Update,
        marks
            .in_set(crate::GameSet::View)
            .in_set(crate::schedule::Drawn::EditorMarks)
            .run_if(in_state(Screen::Editor)),
    );
}

fn make_assets(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let mut glow = |r: f32, g: f32, b: f32, a: f32| {
        materials.add(StandardMaterial {
            base_color: Color::srgba(r, g, b, a),
            emissive: LinearRgba::rgb(r * 2.0, g * 2.0, b * 2.0),
            alpha_mode: AlphaMode::Blend,
            unlit: true,
            ..default()
        })
    };
    commands.insert_resource(MarkAssets {
        flat: meshes.add(Cuboid::new(0.95, 0.01, 0.95)),
        ring: meshes.add(Torus::new(0.36, 0.44)),
        problem: glow(1.0, 0.1, 0.05, 0.95),
        selected: glow(1.0, 0.8, 0.1, 0.95),
        hover: glow(1.0, 1.0, 1.0, 0.2),
    });
}

fn marks(
    editor: Res<Editor>,
    hovered: Res<Hovered>,
    assets: Option<Res<MarkAssets>>,
    old: Query<Entity, With<EditorMark>>,
    mut commands: Commands,
) {
    let Some(a) = assets else { return };
    if !(editor.is_changed() || hovered.is_changed()) {
        return;
    }
    for e in &old {
        commands.entity(e).despawn();
    }
    let mut put = |sq: Square, mesh: &Handle<Mesh>, material: &Handle<StandardMaterial>, y: f32| {
        commands.spawn((
            EditorMark,
            DespawnOnExit(Screen::Editor),
            Mesh3d(mesh.clone()),
            MeshMaterial3d(material.clone()),
            Transform::from_translation(square_center(sq) + Vec3::Y * y),
            bevy::picking::Pickable::IGNORE,
            bevy::light::NotShadowCaster,
        ));
    };
    for sq in editor
        .problems
        .iter()
        .flat_map(khet_engine::Problem::squares)
    {
        // A red tile and a red ring: seen on any square, the reserved ones' tints included.
        put(sq, &a.flat, &a.problem, 0.01);
        put(sq, &a.ring, &a.problem, 0.09);
    }
    if let Some(sq) = editor.selected {
        put(sq, &a.ring, &a.selected, 0.08);
    }
    if let Some(sq) = hovered.0 {
        put(sq, &a.flat, &a.hover, 0.014);
    }
}
