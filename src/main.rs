//! Khet in 3D. `cargo run --release` opens the game.
//!
//! `khet --autoplay DIR` plays a scripted opening and saves screenshots into DIR (the end-to-end
//! test); `khet --bench-frames` measures CPU frame times of a scripted game in the headless app.

use bevy::ecs::schedule::SingleThreadedExecutor;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use khet::settings::Settings;
use khet::state::{Match, MoveRequested, Show};
use khet::{CorePlugin, ViewPlugin};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn main() -> AppExit {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--bench-frames") => {
            bench_frames();
            AppExit::Success
        }
        Some("--bench-fairness") => {
            bench_fairness(args.get(1).map_or("khet2/classic", String::as_str))
        }
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
            let dir = PathBuf::from(dir);
            let mut app = game_app(Some(&dir));
            app.add_plugins(khet::autoplay::AutoplayPlugin(dir));
            app.run()
        }
        Some(other) => {
            eprintln!(
                "error: unknown argument '{other}' (known: --autoplay DIR, --bench-frames, --bench-fairness [SETUP])"
            );
            AppExit::error()
        }
        None => game_app(None).run(),
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
            Some(khet::progress::ProgressFile(f.join("progress.ron"))),
        ),
        None => (
            khet::settings::SettingsFile::standard(),
            khet::saves::SaveDir::standard(),
            khet::progress::ProgressFile::standard(),
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

/// CPU time of `app.update()` over a scripted game (pseudo-random legal moves at normal
/// animation speed, 60 simulated frames a second) in the headless app: median and 99th
/// percentile, with Bevy's multi-threaded executor (as the game runs) and a single-threaded one
/// (the game's own work without the cost of waking worker threads).
fn bench_frames() {
    bench_frames_with(false);
    bench_frames_with(true);
}

fn bench_frames_with(single_threaded: bool) {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins).add_plugins(CorePlugin);
    if single_threaded {
        app.edit_schedule(Update, |s| {
            s.set_executor(SingleThreadedExecutor::new());
        });
    }
    let kind = if single_threaded {
        "single-threaded"
    } else {
        "multi-threaded"
    };
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
        16,
    )));
    app.update();
    let mut times = Vec::new();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut plies = 0;
    for _ in 0..20_000 {
        let next = {
            let world = app.world();
            let idle = world.resource::<Show>().is_idle();
            let game = world.resource::<Match>();
            if game.game.is_over() || plies >= 150 {
                break;
            }
            if idle {
                let moves = game.game.legal_moves();
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                moves
                    .get((seed % moves.len().max(1) as u64) as usize)
                    .copied()
            } else {
                None
            }
        };
        if let Some(mv) = next {
            app.world_mut().write_message(MoveRequested(mv));
            plies += 1;
        }
        let t = Instant::now();
        app.update();
        times.push(t.elapsed().as_secs_f64() * 1e6);
    }
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
    let speed = app.world().resource::<Settings>().speed;
    println!(
        "headless frames, {kind} executor: {} frames over {plies} plies (animation speed {speed}): median {:.1} µs, p99 {:.1} µs, max {:.1} µs",
        times.len(),
        pct(0.5),
        pct(0.99),
        pct(1.0)
    );
}

/// The editor's "Is it fair?" batch (32 games of at most 150 plies) from a built-in setup,
/// timed, on this thread.
fn bench_fairness(name: &str) -> AppExit {
    let setup = match khet_engine::Setup::builtin(name) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return AppExit::error();
        }
    };
    let started = std::time::Instant::now();
    let done = std::sync::atomic::AtomicU32::new(0);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let batch = khet::fairness::Batch::default();
    let r = khet::fairness::measure(setup.position, batch, &done, &stop);
    println!(
        "{name}: {} games in {:.1} s; Silver {:.0} % ± {:.0} (+{} ={} -{}), {:.0} plies on average, {} decided by ply 12, perft(1) {} perft(2) {}",
        r.games,
        started.elapsed().as_secs_f64(),
        100.0 * r.silver_score,
        100.0 * r.margin,
        r.silver_wins,
        r.draws,
        r.red_wins,
        r.mean_plies,
        r.decided_early,
        r.perft1,
        r.perft2
    );
    AppExit::Success
}
