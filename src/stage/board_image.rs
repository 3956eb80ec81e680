//! The board camera draws into an image of its own, sized to the room the panels leave times
//! the preset's render scale; the window's camera shows that image in the room, scaled up, as
//! a flat quad with the cheapest material there is, and egui draws the panels over the rest.
//!
//! Why: on a software renderer (llvmpipe) the cost of a frame is the 3D view's pixels, so
//! drawing fewer of them is what makes Low fast (see `quality`). One path for every preset
//! keeps picking and the overlays the same whatever the scale.
//!
//! Where the picture is shown is [`BoardRect`] (`crate::board`), which the pointer routing
//! (`pointer`) and everything laid over the board read.

use crate::board::{BoardCamera, BoardRect};
use crate::stage::low_material::LowMaterial;
use crate::stage::quality::{Graphics, render_scale_of};
use crate::theme::{PanelSet, PanelSpace};
use bevy::asset::RenderAssetUsages;
use bevy::camera::visibility::RenderLayers;
use bevy::camera::{ImageRenderTarget, RenderTarget};
use bevy::picking::Pickable;
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat, TextureUsages};
use bevy::window::PrimaryWindow;
use bevy_egui::EguiPrimaryContextPass;

/// The board's picture.
#[derive(Resource, Clone, Debug)]
pub struct BoardImage {
    pub handle: Handle<Image>,
    /// The render scale: image pixels per physical window pixel (the graphics preset's).
    pub scale: f32,
}

impl BoardImage {
    /// The render target the board camera draws into; `window_scale` is the window's scale
    /// factor, so that the image's logical size is the room's.
    pub fn target(&self, window_scale: f32) -> ImageRenderTarget {
        ImageRenderTarget {
            handle: self.handle.clone(),
            scale_factor: window_scale * self.scale,
        }
    }
}

impl FromWorld for BoardImage {
    fn from_world(world: &mut World) -> Self {
        let mut images = world.resource_mut::<Assets<Image>>();
        BoardImage {
            handle: images.add(target_image(UVec2::ONE)),
            scale: 1.0,
        }
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<BoardImage>()
        .init_resource::<BoardRect>()
        .add_systems(Startup, spawn_picture)
        .add_systems(EguiPrimaryContextPass, fit.in_set(PanelSet::Viewport));
}

/// An empty render target of `size` physical pixels (sRGB, like a window's).
fn target_image(size: UVec2) -> Image {
    let mut image = Image::new_uninit(
        Extent3d {
            width: size.x.max(1),
            height: size.y.max(1),
            depth_or_array_layers: 1,
        },
        TextureDimension::D2,
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::RENDER_WORLD,
    );
    image.texture_descriptor.usage =
        TextureUsages::TEXTURE_BINDING | TextureUsages::COPY_DST | TextureUsages::RENDER_ATTACHMENT;
    image
}

/// The image's size for a room of `room` logical pixels.
pub fn image_size(room: Vec2, window_scale: f32, render_scale: f32) -> UVec2 {
    (room * window_scale * render_scale)
        .round()
        .max(Vec2::ONE)
        .as_uvec2()
}

/// The quad that shows the board's picture to the window's camera.
#[derive(Component)]
struct Picture;

/// The render layer of the picture, seen only by the window's camera.
pub const PICTURE_LAYER: usize = 1;

fn spawn_picture(
    board: Res<BoardImage>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<LowMaterial>>,
    mut commands: Commands,
) {
    commands.spawn((
        Name::new("Board picture"),
        Picture,
        Mesh3d(meshes.add(Rectangle::new(1.0, 1.0))),
        MeshMaterial3d(materials.add(LowMaterial::picture(board.handle.clone()))),
        Transform::default(),
        RenderLayers::layer(PICTURE_LAYER),
        Pickable::IGNORE,
    ));
}

/// Sizes the image to the room the panels left, points the board camera at it, and lays the
/// picture over the room.
fn fit(
    space: Res<PanelSpace>,
    graphics: Option<Res<Graphics>>,
    mut board: ResMut<BoardImage>,
    mut shown: ResMut<BoardRect>,
    mut images: ResMut<Assets<Image>>,
    mut materials: ResMut<Assets<LowMaterial>>,
    mut camera: Query<&mut RenderTarget, With<BoardCamera>>,
    mut picture: Query<(&mut Transform, &MeshMaterial3d<LowMaterial>), With<Picture>>,
    window: Query<&Window, With<PrimaryWindow>>,
    mut frames: ResMut<crate::frames::NextFrame>,
) {
    let Ok(window) = window.single() else {
        return;
    };
    if !space.free.is_positive() {
        return;
    }
    let room = Rect::new(
        space.free.min.x,
        space.free.min.y,
        space.free.max.x,
        space.free.max.y,
    );
    let window_scale = window.scale_factor();
    let scale = graphics.map_or(1.0, |g| render_scale_of(g.active));
    if board.scale != scale {
        board.scale = scale;
    }
    let size = image_size(room.size(), window_scale, board.scale);
    let resized = images
        .get(&board.handle)
        .is_none_or(|image| image.size() != size);
    if resized || shown.0 != room {
        // The camera, the picture and what lies over them settle over the next frames.
        frames.now();
    }
    if resized {
        // A new image rather than a resized one: the camera then sees a new target at once.
        board.handle = images.add(target_image(size));
    }
    // Changed only when it changes: the camera is placed again when the room does.
    if shown.0 != room {
        shown.0 = room;
    }
    if let Ok(mut target) = camera.single_mut() {
        let wanted = board.target(window_scale);
        if !matches!(&*target, RenderTarget::Image(t) if *t == wanted) {
            *target = RenderTarget::Image(wanted);
        }
    }
    if let Ok((mut tf, material)) = picture.single_mut() {
        let placed = picture_transform(room, Vec2::new(window.width(), window.height()));
        if *tf != placed {
            *tf = placed;
        }
        if resized && let Some(mut m) = materials.get_mut(&material.0) {
            m.texture = Some(board.handle.clone());
        }
    }
}

/// Where the picture lies for the window's camera (centred, y up, a unit a logical pixel).
pub fn picture_transform(room: Rect, window: Vec2) -> Transform {
    let centre = room.center();
    Transform::from_xyz(centre.x - window.x / 2.0, window.y / 2.0 - centre.y, 0.0)
        .with_scale(room.size().extend(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_picture_covers_the_room() {
        // A side panel of 316 and a status bar of 22 in a 1280 × 800 window.
        let room = Rect::new(316.0, 0.0, 1280.0, 778.0);
        let tf = picture_transform(room, Vec2::new(1280.0, 800.0));
        // Its centre, from the window's centre, y up; its size, the room's.
        assert_eq!(tf.translation, Vec3::new(158.0, 11.0, 0.0));
        assert_eq!(tf.scale, Vec3::new(964.0, 778.0, 1.0));
    }

    #[test]
    fn the_image_is_the_room_times_the_scales() {
        assert_eq!(
            image_size(Vec2::new(980.0, 760.0), 1.0, 1.0),
            UVec2::new(980, 760)
        );
        assert_eq!(
            image_size(Vec2::new(980.0, 760.0), 1.0, 0.5),
            UVec2::new(490, 380)
        );
        assert_eq!(
            image_size(Vec2::new(980.0, 760.0), 2.0, 0.5),
            UVec2::new(980, 760)
        );
        // Never empty, whatever the room.
        assert_eq!(image_size(Vec2::ZERO, 1.0, 0.5), UVec2::ONE);
    }
}
