//! Khet in 3D. `cargo run --release` opens the game.
//!
//! Built with the `dev` feature (as `cargo test` builds it), `khet --autoplay DIR` plays a
//! scripted tour and saves screenshots into DIR (the end-to-end test), and `khet --bench-frames`
//! measures CPU frame times of a scripted game in the headless app.

use bevy::prelude::*;
use khet::{CorePlugin, ViewPlugin};

fn main() -> AppExit {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => game_app(None).run(),
        #[cfg(feature = "dev")]
        Some("--bench-frames") => {
            khet::dev::bench::bench_frames();
            AppExit::Success
        }
        #[cfg(feature = "dev")]
        Some("--autoplay") => {
            let Some(dir) = args.get(1) else {
                eprintln!("error: --autoplay needs a folder for the screenshots");
                return AppExit::error();
            };
            if let Err(e) = std::fs::create_dir_all(dir) {
                eprintln!("error: cannot create {dir}: {e}");
                return AppExit::error();
            }
            // The script's games and settings stay in its folder, away from the player's.
            let dir = std::path::PathBuf::from(dir);
            let mut app = game_app(Some(&dir));
            app.add_plugins(khet::dev::AutoplayPlugin(dir));
            app.run()
        }
        Some(other) => {
            eprintln!("error: unknown argument '{other}' (the game takes none)");
            AppExit::error()
        }
    }
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
    app.add_plugins(DefaultPlugins.set(WindowPlugin {
        primary_window: Some(Window {
            title: "Khet — the laser game".into(),
            resolution: (1280, 800).into(),
            ..default()
        }),
        ..default()
    }))
    .add_plugins((
        CorePlugin,
        ViewPlugin,
        khet::sound::SoundPlugin { device: true },
    ));
    // Each render pass's time on the GPU (or llvmpipe) in the log every second: how the
    // figures in the README's *Frame rates* were taken.
    if std::env::var_os("KHET_RENDER_DIAGNOSTICS").is_some() {
        app.add_plugins((
            bevy::render::diagnostic::RenderDiagnosticsPlugin,
            bevy::diagnostic::FrameTimeDiagnosticsPlugin::default(),
            bevy::diagnostic::LogDiagnosticsPlugin::default(),
        ));
    }
    app
}
