//! The computer at the table, driven headless (`MinimalPlugins` + the game's core plugin): it
//! plays its book and its searches on background threads while frames go on, answers draw
//! offers and hints, stops when a new game begins, and is given the threads the settings allow.
//! Waits are `common::wait::update_until`'s, with its named deadline: the search runs on other
//! threads.

mod common;

use bevy::prelude::*;
use common::playing::{entities_match, start};
use common::wait::update_until;
use common::{game, headless, news, send, sq};
use khet::news::News;
use khet::settings::Settings;
use khet::table::selection::Selection;
use khet::table::selection::SquareClicked;
use khet::table::{MoveRequested, NewGameRequested, NewGameSpec, Show, TableAction};
use khet_engine::Player;
use khet_engine::{Color as Side, DrawReason, GameResult, Square};

fn selected(app: &App) -> Option<Square> {
    app.world().resource::<Selection>().square(&game(app).game)
}

/// The latest news.
fn latest(app: &App) -> News {
    news(app).expect("some news")
}

fn click(app: &mut App, s: &str) {
    send(app, SquareClicked(sq(s)));
}

/// A game from Khet 1.0 Classic, whose start the opening book does not have: Master thinks
/// there (from the Khet 2.0 starts it plays the book's move at once).
fn start_unbooked(app: &mut App, players: [Player; 2]) {
    let setup = khet_engine::Setup::builtin("khet1/classic").expect("built in");
    assert!(
        khet_engine::Book::builtin()
            .probe(&setup.position)
            .is_none()
    );
    send(app, NewGameRequested(NewGameSpec::casual(setup, players)));
}

/// A game in which Master (Silver) has begun to think, from a start its book does not have.
fn master_thinking() -> App {
    master_thinking_in(headless(0.0))
}

/// [`master_thinking`] in `app`, set up as the test needs.
fn master_thinking_in(mut app: App) -> App {
    start_unbooked(
        &mut app,
        [Player::Computer(khet_engine::Level::Master), Player::Person],
    );
    update_until(&mut app, "Master thinking", |a| {
        a.world()
            .get_resource::<khet::table::ai::Thinking>()
            .is_some()
    });
    app
}

#[test]
fn master_plays_the_books_move_from_a_start_it_knows() {
    let mut app = headless(0.0);
    start(
        &mut app,
        [Player::Computer(khet_engine::Level::Master), Player::Person],
    );
    update_until(&mut app, "Master's move", |a| {
        game(a).game.turns().len() == 1
    });
    let start = khet_engine::Setup::builtin("khet2/classic")
        .unwrap()
        .position;
    let entry = khet_engine::Book::builtin()
        .probe(&start)
        .expect("in the book");
    assert_eq!(game(&app).game.turns()[0].mv, entry.mv);
}

/// The computer thinks on another thread: frames go on meanwhile. Master, from a start its book
/// does not have, thinks for its whole budget (seconds); a search on the frame's thread would
/// hold one frame that long, and its move would be there a frame or two later.
#[test]
fn frames_go_on_while_the_computer_thinks() {
    let mut app = master_thinking();
    // Frames that began and ended while it thought: a search on the frame's thread would leave
    // none (its frame ends with the move played). Few are needed, on however loaded a machine.
    let mut frames = 0;
    update_until(&mut app, "Master's move", |a| {
        let thinking = a
            .world()
            .get_resource::<khet::table::ai::Thinking>()
            .is_some();
        if thinking && game(a).game.turns().is_empty() {
            frames += 1;
        }
        game(a).game.turns().len() == 1
    });
    assert!(frames >= 3, "{frames} frames while Master thought");
}

/// A click for the computer's side is refused while it has the move, and its move comes.
#[test]
fn a_click_on_the_computers_turn_is_refused_and_the_computer_answers() {
    let mut app = headless(0.0);
    start(
        &mut app,
        [
            Player::Person,
            Player::Computer(khet_engine::Level::Beginner),
        ],
    );
    click(&mut app, "h2");
    // One frame at a time: a Beginner answers so fast that two frames can hold both moves.
    app.world_mut().write_message(SquareClicked(sq("h3")));
    let mut frames = 0;
    while !(game(&app).game.turns().len() == 1 && app.world().resource::<Show>().is_idle()) {
        assert!(frames < 100, "the person's move was not played");
        assert!(game(&app).game.turns().len() < 2, "the shot was skipped");
        app.update();
        frames += 1;
    }
    // Red has the move and the computer plays Red: the next frame's clicks run before any
    // move it found is played, so a click for Red is refused whether or not it has finished.
    app.world_mut().write_message(SquareClicked(sq("e8")));
    app.update();
    assert_eq!(selected(&app), None);
    // (The computer's move may land in the same frame: look at all of the frame's news.)
    let said: Vec<News> = app
        .world_mut()
        .resource_mut::<Messages<News>>()
        .drain()
        .collect();
    assert!(said.contains(&News::ComputersTurn), "{said:?}");
    update_until(&mut app, "the computer's move", |a| {
        game(a).game.turns().len() == 2
    });
    assert_eq!(game(&app).game.turns()[1].color, Side::Red);
    entities_match(&mut app);
}

