//! The board: a stone slab, 80 tiles, the reserved squares tinted and marked (ankh for Silver's,
//! eye for Red's), lights with shadows.

use crate::board::{Tile, square_center};
use bevy::prelude::*;
use khet_engine::{Color as Side, Square, reserved_for};

pub(super) fn plugin(app: &mut App) {
    app.insert_resource(ClearColor(Color::srgb(0.05, 0.055, 0.07)))
        .insert_resource(GlobalAmbientLight {
            color: Color::srgb(0.9, 0.92, 1.0),
            brightness: 350.0,
            ..default()
        })
        .add_systems(Startup, spawn_board);
}

fn tile_color(sq: Square) -> Color {
    let light = (sq.file().index() + sq.rank().index()) % 2 == 1;
    match reserved_for(sq) {
        Some(Side::Silver) => {
            if light {
                Color::srgb(0.62, 0.68, 0.78)
            } else {
                Color::srgb(0.52, 0.58, 0.68)
            }
        }
        Some(Side::Red) => {
            if light {
                Color::srgb(0.66, 0.33, 0.30)
            } else {
                Color::srgb(0.56, 0.25, 0.23)
            }
        }
        None => {
            if light {
                Color::srgb(0.78, 0.70, 0.55)
            } else {
                Color::srgb(0.66, 0.58, 0.44)
            }
        }
    }
}

fn spawn_board(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    spawn_slab(&mut commands, &mut meshes, &mut materials);
    let tile = meshes.add(Cuboid::new(0.95, 0.04, 0.95));
    let glyphs = Glyphs::new(&mut meshes, &mut materials);
    let mut cache: Vec<(Color, Handle<StandardMaterial>)> = Vec::new();
    for sq in Square::ALL {
        let material = tile_material(&mut materials, &mut cache, tile_color(sq));
        let mut e = commands.spawn((
            Name::new(format!("Tile {sq}")),
            Tile(sq),
            Mesh3d(tile.clone()),
            MeshMaterial3d(material),
            Transform::from_translation(square_center(sq) - Vec3::Y * 0.02),
        ));
        match reserved_for(sq) {
            Some(Side::Silver) => {
                e.with_children(|c| glyphs.ankh(c));
            }
            Some(Side::Red) => {
                e.with_children(|c| glyphs.eye(c));
            }
            None => {}
        }
    }
    spawn_lights(&mut commands);
}

/// Spawns the stone slab the tiles lie on, which the model file's board may replace.
fn spawn_slab(
    commands: &mut Commands,
    meshes: &mut Assets<Mesh>,
    materials: &mut Assets<StandardMaterial>,
) {
    let stone = materials.add(StandardMaterial {
        base_color: Color::srgb(0.16, 0.14, 0.12),
        perceptual_roughness: 0.9,
        ..default()
    });
    commands.spawn((
        Name::new("Board slab"),
        super::model_file::BoardSlab,
        Mesh3d(meshes.add(Cuboid::new(10.8, 0.3, 8.8))),
        MeshMaterial3d(stone),
        Transform::from_xyz(0.0, -0.17, 0.0),
        bevy::picking::Pickable::IGNORE,
    ));
}

/// The tile material of that colour, made once and shared by every tile of it.
fn tile_material(
    materials: &mut Assets<StandardMaterial>,
    cache: &mut Vec<(Color, Handle<StandardMaterial>)>,
    color: Color,
) -> Handle<StandardMaterial> {
    match cache.iter().find(|(c, _)| *c == color) {
        Some((_, m)) => m.clone(),
        None => {
            let m = materials.add(StandardMaterial {
                base_color: color,
                perceptual_roughness: 0.75,
                ..default()
            });
            cache.push((color, m.clone()));
            m
        }
    }
}

/// Where a tile's glyph lies: off-centre, so pieces do not hide it.
const GLYPH_CORNER: Vec3 = Vec3::new(-0.3, 0.012, 0.3);

/// The reserved squares' glyphs' meshes and materials, shared by every tile.
struct Glyphs {
    glyph: Handle<StandardMaterial>,
    dark: Handle<StandardMaterial>,
    ring: Handle<Mesh>,
    bar: Handle<Mesh>,
    cross: Handle<Mesh>,
    eye_white: Handle<Mesh>,
    pupil: Handle<Mesh>,
}

