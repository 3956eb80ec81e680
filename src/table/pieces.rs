//! Piece entities: derived from the board the table shows ([`Show::display`]), never a second
//! copy of the rules. Each piece is an entity with its engine value, its square, and a mirror or
//! facing component; moves slide and turn them with short eased animations.

use crate::board::{orientation_yaw, square_center};
use crate::settings::Settings;
use crate::table::{Match, MoveApplied, Show};
use bevy::prelude::*;
use khet_engine::{Diagonal, Direction, Move, Piece, Position, Rotation, Square};

/// A piece on the board: the engine's value (kind, colour, orientation, stack height).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct BoardPiece(pub Piece);

/// The square a piece stands on.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct OnSquare(pub Square);

/// The mirror of a Pyramid, Scarab, Djed or Eye, and which way it faces.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mirror(pub Diagonal);

/// The facing of an Anubis (its shield) or a Sphinx (its laser).
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facing(pub Direction);

/// A piece the laser removed: it swells, collapses (shattering, in the view), and is despawned.
#[derive(Component, Clone, Copy, Debug)]
pub struct Dying {
    pub elapsed: f32,
}

/// How long a removed piece takes to leave.
pub const DYING_SECONDS: f32 = 0.7;

/// A slide from one point to another and a turn about the vertical axis, eased.
#[derive(Component, Clone, Copy, Debug)]
pub struct Motion {
    pub from: Vec3,
    pub to: Vec3,
    pub from_yaw: f32,
    pub to_yaw: f32,
    pub elapsed: f32,
}

/// The yaw a piece's model should have now (accumulated, so turns animate the short way).
#[derive(Component, Clone, Copy, Debug)]
pub struct Yaw(pub f32);

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        (start_motions, sync_pieces, animate_motions, animate_dying)
            .chain()
            .in_set(crate::GameSet::Pieces),
    );
}

fn piece_components(piece: Piece) -> (Option<Mirror>, Option<Facing>) {
    (piece.mirror().map(Mirror), piece.facing().map(Facing))
}

/// The components of a new piece entity (the view adds its meshes).
pub fn piece_bundle(sq: Square, piece: Piece) -> impl Bundle {
    let yaw = orientation_yaw(piece.orientation());
    (
        Name::new(format!("{} {} on {sq}", piece.color(), piece.kind())),
        BoardPiece(piece),
        OnSquare(sq),
        Yaw(yaw),
        Transform::from_translation(square_center(sq)).with_rotation(Quat::from_rotation_y(yaw)),
        Visibility::default(),
    )
}

/// On a move, the moving entities get their new squares and a motion, before the generic sync.
fn start_motions(
    mut applied: MessageReader<MoveApplied>,
    mut pieces: Query<(Entity, &mut OnSquare, &Transform, &mut Yaw), Without<Dying>>,
    mut commands: Commands,
) {
    for MoveApplied { turn, .. } in applied.read() {
        let find = |sq: Square,
                    pieces: &Query<
            (Entity, &mut OnSquare, &Transform, &mut Yaw),
            Without<Dying>,
        >| {
            pieces
                .iter()
                .find(|(_, s, _, _)| s.0 == sq)
                .map(|(e, ..)| e)
        };
        let slide =
            |e: Entity,
             to: Square,
             pieces: &mut Query<(Entity, &mut OnSquare, &Transform, &mut Yaw), Without<Dying>>,
             commands: &mut Commands| {
                if let Ok((_, mut on, tf, yaw)) = pieces.get_mut(e) {
                    on.0 = to;
                    commands.entity(e).insert(Motion {
                        from: tf.translation,
                        to: square_center(to),
                        from_yaw: yaw.0,
                        to_yaw: yaw.0,
                        elapsed: 0.0,
                    });
                }
            };
        match turn.mv {
            Move::Step { from, to } => {
                // Stacking onto a partner: the mover slides there; the sync merges the two.
                if let Some(e) = find(from, &pieces) {
                    slide(e, to, &mut pieces, &mut commands);
                }
            }
            Move::Swap { from, to } => {
                let a = find(from, &pieces);
                let b = find(to, &pieces);
                if let Some(a) = a {
                    slide(a, to, &mut pieces, &mut commands);
                }
                if let Some(b) = b {
                    slide(b, from, &mut pieces, &mut commands);
                }
            }
            Move::Unstack { from, to } => {
                // The sync spawns the top obelisk on `to`; start it at `from` so it slides over.
                commands.insert_resource(PendingUnstack { from, to });
            }
            Move::Rotate { at, rotation } => {
                if let Some(e) = find(at, &pieces)
                    && let Ok((_, _, tf, mut yaw)) = pieces.get_mut(e)
                {
                    let delta = match rotation {
                        Rotation::Clockwise => -std::f32::consts::FRAC_PI_2,
                        Rotation::Anticlockwise => std::f32::consts::FRAC_PI_2,
                    };
                    let from_yaw = yaw.0;
                    yaw.0 += delta;
                    commands.entity(e).insert(Motion {
                        from: tf.translation,
                        to: tf.translation,
                        from_yaw,
                        to_yaw: yaw.0,
                        elapsed: 0.0,
                    });
                }
            }
        }
    }
}

