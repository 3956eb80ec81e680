//! Saved games: every game with a move is a file (the engine's RON record plus players, mode,
//! clocks and date) in the data folder's `games/`, written atomically after every move, take-back
//! and result. Ctrl+S saves it under a name. The list of saved games reads every file; a damaged,
//! truncated or foreign one is listed with `file:line: reason` and never written or deleted.
//! Without a [`SaveDir`] (the headless tests, unless they give one) nothing is written.

pub mod ui;

use crate::news::News;
use crate::table::clock::Clocks;
use crate::table::{GameEnded, Match, MoveApplied, NewGameSpec, Undone};
use bevy::prelude::*;
use khet_engine::record::MAX_RECORD_BYTES;
use khet_engine::{Game, GameResult, Record, RecordClock};
use khet_engine::{Mode, Player, TimeControl};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The folder of saved games.
#[derive(Resource, Clone, Debug)]
pub struct SaveDir(pub PathBuf);

impl SaveDir {
    /// `games/` in the data folder.
    pub fn standard() -> Option<SaveDir> {
        crate::files::folder("data").map(|d| SaveDir(d.join("games")))
    }
}

/// Save the game now under this name (Ctrl+S).
#[derive(Message, Clone, Debug)]
pub struct SaveAs(pub String);

/// Read the folder again.
#[derive(Message, Clone, Copy, Debug)]
pub struct RefreshSaves;

/// Delete a saved game (the panel asks first).
#[derive(Message, Clone, Debug)]
pub struct DeleteSave(pub PathBuf);

/// A saved game, read and replayed.
#[derive(Clone, Debug)]
pub struct Saved {
    pub record: Record,
    pub game: Game,
}

impl Saved {
    /// What it takes to play on from where the file stands.
    pub fn spec(&self, file: &Path) -> NewGameSpec {
        let r = &self.record;
        let clock = r.clock.map(|c| {
            TimeControl::new(
                u32::try_from(c.initial_ms / 60_000).unwrap_or(u32::MAX),
                u32::try_from(c.increment_ms / 1000).unwrap_or(u32::MAX),
            )
        });
        let name = if r.setup.is_empty() {
            "Saved game".into()
        } else {
            r.setup.clone()
        };
        // A saved online game goes on at the table: its online opponent becomes a person.
        let players = r.players.each_ref().map(|p| match Player::from_label(p) {
            Player::Online => Player::Person,
            p => p,
        });
        let mut spec = NewGameSpec::resuming(name, self.game.clone(), players, r.date.clone());
        spec.mode = if r.tournament {
            Mode::Tournament
        } else {
            Mode::Casual
        };
        spec.clock = clock;
        if let Some(resume) = &mut spec.resume {
            resume.remaining = r.clock.map(|c| c.remaining_ms.map(Duration::from_millis));
            resume.file = Some(file.to_path_buf());
        }
        spec
    }

    pub fn result(&self) -> Option<GameResult> {
        self.game.result()
    }
}

/// One file of the folder.
#[derive(Clone, Debug)]
pub struct SaveEntry {
    pub path: PathBuf,
    /// When it was last written, in milliseconds since 1970.
    pub modified_ms: u64,
    /// The game, or `file:line: reason`.
    pub game: Result<Saved, String>,
}

/// The saved games, newest first.
#[derive(Resource, Default, Debug)]
pub struct SavedGames(pub Vec<SaveEntry>);

impl SavedGames {
    /// The newest unfinished game, to offer at start.
    pub fn unfinished(&self) -> Option<&SaveEntry> {
        self.0
            .iter()
            .find(|e| e.game.as_ref().is_ok_and(|g| g.result().is_none()))
    }
}

/// Reads and replays one saved game.
pub fn read(path: &Path) -> Result<Saved, String> {
    let name = path.display().to_string();
    let bytes = crate::files::read_bounded(path, MAX_RECORD_BYTES)
        .map_err(|e| format!("{name}: cannot read: {e}"))?;
    parse(&bytes, &name)
}

/// Reads and replays a saved game's bytes; errors name `name` (`file:line: reason`).
pub fn parse(bytes: &[u8], name: &str) -> Result<Saved, String> {
    let text = khet_engine::text::decode(bytes, MAX_RECORD_BYTES, "a game record")
        .map_err(|reason| format!("{name}: {reason}"))?;
    let record = Record::from_ron(text, name).map_err(|e| e.to_string())?;
    let game = record.replay(text, name).map_err(|e| e.to_string())?;
    Ok(Saved { record, game })
}

