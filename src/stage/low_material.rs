//! Low graphics' material: in the Low preset every opaque [`StandardMaterial`] is drawn with a
//! [`LowMaterial`] made from it, a handful of instructions a pixel (`low.wgsl`, beside this
//! file). The board's picture (`board_image`) is drawn with it in every preset. The shader is
//! built into the program, not read from `assets/`: without it there would be no board at all.
//!
//! Why: on a software renderer (llvmpipe) Bevy's PBR fragment shader costs about 0.5 µs a pixel on
//! this 2-core machine whether lit or unlit, 105–125 ms a frame for the board at half resolution;
//! the Low shader draws the same picture in 17 ms (measured with Bevy's render diagnostics;
//! `docs/performance.md`, *Frame times*). Transparent materials (the beam, highlights, effects)
//! cover few pixels and keep PBR.
//!
//! The game's systems go on spawning and setting `StandardMaterial`s; [`swap`] runs after them
//! each frame and keeps the entity's PBR material in [`Pbr`], so leaving Low puts it back. A
//! system that changes a part's material inserts a new `MeshMaterial3d<StandardMaterial>`
//! rather than editing the old component, which may be gone.

use crate::settings::Quality;
use crate::stage::quality::Graphics;
use bevy::asset::AssetEvent;
use bevy::platform::collections::HashMap;
use bevy::prelude::*;
use bevy::render::render_resource::{AsBindGroup, ShaderType};
use bevy::shader::ShaderRef;

/// The shader, embedded (see [`plugin`]).
pub const SHADER: &str = "embedded://khet/stage/low.wgsl";

#[derive(Asset, TypePath, AsBindGroup, Clone, Debug)]
pub struct LowMaterial {
    #[uniform(0)]
    pub uniform: LowUniform,
    #[texture(1)]
    #[sampler(2)]
    pub texture: Option<Handle<Image>>,
}

/// The shader's numbers; see `low.wgsl`.
#[derive(ShaderType, Clone, Copy, Debug, Default, PartialEq)]
pub struct LowUniform {
    /// How the surface answers the sun (linear RGB).
    pub sun: Vec4,
    /// How it answers the ambient light; for an unlit material, its colour.
    pub ambient: Vec4,
    pub emissive: Vec4,
    /// Textured (0 or 1), unlit (0 or 1).
    pub flags: Vec4,
}

impl Material for LowMaterial {
    fn fragment_shader() -> ShaderRef {
        SHADER.into()
    }
}

impl LowMaterial {
    /// The Low version of a PBR material. A metal's colour is its reflectance: it mirrors the
    /// hall's light (1.2 × the ambient) and a soft share of the sun's (0.3); a dielectric
    /// reflects 4 % and diffuses the rest. The shader only scales these by the light.
    pub fn from_standard(m: &StandardMaterial) -> LowMaterial {
        let flag = |b: bool| if b { 1.0 } else { 0.0 };
        let base = m.base_color.to_linear().to_vec3();
        let metallic = m.metallic.clamp(0.0, 1.0);
        let diffuse = base * (1.0 - metallic);
        let reflectance = Vec3::splat(0.04).lerp(base, metallic);
        let (sun, ambient) = if m.unlit {
            (Vec3::ZERO, base)
        } else {
            (diffuse + reflectance * 0.3, diffuse + reflectance * 1.2)
        };
        LowMaterial {
            uniform: LowUniform {
                sun: sun.extend(1.0),
                ambient: ambient.extend(1.0),
                emissive: m.emissive.to_vec4(),
                flags: Vec4::new(
                    flag(m.base_color_texture.is_some()),
                    flag(m.unlit),
                    0.0,
                    0.0,
                ),
            },
            texture: m.base_color_texture.clone(),
        }
    }
}

impl LowMaterial {
    /// An image shown as it is: the board's picture for the window's camera.
    pub fn picture(image: Handle<Image>) -> LowMaterial {
        LowMaterial {
            uniform: LowUniform {
                ambient: Vec4::ONE,
                flags: Vec4::new(1.0, 1.0, 0.0, 0.0),
                ..default()
            },
            texture: Some(image),
        }
    }
}

