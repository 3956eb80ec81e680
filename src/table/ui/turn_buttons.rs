//! Turn buttons beside the selected piece (and "move stack / move top" for a stack).

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
    let (Some(p), Some(piece)) = (
        camera
            .to_window(square_center(sel) + Vec3::new(0.0, 1.1, 0.0))
            .map(|p| egui::pos2(p.x, p.y)),
        m.game.position().piece_at(sel),
    ) else {
        aim.set_if_neq(Aim { turn: None, ..*aim });
        return Ok(());
    };
    egui::Area::new(egui::Id::new("turn"))
        .fixed_pos(p - egui::vec2(40.0, 20.0))
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
                        ui.selectable_value(&mut mode, StackMode::Whole, "move stack");
                        ui.selectable_value(&mut mode, StackMode::Top, "move top");
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
