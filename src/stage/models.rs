//! Every piece's model, built for orientation 0 (N, NE or `\`) and turned by the entity's yaw:
//! the modelled one from the model file once it has loaded (`model_file`), else a recognisable
//! procedural one built here, which also stands in whenever the file is missing or broken.
//! Silver stands on round discs, Red on square plates, so the sides differ in shape and
//! brightness, not in hue alone.

use crate::table::pieces::BoardPiece;
use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use khet_engine::{Color as Side, Kind, Piece};

/// A model file's meshes by model name, each part with the role of its material (read by
/// `model_file`, put in use by [`Models::adopt`]).
#[derive(Clone, Debug, Default)]
pub struct ModelSet {
    pub meshes: HashMap<String, Vec<(Handle<Mesh>, Role)>>,
}

impl ModelSet {
    pub fn get(&self, name: &str) -> Option<&[(Handle<Mesh>, Role)]> {
        self.meshes.get(name).map(Vec::as_slice)
    }
}

impl Models {
    /// A side's body material (the shards of its broken pieces).
    pub fn body(&self, side: Side) -> Handle<StandardMaterial> {
        self.body[side.index()].clone()
    }

    /// Puts a model file's meshes and finishes in use (those it has).
    pub fn adopt(&mut self, set: ModelSet, finishes: &HashMap<String, Handle<StandardMaterial>>) {
        let take = |slot: &mut Handle<StandardMaterial>, name: &str| {
            if let Some(h) = finishes.get(name) {
                *slot = h.clone();
            }
        };
        take(&mut self.body[0], "silver_body");
        take(&mut self.body[1], "red_body");
        take(&mut self.trim[0], "silver_trim");
        take(&mut self.trim[1], "red_trim");
        take(&mut self.mirror, "mirror");
        take(&mut self.glass, "glass");
        take(&mut self.gold, "gold");
        take(&mut self.lens, "lens");
        self.file = Some(set);
    }

    /// Khet 1.0's laser emitter from the file, if it has one: its meshes and their roles (the
    /// caller gives the lens its beam's colour); `side` picks the trim's finish.
    pub fn emitter(
        &self,
        side: Side,
    ) -> Option<Vec<(Handle<Mesh>, Role, Handle<StandardMaterial>)>> {
        let parts = self.file.as_ref()?.get("Emitter")?;
        Some(
            parts
                .iter()
                .map(|(mesh, role)| (mesh.clone(), *role, self.material(*role, side.index())))
                .collect(),
        )
    }

    /// Whether the pieces are the model file's.
    pub fn from_file(&self) -> bool {
        self.file.is_some()
    }

    /// The model file's model of that name, with its parts, once the file is in use.
    pub fn file_model(&self, name: &str) -> Option<&[(Handle<Mesh>, Role)]> {
        self.file.as_ref()?.get(name)
    }

    fn material(&self, role: Role, side: usize) -> Handle<StandardMaterial> {
        match role {
            Role::Body => self.body[side].clone(),
            Role::Trim => self.trim[side].clone(),
            Role::Mirror => self.mirror.clone(),
            Role::Glass => self.glass.clone(),
            Role::Gold => self.gold.clone(),
            Role::Lens => self.lens.clone(),
            Role::Stone => self.trim[side].clone(),
        }
    }

    /// The parts of a piece's model from the file, if the file has it (and its base).
    fn file_parts(&self, piece: Piece) -> Option<Vec<Part>> {
        let set = self.file.as_ref()?;
        let side = piece.color().index();
        let name = match piece.kind() {
            Kind::Eye => "Eye",
            k => k.name(),
        };
        let model = set.get(name)?;
        let base = set.get(if piece.color() == Side::Silver {
            "BaseSilver"
        } else {
            "BaseRed"
        })?;
        let mut out: Vec<Part> = base
            .iter()
            .map(|(mesh, role)| {
                (
                    mesh.clone(),
                    self.material(*role, side),
                    Transform::IDENTITY,
                )
            })
            .collect();
        // An obelisk stack is its stones one above the other.
        let levels = if piece.kind() == Kind::Obelisk {
            piece.height()
        } else {
            1
        };
        for level in 0..levels {
            let lift = Transform::from_xyz(0.0, level as f32 * 0.62, 0.0);
            out.extend(
                model
                    .iter()
                    .map(|(mesh, role)| (mesh.clone(), self.material(*role, side), lift)),
            );
        }
        Some(out)
    }
}

