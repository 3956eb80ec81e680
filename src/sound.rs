//! The game's sounds: the laser's hum while the beam travels, a zap as it fires, a ping at each
//! reflection, a fizz where it stops, a piece shattering, the Pharaoh's end, and a knock when a
//! moved piece comes to rest. They follow the table's [`Cue`]s, so they keep time with what is
//! drawn.
//!
//! The clips are WAV files in `assets/sounds/` (made by `make_sounds.py` there), built into the
//! program ([`crate::built_in`]) and loaded through the asset server; a missing or broken one
//! (read from `$KHET_ASSETS`) is reported once with its path and that sound is left out.
//! Playing goes through `khet-audio`, which loads ALSA at run time (on Windows, WASAPI):
//! building needs no system package, and without a sound device the game plays on silently and
//! says why once. Volume and mute are settings; M mutes and unmutes (`settings::ui`).

use crate::built_in::AssetOrigin;
use crate::news::News;
use crate::settings::Settings;
use crate::table::cues::Cue;
use bevy::asset::io::Reader;
use bevy::asset::{AssetLoader, LoadContext, UntypedAssetLoadFailedEvent};
use bevy::prelude::*;
use khet_audio::{Clip, Mixer, Output, RATE};
use std::sync::{Arc, Mutex};

/// Plays the cues. `device: false` (the headless tests) mixes without a sound device.
/// A struct, not a function: the caller sets `device`.
pub struct SoundPlugin {
    pub device: bool,
}

impl Plugin for SoundPlugin {
    fn build(&self, app: &mut App) {
        crate::built_in::embed(app, Sfx::ALL.map(|s| (s.path(), s.bytes())).to_vec());
        app.init_asset::<SoundClip>()
            .register_asset_loader(WavLoader)
            .insert_resource(Audio {
                mixer: Arc::new(Mutex::new(Mixer::new(RATE))),
                output: None,
            })
            .add_systems(Startup, load_sounds)
            .add_systems(
                Update,
                (
                    tell_failures,
                    (apply_settings, play_cues)
                        .chain()
                        .after(crate::GameSet::Logic),
                ),
            );
        if self.device {
            // Opened when the app starts, not while it is being put together.
            app.add_systems(Startup, open_device);
        }
    }
}

/// Opens the sound device (`$KHET_SOUND_DEVICE`, else the system's default: ALSA's `default`,
/// or Windows' default endpoint); without one the game plays silently and says why, once.
fn open_device(mut audio: ResMut<Audio>, mut news: MessageWriter<News>) {
    let device = std::env::var("KHET_SOUND_DEVICE").unwrap_or_else(|_| "default".into());
    match Output::open(&device, audio.mixer.clone()) {
        Ok(o) => audio.output = Some(o),
        Err(e) => {
            info!("no sound: {e}");
            news.write(News::Sound(format!("No sound: {e}.")));
        }
    }
}

/// One of the game's sounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sfx {
    Hum,
    Zap,
    Ping,
    Fizz,
    Shatter,
    Pharaoh,
    Click,
}

impl Sfx {
    pub const ALL: [Sfx; 7] = [
        Sfx::Hum,
        Sfx::Zap,
        Sfx::Ping,
        Sfx::Fizz,
        Sfx::Shatter,
        Sfx::Pharaoh,
        Sfx::Click,
    ];

    /// The file, relative to the assets folder.
    pub fn path(self) -> &'static str {
        match self {
            Sfx::Hum => "sounds/hum.wav",
            Sfx::Zap => "sounds/zap.wav",
            Sfx::Ping => "sounds/ping.wav",
            Sfx::Fizz => "sounds/fizz.wav",
            Sfx::Shatter => "sounds/shatter.wav",
            Sfx::Pharaoh => "sounds/pharaoh.wav",
            Sfx::Click => "sounds/click.wav",
        }
    }

    /// The file's bytes, built into the program.
    fn bytes(self) -> &'static [u8] {
        match self {
            Sfx::Hum => include_bytes!("../assets/sounds/hum.wav"),
            Sfx::Zap => include_bytes!("../assets/sounds/zap.wav"),
            Sfx::Ping => include_bytes!("../assets/sounds/ping.wav"),
            Sfx::Fizz => include_bytes!("../assets/sounds/fizz.wav"),
            Sfx::Shatter => include_bytes!("../assets/sounds/shatter.wav"),
            Sfx::Pharaoh => include_bytes!("../assets/sounds/pharaoh.wav"),
            Sfx::Click => include_bytes!("../assets/sounds/click.wav"),
        }
    }

    /// How loud it is against the others.
    fn gain(self) -> f32 {
        match self {
            Sfx::Hum => 0.35,
            Sfx::Zap => 0.5,
            Sfx::Ping => 0.45,
            Sfx::Fizz => 0.5,
            Sfx::Shatter => 0.8,
            Sfx::Pharaoh => 0.9,
            Sfx::Click => 0.6,
        }
    }
}

/// A decoded WAV file.
#[derive(Asset, TypePath, Clone, Debug)]
pub struct SoundClip(pub Clip);

/// Reads `.wav` files with `khet-audio`'s decoder, which refuses what it cannot play.
#[derive(TypePath)]
struct WavLoader;

