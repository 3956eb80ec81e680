//! Whole games driven headless (`MinimalPlugins` + the game's core plugin, no renderer) through
//! the same messages the mouse, keys and panels write; after every step the piece entities must
//! match the engine's position exactly.

mod common;

use bevy::prelude::*;
use common::playing::start;
use common::{game, headless, news, send, sq};
use khet::news::News;
use khet::settings::Settings;
use khet::table::pieces::{BoardPiece, Dying, Facing, Mirror, OnSquare};
use khet::table::selection::{RotateSelected, Selection, SelectionAction, SquareClicked};
use khet::table::{
    GameEnded, MoveRequested, NewGameRequested, NewGameSpec, Phase, Show, TableAction,
};
use khet_engine::Player;
use khet_engine::{Color as Side, DrawReason, GameResult, Kind, Move, Rotation, Square, WinReason};

fn selected(app: &App) -> Option<Square> {
    app.world().resource::<Selection>().square(&game(app).game)
}

/// The latest news.
fn latest(app: &App) -> News {
    news(app).expect("some news")
}

/// The entities on the board, as (square, piece), sorted.
fn entity_board(app: &mut App) -> Vec<(Square, khet_engine::Piece)> {
    let mut q = app
        .world_mut()
        .query_filtered::<(&OnSquare, &BoardPiece), Without<Dying>>();
    let mut v: Vec<_> = q.iter(app.world()).map(|(s, p)| (s.0, p.0)).collect();
    v.sort_by_key(|(s, _)| *s);
    v
}

fn assert_entities_match(app: &mut App) {
    let engine: Vec<_> = game(app).game.position().pieces().collect();
    assert_eq!(entity_board(app), engine, "entities and engine disagree");
    // Mirror and facing components agree with the pieces.
    let mut q = app
        .world_mut()
        .query::<(&BoardPiece, Option<&Mirror>, Option<&Facing>)>();
    for (bp, mirror, facing) in q.iter(app.world()) {
        assert_eq!(mirror.map(|m| m.0), bp.0.mirror());
        assert_eq!(facing.map(|f| f.0), bp.0.facing());
    }
}

fn click(app: &mut App, s: &str) {
    send(app, SquareClicked(sq(s)));
}

#[test]
fn select_and_move_with_clicks() {
    let mut app = headless(0.0);
    assert_entities_match(&mut app);
    assert_eq!(entity_board(&mut app).len(), 26);
    click(&mut app, "h2");
    assert_eq!(selected(&app), Some(sq("h2")));
    assert!(
        app.world()
            .resource::<Selection>()
            .moves(&game(&app).game)
            .len()
            > 2
    );
    click(&mut app, "h3");
    assert_eq!(game(&app).game.turns().len(), 1);
    assert_eq!(game(&app).game.side_to_move(), Side::Red);
    assert_eq!(selected(&app), None);
    assert_entities_match(&mut app);
    // An illegal click says why and changes nothing.
    click(&mut app, "c7");
    click(&mut app, "c5");
    assert!(
        matches!(latest(&app), News::NotAMove(_)),
        "{:?}",
        latest(&app)
    );
    assert_eq!(game(&app).game.turns().len(), 1);
    // Clicking the other side's piece explains whose turn it is.
    send(&mut app, SelectionAction::Deselect);
    click(&mut app, "e4");
    assert_eq!(
        latest(&app),
        News::NotYours {
            kind: Kind::Scarab,
            owner: Side::Silver,
            to_move: Side::Red
        }
    );
}

#[test]
fn rotate_the_selected_piece() {
    let mut app = headless(0.0);
    click(&mut app, "h2");
    send(&mut app, RotateSelected(Rotation::Clockwise));
    let turn = game(&app).game.last_turn().cloned().unwrap();
    assert_eq!(
        turn.mv,
        Move::Rotate {
            at: sq("h2"),
            rotation: Rotation::Clockwise
        }
    );
    assert_entities_match(&mut app);
    let mut q = app.world_mut().query::<(&OnSquare, &Mirror)>();
    let mirror = q
        .iter(app.world())
        .find(|(s, _)| s.0 == sq("h2"))
        .map(|(_, m)| m.0);
    assert_eq!(mirror, Some(khet_engine::Diagonal::SE));
}