/// Marks the mesh children of a piece, rebuilt when the piece changes.
#[derive(Component)]
pub struct PieceModel;

/// What a part of a model is made of. `Body` and `Trim` take the piece's side's finish.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Body,
    Trim,
    Mirror,
    Glass,
    Gold,
    Lens,
    Stone,
}

impl Role {
    /// The role a model file's material name stands for.
    pub fn from_name(name: &str) -> Option<Role> {
        Some(match name {
            "body" => Role::Body,
            "trim" => Role::Trim,
            "mirror" => Role::Mirror,
            "glass" => Role::Glass,
            "gold" => Role::Gold,
            "lens" => Role::Lens,
            "stone" => Role::Stone,
            _ => return None,
        })
    }
}

#[derive(Resource)]
pub struct Models {
    /// The model file's meshes, once loaded.
    file: Option<ModelSet>,
    disc: Handle<Mesh>,
    plate: Handle<Mesh>,
    prism: Handle<Mesh>,
    prism_mirror: Handle<Mesh>,
    slab: Handle<Mesh>,
    block: Handle<Mesh>,
    cylinder: Handle<Mesh>,
    cone: Handle<Mesh>,
    sphere: Handle<Mesh>,
    torus: Handle<Mesh>,
    body: [Handle<StandardMaterial>; 2],
    trim: [Handle<StandardMaterial>; 2],
    mirror: Handle<StandardMaterial>,
    glass: Handle<StandardMaterial>,
    gold: Handle<StandardMaterial>,
    lens: Handle<StandardMaterial>,
    pub lit: Handle<StandardMaterial>,
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, make_models).add_systems(
        Update,
        (unlight_on_rewind, build_models)
            .chain()
            .in_set(crate::GameSet::View)
            .in_set(crate::schedule::Drawn::Pieces),
    );
}

/// A lit Pharaoh keeps its glow while its game is over; a take-back, a replay's step back or a
/// new game rebuilds the Pharaohs' models unlit.
fn unlight_on_rewind(
    mut undone: MessageReader<crate::table::Undone>,
    mut new_games: MessageReader<crate::table::NewGameRequested>,
    mut pieces: Query<&mut BoardPiece>,
) {
    if undone.read().count() + new_games.read().count() == 0 {
        return;
    }
    for mut bp in &mut pieces {
        if bp.0.kind() == khet_engine::Kind::Pharaoh {
            bp.set_changed();
        }
    }
}

/// The half of the square behind a Pyramid's mirror: a right-triangle prism whose hypotenuse
/// runs from the NW to the SE corner, facing NE.
fn prism_mesh(h: f32, height: f32) -> (Mesh, Mesh) {
    let sw = [-h, 0.0, h];
    let nw = [-h, 0.0, -h];
    let se = [h, 0.0, h];
    let up = |p: [f32; 3]| [p[0], height, p[2]];
    let mut pos: Vec<[f32; 3]> = Vec::new();
    let mut nor: Vec<[f32; 3]> = Vec::new();
    let mut quad = |a: [f32; 3], b: [f32; 3], c: [f32; 3], d: [f32; 3], n: [f32; 3]| {
        for p in [a, b, c, a, c, d] {
            pos.push(p);
            nor.push(n);
        }
    };
    quad(sw, nw, up(nw), up(sw), [-1.0, 0.0, 0.0]); // west face
    quad(se, sw, up(sw), up(se), [0.0, 0.0, 1.0]); // south face
    let s = std::f32::consts::FRAC_1_SQRT_2;
    quad(nw, se, up(se), up(nw), [s, 0.0, -s]); // hypotenuse, under the mirror
    for p in [up(sw), up(se), up(nw)] {
        pos.push(p);
        nor.push([0.0, 1.0, 0.0]);
    }
    let n = pos.len() as u32;
    let mut body = Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    );
    body.insert_attribute(Mesh::ATTRIBUTE_UV_0, vec![[0.0, 0.0]; pos.len()]);
    body.insert_attribute(Mesh::ATTRIBUTE_POSITION, pos);
    body.insert_attribute(Mesh::ATTRIBUTE_NORMAL, nor);
    body.insert_indices(Indices::U32((0..n).collect()));
    // The mirror: a quad just in front of the hypotenuse.
    let off = 0.012;
    let m = |p: [f32; 3]| [p[0] + off * s, p[1], p[2] - off * s];
    let (a, b, c, d) = (
        m([-h, 0.04, -h]),
        m([h, 0.04, h]),
        m([h, height - 0.02, h]),
        m([-h, height - 0.02, -h]),
    );
    let mpos = vec![a, b, c, a, c, d];
    let mut mirror = Mesh::new(
        PrimitiveTopology::TriangleList,
        RenderAssetUsages::default(),
    );
    mirror.insert_attribute(Mesh::ATTRIBUTE_UV_0, vec![[0.0, 0.0]; 6]);
    mirror.insert_attribute(Mesh::ATTRIBUTE_NORMAL, vec![[s, 0.0, -s]; 6]);
    mirror.insert_attribute(Mesh::ATTRIBUTE_POSITION, mpos);
    mirror.insert_indices(Indices::U32((0..6).collect()));
    (body, mirror)
}

