//! How the game shows itself to the desktop: the window's title, its application id, and its
//! icon.
//!
//! The id is the name of the `.desktop` entry, the icon and the AppStream metainfo the package
//! installs (`packaging/`). The window carries it as its Wayland app id and its X11 class, so
//! the desktop matches the window to the entry: the entry's icon in the dock and the task
//! switcher, and one group for the game's windows.
//!
//! Wayland compositors take the icon from the entry. X11 takes it from the window itself, so the
//! 128 px icon is built into the program and set on the window when it appears (Bevy has no
//! setting for it; winit does).
//!
//! In a browser the page is the window: the game draws into the page's canvas (`#khet`), which
//! fills the page and follows its size and the screen's pixel ratio; the page's title and icon
//! are the HTML's.

use bevy::prelude::*;
#[cfg(not(target_arch = "wasm32"))]
use bevy::window::PrimaryWindow;
#[cfg(not(target_arch = "wasm32"))]
use bevy::winit::WINIT_WINDOWS;

/// The application id, in reverse-DNS form as AppStream asks.
pub const APP_ID: &str = "io.github.khet_game.Khet";

/// The window's title.
pub const TITLE: &str = "Khet — the laser game";

/// The icon (made by `assets/icon/make_icons.sh` from `khet.svg` beside it).
#[cfg(not(target_arch = "wasm32"))]
const ICON_PNG: &[u8] = include_bytes!("../assets/icon/128.png");

/// The game's main window: title, id, size.
#[cfg(not(target_arch = "wasm32"))]
pub fn window() -> Window {
    Window {
        title: TITLE.into(),
        name: Some(APP_ID.into()),
        resolution: (1280, 800).into(),
        ..default()
    }
}

/// The page's canvas, filling the page. The browser keeps its own keys (reload, zoom, the
/// developer tools) when the game has no use for them.
#[cfg(target_arch = "wasm32")]
pub fn window() -> Window {
    Window {
        title: TITLE.into(),
        canvas: Some("#khet".into()),
        fit_canvas_to_parent: true,
        prevent_default_event_handling: false,
        ..default()
    }
}

/// Sets the window's icon once the window exists; in a browser, keeps the page told where the
/// squares are.
pub fn plugin(app: &mut App) {
    #[cfg(not(target_arch = "wasm32"))]
    app.add_systems(Update, set_icon.run_if(not(resource_exists::<IconSet>)));
    #[cfg(target_arch = "wasm32")]
    app.add_systems(PostUpdate, page::publish_squares);
}

/// Where the board's squares are on the page, for whatever clicks them from outside the game: the
/// browser's tests click the canvas there as a player does, as the desktop's scripted tour clicks
/// where its notes say the squares are.
#[cfg(target_arch = "wasm32")]
pub mod page {
    use crate::board::{BEAM_HEIGHT, BoardOnScreen, square_center};
    use bevy::prelude::*;
    use khet_engine::Square;
    use std::fmt::Write;
    use std::sync::Mutex;

    /// The last frame's squares as JSON: `{"a1":[x,y],…}` in CSS pixels from the canvas's top
    /// left corner, at the height of the mirrors (where a click meets a piece or its square);
    /// squares off the canvas are left out.
    static SQUARES: Mutex<String> = Mutex::new(String::new());

    pub(super) fn publish_squares(board: BoardOnScreen) {
        let mut json = String::from("{");
        for sq in Square::ALL {
            if let Some(at) = board.to_window(square_center(sq) + Vec3::Y * BEAM_HEIGHT) {
                let comma = if json.len() > 1 { "," } else { "" };
                let _ = write!(json, "{comma}\"{sq}\":[{:.1},{:.1}]", at.x, at.y);
            }
        }
        json.push('}');
        if let Ok(mut squares) = SQUARES.lock() {
            *squares = json;
        }
    }

    /// The squares as [`publish_squares`] last wrote them (`{}` before the first frame).
    pub fn squares() -> String {
        let squares = SQUARES.lock().map(|s| s.clone()).unwrap_or_default();
        if squares.is_empty() {
            "{}".into()
        } else {
            squares
        }
    }
}

/// The icon is on the window (or cannot be: said once in the log).
#[cfg(not(target_arch = "wasm32"))]
#[derive(Resource)]
struct IconSet;

/// Runs on the main thread (the `NonSendMarker`), where winit's windows live.
#[cfg(not(target_arch = "wasm32"))]
fn set_icon(
    window: Query<Entity, With<PrimaryWindow>>,
    _main_thread: bevy::ecs::system::NonSendMarker,
    mut commands: Commands,
) {
    let Ok(entity) = window.single() else { return };
    let placed = WINIT_WINDOWS.with_borrow(|windows| {
        let w = windows.get_window(entity)?;
        Some(icon().map(|icon| w.set_window_icon(Some(icon))))
    });
    match placed {
        // The window is not made yet.
        None => return,
        Some(Err(why)) => warn!("the window's icon: {why}"),
        Some(Ok(())) => {}
    }
    commands.insert_resource(IconSet);
}

/// The built-in icon, decoded.
#[cfg(not(target_arch = "wasm32"))]
fn icon() -> Result<winit::window::Icon, String> {
    use bevy::asset::RenderAssetUsages;
    use bevy::image::{CompressedImageFormats, ImageSampler, ImageType};
    let image = Image::from_buffer(
        ICON_PNG,
        ImageType::Extension("png"),
        CompressedImageFormats::NONE,
        true,
        ImageSampler::Default,
        RenderAssetUsages::MAIN_WORLD,
    )
    .map_err(|e| e.to_string())?;
    let (width, height) = (image.width(), image.height());
    let rgba = image
        .try_into_dynamic()
        .map_err(|e| e.to_string())?
        .to_rgba8()
        .into_raw();
    winit::window::Icon::from_rgba(rgba, width, height).map_err(|e| e.to_string())
}
