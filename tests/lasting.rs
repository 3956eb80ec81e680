//! What makes games last from one run to the next, driven headless: saves and resumption (also
//! beside a half-written temporary file, after a failed write, and on a disk that fills up), a
//! writer process killed in the middle of `write_atomic`, saves and settings written by earlier
//! versions of the game (`tests/fixtures/`), settings kept between starts, damaged save and
//! settings files kept and reported, and the names and text that games are saved and pasted as.
//! (A game's history and clocks within one run, replays, take-backs and flag falls, are
//! `tests/history_and_clocks.rs`.)

mod common;

use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use common::playing::{app, classic, entities_match, moves_that_go_on, play_random};
use common::{game, news, send, temp_dir};
use khet::core_plugin;
use khet::news::{News, Notices};
use khet::replay::Step;
use khet::saves::{ResumeOffer, SavedGames};
use khet::screen::Screen;
use khet::settings::{Palette, Quality, Settings, SettingsFile, Streak};
use khet::table::clock::Clocks;
use khet::table::{NewGameRequested, NewGameSpec, Show, Watch};
use khet_engine::{Color as Side, GameResult, Level, WinReason};
use khet_engine::{Edition, NoMoves, SwapLanding};
use khet_engine::{Mode, Player, TimeControl};
use std::path::{Path, PathBuf};
use std::time::Duration;