/// Every `.ron` file of the folder (temporary files of interrupted writes are skipped).
pub fn list(dir: &Path) -> Vec<SaveEntry> {
    let mut entries: Vec<SaveEntry> = crate::files::list(dir)
        .into_iter()
        .filter(|l| {
            !l.is_dir
                && l.path.extension().is_some_and(|e| e == "ron")
                && !l
                    .path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .map(|l| SaveEntry {
            modified_ms: l.modified_ms,
            game: read(&l.path),
            path: l.path,
        })
        .collect();
    entries.sort_by(|a, b| b.modified_ms.cmp(&a.modified_ms).then(a.path.cmp(&b.path)));
    entries
}

/// The record of the match as it stands, clocks included.
pub fn record(m: &Match, clocks: Option<&Clocks>) -> Record {
    let mut r = Record::from_game(&m.game, &m.setup_name);
    r.date.clone_from(&m.date);
    r.players = m.spec.players.map(Player::label);
    r.tournament = m.spec.mode == Mode::Tournament;
    r.clock = clocks.map(|c| RecordClock {
        initial_ms: c.control.initial().as_millis() as u64,
        increment_ms: c.control.increment().as_millis() as u64,
        remaining_ms: c.remaining.map(|d| d.as_millis() as u64),
    });
    r
}

/// Offer to take up this unfinished game (at start).
#[derive(Resource, Default, Debug)]
pub struct ResumeOffer(pub Option<PathBuf>);

/// A file name from what the player typed: letters, digits, spaces, `-` and `_`, at most 60.
pub fn file_name(name: &str) -> String {
    crate::files::safe_stem(name, "game")
}

/// A path in `dir` for `stem` that no other file has.
pub(crate) fn free_path(dir: &Path, stem: &str) -> PathBuf {
    let mut path = dir.join(format!("{stem}.ron"));
    let mut n = 2;
    while crate::files::exists(&path) {
        path = dir.join(format!("{stem} ({n}).ron"));
        n += 1;
    }
    path
}

pub(super) fn plugin(app: &mut App) {
    crate::frames::add_waking_message::<SaveAs>(app);
    crate::frames::add_waking_message::<RefreshSaves>(app);
    crate::frames::add_waking_message::<DeleteSave>(app)
        .init_resource::<SavedGames>()
        .init_resource::<ResumeOffer>()
        .add_systems(Startup, refresh_at_start)
        .add_systems(
            OnEnter(crate::screen::Screen::Open),
            |mut w: MessageWriter<RefreshSaves>| {
                w.write(RefreshSaves);
            },
        )
        .add_systems(
            Update,
            (
                autosave.run_if(in_state(crate::screen::Screen::Playing)),
                withdraw_offer_once_played,
                save_as,
                delete,
                refresh,
            )
                .chain()
                .run_if(crate::table::has_match)
                .after(crate::GameSet::Logic),
        );
}

fn refresh_at_start(
    dir: Option<Res<SaveDir>>,
    settings: Res<crate::settings::Settings>,
    mut games: ResMut<SavedGames>,
    mut offer: ResMut<ResumeOffer>,
) {
    if let Some(dir) = dir {
        games.0 = list(&dir.0);
        if settings.offer_resume {
            offer.0 = games.unfinished().map(|e| e.path.clone());
        }
    }
}

/// A move played at the table answers the offer to resume: "not now". Left open, the offer
/// would stand over the game being played, and taking it then would leave that game for
/// another (it keeps its own file).
fn withdraw_offer_once_played(
    mut applied: MessageReader<MoveApplied>,
    mut offer: ResMut<ResumeOffer>,
) {
    if applied.read().count() > 0 && offer.0.is_some() {
        offer.0 = None;
    }
}

/// Writes the match to its file, choosing the file at the first write.
fn write(
    m: &mut Match,
    clocks: Option<&Clocks>,
    dir: &Path,
    stem: Option<&str>,
) -> Result<PathBuf, String> {
    let path = match (stem, &m.file) {
        (Some(stem), _) => free_path(dir, stem),
        (None, Some(path)) => path.clone(),
        (None, None) => free_path(dir, &m.date.replace(':', "-")),
    };
    crate::files::write_atomic(&path, record(m, clocks).to_ron().as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    m.file = Some(path.clone());
    Ok(path)
}

fn autosave(
    mut applied: MessageReader<MoveApplied>,
    mut ended: MessageReader<GameEnded>,
    mut undone: MessageReader<Undone>,
    dir: Option<Res<SaveDir>>,
    mut m: ResMut<Match>,
    clocks: Option<Res<Clocks>>,
    mut news: MessageWriter<News>,
) {
    let changed = applied.read().count() + ended.read().count() + undone.read().count() > 0;
    let Some(dir) = dir else { return };
    // A game without a move is not worth a file, unless it has one already (all taken back).
    if !changed || m.spec.lesson || (m.game.turns().is_empty() && m.file.is_none()) {
        return;
    }
    if let Err(e) = write(&mut m, clocks.as_deref(), &dir.0, None) {
        news.write(News::SaveFailed(e));
    }
}

fn save_as(
    mut requests: MessageReader<SaveAs>,
    dir: Option<Res<SaveDir>>,
    mut m: ResMut<Match>,
    clocks: Option<Res<Clocks>>,
    mut news: MessageWriter<News>,
    mut refresh: MessageWriter<RefreshSaves>,
) {
    let Some(SaveAs(name)) = requests.read().last() else {
        return;
    };
    let Some(dir) = dir else {
        news.write(News::SaveFailed(
            "there is no folder for saved games".into(),
        ));
        return;
    };
    let before = m.file.clone();
    match write(&mut m, clocks.as_deref(), &dir.0, Some(&file_name(name))) {
        Ok(path) => {
            // The automatic file of this game is replaced by the named one.
            if let Some(old) = before.filter(|old| *old != path) {
                let _ = crate::files::remove(&old);
            }
            news.write(News::Saved(path.display().to_string()));
            refresh.write(RefreshSaves);
        }
        Err(e) => {
            news.write(News::SaveFailed(e));
        }
    }
}

fn delete(
    mut requests: MessageReader<DeleteSave>,
    mut refresh: MessageWriter<RefreshSaves>,
    mut news: MessageWriter<News>,
    mut m: ResMut<Match>,
) {
    for DeleteSave(path) in requests.read() {
        // Only files the list read as games are offered for deletion.
        if let Err(e) = crate::files::remove(path) {
            news.write(News::SaveFailed(format!(
                "{}: cannot delete: {e}",
                path.display()
            )));
        }
        if m.file.as_ref() == Some(path) {
            m.file = None;
        }
        refresh.write(RefreshSaves);
    }
}

fn refresh(
    mut requests: MessageReader<RefreshSaves>,
    dir: Option<Res<SaveDir>>,
    mut games: ResMut<SavedGames>,
) {
    if requests.read().count() > 0
        && let Some(dir) = dir
    {
        games.0 = list(&dir.0);
    }
}
