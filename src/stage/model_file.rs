//! The modelled pieces and board from `assets/models/pieces.glb` (made by `make_models.py`
//! beside it, with Blender), built into the program ([`crate::built_in`]) and loaded through the
//! asset server.
//!
//! Fault tolerant: until the file has loaded, and for good if it is missing or broken, the
//! pieces keep their built-in procedural shapes ([`super::models`]); the problem is reported
//! once with the path and the reason. A file that loads but lacks some models gives the ones it
//! has, and names the missing ones once.
//!
//! The file's meshes are named after the models (`Pharaoh`, …, `BaseSilver`, `BaseRed`,
//! `Board`), and each part's material is named by its role: `body` and `trim` take the side's
//! finish (the file's `silver_body`, `red_body`, `silver_trim`, `red_trim`), the others
//! (`mirror`, `glass`, `gold`, `lens`, `stone`) are used as they are.

use super::models::{ModelSet, Models, Role};
use crate::built_in::AssetOrigin;
use crate::news::News;
use crate::table::pieces::BoardPiece;
use bevy::asset::LoadState;
use bevy::gltf::{Gltf, GltfMaterial, GltfMesh};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;

/// The model file, relative to the assets folder.
pub const MODEL_FILE: &str = "models/pieces.glb";

/// Every model the game asks the file for.
pub const MODEL_NAMES: [&str; 12] = [
    "Pharaoh",
    "Sphinx",
    "Pyramid",
    "Anubis",
    "Scarab",
    "Djed",
    "Eye",
    "Obelisk",
    "BaseSilver",
    "BaseRed",
    "Emitter",
    "Board",
];

/// Where the models come from now.
#[derive(Resource, Debug)]
pub enum ModelSource {
    /// The file is loading; the built-in shapes stand meanwhile.
    Loading(Handle<Gltf>),
    /// The file's models are in use (those it has).
    File,
    /// The built-in shapes, for good: the file could not be used (the reason).
    BuiltIn(String),
}

/// The slab under the squares, which takes the file's `Board` model.
#[derive(Component)]
pub struct BoardSlab;

pub(super) fn plugin(app: &mut App) {
    crate::built_in::embed(
        app,
        vec![(MODEL_FILE, include_bytes!("../../assets/models/pieces.glb"))],
    );
    app.add_systems(Startup, start_loading)
        .add_systems(Update, adopt.in_set(crate::GameSet::View));
}

fn start_loading(
    server: Option<Res<AssetServer>>,
    origin: Res<AssetOrigin>,
    mut commands: Commands,
) {
    let source = match server {
        Some(server) => {
            info!("models: {}", origin.describe(MODEL_FILE));
            ModelSource::Loading(server.load(origin.asset_path(MODEL_FILE)))
        }
        None => ModelSource::BuiltIn("no asset server".into()),
    };
    commands.insert_resource(source);
}

