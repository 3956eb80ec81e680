//! Khet 1.0's fixed lasers, drawn as emitters on the board's rim: Silver's below j1 firing
//! north, Red's above a8 firing south: the model file's `Emitter` (a small pylon with its lens
//! in the beam's colour), or a built-in box while the file is missing. They stand outside the
//! squares, where the rule book puts them, and appear only while a Khet 1.0 board is shown (a
//! game, a lesson or the editor's).

use crate::board::square_center;
use crate::settings::Settings;
use crate::stage::models::{Models, Role};
use crate::table::Show;
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
    (square_center(sq) - north * 0.7, north)
}

fn follow_edition(
    show: Res<Show>,
    settings: Res<Settings>,
    models: Option<Res<Models>>,
    old: Query<Entity, With<Emitter>>,
    mut shown: Local<Option<Edition>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut commands: Commands,
) {
    let edition = show.display.map(|p| p.edition());
    // Built again when the edition changes, and when the model file's emitter arrives.
    let models_changed = models.as_ref().is_some_and(DetectChanges::is_changed);
    if edition == *shown && !models_changed {
        return;
    }
    *shown = edition;
    for e in &old {
        commands.entity(e).despawn();
    }
    if edition != Some(Edition::Khet1) {
        return;
    }
    for side in Side::ALL {
        let (at, fires) = emitter_place(side);
        let glow = super::beam::beam_colour(settings.palette, side);
        let lens = materials.add(StandardMaterial {
            base_color: Color::linear_rgb(1.0, 0.3, 0.25),
            emissive: glow * 0.3,
            ..default()
        });
        let modelled = models.as_ref().and_then(|m| m.emitter(side));
        let mut emitter = commands.spawn((
            Name::new(format!("{side} emitter")),
            Emitter,
            // The model's north (local -Z) is where it fires.
            Transform::from_translation(at).looking_to(fires, Vec3::Y),
            Visibility::default(),
        ));
        match modelled {
            Some(parts) => {
                emitter.with_children(|c| {
                    for (mesh, role, material) in parts {
                        let material = if role == Role::Lens {
                            lens.clone()
                        } else {
                            material
                        };
                        c.spawn((
                            Mesh3d(mesh),
                            MeshMaterial3d(material),
                            bevy::picking::Pickable::IGNORE,
                        ));
                    }
                });
            }
            None => {
                let housing = meshes.add(Cuboid::new(0.42, 0.26, 0.3));
                let glass = meshes.add(Cylinder::new(0.08, 0.06));
                let metal = materials.add(StandardMaterial {
                    base_color: Color::srgb(0.22, 0.22, 0.25),
                    metallic: 0.8,
                    perceptual_roughness: 0.35,
                    ..default()
                });
                emitter.with_children(|c| {
                    c.spawn((
                        Mesh3d(housing),
                        MeshMaterial3d(metal),
                        Transform::from_xyz(0.0, 0.13, 0.0),
                        bevy::picking::Pickable::IGNORE,
                    ));
                    // The lens faces the board: the cylinder's axis along the firing
                    // direction (local −Z), on the housing's front.
                    c.spawn((
                        Mesh3d(glass),
                        MeshMaterial3d(lens),
                        Transform::from_xyz(0.0, 0.13, -0.16)
                            .with_rotation(Quat::from_rotation_x(std::f32::consts::FRAC_PI_2)),
                        bevy::picking::Pickable::IGNORE,
                    ));
                });
            }
        }
    }
}
