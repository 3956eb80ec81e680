//! Both clocks at the top of the board, the running one bright and low time in orange.

use crate::table::Match;
use crate::table::clock::Clocks;
use crate::theme::{PanelSpace, clock_text, side_color};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};
use khet_engine::Color as Side;

/// Both clocks at the top of the board; the running one bright.
pub fn clocks(
    mut contexts: EguiContexts,
    clocks: Option<Res<Clocks>>,
    m: Res<Match>,
    space: Res<PanelSpace>,
) -> Result {
    let Some(clocks) = clocks else { return Ok(()) };
    let running = (!m.game.is_over()).then(|| m.game.side_to_move());
    egui::Area::new(egui::Id::new("clocks"))
        .fixed_pos(egui::pos2(
            space.free.center().x - 110.0,
            space.free.top() + 8.0,
        ))
        .show(contexts.ctx_mut()?, |ui| {
            ui.horizontal(|ui| {
                for side in [Side::Silver, Side::Red] {
                    let on = running == Some(side);
                    let left = clocks.left(side);
                    let low = left.as_secs() < 10;
                    let text = egui::RichText::new(format!("{side} {}", clock_text(left)))
                        .monospace()
                        .size(22.0)
                        .color(if low {
                            egui::Color32::from_rgb(255, 120, 60)
                        } else {
                            side_color(side)
                        });
                    let frame = egui::Frame::popup(ui.style()).fill(if on {
                        egui::Color32::from_gray(60)
                    } else {
                        egui::Color32::from_gray(25)
                    });
                    frame.show(ui, |ui| {
                        ui.add(
                            egui::Label::new(if on { text.strong() } else { text.weak() }).extend(),
                        )
                    });
                }
            });
        });
    Ok(())
}
