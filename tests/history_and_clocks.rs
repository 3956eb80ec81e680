//! A game's history and its clocks within one run, driven headless: replays that reproduce every
//! position and shot, take-backs that restore the exact earlier game, clocks that stand while a
//! shot is shown and away from the table, flag falls, and the computer keeping time with an
//! increment. (What lasts from one run to the next, saves and settings, is `tests/lasting.rs`.)

mod common;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use common::playing::{app, classic, entities_match, play_random};
use common::wait::{PATIENCE, update_until};
use common::{game, news, send};
use khet::news::News;
use khet::replay::Step;
use khet::screen::Screen;
use khet::settings::Settings;
use khet::table::clock::Clocks;
use khet::table::{
    MoveApplied, MoveRequested, NewGameRequested, NewGameSpec, Show, TableAction, Watch,
};
use khet_engine::{Color as Side, GameResult, Level, WinReason};
use khet_engine::{Mode, Player, TimeControl};
use std::time::Duration;

#[test]
fn a_replay_reproduces_every_position_and_shot() {
    let mut a = app(None);
    play_random(&mut a, 30, 21);
    let original = game(&a).game.clone();
    assert!(original.turns().len() >= 10);
    send(
        &mut a,
        Watch {
            game: original.clone(),
            name: "test".into(),
            back_to: None,
        },
    );
    assert_eq!(*a.world().resource::<State<Screen>>().get(), Screen::Replay);
    assert_eq!(game(&a).game.turns().len(), 0);
    a.world_mut()
        .resource_mut::<Messages<MoveApplied>>()
        .clear();
    for (i, turn) in original.turns().iter().enumerate() {
        send(&mut a, Step::Forward);
        assert_eq!(
            game(&a).game.position(),
            &original.positions()[i + 1],
            "after move {}",
            i + 1
        );
        let shown: Vec<MoveApplied> = a
            .world_mut()
            .resource_mut::<Messages<MoveApplied>>()
            .drain()
            .collect();
        assert_eq!(
            shown.last().map(|m| &m.turn),
            Some(turn),
            "the shot of move {}",
            i + 1
        );
        entities_match(&mut a);
    }
    assert_eq!(game(&a).game.result(), original.result());
    for n in [3, 0, 17, 17, 1] {
        send(&mut a, Step::To(n));
        assert_eq!(game(&a).game.position(), &original.positions()[n]);
        entities_match(&mut a);
    }
    send(&mut a, Step::Back);
    assert_eq!(game(&a).game.turns().len(), 0);
}

#[test]
fn take_backs_restore_the_exact_earlier_game() {
    let mut a = app(None);
    // A repetition dance, then Red turns its Sphinx (and may shoot): take that back.
    let spec = NewGameSpec::casual(classic(&a), [Player::Person; 2]);
    send(&mut a, NewGameRequested(spec));
    for mv in ["e1e2", "f8f7", "e2e1", "f7f8", "e1e2"] {
        let mv = game(&a).game.position().parse_move(mv).unwrap();
        send(&mut a, MoveRequested(mv));
    }
    let (pos, hash, reps, turns) = {
        let g = &game(&a).game;
        (
            *g.position(),
            g.position().key(),
            g.repetitions(),
            g.turns().len(),
        )
    };
    let sphinx = game(&a)
        .game
        .position()
        .parse_move("a8+")
        .or_else(|_| game(&a).game.position().parse_move("a8-"))
        .unwrap();
    send(&mut a, MoveRequested(sphinx));
    send(&mut a, TableAction::Undo);
    let g = &game(&a).game;
    assert_eq!(
        (
            *g.position(),
            g.position().key(),
            g.repetitions(),
            g.turns().len()
        ),
        (pos, hash, reps, turns)
    );
    assert!(matches!(news(&a), Some(News::TakenBack { plies: 1, .. })));
    entities_match(&mut a);
    // Against the computer, back to the person's own last move.
    let mut spec = NewGameSpec::casual(
        classic(&a),
        [Player::Person, Player::Computer(Level::Beginner)],
    );
    send(&mut a, NewGameRequested(spec.clone()));
    let start = *game(&a).game.position();
    let mv = start.parse_move("h2h3").unwrap();
    send(&mut a, MoveRequested(mv));
    update_until(&mut a, "the computer's answer, shown", |a| {
        game(a).game.turns().len() == 2 && a.world().resource::<Show>().is_idle()
    });
    send(&mut a, TableAction::Undo);
    assert_eq!(game(&a).game.position(), &start);
    assert_eq!(game(&a).game.turns().len(), 0);
    entities_match(&mut a);
    // A tournament game cannot take back.
    spec.players = [Player::Person; 2];
    spec.mode = Mode::Tournament;
    send(&mut a, NewGameRequested(spec));
    send(&mut a, MoveRequested(mv));
    send(&mut a, TableAction::Undo);
    assert_eq!(game(&a).game.turns().len(), 1);
    assert!(matches!(news(&a), Some(News::NoTakeBack(_))));
}

