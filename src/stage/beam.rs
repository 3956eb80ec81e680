//! The laser beam: a glowing emissive ray (bloom does the glow) that grows square by square along
//! the engine's traced path, with a bright front, turns at mirrors, splits at an Eye, stops at
//! the hit; then the beam lingers and fades. Flares, splashes and shards are `effects`'.

use crate::board::{BEAM_HEIGHT, direction_vec, square_center};
use crate::settings::Palette;
use crate::settings::Settings;
use crate::stage::models::{Models, PieceModel};
use crate::table::pieces::OnSquare;
use crate::table::{MoveApplied, Phase, Show, segment_length};
use bevy::prelude::*;
use khet_engine::{HitEffect, Segment, SegmentEnd};

/// One straight run of the shown beam.
#[derive(Component, Clone, Copy, Debug)]
pub struct BeamSegment {
    pub index: usize,
    pub segment: Segment,
    pub start: f32,
    pub length: f32,
}

/// The bright tip of a growing segment.
#[derive(Component)]
pub struct BeamHead(usize);

#[derive(Resource)]
pub struct BeamAssets {
    core: Handle<StandardMaterial>,
    cube: Handle<Mesh>,
    ball: Handle<Mesh>,
}

const THICKNESS: f32 = 0.09;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, make_assets).add_systems(
        Update,
        (spawn_beam, draw_beam, light_pharaohs)
            .chain()
            .in_set(crate::GameSet::View)
            .in_set(crate::schedule::Drawn::Beam),
    );
}

fn make_assets(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    commands.insert_resource(BeamAssets {
        core: materials.add(StandardMaterial {
            base_color: Color::srgb(1.0, 0.3, 0.2),
            emissive: LinearRgba::rgb(30.0, 2.0, 1.0),
            unlit: true,
            ..default()
        }),
        cube: meshes.add(Cuboid::new(1.0, 1.0, 1.0)),
        ball: meshes.add(Sphere::new(0.5)),
    });
}

/// Where a segment's light starts: its Sphinx or mirror, or the board edge for a fixed laser.
pub fn segment_origin(seg: &Segment) -> Vec3 {
    let base = match seg.from {
        Some(f) => square_center(f),
        None => {
            let s = seg.edge_entry();
            square_center(s) - direction_vec(seg.dir) * 0.5
        }
    };
    base + Vec3::Y * BEAM_HEIGHT
}

/// The beam's colour for each side and palette, in linear light well above 1 (bloom makes it
/// glow).
pub fn beam_colour(palette: Palette, side: khet_engine::Color) -> LinearRgba {
    let red = LinearRgba::rgb(30.0, 2.0, 1.0);
    match (palette, side) {
        (Palette::Classic, _) | (Palette::PerSide, khet_engine::Color::Red) => red,
        (Palette::PerSide, khet_engine::Color::Silver) => LinearRgba::rgb(4.0, 14.0, 30.0),
        (Palette::ColourBlind, khet_engine::Color::Silver) => LinearRgba::rgb(0.5, 8.0, 30.0),
        (Palette::ColourBlind, khet_engine::Color::Red) => LinearRgba::rgb(30.0, 12.0, 0.5),
    }
}

fn spawn_beam(
    mut applied: MessageReader<MoveApplied>,
    show: Res<Show>,
    assets: Option<Res<BeamAssets>>,
    old: Query<Entity, Or<(With<BeamSegment>, With<BeamHead>)>>,
    mut commands: Commands,
) {
    let Some(assets) = assets else { return };
    if applied.read().last().is_none() {
        return;
    }
    for e in &old {
        commands.entity(e).despawn();
    }
    let Some(shot) = &show.shot else { return };
    for (index, segment) in shot.segments.iter().enumerate() {
        let start = show.segment_starts.get(index).copied().unwrap_or(0.0);
        commands.spawn((
            Name::new(format!("Beam segment {index}")),
            BeamSegment {
                index,
                segment: *segment,
                start,
                length: segment_length(segment),
            },
            Mesh3d(assets.cube.clone()),
            MeshMaterial3d(assets.core.clone()),
            Transform::from_scale(Vec3::ZERO),
            Visibility::Hidden,
            bevy::picking::Pickable::IGNORE,
            bevy::light::NotShadowCaster,
        ));
        commands.spawn((
            Name::new(format!("Beam head {index}")),
            BeamHead(index),
            Mesh3d(assets.ball.clone()),
            MeshMaterial3d(assets.core.clone()),
            Transform::from_scale(Vec3::ZERO),
            Visibility::Hidden,
            bevy::picking::Pickable::IGNORE,
            bevy::light::NotShadowCaster,
        ));
    }
}

