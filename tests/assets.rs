//! The asset files, headless: every file the game refers to is there and reads (the model file
//! through Bevy's own glTF loader, every sound through the decoder the game uses), and the
//! program has its own copies, so it needs no `assets/` folder; read from a folder
//! (`$KHET_ASSETS`), a missing or corrupted model file, or a broken sound, is reported once with
//! its path and the game falls back to its built-in shapes (or leaves that sound out) without a
//! panic. And the sound cues: a shot's reflections, hits and landing reach the mixer.

mod common;

use bevy::asset::AssetPlugin;
use bevy::prelude::*;
use common::wait::update_until;
use khet::built_in::AssetOrigin;
use khet::core_plugin;
use khet::news::News;
use khet::settings::Settings;
use khet::sound::{Audio, Sfx, SoundPlugin};
use khet::stage::model_file::{MODEL_FILE, MODEL_NAMES, ModelSource};
use khet::stage::models::{Models, Role};
use khet::table::pieces::BoardPiece;
use khet::table::{Match, MoveRequested};
use std::path::{Path, PathBuf};

#[derive(Resource, Default)]
struct Failures(Vec<String>);

fn assets_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets")
}

/// A scratch folder under the system's temporary folder, removed when dropped (also when the
/// test fails), so that runs leave nothing behind.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let d = std::env::temp_dir().join(format!("khet-assets-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Scratch(d)
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A copy of the assets folder to break things in.
fn copy_of_assets(name: &str) -> Scratch {
    let d = Scratch::new(name);
    for sub in ["models", "sounds"] {
        std::fs::create_dir_all(d.join(sub)).unwrap();
        for f in std::fs::read_dir(assets_dir().join(sub)).unwrap() {
            let f = f.unwrap().path();
            std::fs::copy(&f, d.join(sub).join(f.file_name().unwrap())).unwrap();
        }
    }
    d
}

/// The headless app with the asset server reading `assets`, the models and the sounds, which
/// come from that folder.
fn app(assets: &Path) -> App {
    let mut app = app_with(assets);
    app.insert_resource(AssetOrigin::Folder(assets.to_path_buf()));
    app
}

/// The headless app with the asset server reading `assets`, the models and the sounds, which
/// come from the program itself.
fn app_with(assets: &Path) -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: assets.display().to_string(),
            ..default()
        },
        bevy::image::ImagePlugin::default(),
        bevy::mesh::MeshPlugin,
        bevy::gltf::GltfPlugin::default(),
    ))
    // What the glTF loader makes besides meshes and images: the file's scenes and animations.
    .init_asset::<StandardMaterial>()
    .init_asset::<bevy::world_serialization::WorldAsset>()
    .init_asset::<bevy::animation::AnimationClip>()
    .add_plugins(core_plugin)
    .add_plugins(khet::stage::models_plugin)
    .add_plugins(SoundPlugin { device: false });
    app.insert_resource(Settings {
        speed: 0.0,
        ..Settings::default()
    });
    app.init_resource::<Failures>().add_systems(
        Update,
        |mut r: MessageReader<bevy::asset::UntypedAssetLoadFailedEvent>,
         mut f: ResMut<Failures>| {
            f.0.extend(r.read().map(|e| e.path.to_string()));
        },
    );
    // Plugins finish their set-up here (the glTF loader registers itself in `finish`), as
    // `App::run` would do.
    app.finish();
    app.cleanup();
    app
}

/// The news written since the last call (messages last two frames: call after each update).
fn drain_news(app: &mut App) -> Vec<String> {
    app.world_mut()
        .resource_mut::<Messages<News>>()
        .drain()
        .map(|n| n.to_string())
        .collect()
}

/// Updates until the model file is decided and every sound has loaded or failed to, collecting
/// the news.
fn settle(app: &mut App) -> Vec<String> {
    let mut news = Vec::new();
    update_until(&mut *app, "the model file and the sounds loaded", |app| {
        news.extend(drain_news(app));
        let models = app
            .world()
            .get_resource::<ModelSource>()
            .is_some_and(|m| !matches!(m, ModelSource::Loading(_)));
        let sounds = app
            .world()
            .get_resource::<khet::sound::Sounds>()
            .is_some_and(|s| s.settled(app.world().resource::<AssetServer>()));
        models && sounds
    });
    // Two more frames for what is said of them and the rebuilt pieces (messages last two
    // frames: read after each).
    for _ in 0..2 {
        app.update();
        news.extend(drain_news(app));
    }
    news
}

fn piece_models(app: &mut App) -> usize {
    let mut q = app
        .world_mut()
        .query_filtered::<&Children, With<BoardPiece>>();
    q.iter(app.world()).filter(|c| !c.is_empty()).count()
}

