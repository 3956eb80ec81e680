//! The laser preview, a casual-game option: while a person has a piece selected and points at
//! one of its destinations (or at a turn button), the engine fires the mover's laser on the board
//! as it would be after that move, and the view draws the path faintly with what it would hit.
//! Never in tournament games: the rule book forbids testing the beam.

use crate::settings::Settings;
use crate::table::selection::Selection;
use crate::table::{Match, Show, has_match};
use bevy::prelude::*;
use khet_engine::Mode;
use khet_engine::{Move, Rotation, Shot, Square, fire};

/// Where the person is pointing: a square of the board, or a turn button.
#[derive(Resource, Default, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aim {
    pub square: Option<Square>,
    pub turn: Option<Rotation>,
}

/// The move aimed at and the shot it would bring, while the preview is allowed.
#[derive(Resource, Default, Clone, Debug, PartialEq)]
pub struct LaserPreview(pub Option<(Move, Shot)>);

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Aim>()
        .init_resource::<LaserPreview>()
        .add_systems(
            Update,
            preview
                .run_if(has_match)
                .after(crate::GameSet::Logic)
                .before(crate::GameSet::Pieces),
        );
}

/// The move the person aims at, if a preview may be shown now.
fn aimed(
    m: &Match,
    selection: &Selection,
    aim: Aim,
    settings: &Settings,
    show: &Show,
) -> Option<Move> {
    if !settings.laser_preview
        || m.spec.mode == Mode::Tournament
        || !m.person_to_move()
        || !show.is_idle()
    {
        return None;
    }
    let at = selection.square(&m.game)?;
    match aim.turn {
        Some(rotation) => m
            .game
            .position()
            .check_move(Move::Rotate { at, rotation })
            .ok(),
        None => selection.move_to(&m.game, aim.square?),
    }
}

fn preview(
    m: Res<Match>,
    selection: Res<Selection>,
    aim: Res<Aim>,
    settings: Res<Settings>,
    show: Res<Show>,
    mut preview: ResMut<LaserPreview>,
) {
    // Only when something it depends on changed: it generates the selected piece's moves.
    if !(aim.is_changed()
        || selection.is_changed()
        || m.is_changed()
        || settings.is_changed()
        || show.is_changed())
    {
        return;
    }
    let next = aimed(&m, &selection, *aim, &settings, &show).map(|mv| {
        let mut board = *m.game.position();
        let side = board.side_to_move();
        board.apply_move(mv);
        (mv, fire(&board, side))
    });
    preview.set_if_neq(LaserPreview(next));
}