fn make_models(
    mut commands: Commands,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<StandardMaterial>>,
) {
    let (prism, prism_mirror) = prism_mesh(0.42, 0.58);
    let mut mat = |m: StandardMaterial| materials.add(m);
    let silver = mat(StandardMaterial {
        base_color: Color::srgb(0.86, 0.88, 0.92),
        metallic: 0.55,
        perceptual_roughness: 0.35,
        ..default()
    });
    let red = mat(StandardMaterial {
        base_color: Color::srgb(0.55, 0.05, 0.06),
        metallic: 0.2,
        perceptual_roughness: 0.45,
        ..default()
    });
    let silver_trim = mat(StandardMaterial {
        base_color: Color::srgb(0.97, 0.97, 1.0),
        perceptual_roughness: 0.3,
        ..default()
    });
    let red_trim = mat(StandardMaterial {
        base_color: Color::srgb(0.25, 0.02, 0.03),
        perceptual_roughness: 0.5,
        ..default()
    });
    let mirror = mat(StandardMaterial {
        base_color: Color::srgb(0.75, 0.88, 1.0),
        metallic: 0.9,
        perceptual_roughness: 0.06,
        reflectance: 1.0,
        emissive: LinearRgba::rgb(0.12, 0.16, 0.22),
        double_sided: true,
        cull_mode: None,
        ..default()
    });
    let glass = mat(StandardMaterial {
        base_color: Color::srgba(0.55, 0.85, 1.0, 0.45),
        alpha_mode: AlphaMode::Blend,
        metallic: 0.3,
        perceptual_roughness: 0.05,
        emissive: LinearRgba::rgb(0.1, 0.3, 0.45),
        double_sided: true,
        cull_mode: None,
        ..default()
    });
    let gold = mat(StandardMaterial {
        base_color: Color::srgb(0.95, 0.72, 0.2),
        metallic: 0.8,
        perceptual_roughness: 0.3,
        ..default()
    });
    let lens = mat(StandardMaterial {
        base_color: Color::srgb(1.0, 0.2, 0.1),
        emissive: LinearRgba::rgb(4.0, 0.3, 0.15),
        ..default()
    });
    let lit = mat(StandardMaterial {
        base_color: Color::srgb(1.0, 0.9, 0.6),
        emissive: LinearRgba::rgb(30.0, 8.0, 2.0),
        ..default()
    });
    commands.insert_resource(Models {
        file: None,
        disc: meshes.add(Cylinder::new(0.44, 0.06)),
        plate: meshes.add(Cuboid::new(0.84, 0.06, 0.84)),
        prism: meshes.add(prism),
        prism_mirror: meshes.add(prism_mirror),
        slab: meshes.add(Cuboid::new(1.0, 1.0, 1.0)),
        block: meshes.add(Cuboid::new(1.0, 1.0, 1.0)),
        cylinder: meshes.add(Cylinder::new(0.5, 1.0)),
        cone: meshes.add(Cone {
            radius: 0.5,
            height: 1.0,
        }),
        sphere: meshes.add(Sphere::new(0.5)),
        torus: meshes.add(Torus::new(0.35, 0.5)),
        body: [silver, red],
        trim: [silver_trim, red_trim],
        mirror,
        glass,
        gold,
        lens,
        lit,
    });
}

/// One part of a model: mesh, material, placement.
type Part = (Handle<Mesh>, Handle<StandardMaterial>, Transform);

