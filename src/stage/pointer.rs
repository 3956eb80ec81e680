//! The mouse, routed for picking here instead of by `bevy_picking`'s own mouse input: over the
//! board's picture (and not over an egui area) its position is given in the picture's image
//! coordinates, so picking hits the squares the board camera drew; elsewhere in the window's,
//! where `bevy_egui`'s backend blocks what is under the panels.
//!
//! A quick click must act where the pointer was. At 17 frames a second a quick hand moves,
//! presses and lets go within one frame (xdotool's `mousemove X Y click 1` does), and
//! `bevy_picking` matches a release with what was hovered the frame before while it matches a
//! press with this frame's hover: a press and its release in one frame on a newly hovered piece
//! never made a click. What follows a press in a frame is handed on the next frame (which is
//! asked for), so that the release finds the piece the press found. (Tried: with the release
//! handed on at once, the scripted tour's quick click selects nothing.)
//!
//! Each event is also judged where it happened rather than by egui's view of the pointer,
//! which is last frame's: an event over one of egui's areas (a dialog, the turn buttons) or off
//! the board's picture is the window's.

use crate::board::BoardRect;
use crate::stage::board_image::BoardImage;
use bevy::camera::{NormalizedRenderTarget, RenderTarget};
use bevy::input::ButtonState;
use bevy::input::mouse::MouseButtonInput;
use bevy::picking::PickingSystems;
use bevy::picking::input::PointerInputSettings;
use bevy::picking::pointer::{Location, PointerAction, PointerButton, PointerId, PointerInput};
use bevy::prelude::*;
use bevy::window::{PrimaryWindow, WindowEvent};
use bevy_egui::input::EguiWantsInput;
use bevy_egui::{EguiContexts, egui};

pub(super) fn plugin(app: &mut App) {
    // The mouse goes through `route_mouse` instead.
    app.insert_resource(PointerInputSettings {
        is_mouse_enabled: false,
        ..default()
    })
    .add_systems(First, route_mouse.in_set(PickingSystems::Input));
}

/// `bevy_picking`'s mouse input, with the position over the board given in the board image.
fn route_mouse(
    mut window_events: MessageReader<WindowEvent>,
    primary_window: Query<Entity, With<PrimaryWindow>>,
    windows: Query<&Window>,
    board: Res<BoardImage>,
    shown: Res<BoardRect>,
    egui: Option<Res<EguiWantsInput>>,
    mut contexts: EguiContexts,
    mut cursor_last: Local<Vec2>,
    mut held: Local<Vec<PointerInput>>,
    mut pointer_inputs: MessageWriter<PointerInput>,
    mut frames: ResMut<crate::frames::NextFrame>,
) {
    let primary = primary_window.single().ok();
    // A drag that egui started (a slider) keeps the pointer wherever it goes.
    let egui_drags = egui.is_some_and(|e| e.is_using_pointer());
    let ctx = contexts.ctx_mut().ok().cloned();
    let locate = |window: Entity, position: Vec2| -> Option<Location> {
        if !egui_drags && !over_egui(ctx.as_ref(), shown.0, position) {
            let scale = windows.get(window).map_or(1.0, Window::scale_factor);
            return Some(Location {
                target: NormalizedRenderTarget::Image(board.target(scale)),
                position: position - shown.0.min,
            });
        }
        let target =
            RenderTarget::Window(bevy::window::WindowRef::Entity(window)).normalize(primary)?;
        Some(Location { target, position })
    };
    for event in window_events.read() {
        let (window, position, action) = match event {
            WindowEvent::CursorMoved(e) => {
                let delta = e.position - *cursor_last;
                *cursor_last = e.position;
                (e.window, e.position, PointerAction::Move { delta })
            }
            WindowEvent::MouseButtonInput(MouseButtonInput {
                button,
                state,
                window,
            }) => {
                let button = match button {
                    MouseButton::Left => PointerButton::Primary,
                    MouseButton::Right => PointerButton::Secondary,
                    MouseButton::Middle => PointerButton::Middle,
                    _ => continue,
                };
                let action = match state {
                    ButtonState::Pressed => PointerAction::Press(button),
                    ButtonState::Released => PointerAction::Release(button),
                };
                (*window, *cursor_last, action)
            }
            WindowEvent::MouseWheel(e) => (
                e.window,
                *cursor_last,
                PointerAction::Scroll {
                    x: e.x,
                    y: e.y,
                    unit: e.unit,
                    phase: e.phase,
                },
            ),
            _ => continue,
        };
        if let Some(location) = locate(window, position) {
            held.push(PointerInput::new(PointerId::Mouse, location, action));
        }
    }
    // Everything up to and including the frame's first press goes now; the rest next frame.
    let now = held
        .iter()
        .position(|input| matches!(input.action, PointerAction::Press(_)))
        .map_or(held.len(), |i| i + 1);
    pointer_inputs.write_batch(held.drain(..now));
    if !held.is_empty() {
        frames.now();
    }
}

/// Whether egui has the window at `position`: everywhere outside the board's picture (the
/// panels take the rest of the window), and over the picture where one of egui's areas lies
/// (a dialog, the turn buttons), as egui laid them out last frame. The board's letters are
/// painted on egui's background and let clicks through.
fn over_egui(ctx: Option<&egui::Context>, board: Rect, position: Vec2) -> bool {
    if !board.contains(position) {
        return true;
    }
    ctx.and_then(|c| c.layer_id_at(egui::pos2(position.x, position.y)))
        .is_some_and(|layer| layer.order != egui::Order::Background)
}