#[test]
fn a_flag_fall_loses_on_time() {
    let mut a = app(None);
    let mut spec = NewGameSpec::casual(classic(&a), [Player::Person; 2]);
    spec.clock = Some(TimeControl::new(1, 0));
    send(&mut a, NewGameRequested(spec));
    a.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_secs(7)));
    play_random(&mut a, 1, 1);
    // Silver moved at once (two frames of 7 s), Red thinks for ever.
    let silver = a.world().resource::<Clocks>().left(Side::Silver);
    for _ in 0..12 {
        a.update();
    }
    assert_eq!(
        game(&a).game.result(),
        Some(GameResult::Win {
            winner: Side::Silver,
            reason: WinReason::Time
        })
    );
    assert_eq!(
        a.world().resource::<Clocks>().left(Side::Red),
        Duration::ZERO
    );
    assert_eq!(
        a.world().resource::<Clocks>().left(Side::Silver),
        silver,
        "Silver's clock stood still"
    );
    assert!(matches!(news(&a), Some(News::Ended(_))));
}

#[test]
fn the_clocks_stand_while_a_shot_is_shown_and_away_from_the_table() {
    let mut a = app(None);
    a.world_mut().resource_mut::<Settings>().speed = 1.0;
    let mut spec = NewGameSpec::casual(classic(&a), [Player::Person; 2]);
    spec.clock = Some(TimeControl::new(1, 0));
    send(&mut a, NewGameRequested(spec));
    let left = |a: &App| {
        let c = a.world().resource::<Clocks>();
        [c.left(Side::Silver), c.left(Side::Red)]
    };
    // Silver's clock runs while Silver thinks (each frame is 1/60 s of the game's time).
    let start = left(&a);
    for _ in 0..30 {
        a.update();
    }
    assert!(left(&a)[0] < start[0] && left(&a)[1] == start[1]);
    // A move: while it and its shot are shown, neither clock runs.
    play_random(&mut a, 1, 3);
    let during = left(&a);
    let mut shown = 0;
    while !a.world().resource::<Show>().is_idle() {
        a.update();
        shown += 1;
        assert!(shown < 600, "the show never ends");
        // The frame in which the shot ends may count: Red may move from then on.
        if !a.world().resource::<Show>().is_idle() {
            assert_eq!(left(&a), during, "frame {shown} of the show");
        }
    }
    assert!(shown >= 10, "the show lasted {shown} frames");
    // Then Red's runs.
    for _ in 0..30 {
        a.update();
    }
    assert!(left(&a)[1] < during[1] && left(&a)[0] == during[0]);
    // Away from the table (the settings, the replays' list), no clock runs, and Red's runs
    // again on the way back.
    for screen in [Screen::Settings, Screen::Open] {
        common::go_to(&mut a, screen);
        let away = left(&a);
        for _ in 0..120 {
            a.update();
        }
        assert_eq!(left(&a), away, "on {screen:?}");
        common::go_to(&mut a, Screen::Playing);
        let back = left(&a);
        for _ in 0..30 {
            a.update();
        }
        assert!(left(&a)[1] < back[1], "back from {screen:?}");
    }
}

#[test]
fn the_computer_keeps_time_with_an_increment() {
    let mut a = app(None);
    // From Khet 1.0 Classic, which the opening book does not have: from a Khet 2.0 start Master
    // would play its first moves from the book at once, with no search to plan.
    let setup = khet_engine::Setup::builtin("khet1/classic").expect("built in");
    assert!(
        khet_engine::Book::builtin()
            .probe(&setup.position)
            .is_none()
    );
    let mut spec = NewGameSpec::casual(setup, [Player::Computer(Level::Master); 2]);
    spec.clock = Some(TimeControl::new(1, 1));
    // Two seconds each and a second a move: Master must plan, not spend its usual 2.5 s.
    spec.resume = Some(khet::table::Resume {
        game: khet_engine::Game::new(spec.setup.position),
        remaining: Some([Duration::from_secs(2); 2]),
        file: None,
        date: String::new(),
    });
    send(&mut a, NewGameRequested(spec));
    // The game's clocks advance 5 ms a frame while each frame lasts at least 5 ms of real time:
    // a loaded machine slows the frames, never charges the computer for the table's own delay.
    // The search's plan is checked directly: each move's budget within a third of its time left.
    let step = Duration::from_millis(5);
    a.insert_resource(TimeUpdateStrategy::ManualDuration(step));
    let mut planned = Vec::new();
    let started = std::time::Instant::now();
    while game(&a).game.turns().len() < 6 && !game(&a).game.is_over() {
        assert!(
            started.elapsed() < PATIENCE,
            "six moves never came: {:?}",
            game(&a).game.turns().len()
        );
        a.update();
        if let Some(t) = a.world().get_resource::<khet::table::ai::Thinking>() {
            let side = game(&a).game.side_to_move();
            // The time left when the search began: now, plus what its thinking has cost so far.
            let thought = a.world().resource::<Time>().elapsed_secs() - t.since;
            let left = a.world().resource::<Clocks>().left(side)
                + Duration::from_secs_f32(thought.max(0.0));
            let ply = game(&a).game.turns().len();
            if planned.last().is_none_or(|&(p, _, _)| p != ply) {
                planned.push((ply, t.budget, left));
            }
        }
        std::thread::sleep(step);
    }
    let result = game(&a).game.result();
    assert!(
        !matches!(
            result,
            Some(GameResult::Win {
                reason: WinReason::Time,
                ..
            })
        ),
        "{result:?}"
    );
    assert!(game(&a).game.turns().len() >= 6 || result.is_some());
    assert!(
        planned.len() >= 6.min(game(&a).game.turns().len()),
        "{planned:?}"
    );
    for &(ply, budget, left) in &planned {
        assert!(
            budget <= left / 3 && budget < Duration::from_millis(2500),
            "ply {ply}: {budget:?} planned with {left:?} left"
        );
    }
}
