//! File and rank letters beside the board.

use crate::board::{BoardOnScreen, square_center};
use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};
use khet_engine::{File, Rank, Square};

/// Window coordinates of a point on the board.
fn to_screen(camera: &BoardOnScreen, world: Vec3) -> Option<egui::Pos2> {
    let p = camera.to_window(world)?;
    Some(egui::pos2(p.x, p.y))
}

pub fn labels(
    mut contexts: EguiContexts,
    camera: BoardOnScreen,
    show: Res<crate::table::Show>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Background,
        egui::Id::new("labels"),
    ));
    let font = egui::FontId::proportional(15.0);
    let ink = egui::Color32::from_gray(200);
    // On a Khet 1.0 board Silver's emitter stands where j's letter goes: the letter moves out,
    // past the board's edge.
    let emitter_file = show
        .display
        .is_some_and(|p| p.edition() == khet_engine::Edition::Khet1)
        .then_some(File::ALL[9]);
    for f in File::ALL {
        let sq = Square::from_coords(f, Rank::ALL[0]);
        let out = if Some(f) == emitter_file { 1.12 } else { 0.78 };
        if let Some(p) = to_screen(&camera, square_center(sq) + Vec3::new(0.0, 0.0, out)) {
            label(&painter, p, f.char(), &font, ink);
        }
    }
    for r in Rank::ALL {
        let sq = Square::from_coords(File::ALL[0], r);
        if let Some(p) = to_screen(&camera, square_center(sq) + Vec3::new(-0.8, 0.0, 0.0)) {
            label(&painter, p, r.char(), &font, ink);
        }
    }
    Ok(())
}

/// A letter with a dark shadow, legible on the rim's stone and on Khet 1.0's emitter.
fn label(
    painter: &egui::Painter,
    at: egui::Pos2,
    c: char,
    font: &egui::FontId,
    ink: egui::Color32,
) {
    let shadow = egui::Color32::from_black_alpha(200);
    painter.text(
        at + egui::vec2(1.0, 1.0),
        egui::Align2::CENTER_CENTER,
        c,
        font.clone(),
        shadow,
    );
    painter.text(at, egui::Align2::CENTER_CENTER, c, font.clone(), ink);
}
