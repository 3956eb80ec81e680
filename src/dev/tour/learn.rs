//! The tour's last part: a tutorial step missed (with its reason), a puzzle with its hint, the
//! setup editor with a problem marked, the fairness report, and a piece breaking; each but the
//! first with a picture before it to compare with.

use crate::dev::script::{Autoplay, Flow, STEP, game, idle, shoot, still, take_parked, when};
use crate::editor::fairness::{CheckFairness, Fairness};
use crate::editor::{Edit, Editor};
use crate::learn::lesson::{Lesson, LessonAction, LessonKind, PuzzleShelf, StartLesson, Verdict};
use crate::table::{MoveRequested, Phase, Show};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use khet_engine::fairness::Batch;
use khet_engine::{Color as Side, Diagonal, Piece, Square};

/// The tutorial step shown: the Scarab's swap, missed by a turn.
const MISSED_STEP: usize = 5;

/// The tutorial step whose solution breaks a piece: "Moving" (the beam hits c4).
const BREAK_STEP: usize = 1;

/// Whether nothing is being shown, no piece is still going away and nothing moves: a picture
/// to compare with waits for that.
fn settled(world: &mut World) -> bool {
    let mut dying = world.query_filtered::<(), With<crate::table::pieces::Dying>>();
    idle(world) && dying.iter(world).next().is_none() && still(world)
}

/// A picture to compare with, once the board has settled.
fn shoot_settled(world: &mut World, name: &str) -> Flow {
    if !settled(world) {
        return Flow::Stay;
    }
    shoot(world, name, "");
    Flow::After(2)
}

fn play(world: &mut World, mv: &str) {
    if let Ok(mv) = game(world).game.position().parse_move(mv) {
        world.write_message(MoveRequested(mv));
    }
}

pub fn tutorial(world: &mut World) -> Flow {
    world.write_message(StartLesson(LessonKind::Tutorial(MISSED_STEP)));
    Flow::After(4)
}

pub fn miss(world: &mut World) -> Flow {
    play(world, crate::learn::tutorial::STEPS[MISSED_STEP].misses);
    Flow::Next
}

pub fn missed(world: &mut World) -> Flow {
    let why = match world.get_resource::<Lesson>().map(|l| &l.verdict) {
        Some(Verdict::Missed(why)) if idle(world) => why.clone(),
        _ => return Flow::Stay,
    };
    shoot(world, "10-tutorial", &format!("missed {why}\n"));
    Flow::After(2)
}

pub fn puzzle(world: &mut World) -> Flow {
    let shelf = &world.resource::<PuzzleShelf>().0;
    let two = shelf.iter().position(|p| p.moves == 2).unwrap_or(0);
    world.write_message(StartLesson(LessonKind::Puzzle(two)));
    Flow::After(4)
}

pub fn puzzle_before(world: &mut World) -> Flow {
    shoot_settled(world, "11a-puzzle")
}

pub fn ask_hint(world: &mut World) -> Flow {
    world.write_message(LessonAction::Hint);
    Flow::After(6)
}

/// The hint; then on to the editor, long enough for its panel to settle at its width.
pub fn hinted(world: &mut World) -> Flow {
    let name = world.get_resource::<Lesson>().map(|l| l.kind);
    let hint = world
        .resource::<crate::table::ai::Hint>()
        .0
        .map(|(_, mv)| format!("hint {} {}\n", mv.from(), mv.to()))
        .unwrap_or_default();
    shoot(world, "11-puzzle", &format!("puzzle {name:?}\n{hint}"));
    crate::dev::script::go(world, crate::screen::Screen::Editor);
    Flow::After(8)
}

pub fn editor_before(world: &mut World) -> Flow {
    shoot_settled(world, "12a-editor")
}

/// A Silver Pyramid on a Red square (and, symmetric, its Red twin on a Silver one), then fired.
pub fn make_problem(world: &mut World) -> Flow {
    let a4: Square = "a4".parse().unwrap_or(Square::ALL[0]);
    world.write_message(Edit::Place(a4, Piece::pyramid(Side::Silver, Diagonal::NE)));
    world.write_message(Edit::Fire(Side::Silver));
    Flow::After(8)
}

/// The problems marked, once the strike's shake and flare are over.
pub fn problem(world: &mut World) -> Flow {
    if !still(world) {
        return Flow::Stay;
    }
    let problems: Vec<String> = world
        .resource::<Editor>()
        .problems
        .iter()
        .map(ToString::to_string)
        .collect();
    shoot(
        world,
        "12-editor",
        &format!("problems {}\n", problems.join(" | ")),
    );
    Flow::After(4)
}

pub fn undo(world: &mut World) -> Flow {
    world.write_message(Edit::Undo);
    Flow::After(4)
}

pub fn report_before(world: &mut World) -> Flow {
    if !still(world) {
        return Flow::Stay;
    }
    shoot(world, "13a-editor", "");
    Flow::After(2)
}

pub fn ask_fairness(world: &mut World) -> Flow {
    let board = world.resource::<Editor>().board;
    world.write_message(CheckFairness {
        batch: Batch {
            games: 4,
            max_plies: 60,
        },
        board,
    });
    Flow::After(2)
}

/// The report, kept for the picture taken once it is drawn.
pub fn fairness(world: &mut World) -> Flow {
    let Fairness::Done { report, .. } = world.resource::<Fairness>() else {
        return Flow::Stay;
    };
    let note = format!(
        "fair games {} score {:.2} margin {:.2}\n",
        report.games, report.silver_score, report.margin
    );
    world.resource_mut::<Autoplay>().parked = Some(note);
    Flow::After(3)
}

pub fn fairness_shot(world: &mut World) -> Flow {
    let note = take_parked(world);
    shoot(world, "13-fairness", &note);
    Flow::Next
}

/// A piece breaking: the tutorial's "Moving" step, to be solved (its beam hits c4); the frame
/// after the report's picture.
pub fn break_lesson(world: &mut World) -> Flow {
    world.write_message(StartLesson(LessonKind::Tutorial(BREAK_STEP)));
    Flow::After(4)
}

/// Before the move: the piece whole on c4, to compare with.
pub fn break_before(world: &mut World) -> Flow {
    shoot_settled(world, "14a-break-before")
}

/// The animations on fixed steps a frame before the move (as for the game's beam).
pub fn break_steps(world: &mut World) -> Flow {
    world.insert_resource(TimeUpdateStrategy::ManualDuration(STEP));
    Flow::Next
}

pub fn break_move(world: &mut World) -> Flow {
    play(world, crate::learn::tutorial::STEPS[BREAK_STEP].intended);
    Flow::Next
}

/// The shards in the air, a few frames after the hit.
pub fn breaking(world: &mut World) -> Flow {
    let flying = matches!(
        world.resource::<Show>().phase,
        Phase::Lingering { elapsed } if elapsed >= 0.15
    );
    if flying {
        shoot(world, "14-break", "");
        world.insert_resource(TimeUpdateStrategy::Automatic);
    }
    when(flying)
}