/// Waits for the file; then puts its models and finishes in use, or reports why not.
fn adopt(
    mut source: ResMut<ModelSource>,
    server: Res<AssetServer>,
    gltfs: Res<Assets<Gltf>>,
    meshes: Res<Assets<GltfMesh>>,
    gltf_materials: Res<Assets<GltfMaterial>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
    models: Option<ResMut<Models>>,
    mut slabs: Query<(Entity, &mut Mesh3d, &mut Transform), With<BoardSlab>>,
    mut commands: Commands,
    mut pieces: Query<&mut BoardPiece>,
    mut news: MessageWriter<News>,
    mut frames: ResMut<crate::frames::NextFrame>,
    origin: Res<AssetOrigin>,
) {
    let ModelSource::Loading(handle) = &*source else {
        return;
    };
    // The models replace the built-in shapes as soon as they have loaded.
    frames.within(std::time::Duration::from_millis(50));
    let Some(mut models) = models else { return };
    let outcome = match server.load_state(handle) {
        LoadState::Failed(e) => Err(crate::news::first_line(&e.to_string()).to_string()),
        LoadState::Loaded if server.is_loaded_with_dependencies(handle) => {
            match gltfs.get(handle) {
                Some(gltf) => read_models(gltf, &meshes, &gltf_materials, &mut materials),
                None => Err("loaded, but not a glTF file".into()),
            }
        }
        LoadState::NotLoaded => Err("not found".into()),
        _ => return,
    };
    let (set, finishes, missing) = match outcome {
        Ok(read) => read,
        Err(why) => {
            let file = origin.describe(MODEL_FILE);
            let text = format!("Model file {file}: {why}; using the built-in shapes.");
            warn!("{text}");
            news.write(News::Asset(text));
            *source = ModelSource::BuiltIn(why);
            return;
        }
    };
    if !missing.is_empty() {
        let text = format!(
            "Model file {} lacks {}; using the built-in shapes for those.",
            origin.describe(MODEL_FILE),
            missing.join(", ")
        );
        warn!("{text}");
        news.write(News::Asset(text));
    }
    if let Some(parts) = set.get("Board")
        && let Some((mesh, _)) = parts.first()
        && let Some(stone) = finishes.get("stone")
    {
        // The model is placed in the board's own frame.
        for (slab, mut m, mut tf) in &mut slabs {
            m.0 = mesh.clone();
            // Inserted, not edited: in Low the slab draws with its Low material.
            commands.entity(slab).insert(MeshMaterial3d(stone.clone()));
            *tf = Transform::IDENTITY;
        }
    }
    models.adopt(set, &finishes);
    // Every piece takes its new model.
    for mut p in &mut pieces {
        p.set_changed();
    }
    *source = ModelSource::File;
}

/// A loaded file's models, its finishes by name, and the model names it lacks.
fn read_models(
    gltf: &Gltf,
    meshes: &Assets<GltfMesh>,
    gltf_materials: &Assets<GltfMaterial>,
    materials: &mut Assets<StandardMaterial>,
) -> Result<
    (
        ModelSet,
        HashMap<String, Handle<StandardMaterial>>,
        Vec<&'static str>,
    ),
    String,
> {
    let mut finishes = HashMap::default();
    let mut role_of: HashMap<AssetId<GltfMaterial>, String> = HashMap::default();
    for (name, handle) in &gltf.named_materials {
        let Some(m) = gltf_materials.get(handle) else {
            continue;
        };
        let mut material = standard(m);
        if &**name == "mirror" {
            // A faint glow of its own, so that a mirror reads as one even where it reflects
            // nothing bright.
            material.emissive = LinearRgba::rgb(0.12, 0.16, 0.22);
        }
        finishes.insert(name.to_string(), materials.add(material));
        role_of.insert(handle.id(), name.to_string());
    }
    let mut set = ModelSet::default();
    let mut missing = Vec::new();
    for name in MODEL_NAMES {
        let parts = gltf
            .named_meshes
            .get(name)
            .and_then(|h| meshes.get(h))
            .map(|mesh| {
                mesh.primitives
                    .iter()
                    .filter_map(|p| {
                        let role = p
                            .material
                            .as_ref()
                            .and_then(|m| role_of.get(&m.id()))
                            .and_then(|n| Role::from_name(n))?;
                        Some((p.mesh.clone(), role))
                    })
                    .collect::<Vec<_>>()
            })
            .filter(|parts| !parts.is_empty());
        match parts {
            Some(parts) => {
                set.meshes.insert(name.to_string(), parts);
            }
            None => missing.push(name),
        }
    }
    if set.meshes.is_empty() {
        return Err("it holds none of the models".into());
    }
    Ok((set, finishes, missing))
}

/// The glTF material as the game's material (the fields the models use).
fn standard(m: &GltfMaterial) -> StandardMaterial {
    StandardMaterial {
        base_color: m.base_color,
        base_color_texture: m.base_color_texture.clone(),
        emissive: m.emissive,
        emissive_texture: m.emissive_texture.clone(),
        perceptual_roughness: m.perceptual_roughness,
        metallic: m.metallic,
        metallic_roughness_texture: m.metallic_roughness_texture.clone(),
        normal_map_texture: m.normal_map_texture.clone(),
        occlusion_texture: m.occlusion_texture.clone(),
        reflectance: m.reflectance,
        double_sided: m.double_sided,
        cull_mode: m.cull_mode,
        unlit: m.unlit,
        alpha_mode: m.alpha_mode,
        ..default()
    }
}
