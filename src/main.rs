//! Khet in 3D. `cargo run --release` opens the game; `khet --help` says what it takes.
//!
//! Built with the `dev` feature (as `cargo test` builds it), `khet --autoplay DIR` plays a
//! scripted tour and saves screenshots into DIR (the end-to-end test), and `khet --bench-frames`
//! measures CPU frame times of a scripted game in the headless app. Neither is in the player's
//! help.
// No console window on Windows; `console` brings the terminal's back when there is one.
#![cfg_attr(windows, windows_subsystem = "windows")]

#[cfg(windows)]
mod console;

use bevy::asset::AssetPlugin;
use bevy::prelude::*;
#[cfg(not(target_arch = "wasm32"))]
use clap::Parser;
use khet::built_in::AssetOrigin;
use khet::{core_plugin, view_plugin};

/// Where the game keeps its files, and what changes them: the help's last part.
#[cfg(not(any(windows, target_arch = "wasm32")))]
const FILES: &str = "\
Files:
  settings         ~/.config/khet/settings.ron, or $KHET_CONFIG/settings.ron
  saved games      ~/.local/share/khet/games/, or $KHET_DATA/games/
  lesson progress  ~/.local/share/khet/progress.ron, or $KHET_DATA/progress.ron
  your setups      ~/.config/khet/setups/, or $KHET_SETUPS
  (on Linux; elsewhere the platform's own config and data folders)

Environment:
  KHET_ASSETS         read the models and sounds from this folder, not the built-in copies
  KHET_SOUND_DEVICE   the ALSA device to play on (default: \"default\")";

/// The same on Windows, in its folders (`directories`' roaming application data).
#[cfg(windows)]
const FILES: &str = "\
Files:
  settings         %APPDATA%\\khet\\config\\settings.ron, or %KHET_CONFIG%\\settings.ron
  saved games      %APPDATA%\\khet\\data\\games\\, or %KHET_DATA%\\games\\
  lesson progress  %APPDATA%\\khet\\data\\progress.ron, or %KHET_DATA%\\progress.ron
  your setups      %APPDATA%\\khet\\config\\setups\\, or %KHET_SETUPS%

Environment:
  KHET_ASSETS         read the models and sounds from this folder, not the built-in copies
  KHET_SOUND_DEVICE   the sound endpoint's ID to play on (default: the system's default)";

/// Khet, the laser game, in 3D: both editions, against a friend at the table or the computer.
#[cfg(not(target_arch = "wasm32"))]
#[derive(Parser, Debug)]
#[command(name = "khet", version, after_help = FILES)]
struct Args {
    /// Plays the scripted tour and saves its screenshots into DIR.
    #[cfg(feature = "dev")]
    #[arg(long, value_name = "DIR", hide = true)]
    autoplay: Option<std::path::PathBuf>,
    /// Plays the scripted online tour against the server at --server, saving screenshots.
    #[cfg(feature = "dev")]
    #[arg(long, value_name = "DIR", hide = true, requires = "server")]
    online_tour: Option<std::path::PathBuf>,
    /// The server of the online tour.
    #[cfg(feature = "dev")]
    #[arg(long, value_name = "URL", hide = true)]
    server: Option<String>,
    /// Measures CPU frame times of a scripted game in the headless app.
    #[cfg(feature = "dev")]
    #[arg(long, hide = true)]
    bench_frames: bool,
}

/// In a browser (`scripts/build-game-web`): the page's canvas, its storage for the player's
/// files. The same program also runs in the page's worker (`web/think-worker.js`), where there
/// is no window and no game: there it only answers [`think`].
#[cfg(target_arch = "wasm32")]
fn main() -> AppExit {
    if web_sys::window().is_none() {
        return AppExit::Success;
    }
    game_app(None).run()
}

/// The worker's one request: the job named `name`, given as text, done; its answer as text
/// (`khet::think`).
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn think(name: &str, job: &str) -> Result<String, String> {
    khet::think(name, job)
}

/// Where the board's squares are on the page (`khet::desktop::page`), for the page's
/// `window.khetSquares()`.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn squares() -> String {
    khet::desktop::page::squares()
}

