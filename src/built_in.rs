//! The game's models and sounds are built into the program, so it is whole wherever it is: run
//! from `target/release`, copied to another folder, or installed from the package. The files
//! under `assets/` stay the source (with the scripts that make them); the features that use them
//! ([`crate::stage::model_file`], [`crate::sound`]) each embed their own with [`embed`].
//!
//! `KHET_ASSETS=DIR` reads them from a folder instead (see [`AssetOrigin::Folder`]): an artist
//! tries a new model or sound without rebuilding, and the tests break copies there to see the
//! game fall back.

use bevy::asset::io::embedded::EmbeddedAssetRegistry;
use bevy::prelude::*;
use std::path::{Path, PathBuf};

/// The embedded asset source's folder for this program: `embedded://khet/…`.
const CRATE: &str = "khet";

/// Where the models and sounds are read from.
#[derive(Resource, Clone, Debug, Default, PartialEq, Eq)]
pub enum AssetOrigin {
    /// The copies built into the program (the default).
    #[default]
    BuiltIn,
    /// A folder, which must also be the asset server's own (`AssetPlugin::file_path`).
    Folder(PathBuf),
}

impl AssetOrigin {
    /// From the environment: `$KHET_ASSETS` if set and not empty, else the built-in copies.
    pub fn from_env() -> AssetOrigin {
        match std::env::var_os("KHET_ASSETS") {
            Some(dir) if !dir.is_empty() => AssetOrigin::Folder(PathBuf::from(dir)),
            _ => AssetOrigin::BuiltIn,
        }
    }

    /// The asset server's path of `file` (relative to `assets/`, for example
    /// `models/pieces.glb`).
    pub fn asset_path(&self, file: &str) -> String {
        match self {
            AssetOrigin::BuiltIn => format!("embedded://{CRATE}/{file}"),
            AssetOrigin::Folder(_) => file.to_string(),
        }
    }

    /// How a player is told of `file`: the built-in copy, or the file on disk.
    pub fn describe(&self, file: &str) -> String {
        match self {
            AssetOrigin::BuiltIn => format!("built-in assets/{file}"),
            AssetOrigin::Folder(dir) => dir.join(file).display().to_string(),
        }
    }
}

/// Puts each `(file, bytes)` (the file relative to `assets/`) into the embedded asset source,
/// once the asset server is there (a `PreStartup` system: the loads happen at `Startup`), and
/// makes sure the app has an [`AssetOrigin`].
pub fn embed(app: &mut App, files: Vec<(&'static str, &'static [u8])>) {
    app.init_resource::<AssetOrigin>().add_systems(
        PreStartup,
        move |registry: Option<Res<EmbeddedAssetRegistry>>| {
            let Some(registry) = registry else { return };
            for &(file, bytes) in &files {
                let full_path = Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("assets")
                    .join(file);
                registry.insert_asset(full_path, &Path::new(CRATE).join(file), bytes);
            }
        },
    );
}
