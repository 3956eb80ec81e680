//! The laser's effects, timed by the table's [`Cue`]s: a flare where the beam turns or splits,
//! a splash of light and sparks where it stops on a shield, a Sphinx or the board's rim, a flash
//! and flying shards where it strikes a piece, a pillar of light and a shock ring for a lit
//! Pharaoh, and a small camera shake (a setting). Shard and spark counts follow the graphics
//! preset; Low adds no lights.

use crate::board::{BEAM_HEIGHT, direction_vec, square_center};
use crate::frames::NextFrame;
use crate::settings::{Quality, Settings};
use crate::stage::beam::segment_origin;
use crate::stage::camera::Shake;
use crate::stage::models::Models;
use crate::stage::quality::Graphics;
use crate::table::animation_dt;
use crate::table::cues::{Cue, MOMENT_SECONDS, PharaohMoment};
use crate::table::pieces::{BoardPiece, Dying};
use crate::table::{Show, segment_length};
use bevy::light::NotShadowCaster;
use bevy::picking::Pickable;
use bevy::prelude::*;
use khet_engine::{HitEffect, SegmentEnd};

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<FxRng>()
        .add_systems(Startup, make_assets)
        .add_systems(
            Update,
            (
                on_cues,
                shatter_dying,
                pharaoh_pillar,
                animate_particles,
                animate_glows,
            )
                .chain()
                .in_set(crate::GameSet::View)
                .in_set(crate::schedule::Drawn::Effects),
        );
}

#[derive(Resource)]
struct FxAssets {
    glow: Handle<StandardMaterial>,
    pillar: Handle<StandardMaterial>,
    shock: Handle<StandardMaterial>,
    ball: Handle<Mesh>,
    disc: Handle<Mesh>,
    spark: Handle<Mesh>,
    shard: Handle<Mesh>,
    ring: Handle<Mesh>,
    column: Handle<Mesh>,
}

/// The engine's seeded random source: effects differ shot to shot but runs are repeatable.
#[derive(Resource)]
struct FxRng(khet_engine::Rng);

impl Default for FxRng {
    fn default() -> FxRng {
        FxRng(khet_engine::Rng::new(0x2545_F491_4F6C_DD1D))
    }
}

impl FxRng {
    /// Uniform in `[lo, hi)`.
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.0.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
    }

    fn unit(&mut self) -> Vec3 {
        Vec3::new(
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
        )
        .normalize_or(Vec3::Y)
    }
}

/// A glow that swells and shrinks away: a flare, a splash, a flash, a shock ring.
#[derive(Component)]
struct Glow {
    elapsed: f32,
    life: f32,
    /// Scale at its peak (a quarter of its life in).
    peak: Vec3,
}

/// A flying bit: a spark or a shard of a broken piece, under gravity, bouncing once on the board.
#[derive(Component)]
struct Particle {
    velocity: Vec3,
    spin: Vec3,
    elapsed: f32,
    life: f32,
    size: f32,
    bounced: bool,
}

/// The light pillar over a lit Pharaoh, and the ring of light running out from it.
#[derive(Component)]
enum Moment {
    Pillar,
    Ring,
}

fn make_assets(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    commands.insert_resource(FxAssets {
        // Light added onto what is behind, brighter than white so that bloom makes it glow.
        glow: materials.add(additive(LinearRgba::rgb(6.0, 3.0, 1.6))),
        pillar: materials.add(additive(LinearRgba::rgb(5.0, 4.2, 2.0))),
        shock: materials.add(additive(LinearRgba::rgb(4.0, 3.0, 1.5))),
        ball: meshes.add(Sphere::new(0.5)),
        disc: meshes.add(Circle::new(0.5)),
        spark: meshes.add(Cuboid::new(1.0, 1.0, 1.0)),
        shard: meshes.add(Tetrahedron::default()),
        ring: meshes.add(Torus::new(0.45, 0.5)),
        column: meshes.add(Cylinder::new(0.5, 1.0)),
    });
}

fn additive(light: LinearRgba) -> StandardMaterial {
    StandardMaterial {
        base_color: Color::LinearRgba(light),
        alpha_mode: AlphaMode::Add,
        unlit: true,
        double_sided: true,
        cull_mode: None,
        ..default()
    }
}

