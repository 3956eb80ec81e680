//! What the headless tests share: an app with the game's core and animations at a chosen speed,
//! messages sent as the mouse and panels send them, fresh temporary folders, and reading the
//! news and the match back. Each test file takes what it needs.
#![allow(dead_code)]

pub mod picture;
pub mod playing;
pub mod tour;
pub mod wait;

use bevy::prelude::*;
use khet::core_plugin;
use khet::news::{News, StatusLine};
use khet::settings::Settings;
use khet::table::Match;
use khet_engine::Square;
use std::path::PathBuf;

/// A square from its name.
pub fn sq(s: &str) -> Square {
    s.parse().expect("a square")
}

/// The game without drawing (`MinimalPlugins` + `core_plugin`), animations at `speed` (0 is
/// instant), `setup` run before the first frame (a save folder, a settings file), and two
/// frames run so that the first game is on the table.
///
/// Each frame advances the game's time by 1/60 s whatever the machine's speed, so an animation
/// lasts as many frames on a loaded machine as on a quiet one; `setup` may choose otherwise.
pub fn headless_with(speed: f32, setup: impl FnOnce(&mut App)) -> App {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins).add_plugins(core_plugin);
    app.insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(
        std::time::Duration::from_secs(1) / 60,
    ));
    setup(&mut app);
    app.insert_resource(Settings {
        speed,
        ..Settings::default()
    });
    app.update();
    app.update();
    app
}

/// [`headless_with`] with nothing to set up.
pub fn headless(speed: f32) -> App {
    headless_with(speed, |_| {})
}

/// Writes a message as the mouse, keys or panels would, and runs two frames.
pub fn send<M: Message>(app: &mut App, m: M) {
    app.world_mut().write_message(m);
    app.update();
    app.update();
}

/// Goes to a screen, and runs two frames.
pub fn go_to(app: &mut App, screen: khet::screen::Screen) {
    app.world_mut()
        .resource_mut::<NextState<khet::screen::Screen>>()
        .set(screen);
    app.update();
    app.update();
}

/// The match on the table.
pub fn game(app: &App) -> &Match {
    app.world().resource::<Match>()
}

/// What the status line shows.
pub fn news(app: &App) -> Option<News> {
    app.world().resource::<StatusLine>().0.clone()
}

/// A fresh, empty folder for one test (`khet-NAME-PID` in the temporary folder).
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("khet-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    dir
}

/// The server's tests' browser (Debian's headless Chromium through `chromedriver`), shared with
/// them rather than copied: its file, and the three things it takes from its home module there.
/// (The path names the folder in which `mod browser` is found.)
#[path = "../../crates/khet-server/tests/common"]
pub mod web {
    pub mod browser;

    /// How long the browser waits for anything before the test fails: only a hang fails it.
    pub const PATIENCE: std::time::Duration = std::time::Duration::from_secs(60);

    /// A fresh temporary folder (the browser's profile), removed at the end.
    pub struct TempDir(pub std::path::PathBuf);

    impl TempDir {
        pub fn new(name: &str) -> TempDir {
            static COUNT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
            let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            TempDir(super::temp_dir(&format!("{name}-{n}")))
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    pub mod services {
        /// A port nobody listens on now.
        pub fn free_port() -> u16 {
            std::net::TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .expect("a free port")
                .port()
        }
    }
}
