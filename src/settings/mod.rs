//! The player's settings: loaded at start from `settings.ron` in the config folder, saved (half
//! a second after the last change, atomically) whenever they change. A damaged file gives the
//! defaults and a notice, and is kept beside as `settings.ron.damaged`; the game never deletes it.
//! Without a [`SettingsFile`] (the headless tests) nothing is read or written.

use crate::news::News;
use bevy::prelude::*;
use khet_engine::{Level, Mode, Player, SwapLanding, TimeControl};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The largest settings file read.
const MAX_SETTINGS_BYTES: usize = 64 * 1024;

/// Beam and side colours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Palette {
    /// Both lasers red, as on the real board.
    #[default]
    Classic,
    /// Silver's laser ice blue, Red's red.
    PerSide,
    /// Blue and orange (Okabe–Ito), told apart with any colour vision.
    ColourBlind,
}

/// Graphics quality. `Auto` is Low on a software renderer (llvmpipe and the like) and High on a
/// graphics card; see `stage::quality` for what each preset turns on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Quality {
    #[default]
    Auto,
    Low,
    Medium,
    High,
}

/// Everything the player chooses once and keeps, and what the game remembers for them (the last
/// level chosen, the wins in a row). Fields missing from the file take their defaults (those of
/// [`Settings::default`]: a file older than a field loads); misspelt ones are refused with their
/// line.
#[derive(Resource, Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Animation speed: 1 normal, 0 instant.
    pub speed: f32,
    pub palette: Palette,
    /// The new-game form's defaults.
    pub mode: Mode,
    pub players: [Player; 2],
    pub clock: Option<TimeControl>,
    pub swap_landing: SwapLanding,
    /// The camera's home view: how steeply it looks down (degrees) and how far it stands.
    pub camera_pitch_degrees: f32,
    pub camera_distance: f32,
    /// Offer to resume an unfinished game at start.
    pub offer_resume: bool,
    /// Show where the laser would go while aiming a move (casual games only).
    pub laser_preview: bool,
    pub quality: Quality,
    /// The player was told once that a software renderer made the game pick Low.
    pub told_software_renderer: bool,
    /// Master volume, 0 to 1.
    pub volume: f32,
    /// All sound off (M).
    pub muted: bool,
    /// The camera shakes a little when the laser strikes.
    pub camera_shake: bool,
    /// The name other players see online.
    pub online_name: String,
    /// The server of online play (`ws://host:port`).
    pub online_server: String,
    /// The most threads the computer searches with; 0 is Auto (see [`Settings::search_threads`]).
    pub computer_threads: usize,
    /// Master plays the opening book's move at once where the book has the position; off, it
    /// thinks from the first move (for a player who wants its openings searched, or varied by
    /// the time it is given).
    pub computer_book: bool,
    /// The level "Computer" gives a side in the players' picker: the one last chosen.
    pub computer_level: Level,
    /// The person's latest wins in a row against one level of the computer
    /// (`crate::table::ladder`); two suggest the next level up.
    pub streak: Option<Streak>,
}

/// Games a person has won in a row against one level of the computer, up to the last game
/// finished against the computer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Streak {
    pub level: Level,
    pub wins: u32,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            speed: 1.0,
            palette: Palette::Classic,
            mode: Mode::Casual,
            players: [Player::Person, Player::Computer(Level::Casual)],
            clock: None,
            swap_landing: SwapLanding::Strict,
            camera_pitch_degrees: 54.4,
            camera_distance: 12.5,
            offer_resume: true,
            laser_preview: true,
            quality: Quality::Auto,
            told_software_renderer: false,
            volume: 0.8,
            muted: false,
            camera_shake: true,
            online_name: String::new(),
            online_server: format!("ws://127.0.0.1:{}", khet_protocol::DEFAULT_PORT),
            computer_threads: 0,
            computer_book: true,
            computer_level: Level::Casual,
            streak: None,
        }
    }
}