#[test]
fn every_asset_the_game_refers_to_is_there_and_reads() {
    for sfx in Sfx::ALL {
        let path = assets_dir().join(sfx.path());
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let clip =
            khet_audio::wav::decode(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(clip.seconds() > 0.05, "{} is too short", path.display());
    }
    assert!(assets_dir().join(MODEL_FILE).is_file());
    let mut app = app(&assets_dir());
    let news = settle(&mut app);
    assert!(
        matches!(app.world().resource::<ModelSource>(), ModelSource::File),
        "{:?}; news {news:?}",
        app.world().resource::<ModelSource>()
    );
    assert!(
        !news.iter().any(|n| n.contains("assets/")),
        "no asset complaint expected: {news:?}"
    );
    assert!(app.world().resource::<Models>().from_file());
    // Khet 1.0's emitter is modelled too, with a lens for the beam's colour.
    let emitter = app
        .world()
        .resource::<Models>()
        .emitter(khet_engine::Color::Silver)
        .expect("the file's emitter");
    assert!(emitter.iter().any(|(_, role, _)| *role == Role::Lens));
    // Every model of the list came from the file, with its parts.
    let models = app.world().resource::<Models>();
    for name in MODEL_NAMES {
        assert!(
            models
                .file_model(name)
                .is_some_and(|parts| !parts.is_empty()),
            "{name} is not in {MODEL_FILE}"
        );
    }
    assert_eq!(
        piece_models(&mut app),
        26,
        "every piece of Classic has a model"
    );
}

#[test]
fn the_models_and_sounds_come_from_the_program_itself() {
    // An asset folder with nothing in it, as for a copied or installed program.
    let empty = Scratch::new("none");
    let mut app = app_with(&empty);
    let mut news = settle(&mut app);
    assert!(
        matches!(app.world().resource::<ModelSource>(), ModelSource::File),
        "{:?}",
        app.world().resource::<ModelSource>()
    );
    assert!(app.world().resource::<Models>().from_file());
    // The sounds load on the asset server's own threads: wait for all.
    let clips = |app: &App| {
        app.world()
            .resource::<Assets<khet::sound::SoundClip>>()
            .len()
    };
    update_until(&mut app, "every sound loaded", |app| {
        news.extend(drain_news(app));
        clips(&*app) == Sfx::ALL.len()
    });
    assert!(
        !news
            .iter()
            .any(|n| n.contains("Model file") || n.contains("Sound file")),
        "no fallback: {news:?}"
    );
    assert!(app.world().resource::<Failures>().0.is_empty());
    assert_eq!(piece_models(&mut app), 26);
}

#[test]
fn a_missing_model_file_falls_back_to_the_built_in_shapes() {
    let dir = copy_of_assets("missing");
    std::fs::remove_file(dir.join(MODEL_FILE)).unwrap();
    let mut app = app(&dir);
    let news = settle(&mut app);
    let ModelSource::BuiltIn(why) = app.world().resource::<ModelSource>() else {
        panic!("a missing file cannot be used");
    };
    assert!(!why.is_empty());
    let told: Vec<_> = news.iter().filter(|n| n.contains(MODEL_FILE)).collect();
    assert_eq!(told.len(), 1, "told once: {news:?}");
    assert!(told[0].contains("built-in shapes"));
    assert!(!app.world().resource::<Models>().from_file());
    assert!(
        app.world()
            .resource::<Models>()
            .emitter(khet_engine::Color::Red)
            .is_none(),
        "the emitters are the built-in boxes"
    );
    assert_eq!(piece_models(&mut app), 26, "the pieces still show");
}

#[test]
fn a_corrupted_model_file_falls_back_without_a_panic() {
    for (name, damage) in [
        ("garbage", b"not a glTF file at all".to_vec()),
        ("truncated", {
            let bytes = std::fs::read(assets_dir().join(MODEL_FILE)).unwrap();
            bytes[..bytes.len() / 3].to_vec()
        }),
        ("flipped", {
            let mut bytes = std::fs::read(assets_dir().join(MODEL_FILE)).unwrap();
            // Scramble the JSON chunk's middle.
            for b in &mut bytes[100..400] {
                *b = b.wrapping_mul(31).wrapping_add(7);
            }
            bytes
        }),
    ] {
        let dir = copy_of_assets(name);
        std::fs::write(dir.join(MODEL_FILE), damage).unwrap();
        let mut app = app(&dir);
        let news = settle(&mut app);
        assert!(
            matches!(
                app.world().resource::<ModelSource>(),
                ModelSource::BuiltIn(_)
            ),
            "{name}: {:?}",
            app.world().resource::<ModelSource>()
        );
        assert_eq!(
            news.iter().filter(|n| n.contains(MODEL_FILE)).count(),
            1,
            "{name}: told once: {news:?}"
        );
        assert_eq!(piece_models(&mut app), 26, "{name}: the pieces still show");
    }
}

#[test]
fn a_broken_sound_is_reported_and_left_out() {
    let dir = copy_of_assets("sound");
    std::fs::write(dir.join(Sfx::Ping.path()), b"RIFF....WAVEjunk").unwrap();
    std::fs::remove_file(dir.join(Sfx::Click.path())).unwrap();
    let mut app = app(&dir);
    let mut news = settle(&mut app);
    // The sounds load on the asset server's own threads: wait for both reports.
    update_until(&mut app, "both sounds reported", |app| {
        news.extend(drain_news(app));
        [Sfx::Ping, Sfx::Click]
            .iter()
            .all(|s| news.iter().any(|n| n.contains(s.path())))
    });
    for sfx in [Sfx::Ping, Sfx::Click] {
        assert!(
            news.iter().any(|n| n.contains(sfx.path())),
            "{} not reported: {news:?}; failures {:?}",
            sfx.path(),
            app.world().resource::<Failures>().0
        );
    }
    // The game plays on: a move and its shot, with the sounds that are left.
    let started = play_a_shot(&mut app);
    assert_eq!(
        app.world().resource::<Match>().game.turns().len(),
        1,
        "the move is played"
    );
    assert!(started > 0, "the sounds that are left are heard");
}

/// Plays Silver's first move of Classic (its beam turns several times) at normal speed and
/// returns how many clips the mixer started.
fn play_a_shot(app: &mut App) -> u64 {
    app.world_mut().resource_mut::<Settings>().speed = 1.0;
    app.insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(
        std::time::Duration::from_millis(20),
    ));
    let mv = app
        .world()
        .resource::<Match>()
        .game
        .legal_moves()
        .first()
        .copied()
        .unwrap();
    app.world_mut().write_message(MoveRequested(mv));
    for _ in 0..300 {
        app.update();
    }
    let mixer = app.world().resource::<Audio>().mixer.clone();
    mixer.lock().unwrap().started()
}

