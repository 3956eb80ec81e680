//! Highlights: the hovered square, the selected piece, its legal destinations (steps and swap
//! partners told apart), and the last move.

use crate::board::square_center;
use crate::table::selection::{Hovered, Selection, StackMode};
use crate::table::{Match, Show};
use bevy::prelude::*;
use khet_engine::{Move, Square};

#[derive(Component)]
pub struct Highlight;

#[derive(Resource)]
struct HighlightAssets {
    flat: Handle<Mesh>,
    dot: Handle<Mesh>,
    ring: Handle<Mesh>,
    hover: Handle<StandardMaterial>,
    last: Handle<StandardMaterial>,
    selected: Handle<StandardMaterial>,
    step: Handle<StandardMaterial>,
    swap: Handle<StandardMaterial>,
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, make_assets)
        // The editor marks its own squares: the game's highlights leave with the game.
        .add_systems(OnEnter(crate::screen::Screen::Editor), clear)
        .add_systems(
            Update,
            refresh
                .run_if(not(in_state(crate::screen::Screen::Editor)))
                .in_set(crate::GameSet::View)
                .in_set(crate::schedule::Drawn::Highlights),
        );
}

fn glow(
    materials: &mut Assets<StandardMaterial>,
    rgb: [f32; 3],
    alpha: f32,
    strength: f32,
) -> Handle<StandardMaterial> {
    materials.add(StandardMaterial {
        base_color: Color::srgba(rgb[0], rgb[1], rgb[2], alpha),
        emissive: LinearRgba::rgb(rgb[0] * strength, rgb[1] * strength, rgb[2] * strength),
        alpha_mode: AlphaMode::Blend,
        unlit: true,
        ..default()
    })
}

fn make_assets(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    commands.insert_resource(HighlightAssets {
        flat: meshes.add(Cuboid::new(0.95, 0.01, 0.95)),
        dot: meshes.add(Cylinder::new(0.16, 0.02)),
        ring: meshes.add(Torus::new(0.36, 0.44)),
        hover: glow(&mut materials, [1.0, 1.0, 1.0], 0.18, 0.3),
        last: glow(&mut materials, [1.0, 0.8, 0.15], 0.5, 0.8),
        selected: glow(&mut materials, [1.0, 0.8, 0.1], 0.95, 3.0),
        step: glow(&mut materials, [0.2, 1.0, 0.35], 0.9, 2.0),
        swap: glow(&mut materials, [0.2, 0.8, 1.0], 0.95, 2.5),
    });
}

fn clear(old: Query<Entity, With<Highlight>>, mut commands: Commands) {
    for e in &old {
        commands.entity(e).despawn();
    }
}

fn refresh(
    game: Option<Res<Match>>,
    selection: Res<Selection>,
    show: Res<Show>,
    hovered: Res<Hovered>,
    hint: Res<crate::table::ai::Hint>,
    assets: Option<Res<HighlightAssets>>,
    old: Query<Entity, With<Highlight>>,
    mut commands: Commands,
) {
    let (Some(game), Some(a)) = (game, assets) else {
        return;
    };
    if !(game.is_changed()
        || selection.is_changed()
        || show.is_changed()
        || hovered.is_changed()
        || hint.is_changed())
    {
        return;
    }
    for e in &old {
        commands.entity(e).despawn();
    }
    let mut put = |sq: Square, mesh: &Handle<Mesh>, material: &Handle<StandardMaterial>, y: f32| {
        commands.spawn((
            Highlight,
            Mesh3d(mesh.clone()),
            MeshMaterial3d(material.clone()),
            Transform::from_translation(square_center(sq) + Vec3::Y * y),
            bevy::picking::Pickable::IGNORE,
            bevy::light::NotShadowCaster,
        ));
    };
    if let Some(turn) = game.game.last_turn() {
        put(turn.mv.from(), &a.flat, &a.last, 0.006);
        if turn.mv.to() != turn.mv.from() {
            put(turn.mv.to(), &a.flat, &a.last, 0.006);
        }
    }
    if let Some(sq) = hovered.0 {
        put(sq, &a.flat, &a.hover, 0.012);
    }
    if !show.is_idle() {
        return;
    }
    if let Some((at, mv)) = hint.0
        && &at == game.game.position()
    {
        put(mv.from(), &a.ring, &a.swap, 0.08);
        put(mv.to(), &a.flat, &a.last, 0.014);
    }
    if let Some(sel) = selection.square(&game.game) {
        put(sel, &a.ring, &a.selected, 0.08);
        let top = selection.stack_mode == StackMode::Top;
        for mv in selection.moves(&game.game) {
            match mv {
                Move::Step { to, .. } if !top => put(to, &a.dot, &a.step, 0.02),
                Move::Unstack { to, .. } if top => put(to, &a.dot, &a.step, 0.02),
                Move::Swap { to, .. } => put(to, &a.ring, &a.swap, 0.08),
                _ => {}
            }
        }
    }
}
