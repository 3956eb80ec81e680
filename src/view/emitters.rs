//! Khet 1.0's fixed lasers, drawn as emitters on the board's rim: Silver's below j1 firing
//! north, Red's above a8 firing south. They stand outside the squares, where the rule book puts
//! them, and appear only while a Khet 1.0 board is shown (a game, a lesson or the editor's).

use crate::board::square_center;
use crate::settings::Settings;
use crate::state::Show;
use bevy::prelude::*;
use khet_engine::{Color as Side, Edition, Square};

#[derive(Component)]
struct Emitter;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Update, follow_edition.in_set(crate::GameSet::View));
}

/// Where a side's emitter stands and which way (world) it fires.
pub fn emitter_place(side: Side) -> (Vec3, Vec3) {
    let (corner, north) = match side {
        Side::Silver => ("j1", Vec3::NEG_Z),
        Side::Red => ("a8", Vec3::Z),
    };
    let sq: Square = corner.parse().unwrap_or(Square::ALL[0]);
    // Just past the squares' edge, on the board's rim (the slab is 0.4 wider each side).
    (square_center(sq) - north * 0.72, north)
}

fn follow_edition(
    show: Res<Show>,
    settings: Res<Settings>,
    old: Query<Entity, With<Emitter>>,
    mut shown: Local<Option<Edition>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut commands: Commands,
) {
    let edition = show.display.map(|p| p.edition());
    if edition == *shown {
        return;
    }
    *shown = edition;
    for e in &old {
        commands.entity(e).despawn();
    }
    if edition != Some(Edition::Khet1) {
        return;
    }
    let housing = meshes.add(Cuboid::new(0.42, 0.26, 0.3));
    let lens = meshes.add(Cylinder::new(0.08, 0.06));
    let metal = materials.add(StandardMaterial {
        base_color: Color::srgb(0.22, 0.22, 0.25),
        metallic: 0.8,
        perceptual_roughness: 0.35,
        ..default()
    });
    for side in Side::ALL {
        let (at, fires) = emitter_place(side);
        let glow = settings.palette.beam(side);
        let lens_material = materials.add(StandardMaterial {
            base_color: Color::linear_rgb(1.0, 0.3, 0.25),
            emissive: glow * 0.3,
            ..default()
        });
        commands
            .spawn((
                Name::new(format!("{side} emitter")),
                Emitter,
                Mesh3d(housing.clone()),
                MeshMaterial3d(metal.clone()),
                Transform::from_translation(at + Vec3::Y * 0.13).looking_to(fires, Vec3::Y),
                bevy::picking::Pickable::IGNORE,
            ))
            .with_child((
                Mesh3d(lens.clone()),
                MeshMaterial3d(lens_material),
                // The lens faces the board: the cylinder's axis along the firing direction
                // (local −Z after `looking_to`), on the housing's front.
                Transform::from_xyz(0.0, 0.0, -0.16)
                    .with_rotation(Quat::from_rotation_x(std::f32::consts::FRAC_PI_2)),
                bevy::picking::Pickable::IGNORE,
            ));
    }
}
