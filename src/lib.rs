//! Khet in 3D: a thin ECS layer over the engine crate, which alone knows the rules.
//!
//! One folder per feature, each with its plugin and its own `ui/`:
//! - [`table`]: the match at the table (the specification, the turn flow, the show, selection,
//!   clocks, the computer, pieces, the shot's cues, the laser preview);
//! - [`learn`]: tutorial, lessons and puzzles, progress; [`editor`]: the setup editor;
//!   [`replay`]: replays and analysis; [`saves`]: saved games; [`online`]: online play;
//! - [`stage`]: what draws the board; [`theme`]: egui layout and shared widgets;
//! - leaves every feature may use: [`schedule`] ([`GameSet`]), [`screen`], [`news`],
//!   [`settings`], [`board`], [`files`], [`setups`], [`frames`] (draw only when something
//!   changes), [`offload`] (work away from the frame); and [`sound`];
//! - `dev`: the scripted tour and the frame benchmark, only with the `dev` feature.
//!
//! [`core_plugin`] is the game without drawing: it runs headless (`MinimalPlugins`), which is how
//! the tests drive whole games. [`view_plugin`] adds what a player sees and does.

use bevy::prelude::*;

pub mod board;
pub mod built_in;
pub mod desktop;
#[cfg(feature = "dev")]
pub mod dev;
pub mod editor;
pub mod files;
pub mod frames;
pub mod keys;
pub mod learn;
pub mod news;
pub mod offload;
pub mod online;
pub mod replay;
pub mod saves;
pub mod schedule;
pub mod screen;
pub mod settings;
pub mod setups;
pub mod sound;
pub mod stage;
pub mod table;
pub mod theme;

pub use schedule::GameSet;

/// The game without any drawing: state, rules (through the engine), entities. One of the crate's
/// two entry points, with [`view_plugin`]: `main.rs` adds both, the headless tests this one.
pub fn core_plugin(app: &mut App) {
    schedule::plugin(app);
    screen::plugin(app);
    frames::plugin(app);
    settings::plugin(app);
    news::plugin(app);
    setups::plugin(app);
    table::plugin(app);
    learn::plugin(app);
    saves::plugin(app);
    replay::plugin(app);
    editor::plugin(app);
    online::plugin(app);
}

/// What a player sees and does: the board drawn, and every feature's panels.
pub fn view_plugin(app: &mut App) {
    app.add_plugins(bevy_egui::EguiPlugin::default());
    stage::plugin(app);
    theme::plugin(app);
    news::ui::plugin(app);
    table::ui::plugin(app);
    learn::ui::plugin(app);
    editor::ui::plugin(app);
    replay::ui::plugin(app);
    saves::ui::plugin(app);
    settings::ui::plugin(app);
    online::ui::plugin(app);
}

/// Does the job named `name`, given as text, and gives its answer as text ([`offload`]): what
/// the browser build's worker runs for the page. Every kind of job is in this table.
pub fn think(name: &str, job: &str) -> Result<String, String> {
    use offload::{Job, answer};
    match name {
        table::ai::Decide::NAME => answer::<table::ai::Decide>(job),
        replay::Analyse::NAME => answer::<replay::Analyse>(job),
        editor::fairness::Play::NAME => answer::<editor::fairness::Play>(job),
        learn::lesson::FindWin::NAME => answer::<learn::lesson::FindWin>(job),
        learn::lesson::Defend::NAME => answer::<learn::lesson::Defend>(job),
        offload::Measure::NAME => answer::<offload::Measure>(job),
        _ => Err(format!("no such job: {name}")),
    }
}
