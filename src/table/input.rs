//! Mouse and keys at the table: clicks on tiles and pieces become [`SquareClicked`] (a click
//! while something animates skips it); Q / E turn the selected piece, Esc deselects, Space
//! skips, T toggles "move stack" / "move top", Ctrl+Z takes back, Ctrl+S saves. Clicks over
//! egui never reach the board (`bevy_egui`'s picking). The click observers are attached to
//! each tile and piece as it is spawned.

use crate::board::Tile;
use crate::screen::Screen;
use crate::table::laser_preview::Aim;
use crate::table::pieces::{BoardPiece, OnSquare};
use crate::table::selection::{Hovered, RotateSelected, SelectionAction, SquareClicked};
use crate::table::{OpenSaveDialog, Show, TableAction};
use bevy::picking::events::{Click, Out, Over, Pointer};
use bevy::picking::pointer::PointerButton;
use bevy::prelude::*;
use khet_engine::{Rotation, Square};

/// The pointer on tiles and pieces (the view's).
pub(super) fn plugin(app: &mut App) {
    app.add_observer(observe_tile).add_observer(observe_piece);
}

/// The table's keys (the core's: they only write messages).
pub(super) fn keys_plugin(app: &mut App) {
    app.add_systems(
        Update,
        keys.run_if(crate::keys::keys_free)
            .in_set(crate::GameSet::Input),
    );
}

/// A tile, as it is spawned, listens for the pointer.
fn observe_tile(add: On<Add, Tile>, mut commands: Commands) {
    commands
        .entity(add.entity)
        .observe(on_tile_click)
        .observe(on_tile_over)
        .observe(on_tile_out);
}

/// A piece, as it is spawned, listens for the pointer.
fn observe_piece(add: On<Add, BoardPiece>, mut commands: Commands) {
    commands
        .entity(add.entity)
        .observe(on_piece_click)
        .observe(on_piece_over)
        .observe(on_tile_out);
}

fn click(
    sq: Square,
    show: &Show,
    clicks: &mut MessageWriter<SquareClicked>,
    actions: &mut MessageWriter<TableAction>,
) {
    if show.is_idle() {
        clicks.write(SquareClicked(sq));
    } else {
        actions.write(TableAction::Skip);
    }
}

fn on_tile_click(
    event: On<Pointer<Click>>,
    tiles: Query<&Tile>,
    show: Res<Show>,
    mut clicks: MessageWriter<SquareClicked>,
    mut actions: MessageWriter<TableAction>,
) {
    if event.event.button != PointerButton::Primary {
        return;
    }
    if let Ok(tile) = tiles.get(event.entity) {
        click(tile.0, &show, &mut clicks, &mut actions);
    }
}

fn on_piece_click(
    mut event: On<Pointer<Click>>,
    pieces: Query<&OnSquare>,
    show: Res<Show>,
    mut clicks: MessageWriter<SquareClicked>,
    mut actions: MessageWriter<TableAction>,
) {
    event.propagate(false);
    if event.event.button != PointerButton::Primary {
        return;
    }
    // A piece being removed has no square any more: the click means nothing.
    if let Ok(on) = pieces.get(event.entity) {
        click(on.0, &show, &mut clicks, &mut actions);
    }
}

fn on_tile_over(
    event: On<Pointer<Over>>,
    tiles: Query<&Tile>,
    mut hovered: ResMut<Hovered>,
    mut aim: ResMut<Aim>,
) {
    if let Ok(tile) = tiles.get(event.entity) {
        hovered.0 = Some(tile.0);
        aim.square = Some(tile.0);
    }
}

fn on_piece_over(
    mut event: On<Pointer<Over>>,
    pieces: Query<&OnSquare>,
    mut hovered: ResMut<Hovered>,
    mut aim: ResMut<Aim>,
) {
    event.propagate(false);
    if let Ok(on) = pieces.get(event.entity) {
        hovered.0 = Some(on.0);
        aim.square = Some(on.0);
    }
}

fn on_tile_out(_event: On<Pointer<Out>>, mut hovered: ResMut<Hovered>, mut aim: ResMut<Aim>) {
    hovered.0 = None;
    aim.square = None;
}

fn keys(
    keys: Res<ButtonInput<KeyCode>>,
    mut rotate: MessageWriter<RotateSelected>,
    mut actions: MessageWriter<TableAction>,
    mut selection: MessageWriter<SelectionAction>,
    mut save: MessageWriter<OpenSaveDialog>,
    screen: Res<State<Screen>>,
) {
    // Take-back and save belong to a game at the table, not to a replay or a menu.
    let ctrl = keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]);
    if ctrl && *screen.get() != Screen::Playing {
        return;
    }
    if ctrl && keys.just_pressed(KeyCode::KeyZ) {
        actions.write(TableAction::Undo);
    }
    if ctrl && keys.just_pressed(KeyCode::KeyS) {
        save.write(OpenSaveDialog);
    }
    if ctrl {
        return;
    }
    if keys.just_pressed(KeyCode::KeyQ) {
        rotate.write(RotateSelected(Rotation::Anticlockwise));
    }
    if keys.just_pressed(KeyCode::KeyE) {
        rotate.write(RotateSelected(Rotation::Clockwise));
    }
    if keys.just_pressed(KeyCode::Escape) {
        selection.write(SelectionAction::Deselect);
    }
    if keys.just_pressed(KeyCode::Space) {
        actions.write(TableAction::Skip);
    }
    if keys.just_pressed(KeyCode::KeyT) {
        selection.write(SelectionAction::ToggleStackMode);
    }
}