impl Glyphs {
    /// Makes the glyphs' materials and meshes.
    fn new(meshes: &mut Assets<Mesh>, materials: &mut Assets<StandardMaterial>) -> Self {
        let glyph = materials.add(StandardMaterial {
            base_color: Color::srgb(0.95, 0.95, 0.92),
            perceptual_roughness: 0.6,
            ..default()
        });
        let dark = materials.add(StandardMaterial {
            base_color: Color::srgb(0.1, 0.05, 0.05),
            ..default()
        });
        // The glyphs are a few pixels across: coarse meshes (a few hundred triangles, not the
        // default thousands) look the same and keep a software renderer's frame cheap.
        let ring = meshes.add(
            Torus::new(0.07, 0.11)
                .mesh()
                .minor_resolution(6)
                .major_resolution(20),
        );
        let bar = meshes.add(Cuboid::new(0.06, 0.02, 0.32));
        let cross = meshes.add(Cuboid::new(0.26, 0.02, 0.06));
        let eye_white = meshes.add(Sphere::new(0.2).mesh().uv(20, 6));
        let pupil = meshes.add(Sphere::new(0.07).mesh().uv(12, 4));
        Glyphs {
            glyph,
            dark,
            ring,
            bar,
            cross,
            eye_white,
            pupil,
        }
    }

    /// Spawns an ankh, the mark of Silver's reserved squares, on a tile.
    fn ankh(&self, c: &mut ChildSpawnerCommands) {
        let base = GLYPH_CORNER + Vec3::new(0.02, 0.0, -0.04);
        c.spawn((
            Mesh3d(self.ring.clone()),
            MeshMaterial3d(self.glyph.clone()),
            Transform::from_translation(base + Vec3::new(0.0, 0.0, -0.12))
                .with_scale(Vec3::new(0.6, 0.2, 0.75)),
            bevy::picking::Pickable::IGNORE,
        ));
        c.spawn((
            Mesh3d(self.bar.clone()),
            MeshMaterial3d(self.glyph.clone()),
            Transform::from_translation(base + Vec3::new(0.0, 0.0, 0.06))
                .with_scale(Vec3::new(1.0, 1.0, 0.6)),
            bevy::picking::Pickable::IGNORE,
        ));
        c.spawn((
            Mesh3d(self.cross.clone()),
            MeshMaterial3d(self.glyph.clone()),
            Transform::from_translation(base + Vec3::new(0.0, 0.0, -0.02))
                .with_scale(Vec3::new(0.7, 1.0, 1.0)),
            bevy::picking::Pickable::IGNORE,
        ));
    }

    /// Spawns an eye, the mark of Red's reserved squares, on a tile.
    fn eye(&self, c: &mut ChildSpawnerCommands) {
        c.spawn((
            Mesh3d(self.eye_white.clone()),
            MeshMaterial3d(self.glyph.clone()),
            Transform::from_translation(GLYPH_CORNER).with_scale(Vec3::new(0.75, 0.06, 0.38)),
            bevy::picking::Pickable::IGNORE,
        ));
        c.spawn((
            Mesh3d(self.pupil.clone()),
            MeshMaterial3d(self.dark.clone()),
            Transform::from_translation(GLYPH_CORNER + Vec3::Y * 0.01)
                .with_scale(Vec3::new(1.0, 0.3, 1.0)),
            bevy::picking::Pickable::IGNORE,
        ));
    }
}

/// Spawns the sun, which casts the shadows, and an unshadowed fill light.
fn spawn_lights(commands: &mut Commands) {
    commands.spawn((
        Name::new("Sun"),
        DirectionalLight {
            illuminance: 9_000.0,
            shadow_maps_enabled: true,
            ..default()
        },
        Transform::from_xyz(-4.0, 12.0, 6.0).looking_at(Vec3::ZERO, Vec3::Y),
    ));
    commands.spawn((
        Name::new("Fill light"),
        PointLight {
            intensity: 400_000.0,
            range: 40.0,
            shadow_maps_enabled: false,
            ..default()
        },
        Transform::from_xyz(6.0, 8.0, -6.0),
    ));
}