fn draw_beam(
    time: Res<Time>,
    show: Res<Show>,
    settings: Res<Settings>,
    pace: Res<crate::table::Pace>,
    m: Option<Res<crate::table::Match>>,
    assets: Option<Res<BeamAssets>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut segments: Query<(&BeamSegment, &mut Transform, &mut Visibility), Without<BeamHead>>,
    mut heads: Query<(&BeamHead, &mut Transform, &mut Visibility), Without<BeamSegment>>,
) {
    let Some(assets) = assets else { return };
    let (front, fade) = match show.phase {
        Phase::Idle | Phase::Moving { .. } => (-1.0, 0.0),
        Phase::Firing { front } => (front, 1.0),
        Phase::Lingering { elapsed } => {
            let t = (elapsed / pace.linger_seconds.max(0.01)).min(1.0);
            (f32::INFINITY, (1.0 - t) * (1.0 - t))
        }
    };
    // A shimmer, so the beam looks alive.
    let shimmer = 0.85 + 0.15 * (time.elapsed_secs() * 23.0).sin();
    // The shooter's colour in the chosen palette.
    let shooter = show.shot.as_ref().map_or_else(
        || {
            m.as_ref()
                .and_then(|m| m.game.last_turn())
                .map_or(khet_engine::Color::Silver, |t| t.color)
        },
        |s| s.color,
    );
    let glow = beam_colour(settings.palette, shooter);
    if let Some(mut mat) = materials.get_mut(&assets.core) {
        mat.emissive = glow * (shimmer * fade.max(0.02));
        let peak = glow.red.max(glow.green).max(glow.blue);
        mat.base_color = Color::linear_rgb(glow.red / peak, glow.green / peak, glow.blue / peak);
    }
    let mut tips = Vec::new();
    for (seg, mut tf, mut vis) in &mut segments {
        let visible = (front - seg.start).clamp(0.0, seg.length);
        if visible <= 0.0 || fade <= 0.0 {
            *vis = Visibility::Hidden;
            continue;
        }
        *vis = Visibility::Visible;
        let dir = direction_vec(seg.segment.dir);
        let origin = segment_origin(&seg.segment);
        let thickness = THICKNESS * (0.4 + 0.6 * fade);
        tf.translation = origin + dir * visible / 2.0;
        tf.scale = if dir.x != 0.0 {
            Vec3::new(visible, thickness, thickness)
        } else {
            Vec3::new(thickness, thickness, visible)
        };
        if visible < seg.length {
            tips.push((seg.index, origin + dir * visible));
        }
    }
    for (head, mut tf, mut vis) in &mut heads {
        match tips.iter().find(|(i, _)| *i == head.0) {
            Some(&(_, p)) => {
                *vis = Visibility::Visible;
                // The front: a bright bead, pulsing, that the eye can follow.
                tf.translation = p;
                tf.scale = Vec3::splat(0.27 + 0.05 * (time.elapsed_secs() * 40.0).sin());
            }
            None => *vis = Visibility::Hidden,
        }
    }
}

/// When a shot lands, a lit Pharaoh glows white-hot (the flashes, sparks and shards are
/// `effects`').
fn light_pharaohs(
    show: Res<Show>,
    mut seen: Local<u32>,
    models: Option<Res<Models>>,
    pieces: Query<(&OnSquare, &Children)>,
    parts: Query<(), With<PieceModel>>,
    mut commands: Commands,
) {
    let Some(models) = models else { return };
    if show.landings == *seen {
        return;
    }
    *seen = show.landings;
    let Some(shot) = &show.shot else { return };
    for hit in shot
        .hits
        .iter()
        .filter(|h| h.effect == HitEffect::PharaohLit)
    {
        for (on, children) in &pieces {
            if on.0 == hit.square {
                for child in children.iter() {
                    // Inserted, not edited: in Low the part draws with its Low material.
                    if parts.contains(child) {
                        commands
                            .entity(child)
                            .insert(MeshMaterial3d(models.lit.clone()));
                    }
                }
            }
        }
    }
}

/// For the screenshot test: where the beam is drawn now.
pub fn beam_is_visible(show: &Show) -> bool {
    matches!(show.phase, Phase::Firing { front } if front > 0.0)
        && show
            .shot
            .as_ref()
            .is_some_and(|s| !s.segments.is_empty() && s.segments[0].end != SegmentEnd::Joined)
}
