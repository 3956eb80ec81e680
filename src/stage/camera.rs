//! The camera: shows the whole board by default, from the side of the one person at the table
//! (Red's player, online or against the computer, sees it from Red's); right-drag orbits, the
//! wheel zooms; it snaps back (R) or turns the board around (F, or the board's own button). HDR
//! with bloom makes the beam glow.

use crate::board::{BoardCamera, BoardRect};
use crate::settings::Settings;
use crate::table::NewGameRequested;
use crate::theme::{PanelSet, PanelSpace};
use bevy::camera::RenderTarget;
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::input::mouse::{AccumulatedMouseMotion, AccumulatedMouseScroll};
use bevy::post_process::bloom::Bloom;
use bevy::prelude::*;
use bevy_egui::input::egui_wants_any_pointer_input;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use khet_engine::{Color as Side, Player};

/// Orbit around the board centre.
#[derive(Resource, Clone, Copy, Debug, PartialEq)]
pub struct Orbit {
    /// 0 looks north from Silver's side; π from Red's.
    pub yaw: f32,
    pub pitch: f32,
    pub distance: f32,
}

impl Orbit {
    pub const HOME: Orbit = Orbit {
        yaw: 0.0,
        pitch: 0.95,
        distance: 12.5,
    };

    /// The home view the settings choose, from Silver's side or Red's.
    pub fn home(settings: &Settings, from_red: bool) -> Orbit {
        Orbit {
            yaw: if from_red { std::f32::consts::PI } else { 0.0 },
            pitch: settings.camera_pitch_degrees.to_radians(),
            distance: settings.camera_distance,
        }
    }

    fn transform(&self) -> Transform {
        self.transform_in(FRAMED_ASPECT)
    }

    /// The camera's place for a picture of `aspect` (width / height): a room narrower than the
    /// one the home views were framed for takes the camera back, so the board's width still
    /// fits; a wider one changes nothing.
    pub fn transform_in(&self, aspect: f32) -> Transform {
        let back = if aspect > 0.0 {
            (FRAMED_ASPECT / aspect).max(1.0)
        } else {
            1.0
        };
        let dir = Vec3::new(
            self.yaw.sin() * self.pitch.cos(),
            self.pitch.sin(),
            self.yaw.cos() * self.pitch.cos(),
        );
        let target = Vec3::new(0.0, 0.0, 0.6 * self.yaw.cos());
        Transform::from_translation(target + dir * self.distance * back).looking_at(target, Vec3::Y)
    }
}

/// The board picture's aspect the home views were framed for: a 1280 × 800 window less the
/// side panel and the status bar (964 × 778).
pub const FRAMED_ASPECT: f32 = 1.24;

/// Camera requests from the board's button and the keys.
#[derive(Message, Clone, Copy, Debug)]
pub enum CameraAction {
    Home,
    Flip,
}

pub(super) fn plugin(app: &mut App) {
    orbit_plugin(app);
    app.add_systems(Startup, spawn_camera)
        .add_systems(
            Update,
            orbit_with_mouse
                .run_if(not(egui_wants_any_pointer_input))
                .before(place_camera)
                .in_set(crate::GameSet::View),
        )
        .add_systems(
            EguiPrimaryContextPass,
            turn_button
                .run_if(crate::table::has_match)
                .in_set(PanelSet::Overlays),
        );
}

/// Where the board camera looks from and what moves it, without drawing: the keys (R, F), the
/// requests ([`CameraAction`]), each new game turned to its person's side, the shake, and the
/// board camera placed. Apart so that the headless tests (`tests/headless.rs`) add it to the
/// game's core with a board camera of their own.
pub fn orbit_plugin(app: &mut App) {
    crate::frames::add_waking_message::<CameraAction>(app)
        .insert_resource(Orbit::HOME)
        .init_resource::<Shake>()
        .init_resource::<BoardRect>()
        .add_systems(
            Update,
            (
                camera_keys.run_if(crate::keys::keys_free),
                face_the_players_side,
                camera_actions,
                place_camera,
            )
                .chain()
                .in_set(crate::GameSet::View),
        );
}

