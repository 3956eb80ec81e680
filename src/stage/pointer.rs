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
//!
//! What the pointer means on the board: each tile and piece, as it is spawned, is given
//! observers, and a click on one becomes the table's [`SquareClicked`] (a click while something
//! animates skips it); hovering one sets the table's [`Hovered`] and the laser preview's [`Aim`].
//! Clicks over egui never reach the board (`bevy_egui`'s picking).

use crate::board::{BoardRect, Tile};
use crate::stage::board_image::BoardImage;
use crate::table::laser_preview::Aim;
use crate::table::pieces::{BoardPiece, OnSquare};
use crate::table::selection::{Hovered, SquareClicked};
use crate::table::{Show, TableAction};
use bevy::camera::{NormalizedRenderTarget, RenderTarget};
use bevy::input::ButtonState;
use bevy::input::mouse::MouseButtonInput;
use bevy::picking::PickingSystems;
use bevy::picking::events::{Click, Out, Over, Pointer};
use bevy::picking::input::PointerInputSettings;
use bevy::picking::pointer::{Location, PointerAction, PointerButton, PointerId, PointerInput};
use bevy::prelude::*;
use bevy::window::{PrimaryWindow, WindowEvent};
use bevy_egui::input::EguiWantsInput;
use bevy_egui::{EguiContexts, egui};
use khet_engine::Square;

pub(super) fn plugin(app: &mut App) {
    // The mouse goes through `route_mouse` instead.
    app.insert_resource(PointerInputSettings {
        is_mouse_enabled: false,
        ..default()
    })
    .add_systems(First, route_mouse.in_set(PickingSystems::Input))
    .add_observer(observe_tile)
    .add_observer(observe_piece);
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
