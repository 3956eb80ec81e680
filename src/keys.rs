//! The one rule every feature's keyboard shortcuts share: keys go to the game only while no
//! text field or popup of the panels has the keyboard, and only in an app that reads keys. Each
//! feature reads its own keys in its core plugin, so the headless tests press them through
//! Bevy's input plugin as a keyboard would.

use bevy::prelude::*;
use bevy_egui::input::EguiWantsInput;

/// Run condition of a feature's key system.
pub fn keys_free(
    keys: Option<Res<ButtonInput<KeyCode>>>,
    egui: Option<Res<EguiWantsInput>>,
) -> bool {
    keys.is_some() && !egui.is_some_and(|e| e.wants_any_keyboard_input())
}
