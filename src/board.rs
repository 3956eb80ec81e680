//! Where the board is: in the world, where squares are (the board lies in the XZ plane, file
//! `a` to the west (−X), rank 8 to the north (−Z), so Silver's default view looks north from
//! +Z); and on the screen, where its picture is shown and how a point of the world maps into
//! the window. The stage sets these up; the table's clicks and overlays read them. A leaf: it
//! knows no feature.

use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use khet_engine::{Direction, Square};

/// A square of the board as an entity: the stage spawns one per square, and the table listens
/// to clicks on them.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tile(pub Square);

/// The camera that draws the board (the window's camera, for the panels, is another).
#[derive(Component, Clone, Copy, Debug, Default)]
pub struct BoardCamera;

/// Where the board's picture is shown in the window, in logical pixels.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct BoardRect(pub Rect);

impl Default for BoardRect {
    fn default() -> BoardRect {
        BoardRect(Rect::new(0.0, 0.0, 1.0, 1.0))
    }
}

/// The board camera and where its picture is shown: enough to place things over the board
/// (the letters, the turn buttons, the scripted run's clicks).
#[derive(SystemParam)]
pub struct BoardOnScreen<'w, 's> {
    camera: Query<'w, 's, (&'static Camera, &'static GlobalTransform), With<BoardCamera>>,
    rect: Res<'w, BoardRect>,
}

impl BoardOnScreen<'_, '_> {
    /// Window coordinates (logical) of a point in the world, as the board camera shows it.
    pub fn to_window(&self, world: Vec3) -> Option<Vec2> {
        let (cam, tf) = self.camera.single().ok()?;
        let p = cam.world_to_viewport(tf, world).ok()?;
        Some(p + self.rect.0.min)
    }

    /// Where the board's picture is, in logical window pixels.
    pub fn rect(&self) -> Rect {
        self.rect.0
    }
}

/// Height of the beam above the board: through the middle of the mirrors.
pub const BEAM_HEIGHT: f32 = 0.32;

/// The centre of a square on the board's surface.
pub fn square_center(sq: Square) -> Vec3 {
    Vec3::new(
        sq.file().index() as f32 - 4.5,
        0.0,
        3.5 - sq.rank().index() as f32,
    )
}

/// A unit vector for a compass direction.
pub fn direction_vec(d: Direction) -> Vec3 {
    match d {
        Direction::N => Vec3::NEG_Z,
        Direction::E => Vec3::X,
        Direction::S => Vec3::Z,
        Direction::W => Vec3::NEG_X,
    }
}

/// The yaw that turns a model built for orientation 0 (N, NE or `\`) to orientation `o`:
/// each step is a quarter turn clockwise seen from above.
pub fn orientation_yaw(o: u8) -> f32 {
    -std::f32::consts::FRAC_PI_2 * o as f32
}

/// The square under a point of the board plane, if any.
pub fn square_at(point: Vec3) -> Option<Square> {
    let file = (point.x + 5.0).floor();
    let rank = (4.0 - point.z).floor();
    if (0.0..10.0).contains(&file) && (0.0..8.0).contains(&rank) {
        Square::new(rank as u8 * 10 + file as u8)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_map_back() {
        for sq in Square::ALL {
            assert_eq!(
                square_at(square_center(sq) + Vec3::new(0.3, 0.0, -0.3)),
                Some(sq)
            );
        }
    }
}