fn at(x: f32, y: f32, z: f32) -> Transform {
    Transform::from_xyz(x, y, z)
}

/// The parts of a piece's model, in the piece's own frame (orientation 0).
pub fn parts(m: &Models, piece: Piece) -> Vec<Part> {
    if let Some(parts) = m.file_parts(piece) {
        return parts;
    }
    let side = piece.color().index();
    let body = m.body[side].clone();
    let trim = m.trim[side].clone();
    let mut out: Vec<Part> = Vec::new();
    // The base tells the sides apart by shape: Silver round, Red square.
    let base = if piece.color() == Side::Silver {
        m.disc.clone()
    } else {
        m.plate.clone()
    };
    out.push((base, trim.clone(), at(0.0, 0.03, 0.0)));
    match piece.kind() {
        Kind::Pharaoh => pharaoh_parts(m, body, trim, &mut out),
        Kind::Sphinx => sphinx_parts(m, body, &mut out),
        Kind::Pyramid => pyramid_parts(m, body, trim, &mut out),
        Kind::Anubis => anubis_parts(m, body, trim, &mut out),
        Kind::Scarab | Kind::Djed | Kind::Eye => slab_parts(m, piece.kind(), body, &mut out),
        Kind::Obelisk => obelisk_parts(m, piece.height(), body, trim, &mut out),
    }
    out
}

/// A Pharaoh's column, gold band and crown, topped by a knob of its side's trim.
fn pharaoh_parts(
    m: &Models,
    body: Handle<StandardMaterial>,
    trim: Handle<StandardMaterial>,
    out: &mut Vec<Part>,
) {
    out.push((
        m.cylinder.clone(),
        body,
        at(0.0, 0.33, 0.0).with_scale(Vec3::new(0.56, 0.54, 0.56)),
    ));
    out.push((
        m.cylinder.clone(),
        m.gold.clone(),
        at(0.0, 0.62, 0.0).with_scale(Vec3::new(0.6, 0.05, 0.6)),
    ));
    out.push((
        m.cone.clone(),
        m.gold.clone(),
        at(0.0, 0.86, 0.0).with_scale(Vec3::new(0.42, 0.44, 0.42)),
    ));
    out.push((
        m.sphere.clone(),
        trim,
        at(0.0, 1.1, 0.0).with_scale(Vec3::splat(0.12)),
    ));
}

/// A Sphinx's body, head and gold headdress, and the lens its laser leaves from.
fn sphinx_parts(m: &Models, body: Handle<StandardMaterial>, out: &mut Vec<Part>) {
    out.push((
        m.block.clone(),
        body.clone(),
        at(0.0, 0.2, 0.08).with_scale(Vec3::new(0.62, 0.34, 0.7)),
    ));
    out.push((
        m.block.clone(),
        body,
        at(0.0, 0.46, -0.12).with_scale(Vec3::new(0.36, 0.3, 0.3)),
    ));
    out.push((
        m.block.clone(),
        m.gold.clone(),
        at(0.0, 0.62, -0.12).with_scale(Vec3::new(0.4, 0.06, 0.34)),
    ));
    // The emitter points along the laser (north for orientation 0).
    out.push((
        m.cylinder.clone(),
        m.lens.clone(),
        Transform::from_xyz(0.0, crate::board::BEAM_HEIGHT, -0.34)
            .with_rotation(Quat::from_rotation_x(std::f32::consts::FRAC_PI_2))
            .with_scale(Vec3::new(0.16, 0.16, 0.16)),
    ));
}

/// A Pyramid's prism and mirror, with a knob of its side's trim on the back corner.
fn pyramid_parts(
    m: &Models,
    body: Handle<StandardMaterial>,
    trim: Handle<StandardMaterial>,
    out: &mut Vec<Part>,
) {
    out.push((m.prism.clone(), body, Transform::IDENTITY));
    out.push((
        m.prism_mirror.clone(),
        m.mirror.clone(),
        Transform::IDENTITY,
    ));
    out.push((
        m.sphere.clone(),
        trim,
        at(-0.28, 0.6, 0.28).with_scale(Vec3::splat(0.1)),
    ));
}