#[cfg(not(target_arch = "wasm32"))]
fn main() -> AppExit {
    #[cfg(windows)]
    console::attach_to_parent();
    let args = match Args::try_parse() {
        Ok(args) => args,
        Err(e) => {
            // Help and version go to standard output and succeed; a mistake fails.
            let _ = e.print();
            return match e.exit_code() {
                0 => AppExit::Success,
                code => AppExit::from_code(u8::try_from(code).unwrap_or(2)),
            };
        }
    };
    #[cfg(feature = "dev")]
    {
        if args.bench_frames {
            khet::dev::bench::bench_frames();
            return AppExit::Success;
        }
        if let Some(dir) = args.autoplay {
            if let Err(e) = std::fs::create_dir_all(&dir) {
                eprintln!("error: cannot create {}: {e}", dir.display());
                return AppExit::error();
            }
            // The script's games and settings stay in its folder, away from the player's.
            let mut app = game_app(Some(&dir));
            app.add_plugins(khet::dev::AutoplayPlugin(dir));
            return app.run();
        }
        if let (Some(dir), Some(server)) = (args.online_tour, args.server) {
            if let Err(e) = std::fs::create_dir_all(&dir) {
                eprintln!("error: cannot create {}: {e}", dir.display());
                return AppExit::error();
            }
            // Its identity and seats stay in its folder too.
            let mut app = game_app(Some(&dir));
            app.insert_resource(khet::online::OnlineFiles {
                file: khet::online::seats::OnlineFile::default(),
                path: Some(dir.join("online.ron")),
            });
            app.add_plugins(khet::dev::OnlineTourPlugin { dir, server });
            return app.run();
        }
    }
    let _ = args;
    game_app(None).run()
}

/// The game's app; its settings and saved games live under `folder` if given, else in the
/// platform's folders (`$KHET_CONFIG`, `$KHET_DATA` override them).
fn game_app(folder: Option<&std::path::Path>) -> App {
    let mut app = App::new();
    let (settings, saves, progress) = match folder {
        Some(f) => (
            Some(khet::settings::SettingsFile::new(f.join("settings.ron"))),
            Some(khet::saves::SaveDir(f.join("games"))),
            Some(khet::learn::progress::ProgressFile(f.join("progress.ron"))),
        ),
        None => (
            khet::settings::SettingsFile::standard(),
            khet::saves::SaveDir::standard(),
            khet::learn::progress::ProgressFile::standard(),
        ),
    };
    if let Some(p) = progress {
        app.insert_resource(p);
    }
    if let Some(s) = settings {
        app.insert_resource(s);
    }
    if let Some(s) = saves {
        app.insert_resource(s);
    }
    // The models and sounds are built in; `$KHET_ASSETS` reads them from a folder instead.
    let origin = AssetOrigin::from_env();
    let mut assets = AssetPlugin::default();
    if let AssetOrigin::Folder(dir) = &origin {
        assets.file_path = dir.display().to_string();
    }
    app.insert_resource(origin);
    app.add_plugins(
        DefaultPlugins
            .set(WindowPlugin {
                primary_window: Some(khet::desktop::window()),
                ..default()
            })
            .set(assets),
    )
    .add_plugins((
        core_plugin,
        view_plugin,
        khet::desktop::plugin,
        khet::sound::SoundPlugin { device: true },
    ));
    // Each render pass's time on the GPU (or llvmpipe) in the log every second: how the
    // figures in `docs/performance.md`, *Frame times*, were taken.
    #[cfg(not(target_arch = "wasm32"))]
    if std::env::var_os("KHET_RENDER_DIAGNOSTICS").is_some() {
        app.add_plugins((
            bevy::render::diagnostic::RenderDiagnosticsPlugin,
            bevy::diagnostic::FrameTimeDiagnosticsPlugin::default(),
            bevy::diagnostic::LogDiagnosticsPlugin::default(),
        ));
    }
    app
}
