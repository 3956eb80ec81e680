//! `khet --bench-frames`: the CPU time of `app.update()` over a scripted game (pseudo-random
//! legal moves at normal animation speed, 60 simulated frames a second) in the headless app,
//! median and 99th percentile, with Bevy's multi-threaded executor (as the game runs) and a
//! single-threaded one (the game's own work without the cost of waking worker threads).

use crate::core_plugin;
use crate::settings::Settings;
use crate::table::{Match, MoveRequested, Show};
use bevy::ecs::schedule::SingleThreadedExecutor;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use khet_engine::Rng;
use std::time::{Duration, Instant};

/// Both executors, one line each.
pub fn bench_frames() {
    bench_frames_with(false);
    bench_frames_with(true);
}

fn bench_frames_with(single_threaded: bool) {
    let mut app = App::new();
    app.add_plugins(MinimalPlugins).add_plugins(core_plugin);
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
    let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
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
                rng.pick(&game.game.legal_moves())
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
