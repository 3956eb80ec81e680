//! What the player has learnt: the tutorial steps done, the puzzles solved, and whether the
//! tutorial was offered. Kept in `progress.ron` in the data folder, written atomically on every
//! change; a damaged file is reported (file, line, reason), kept as `….damaged`, and the game
//! goes on from nothing.

use crate::news::News;
use bevy::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::PathBuf;

const MAX_PROGRESS_BYTES: usize = 1 << 20;

#[derive(Resource, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Progress {
    /// Tutorial steps solved (their numbers, from 0).
    pub tutorial: BTreeSet<usize>,
    /// Puzzles solved, by position string (names repeat, positions do not).
    pub puzzles: BTreeSet<String>,
    /// The tutorial was offered once (at the first start); it is not offered again.
    pub tutorial_offered: bool,
}

impl Progress {
    pub fn from_bytes(bytes: &[u8], file: &str) -> Result<Progress, String> {
        let text = khet_engine::text::decode(bytes, MAX_PROGRESS_BYTES, "a progress file")
            .map_err(|e| format!("{file}: {e}"))?;
        ron::from_str(text).map_err(|e: ron::error::SpannedError| {
            format!("{file}:{}: {}", e.span.start.line, e.code)
        })
    }

    pub fn to_ron(&self) -> String {
        ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::new()).unwrap_or_default()
    }

    /// The first tutorial step not solved yet (the last one when all are).
    pub fn next_step(&self) -> usize {
        (0..crate::learn::tutorial::STEPS.len())
            .find(|i| !self.tutorial.contains(i))
            .unwrap_or(crate::learn::tutorial::STEPS.len() - 1)
    }
}

/// Where the progress lives; present in the game, absent in headless tests unless they add it.
#[derive(Resource, Clone, Debug)]
pub struct ProgressFile(pub PathBuf);

impl ProgressFile {
    pub fn standard() -> Option<ProgressFile> {
        crate::files::folder("data").map(|d| ProgressFile(d.join("progress.ron")))
    }
}

/// Whether the tutorial should be offered now (first start).
#[derive(Resource, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TutorialOffer(pub bool);

/// Reads the progress file; a missing file is a first start.
pub fn load(path: &std::path::Path) -> (Progress, Option<String>) {
    let (progress, notice) = crate::files::read_or_default(
        path,
        MAX_PROGRESS_BYTES,
        "Progress starts afresh",
        Progress::from_bytes,
    );
    // A damaged file is not a first start: the tutorial is not offered again.
    let offered = progress.tutorial_offered || notice.is_some();
    (
        Progress {
            tutorial_offered: offered,
            ..progress
        },
        notice,
    )
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Progress>()
        .init_resource::<TutorialOffer>()
        .add_systems(PreStartup, load_at_start)
        .add_systems(Update, save_on_change);
}

fn load_at_start(file: Option<Res<ProgressFile>>, mut commands: Commands) {
    let Some(file) = file else { return };
    let (progress, notice) = load(&file.0);
    commands.insert_resource(TutorialOffer(!progress.tutorial_offered));
    commands.insert_resource(progress);
    if let Some(n) = notice {
        warn!("{n}");
        commands.write_message(News::Damaged(n));
    }
}

fn save_on_change(
    progress: Res<Progress>,
    file: Option<Res<ProgressFile>>,
    mut news: MessageWriter<News>,
) {
    let Some(file) = file else { return };
    if !progress.is_changed() || progress.is_added() {
        return;
    }
    if let Err(e) = crate::files::write_atomic(&file.0, progress.to_ron().as_bytes()) {
        news.write(News::SaveFailed(format!(
            "progress, {}: {e}",
            file.0.display()
        )));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_round_trips_and_bad_files_are_refused() {
        let mut p = Progress::default();
        p.tutorial.insert(3);
        p.puzzles.insert("x29/10 0".into());
        p.tutorial_offered = true;
        let back = Progress::from_bytes(p.to_ron().as_bytes(), "p.ron").expect("reads");
        assert_eq!(back, p);
        let bom = format!("\u{feff}{}", p.to_ron());
        assert_eq!(Progress::from_bytes(bom.as_bytes(), "p.ron"), Ok(p.clone()));
        let e = Progress::from_bytes(b"(\n  tutorail: [1],\n)", "p.ron").expect_err("misspelt");
        assert!(e.starts_with("p.ron:2:") && e.contains("tutorail"), "{e}");
        let e = Progress::from_bytes(&[0xff, 0xfe, 0x00], "p.ron").expect_err("not UTF-8");
        assert!(e.contains("UTF-8"), "{e}");
        let e = Progress::from_bytes(b"(tutorial: [1, 2", "p.ron").expect_err("truncated");
        assert!(e.starts_with("p.ron:1:"), "{e}");
        let huge = vec![b' '; MAX_PROGRESS_BYTES + 1];
        assert!(Progress::from_bytes(&huge, "p.ron").is_err());
    }
}