/// An unstacking move whose new entity should start from the stack's square.
#[derive(Resource, Clone, Copy)]
struct PendingUnstack {
    from: Square,
    to: Square,
}

/// Makes the piece entities match the displayed board exactly: updates changed pieces, spawns
/// missing ones, and sends away the ones no longer there.
fn sync_pieces(
    game: Option<Res<Match>>,
    show: Res<Show>,
    pending: Option<Res<PendingUnstack>>,
    mut pieces: Query<(Entity, &OnSquare, &mut BoardPiece, Option<&Motion>), Without<Dying>>,
    mut commands: Commands,
) {
    let Some(game) = game else { return };
    let display: Position = show.display.unwrap_or(*game.game.position());
    let mut seen = [false; 80];
    // Entities at rest first: when a step stacks two obelisks, the partner keeps its place and
    // the mover merges into it.
    let mut order: Vec<(Entity, bool)> =
        pieces.iter().map(|(e, _, _, m)| (e, m.is_some())).collect();
    order.sort_by_key(|&(_, moving)| moving);
    for (e, _) in order {
        let Ok((e, on, mut bp, _)) = pieces.get_mut(e) else {
            continue;
        };
        let sq = on.0;
        match display.piece_at(sq) {
            Some(p) if !seen[sq.index()] => {
                seen[sq.index()] = true;
                if bp.0 != p {
                    bp.0 = p;
                    let (mirror, facing) = piece_components(p);
                    let mut ec = commands.entity(e);
                    ec.insert(Name::new(format!("{} {} on {sq}", p.color(), p.kind())));
                    match mirror {
                        Some(m) => ec.insert(m),
                        None => ec.remove::<Mirror>(),
                    };
                    match facing {
                        Some(f) => ec.insert(f),
                        None => ec.remove::<Facing>(),
                    };
                }
            }
            _ => {
                // Gone from the board, or a second entity on one square (a stack just formed):
                // the mover of a stacking step simply merges into its partner.
                let merged = display.piece_at(sq).is_some();
                let mut ec = commands.entity(e);
                ec.remove::<OnSquare>();
                if merged {
                    ec.despawn();
                } else {
                    ec.insert(Dying { elapsed: 0.0 });
                }
            }
        }
    }
    for (sq, p) in display.pieces() {
        if !seen[sq.index()] {
            let (mirror, facing) = piece_components(p);
            let mut ec = commands.spawn(piece_bundle(sq, p));
            if let Some(m) = mirror {
                ec.insert(m);
            }
            if let Some(f) = facing {
                ec.insert(f);
            }
            if let Some(u) = pending.as_deref()
                && u.to == sq
            {
                let yaw = orientation_yaw(p.orientation());
                ec.insert((
                    Transform::from_translation(square_center(u.from)),
                    Motion {
                        from: square_center(u.from),
                        to: square_center(sq),
                        from_yaw: yaw,
                        to_yaw: yaw,
                        elapsed: 0.0,
                    },
                ));
            }
        }
    }
    if pending.is_some() {
        commands.remove_resource::<PendingUnstack>();
    }
}

fn ease(t: f32) -> f32 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

fn animate_motions(
    time: Res<Time>,
    settings: Res<Settings>,
    pace: Res<super::Pace>,
    show: Res<Show>,
    mut q: Query<(Entity, &mut Transform, &mut Motion)>,
    mut next: ResMut<crate::frames::NextFrame>,
    mut commands: Commands,
) {
    if !q.is_empty() {
        next.now();
    }
    let dt = super::animation_dt(&time, &settings, &show);
    for (e, mut tf, mut m) in &mut q {
        m.elapsed += dt;
        let t = ease(m.elapsed / pace.move_seconds);
        let lift = (t * std::f32::consts::PI).sin() * 0.25 * (m.from != m.to) as u8 as f32;
        tf.translation = m.from.lerp(m.to, t) + Vec3::Y * lift;
        tf.rotation = Quat::from_rotation_y(m.from_yaw + (m.to_yaw - m.from_yaw) * t);
        if t >= 1.0 {
            commands.entity(e).remove::<Motion>();
        }
    }
}

fn animate_dying(
    time: Res<Time>,
    settings: Res<Settings>,
    show: Res<Show>,
    mut q: Query<(Entity, &mut Transform, &mut Dying)>,
    mut next: ResMut<crate::frames::NextFrame>,
    mut commands: Commands,
) {
    if !q.is_empty() {
        next.now();
    }
    let dt = super::animation_dt(&time, &settings, &show);
    for (e, mut tf, mut d) in &mut q {
        d.elapsed += dt;
        // A quick swell, then the model collapses into the shards `stage::effects` throws.
        let t = (d.elapsed / DYING_SECONDS).min(1.0);
        let k = if t < 0.06 {
            1.0 + t
        } else {
            (1.06 - (t - 0.06) * 4.0).max(0.0)
        };
        tf.scale = Vec3::splat(k);
        if t >= 1.0 {
            commands.entity(e).despawn();
        }
    }
}
