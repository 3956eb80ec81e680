//! Lessons at the table, headless: every tutorial step is solved by its move and missed by
//! another with the reason; a puzzle is solved along its line against the defender's replies,
//! and a wrong move is refuted on the board; progress is kept; lessons are never autosaved.

mod common;

use bevy::prelude::*;
use common::wait::update_until;
use common::{headless, send};
use khet::core_plugin;
use khet::learn::lesson::{Lesson, LessonAction, LessonKind, PuzzleShelf, StartLesson, Verdict};
use khet::learn::progress::{Progress, ProgressFile, TutorialOffer};
use khet::learn::tutorial::STEPS;
use khet::saves::SaveDir;
use khet::table::{Match, MoveRequested, OnTable};
use khet_engine::puzzle::Solver;

fn verdict(app: &App) -> Verdict {
    app.world().resource::<Lesson>().verdict.clone()
}

fn play(app: &mut App, text: &str) {
    let mv = app
        .world()
        .resource::<Match>()
        .game
        .position()
        .parse_move(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"));
    send(app, MoveRequested(mv));
}

/// Updates until the defender has answered (its search runs on the async pool).
fn await_answer(app: &mut App) {
    update_until(&mut *app, "the defender's answer", |a| {
        verdict(a) != Verdict::Answering
    });
    app.update();
    app.update();
}

#[test]
fn every_tutorial_step_is_solved_by_its_move_and_a_miss_says_why() {
    let mut app = headless(0.0);
    for (i, step) in STEPS.iter().enumerate() {
        send(&mut app, StartLesson(LessonKind::Tutorial(i)));
        assert_eq!(
            app.world().resource::<Match>().game.position().to_string(),
            step.position,
            "{}",
            step.title
        );
        play(&mut app, step.misses);
        match verdict(&app) {
            Verdict::Missed(why) => assert!(why.contains("the beam"), "{}: {why}", step.title),
            v => panic!("{}: {} gave {v:?}", step.title, step.misses),
        }
        assert!(!app.world().resource::<Progress>().tutorial.contains(&i));
        send(&mut app, LessonAction::Retry);
        assert_eq!(verdict(&app), Verdict::Trying);
        assert!(app.world().resource::<Match>().game.turns().is_empty());
        // The hint shows the intended move.
        send(&mut app, LessonAction::Hint);
        let hint = app
            .world()
            .resource::<khet::table::ai::Hint>()
            .0
            .map(|(_, mv)| mv.to_string());
        assert_eq!(hint.as_deref(), Some(step.intended), "{}", step.title);
        play(&mut app, step.intended);
        assert_eq!(verdict(&app), Verdict::Solved, "{}", step.title);
        assert!(app.world().resource::<Progress>().tutorial.contains(&i));
    }
    // Nothing of it was played by the computer opponent: Red never moved.
    assert!(app.world().resource::<Match>().game.turns().len() == 1);
}

/// The first shipped puzzle with N = 2.
fn puzzle_in_two(app: &App) -> usize {
    app.world()
        .resource::<PuzzleShelf>()
        .0
        .iter()
        .position(|p| p.moves == 2)
        .expect("a puzzle in 2")
}

#[test]
fn a_puzzle_is_solved_along_its_line_against_the_defenders_replies() {
    let mut app = headless(0.0);
    let dir = std::env::temp_dir().join(format!("khet-lessons-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    app.insert_resource(SaveDir(dir.join("games")));
    app.insert_resource(ProgressFile(dir.join("progress.ron")));
    let i = puzzle_in_two(&app);
    let puzzle = app.world().resource::<PuzzleShelf>().0[i].clone();
    send(&mut app, StartLesson(LessonKind::Puzzle(i)));
    play(&mut app, &puzzle.solution[0]);
    await_answer(&mut app);
    let m = app.world().resource::<Match>();
    assert_eq!(m.game.turns().len(), 2, "the defender answered");
    // On the solution's line the stored (verified) best defence answers.
    assert_eq!(m.game.turns()[1].mv.to_string(), puzzle.solution[1]);
    assert_eq!(verdict(&app), Verdict::Trying);
    // Whatever the defender chose, the hint finds the win and it lights the Pharaoh.
    send(&mut app, LessonAction::Hint);
    let (_, mv) = app
        .world()
        .resource::<khet::table::ai::Hint>()
        .0
        .expect("a hint");
    send(&mut app, MoveRequested(mv));
    assert_eq!(verdict(&app), Verdict::Solved);
    let progress = app.world().resource::<Progress>();
    assert!(progress.puzzles.contains(&puzzle.position));
    // Progress is on disk; the lesson is not a saved game.
    let text = std::fs::read_to_string(dir.join("progress.ron")).expect("progress saved");
    assert!(text.contains(&puzzle.position), "{text}");
    assert!(!dir.join("games").exists(), "a lesson was autosaved");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_wrong_move_is_refuted_on_the_board() {
    let mut app = headless(0.0);
    let i = puzzle_in_two(&app);
    let puzzle = app.world().resource::<PuzzleShelf>().0[i].clone();
    send(&mut app, StartLesson(LessonKind::Puzzle(i)));
    // Any other first move that does not end the game does not win in 2 (the puzzle has one
    // winning first move; `puzzles verify` proves it).
    let start = puzzle.start().expect("position");
    let key = puzzle.solution_moves().expect("line")[0];
    let wrong = start
        .legal_moves()
        .into_iter()
        .find(|&mv| mv != key && !start.clone().play_unchecked(mv).is_game_over())
        .expect("a wrong move");
    let mut after = start;
    after.play_unchecked(wrong);
    assert_eq!(Solver::default().wins_within(&start, 2), Ok(true));
    assert!(
        Solver::default()
            .defence(&after, 1)
            .expect("solved")
            .is_some_and(|d| d.solver_needs.is_none()),
        "{wrong} has an escape"
    );
    send(&mut app, MoveRequested(wrong));
    await_answer(&mut app);
    match verdict(&app) {
        Verdict::Missed(why) => assert!(why.contains("escapes"), "{why}"),
        v => panic!("{wrong} gave {v:?}"),
    }
    assert_eq!(
        app.world().resource::<Match>().game.turns().len(),
        2,
        "the refutation is played"
    );
    // Try again puts the puzzle back.
    send(&mut app, LessonAction::Retry);
    assert_eq!(
        app.world().resource::<Match>().game.position().to_string(),
        puzzle.position
    );
    assert_eq!(verdict(&app), Verdict::Trying);
}

#[test]
fn leaving_or_a_new_game_ends_the_lesson_and_the_tutorial_is_offered_once() {
    let dir = std::env::temp_dir().join(format!("khet-offer-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("folder");
    let first = |dir: &std::path::Path| {
        let mut app = App::new();
        app.insert_resource(ProgressFile(dir.join("progress.ron")));
        app.add_plugins(MinimalPlugins).add_plugins(core_plugin);
        app.update();
        app
    };
    let mut app = first(&dir);
    assert_eq!(
        *app.world().resource::<TutorialOffer>(),
        TutorialOffer(true)
    );
    app.world_mut().resource_mut::<Progress>().tutorial_offered = true;
    app.update();
    let app2 = first(&dir);
    assert_eq!(
        *app2.world().resource::<TutorialOffer>(),
        TutorialOffer(false)
    );

    let on_table = |app: &App| *app.world().resource::<State<OnTable>>().get();
    assert_eq!(on_table(&app), OnTable::Game);
    send(&mut app, StartLesson(LessonKind::Tutorial(0)));
    assert!(app.world().get_resource::<Lesson>().is_some());
    assert_eq!(on_table(&app), OnTable::Lesson);
    // The next step is a lesson again: the table stays in its state, the lesson goes on.
    send(&mut app, LessonAction::Next);
    assert_eq!(on_table(&app), OnTable::Lesson);
    assert!(app.world().get_resource::<Lesson>().is_some());
    send(&mut app, LessonAction::Leave);
    assert!(app.world().get_resource::<Lesson>().is_none());
    assert_eq!(on_table(&app), OnTable::Game);
    assert!(
        app.world()
            .resource::<Match>()
            .setup_name
            .contains("Classic")
    );
    let _ = std::fs::remove_dir_all(&dir);
}
