//! File and rank letters beside the board, and where the board is on screen.

use crate::board::square_center;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};
use khet_engine::{File, Rank, Square};

pub type BoardCamera<'w, 's> = Query<
    'w,
    's,
    (&'static Camera, &'static GlobalTransform),
    (With<Camera3d>, Without<bevy_egui::PrimaryEguiContext>),
>;

/// Window coordinates of a point on the board.
pub fn to_screen(camera: &BoardCamera, world: Vec3) -> Option<egui::Pos2> {
    let (cam, tf) = camera.single().ok()?;
    // `world_to_viewport` answers in window coordinates (the viewport's offset included).
    let p = cam.world_to_viewport(tf, world).ok()?;
    Some(egui::pos2(p.x, p.y))
}

pub fn labels(mut contexts: EguiContexts, camera: BoardCamera) -> Result {
    let ctx = contexts.ctx_mut()?;
    let painter = ctx.layer_painter(egui::LayerId::new(
        egui::Order::Background,
        egui::Id::new("labels"),
    ));
    let font = egui::FontId::proportional(15.0);
    let ink = egui::Color32::from_gray(200);
    for f in File::ALL {
        let sq = Square::from_coords(f, Rank::ALL[0]);
        if let Some(p) = to_screen(&camera, square_center(sq) + Vec3::new(0.0, 0.0, 0.78)) {
            painter.text(p, egui::Align2::CENTER_CENTER, f.char(), font.clone(), ink);
        }
    }
    for r in Rank::ALL {
        let sq = Square::from_coords(File::ALL[0], r);
        if let Some(p) = to_screen(&camera, square_center(sq) + Vec3::new(-0.8, 0.0, 0.0)) {
            painter.text(p, egui::Align2::CENTER_CENTER, r.char(), font.clone(), ink);
        }
    }
    Ok(())
}
