//! Games played on the table headless, for the tests of what lasts (`tests/lasting.rs`,
//! `tests/history_and_clocks.rs`) and of the table and its computer (`tests/headless.rs`,
//! `tests/computer.rs`): the app saving into a folder, the Classic setup and a casual game of it,
//! random legal moves that do not end the game, and the table's pieces checked against the
//! engine's.

use super::{game, headless_with, send};
use bevy::prelude::*;
use khet::saves::SaveDir;
use khet::table::MoveRequested;
use khet::table::pieces::{BoardPiece, Dying, OnSquare};
use std::path::Path;

pub fn classic(app: &App) -> khet_engine::Setup {
    app.world()
        .resource::<khet::setups::SetupLibrary>()
        .classic()
}

/// Starts a casual game of Classic with these players.
pub fn start(app: &mut App, players: [khet_engine::Player; 2]) {
    let setup = classic(app);
    send(
        app,
        khet::table::NewGameRequested(khet::table::NewGameSpec::casual(setup, players)),
    );
}

/// Plays `n` pseudo-random legal moves (fixed seed), avoiding moves that end the game.
pub fn play_random(app: &mut App, n: usize, mut seed: u64) {
    for _ in 0..n {
        let moves = moves_that_go_on(&game(app).game);
        if moves.is_empty() {
            return;
        }
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let mv = moves[(seed >> 33) as usize % moves.len()];
        send(app, MoveRequested(mv));
    }
}

/// The legal moves of `g` that do not end the game.
pub fn moves_that_go_on(g: &khet_engine::Game) -> Vec<khet_engine::Move> {
    g.legal_moves()
        .into_iter()
        .filter(|&mv| {
            let mut after = g.clone();
            after.play(mv).is_ok() && !after.is_over()
        })
        .collect()
}

pub fn entities_match(app: &mut App) {
    let mut q = app
        .world_mut()
        .query_filtered::<(&OnSquare, &BoardPiece), Without<Dying>>();
    let mut shown: Vec<_> = q.iter(app.world()).map(|(s, p)| (s.0, p.0)).collect();
    shown.sort_by_key(|(s, _)| *s);
    let engine: Vec<_> = game(app).game.position().pieces().collect();
    assert_eq!(shown, engine, "entities and engine disagree");
}

/// A headless app, animations instant, saving into `dir/games` if given.
pub fn app(dir: Option<&Path>) -> App {
    headless_with(0.0, |app| {
        if let Some(d) = dir {
            app.insert_resource(SaveDir(d.join("games")));
        }
    })
}
