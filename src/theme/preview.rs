//! A small drawing of a position for choosing setups: tinted reserved squares, pieces as letters.

use super::piece_letter;
use bevy_egui::egui;
use khet_engine::{Color as Side, Position, Square};

/// A small drawing of a position: tinted reserved squares, pieces as letters.
pub fn preview(ui: &mut egui::Ui, position: &Position) {
    let cell = 17.0;
    let (rect, _) =
        ui.allocate_exact_size(egui::vec2(cell * 10.0, cell * 8.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    for sq in Square::ALL {
        let x = rect.left() + sq.file().index() as f32 * cell;
        let y = rect.top() + (7 - sq.rank().index()) as f32 * cell;
        let r = egui::Rect::from_min_size(egui::pos2(x, y), egui::vec2(cell - 1.0, cell - 1.0));
        let fill = match khet_engine::reserved_for(sq) {
            Some(Side::Silver) => egui::Color32::from_rgb(120, 130, 150),
            Some(Side::Red) => egui::Color32::from_rgb(130, 70, 65),
            None => egui::Color32::from_rgb(150, 135, 105),
        };
        painter.rect_filled(r, 2.0, fill);
        if let Some(p) = position.piece_at(sq) {
            let text = if p.height() == 2 {
                "OO"
            } else {
                piece_letter(p.kind())
            };
            let (disc, ink) = match p.color() {
                Side::Silver => (
                    egui::Color32::from_rgb(235, 238, 245),
                    egui::Color32::from_rgb(30, 30, 40),
                ),
                Side::Red => (egui::Color32::from_rgb(150, 20, 25), egui::Color32::WHITE),
            };
            painter.circle_filled(r.center(), cell * 0.45, disc);
            painter.text(
                r.center(),
                egui::Align2::CENTER_CENTER,
                text,
                egui::FontId::monospace(11.0),
                ink,
            );
        }
    }
}