/// The PBR material an entity draws with outside Low.
#[derive(Component, Clone, Debug)]
pub struct Pbr(pub Handle<StandardMaterial>);

/// One Low material per PBR material, kept up to date when the PBR one changes.
#[derive(Resource, Default)]
struct LowCache(HashMap<AssetId<StandardMaterial>, Handle<LowMaterial>>);

pub(super) fn plugin(app: &mut App) {
    bevy::asset::embedded_asset!(app, "low.wgsl");
    app.add_plugins(MaterialPlugin::<LowMaterial>::default())
        .init_resource::<LowCache>()
        .add_systems(PostUpdate, (follow_changes, swap).chain());
}

/// Whether a PBR material is drawn with the Low shader in Low.
fn drawn_low(m: &StandardMaterial) -> bool {
    m.alpha_mode == AlphaMode::Opaque
}

/// A PBR material changed (a glow, a fade): its Low version follows; one removed is forgotten.
fn follow_changes(
    mut events: MessageReader<AssetEvent<StandardMaterial>>,
    standards: Res<Assets<StandardMaterial>>,
    mut lows: ResMut<Assets<LowMaterial>>,
    mut cache: ResMut<LowCache>,
) {
    for event in events.read() {
        match *event {
            AssetEvent::Modified { id } => {
                if let (Some(h), Some(m)) = (cache.0.get(&id), standards.get(id))
                    && let Some(mut low) = lows.get_mut(h)
                {
                    *low = LowMaterial::from_standard(m);
                }
            }
            AssetEvent::Removed { id } | AssetEvent::Unused { id } => {
                cache.0.remove(&id);
            }
            _ => {}
        }
    }
}