#[test]
fn the_shot_removes_the_hit_entity() {
    let mut app = headless(0.0);
    // Silver turns its Sphinx west: the beam runs along rank 1 into the back of f1's Anubis.
    click(&mut app, "j1");
    send(&mut app, RotateSelected(Rotation::Anticlockwise));
    let turn = game(&app).game.last_turn().cloned().unwrap();
    assert_eq!(turn.shot.hits.len(), 1);
    assert_eq!(turn.shot.hits[0].square, sq("f1"));
    assert_eq!(game(&app).lost()[Side::Silver.index()].len(), 1);
    assert_entities_match(&mut app);
    assert_eq!(entity_board(&mut app).len(), 25);
    assert!(!entity_board(&mut app).iter().any(|(s, _)| *s == sq("f1")));
}

#[test]
fn the_hit_piece_stays_until_the_beam_lands_and_input_waits() {
    let mut app = headless(1.0);
    click(&mut app, "j1");
    send(&mut app, RotateSelected(Rotation::Anticlockwise));
    assert!(!app.world().resource::<Show>().is_idle());
    // While the move and shot animate, the Anubis is still shown and clicks are ignored.
    assert!(
        entity_board(&mut app)
            .iter()
            .any(|(s, p)| *s == sq("f1") && p.kind() == Kind::Anubis)
    );
    click(&mut app, "e8");
    assert_eq!(selected(&app), None);
    // Skip completes it at once.
    send(&mut app, TableAction::Skip);
    send(&mut app, TableAction::Skip);
    assert!(app.world().resource::<Show>().is_idle());
    assert_entities_match(&mut app);
}

#[test]
fn a_pharaoh_hit_ends_the_game() {
    let mut app = headless(0.0);
    // Silver c5-b6, then Red e5-e6 turns its own beam into its Pharaoh.
    click(&mut app, "c5");
    click(&mut app, "b6");
    click(&mut app, "e5");
    click(&mut app, "e6");
    let result = game(&app).game.result();
    assert_eq!(
        result,
        Some(GameResult::Win {
            winner: Side::Silver,
            reason: WinReason::PharaohHit
        })
    );
    let ended: Vec<GameEnded> = app
        .world_mut()
        .resource_mut::<Messages<GameEnded>>()
        .drain()
        .collect();
    assert!(ended.iter().any(|e| e.0 == result.unwrap()));
    assert_eq!(latest(&app), News::Ended(result.unwrap()));
    assert_entities_match(&mut app);
    // No more moves.
    click(&mut app, "h2");
    assert_eq!(selected(&app), None);
}

#[test]
fn draw_offers_are_answered() {
    let mut app = headless(0.0);
    send(&mut app, TableAction::OfferDraw);
    assert_eq!(game(&app).draw_offer, Some(Side::Silver));
    send(&mut app, TableAction::DeclineDraw);
    assert_eq!(game(&app).draw_offer, None);
    assert!(game(&app).game.result().is_none());
    click(&mut app, "h2");
    click(&mut app, "h3");
    send(&mut app, TableAction::OfferDraw);
    assert_eq!(game(&app).draw_offer, Some(Side::Red));
    send(&mut app, TableAction::AcceptDraw);
    assert_eq!(
        game(&app).game.result(),
        Some(GameResult::Draw {
            reason: DrawReason::Agreement
        })
    );
}

#[test]
fn a_repetition_draw_is_claimed() {
    let mut app = headless(0.0);
    send(&mut app, TableAction::ClaimDraw);
    assert!(game(&app).game.result().is_none());
    assert!(
        matches!(latest(&app), News::NoDraw(_)),
        "{:?}",
        latest(&app)
    );
    for _ in 0..2 {
        for (a, b) in [("e1", "e2"), ("f8", "f7"), ("e2", "e1"), ("f7", "f8")] {
            click(&mut app, a);
            click(&mut app, b);
            assert_entities_match(&mut app);
        }
    }
    assert!(game(&app).game.can_claim_draw());
    send(&mut app, TableAction::ClaimDraw);
    assert_eq!(
        game(&app).game.result(),
        Some(GameResult::Draw {
            reason: DrawReason::Repetition
        })
    );
}

