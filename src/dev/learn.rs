//! The last part of the scripted run: a tutorial step missed (with its reason), a puzzle with
//! its hint, the setup editor with a problem marked, the fairness report, and a piece breaking.

use super::script::{Autoplay, finish, shoot};
use crate::editor::fairness::{CheckFairness, Fairness};
use crate::editor::{Edit, Editor};
use crate::learn::lesson::{Lesson, LessonAction, LessonKind, PuzzleShelf, StartLesson, Verdict};
use crate::table::{Match, MoveRequested, Phase, Show};
use bevy::ecs::system::SystemParam;
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use khet_engine::fairness::Batch;
use khet_engine::{Color as Side, Diagonal, Piece, Square};

/// What the last part reads and writes besides the run's own state.
#[derive(SystemParam)]
pub struct Learn<'w, 's> {
    m: Option<Res<'w, Match>>,
    show: Res<'w, Show>,
    lesson: Option<Res<'w, Lesson>>,
    shelf: Res<'w, PuzzleShelf>,
    editor: Res<'w, Editor>,
    fairness: Res<'w, Fairness>,
    start: MessageWriter<'w, StartLesson>,
    lesson_actions: MessageWriter<'w, LessonAction>,
    moves: MessageWriter<'w, MoveRequested>,
    edits: MessageWriter<'w, Edit>,
    fair: MessageWriter<'w, CheckFairness>,
    go: ResMut<'w, NextState<crate::screen::Screen>>,
    camera: crate::board::BoardOnScreen<'w, 's>,
}

/// The tutorial step shown: the Scarab's swap, missed by a turn.
const STEP: usize = 5;

/// The tutorial step whose solution breaks a piece: "Moving" (the beam hits c4).
const BREAK_STEP: usize = 1;

pub fn learn(
    mut auto: ResMut<Autoplay>,
    mut commands: Commands,
    mut exit: MessageWriter<AppExit>,
    mut l: Learn,
) {
    if auto.step < 19 || auto.wait > 0 {
        return;
    }
    let auto = &mut *auto;
    let commands = &mut commands;
    let idle = l.show.phase == Phase::Idle;
    let Some(m) = l.m.as_deref() else { return };
    match auto.step {
        19 => {
            l.start.write(StartLesson(LessonKind::Tutorial(STEP)));
            auto.step = 20;
            auto.wait = 4;
        }
        20 => {
            let step = &crate::learn::tutorial::STEPS[STEP];
            if let Ok(mv) = m.game.position().parse_move(step.misses) {
                l.moves.write(MoveRequested(mv));
            }
            auto.step = 21;
        }
        21 => {
            if let Some(Verdict::Missed(why)) = l.lesson.as_ref().map(|x| &x.verdict)
                && idle
            {
                shoot(auto, "10-tutorial", format!("missed {why}\n"), commands);
                auto.step = 22;
                auto.wait = 2;
            }
        }
        22 => {
            let two = l.shelf.0.iter().position(|p| p.moves == 2).unwrap_or(0);
            l.start.write(StartLesson(LessonKind::Puzzle(two)));
            auto.step = 23;
            auto.wait = 4;
        }
        23 => {
            l.lesson_actions.write(LessonAction::Hint);
            auto.step = 24;
            auto.wait = 6;
        }
        24 => {
            let name = l.lesson.as_ref().map(|x| x.kind);
            shoot(auto, "11-puzzle", format!("puzzle {name:?}\n"), commands);
            l.go.set(crate::screen::Screen::Editor);
            auto.step = 25;
            auto.wait = 3;
        }
        25 => {
            // A Silver Pyramid on a Red square (and, symmetric, its Red twin on a Silver one).
            let a4: Square = "a4".parse().unwrap_or(Square::ALL[0]);
            l.edits
                .write(Edit::Place(a4, Piece::pyramid(Side::Silver, Diagonal::NE)));
            l.edits.write(Edit::Fire(Side::Silver));
            auto.step = 26;
            auto.wait = 8;
        }
        26 => {
            let problems: Vec<String> = l.editor.problems.iter().map(ToString::to_string).collect();
            let squares: Vec<String> = l
                .editor
                .problems
                .iter()
                .flat_map(khet_engine::Problem::squares)
                .map(|s| s.to_string())
                .collect();
            let note = format!(
                "problems {}\nsquares {}\n",
                problems.join(" | "),
                squares.join(" ")
            );
            shoot(auto, "12-editor", note, commands);
            auto.step = 27;
            auto.wait = 4;
        }
        27 => {
            l.edits.write(Edit::Undo);
            auto.step = 28;
            auto.wait = 2;
        }
        28 => {
            l.fair.write(CheckFairness {
                batch: Batch {
                    games: 4,
                    max_plies: 60,
                },
                board: l.editor.board,
            });
            auto.step = 29;
            auto.wait = 2;
        }
        29 => {
            if let Fairness::Done { report, .. } = &*l.fairness {
                let note = format!(
                    "fair games {} score {:.2} margin {:.2}\n",
                    report.games, report.silver_score, report.margin
                );
                shoot(auto, "13-fairness", note, commands);
                auto.step = 30;
            }
        }
        30 => {
            // A piece breaking: the tutorial's "Moving" step, solved (its beam hits c4).
            l.start.write(StartLesson(LessonKind::Tutorial(BREAK_STEP)));
            auto.step = 31;
            auto.wait = 4;
        }
        31 => {
            let step = &crate::learn::tutorial::STEPS[BREAK_STEP];
            if let Ok(mv) = m.game.position().parse_move(step.intended) {
                l.moves.write(MoveRequested(mv));
            }
            commands.insert_resource(TimeUpdateStrategy::ManualDuration(super::script::STEP));
            auto.step = 32;
        }
        32 => {
            // The shards in the air, a few frames after the hit.
            if let Phase::Lingering { elapsed } = l.show.phase
                && elapsed >= 0.15
            {
                // Where the broken piece stood, on screen.
                let c4 = crate::board::square_center("c4".parse().unwrap_or(Square::ALL[0]))
                    + Vec3::Y * crate::board::BEAM_HEIGHT;
                let note = l.camera.to_window(c4).map_or_else(String::new, |p| {
                    format!("square c4 {:.1} {:.1}\n", p.x, p.y)
                });
                shoot(auto, "14-break", note, commands);
                commands.insert_resource(TimeUpdateStrategy::Automatic);
                auto.step = 33;
                auto.wait = 2;
            }
        }
        _ => finish(auto, &mut exit),
    }
}