/// How many shards a broken piece makes and sparks a splash throws, per preset.
fn particle_budget(graphics: Option<&Graphics>) -> (usize, usize) {
    match graphics.map_or(Quality::High, |g| g.active) {
        Quality::Low => (8, 4),
        Quality::Medium => (14, 8),
        Quality::High | Quality::Auto => (22, 12),
    }
}

fn glow_bundle(
    fx: &FxAssets,
    mesh: Handle<Mesh>,
    at: Transform,
    life: f32,
    peak: Vec3,
) -> impl Bundle {
    (
        Name::new("Beam effect"),
        Glow {
            elapsed: 0.0,
            life,
            peak,
        },
        Mesh3d(mesh),
        MeshMaterial3d(fx.glow.clone()),
        at.with_scale(Vec3::ZERO),
        Pickable::IGNORE,
        NotShadowCaster,
    )
}

fn spark_bundle(fx: &FxAssets, at: Vec3, velocity: Vec3, life: f32) -> impl Bundle {
    (
        Name::new("Spark"),
        Particle {
            velocity,
            spin: Vec3::ZERO,
            elapsed: 0.0,
            life,
            size: 1.0,
            bounced: false,
        },
        Mesh3d(fx.spark.clone()),
        MeshMaterial3d(fx.glow.clone()),
        Transform::from_translation(at).with_scale(Vec3::new(0.025, 0.025, 0.1)),
        Pickable::IGNORE,
        NotShadowCaster,
    )
}

fn on_cues(
    mut cues: MessageReader<Cue>,
    fx: Option<Res<FxAssets>>,
    graphics: Option<Res<Graphics>>,
    settings: Res<Settings>,
    mut shake: ResMut<Shake>,
    mut rng: ResMut<FxRng>,
    mut commands: Commands,
) {
    let Some(fx) = fx else {
        cues.clear();
        return;
    };
    let (_, sparks) = particle_budget(graphics.as_deref());
    let lights = graphics
        .as_deref()
        .is_some_and(|g| g.active == Quality::High);
    for cue in cues.read() {
        match *cue {
            Cue::Reflect { square, split } => {
                let at = square_center(square) + Vec3::Y * BEAM_HEIGHT;
                let size = if split { 0.75 } else { 0.5 };
                commands.spawn(glow_bundle(
                    &fx,
                    fx.ball.clone(),
                    Transform::from_translation(at),
                    0.35,
                    Vec3::splat(size),
                ));
                if lights {
                    commands.spawn((
                        Glow {
                            elapsed: 0.0,
                            life: 0.35,
                            peak: Vec3::ONE,
                        },
                        PointLight {
                            color: Color::srgb(1.0, 0.5, 0.3),
                            intensity: 60_000.0,
                            range: 3.0,
                            shadow_maps_enabled: false,
                            ..default()
                        },
                        Transform::from_translation(at),
                    ));
                }
            }
            Cue::Stop { segment } => {
                let dir = direction_vec(segment.dir);
                let at = match segment.end {
                    // On the face of the piece that stops it.
                    SegmentEnd::Blocked => {
                        square_center(segment.to) - dir * 0.3 + Vec3::Y * BEAM_HEIGHT
                    }
                    // Just past the board's edge.
                    _ => segment_origin(&segment) + dir * segment_length(&segment),
                };
                // The disc's face (+Z) turns back towards the beam.
                let facing = Transform::from_translation(at).looking_to(dir, Vec3::Y);
                commands.spawn(glow_bundle(
                    &fx,
                    fx.disc.clone(),
                    facing,
                    0.45,
                    Vec3::splat(0.7),
                ));
                for _ in 0..sparks {
                    let v = (-dir * rng.range(0.6, 1.6)
                        + rng.unit() * 1.2
                        + Vec3::Y * rng.range(0.3, 1.5))
                        * 1.6;
                    let life = rng.range(0.35, 0.7);
                    commands.spawn(spark_bundle(&fx, at, v, life));
                }
            }
            Cue::Strike { hit } => {
                let pharaoh = hit.effect == HitEffect::PharaohLit;
                let at = square_center(hit.square) + Vec3::Y * 0.4;
                commands.spawn(glow_bundle(
                    &fx,
                    fx.ball.clone(),
                    Transform::from_translation(at),
                    if pharaoh { 0.9 } else { 0.5 },
                    Vec3::splat(if pharaoh { 1.6 } else { 1.2 }),
                ));
                for _ in 0..sparks {
                    let v = rng.unit() * rng.range(1.5, 3.5) + Vec3::Y * 1.5;
                    let life = rng.range(0.4, 0.8);
                    commands.spawn(spark_bundle(&fx, at, v, life));
                }
                if settings.camera_shake {
                    shake.add(if pharaoh { 0.8 } else { 0.35 });
                }
            }
            Cue::Placed | Cue::Fire { .. } | Cue::Landed { .. } => {}
        }
    }
}

