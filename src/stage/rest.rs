//! At rest when nothing moves: the window's loop waits in Bevy's reactive update mode, for
//! input, a window event, the time a feature asked for ([`NextFrame`]) or a wake-up from
//! another thread ([`Waker`]); while something moves, every frame is drawn as before. On a
//! software renderer a frame costs two cores for 50 ms, so a board that redrew continuously
//! while the player thought kept the machine busy (139 % of a core, release, measured by
//! `.ci/idle-cpu`); at rest it draws nothing.
//!
//! egui asks for a frame whenever it has input, and `bevy_egui` 0.42 gives it one every frame:
//! the keyboard's modifiers, changed or not. That alone kept the loop awake; the unchanged
//! ones are dropped here before egui sees them.

use crate::frames::{NextFrame, Waker};
use bevy::prelude::*;
use bevy::winit::{EventLoopProxyWrapper, UpdateMode, WinitSettings, WinitUserEvent};
use bevy_egui::{EguiInput, EguiPreUpdateSet, egui};
use std::time::Duration;

/// The longest the loop sleeps with nothing to do: a heartbeat, in case something changes that
/// no feature told of.
pub const HEARTBEAT: Duration = Duration::from_secs(5);

pub(super) fn plugin(app: &mut App) {
    app.insert_resource(settings(HEARTBEAT))
        .add_systems(PreStartup, install_waker)
        .add_systems(Last, sleep_until_wanted)
        .add_systems(
            PreUpdate,
            drop_unchanged_modifiers
                .after(EguiPreUpdateSet::ProcessInput)
                .before(EguiPreUpdateSet::BeginPass),
        );
}

/// Reactive modes that wait at most `wait`.
fn settings(wait: Duration) -> WinitSettings {
    WinitSettings {
        focused_mode: UpdateMode::reactive(wait),
        unfocused_mode: UpdateMode::reactive_low_power(wait),
    }
}

/// Threads wake the loop through winit's event loop proxy.
fn install_waker(proxy: Option<Res<EventLoopProxyWrapper>>, mut waker: ResMut<Waker>) {
    if let Some(proxy) = proxy {
        let proxy = (**proxy).clone();
        *waker = Waker::new(move || {
            // A closed loop (the game quitting) needs no waking.
            let _ = proxy.send_event(WinitUserEvent::WakeUp);
        });
    }
}

/// Turns this frame's wishes into how the loop goes on: continuously while something moves
/// (every frame drawn as soon as the last is, as before), else waiting until the soonest time
/// asked for, else for the heartbeat.
pub(crate) fn sleep_until_wanted(mut next: ResMut<NextFrame>, mut winit: ResMut<WinitSettings>) {
    let wanted = match next.take() {
        Some(Duration::ZERO) => WinitSettings::continuous(),
        Some(wait) => settings(wait.min(HEARTBEAT)),
        None => settings(HEARTBEAT),
    };
    if winit.focused_mode != wanted.focused_mode || winit.unfocused_mode != wanted.unfocused_mode {
        *winit = wanted;
    }
}

/// Drops the `ModifiersChanged` event `bevy_egui` writes every frame when the modifiers are the
/// ones egui already has, so that egui asks for a frame only on real input.
fn drop_unchanged_modifiers(
    mut inputs: Query<(Entity, &mut EguiInput)>,
    mut known: Local<bevy::platform::collections::HashMap<Entity, egui::Modifiers>>,
) {
    for (entity, mut input) in &mut inputs {
        let last = known.get(&entity).copied();
        let mut seen = last;
        input.events.retain(|event| match event {
            egui::Event::ModifiersChanged(m) => {
                let new = seen != Some(*m);
                seen = Some(*m);
                new
            }
            _ => true,
        });
        if let Some(m) = seen {
            known.insert(entity, m);
        }
    }
}
