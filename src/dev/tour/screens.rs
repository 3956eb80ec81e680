//! The tour's other screens: the replay with the engine's analysis, the saved games (with a
//! damaged file among them), the settings, a game with clocks, and the laser preview.

use crate::dev::script::{
    Autoplay, Flow, ON_THE_PANEL, game, go, idle, point, shoot, still, take_parked, when,
};
use crate::replay::{Analysis, AutoPlay, Step};
use crate::screen::Screen;
use crate::setups::SetupLibrary;
use crate::table::clock::Clocks;
use crate::table::laser_preview::{Aim, LaserPreview};
use crate::table::selection::SquareClicked;
use crate::table::{MoveRequested, NewGameRequested, NewGameSpec, Watch};
use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_egui::{EguiContexts, egui};
use khet_engine::{Move, Player, TimeControl};
use std::time::Duration;

/// The game just played opened in the replay, with the analysis on; and a damaged file among
/// the saved games, to be listed with its reason on the next screen.
pub fn replay(world: &mut World) -> Flow {
    let games = world.resource::<Autoplay>().dir.join("games");
    let _ = std::fs::create_dir_all(&games);
    let _ = std::fs::write(games.join("damaged.ron"), "Record(\n    start: \"x33a3ka");
    let m = game(world);
    let watch = Watch {
        game: m.game.clone(),
        name: m.setup_name.clone(),
        back_to: None,
    };
    world.write_message(watch);
    let mut analysis = world.resource_mut::<Analysis>();
    analysis.enabled = true;
    // The depth the reference picture's best line was found at, on any machine.
    analysis.depth = Some(9);
    Flow::After(3)
}

/// Move 1, held there: the replay plays on by itself from where it opens, a step every 0.6 s of
/// the machine's time, which would make the pictures after it depend on the machine's speed.
pub fn to_move_one(world: &mut World) -> Flow {
    let on = *world.resource::<State<Screen>>().get() == Screen::Replay;
    if on {
        world.resource_mut::<AutoPlay>().playing = false;
        world.write_message(Step::To(1));
    }
    when(on)
}

/// The analysis of move 1, kept for the picture taken once the bar and the move are drawn.
pub fn analysed(world: &mut World) -> Flow {
    let found = world
        .resource::<Analysis>()
        .found
        .as_ref()
        .filter(|f| f.ply == 1 && game(world).game.turns().len() == 1)
        .map(|f| {
            format!(
                "analysis {} best {}\n",
                f.silver_score,
                f.best.map(|b| b.to_string()).unwrap_or_default()
            )
        });
    match found {
        Some(note) if idle(world) => {
            world.resource_mut::<Autoplay>().parked = Some(note);
            Flow::After(8)
        }
        _ => Flow::Stay,
    }
}

pub fn replay_shot(world: &mut World) -> Flow {
    let note = take_parked(world);
    shoot(world, "05-replay", &note);
    go(world, Screen::Open);
    Flow::After(6)
}

/// The saved games, once the board behind has stopped moving (the replay's pieces go back to
/// the game's end).
pub fn open(world: &mut World) -> Flow {
    if !still(world) {
        return Flow::Stay;
    }
    let games = &world.resource::<crate::saves::SavedGames>().0;
    let damaged = games.iter().filter(|e| e.game.is_err()).count();
    let note = format!("games {} damaged {damaged}\n", games.len());
    shoot(world, "06-open", &note);
    go(world, Screen::Settings);
    Flow::After(6)
}

pub fn settings(world: &mut World) -> Flow {
    if !still(world) {
        return Flow::Stay;
    }
    shoot(world, "07-settings", "");
    Flow::Next
}

/// A game against the computer with clocks of 5 minutes and 3 seconds: a step of its own, the
/// frame after the picture, which would otherwise show the new game's first frame.
pub fn clock_game(world: &mut World) -> Flow {
    let classic = world.resource::<SetupLibrary>().classic();
    let mut spec = NewGameSpec::casual(
        classic,
        [Player::Person, Player::Computer(khet_engine::Level::Casual)],
    );
    spec.clock = Some(TimeControl::new(5, 3));
    world.write_message(NewGameRequested(spec));
    go(world, Screen::Playing);
    Flow::After(5)
}

pub fn clock_move(world: &mut World) -> Flow {
    if let Ok(mv) = game(world).game.position().parse_move("h2h3") {
        world.write_message(MoveRequested(mv));
    }
    Flow::Next
}