#[test]
fn resign_and_new_game() {
    let mut app = headless(0.0);
    send(&mut app, TableAction::Resign);
    assert_eq!(
        game(&app).game.result(),
        Some(GameResult::Win {
            winner: Side::Red,
            reason: WinReason::Resignation
        })
    );
    let library = app.world().resource::<khet::setups::SetupLibrary>();
    let setup = library
        .find("khet1/dynasty")
        .cloned()
        .expect("the Khet 1.0 Dynasty setup loads");
    send(
        &mut app,
        NewGameRequested(NewGameSpec::casual(setup, [Player::Person; 2])),
    );
    assert!(game(&app).game.result().is_none());
    assert_eq!(game(&app).setup_name, "Dynasty (Khet 1.0)");
    assert_entities_match(&mut app);
}

#[test]
fn obelisk_stacks_move_whole_or_top() {
    let mut app = headless(0.0);
    let library = app.world().resource::<khet::setups::SetupLibrary>();
    let setup = library.find("khet1/classic").cloned().unwrap();
    send(
        &mut app,
        NewGameRequested(NewGameSpec::casual(setup, [Player::Person; 2])),
    );
    // d1 holds a stack: move its top to d2, leaving one behind.
    click(&mut app, "d1");
    send(&mut app, SelectionAction::ToggleStackMode);
    click(&mut app, "d2");
    assert!(matches!(
        game(&app).game.last_turn().map(|t| t.mv),
        Some(Move::Unstack { .. })
    ));
    assert_entities_match(&mut app);
    // Red moves; then Silver stacks them again by stepping the single one onto its partner.
    click(&mut app, "h8");
    click(&mut app, "h7");
    click(&mut app, "d2");
    click(&mut app, "d1");
    assert_eq!(
        game(&app)
            .game
            .position()
            .piece_at(sq("d1"))
            .map(khet_engine::Piece::height),
        Some(2)
    );
    assert_entities_match(&mut app);
}

#[test]
fn a_scripted_game_keeps_entities_in_step() {
    let mut app = headless(0.0);
    let mut seed = 7u64;
    for _ in 0..60 {
        let moves = game(&app).game.legal_moves();
        if moves.is_empty() {
            break;
        }
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mv = moves[(seed >> 33) as usize % moves.len()];
        send(&mut app, MoveRequested(mv));
        assert_eq!(app.world().resource::<Show>().phase, Phase::Idle);
        assert_entities_match(&mut app);
        if game(&app).game.is_over() {
            break;
        }
    }
}

