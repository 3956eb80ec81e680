//! File and rank letters beside the board, and where the board is on screen.

use crate::board::square_center;
use crate::view::board_image::BoardImage;
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};
use khet_engine::{File, Rank, Square};

/// The board camera and where its picture is shown: enough to place things over the board.
#[derive(SystemParam)]
pub struct BoardCamera<'w, 's> {
    camera: Query<
        'w,
        's,
        (&'static Camera, &'static GlobalTransform),
        crate::view::camera::IsBoardCamera,
    >,
    image: Res<'w, BoardImage>,
}

impl BoardCamera<'_, '_> {
    /// Window coordinates (logical) of a point in the world.
    pub fn to_window(&self, world: Vec3) -> Option<Vec2> {
        let (cam, tf) = self.camera.single().ok()?;
        self.image.to_window(cam, tf, world)
    }
}

/// Window coordinates of a point on the board.
pub fn to_screen(camera: &BoardCamera, world: Vec3) -> Option<egui::Pos2> {
    let p = camera.to_window(world)?;
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