/// A piece the laser removed breaks into shards of its own material, which fly, fall, bounce
/// and fade; the piece's model collapses at once (`pieces::animate_dying`).
fn shatter_dying(
    dying: Query<(&BoardPiece, &Transform), Added<Dying>>,
    fx: Option<Res<FxAssets>>,
    models: Option<Res<Models>>,
    graphics: Option<Res<Graphics>>,
    show: Res<Show>,
    mut rng: ResMut<FxRng>,
    mut commands: Commands,
) {
    let (Some(fx), Some(models)) = (fx, models) else {
        return;
    };
    if dying.is_empty() {
        return;
    }
    let (shards, _) = particle_budget(graphics.as_deref());
    // Only a piece the laser took breaks: a step back through a replay also removes pieces.
    let hits: Vec<_> = show
        .shot
        .as_ref()
        .map(|s| s.hits.iter().map(|h| h.square).collect())
        .unwrap_or_default();
    for (piece, tf) in &dying {
        if !crate::board::square_at(tf.translation).is_some_and(|sq| hits.contains(&sq)) {
            continue;
        }
        let material = models.body(piece.0.color());
        for i in 0..shards {
            let at = tf.translation
                + Vec3::new(
                    rng.range(-0.25, 0.25),
                    rng.range(0.1, 0.6),
                    rng.range(-0.25, 0.25),
                );
            let out = (at - tf.translation).with_y(0.0).normalize_or(Vec3::X);
            let velocity = out * rng.range(0.8, 2.6) + Vec3::Y * rng.range(1.5, 3.8);
            let size = rng.range(0.1, 0.24);
            commands.spawn((
                Name::new("Shard"),
                Particle {
                    velocity,
                    spin: rng.unit() * rng.range(4.0, 12.0),
                    elapsed: 0.0,
                    life: rng.range(0.9, 1.4),
                    size,
                    bounced: false,
                },
                Mesh3d(if i % 4 == 0 {
                    fx.spark.clone()
                } else {
                    fx.shard.clone()
                }),
                MeshMaterial3d(material.clone()),
                Transform::from_translation(at)
                    .with_rotation(Quat::from_scaled_axis(rng.unit() * 3.0))
                    .with_scale(Vec3::splat(size)),
                Pickable::IGNORE,
            ));
        }
    }
}

/// While a lit Pharaoh has its moment: a pillar of light rises from it and a ring of light runs
/// out over the board, both fading; they are gone when the moment ends.
fn pharaoh_pillar(
    moment: Option<Res<PharaohMoment>>,
    fx: Option<Res<FxAssets>>,
    mut parts: Query<(Entity, &Moment, &mut Transform)>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut commands: Commands,
) {
    let Some(fx) = fx else { return };
    let Some(moment) = moment else {
        for (e, _, _) in &parts {
            commands.entity(e).despawn();
        }
        return;
    };
    let base = square_center(moment.square);
    if moment.is_added() {
        for (part, mesh, material) in [
            (Moment::Pillar, &fx.column, &fx.pillar),
            (Moment::Ring, &fx.ring, &fx.shock),
        ] {
            commands.spawn((
                Name::new("Pharaoh's moment"),
                part,
                Mesh3d(mesh.clone()),
                MeshMaterial3d(material.clone()),
                Transform::from_translation(base).with_scale(Vec3::ZERO),
                Pickable::IGNORE,
                NotShadowCaster,
            ));
        }
    }
    let t = (moment.elapsed / MOMENT_SECONDS).clamp(0.0, 1.0);
    let fade = (1.0 - t) * (1.0 - t);
    for (handle, light) in [
        (&fx.pillar, LinearRgba::rgb(5.0, 4.2, 2.0)),
        (&fx.shock, LinearRgba::rgb(4.0, 3.0, 1.5)),
    ] {
        if let Some(mut m) = materials.get_mut(handle) {
            m.base_color = Color::LinearRgba(light * fade);
        }
    }
    // The pillar rises fast and stands; the ring runs out to the board's edge.
    let height = 9.0 * (t * 4.0).min(1.0);
    let width = 0.32 * (t * 8.0).min(1.0);
    let reach = 0.5 + 10.0 * t.sqrt();
    for (_, part, mut tf) in &mut parts {
        match part {
            Moment::Pillar => {
                tf.translation = base + Vec3::Y * height / 2.0;
                tf.scale = Vec3::new(width, height, width);
            }
            Moment::Ring => {
                tf.translation = base + Vec3::Y * 0.05;
                tf.scale = Vec3::new(reach, 0.2, reach);
            }
        }
    }
}

