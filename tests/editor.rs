//! The setup editor, headless, through the messages its panel and the board write: symmetric
//! editing, undo and redo, the engine's reasons for every kind of invalid setup (and no file
//! written), saving a valid one that the setup list then holds and a game then plays, the
//! lasers, and the fairness batch.

mod common;

use bevy::prelude::*;
use common::wait::update_until;
use common::{go_to, send, sq};
use khet::editor::fairness::{CheckFairness, Fairness};
use khet::editor::{Edit, Editor, is_symmetric};
use khet::news::{News, StatusLine};
use khet::screen::Screen;
use khet::setups::SetupLibrary;
use khet::table::Match;
use khet::table::selection::SquareClicked;
use khet_engine::fairness::{Batch, measure};
use khet_engine::{
    Color as Side, Direction, Edition, Kind, Piece, Position, Problem, Rotation, Setup, Square,
};
use std::sync::atomic::{AtomicBool, AtomicU32};

fn app(own: &std::path::Path) -> App {
    let mut app = common::headless(1.0);
    app.insert_resource(SetupLibrary::load_with(Some(own.to_path_buf())));
    go_to(&mut app, Screen::Editor);
    app
}

fn editor(app: &App) -> &Editor {
    app.world().resource::<Editor>()
}

fn start_classic(app: &mut App) {
    send(
        app,
        Edit::Start(
            Setup::builtin("khet2/classic").expect("classic").position,
            "C".into(),
        ),
    );
}

fn start_empty(app: &mut App, edition: Edition) {
    send(app, Edit::Start(Position::empty(edition), "Test".into()));
}

/// A small legal Khet 2.0 setup built by clicks, symmetric on.
fn build_legal(app: &mut App) {
    start_empty(app, Edition::Khet2);
    use khet_engine::Diagonal::NE;
    for (piece, at) in [
        (Piece::sphinx(Side::Silver, Direction::N), "j1"),
        (Piece::pharaoh(Side::Silver), "e1"),
        (Piece::pyramid(Side::Silver, NE), "c3"),
        (Piece::scarab(Side::Silver, NE), "e4"),
        (Piece::anubis(Side::Silver, Direction::N), "d1"),
    ] {
        send(app, Edit::Brush(Some(piece)));
        send(app, SquareClicked(sq(at)));
    }
    send(app, Edit::Brush(None));
}

