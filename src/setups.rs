//! The setup library: the official setups from the engine's catalogue, plus every RON file in
//! the player's own folder. A file that fails to load stays in the list with the engine's error
//! (file, line, reason).

use bevy::prelude::*;
use khet_engine::setup::MAX_SETUP_BYTES;
use khet_engine::{Setup, SetupErrors, catalogue};
use std::path::{Path, PathBuf};

/// Reads and checks a setup file, reading no more than the engine accepts.
fn load_file(path: &Path) -> Result<Setup, SetupErrors> {
    let file = path.display().to_string();
    let bytes = crate::files::read_bounded(path, MAX_SETUP_BYTES)
        .map_err(|e| SetupErrors::whole_file(&file, format!("cannot read: {e}")))?;
    Setup::from_bytes(&bytes, &file)
}

/// Every `.ron` file under `dir` and its subfolders one level down, sorted by path, each read
/// and checked. A folder that cannot be read gives none.
fn load_dir(dir: &Path) -> Vec<(PathBuf, Result<Setup, SetupErrors>)> {
    let mut paths = Vec::new();
    let mut folders = vec![(dir.to_path_buf(), true)];
    while let Some((folder, recurse)) = folders.pop() {
        for entry in crate::files::list(&folder) {
            let p = entry.path;
            if entry.is_dir && recurse {
                folders.push((p, false));
            } else if !entry.is_dir && p.extension().is_some_and(|e| e == "ron") {
                paths.push(p);
            }
        }
    }
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let setup = load_file(&path);
            (path, setup)
        })
        .collect()
}

/// One listed setup.
#[derive(Clone, Debug)]
pub struct SetupListing {
    /// What the list shows: the file's path relative to its folder.
    pub label: String,
    /// Whether it is one of the player's own.
    pub own: bool,
    pub setup: Result<Setup, SetupErrors>,
}

#[derive(Resource, Clone, Debug, Default)]
pub struct SetupLibrary {
    pub listings: Vec<SetupListing>,
    /// The player's own setups folder.
    pub own_dir: Option<PathBuf>,
}

impl SetupLibrary {
    /// The official setups (built into the engine) and the player's folder (`$KHET_SETUPS`,
    /// else `~/.config/khet/setups`).
    pub fn load() -> SetupLibrary {
        let own_dir = std::env::var_os("KHET_SETUPS")
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config/khet/setups"))
            });
        SetupLibrary::load_with(own_dir)
    }

    /// [`SetupLibrary::load`] with the player's folder given.
    pub fn load_with(own_dir: Option<PathBuf>) -> SetupLibrary {
        let mut listings: Vec<SetupListing> = catalogue()
            .into_iter()
            .map(|(name, setup)| SetupListing {
                label: name.to_string(),
                own: false,
                setup: Ok(setup),
            })
            .collect();
        if let Some(dir) = own_dir.as_ref().filter(|d| d.is_dir()) {
            for (path, setup) in load_dir(dir) {
                let label = format!(
                    "my: {}",
                    path.strip_prefix(dir)
                        .unwrap_or(&path)
                        .with_extension("")
                        .display()
                );
                listings.push(SetupListing {
                    label,
                    own: true,
                    setup,
                });
            }
        }
        SetupLibrary { listings, own_dir }
    }

    /// The first setup that loads whose label is `label`.
    pub fn find(&self, label: &str) -> Option<&Setup> {
        self.listings
            .iter()
            .find(|l| l.label == label)
            .and_then(|l| l.setup.as_ref().ok())
    }

    /// Khet 2.0 Classic, which every game starts with.
    pub fn classic(&self) -> Setup {
        match Setup::builtin("khet2/classic") {
            Ok(s) => s,
            Err(e) => unreachable!("Classic is in the engine's catalogue: {e}"),
        }
    }
}

pub(super) fn plugin(app: &mut App) {
    app.insert_resource(SetupLibrary::load());
}