fn spawn_camera(
    mut commands: Commands,
    board: Res<super::board_image::BoardImage>,
    mut orbit: ResMut<Orbit>,
    settings: Res<Settings>,
    mut egui_settings: ResMut<bevy_egui::EguiGlobalSettings>,
) {
    *orbit = Orbit::home(&settings, false);
    commands.spawn((
        Name::new("Board camera"),
        BoardCamera,
        Camera3d::default(),
        // Its own picture, which the window's camera shows (`board_image`).
        RenderTarget::Image(board.handle.clone().into()),
        Tonemapping::TonyMcMapface,
        Bloom {
            intensity: 0.3,
            ..Bloom::NATURAL
        },
        orbit.transform(),
    ));
    // The window's camera: it clears the window, draws the board's picture (`board_image`) in
    // the room the panels leave, and then egui draws the panels. A 3D camera with a flat
    // projection, one world unit a logical pixel, so that the picture is a mesh drawn with the
    // cheapest shader there is; the picture is tonemapped already.
    egui_settings.auto_create_primary_context = false;
    commands.spawn((
        Name::new("Window camera"),
        bevy_egui::PrimaryEguiContext,
        Camera3d::default(),
        Projection::Orthographic(OrthographicProjection {
            scaling_mode: bevy::camera::ScalingMode::WindowSize,
            ..OrthographicProjection::default_3d()
        }),
        Tonemapping::None,
        bevy::render::view::Msaa::Off,
        bevy::camera::visibility::RenderLayers::layer(super::board_image::PICTURE_LAYER),
        Camera {
            order: 1,
            ..default()
        },
        Transform::from_xyz(0.0, 0.0, 10.0),
    ));
}

fn orbit_with_mouse(
    buttons: Res<ButtonInput<MouseButton>>,
    motion: Res<AccumulatedMouseMotion>,
    scroll: Res<AccumulatedMouseScroll>,
    mut orbit: ResMut<Orbit>,
) {
    if buttons.pressed(MouseButton::Right) && motion.delta != Vec2::ZERO {
        orbit.yaw -= motion.delta.x * 0.006;
        orbit.pitch = (orbit.pitch + motion.delta.y * 0.005).clamp(0.25, 1.5);
    }
    if scroll.delta.y != 0.0 {
        orbit.distance = (orbit.distance * (1.0 - scroll.delta.y * 0.08)).clamp(6.0, 30.0);
    }
}

fn camera_keys(keys: Res<ButtonInput<KeyCode>>, mut actions: MessageWriter<CameraAction>) {
    if keys.just_pressed(KeyCode::KeyR) {
        actions.write(CameraAction::Home);
    }
    if keys.just_pressed(KeyCode::KeyF) {
        actions.write(CameraAction::Flip);
    }
}

/// The board's own button, at the bottom right of its picture (over the dark before the near
/// rim): turns the board around, as F does, wherever the board is shown.
fn turn_button(
    mut contexts: EguiContexts,
    space: Res<PanelSpace>,
    mut actions: MessageWriter<CameraAction>,
) -> Result {
    if !space.free.is_positive() {
        return Ok(());
    }
    egui::Area::new(egui::Id::new("turn the board"))
        .pivot(egui::Align2::RIGHT_BOTTOM)
        .fixed_pos(space.free.right_bottom() - egui::vec2(10.0, 10.0))
        .show(contexts.ctx_mut()?, |ui| {
            if ui
                .button("Turn the board")
                .on_hover_text("F: see the board from the other side")
                .clicked()
            {
                actions.write(CameraAction::Flip);
            }
        });
    Ok(())
}

fn camera_actions(
    mut actions: MessageReader<CameraAction>,
    mut orbit: ResMut<Orbit>,
    settings: Res<Settings>,
) {
    let from_red = orbit.yaw.cos() < 0.0;
    for action in actions.read() {
        *orbit = match action {
            CameraAction::Home => Orbit::home(&settings, from_red),
            CameraAction::Flip => Orbit::home(&settings, !from_red),
        };
    }
    // A new home view in the settings is shown at once.
    if settings.is_changed() && !settings.is_added() {
        *orbit = Orbit::home(&settings, from_red);
    }
}

/// Whether a game between `players` (Silver's, Red's) is seen from Red's side: when its one
/// person plays Red. With a person on both sides (hotseat) or on neither, Silver's, the home.
pub fn seen_from_red(players: [Player; 2]) -> bool {
    players[Side::Red.index()] == Player::Person && players[Side::Silver.index()] != Player::Person
}

