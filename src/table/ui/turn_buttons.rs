//! Turn buttons on the selected piece's own square (and "stack / top" for a stack of two).
//!
//! They stand on the near half of the square, over the piece's foot: every square around the
//! piece may be where it goes, so a button anywhere beside it would cover a move (a click meant
//! for the square would turn the piece instead). The piece's top, which shows its facing, stays
//! in view above them.

use crate::board::{BoardOnScreen, square_center};
use crate::table::laser_preview::Aim;
use crate::table::selection::{RotateSelected, Selection, SelectionAction, StackMode};
use crate::table::{Match, Show};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};
use khet_engine::{Kind, Rotation};

pub fn turn_buttons(
    mut contexts: EguiContexts,
    camera: BoardOnScreen,
    m: Res<Match>,
    show: Res<Show>,
    selection: Res<Selection>,
    mut rotate: MessageWriter<RotateSelected>,
    mut actions: MessageWriter<SelectionAction>,
    mut aim: ResMut<Aim>,
) -> Result {
    // The turn button under the pointer, for the laser preview.
    let mut turn = None;
    let Some(sel) = selection.square(&m.game).filter(|_| show.is_idle()) else {
        aim.set_if_neq(Aim { turn: None, ..*aim });
        return Ok(());
    };
    let (Some(p), Some(piece)) = (near_edge(&camera, sel), m.game.position().piece_at(sel)) else {
        aim.set_if_neq(Aim { turn: None, ..*aim });
        return Ok(());
    };
    egui::Area::new(egui::Id::new("turn"))
        .pivot(egui::Align2::CENTER_BOTTOM)
        .fixed_pos(p)
        .show(contexts.ctx_mut()?, |ui| {
            egui::Frame::popup(ui.style()).show(ui, |ui| {
                ui.horizontal(|ui| {
                    if piece.can_rotate() {
                        for (text, hover, rotation) in [
                            ("↺", "Turn anticlockwise (Q)", Rotation::Anticlockwise),
                            ("↻", "Turn clockwise (E)", Rotation::Clockwise),
                        ] {
                            let button = ui.button(text).on_hover_text(hover);
                            if button.hovered() {
                                turn = Some(rotation);
                            }
                            if button.clicked() {
                                rotate.write(RotateSelected(rotation));
                            }
                        }
                    }
                    if piece.kind() == Kind::Obelisk && piece.height() == 2 {
                        let mut mode = selection.stack_mode;
                        ui.selectable_value(&mut mode, StackMode::Whole, "stack")
                            .on_hover_text("Move the whole stack");
                        ui.selectable_value(&mut mode, StackMode::Top, "top")
                            .on_hover_text("Move the top Obelisk alone");
                        if mode != selection.stack_mode {
                            actions.write(SelectionAction::ToggleStackMode);
                        }
                    }
                });
            });
        });
    aim.set_if_neq(Aim { turn, ..*aim });
    Ok(())
}

/// Where the buttons stand: the middle of the square's edge nearest the viewer (lowest in the
/// window, whichever way the board is turned), a little inside it.
fn near_edge(camera: &BoardOnScreen, sq: khet_engine::Square) -> Option<egui::Pos2> {
    let centre = square_center(sq);
    [Vec3::X, Vec3::NEG_X, Vec3::Z, Vec3::NEG_Z]
        .into_iter()
        .filter_map(|d| camera.to_window(centre + d * 0.5))
        .max_by(|a, b| a.y.total_cmp(&b.y))
        .map(|p| egui::pos2(p.x, p.y - 2.0))
}