fn animate_particles(
    time: Res<Time>,
    settings: Res<Settings>,
    show: Res<Show>,
    mut q: Query<(Entity, &mut Particle, &mut Transform)>,
    mut frames: ResMut<NextFrame>,
    mut commands: Commands,
) {
    if !q.is_empty() {
        frames.now();
    }
    // Effects run on the animation clock, capped so that a skip ends them rather than jumping.
    let dt = animation_dt(&time, &settings, &show).min(1.0);
    for (e, mut p, mut tf) in &mut q {
        p.elapsed += dt;
        if p.elapsed >= p.life {
            commands.entity(e).despawn();
            continue;
        }
        p.velocity.y -= 9.0 * dt;
        tf.translation += p.velocity * dt;
        if tf.translation.y < 0.02 && p.velocity.y < 0.0 {
            tf.translation.y = 0.02;
            if p.bounced {
                p.velocity = Vec3::ZERO;
                p.spin = Vec3::ZERO;
            } else {
                p.bounced = true;
                p.velocity =
                    Vec3::new(p.velocity.x * 0.5, -p.velocity.y * 0.35, p.velocity.z * 0.5);
                p.spin *= 0.5;
            }
        }
        if p.spin != Vec3::ZERO {
            tf.rotate(Quat::from_scaled_axis(p.spin * dt));
        } else if p.velocity.length_squared() > 0.01 {
            // A spark streaks along its flight.
            let ahead = tf.translation + p.velocity;
            tf.look_at(ahead, Vec3::Y);
        }
        // The last third shrinks away.
        let fade = ((p.life - p.elapsed) / (p.life / 3.0)).min(1.0);
        if p.size != 1.0 {
            tf.scale = Vec3::splat(p.size * fade);
        } else {
            tf.scale = Vec3::new(0.025, 0.025, 0.1) * fade;
        }
    }
}

fn animate_glows(
    time: Res<Time>,
    settings: Res<Settings>,
    show: Res<Show>,
    mut q: Query<(Entity, &mut Glow, &mut Transform, Option<&mut PointLight>)>,
    mut frames: ResMut<NextFrame>,
    mut commands: Commands,
) {
    if !q.is_empty() {
        frames.now();
    }
    let dt = animation_dt(&time, &settings, &show).min(1.0);
    for (e, mut g, mut tf, light) in &mut q {
        g.elapsed += dt;
        let t = g.elapsed / g.life;
        if t >= 1.0 {
            commands.entity(e).despawn();
            continue;
        }
        // Up to full size in the first quarter, then down to nothing.
        let k = if t < 0.25 { t / 0.25 } else { (1.0 - t) / 0.75 };
        match light {
            Some(mut l) => l.intensity = 60_000.0 * k,
            None => tf.scale = g.peak * k.max(0.0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_random_source_stays_in_range() {
        let mut r = FxRng::default();
        for _ in 0..10_000 {
            let x = r.range(-2.0, 3.0);
            assert!((-2.0..3.0).contains(&x));
            assert!((r.unit().length() - 1.0).abs() < 1e-3);
        }
    }
}
