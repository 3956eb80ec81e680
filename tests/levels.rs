//! The computer's levels as a player meets them, headless: the players' picker (drawn by egui
//! and clicked through its accessibility tree) shows each level with its rating and remembers
//! the last one chosen across restarts; two wins in a row against a level bring the suggestion
//! of the next one up, which starts that game; the computer's move waits for its pause, counted
//! in the game's time.

mod common;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_egui::egui;
use common::playing::start;
use common::wait::update_until;
use common::{game, headless, headless_with, send, temp_dir};
use khet::settings::{Settings, SettingsFile, Streak};
use khet::table::ai::Thinking;
use khet::table::ladder::{Climb, suggestion};
use khet::table::{MoveRequested, NewGameRequested, NewGameSpec, TableAction};
use khet_engine::{Color as Side, GameResult, Level, Player, Position, Setup};
use std::path::Path;
use std::time::Duration;

/// The game as it starts for a player, its settings in `path`, animations instant.
fn with_settings_file(path: &Path) -> App {
    let mut app = headless_with(0.0, |app| {
        app.insert_resource(SettingsFile::new(path.to_path_buf()));
    });
    app.world_mut().resource_mut::<Settings>().speed = 0.0;
    app
}

/// Frames enough for a change of the settings to be saved (half a second of the game's time).
fn let_save(app: &mut App) {
    for _ in 0..40 {
        app.update();
    }
}

/// The players' picker as the panels draw it, over `players` and the level last chosen, each
/// frame drawn by egui and read through its accessibility tree.
struct Picker {
    ctx: egui::Context,
    players: [Player; 2],
    last: Level,
}

impl Picker {
    fn new(settings: &Settings) -> Picker {
        let ctx = egui::Context::default();
        ctx.enable_accesskit();
        let mut picker = Picker {
            ctx,
            players: settings.players,
            last: settings.computer_level,
        };
        picker.frame(Vec::new());
        picker
    }

    /// One frame with these input events: each node's text (its label, or its value) and where
    /// it is.
    fn frame(&mut self, events: Vec<egui::Event>) -> Vec<(String, egui::Pos2)> {
        let input = egui::RawInput {
            events,
            ..Default::default()
        };
        let (players, last) = (&mut self.players, &mut self.last);
        let mut output = self
            .ctx
            .run_ui(input, |ui| khet::theme::players::players(ui, players, last));
        output.textures_delta.clear();
        let tree = output
            .platform_output
            .accesskit_update
            .expect("the accessibility tree");
        tree.nodes
            .iter()
            .filter_map(|(_, n)| {
                let text = n.label().or(n.value())?.to_string();
                let b = n.bounds()?;
                let centre = egui::pos2(((b.x0 + b.x1) / 2.0) as f32, ((b.y0 + b.y1) / 2.0) as f32);
                Some((text, centre))
            })
            .collect()
    }

    /// What is shown now.
    fn texts(&mut self) -> Vec<String> {
        self.frame(Vec::new()).into_iter().map(|(t, _)| t).collect()
    }

    /// Clicks the widget showing `text` in `side`'s row (Silver's is above Red's), as a mouse
    /// does, and draws the frame after.
    fn click(&mut self, text: &str, side: Side) {
        let mut at: Vec<egui::Pos2> = self
            .frame(Vec::new())
            .into_iter()
            .filter(|(t, _)| t == text)
            .map(|(_, p)| p)
            .collect();
        at.sort_by(|a, b| a.y.total_cmp(&b.y));
        let pos = match (side, at.as_slice()) {
            (_, [only]) => *only,
            (Side::Silver, [first, ..]) => *first,
            (Side::Red, [.., last]) => *last,
            _ => panic!("no {text:?} shown: {:?}", self.texts()),
        };
        let press = |pressed| egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        };
        self.frame(vec![egui::Event::PointerMoved(pos), press(true)]);
        self.frame(vec![press(false)]);
        self.frame(Vec::new());
    }
}

/// A level as the picker shows it: its name and the engine's rating.
fn rated(level: Level) -> String {
    format!("{} · {}", level.name(), level.rating())
}