#[test]
fn a_shot_is_heard_from_fire_to_landing() {
    let mut app = app(&assets_dir());
    settle(&mut app);
    let mixer = app.world().resource::<Audio>().mixer.clone();
    let before = mixer.lock().unwrap().started();
    let turns = {
        let m = app.world().resource::<Match>();
        let mv = m.game.legal_moves().first().copied().unwrap();
        let mut g = m.game.clone();
        g.play(mv).unwrap();
        g.last_turn().unwrap().shot.segments.len()
    };
    let started = play_a_shot(&mut app);
    // A click, the zap, the hum, a ping per turn (at most two in one frame), and a fizz or a
    // shatter at the end.
    assert!(
        started - before >= 4 + (turns as u64 - 1).min(2),
        "{} clips for a beam of {turns} segments",
        started - before
    );
    let mut m = mixer.lock().unwrap();
    assert!(!m.is_looping("hum"), "the hum stops when the beam lands");
    // What the game's mixer holds for the shot is sound, not silence: its voices as the
    // device would get them (no device plays them here, so they are all still there).
    let mut buf = vec![0.0; 4410];
    m.render(&mut buf);
    let energy = buf.iter().map(|s| s * s).sum::<f32>();
    assert!(energy > 1.0, "the shot's clips render as {energy}");
}

#[test]
fn a_beam_cut_short_stops_its_hum() {
    let mut app = app(&assets_dir());
    settle(&mut app);
    app.world_mut().resource_mut::<Settings>().speed = 1.0;
    app.insert_resource(bevy::time::TimeUpdateStrategy::ManualDuration(
        std::time::Duration::from_millis(20),
    ));
    let mv = app.world().resource::<Match>().game.legal_moves()[0];
    app.world_mut().write_message(MoveRequested(mv));
    let mixer = app.world().resource::<Audio>().mixer.clone();
    let mut humming = false;
    for _ in 0..100 {
        app.update();
        if mixer.lock().unwrap().is_looping("hum") {
            humming = true;
            break;
        }
    }
    assert!(humming, "the hum starts when the laser fires");
    let setup = app
        .world()
        .resource::<khet::setups::SetupLibrary>()
        .find("khet2/classic")
        .cloned()
        .unwrap();
    app.world_mut().write_message(khet::table::NewGameRequested(
        khet::table::NewGameSpec::casual(setup, [khet_engine::Player::Person; 2]),
    ));
    app.update();
    app.update();
    assert!(
        !mixer.lock().unwrap().is_looping("hum"),
        "a new game mid-beam silences it"
    );
}