/// In Low, opaque PBR materials give way to their Low versions; otherwise the PBR ones return.
fn swap(
    graphics: Option<Res<Graphics>>,
    pbr_drawn: Query<(Entity, &MeshMaterial3d<StandardMaterial>)>,
    low_drawn: Query<(Entity, &Pbr), With<MeshMaterial3d<LowMaterial>>>,
    standards: Res<Assets<StandardMaterial>>,
    mut lows: ResMut<Assets<LowMaterial>>,
    mut cache: ResMut<LowCache>,
    mut commands: Commands,
) {
    let low = graphics.is_some_and(|g| g.active == Quality::Low);
    for (entity, pbr) in &low_drawn {
        let keep = low && standards.get(&pbr.0).is_some_and(drawn_low);
        if !keep {
            commands
                .entity(entity)
                .remove::<(MeshMaterial3d<LowMaterial>, Pbr)>()
                .insert(MeshMaterial3d(pbr.0.clone()));
        }
    }
    if !low {
        return;
    }
    for (entity, material) in &pbr_drawn {
        // A material still loading is looked at again next frame.
        let Some(m) = standards.get(&material.0) else {
            continue;
        };
        if !drawn_low(m) {
            continue;
        }
        let handle = cache
            .0
            .entry(material.0.id())
            .or_insert_with(|| lows.add(LowMaterial::from_standard(m)))
            .clone();
        commands
            .entity(entity)
            .remove::<MeshMaterial3d<StandardMaterial>>()
            .insert((MeshMaterial3d(handle), Pbr(material.0.clone())));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_low_material_answers_the_light_as_its_pbr_one() {
        let lacquer = LowMaterial::from_standard(&StandardMaterial {
            base_color: Color::linear_rgb(0.5, 0.25, 0.125),
            emissive: LinearRgba::rgb(3.0, 2.0, 1.0),
            metallic: 0.0,
            ..default()
        });
        // A dielectric: its colour, plus 0.3 of a 4 % grey reflection of the sun.
        let sun = lacquer.uniform.sun.truncate();
        assert!((sun - Vec3::new(0.512, 0.262, 0.137)).abs().max_element() < 1e-6);
        assert_eq!(
            lacquer.uniform.emissive.truncate(),
            Vec3::new(3.0, 2.0, 1.0)
        );
        assert_eq!(lacquer.uniform.flags, Vec4::ZERO);
        // A metal: no diffuse light, its colour mirrored, more of the ambient than of the sun.
        let gold = LowMaterial::from_standard(&StandardMaterial {
            base_color: Color::linear_rgb(1.0, 0.5, 0.0),
            metallic: 1.0,
            ..default()
        });
        assert_eq!(gold.uniform.sun.truncate(), Vec3::new(0.3, 0.15, 0.0));
        assert_eq!(gold.uniform.ambient.truncate(), Vec3::new(1.2, 0.6, 0.0));
        // Unlit: its colour alone.
        let unlit = LowMaterial::from_standard(&StandardMaterial {
            base_color: Color::linear_rgb(0.2, 0.4, 0.6),
            unlit: true,
            ..default()
        });
        assert_eq!(unlit.uniform.ambient.truncate(), Vec3::new(0.2, 0.4, 0.6));
        assert_eq!(unlit.uniform.flags.y, 1.0);
    }

    fn app(active: Quality) -> App {
        let mut app = App::new();
        app.add_plugins((MinimalPlugins, bevy::asset::AssetPlugin::default()))
            .init_asset::<StandardMaterial>()
            .init_asset::<LowMaterial>()
            .init_asset::<Image>()
            .init_resource::<LowCache>()
            .insert_resource(Graphics {
                active,
                software: true,
                auto: Quality::Low,
            })
            .add_systems(PostUpdate, (follow_changes, swap).chain());
        app
    }

    fn low_of(app: &App, e: Entity) -> Option<LowUniform> {
        let h = app.world().get::<MeshMaterial3d<LowMaterial>>(e)?;
        Some(
            app.world()
                .resource::<Assets<LowMaterial>>()
                .get(&h.0)?
                .uniform,
        )
    }

    #[test]
    fn opaque_materials_are_drawn_low_in_low_and_come_back_after() {
        let mut app = app(Quality::Low);
        let mut standards = app.world_mut().resource_mut::<Assets<StandardMaterial>>();
        let stone = standards.add(StandardMaterial::from_color(Color::srgb(0.6, 0.5, 0.4)));
        let glow = standards.add(StandardMaterial {
            alpha_mode: AlphaMode::Blend,
            ..default()
        });
        let lit = standards.add(StandardMaterial {
            emissive: LinearRgba::rgb(8.0, 8.0, 6.0),
            ..default()
        });
        let tile = app.world_mut().spawn(MeshMaterial3d(stone.clone())).id();
        let beam = app.world_mut().spawn(MeshMaterial3d(glow.clone())).id();
        app.update();
        // The opaque one draws low and remembers its PBR material; the transparent one is kept.
        assert!(
            app.world()
                .get::<MeshMaterial3d<StandardMaterial>>(tile)
                .is_none()
        );
        assert_eq!(
            app.world().get::<Pbr>(tile).map(|p| p.0.id()),
            Some(stone.id())
        );
        let before = low_of(&app, tile).expect("a low material");
        assert!(
            app.world()
                .get::<MeshMaterial3d<StandardMaterial>>(beam)
                .is_some()
        );
        assert!(low_of(&app, beam).is_none());

        // A change to the PBR material reaches its low version.
        if let Some(mut m) = app
            .world_mut()
            .resource_mut::<Assets<StandardMaterial>>()
            .get_mut(&stone)
        {
            m.base_color = Color::srgb(0.2, 0.2, 0.2);
        }
        app.update();
        let after = low_of(&app, tile).expect("a low material");
        assert_ne!(before.sun, after.sun);

        // A system that gives the part a new PBR material (a lit Pharaoh) is followed.
        app.world_mut()
            .entity_mut(tile)
            .insert(MeshMaterial3d(lit.clone()));
        app.update();
        assert_eq!(
            app.world().get::<Pbr>(tile).map(|p| p.0.id()),
            Some(lit.id())
        );
        assert_eq!(
            low_of(&app, tile).map(|u| u.emissive),
            Some(Vec4::new(8.0, 8.0, 6.0, 1.0))
        );

        // Out of Low, the PBR material is back.
        app.world_mut().resource_mut::<Graphics>().active = Quality::High;
        app.update();
        let back = app.world().get::<MeshMaterial3d<StandardMaterial>>(tile);
        assert_eq!(back.map(|m| m.0.id()), Some(lit.id()));
        assert!(app.world().get::<Pbr>(tile).is_none());
        assert!(low_of(&app, tile).is_none());
    }
}
