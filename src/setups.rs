//! The setup library: every RON file in `setups/` plus the player's own folder. A file that
//! fails to load stays in the list with the engine's error (file, line, reason).

use bevy::prelude::*;
use khet_engine::{Setup, SetupErrors, load_dir};
use std::path::PathBuf;

/// The official setups, built in, for when the game runs away from its `setups/` folder.
const BUILT_IN: [(&str, &str); 8] = [
    (
        "khet2/classic.ron",
        include_str!("../setups/khet2/classic.ron"),
    ),
    (
        "khet2/imhotep.ron",
        include_str!("../setups/khet2/imhotep.ron"),
    ),
    (
        "khet2/dynasty.ron",
        include_str!("../setups/khet2/dynasty.ron"),
    ),
    (
        "khet2/imhotep-eyes.ron",
        include_str!("../setups/khet2/imhotep-eyes.ron"),
    ),
    (
        "khet2/dynasty-eyes.ron",
        include_str!("../setups/khet2/dynasty-eyes.ron"),
    ),
    (
        "khet1/classic.ron",
        include_str!("../setups/khet1/classic.ron"),
    ),
    (
        "khet1/imhotep.ron",
        include_str!("../setups/khet1/imhotep.ron"),
    ),
    (
        "khet1/dynasty.ron",
        include_str!("../setups/khet1/dynasty.ron"),
    ),
];

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
    /// Reads `setups/` (from the working directory, else beside the sources, else built in) and
    /// the player's folder (`$KHET_SETUPS`, else `~/.config/khet/setups`).
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
        let mut listings = Vec::new();
        let candidates = [
            PathBuf::from("setups"),
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("setups"),
        ];
        match candidates.iter().find(|d| d.is_dir()) {
            Some(dir) => {
                for e in load_dir(dir) {
                    let label = e
                        .path
                        .strip_prefix(dir)
                        .unwrap_or(&e.path)
                        .with_extension("")
                        .display()
                        .to_string();
                    listings.push(SetupListing {
                        label,
                        own: false,
                        setup: e.setup,
                    });
                }
            }
            None => {
                for (name, src) in BUILT_IN {
                    listings.push(SetupListing {
                        label: name.trim_end_matches(".ron").to_string(),
                        own: false,
                        setup: Setup::from_ron(src, name),
                    });
                }
            }
        }
        if let Some(dir) = own_dir.as_ref().filter(|d| d.is_dir()) {
            for e in load_dir(dir) {
                let label = format!(
                    "my: {}",
                    e.path
                        .strip_prefix(dir)
                        .unwrap_or(&e.path)
                        .with_extension("")
                        .display()
                );
                listings.push(SetupListing {
                    label,
                    own: true,
                    setup: e.setup,
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
        self.find("khet2/classic").cloned().unwrap_or_else(|| {
            match Setup::from_ron(BUILT_IN[0].1, BUILT_IN[0].0) {
                Ok(s) => s,
                Err(e) => unreachable!("the built-in Classic setup is checked by the tests: {e}"),
            }
        })
    }
}

pub(super) fn plugin(app: &mut App) {
    app.insert_resource(SetupLibrary::load())
        .add_systems(Startup, start_first_game);
}

fn start_first_game(
    library: Res<SetupLibrary>,
    mut new_game: MessageWriter<crate::state::NewGameRequested>,
) {
    new_game.write(crate::state::NewGameRequested(crate::state::NewGameSpec {
        setup: library.classic(),
        rules: khet_engine::Rules::default(),
        players: [crate::state::Player::Person; 2],
    }));
}