#[test]
fn the_picker_shows_ratings_and_computer_gives_the_level_last_chosen_after_a_restart() {
    let dir = temp_dir("levels-picker");
    let path = dir.join("settings.ron");
    let mut app = with_settings_file(&path);
    // The new-game form's players as they start: a person (Silver) against Casual.
    let mut picker = Picker::new(app.world().resource::<Settings>());
    assert_eq!(
        picker.players,
        [Player::Person, Player::Computer(Level::Casual)]
    );
    assert!(picker.texts().contains(&rated(Level::Casual)));
    // The list shows every level with its rating; choosing one makes it the last chosen.
    picker.click(&rated(Level::Casual), Side::Red);
    let listed = picker.texts();
    for level in Level::ALL {
        assert!(listed.contains(&rated(level)), "{level} in {listed:?}");
    }
    picker.click(&rated(Level::Skilled), Side::Red);
    assert_eq!(picker.players[1], Player::Computer(Level::Skilled));
    assert_eq!(picker.last, Level::Skilled);
    // Kept in the settings, as the panels keep their choices, and saved.
    let mut settings = app.world_mut().resource_mut::<Settings>();
    settings.players = picker.players;
    settings.computer_level = picker.last;
    let_save(&mut app);
    // After a restart, a person made the computer is given that level, not Casual.
    let mut again = with_settings_file(&path);
    let loaded = again.world().resource::<Settings>().clone();
    assert_eq!(loaded.computer_level, Level::Skilled);
    let mut picker = Picker::new(&loaded);
    picker.click("Person", Side::Red);
    assert_eq!(picker.players[1], Player::Person);
    picker.click("Computer", Side::Silver);
    assert_eq!(picker.players[0], Player::Computer(Level::Skilled));
    again.update();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Plays the move `text` for the side to move, as the mouse would.
fn play(app: &mut App, text: &str) {
    let mv = game(app).game.position().parse_move(text);
    send(app, MoveRequested(mv.expect("a move")));
}

/// A position from a shipped puzzle, Silver to move: h1g1 lights Red's Pharaoh.
const SILVER_WINS_IN_ONE: &str = "x29/3s1kP34/9P1/4P4S1S13/5A21s22/2P47/2KA11P24/1P15P11X4 0";

/// A game won by the person (Silver) against `level` in one move.
fn win_against(app: &mut App, level: Level) {
    let position: Position = SILVER_WINS_IN_ONE.parse().expect("a position");
    let setup = Setup::from_position("Win in one", "", &position);
    let players = [Player::Person, Player::Computer(level)];
    send(app, NewGameRequested(NewGameSpec::casual(setup, players)));
    play(app, "h1g1");
    assert!(matches!(
        game(app).game.result(),
        Some(GameResult::Win {
            winner: Side::Silver,
            ..
        })
    ));
}

/// A game lost by the person (Silver) against `level`: resigned.
fn lose_against(app: &mut App, level: Level) {
    start(app, [Player::Person, Player::Computer(level)]);
    send(app, TableAction::Resign);
    assert!(matches!(
        game(app).game.result(),
        Some(GameResult::Win {
            winner: Side::Red,
            ..
        })
    ));
}

/// What the game-over window suggests for the game on the table.
fn suggested(app: &App) -> Option<(Level, u32, Level)> {
    suggestion(game(app), app.world().resource::<Settings>().streak)
}

#[test]
fn two_wins_in_a_row_suggest_the_next_level_and_its_button_starts_that_game() {
    let dir = temp_dir("levels-climb");
    let path = dir.join("settings.ron");
    let mut app = with_settings_file(&path);
    win_against(&mut app, Level::Casual);
    assert_eq!(suggested(&app), None, "after one win");
    // A win taken back and won again is one win.
    send(&mut app, TableAction::Undo);
    assert_eq!(game(&app).game.result(), None);
    play(&mut app, "h1g1");
    assert!(game(&app).game.result().is_some());
    assert_eq!(suggested(&app), None, "one win, counted twice");
    win_against(&mut app, Level::Casual);
    assert_eq!(suggested(&app), Some((Level::Casual, 2, Level::Club)));
    // The wins in a row last across a restart.
    let_save(&mut app);
    let again = with_settings_file(&path);
    let streak = again.world().resource::<Settings>().streak;
    assert_eq!(
        streak,
        Some(Streak {
            level: Level::Casual,
            wins: 2
        })
    );
    // The suggestion's button: the same game again, the computer at the next level, which the
    // picker gives from then on.
    send(&mut app, Climb(Level::Club));
    let m = game(&app);
    assert_eq!(
        m.spec.players,
        [Player::Person, Player::Computer(Level::Club)]
    );
    assert_eq!(
        (m.setup_name.as_str(), m.game.turns().len()),
        ("Win in one", 0)
    );
    let settings = app.world().resource::<Settings>();
    assert_eq!(settings.computer_level, Level::Club);
    // A loss between two wins: no suggestion.
    win_against(&mut app, Level::Casual);
    lose_against(&mut app, Level::Casual);
    win_against(&mut app, Level::Casual);
    assert_eq!(suggested(&app), None, "a loss between the wins");
    // Another level between them: none either.
    win_against(&mut app, Level::Casual);
    win_against(&mut app, Level::Strong);
    win_against(&mut app, Level::Casual);
    assert_eq!(suggested(&app), None, "another level between the wins");
    // A hotseat game does not count; two wins against Grandmaster, the top, have nowhere to go.
    win_against(&mut app, Level::Casual);
    start(&mut app, [Player::Person; 2]);
    send(&mut app, TableAction::Resign);
    win_against(&mut app, Level::Casual);
    assert_eq!(suggested(&app), Some((Level::Casual, 3, Level::Club)));
    win_against(&mut app, Level::Grandmaster);
    win_against(&mut app, Level::Grandmaster);
    assert_eq!(suggested(&app), None, "no level above Grandmaster");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_computers_move_is_held_until_its_pause_has_passed_in_the_games_time() {
    let mut app = headless(0.0);
    let level = Level::Beginner;
    start(&mut app, [Player::Person, Player::Computer(level)]);
    // The game's time stands still: the search ends on its thread, and its move is held.
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::ZERO));
    play(&mut app, "h2h3");
    update_until(&mut app, "the computer's move, found or shown", |a| {
        let held = a
            .world()
            .get_resource::<Thinking>()
            .is_some_and(Thinking::held);
        held || game(a).game.turns().len() == 2
    });
    for _ in 0..5 {
        app.update();
    }
    assert_eq!(game(&app).game.turns().len(), 1, "shown before its pause");
    // The game's time moves on, a sixtieth of a second a frame: the move is shown once the
    // pause has passed since the computer began to think, and not before.
    let since = app.world().resource::<Thinking>().since;
    let pause = level.least_pause().as_secs_f32();
    app.insert_resource(TimeUpdateStrategy::ManualDuration(
        Duration::from_secs(1) / 60,
    ));
    let thought = |a: &App| a.world().resource::<Time>().elapsed_secs() - since;
    let mut frames = 0;
    while game(&app).game.turns().len() < 2 {
        assert!(thought(&app) < pause + 0.1, "held for {}s", thought(&app));
        app.update();
        frames += 1;
        assert!(frames < 1000, "never shown");
    }
    assert!(thought(&app) >= pause, "shown after {}s", thought(&app));
    assert_eq!(game(&app).game.turns()[1].color, Side::Red);
}