#[test]
fn the_setup_list_shows_broken_files_with_their_error() {
    let dir = std::env::temp_dir().join(format!("khet-setups-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut mine = khet_engine::Setup::from_position(
        "Mine",
        "a test",
        &khet::setups::SetupLibrary::load_with(None)
            .classic()
            .position,
    );
    mine.name = "Mine".into();
    std::fs::write(dir.join("mine.ron"), mine.to_ron()).unwrap();
    std::fs::write(dir.join("broken.ron"), "Setup(\n    name: \"Broken\",\n    edition: Khet2,\n    pieces: [\n        Pharaoh(Red, \"j8\"),\n    ],\n)\n").unwrap();
    let library = khet::setups::SetupLibrary::load_with(Some(dir.clone()));
    let official = library
        .listings
        .iter()
        .filter(|l| !l.own && l.setup.is_ok())
        .count();
    assert_eq!(official, 8);
    let own: Vec<_> = library.listings.iter().filter(|l| l.own).collect();
    assert_eq!(own.len(), 2);
    let broken = own.iter().find(|l| l.label.contains("broken")).unwrap();
    let err = broken.setup.as_ref().unwrap_err().to_string();
    assert!(
        err.contains("broken.ron:5:") && err.contains("reserved for Silver"),
        "{err}"
    );
    assert!(library.find("my: mine").is_some_and(|s| s.name == "Mine"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_laser_preview_fires_the_aimed_move_in_casual_games_only() {
    use khet::table::laser_preview::{Aim, LaserPreview};
    let mut app = headless(0.0);
    let preview = |app: &App| app.world().resource::<LaserPreview>().0.clone();
    // Aiming at a turn button of the selected Sphinx: the shot along rank 1 into f1's Anubis.
    click(&mut app, "j1");
    app.world_mut().resource_mut::<Aim>().turn = Some(Rotation::Anticlockwise);
    app.update();
    let (mv, shot) = preview(&app).expect("a preview");
    let turn = Move::Rotate {
        at: sq("j1"),
        rotation: Rotation::Anticlockwise,
    };
    assert_eq!(mv, turn);
    let mut board = *game(&app).game.position();
    board.apply_move(mv);
    assert_eq!(shot, khet_engine::fire(&board, Side::Silver));
    assert_eq!(shot.hits[0].square, sq("f1"));
    assert!(
        game(&app).game.turns().is_empty(),
        "a preview plays nothing"
    );
    // Aiming at a destination of a selected Pyramid.
    app.world_mut().resource_mut::<Aim>().turn = None;
    click(&mut app, "h2");
    app.world_mut().resource_mut::<Aim>().square = Some(sq("h3"));
    app.update();
    assert_eq!(
        preview(&app).map(|(mv, _)| mv),
        Some(Move::Step {
            from: sq("h2"),
            to: sq("h3")
        })
    );
    // Not a destination: nothing.
    app.world_mut().resource_mut::<Aim>().square = Some(sq("e5"));
    app.update();
    assert_eq!(preview(&app), None);
    // The option off: nothing.
    app.world_mut().resource_mut::<Aim>().square = Some(sq("h3"));
    app.world_mut().resource_mut::<Settings>().laser_preview = false;
    app.update();
    assert_eq!(preview(&app), None);
    // A tournament game: nothing, whatever the option says.
    app.world_mut().resource_mut::<Settings>().laser_preview = true;
    let setup = app
        .world()
        .resource::<khet::setups::SetupLibrary>()
        .classic();
    let mut spec = NewGameSpec::casual(setup, [Player::Person; 2]);
    spec.mode = khet_engine::Mode::Tournament;
    send(&mut app, NewGameRequested(spec));
    click(&mut app, "h2");
    app.update();
    assert!(selected(&app).is_some());
    assert_eq!(preview(&app), None);
}

/// Whether a frame was asked for at once this frame (the window draws continuously then), and
/// a fresh start for the next.
fn wants_frames_now(app: &mut App) -> bool {
    app.world_mut()
        .resource_mut::<khet::frames::NextFrame>()
        .take()
        == Some(std::time::Duration::ZERO)
}

#[test]
fn frames_are_asked_for_while_something_moves_and_not_at_rest() {
    let mut app = headless(1.0);
    app.insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(
        std::time::Duration::from_millis(50),
    ));
    for _ in 0..5 {
        app.update();
    }
    wants_frames_now(&mut app);
    app.update();
    assert!(
        !wants_frames_now(&mut app),
        "at rest, no frame is asked for"
    );
    // A move: the piece slides, the beam grows and fades, and every frame is wanted.
    app.world_mut().write_message(MoveRequested(Move::Step {
        from: sq("h2"),
        to: sq("h3"),
    }));
    let mut moving = 0;
    for _ in 0..200 {
        app.update();
        if !wants_frames_now(&mut app) {
            break;
        }
        moving += 1;
    }
    assert!(moving > 20, "frames wanted for {moving} frames only");
    assert_eq!(app.world().resource::<Show>().phase, Phase::Idle);
    // At rest again, with a selection and the last move tinted: nothing asked for.
    send(&mut app, SquareClicked(sq("e1")));
    wants_frames_now(&mut app);
    app.update();
    assert!(!wants_frames_now(&mut app));
}

// The keyboard: keys pressed through Bevy's input plugin, as the window's keyboard presses them.

use bevy::input::ButtonState;
use bevy::input::keyboard::{Key, KeyboardInput, NativeKey};

/// The game headless with Bevy's input plugin, so that keys can be pressed.
fn with_keyboard(speed: f32) -> App {
    common::headless_with(speed, |app| {
        app.add_plugins(bevy::input::InputPlugin);
    })
}

/// Presses `keys` together (a modifier first) for a frame, then lets them go.
fn press(app: &mut App, keys: &[KeyCode]) {
    for state in [ButtonState::Pressed, ButtonState::Released] {
        for &key_code in keys {
            app.world_mut().write_message(KeyboardInput {
                key_code,
                logical_key: Key::Unidentified(NativeKey::Unidentified),
                state,
                text: None,
                repeat: false,
                window: Entity::PLACEHOLDER,
            });
        }
        app.update();
    }
    app.update();
}

/// Counts the save dialogs asked for.
#[derive(Resource, Default)]
struct SaveDialogs(usize);

fn count_save_dialogs(
    mut asked: MessageReader<khet::table::OpenSaveDialog>,
    mut count: ResMut<SaveDialogs>,
) {
    count.0 += asked.read().count();
}

#[test]
fn the_tables_keys_turn_take_back_deselect_save_and_mute() {
    use khet_engine::Direction;
    let mut app = with_keyboard(0.0);
    app.init_resource::<SaveDialogs>()
        .add_systems(Update, count_save_dialogs);
    let facing = |app: &App| {
        game(app)
            .game
            .position()
            .piece_at(sq("j1"))
            .and_then(khet_engine::Piece::facing)
    };
    assert_eq!(facing(&app), Some(Direction::N));
    // Nothing selected: Q turns nothing.
    press(&mut app, &[KeyCode::KeyQ]);
    assert_eq!(game(&app).game.turns().len(), 0);
    // Q turns the selected Sphinx anticlockwise: that is the move.
    click(&mut app, "j1");
    press(&mut app, &[KeyCode::KeyQ]);
    assert_eq!(game(&app).game.turns().len(), 1);
    assert_eq!(facing(&app), Some(Direction::W));
    // Ctrl+Z takes it back; Z alone does nothing, nor does Ctrl+Q.
    press(&mut app, &[KeyCode::KeyZ]);
    assert_eq!(game(&app).game.turns().len(), 1);
    click(&mut app, "j1");
    press(&mut app, &[KeyCode::ControlLeft, KeyCode::KeyQ]);
    assert_eq!(game(&app).game.turns().len(), 1);
    press(&mut app, &[KeyCode::ControlLeft, KeyCode::KeyZ]);
    assert_eq!(game(&app).game.turns().len(), 0);
    assert_eq!(facing(&app), Some(Direction::N));
    // E turns the selected h2 Pyramid clockwise.
    let pyramid = game(&app).game.position().piece_at(sq("h2")).unwrap();
    click(&mut app, "h2");
    press(&mut app, &[KeyCode::KeyE]);
    assert_eq!(game(&app).game.turns().len(), 1);
    assert_eq!(
        game(&app).game.position().piece_at(sq("h2")),
        Some(pyramid.rotated(Rotation::Clockwise)),
        "E turns clockwise"
    );
    // Escape drops the selection.
    click(&mut app, "e8");
    assert_eq!(selected(&app), Some(sq("e8")));
    press(&mut app, &[KeyCode::Escape]);
    assert_eq!(selected(&app), None);
    // Ctrl+S asks for the save dialog.
    press(&mut app, &[KeyCode::ControlRight, KeyCode::KeyS]);
    assert_eq!(app.world().resource::<SaveDialogs>().0, 1);
    // M mutes and unmutes, and says so.
    assert!(!app.world().resource::<Settings>().muted);
    press(&mut app, &[KeyCode::KeyM]);
    assert!(app.world().resource::<Settings>().muted);
    assert!(matches!(news(&app), Some(News::Sound(t)) if t.contains("off")));
    press(&mut app, &[KeyCode::KeyM]);
    assert!(!app.world().resource::<Settings>().muted);
}

#[test]
fn space_skips_the_show_and_t_switches_a_stacks_mode() {
    let mut app = with_keyboard(1.0);
    click(&mut app, "j1");
    press(&mut app, &[KeyCode::KeyQ]);
    assert!(!app.world().resource::<Show>().is_idle());
    press(&mut app, &[KeyCode::Space]);
    press(&mut app, &[KeyCode::Space]);
    assert!(app.world().resource::<Show>().is_idle());
    assert_entities_match(&mut app);
    // T switches between moving a stack whole and its top.
    let mode = |app: &App| app.world().resource::<Selection>().stack_mode;
    let before = mode(&app);
    press(&mut app, &[KeyCode::KeyT]);
    assert_ne!(mode(&app), before);
    press(&mut app, &[KeyCode::KeyT]);
    assert_eq!(mode(&app), before);
}

#[test]
fn the_replays_keys_step_jump_and_play() {
    let mut app = with_keyboard(0.0);
    for (from, to) in [("h2", "h3"), ("c7", "c6")] {
        click(&mut app, from);
        click(&mut app, to);
    }
    click(&mut app, "j1");
    send(&mut app, RotateSelected(Rotation::Anticlockwise));
    let original = game(&app).game.clone();
    assert_eq!(original.turns().len(), 3);
    send(
        &mut app,
        khet::table::Watch {
            game: original.clone(),
            name: "keys".into(),
            back_to: None,
        },
    );
    let at = |app: &App| game(app).game.turns().len();
    assert_eq!(at(&app), 0);
    press(&mut app, &[KeyCode::ArrowRight]);
    assert_eq!(at(&app), 1);
    press(&mut app, &[KeyCode::End]);
    assert_eq!(at(&app), 3);
    assert_eq!(game(&app).game.position(), original.position());
    press(&mut app, &[KeyCode::ArrowLeft]);
    assert_eq!(at(&app), 2);
    press(&mut app, &[KeyCode::Home]);
    assert_eq!(at(&app), 0);
    let playing = |app: &App| app.world().resource::<khet::replay::AutoPlay>().playing;
    let before = playing(&app);
    press(&mut app, &[KeyCode::KeyP]);
    assert_ne!(playing(&app), before);
}

#[test]
fn the_editors_keys_turn_remove_undo_redo_and_drop_the_brush() {
    use khet::editor::{Edit, Editor};
    use khet_engine::{Diagonal, Edition, Piece, Position};
    let mut app = with_keyboard(0.0);
    common::go_to(&mut app, khet::screen::Screen::Editor);
    send(
        &mut app,
        Edit::Start(Position::empty(Edition::Khet2), "Keys".into()),
    );
    app.world_mut().resource_mut::<Editor>().symmetric = false;
    let pyramid = Piece::pyramid(Side::Silver, Diagonal::NE);
    send(&mut app, Edit::Brush(Some(pyramid)));
    send(&mut app, SquareClicked(sq("d4")));
    let editor = |app: &App| app.world().resource::<Editor>().clone();
    assert_eq!(editor(&app).board.piece_at(sq("d4")), Some(pyramid));
    // Escape drops the brush: a click then places nothing.
    press(&mut app, &[KeyCode::Escape]);
    assert_eq!(editor(&app).brush, None);
    send(&mut app, Edit::Select(Some(sq("d4"))));
    // Q and E turn the picked-up piece.
    press(&mut app, &[KeyCode::KeyQ]);
    let turned = editor(&app).board.piece_at(sq("d4"));
    assert_ne!(turned, Some(pyramid));
    press(&mut app, &[KeyCode::KeyE]);
    assert_eq!(editor(&app).board.piece_at(sq("d4")), Some(pyramid));
    // Delete removes it; Ctrl+Z brings it back and Ctrl+Y removes it again.
    press(&mut app, &[KeyCode::Delete]);
    assert_eq!(editor(&app).board.piece_at(sq("d4")), None);
    press(&mut app, &[KeyCode::ControlLeft, KeyCode::KeyZ]);
    assert_eq!(editor(&app).board.piece_at(sq("d4")), Some(pyramid));
    press(&mut app, &[KeyCode::ControlLeft, KeyCode::KeyY]);
    assert_eq!(editor(&app).board.piece_at(sq("d4")), None);
}

// The board camera: placed by the stage's orbit, without drawing, on a camera of the test's own.

/// The game headless with the keyboard, the board camera's orbit and a board camera.
fn with_camera() -> App {
    common::headless_with(0.0, |app| {
        app.add_plugins((bevy::input::InputPlugin, khet::stage::camera::orbit_plugin));
        app.world_mut()
            .spawn((khet::board::BoardCamera, Transform::default()));
    })
}

/// The side the board camera shows the board from, as the player sees it: Silver's with rank
/// 1 nearest and the files reading a to j left to right, Red's with rank 8 nearest and j to a.
fn seen_from(app: &mut App) -> Side {
    let camera = *app
        .world_mut()
        .query_filtered::<&Transform, With<khet::board::BoardCamera>>()
        .single(app.world())
        .expect("one board camera");
    // The camera's own axes: x to the right, the camera at the origin.
    let view = camera.compute_affine().inverse();
    let at = |s: &str| view.transform_point3(khet::board::square_center(sq(s)));
    let rank_1_near = at("e1").length() < at("e8").length();
    let a_left = at("a4").x < at("j4").x;
    assert_eq!(
        rank_1_near, a_left,
        "the board seen from one side: {camera:?}"
    );
    if rank_1_near { Side::Silver } else { Side::Red }
}

#[test]
fn the_board_faces_the_players_side_and_turns_around() {
    use khet::stage::camera::CameraAction;
    let computer = Player::Computer(khet_engine::Level::Beginner);
    let mut app = with_camera();
    start(&mut app, [Player::Person, Player::Person]);
    assert_eq!(seen_from(&mut app), Side::Silver);
    // Seated as Red online: the online table's game has Red's player the person.
    let setup = app
        .world()
        .resource::<khet::setups::SetupLibrary>()
        .classic();
    let online = NewGameSpec {
        online: true,
        ..NewGameSpec::casual(setup.clone(), [Player::Online, Player::Person])
    };
    send(&mut app, NewGameRequested(online.clone()));
    assert_eq!(seen_from(&mut app), Side::Red);
    // F turns the board around, and the board's button (its message) back.
    press(&mut app, &[KeyCode::KeyF]);
    assert_eq!(seen_from(&mut app), Side::Silver);
    send(&mut app, CameraAction::Flip);
    assert_eq!(seen_from(&mut app), Side::Red);
    // R snaps back to the home view of the side it is seen from.
    press(&mut app, &[KeyCode::KeyF]);
    press(&mut app, &[KeyCode::KeyR]);
    assert_eq!(seen_from(&mut app), Side::Silver);
    // The same online game sent again (a reconnection: with the file the table autosaves it
    // in) keeps the board as the player turned it; another game (no file yet) turns it to the
    // player's side.
    let again = NewGameSpec {
        online: true,
        resume: Some(khet::table::Resume {
            game: khet_engine::Game::new(setup.position),
            remaining: None,
            file: Some("online/abcd2345.ron".into()),
            date: String::new(),
        }),
        ..NewGameSpec::casual(setup.clone(), [Player::Online, Player::Person])
    };
    send(&mut app, NewGameRequested(online.clone()));
    assert_eq!(seen_from(&mut app), Side::Red);
    press(&mut app, &[KeyCode::KeyF]);
    send(&mut app, NewGameRequested(again));
    assert_eq!(seen_from(&mut app), Side::Silver, "turned, and sent again");
    send(&mut app, NewGameRequested(online.clone()));
    assert_eq!(seen_from(&mut app), Side::Red, "another game");
    // Against the computer, Red's player sees Red's side, and Silver's player Silver's, each
    // new game turning the board to its person whatever it was turned to before.
    start(&mut app, [computer, Player::Person]);
    assert_eq!(seen_from(&mut app), Side::Red);
    start(&mut app, [Player::Person, computer]);
    assert_eq!(seen_from(&mut app), Side::Silver);
}