/// The cores of this machine, as the system reports them (1 when it cannot say).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The threads the computer searches with, given `cores` and the setting: Auto leaves one core
/// to the window (the game's own loop, the render thread and the sound, which must keep the
/// spinner and the clocks moving while the computer thinks) and takes the rest; a set limit is
/// kept to the cores there are.
pub fn threads_for(setting: usize, cores: usize) -> usize {
    let cores = cores.max(1);
    match setting {
        0 => (cores - 1).max(1),
        n => n.min(cores),
    }
}

impl Settings {
    /// The threads the computer searches with on this machine.
    pub fn search_threads(&self) -> usize {
        threads_for(self.computer_threads, cores())
    }
}

impl Settings {
    /// Reads settings from a file's bytes; the error is `file:line: reason`.
    pub fn from_bytes(bytes: &[u8], file: &str) -> Result<Settings, String> {
        if bytes.len() > MAX_SETTINGS_BYTES {
            return Err(format!("{file}:0: too big for a settings file"));
        }
        let text =
            std::str::from_utf8(bytes).map_err(|e| format!("{file}:0: not UTF-8 text ({e})"))?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut s: Settings = ron::from_str(text).map_err(|e| {
            format!(
                "{file}:{}: {}",
                e.span.start.line.max(1),
                khet_engine::text::quote(&e.code.to_string())
            )
        })?;
        s.speed = if s.speed.is_finite() {
            s.speed.clamp(0.0, 3.0)
        } else {
            1.0
        };
        s.camera_pitch_degrees = s.camera_pitch_degrees.clamp(10.0, 89.0);
        s.camera_distance = s.camera_distance.clamp(6.0, 30.0);
        // A name the server would refuse is forgotten rather than sent.
        if !s.online_name.is_empty() && khet_protocol::check_name(&s.online_name).is_err() {
            s.online_name.clear();
        }
        if s.online_server.len() > 512 {
            s.online_server = Settings::default().online_server;
        }
        s.volume = if s.volume.is_finite() {
            s.volume.clamp(0.0, 1.0)
        } else {
            Settings::default().volume
        };
        Ok(s)
    }

    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new().struct_names(true);
        ron::ser::to_string_pretty(self, config).unwrap_or_default()
    }
}

/// Where the settings live; present in the game, absent in headless tests.
#[derive(Resource, Clone, Debug)]
pub struct SettingsFile {
    pub path: PathBuf,
    /// What the file holds (as read at start, or last written): the settings are saved when
    /// they differ from it, however they changed (the player, or the game at start).
    on_disk: Option<Settings>,
    /// Seconds since start when the settings last differed from the file, not saved yet.
    dirty_since: Option<f32>,
}

impl SettingsFile {
    pub fn new(path: PathBuf) -> SettingsFile {
        SettingsFile {
            path,
            on_disk: None,
            dirty_since: None,
        }
    }

    /// `settings.ron` in the config folder.
    pub fn standard() -> Option<SettingsFile> {
        crate::files::folder("config").map(|d| SettingsFile::new(d.join("settings.ron")))
    }
}

/// Reads the settings file: the settings, and a notice if the file was damaged (then kept as
/// `….damaged`). A missing file is no news.
pub fn load(path: &std::path::Path) -> (Settings, Option<String>) {
    crate::files::read_or_default(
        path,
        MAX_SETTINGS_BYTES,
        "Using the default settings",
        Settings::from_bytes,
    )
}

pub mod ui;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Settings>()
        .add_systems(PreStartup, load_at_start)
        .add_systems(Update, save_on_change);
    keys_plugin(app);
}

/// M, on every screen (the core's: it only changes a setting and says so).
fn keys_plugin(app: &mut App) {
    app.add_systems(
        Update,
        mute_key
            .run_if(crate::keys::keys_free)
            .in_set(crate::GameSet::Input),
    );
}