/// Each game put on the table turns the camera to its person's side: a new one, a resumed one,
/// a replay, an online game. Read from the table's requests, each of which replaces `Match`,
/// rather than from the `Match` itself, which every move changes too and whose date two games
/// begun in one second share. An online game the server sends again (a reconnection, a resync)
/// comes with the file the table autosaves it in, which a game put on the table anew has not
/// yet: then the board stays as the player turned it.
fn face_the_players_side(
    mut new_games: MessageReader<NewGameRequested>,
    settings: Res<Settings>,
    mut orbit: ResMut<Orbit>,
    mut online_before: Local<bool>,
) {
    if let Some(NewGameRequested(spec)) = new_games.read().last() {
        let sent_again =
            *online_before && spec.online && spec.resume.as_ref().is_some_and(|r| r.file.is_some());
        *online_before = spec.online;
        if !sent_again {
            *orbit = Orbit::home(&settings, seen_from_red(spec.players));
        }
    }
}

/// A small shake when the laser strikes (`effects` adds to it; a setting turns it off). It
/// decays in about half a second and never moves the orbit itself.
#[derive(Resource, Default, Debug)]
pub struct Shake {
    trauma: f32,
    clock: f32,
}

impl Shake {
    pub fn add(&mut self, amount: f32) {
        self.trauma = (self.trauma + amount).clamp(0.0, 1.0);
    }
}

fn place_camera(
    time: Res<Time>,
    orbit: Res<Orbit>,
    shown: Res<BoardRect>,
    mut shake: ResMut<Shake>,
    mut was_shaking: Local<bool>,
    mut cameras: Query<&mut Transform, With<BoardCamera>>,
    mut frames: ResMut<crate::frames::NextFrame>,
) {
    let shaking = shake.trauma > 0.0;
    if shaking {
        frames.now();
    }
    if !(orbit.is_changed() || shown.is_changed() || shaking || *was_shaking) {
        return;
    }
    *was_shaking = shaking;
    let room = shown.0.size();
    let mut placed = orbit.transform_in(room.x / room.y.max(1.0));
    if shaking {
        let dt = time.delta_secs().min(0.1);
        shake.clock += dt;
        let t = shake.clock;
        // Sums of unrelated sines: a jitter without a random source, strongest at first.
        let amount = shake.trauma * shake.trauma * 0.12;
        let offset = Vec3::new(
            (t * 37.0).sin() + 0.5 * (t * 59.0).sin(),
            0.7 * (t * 43.0).sin(),
            (t * 31.0 + 1.0).sin(),
        ) * amount;
        placed.translation += offset;
        shake.trauma = (shake.trauma - dt * 1.8).max(0.0);
    }
    for mut tf in &mut cameras {
        if *tf != placed {
            *tf = placed;
            // What is laid over the board (letters, turn buttons) follows next frame.
            frames.now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_narrow_room_takes_the_camera_back_a_wide_one_does_not() {
        let orbit = Orbit::HOME;
        let target = Vec3::new(0.0, 0.0, 0.6);
        let distance = |aspect: f32| orbit.transform_in(aspect).translation.distance(target);
        assert!((distance(FRAMED_ASPECT) - orbit.distance).abs() < 1e-4);
        assert!((distance(2.0) - orbit.distance).abs() < 1e-4);
        assert!((distance(FRAMED_ASPECT / 2.0) - 2.0 * orbit.distance).abs() < 1e-3);
        // A room of no height yet (the first frame) leaves the home view alone.
        assert!((distance(0.0) - orbit.distance).abs() < 1e-4);
        assert_eq!(orbit.transform(), orbit.transform_in(FRAMED_ASPECT));
    }

    #[test]
    fn the_board_is_seen_from_the_side_of_its_one_person() {
        let computer = Player::Computer(khet_engine::Level::Master);
        // Red's player, online or against the computer, sees it from Red's side.
        assert!(seen_from_red([Player::Online, Player::Person]));
        assert!(seen_from_red([computer, Player::Person]));
        // Silver's player, both at one table, or nobody at it: Silver's side.
        assert!(!seen_from_red([Player::Person, Player::Online]));
        assert!(!seen_from_red([Player::Person, computer]));
        assert!(!seen_from_red([Player::Person, Player::Person]));
        assert!(!seen_from_red([computer, computer]));
    }
}
