//! The analysis's best move on the board during a replay: a glowing arrow from the piece to its
//! destination, or a ring over a piece that should turn. It belongs to the replay screen
//! (`DespawnOnExit`), and follows the analysis as the player steps.

use crate::board::square_center;
use crate::replay::Analysis;
use crate::screen::Screen;
use crate::table::Match;
use bevy::prelude::*;
use khet_engine::Move;

/// A part of the best-move arrow.
#[derive(Component)]
pub struct BestMoveArrow;

/// How high above the board the arrow floats, clear of the pieces.
const HEIGHT: f32 = 1.25;

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        draw.run_if(in_state(Screen::Replay))
            .in_set(crate::GameSet::View),
    );
}

fn draw(
    analysis: Res<Analysis>,
    m: Option<Res<Match>>,
    old: Query<Entity, With<BestMoveArrow>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    mut material: Local<Option<Handle<StandardMaterial>>>,
    mut shown: Local<Option<Move>>,
    mut commands: Commands,
) {
    let Some(m) = m else { return };
    let best = analysis
        .found
        .as_ref()
        .filter(|f| f.ply == m.game.turns().len())
        .and_then(|f| f.best);
    // Entities despawned with the screen leave `shown` stale: trust only what exists.
    if best == *shown && old.iter().next().is_some() == best.is_some() {
        return;
    }
    *shown = best;
    for e in &old {
        commands.entity(e).despawn();
    }
    let Some(mv) = best else { return };
    let material = material
        .get_or_insert_with(|| {
            materials.add(StandardMaterial {
                base_color: Color::srgba(0.35, 1.0, 0.6, 0.9),
                emissive: LinearRgba::rgb(3.0, 12.0, 6.0),
                alpha_mode: AlphaMode::Blend,
                unlit: true,
                ..default()
            })
        })
        .clone();
    let lift = Vec3::Y * HEIGHT;
    let (from, to) = (
        square_center(mv.from()) + lift,
        square_center(mv.to()) + lift,
    );
    let mut part = |mesh: Mesh, transform: Transform| {
        commands.spawn((
            Name::new("Best move"),
            BestMoveArrow,
            DespawnOnExit(Screen::Replay),
            Mesh3d(meshes.add(mesh)),
            MeshMaterial3d(material.clone()),
            transform,
            bevy::picking::Pickable::IGNORE,
            bevy::light::NotShadowCaster,
        ));
    };
    if from == to {
        // A turn: a flat ring over the piece.
        part(
            Torus::new(0.3, 0.38).into(),
            Transform::from_translation(from),
        );
        return;
    }
    let dir = (to - from).normalize();
    let head = 0.45;
    let shaft = (to - from).length() - head;
    let turn = Quat::from_rotation_arc(Vec3::Y, dir);
    part(
        Cylinder::new(0.09, shaft).into(),
        Transform::from_translation(from + dir * shaft / 2.0).with_rotation(turn),
    );
    part(
        Cone {
            radius: 0.24,
            height: head,
        }
        .into(),
        Transform::from_translation(to - dir * head / 2.0).with_rotation(turn),
    );
}