#[test]
fn computer_against_computer_plays_a_whole_game() {
    let mut app = headless(0.0);
    let level = khet_engine::Level::Beginner;
    // A second of the game's time a frame: each move's pause (`Level::least_pause`) is over in
    // one frame, and the frames go to the game, not to the computer seeming to think.
    app.insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(
        std::time::Duration::from_secs(1),
    ));
    start(&mut app, [Player::Computer(level), Player::Computer(level)]);
    // To the end: a Pharaoh lit, no move left, or a draw rule. The frame limit only catches a
    // stall; each frame is a few milliseconds.
    let mut frames = 0;
    while !game(&app).game.is_over() {
        assert!(
            frames < 40_000,
            "stalled after {} plies",
            game(&app).game.turns().len()
        );
        app.update();
        frames += 1;
    }
    let result = game(&app).game.result().expect("a result at the end");
    let plies = game(&app).game.turns().len();
    eprintln!("{plies} plies: {result}");
    assert!(plies >= 2, "{result} after {plies} plies");
    update_until(&mut app, "the last shot shown and no search running", |a| {
        a.world().resource::<Show>().is_idle()
            && a.world()
                .get_resource::<khet::table::ai::Thinking>()
                .is_none()
    });
    entities_match(&mut app);
}

/// A move asked for before a replay opened belongs to the game left: the computer's, found in
/// the frame before the replay opened, was played into the replayed game when it happened to be
/// legal there. Both arrive in one frame here, as they do then.
#[test]
fn a_move_asked_for_as_a_replay_opens_is_not_played_into_it() {
    let mut app = headless(0.0);
    start(&mut app, [Player::Person, Player::Person]);
    let m = game(&app);
    let watch = khet::table::Watch {
        game: m.game.clone(),
        name: m.setup_name.clone(),
        back_to: None,
    };
    let mv = m.game.legal_moves()[0];
    app.world_mut().write_message(MoveRequested(mv));
    send(&mut app, watch);
    assert_eq!(
        *app.world().resource::<State<khet::screen::Screen>>().get(),
        khet::screen::Screen::Replay
    );
    assert_eq!(
        game(&app).game.turns().len(),
        0,
        "the game left's move played into the replay"
    );
}

#[test]
fn a_new_game_stops_the_computer_thinking() {
    let mut app = master_thinking();
    start(&mut app, [Player::Person, Player::Person]);
    assert!(
        app.world()
            .get_resource::<khet::table::ai::Thinking>()
            .is_none()
    );
    assert_eq!(game(&app).game.turns().len(), 0);
    // Nothing arrives from the stopped search, however long it would have run: frames for
    // longer than the Master's whole budget.
    let until = std::time::Instant::now()
        + khet::table::ai::budget(khet_engine::Level::Master)
        + std::time::Duration::from_millis(500);
    while std::time::Instant::now() < until {
        app.update();
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(game(&app).game.turns().len(), 0);
}

#[test]
fn the_computer_accepts_a_draw_only_when_not_ahead() {
    let mut app = headless(0.0);
    start(
        &mut app,
        [
            Player::Person,
            Player::Computer(khet_engine::Level::Beginner),
        ],
    );
    // At the start nobody is ahead: the computer accepts.
    send(&mut app, TableAction::OfferDraw);
    update_until(&mut app, "the computer's answer to the offer", |a| {
        game(a).draw_offer.is_none()
    });
    assert_eq!(
        game(&app).game.result(),
        Some(GameResult::Draw {
            reason: DrawReason::Agreement
        })
    );
    // A Silver Pyramid lost: Red is ahead and declines.
    start(
        &mut app,
        [
            Player::Person,
            Player::Computer(khet_engine::Level::Beginner),
        ],
    );
    let mut p = *game(&app).game.position();
    p.put(sq("h2"), None);
    p.put(sq("c4"), None);
    let spec = NewGameSpec::casual(
        khet_engine::Setup::from_position("Lopsided", "", &p),
        [
            Player::Person,
            Player::Computer(khet_engine::Level::Beginner),
        ],
    );
    send(&mut app, NewGameRequested(spec));
    send(&mut app, TableAction::OfferDraw);
    update_until(&mut app, "the computer's answer to the offer", |a| {
        game(a).draw_offer.is_none()
    });
    assert!(game(&app).game.result().is_none());
    assert_eq!(latest(&app), News::DrawDeclined { by: Side::Red });
}

#[test]
fn a_hint_names_a_legal_move() {
    let mut app = headless(0.0);
    send(&mut app, khet::table::ai::HintRequested);
    update_until(&mut app, "the hint", |a| {
        a.world().resource::<khet::table::ai::Hint>().0.is_some()
    });
    let (at, mv) = app.world().resource::<khet::table::ai::Hint>().0.unwrap();
    assert_eq!(&at, game(&app).game.position());
    assert!(at.is_legal(mv));
    assert_eq!(latest(&app), News::Hint(mv));
}

#[test]
fn the_search_is_given_the_threads_the_settings_allow() {
    for setting in [0, 1, 2] {
        let mut app = headless(0.0);
        app.world_mut().resource_mut::<Settings>().computer_threads = setting;
        let mut app = master_thinking_in(app);
        let threads = app.world().resource::<khet::table::ai::Thinking>().threads;
        let cores = khet::settings::cores();
        // What each setting means, written out here rather than asked of the program: Auto
        // leaves a core to the window (one thread on one core), a number is that many threads,
        // at most the cores.
        let expected = match (setting, cores) {
            (0, 1) => 1,
            (0, c) => c - 1,
            (1, _) => 1,
            (_, 1) => 1,
            _ => 2,
        };
        assert_eq!(threads, expected, "setting {setting} on {cores} cores");
        // It plays its move.
        update_until(&mut app, "Master's move", |a| {
            game(a).game.turns().len() == 1
        });
    }
}