impl AssetLoader for WavLoader {
    type Asset = SoundClip;
    type Settings = ();
    type Error = std::io::Error;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _: &(),
        _: &mut LoadContext<'_>,
    ) -> Result<SoundClip, Self::Error> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await?;
        khet_audio::wav::decode(&bytes)
            .map(SoundClip)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))
    }

    fn extensions(&self) -> &[&str] {
        &["wav"]
    }
}

/// The mixer the device plays, and the device if there is one.
#[derive(Resource)]
pub struct Audio {
    pub mixer: Arc<Mutex<Mixer>>,
    output: Option<Output>,
}

impl Audio {
    fn with_mixer(&self, f: impl FnOnce(&mut Mixer)) {
        if let Ok(mut m) = self.mixer.lock() {
            f(&mut m);
        }
    }
}

/// The clips' handles; a clip that failed to load is simply never ready.
#[derive(Resource)]
pub struct Sounds(Vec<(Sfx, Handle<SoundClip>)>);

impl Sounds {
    /// Whether every clip has loaded or failed to: nothing more will come of them (what a test
    /// waits for before it reads what the game said about them).
    pub fn settled(&self, server: &AssetServer) -> bool {
        self.0.iter().all(|(_, clip)| {
            matches!(
                server.load_state(clip.id()),
                bevy::asset::LoadState::Loaded | bevy::asset::LoadState::Failed(_)
            )
        })
    }
}

fn load_sounds(server: Res<AssetServer>, origin: Res<AssetOrigin>, mut commands: Commands) {
    info!("sounds: {}", origin.describe("sounds/"));
    commands.insert_resource(Sounds(
        Sfx::ALL
            .iter()
            .map(|s| (*s, server.load(origin.asset_path(s.path()))))
            .collect(),
    ));
}

/// Reports, once each, a sound file that could not be read and a device that stopped.
fn tell_failures(
    mut failed: MessageReader<UntypedAssetLoadFailedEvent>,
    mut audio: ResMut<Audio>,
    mut news: MessageWriter<News>,
    origin: Res<AssetOrigin>,
) {
    for f in failed.read() {
        let path = f.path.to_string();
        let Some(sfx) = Sfx::ALL
            .into_iter()
            .find(|s| origin.asset_path(s.path()) == path)
        else {
            continue;
        };
        let text = format!(
            "Sound file {}: {}; playing without it.",
            origin.describe(sfx.path()),
            crate::news::first_line(&f.error.to_string())
        );
        warn!("{text}");
        news.write(News::Asset(text));
    }
    let gone = audio.output.as_ref().and_then(Output::failure);
    if let Some(why) = gone {
        audio.output = None;
        news.write(News::Sound(format!("The sound device stopped: {why}.")));
    }
}

fn apply_settings(settings: Res<Settings>, audio: Res<Audio>) {
    if settings.is_changed() {
        audio.with_mixer(|m| {
            m.set_volume(settings.volume);
            m.set_muted(settings.muted);
        });
    }
}

/// What each cue sounds like: the hum from fire to landing, a ping per turn (at most two in one
/// frame, so a skipped shot does not roar), a fizz where the beam stops, a shatter per piece
/// struck, the Pharaoh's end, the knock of a placed piece.
pub fn sounds_for(cues: &[Cue]) -> Vec<(Sfx, bool)> {
    let mut out = Vec::new();
    let mut pings = 0;
    for cue in cues {
        match cue {
            Cue::Placed => out.push((Sfx::Click, false)),
            Cue::Fire { .. } => {
                out.push((Sfx::Zap, false));
                out.push((Sfx::Hum, true));
            }
            Cue::Reflect { .. } => {
                pings += 1;
                if pings <= 2 {
                    out.push((Sfx::Ping, false));
                }
            }
            Cue::Stop { .. } => out.push((Sfx::Fizz, false)),
            Cue::Strike { hit } => out.push((
                if hit.effect == khet_engine::HitEffect::PharaohLit {
                    Sfx::Pharaoh
                } else {
                    Sfx::Shatter
                },
                false,
            )),
            Cue::Landed { .. } => out.push((Sfx::Hum, false)),
        }
    }
    out
}

fn play_cues(
    mut cues: MessageReader<Cue>,
    audio: Res<Audio>,
    sounds: Option<Res<Sounds>>,
    clips: Res<Assets<SoundClip>>,
    show: Res<crate::table::Show>,
    mut humming: Local<bool>,
) {
    // A beam cut short (a new game, a take-back mid-shot) never lands: its hum stops anyway.
    if *humming && !matches!(show.phase, crate::table::Phase::Firing { .. }) {
        audio.with_mixer(|m| m.stop_loop("hum"));
        *humming = false;
    }
    let cues: Vec<Cue> = cues.read().copied().collect();
    let Some(sounds) = sounds else { return };
    if cues.is_empty() {
        return;
    }
    let clip = |sfx: Sfx| {
        sounds
            .0
            .iter()
            .find(|(s, _)| *s == sfx)
            .and_then(|(_, h)| clips.get(h))
    };
    audio.with_mixer(|m| {
        for (sfx, on) in sounds_for(&cues) {
            match (sfx, on) {
                (Sfx::Hum, true) => {
                    if let Some(c) = clip(sfx) {
                        m.start_loop("hum", &c.0, sfx.gain());
                        *humming = true;
                    }
                }
                (Sfx::Hum, false) => m.stop_loop("hum"),
                _ => {
                    if let Some(c) = clip(sfx) {
                        m.play(&c.0, sfx.gain());
                    }
                }
            }
        }
    });
}
