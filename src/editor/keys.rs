//! The editor's keys: Q / E turn the picked-up piece, Delete removes it, Ctrl+Z / Ctrl+Y undo
//! and redo, Escape drops the brush.

use crate::editor::{Edit, Editor};
use crate::screen::Screen;
use bevy::prelude::*;
use khet_engine::Rotation;

/// The editor's keys (the core's: they only write edits).
pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        keys.run_if(in_state(Screen::Editor).and_then(crate::keys::keys_free))
            .in_set(crate::GameSet::Input),
    );
}

fn keys(keys: Res<ButtonInput<KeyCode>>, editor: Res<Editor>, mut edits: MessageWriter<Edit>) {
    let ctrl = keys.any_pressed([KeyCode::ControlLeft, KeyCode::ControlRight]);
    if ctrl && keys.just_pressed(KeyCode::KeyZ) {
        edits.write(Edit::Undo);
    }
    if ctrl && keys.just_pressed(KeyCode::KeyY) {
        edits.write(Edit::Redo);
    }
    if ctrl {
        return;
    }
    if keys.just_pressed(KeyCode::Escape) {
        edits.write(Edit::Brush(None));
        edits.write(Edit::Select(None));
    }
    let Some(sq) = editor.selected else { return };
    if keys.just_pressed(KeyCode::KeyQ) {
        edits.write(Edit::Rotate(sq, Rotation::Anticlockwise));
    }
    if keys.just_pressed(KeyCode::KeyE) {
        edits.write(Edit::Rotate(sq, Rotation::Clockwise));
    }
    if keys.any_just_pressed([KeyCode::Delete, KeyCode::Backspace]) {
        edits.write(Edit::Remove(sq));
    }
}
