//! The last part of the scripted run: a tutorial step missed (with its reason), a puzzle with
//! its hint, the setup editor with a problem marked, the fairness report, and a piece breaking;
//! each but the first with a picture before it to compare with.

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
    hint: Res<'w, crate::table::ai::Hint>,
    /// Pieces still going away: a picture to compare with waits until none is left.
    dying: Query<'w, 's, (), With<crate::table::pieces::Dying>>,
    board: super::script::BoardNote<'w, 's>,
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
    if auto.step < 22 || auto.wait > 0 {
        return;
    }
    let auto = &mut *auto;
    let commands = &mut commands;
    let idle = l.show.phase == Phase::Idle;
    let Some(m) = l.m.as_deref() else { return };
    match auto.step {
        22 => {
            l.start.write(StartLesson(LessonKind::Tutorial(STEP)));
            auto.step = 23;
            auto.wait = 4;
        }
        23 => {
            let step = &crate::learn::tutorial::STEPS[STEP];
            if let Ok(mv) = m.game.position().parse_move(step.misses) {
                l.moves.write(MoveRequested(mv));
            }
            auto.step = 24;
        }
        24 => {
            if let Some(Verdict::Missed(why)) = l.lesson.as_ref().map(|x| &x.verdict)
                && idle
            {
                shoot(auto, "10-tutorial", format!("missed {why}\n"), commands);
                auto.step = 25;
                auto.wait = 2;
            }
        }
        25 => {
            let two = l.shelf.0.iter().position(|p| p.moves == 2).unwrap_or(0);
            l.start.write(StartLesson(LessonKind::Puzzle(two)));
            auto.step = 26;
            auto.wait = 4;
        }
        26 => {
            if idle && l.dying.is_empty() {
                // The puzzle before its hint, to compare with.
                shoot(auto, "11a-puzzle", l.board.note(), commands);
                auto.step = 27;
                auto.wait = 2;
            }
        }
        27 => {
            l.lesson_actions.write(LessonAction::Hint);
            auto.step = 28;
            auto.wait = 6;
        }
        28 => {
            let name = l.lesson.as_ref().map(|x| x.kind);
            let hint = l
                .hint
                .0
                .map(|(_, mv)| format!("hint {} {}\n", mv.from(), mv.to()))
                .unwrap_or_default();
            let note = format!("puzzle {name:?}\n{hint}") + &l.board.note();
            shoot(auto, "11-puzzle", note, commands);
            l.go.set(crate::screen::Screen::Editor);
            auto.step = 29;
            // Long enough for the editor's panel to settle at its width.
            auto.wait = 8;
        }
        29 => {
            if idle && l.dying.is_empty() {
                // The editor before the problem, to compare with.
                shoot(auto, "12a-editor", l.board.note(), commands);
                auto.step = 30;
                auto.wait = 2;
            }
        }
        30 => {
            // A Silver Pyramid on a Red square (and, symmetric, its Red twin on a Silver one).
            let a4: Square = "a4".parse().unwrap_or(Square::ALL[0]);
            l.edits
                .write(Edit::Place(a4, Piece::pyramid(Side::Silver, Diagonal::NE)));
            l.edits.write(Edit::Fire(Side::Silver));
            auto.step = 31;
            auto.wait = 8;
        }
        31 => {
            let problems: Vec<String> = l.editor.problems.iter().map(ToString::to_string).collect();
            let note = format!("problems {}\n", problems.join(" | ")) + &l.board.note();
            shoot(auto, "12-editor", note, commands);
            auto.step = 32;
            auto.wait = 4;
        }
        32 => {
            l.edits.write(Edit::Undo);
            auto.step = 33;
            auto.wait = 4;
        }
        33 => {
            // The editor's panel before the fairness report, to compare with.
            shoot(auto, "13a-editor", String::new(), commands);
            auto.step = 34;
            auto.wait = 2;
        }
        34 => {
            l.fair.write(CheckFairness {
                batch: Batch {
                    games: 4,
                    max_plies: 60,
                },
                board: l.editor.board,
            });
            auto.step = 35;
            auto.wait = 2;
        }
        35 => {
            if let Fairness::Done { report, .. } = &*l.fairness {
                let note = format!(
                    "fair games {} score {:.2} margin {:.2}\n",
                    report.games, report.silver_score, report.margin
                );
                auto.step = 36;
                // Taken on the next step, once the report is drawn.
                auto.wait = 3;
                auto.parked = Some(note);
            }
        }
        36 => {
            let note = auto.parked.take().unwrap_or_default();
            shoot(auto, "13-fairness", note, commands);
            // A piece breaking: the tutorial's "Moving" step, solved (its beam hits c4).
            l.start.write(StartLesson(LessonKind::Tutorial(BREAK_STEP)));
            auto.step = 37;
            auto.wait = 4;
        }
        37 => {
            if idle && l.dying.is_empty() {
                // Before the move: the piece whole on c4, to compare with.
                shoot(auto, "14a-break-before", l.board.note(), commands);
                auto.step = 38;
                auto.wait = 2;
            }
        }
        38 => {
            let step = &crate::learn::tutorial::STEPS[BREAK_STEP];
            if let Ok(mv) = m.game.position().parse_move(step.intended) {
                l.moves.write(MoveRequested(mv));
            }
            commands.insert_resource(TimeUpdateStrategy::ManualDuration(super::script::STEP));
            auto.step = 39;
        }
        39 => {
            // The shards in the air, a few frames after the hit.
            if let Phase::Lingering { elapsed } = l.show.phase
                && elapsed >= 0.15
            {
                shoot(auto, "14-break", l.board.note(), commands);
                commands.insert_resource(TimeUpdateStrategy::Automatic);
                auto.step = 40;
                auto.wait = 2;
            }
        }
        _ => finish(auto, &mut exit),
    }
}
