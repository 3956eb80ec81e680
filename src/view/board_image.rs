//! The board camera draws into an image of its own, sized to the room the panels leave times
//! the preset's render scale; the window's camera shows that image in the room, scaled up, as
//! a flat quad with the cheapest material there is, and egui draws the panels over the rest.
//!
//! Why: on a software renderer (llvmpipe) the cost of a frame is the 3D view's pixels, so
//! drawing fewer of them is what makes Low fast (see `quality`). One path for every preset
//! keeps picking and the overlays the same whatever the scale.
//!
//! The mouse is routed for picking here instead of by `bevy_picking`'s own mouse input: over
//! the board (and not over an egui window) its position is given in the image's coordinates,
//! elsewhere in the window's, where `bevy_egui`'s backend blocks what is under the panels.

use crate::view::low_material::LowMaterial;
use crate::view::panels::{PanelSet, PanelSpace};
use bevy::asset::RenderAssetUsages;
use bevy::camera::visibility::RenderLayers;
use bevy::camera::{ImageRenderTarget, NormalizedRenderTarget, RenderTarget};
use bevy::ecs::system::SystemParam;
use bevy::input::ButtonState;
use bevy::input::mouse::MouseButtonInput;
use bevy::picking::Pickable;
use bevy::picking::PickingSystems;
use bevy::picking::input::PointerInputSettings;
use bevy::picking::pointer::{Location, PointerAction, PointerButton, PointerId, PointerInput};
use bevy::prelude::*;
use bevy::render::render_resource::{Extent3d, TextureDimension, TextureFormat, TextureUsages};
use bevy::window::{PrimaryWindow, WindowEvent};
use bevy_egui::EguiPrimaryContextPass;
use bevy_egui::input::EguiWantsInput;

/// The board's picture and where it is shown.
#[derive(Resource, Clone, Debug)]
pub struct BoardImage {
    pub handle: Handle<Image>,
    /// Where the picture is shown, in logical window pixels.
    pub rect: Rect,
    /// The render scale: image pixels per physical window pixel (the preset's, set by
    /// `quality`).
    pub scale: f32,
}

/// The board camera and where its picture is shown: enough to place things over the board
/// (the letters, the turn buttons, the scripted run's clicks).
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
    /// Window coordinates (logical) of a point in the world, as the board camera shows it.
    pub fn to_window(&self, world: Vec3) -> Option<Vec2> {
        let (cam, tf) = self.camera.single().ok()?;
        let p = cam.world_to_viewport(tf, world).ok()?;
        Some(p + self.image.rect.min)
    }
}

impl BoardImage {
    /// The render target the board camera draws into; `window_scale` is the window's scale
    /// factor, so that the image's logical size is the room's.
    fn target(&self, window_scale: f32) -> ImageRenderTarget {
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
            rect: Rect::new(0.0, 0.0, 1.0, 1.0),
            scale: 1.0,
        }
    }
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<BoardImage>()
        // The mouse goes through `route_mouse` instead.
        .insert_resource(PointerInputSettings {
            is_mouse_enabled: false,
            ..default()
        })
        .add_systems(First, route_mouse.in_set(PickingSystems::Input))
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
    mut board: ResMut<BoardImage>,
    mut images: ResMut<Assets<Image>>,
    mut materials: ResMut<Assets<LowMaterial>>,
    mut camera: Query<&mut RenderTarget, crate::view::camera::IsBoardCamera>,
    mut picture: Query<(&mut Transform, &MeshMaterial3d<LowMaterial>), With<Picture>>,
    window: Query<&Window, With<PrimaryWindow>>,
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
    let size = image_size(room.size(), window_scale, board.scale);
    let resized = images
        .get(&board.handle)
        .is_none_or(|image| image.size() != size);
    if resized {
        // A new image rather than a resized one: the camera then sees a new target at once.
        board.handle = images.add(target_image(size));
    }
    // Changed only when it changes: the camera is placed again when the room does.
    if board.rect != room {
        board.rect = room;
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

/// `bevy_picking`'s mouse input, with the position over the board given in the board image.
fn route_mouse(
    mut window_events: MessageReader<WindowEvent>,
    primary_window: Query<Entity, With<PrimaryWindow>>,
    windows: Query<&Window>,
    board: Res<BoardImage>,
    egui: Option<Res<EguiWantsInput>>,
    mut cursor_last: Local<Vec2>,
    mut pointer_inputs: MessageWriter<PointerInput>,
) {
    let primary = primary_window.single().ok();
    let egui_has_it = egui.is_some_and(|e| e.wants_any_pointer_input());
    let locate = |window: Entity, position: Vec2| -> Option<Location> {
        if !egui_has_it && board.rect.contains(position) {
            let scale = windows.get(window).map_or(1.0, Window::scale_factor);
            return Some(Location {
                target: NormalizedRenderTarget::Image(board.target(scale)),
                position: position - board.rect.min,
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
            pointer_inputs.write(PointerInput::new(PointerId::Mouse, location, action));
        }
    }
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