/// M turns the sound off and on, on every screen.
fn mute_key(
    keys: Res<ButtonInput<KeyCode>>,
    mut settings: ResMut<Settings>,
    mut news: MessageWriter<crate::news::News>,
) {
    if keys.just_pressed(KeyCode::KeyM) {
        settings.muted = !settings.muted;
        let text = if settings.muted {
            "Sound off (M to turn it on)."
        } else {
            "Sound on."
        };
        news.write(crate::news::News::Sound(text.into()));
    }
}

fn load_at_start(file: Option<ResMut<SettingsFile>>, mut commands: Commands) {
    let Some(mut file) = file else { return };
    let (settings, notice) = load(&file.path);
    // What the file means (the defaults, when it is missing or damaged): nothing is written
    // until the settings differ from it.
    file.on_disk = Some(settings.clone());
    commands.insert_resource(settings);
    if let Some(n) = notice {
        warn!("{n}");
        commands.write_message(News::Damaged(n));
    }
}

fn save_on_change(
    settings: Res<Settings>,
    file: Option<ResMut<SettingsFile>>,
    time: Res<Time<Real>>,
    mut news: MessageWriter<News>,
    mut frames: ResMut<crate::frames::NextFrame>,
) {
    let Some(mut file) = file else { return };
    let now = time.elapsed_secs();
    // Only what differs from the file is written: a change made back, or a settings resource
    // merely touched, writes nothing; a change made at start (the software renderer's notice,
    // said once) is saved like the player's.
    if !settings.is_changed() && file.dirty_since.is_none() {
        return;
    }
    if file.on_disk.as_ref() == Some(&*settings) {
        file.dirty_since = None;
        return;
    }
    if settings.is_changed() {
        file.dirty_since = Some(now);
    }
    if let Some(t) = file.dirty_since {
        // A frame when the save is due, though nothing else moves.
        frames.within(std::time::Duration::from_secs_f32((t + 0.5 - now).max(0.0)));
    }
    if file.dirty_since.is_some_and(|t| now - t >= 0.5) {
        file.dirty_since = None;
        file.on_disk = Some(settings.clone());
        if let Err(e) = crate::files::write_atomic(&file.path, settings.to_ron().as_bytes()) {
            news.write(News::SaveFailed(format!(
                "settings, {}: {e}",
                file.path.display()
            )));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Settings;

    #[test]
    fn bad_settings_files_are_refused_with_file_and_line() {
        let good = Settings {
            speed: 2.0,
            ..Settings::default()
        }
        .to_ron();
        let read = |bytes: &[u8]| Settings::from_bytes(bytes, "s.ron");
        assert_eq!(read(good.as_bytes()).map(|s| s.speed), Ok(2.0));
        let bom = format!("\u{feff}{good}");
        assert_eq!(read(bom.as_bytes()).map(|s| s.speed), Ok(2.0));
        // Fields left out take their defaults.
        assert_eq!(read(b"(speed: 0.5)").map(|s| s.speed), Ok(0.5));
        let e = read(&good.as_bytes()[..good.len() / 2]).unwrap_err();
        assert!(e.starts_with("s.ron:"), "{e}");
        let e = read(&[0xff, 0xfe, b'(', b')']).unwrap_err();
        assert!(e.contains("not UTF-8"), "{e}");
        let e = read(&vec![b' '; 100_000]).unwrap_err();
        assert!(e.contains("too big"), "{e}");
        // Out-of-range numbers are brought into range, not trusted.
        let s = read(b"(speed: 1e9, camera_distance: -4.0)").unwrap();
        assert_eq!((s.speed, s.camera_distance), (3.0, 6.0));
    }
}

#[cfg(test)]
mod thread_tests {
    use super::threads_for;

    #[test]
    fn auto_leaves_the_window_a_core_and_a_limit_keeps_to_the_cores() {
        assert_eq!(threads_for(0, 1), 1);
        assert_eq!(threads_for(0, 2), 1);
        assert_eq!(threads_for(0, 8), 7);
        assert_eq!(threads_for(3, 8), 3);
        assert_eq!(threads_for(16, 8), 8);
        assert_eq!(threads_for(0, 0), 1);
    }
}