#[test]
fn symmetric_editing_keeps_the_setup_equal_to_its_half_turn() {
    let dir = temp_path("sym");
    let mut app = app(&dir);
    build_legal(&mut app);
    let board = editor(&app).board;
    assert!(is_symmetric(&board));
    assert_eq!(
        board.piece_at(sq("a8")),
        Some(Piece::sphinx(Side::Red, Direction::S))
    );
    assert_eq!(board.pieces().count(), 10);
    // A walk of edits by clicks, keys' messages and the palette: always symmetric.
    let mut rng = khet_engine::Rng::new(0x1234_5678);
    let mut next = |n: u64| rng.below(n as usize) as u64;
    for _ in 0..150 {
        let at = Square::new(next(80) as u8).expect("square");
        let kinds = [Kind::Pyramid, Kind::Anubis, Kind::Scarab, Kind::Eye];
        let edit = match next(5) {
            0 => Edit::Place(
                at,
                Piece::new(Side::Silver, kinds[next(4) as usize], next(4) as u8),
            ),
            1 => Edit::Remove(at),
            2 => Edit::Rotate(at, Rotation::Clockwise),
            3 => Edit::Move {
                from: at,
                to: Square::new(next(80) as u8).expect("square"),
            },
            _ => Edit::Undo,
        };
        send(&mut app, edit.clone());
        let b = editor(&app).board;
        assert!(is_symmetric(&b), "after {edit:?}:\n{b}");
    }
    // With symmetry off an edit touches one square.
    start_empty(&mut app, Edition::Khet2);
    send(&mut app, Edit::Symmetric(false));
    send(
        &mut app,
        Edit::Place(sq("c3"), Piece::pharaoh(Side::Silver)),
    );
    assert_eq!(editor(&app).board.pieces().count(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn undo_and_redo_walk_the_edits() {
    let dir = temp_path("undo");
    let mut app = app(&dir);
    build_legal(&mut app);
    let built = editor(&app).board;
    send(&mut app, SquareClicked(sq("c3")));
    assert_eq!(editor(&app).selected, Some(sq("c3")));
    send(&mut app, SquareClicked(sq("c4")));
    let moved = editor(&app).board;
    assert!(moved.piece_at(sq("c4")).is_some() && moved.piece_at(sq("c3")).is_none());
    assert!(moved.piece_at(sq("h5")).is_some() && moved.piece_at(sq("h6")).is_none());
    send(&mut app, Edit::Undo);
    assert_eq!(editor(&app).board, built);
    send(&mut app, Edit::Redo);
    assert_eq!(editor(&app).board, moved);
    let _ = std::fs::remove_dir_all(&dir);
}

fn latest_news(app: &App) -> String {
    app.world()
        .resource::<StatusLine>()
        .0
        .as_ref()
        .map(ToString::to_string)
        .unwrap_or_default()
}

#[test]
fn every_kind_of_invalid_setup_is_refused_with_the_engines_reason() {
    let dir = temp_path("invalid");
    let mut app = app(&dir);
    use khet_engine::Diagonal::NE;
    type Check = fn(&Problem) -> bool;
    let cases: Vec<(&str, Vec<Edit>, Check)> = vec![
        (
            "no Pharaoh",
            vec![Edit::Remove(sq("e1"))],
            |p| matches!(p, Problem::PharaohCount { color: Side::Silver, squares } if squares.is_empty()),
        ),
        (
            "two Pharaohs",
            vec![Edit::Place(sq("g3"), Piece::pharaoh(Side::Silver))],
            |p| matches!(p, Problem::PharaohCount { color: Side::Silver, squares } if squares.len() == 2),
        ),
        (
            "a reserved square",
            vec![Edit::Place(sq("a4"), Piece::pyramid(Side::Silver, NE))],
            |p| matches!(p, Problem::Reserved { .. }),
        ),
        (
            "a Sphinx off its corner",
            vec![Edit::Move {
                from: sq("j1"),
                to: sq("j2"),
            }],
            |p| matches!(p, Problem::SphinxOffCorner { .. }),
        ),
        (
            "a Sphinx pointing away",
            vec![Edit::Rotate(sq("j1"), Rotation::Clockwise)],
            |p| matches!(p, Problem::SphinxPointsAway { .. }),
        ),
        ("no Sphinx", vec![Edit::Remove(sq("j1"))], |p| {
            matches!(p, Problem::NoSphinx { .. })
        }),
        (
            "a piece of the other edition",
            vec![Edit::Place(sq("f5"), Piece::obelisk(Side::Silver, 2))],
            |p| matches!(p, Problem::WrongEdition { .. }),
        ),
    ];
    for (what, edits, expect) in cases {
        build_legal(&mut app);
        assert!(editor(&app).problems.is_empty(), "{what}: legal first");
        for edit in edits {
            send(&mut app, edit);
        }
        let problems = editor(&app).problems.clone();
        let problem = problems
            .iter()
            .find(|p| expect(p))
            .unwrap_or_else(|| panic!("{what}: {problems:?}"));
        send(&mut app, Edit::Save);
        let news = latest_news(&app);
        assert!(
            news.starts_with("Not saved: ") && news.contains(&problems[0].to_string()),
            "{what}: {news}"
        );
        assert!(!problem.to_string().is_empty());
        assert!(!dir.exists(), "{what}: a file was written");
        // Playing it is refused as well.
        send(&mut app, Edit::PlayIt);
        app.update();
        assert_eq!(
            *app.world().resource::<State<Screen>>().get(),
            Screen::Editor,
            "{what}"
        );
        assert!(latest_news(&app).contains("problem"), "{what}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_valid_setup_is_saved_listed_and_played() {
    let dir = temp_path("save");
    let mut app = app(&dir);
    build_legal(&mut app);
    app.world_mut().resource_mut::<Editor>().name = "Tiny Duel".into();
    app.world_mut().resource_mut::<Editor>().description = "Two pieces a side.".into();
    send(&mut app, Edit::Save);
    let path = dir.join("tiny-duel.ron");
    let text = std::fs::read_to_string(&path).expect("saved");
    let setup = Setup::from_ron(&text, "tiny-duel.ron").expect("reads back");
    assert_eq!(setup.name, "Tiny Duel");
    assert!(setup.position.pieces().eq(editor(&app).board.pieces()));
    let library = app.world().resource::<SetupLibrary>();
    let listed = library.find("my: tiny-duel").expect("listed at once");
    assert_eq!(listed.name, "Tiny Duel");
    assert!(listed.position.pieces().eq(editor(&app).board.pieces()));
    // Play it: a game from the setup, at the table.
    send(&mut app, Edit::PlayIt);
    app.update();
    assert_eq!(
        *app.world().resource::<State<Screen>>().get(),
        Screen::Playing
    );
    let m = app.world().resource::<Match>();
    assert!(m.game.position().pieces().eq(setup.position.pieces()));
    assert_eq!(m.game.side_to_move(), Side::Silver);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn either_laser_fires_on_the_editors_board() {
    let dir = temp_path("fire");
    let mut app = app(&dir);
    start_classic(&mut app);
    for side in [Side::Red, Side::Silver] {
        send(&mut app, Edit::Fire(side));
        let shot = editor(&app).shot.clone().expect("a shot");
        assert_eq!(shot.color, side);
        assert_eq!(shot, khet_engine::fire(&editor(&app).board, side));
        assert_eq!(app.world().resource::<khet::table::Show>().shot, Some(shot));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A laser fired in the editor stays drawn until the next edit, and stays still: once it has
/// landed, the editor asks for no more frames, so the window rests (it drew every frame for as
/// long as the beam was shown, found by the window test waiting for a still picture).
#[test]
fn a_laser_fired_in_the_editor_stays_drawn_and_lets_the_window_rest() {
    let dir = temp_path("fired-rest");
    let mut app = app(&dir);
    start_classic(&mut app);
    send(&mut app, Edit::Fire(Side::Silver));
    let show = |app: &App| app.world().resource::<khet::table::Show>().phase.clone();
    // The beam grows at 60 frames a second of game time: well within ten seconds' worth.
    for _ in 0..600 {
        if matches!(show(&app), khet::table::Phase::Lingering { .. }) {
            break;
        }
        app.update();
    }
    // Well past the time a game's beam fades in.
    for _ in 0..240 {
        app.update();
    }
    app.world_mut()
        .resource_mut::<khet::frames::NextFrame>()
        .take();
    app.update();
    let asked = app
        .world_mut()
        .resource_mut::<khet::frames::NextFrame>()
        .take();
    assert!(
        matches!(show(&app), khet::table::Phase::Lingering { .. }),
        "the fired laser is no longer shown: {:?}",
        show(&app)
    );
    assert!(app.world().resource::<khet::table::Show>().shot.is_some());
    assert_ne!(
        asked,
        Some(std::time::Duration::ZERO),
        "a frame asked for at once, every frame"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_fairness_batch_reports_and_runs_in_the_background() {
    let classic = Setup::builtin("khet2/classic").expect("classic").position;
    // Short games keep the test quick: the report's arithmetic is what is checked.
    let batch = Batch {
        games: 2,
        max_plies: 16,
    };
    let r = measure(classic, batch, &AtomicU32::new(0), &AtomicBool::new(false));
    assert_eq!(r.games, 2);
    assert_eq!(r.silver_wins + r.red_wins + r.draws, 2);
    // Silver's score is its points a game, and the margin 1.96 standard errors of the games'
    // scores (1, ½ or 0 each; the sample's variance).
    let scores: Vec<f64> = std::iter::repeat_n(1.0, r.silver_wins as usize)
        .chain(std::iter::repeat_n(0.5, r.draws as usize))
        .chain(std::iter::repeat_n(0.0, r.red_wins as usize))
        .collect();
    let n = scores.len() as f64;
    let mean = scores.iter().sum::<f64>() / n;
    let variance = scores.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / (n - 1.0);
    assert!((r.silver_score - mean).abs() < 1e-12, "{r:?}");
    assert!(
        (r.margin - 1.96 * (variance / n).sqrt()).abs() < 1e-12,
        "{r:?}"
    );
    assert_eq!((r.perft1, r.perft2), (77, 5_920));
    assert!(!r.first_move_wins);
    assert!(r.mean_plies > 0.0);
    // A setup whose first move wins says so.
    let broken = khet_engine::parse_position("x29/2p27//3k5P2////4K4X1 0").expect("position");
    let stop = AtomicBool::new(true);
    let report = measure(broken, batch, &AtomicU32::new(0), &stop);
    assert!(report.first_move_wins);
    assert_eq!(report.games, 0, "stopped before the first game");

    let dir = temp_path("fair");
    let mut app = app(&dir);
    send(&mut app, Edit::Start(classic, "C".into()));
    send(
        &mut app,
        CheckFairness {
            batch: Batch {
                games: 1,
                max_plies: 8,
            },
            board: classic,
        },
    );
    update_until(&mut app, "the batch's report", |a| {
        matches!(*a.world().resource::<Fairness>(), Fairness::Done { .. })
    });
    match app.world().resource::<Fairness>() {
        Fairness::Done { report, board } => {
            assert_eq!(report.games, 1);
            assert_eq!(*board, classic);
        }
        _ => panic!("the batch did not finish"),
    }
    let _ = News::ToMove(Side::Silver);
}

/// A folder for one test that does not exist yet (the editor makes it when it saves).
fn temp_path(name: &str) -> std::path::PathBuf {
    let d = common::temp_dir(&format!("editor-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn each_screen_keeps_its_own_status_line() {
    let dir = temp_path("status");
    let mut app = common::headless(0.0);
    app.insert_resource(SetupLibrary::load_with(Some(dir.clone())));
    send(&mut app, SquareClicked(sq("c1")));
    let game_line = latest_news(&app);
    assert!(game_line.contains("c1"), "{game_line}");
    // The editor does not show the game's news; what it says itself, it shows.
    go_to(&mut app, Screen::Editor);
    assert_eq!(latest_news(&app), "");
    start_empty(&mut app, Edition::Khet2);
    send(&mut app, Edit::Save);
    assert!(!latest_news(&app).is_empty());
    let editor_line = latest_news(&app);
    go_to(&mut app, Screen::Open);
    assert_eq!(latest_news(&app), "");
    // Back at the table, the game's line again; back in the editor, the editor's.
    go_to(&mut app, Screen::Playing);
    assert_eq!(latest_news(&app), game_line);
    go_to(&mut app, Screen::Editor);
    assert_eq!(latest_news(&app), editor_line);
}