pub fn replied(world: &mut World) -> Flow {
    if game(world).game.turns().len() >= 2 && idle(world) {
        Flow::After(5)
    } else {
        Flow::Stay
    }
}

fn running_clock(world: &World) -> Option<Duration> {
    let side = game(world).game.side_to_move();
    world.get_resource::<Clocks>().map(|c| c.left(side))
}

pub fn clock(world: &mut World) -> Flow {
    shoot(world, "08-clock", "");
    world.resource_mut::<Autoplay>().mark = running_clock(world);
    Flow::Next
}

/// The running clock a second and more later: its face shows another time (taken two frames
/// on, so that both clocks have been drawn at the new time).
pub fn clock_later(world: &mut World) -> Flow {
    let later = match (world.resource::<Autoplay>().mark, running_clock(world)) {
        (Some(then), Some(now)) => then.saturating_sub(now) >= Duration::from_millis(1200),
        _ => false,
    };
    if later { Flow::After(2) } else { Flow::Stay }
}

pub fn clock_later_shot(world: &mut World) -> Flow {
    shoot(world, "08b-clock-later", "");
    Flow::Next
}

/// The clocks' faces held at 4:44 and 4:33 (the running one set again each time, so that it
/// stays there for a second) for the two pictures of a new font atlas.
fn hold_clocks(world: &mut World) {
    if let Some(mut clocks) = world.get_resource_mut::<Clocks>() {
        clocks.remaining = [
            Duration::from_millis(284_990),
            Duration::from_millis(273_990),
        ];
    }
}

/// egui starts a new font atlas, as it does when its atlas is almost full, and the picture is
/// taken of that very frame: the first to draw every glyph from the new atlas, so every text
/// must be drawn as in the frames after it (issue 60, where a clock was once drawn without its
/// last digit). The fonts are egui's own, with one more family that nothing uses, so that egui
/// takes them for new ones; they apply in this frame's pass, after this step.
pub fn new_atlas(world: &mut World) -> Flow {
    hold_clocks(world);
    let _ = world.run_system_once(|mut contexts: EguiContexts| {
        let mut fonts = egui::FontDefinitions::default();
        let proportional = fonts.families[&egui::FontFamily::Proportional].clone();
        fonts
            .families
            .insert(egui::FontFamily::Name("tour".into()), proportional);
        if let Ok(ctx) = contexts.ctx_mut() {
            ctx.set_fonts(fonts);
        }
    });
    shoot(world, "08c-new-atlas", "");
    Flow::After(3)
}

pub fn atlas_later_shot(world: &mut World) -> Flow {
    hold_clocks(world);
    shoot(world, "08d-atlas-later", "");
    Flow::Next
}

/// A piece picked up for the laser preview, and the pointer on the side panel, so that it aims
/// at nothing yet.
pub fn pick_up(world: &mut World) -> Flow {
    let step = game(world)
        .game
        .legal_moves()
        .into_iter()
        .find(|mv| matches!(mv, Move::Step { .. }));
    if let Some(mv) = step {
        world.write_message(SquareClicked(mv.from()));
        world.resource_mut::<Autoplay>().plan = Some((mv, mv));
    }
    point(world, ON_THE_PANEL);
    Flow::After(6)
}

/// The square of the piece picked up, for its pictures' notes.
fn picked(world: &World) -> String {
    world
        .resource::<Autoplay>()
        .plan
        .map(|(mv, _)| format!("selected {}\n", mv.from()))
        .unwrap_or_default()
}

pub fn no_aim(world: &mut World) -> Flow {
    let note = picked(world);
    shoot(world, "09a-no-aim", &note);
    Flow::After(2)
}

/// Aimed only once the picture without the preview is taken.
pub fn aim(world: &mut World) -> Flow {
    let to = world.resource::<Autoplay>().plan.map(|(mv, _)| mv.to());
    world.resource_mut::<Aim>().square = to;
    Flow::After(6)
}

pub fn preview(world: &mut World) -> Flow {
    let note = match &world.resource::<LaserPreview>().0 {
        Some((mv, shot)) => {
            let path: Vec<String> = shot.squares().iter().map(ToString::to_string).collect();
            format!(
                "preview {mv} hits {}\npath {}\n",
                shot.hits.len(),
                path.join(" ")
            )
        }
        None => "preview none\n".into(),
    } + &picked(world);
    shoot(world, "09-preview", &note);
    Flow::Next
}