/// An Anubis's body, head and trim ears, behind its gold shield.
fn anubis_parts(
    m: &Models,
    body: Handle<StandardMaterial>,
    trim: Handle<StandardMaterial>,
    out: &mut Vec<Part>,
) {
    out.push((
        m.block.clone(),
        body.clone(),
        at(0.0, 0.3, 0.08).with_scale(Vec3::new(0.46, 0.5, 0.4)),
    ));
    out.push((
        m.block.clone(),
        body,
        at(0.0, 0.66, 0.1).with_scale(Vec3::new(0.24, 0.24, 0.3)),
    ));
    out.push((
        m.cone.clone(),
        trim.clone(),
        at(-0.07, 0.86, 0.12).with_scale(Vec3::new(0.07, 0.18, 0.07)),
    ));
    out.push((
        m.cone.clone(),
        trim,
        at(0.07, 0.86, 0.12).with_scale(Vec3::new(0.07, 0.18, 0.07)),
    ));
    // The shield faces north for orientation 0.
    out.push((
        m.block.clone(),
        m.gold.clone(),
        at(0.0, 0.34, -0.2).with_scale(Vec3::new(0.72, 0.56, 0.07)),
    ));
}

/// A Scarab's, Djed's or Eye's diagonal mirror (an Eye's is glass), its rails and ornament.
fn slab_parts(m: &Models, kind: Kind, body: Handle<StandardMaterial>, out: &mut Vec<Part>) {
    let diagonal = Quat::from_rotation_y(-std::f32::consts::FRAC_PI_4);
    let (len, height) = (1.15, 0.56);
    let material = if kind == Kind::Eye {
        m.glass.clone()
    } else {
        m.mirror.clone()
    };
    out.push((
        m.slab.clone(),
        material,
        Transform::from_xyz(0.0, 0.06 + height / 2.0, 0.0)
            .with_rotation(diagonal)
            .with_scale(Vec3::new(len, height, 0.07)),
    ));
    out.push((
        m.slab.clone(),
        body.clone(),
        Transform::from_xyz(0.0, 0.08, 0.0)
            .with_rotation(diagonal)
            .with_scale(Vec3::new(len, 0.06, 0.16)),
    ));
    out.push((
        m.slab.clone(),
        body,
        Transform::from_xyz(0.0, 0.66, 0.0)
            .with_rotation(diagonal)
            .with_scale(Vec3::new(len, 0.06, 0.14)),
    ));
    match kind {
        Kind::Scarab => out.push((
            m.sphere.clone(),
            m.gold.clone(),
            at(0.0, 0.74, 0.0).with_scale(Vec3::new(0.3, 0.16, 0.22)),
        )),
        Kind::Djed => out.push((
            m.cylinder.clone(),
            m.gold.clone(),
            at(0.0, 0.8, 0.0).with_scale(Vec3::new(0.18, 0.22, 0.18)),
        )),
        _ => out.push((
            m.torus.clone(),
            m.gold.clone(),
            Transform::from_xyz(0.0, 0.76, 0.0).with_scale(Vec3::new(0.3, 0.3, 0.2)),
        )),
    }
}

/// An Obelisk's stones, one block and cap each, stacked.
fn obelisk_parts(
    m: &Models,
    stones: u8,
    body: Handle<StandardMaterial>,
    trim: Handle<StandardMaterial>,
    out: &mut Vec<Part>,
) {
    for level in 0..stones {
        let y = 0.06 + level as f32 * 0.62;
        out.push((
            m.block.clone(),
            body.clone(),
            at(0.0, y + 0.27, 0.0).with_scale(Vec3::new(0.34, 0.54, 0.34)),
        ));
        out.push((
            m.cone.clone(),
            trim.clone(),
            at(0.0, y + 0.58, 0.0).with_scale(Vec3::new(0.36, 0.1, 0.36)),
        ));
    }
}

/// Gives new or changed pieces their model.
fn build_models(
    models: Option<Res<Models>>,
    changed: Query<(Entity, &BoardPiece, Option<&Children>), Changed<BoardPiece>>,
    old: Query<(), With<PieceModel>>,
    mut commands: Commands,
) {
    let Some(models) = models else { return };
    for (e, bp, children) in &changed {
        if let Some(children) = children {
            for child in children.iter() {
                if old.contains(child) {
                    commands.entity(child).despawn();
                }
            }
        }
        commands.entity(e).with_children(|c| {
            for (mesh, material, tf) in parts(&models, bp.0) {
                c.spawn((PieceModel, Mesh3d(mesh), MeshMaterial3d(material), tf));
            }
        });
    }
}
