//! Draws the laser preview: the path faint and thin, and a pale ball on each piece it would hit.

use crate::board::{BEAM_HEIGHT, direction_vec, square_center};
use crate::stage::beam::segment_origin;
use crate::table::laser_preview::LaserPreview;
use crate::table::segment_length;
use bevy::prelude::*;

/// A part of the drawn preview.
#[derive(Component)]
pub struct PreviewPart;

/// Meshes and materials of the preview, made once.
struct Look {
    cube: Handle<Mesh>,
    ball: Handle<Mesh>,
    path: Handle<StandardMaterial>,
    hit: Handle<StandardMaterial>,
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        draw.in_set(crate::GameSet::View)
            .in_set(crate::schedule::Drawn::Preview),
    );
}

fn draw(
    preview: Res<LaserPreview>,
    old: Query<Entity, With<PreviewPart>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut look: Local<Option<Look>>,
    mut commands: Commands,
) {
    if !preview.is_changed() {
        return;
    }
    for e in &old {
        commands.entity(e).despawn();
    }
    let Some((_, shot)) = &preview.0 else { return };
    let look = look.get_or_insert_with(|| {
        let faint = |rgba: [f32; 4], glow: f32| StandardMaterial {
            base_color: Color::srgba(rgba[0], rgba[1], rgba[2], rgba[3]),
            emissive: LinearRgba::rgb(rgba[0] * glow, rgba[1] * glow, rgba[2] * glow),
            alpha_mode: AlphaMode::Blend,
            unlit: true,
            ..default()
        };
        Look {
            cube: meshes.add(Cuboid::new(1.0, 1.0, 1.0)),
            ball: meshes.add(Sphere::new(0.5)),
            path: materials.add(faint([1.0, 0.45, 0.35, 0.45], 1.5)),
            hit: materials.add(faint([1.0, 0.9, 0.7, 0.35], 1.2)),
        }
    });
    let mut part = |mesh: &Handle<Mesh>, material: &Handle<StandardMaterial>, tf: Transform| {
        commands.spawn((
            Name::new("Laser preview"),
            PreviewPart,
            Mesh3d(mesh.clone()),
            MeshMaterial3d(material.clone()),
            tf,
            bevy::picking::Pickable::IGNORE,
            bevy::light::NotShadowCaster,
        ));
    };
    for seg in &shot.segments {
        let dir = direction_vec(seg.dir);
        let len = segment_length(seg);
        let t = 0.035;
        let scale = if dir.x != 0.0 {
            Vec3::new(len, t, t)
        } else {
            Vec3::new(t, t, len)
        };
        let tf =
            Transform::from_translation(segment_origin(seg) + dir * len / 2.0).with_scale(scale);
        part(&look.cube, &look.path, tf);
    }
    for hit in &shot.hits {
        let at = square_center(hit.square) + Vec3::Y * BEAM_HEIGHT;
        part(
            &look.ball,
            &look.hit,
            Transform::from_translation(at).with_scale(Vec3::splat(0.55)),
        );
    }
}