#[test]
fn a_saved_game_resumes_exactly_with_its_clocks() {
    let dir = temp_dir("resume");
    let mut a = app(Some(&dir));
    // Clocks that stand still between frames, so that the saved times can be compared.
    a.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::ZERO));
    let mut spec = NewGameSpec::casual(classic(&a), [Player::Person; 2]);
    spec.clock = Some(TimeControl::new(5, 3));
    send(&mut a, NewGameRequested(spec));
    a.world_mut().resource_mut::<Clocks>().remaining = [
        Duration::from_millis(271_500),
        Duration::from_millis(12_250),
    ];
    play_random(&mut a, 9, 11);
    // Five moves of Silver's and four of Red's, 3 s each.
    assert_eq!(
        a.world().resource::<Clocks>().remaining,
        [
            Duration::from_millis(286_500),
            Duration::from_millis(24_250)
        ]
    );
    let file = game(&a).file.clone().expect("saved after the first move");
    let clocks = a.world().resource::<Clocks>().clone();
    let before = game(&a).game.clone();
    // A second run of the game finds it, offers it and takes it up where it stood.
    let mut b = app(Some(&dir));
    b.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::ZERO));
    let offered = b.world().resource::<ResumeOffer>().0.clone();
    assert_eq!(offered.as_ref(), Some(&file));
    let saved = khet::saves::read(&file).unwrap();
    send(&mut b, NewGameRequested(saved.spec(&file)));
    let after = &game(&b).game;
    assert_eq!(after.position(), before.position());
    assert_eq!(after.position().key(), before.position().key());
    assert_eq!(after.turns(), before.turns());
    assert_eq!(after.repetitions(), before.repetitions());
    let resumed = b.world().resource::<Clocks>();
    assert_eq!(resumed.control, clocks.control);
    assert_eq!(resumed.remaining, clocks.remaining);
    assert_eq!(game(&b).file.as_ref(), Some(&file));
    entities_match(&mut b);
    // Playing on writes to the same file.
    play_random(&mut b, 1, 5);
    assert_eq!(
        khet::saves::read(&file).unwrap().game.turns().len(),
        before.turns().len() + 1
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_move_played_instead_withdraws_the_offer_to_resume() {
    let dir = temp_dir("offer-withdrawn");
    let mut a = app(Some(&dir));
    play_random(&mut a, 3, 7);
    let file = game(&a).file.clone().expect("saved after the first move");
    // The next start offers it; the player plays at the table instead.
    let mut b = app(Some(&dir));
    assert_eq!(b.world().resource::<ResumeOffer>().0.as_ref(), Some(&file));
    play_random(&mut b, 1, 7);
    assert!(
        b.world().resource::<ResumeOffer>().0.is_none(),
        "the offer stands over the game being played"
    );
    assert_eq!(
        khet::saves::read(&file).unwrap().game.turns().len(),
        3,
        "the game offered is as it was"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_half_written_temporary_file_and_a_failed_write_leave_the_last_save_whole() {
    let dir = temp_dir("killed");
    let mut a = app(Some(&dir));
    play_random(&mut a, 6, 3);
    let file = game(&a).file.clone().unwrap();
    let good = std::fs::read(&file).unwrap();
    // The next write was killed after writing half of its temporary file: the rename never
    // happened, so the file holds the last complete save.
    let tmp = khet::files::temporary(&file);
    std::fs::write(&tmp, &good[..good.len() / 2]).unwrap();
    let games = khet::saves::list(&dir.join("games"));
    assert_eq!(games.len(), 1, "the temporary file is not a game");
    let saved = games[0].game.as_ref().unwrap();
    assert_eq!(saved.game.position(), game(&a).game.position());
    // And an atomic write that fails leaves the old file whole.
    let blocked = dir.join("games").join("blocked.ron");
    std::fs::create_dir_all(khet::files::temporary(&blocked)).unwrap();
    std::fs::write(&blocked, b"old").unwrap();
    assert!(khet::files::write_atomic(&blocked, b"new").is_err());
    assert_eq!(std::fs::read(&blocked).unwrap(), b"old");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn damaged_saves_are_listed_and_kept() {
    let dir = temp_dir("damaged");
    let games = dir.join("games");
    std::fs::create_dir_all(&games).unwrap();
    let bad = "Record(\n    start: \"x33a3ka3p22/2p37/3P46/p11P31s1s21p21P4/p21P41S2S11p11P3/6p23/7P12/2P4A1KA13X1 0\",\n    moves: [\"j1-\", \"a8a1\"],\n)\n";
    std::fs::write(games.join("bad.ron"), bad).unwrap();
    std::fs::write(games.join("cut.ron"), "Record(\n    start: \"x33").unwrap();
    std::fs::write(games.join("bytes.ron"), [0xff, 0xfe, 0x00, 0x41]).unwrap();
    let mut a = app(Some(&dir));
    let listed = &a.world().resource::<SavedGames>().0;
    assert_eq!(listed.len(), 3);
    for entry in listed {
        let e = entry.game.as_ref().unwrap_err();
        assert!(e.contains(&entry.path.display().to_string()), "{e}");
    }
    let bad_error = listed
        .iter()
        .find(|e| e.path.ends_with("bad.ron"))
        .unwrap()
        .game
        .as_ref()
        .unwrap_err()
        .clone();
    assert!(
        bad_error.contains("bad.ron:3:") && bad_error.contains("move 2"),
        "{bad_error}"
    );
    assert!(
        a.world().resource::<ResumeOffer>().0.is_none(),
        "a damaged file is not offered"
    );
    // A game played meanwhile gets a file of its own; the damaged ones stay as they were.
    play_random(&mut a, 2, 9);
    assert_eq!(std::fs::read_to_string(games.join("bad.ron")).unwrap(), bad);
    assert_eq!(
        std::fs::read(games.join("bytes.ron")).unwrap(),
        [0xff, 0xfe, 0x00, 0x41]
    );
    assert_eq!(khet::saves::list(&games).len(), 4);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn settings_persist_and_a_damaged_file_is_kept() {
    let dir = temp_dir("settings");
    let path = dir.join("settings.ron");
    let mut a = with_settings_file(&path);
    a.world_mut().resource_mut::<Settings>().palette = Palette::ColourBlind;
    a.world_mut().resource_mut::<Settings>().players =
        [Player::Computer(Level::Strong), Player::Person];
    for _ in 0..6 {
        a.update();
    }
    let b = with_settings_file(&path);
    let loaded = b.world().resource::<Settings>();
    assert_eq!(loaded.palette, Palette::ColourBlind);
    assert_eq!(
        loaded.players,
        [Player::Computer(Level::Strong), Player::Person]
    );
    // Damaged: the defaults, a notice with file and line, and the file kept beside.
    let damaged = "Settings(\n    speed: 1.0,\n    palete: ColourBlind,\n)\n";
    std::fs::write(&path, damaged).unwrap();
    let mut c = with_settings_file(&path);
    c.update();
    assert_eq!(*c.world().resource::<Settings>(), Settings::default());
    let notices = &c.world().resource::<Notices>().0;
    assert!(
        notices
            .iter()
            .any(|n| n.contains("settings.ron:3:") && n.contains("palete")),
        "{notices:?}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("settings.ron.damaged")).unwrap(),
        damaged
    );
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        damaged,
        "not overwritten unasked"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The game started as it starts for a player, with its settings in `path`: one frame run, and
/// each frame 200 ms of the game's time.
fn with_settings_file(path: &Path) -> App {
    let mut app = App::new();
    app.insert_resource(SettingsFile::new(path.to_path_buf()));
    app.add_plugins(MinimalPlugins).add_plugins(core_plugin);
    app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
        200,
    )));
    app.update();
    app
}

#[test]
fn pasted_text_starts_a_game_there() {
    let rules = khet_engine::Rules::default();
    let line = "position classic moves e1e2 f8f7";
    let g = khet::table::spec::game_from_text(line, rules).unwrap();
    assert_eq!(g.turns().len(), 2);
    let again = khet::table::spec::game_from_text(&g.to_protocol_line(), rules).unwrap();
    assert_eq!(again.position(), g.position());
    let bare = khet::table::spec::game_from_text(&g.position().to_string(), rules).unwrap();
    assert_eq!(bare.position(), g.position());
    for bad in [
        "",
        "position",
        "hello",
        "position classic moves z9z9",
        &"x".repeat(100_000),
    ] {
        assert!(
            khet::table::spec::game_from_text(bad, rules).is_err(),
            "{bad:.20}"
        );
    }
}

#[test]
fn players_are_named_in_records_and_read_back() {
    for p in [
        Player::Person,
        Player::Computer(Level::Beginner),
        Player::Computer(Level::Master),
    ] {
        assert_eq!(Player::from_label(&p.label()), p);
    }
    // Another program's or a person's name is a person.
    assert_eq!(Player::from_label("Khet2-AI 1.3"), Player::Person);
    assert_eq!(Player::from_label("Computer Emperor"), Player::Person);
}

#[test]
fn save_names_cannot_leave_the_folder() {
    assert_eq!(khet::saves::file_name("../../etc/passwd"), "etcpasswd");
    assert_eq!(khet::saves::file_name("  "), "game");
    assert_eq!(khet::saves::file_name("Mon jeu — été"), "Mon jeu  été");
    assert_eq!(khet::saves::file_name(&"x".repeat(500)).len(), 60);
}

#[test]
fn a_setting_changed_at_start_is_saved_for_the_next_start() {
    // As when Auto picks Low on a software renderer and says so once: the game itself sets
    // `told_software_renderer` in its first frames, and the next start must remember it.
    let dir = temp_dir("told");
    let path = dir.join("settings.ron");
    let start = |path: &Path, tell: bool| {
        let mut app = App::new();
        app.insert_resource(SettingsFile::new(path.to_path_buf()));
        app.add_plugins(MinimalPlugins).add_plugins(core_plugin);
        if tell {
            app.add_systems(PostStartup, |mut s: ResMut<Settings>| {
                s.told_software_renderer = true;
            });
        }
        app.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_millis(
            200,
        )));
        app.update();
        app
    };
    let mut first = start(&path, true);
    assert!(!path.exists(), "nothing written in the first frame");
    for _ in 0..6 {
        first.update();
    }
    let second = start(&path, false);
    assert!(second.world().resource::<Settings>().told_software_renderer);
    // Settings equal to the file write nothing: a start that changes nothing leaves it alone.
    let written = std::fs::metadata(&path).and_then(|m| m.modified()).unwrap();
    let mut third = start(&path, false);
    third.world_mut().resource_mut::<Settings>().set_changed();
    for _ in 0..6 {
        third.update();
    }
    let after = std::fs::metadata(&path).and_then(|m| m.modified()).unwrap();
    assert_eq!(written, after);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The environment variable that makes [`killed_writer`] write: the save file's path.
const KILLED_WRITER: &str = "KHET_KILLED_WRITER";

/// How long the writer may take to write at all before the test fails (only a hang fails it).
const WRITER_PATIENCE: Duration = Duration::from_secs(60);

/// The child of
/// [`a_process_killed_in_the_middle_of_write_atomic_leaves_the_previous_file_whole`]: it writes a
/// growing game to one file as fast as it can, until it is killed, with the calls the autosave
/// makes (`Record::to_ron`, then `files::write_atomic`) but without the game: no app, no table,
/// no autosave. Ignored: run only as that test's child (with the variable set; without it, it
/// returns at once).
#[test]
#[ignore = "the writer that a_process_killed_in_the_middle_of_write_atomic_leaves_the_previous_file_whole kills"]
fn killed_writer() {
    let Some(file) = std::env::var_os(KILLED_WRITER) else {
        return;
    };
    let setup = khet_engine::Setup::builtin("classic").unwrap();
    let mut rng = khet_engine::Rng::new(std::process::id().into());
    let mut game = khet_engine::Game::new(setup.position);
    loop {
        if game.is_over() {
            game = khet_engine::Game::new(setup.position);
        }
        let mv = rng.pick(&game.legal_moves()).unwrap();
        game.play(mv).unwrap();
        let record = khet_engine::Record::from_game(&game, "khet2/classic");
        khet::files::write_atomic(Path::new(&file), record.to_ron().as_bytes()).unwrap();
    }
}

/// A process killed (SIGKILL) in the middle of `files::write_atomic`, twelve times at different
/// points of its writing, leaves the file it was writing whole: the last complete write, read
/// back as a save, and no temporary file taken for a game. The writer ([`killed_writer`]) calls
/// `write_atomic` itself; the game's autosave is not driven here.
#[test]
fn a_process_killed_in_the_middle_of_write_atomic_leaves_the_previous_file_whole() {
    let dir = temp_dir("kill");
    let file = dir.join("games").join("killed.ron");
    let me = std::env::current_exe().expect("this test program");
    for round in 0..12 {
        let mut child = std::process::Command::new(&me)
            .args(["--ignored", "--exact", "killed_writer", "--test-threads=1"])
            .env(KILLED_WRITER, &file)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("the writer starts");
        // Killed (SIGKILL) after a different number of its writes each round, in the middle of
        // whatever it is doing then: most of its time is writing and syncing.
        let start = std::time::Instant::now();
        let mut seen = std::fs::read(&file).ok();
        let mut changes = 0;
        while changes < 1 + round % 4 {
            assert!(
                start.elapsed() < WRITER_PATIENCE,
                "the writer never wrote (round {round})"
            );
            std::thread::sleep(Duration::from_millis(1));
            let now = std::fs::read(&file).ok();
            if now.is_some() && now != seen {
                changes += 1;
                seen = now;
            }
        }
        child.kill().expect("killed");
        child.wait().expect("gone");
        // What is on disk is a whole save: the last complete one.
        let saved = khet::saves::read(&file)
            .unwrap_or_else(|e| panic!("round {round}: the save after the kill: {e}"));
        assert!(!saved.game.turns().is_empty(), "round {round}");
        // The interrupted write's temporary file is no game.
        let games = khet::saves::list(&dir.join("games"));
        assert_eq!(games.len(), 1, "round {round}: one game, no temporary file");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The files that earlier versions of the game wrote, each in a folder named after the commit
/// that wrote it (`tests/fixtures/README.md`).
fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

#[test]
fn saved_games_of_the_first_format_resume_and_replay() {
    // The first game that saved (ae6dba7) wrote these; the format has been the same since.
    let dir = temp_dir("first-saves");
    let games = dir.join("games");
    std::fs::create_dir_all(&games).unwrap();
    for file in std::fs::read_dir(fixtures().join("ae6dba7/games")).unwrap() {
        let file = file.unwrap().path();
        std::fs::copy(&file, games.join(file.file_name().unwrap())).unwrap();
    }
    let mut a = app(Some(&dir));
    let listed = &a.world().resource::<SavedGames>().0;
    assert_eq!(listed.len(), 3, "{listed:?}");
    for entry in listed {
        if let Err(e) = &entry.game {
            panic!("an old save is listed as damaged: {e}");
        }
    }
    // The unfinished one is offered at start, and takes up where it stood: its moves, its
    // players, its clocks.
    let unfinished = games.join("2026-11-22T14-30-05Z.ron");
    assert_eq!(
        a.world().resource::<ResumeOffer>().0.as_ref(),
        Some(&unfinished)
    );
    a.insert_resource(TimeUpdateStrategy::ManualDuration(Duration::ZERO));
    let saved = khet::saves::read(&unfinished).unwrap();
    send(&mut a, NewGameRequested(saved.spec(&unfinished)));
    let m = game(&a);
    let moves: Vec<String> = m.game.turns().iter().map(|t| t.mv.to_string()).collect();
    assert_eq!(
        moves,
        [
            "c4d4", "h4g5", "d4+", "g8-", "c1b2", "f5f6", "j5j6", "a5a6", "j4+", "a4b3", "h2g1",
            "g8f7"
        ]
    );
    assert_eq!(
        m.game.position().to_string(),
        "x33a3k1p22/2p32a24/p12P41s24/2P31s15/3P1S2S14/1p24p23/1P48/3A1KA1P12X1 0"
    );
    assert_eq!(m.game.result(), None);
    assert_eq!(m.setup_name, "Classic");
    assert_eq!(m.date, "2026-11-22T14:30:05Z");
    assert_eq!(
        m.spec.players,
        [Player::Person, Player::Computer(Level::Strong)]
    );
    assert_eq!(m.spec.mode, Mode::Casual);
    assert_eq!(m.file.as_ref(), Some(&unfinished));
    let clocks = a.world().resource::<Clocks>();
    assert_eq!(clocks.control, TimeControl::new(5, 3));
    assert_eq!(
        clocks.remaining,
        [
            Duration::from_millis(271_500),
            Duration::from_millis(288_250)
        ]
    );
    entities_match(&mut a);
    // Playing on saves the game over the old file, and it reads back whole; the computer
    // answers (waited for, so that its move cannot land in the replays below) once the game's
    // time moves again: its move waits for its pause (`Level::least_pause`).
    a.insert_resource(TimeUpdateStrategy::ManualDuration(
        Duration::from_secs(1) / 60,
    ));
    play_random(&mut a, 1, 5);
    let asked = std::time::Instant::now();
    while game(&a).game.turns().len() < 14 || !a.world().resource::<Show>().is_idle() {
        assert!(
            asked.elapsed() < COMPUTER_PATIENCE,
            "the computer never answered"
        );
        a.update();
        std::thread::sleep(Duration::from_millis(5));
    }
    let again = khet::saves::read(&unfinished).unwrap();
    assert_eq!(again.game.turns().len(), 14);
    assert_eq!(again.game.position(), game(&a).game.position());
    assert_eq!(again.record.date, "2026-11-22T14:30:05Z");
    // The finished ones replay move by move to their results: one a Pharaoh lit by its last
    // shot, one resigned (a result no move makes).
    let finished = [
        (
            "2026-11-22T15-02-41Z.ron",
            34,
            "x33p25/4a3kp1s22/p13p35/6P21P21/2s1p42S13/2S24p22/4KP14/3P4A1P13X1 0",
            GameResult::Win {
                winner: Side::Red,
                reason: WinReason::PharaohHit,
            },
        ),
        (
            "Imhotep resigned.ron",
            7,
            "4o2k4/1P44o21d21/1P34p13/p13P2d22p2P3/p2P42D2p44/3P32p23//2D2O2KO24 1",
            GameResult::Win {
                winner: Side::Silver,
                reason: WinReason::Resignation,
            },
        ),
    ];
    for (name, length, end, result) in finished {
        let path = games.join(name);
        let saved = khet::saves::read(&path).unwrap();
        send(
            &mut a,
            Watch {
                game: saved.game.clone(),
                name: saved.record.setup.clone(),
                back_to: None,
            },
        );
        assert_eq!(*a.world().resource::<State<Screen>>().get(), Screen::Replay);
        assert_eq!(game(&a).game.turns().len(), 0, "{name}");
        for _ in 0..length + 1 {
            send(&mut a, Step::Forward);
        }
        let shown = &game(&a).game;
        assert_eq!(shown.turns().len(), length, "{name}");
        assert_eq!(shown.position().to_string(), end, "{name}");
        assert_eq!(shown.result(), Some(result), "{name}");
        entities_match(&mut a);
    }
    // And they keep what they were played under.
    let dynasty = khet::saves::read(&games.join(finished[0].0)).unwrap();
    let spec = dynasty.spec(&games.join(finished[0].0));
    assert_eq!(spec.mode, Mode::Tournament);
    assert_eq!(spec.rules.swap_landing, SwapLanding::Permissive);
    assert_eq!(
        spec.players,
        [Player::Computer(Level::Master), Player::Person]
    );
    let imhotep = khet::saves::read(&games.join(finished[1].0)).unwrap();
    assert_eq!(imhotep.game.start().edition(), Edition::Khet1);
    assert_eq!(imhotep.game.start().rules().no_moves, NoMoves::Loss);
    assert_eq!(imhotep.record.setup, "Imhotep (Khet 1.0)");
    let _ = std::fs::remove_dir_all(&dir);
}

/// How long the computer may take to answer a move before the test fails (only a hang fails it).
const COMPUTER_PATIENCE: Duration = Duration::from_secs(120);

/// Each format of `settings.ron` the game has written, oldest first: the commit whose game
/// wrote it (its folder in `tests/fixtures/`). Each added fields, none renamed or removed one.
const SETTINGS_FORMATS: [&str; 8] = [
    "ae6dba7", "defaf76", "f6513da", "d4f6e05", "aed11ff", "eb2a626", "7165270", "2466d14",
];

/// The settings that the fixture of `SETTINGS_FORMATS[format]` holds: every field that format
/// has, changed from its default, and today's defaults for the fields it did not have yet.
fn settings_in_format(format: usize) -> Settings {
    let mut s = Settings {
        speed: 2.0,
        palette: Palette::ColourBlind,
        mode: Mode::Tournament,
        players: [Player::Computer(Level::Strong), Player::Person],
        clock: Some(TimeControl::new(10, 5)),
        swap_landing: SwapLanding::Permissive,
        camera_pitch_degrees: 40.0,
        camera_distance: 16.5,
        offer_resume: false,
        ..Settings::default()
    };
    if format >= 1 {
        s.laser_preview = false;
    }
    if format >= 2 {
        s.quality = Quality::Medium;
        s.told_software_renderer = true;
    }
    if format >= 3 {
        s.volume = 0.25;
        s.muted = true;
        s.camera_shake = false;
    }
    if format >= 4 {
        s.online_name = "Ankh".into();
        s.online_server = "ws://khet.example.org:7878".into();
    }
    if format >= 5 {
        s.computer_threads = 3;
    }
    if format >= 6 {
        s.computer_book = false;
    }
    if format >= 7 {
        s.computer_level = Level::Expert;
        s.streak = Some(Streak {
            level: Level::Apprentice,
            wins: 3,
        });
    }
    s
}

#[test]
fn settings_of_every_earlier_format_load_as_the_player_left_them() {
    let dir = temp_dir("old-settings");
    for (format, commit) in SETTINGS_FORMATS.into_iter().enumerate() {
        let path = dir.join(commit).join("settings.ron");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::copy(fixtures().join(commit).join("settings.ron"), &path).unwrap();
        let mut a = with_settings_file(&path);
        a.update();
        let notices = &a.world().resource::<Notices>().0;
        assert!(notices.is_empty(), "{commit}'s settings: {notices:?}");
        assert!(
            !path.with_file_name("settings.ron.damaged").exists(),
            "{commit}'s settings were kept as damaged"
        );
        assert_eq!(
            *a.world().resource::<Settings>(),
            settings_in_format(format),
            "{commit}'s settings"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The environment variable that makes [`full_disk_writer`] run: a folder, on whose `disk`
/// subfolder a tmpfs of [`FULL_DISK_SIZE`] is mounted.
const FULL_DISK: &str = "KHET_FULL_DISK";

/// The tmpfs's size: room for a short save, which the filler then takes.
const FULL_DISK_SIZE: &str = "1m";

/// The most the filler may write before the test decides it is not on its small tmpfs.
const FILLER_LIMIT: u64 = 16 << 20;

/// Fills the file system of `path` with one file: the error that stopped it.
fn fill(path: &Path) -> std::io::Error {
    use std::io::Write;
    let mut filler = std::fs::File::create(path).expect("the filler");
    let chunk = vec![0x55_u8; 64 * 1024];
    let mut written = 0;
    while written < FILLER_LIMIT {
        match filler.write(&chunk) {
            Ok(n) => written += n as u64,
            Err(e) => return e,
        }
    }
    panic!("{written} bytes written and the disk is not full: not the {FULL_DISK_SIZE} tmpfs");
}

/// The child of [`a_full_disk_leaves_the_previous_save_readable`], inside its own namespaces with
/// a small tmpfs mounted: a game autosaved there, the tmpfs filled, a much longer game saved
/// over it, the space freed and saved again. Ignored: run only as that test's child (with the
/// variable set; without it, it returns at once).
#[test]
#[ignore = "run on its own tmpfs by a_full_disk_leaves_the_previous_save_readable"]
fn full_disk_writer() {
    let Some(dir) = std::env::var_os(FULL_DISK) else {
        return;
    };
    let dir = PathBuf::from(dir);
    let disk = dir.join("disk");
    let mut a = app(Some(&disk));
    let spec = NewGameSpec::casual(classic(&a), [Player::Person; 2]);
    send(&mut a, NewGameRequested(spec));
    play_random(&mut a, 4, 17);
    let file = game(&a).file.clone().expect("saved after the first move");
    let short = game(&a).game.clone();
    let saved_bytes = std::fs::read(&file).unwrap();
    // A much longer game taken up in the same file, as after a resume: its next save needs more
    // room than the short one takes.
    let mut long = khet_engine::Game::new(classic(&a).position);
    let mut rng = khet_engine::Rng::new(53);
    while long.turns().len() < 400 {
        let moves = moves_that_go_on(&long);
        long.play(rng.pick(&moves).expect("a move that goes on"))
            .unwrap();
    }
    let mut spec = NewGameSpec::resuming(
        "Classic".into(),
        long,
        [Player::Person; 2],
        game(&a).date.clone(),
    );
    spec.resume.as_mut().unwrap().file = Some(file.clone());
    send(&mut a, NewGameRequested(spec));
    // The disk fills up; the next move's save fails, and says so.
    let filler = disk.join("filler");
    let full = fill(&filler);
    assert_eq!(full.kind(), std::io::ErrorKind::StorageFull, "{full}");
    play_random(&mut a, 1, 29);
    assert_eq!(game(&a).game.turns().len(), 401, "the game goes on");
    match news(&a) {
        Some(News::SaveFailed(reason)) => assert!(
            reason.contains(&file.display().to_string()) && reason.contains("No space left"),
            "{reason}"
        ),
        other => panic!("a save on a full disk was not reported as failed: {other:?}"),
    }
    // The last save is still the short game, whole, and the only file of the folder.
    let kept = khet::saves::read(&file)
        .unwrap_or_else(|e| panic!("the save before the disk filled up: {e}"));
    assert_eq!(kept.game.turns(), short.turns());
    assert_eq!(kept.game.position(), short.position());
    assert_eq!(std::fs::read(&file).unwrap(), saved_bytes);
    let left: Vec<_> = std::fs::read_dir(disk.join("games"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(
        left,
        std::slice::from_ref(&file),
        "the games folder holds the save alone"
    );
    let listed = khet::saves::list(&disk.join("games"));
    assert_eq!(listed.len(), 1, "one game listed");
    // Space again: the next move saves the whole game.
    std::fs::remove_file(&filler).unwrap();
    play_random(&mut a, 1, 31);
    let now = khet::saves::read(&file).unwrap_or_else(|e| panic!("the save after: {e}"));
    assert_eq!(now.game.turns().len(), 402);
    assert_eq!(now.game.position(), game(&a).game.position());
    // Outside the tmpfs: the parent sees that the child got to its end.
    std::fs::write(dir.join("done"), "done").unwrap();
}

#[test]
fn a_full_disk_leaves_the_previous_save_readable() {
    let dir = temp_dir("full-disk");
    std::fs::create_dir_all(dir.join("disk")).unwrap();
    let me = std::env::current_exe().expect("this test program");
    // The shell is the namespace's first process; it runs the writer only on the mounted
    // tmpfs (never on the real disk), and the writer goes when the namespace does.
    let script = r#"mount -t tmpfs -o size="$1" tmpfs "$2" &&
        exec "$3" --ignored --exact full_disk_writer --test-threads=1"#;
    let namespaces = [
        "--map-root-user",
        "--mount",
        "--pid",
        "--fork",
        "--kill-child",
    ];
    let out = std::process::Command::new("unshare")
        .args(namespaces)
        .args(["sh", "-c", script, "sh", FULL_DISK_SIZE])
        .arg(dir.join("disk"))
        .arg(me)
        .env(FULL_DISK, &dir)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "this test needs `unshare` (util-linux) for a tmpfs of its own, \
                 without root: {e}"
            )
        });
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success(),
        "the writer on a full tmpfs failed ({}); a user namespace may be refused here:\n{said}",
        out.status
    );
    assert!(
        dir.join("done").exists(),
        "the writer never got to its end:\n{said}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
