//! `khet --autoplay DIR`: the scripted tour of the real window that the end-to-end test
//! (`tests/e2e.rs`) judges, and the frames-per-second figure. It plays through the same messages
//! the mouse writes and saves screenshots, each with a note beside it saying where the board's
//! squares are on screen and what the script did: a game to a lit Pharaoh, then the other
//! screens, then learning and inventing.
//!
//! The whole tour is [`TOUR`], one ordered list; adding a picture is adding steps there (and a
//! row in the test's table of pictures).

mod game;
mod learn;
mod screens;

use super::script::{Autoplay, Flow, Step, interpret, nothing};
use bevy::prelude::*;
use std::path::PathBuf;

pub struct AutoplayPlugin(pub PathBuf);

impl Plugin for AutoplayPlugin {
    fn build(&self, app: &mut App) {
        super::broken::plugin(app);
        super::script::keep_drawing(app);
        app.insert_resource(Autoplay::new(self.0.clone()))
            // The scripted run is not a first start: no tutorial offer over the board. Its
            // pictures are taken at High quality unless KHET_AUTOPLAY_QUALITY says otherwise
            // (auto, low, medium), to measure the frame rate of each preset.
            .add_systems(
                Startup,
                |mut offer: ResMut<crate::learn::progress::TutorialOffer>,
                 mut settings: ResMut<crate::settings::Settings>| {
                    offer.0 = false;
                    settings.quality = quality_from_env();
                    // Pictures compared with references: the camera's shake, a jitter of a pixel or two
                    // that depends on the very frame a picture is taken in, is off.
                    settings.camera_shake = false;
                },
            )
            .add_systems(
                Update,
                (|world: &mut World| interpret(world, TOUR, nothing)).in_set(crate::GameSet::Input),
            );
    }
}

pub(super) fn quality_from_env() -> crate::settings::Quality {
    use crate::settings::Quality;
    match std::env::var("KHET_AUTOPLAY_QUALITY").as_deref() {
        Ok("auto") => Quality::Auto,
        Ok("low") => Quality::Low,
        Ok("medium") => Quality::Medium,
        _ => Quality::High,
    }
}

const fn step(what: &'static str, run: fn(&mut World) -> Flow) -> Step {
    Step { what, run }
}

/// The tour, in order. Pictures are named by their step's `what`'s first word where they are
/// taken (`01-initial` …); the ones ending in `a`/`b` are the pictures before, to compare with.
pub const TOUR: &[Step] = &[
    // A game: Silver's move by clicks, its beam, Red's reply lighting Silver's Pharaoh.
    step("the window and the board drawn, 30 frames", game::settle),
    step("01-initial: the board at the start", game::initial),
    step("a click on the first move's piece", game::click_piece),
    step(
        "02-selected: the piece selected, its moves marked",
        game::selected,
    ),
    step("the animations on fixed steps", game::fixed_steps),
    step(
        "the click on the first move's destination",
        game::click_destination,
    ),
    step("03-beam: Silver's beam mid-flight", game::beam),
    step("Silver's beam ended", game::beam_ended),
    step(
        "03b-pharaoh-before: Red's beam short of the Pharaoh",
        game::pharaoh_before,
    ),
    step(
        "03c-pharaoh-lit: the lit Pharaoh's light",
        game::pharaoh_lit,
    ),
    step("the game over and its show ended", game::over),
    step("04-gameover: the game-over window", game::game_over),
    step("KHET_AUTOPLAY_SHORT=1 ends the run here", game::short),
    // The other screens.
    step("the replay opened, with the analysis", screens::replay),
    step("the replay on the Replay screen", screens::to_move_one),
    step("the analysis of move 1", screens::analysed),
    step("05-replay: the replay at move 1", screens::replay_shot),
    step("06-open: the saved games", screens::open),
    step("07-settings: the settings", screens::settings),
    step(
        "a game with clocks against the computer",
        screens::clock_game,
    ),
    step("Silver's move in a game with clocks", screens::clock_move),
    step("the computer's reply", screens::replied),
    step("08-clock: the clocks", screens::clock),
    step("the running clock 1.2 s later", screens::clock_later),
    step(
        "08b-clock-later: the clocks again",
        screens::clock_later_shot,
    ),
    step(
        "08c-new-atlas: a new font atlas and the first frame drawn from it, the clocks held at \
         4:44 and 4:33",
        screens::new_atlas,
    ),
    step(
        "08d-atlas-later: the same a few frames later",
        screens::atlas_later_shot,
    ),
    step(
        "a piece picked up, the pointer on the panel",
        screens::pick_up,
    ),
    step(
        "09a-no-aim: the piece picked up, aimed nowhere",
        screens::no_aim,
    ),
    step("the aim at a destination", screens::aim),
    step("09-preview: the laser preview", screens::preview),
    // Learning and inventing.
    step("the tutorial's Scarab step", learn::tutorial),
    step("the tutorial step's missing move", learn::miss),
    step("10-tutorial: the miss and its reason", learn::missed),
    step("a two-move puzzle", learn::puzzle),
    step(
        "11a-puzzle: the puzzle before its hint",
        learn::puzzle_before,
    ),
    step("the hint asked for", learn::ask_hint),
    step("11-puzzle: the hint", learn::hinted),
    step("12a-editor: the editor", learn::editor_before),
    step("a problem put on the board", learn::make_problem),
    step("12-editor: the problem marked", learn::problem),
    step("the problem undone", learn::undo),
    step(
        "13a-editor: the editor before the report",
        learn::report_before,
    ),
    step("the fairness report asked for", learn::ask_fairness),
    step("the fairness report", learn::fairness),
    step("13-fairness: the report", learn::fairness_shot),
    step("the tutorial's Moving step", learn::break_lesson),
    step(
        "14a-break-before: the Pyramid whole on c4",
        learn::break_before,
    ),
    step("the animations on fixed steps", learn::break_steps),
    step("the move that breaks it", learn::break_move),
    step("14-break: the Pyramid breaking", learn::breaking),
];
