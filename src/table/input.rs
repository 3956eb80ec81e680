//! The keys at the table: Q / E turn the selected piece, Esc deselects, Space skips, T toggles
//! moving the whole stack or its top, Ctrl+Z takes back, Ctrl+S saves. They only write messages (the
//! core's). The mouse on tiles and pieces is the view's (`crate::stage::pointer`).

use crate::screen::Screen;
use crate::table::selection::{RotateSelected, SelectionAction};
use crate::table::{OpenSaveDialog, TableAction};
use bevy::prelude::*;
use khet_engine::Rotation;

/// The table's keys (the core's: they only write messages).
pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        keys.run_if(crate::keys::keys_free)
            .in_set(crate::GameSet::Input),
    );
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
