//! Graphics quality presets, from the settings ([`Quality`]):
//!
//! | preset | render scale | materials | shadows | bloom | fill light | reflections | anti-aliasing | shards, sparks |
//! |---|---|---|---|---|---|---|---|---|
//! | Low | 0.5 | Low (`low_material`) | off | off | off | off | off | 8, 4 |
//! | Medium | 1 | PBR | 1024² map | off | on | the hall | MSAA ×4 | 14, 8 |
//! | High | 1 | PBR | 2048² map | on | on | the hall | MSAA ×4 | 22, 12 |
//!
//! (Render scale: the board's picture has half the window's pixels each way, `board_image`.
//! Reflections: the environment light of `environment`. Shards and sparks: `effects`.)
//!
//! Low is what a machine without a graphics card gets: on llvmpipe (2 cores, 1280 × 800) it draws
//! 17–18 frames a second where PBR at full scale drew 2.6 (`docs/performance.md`, *Frame times*).
//!
//! MSAA ×2 is not offered: WebGPU guarantees only 1 and 4 samples, and llvmpipe refuses 2.
//! The board camera stays HDR in every preset (tonemapping needs it; an LDR Low camera was
//! measured no faster).
//!
//! `Auto` is Low on a software renderer (llvmpipe and the like: the adapter reports a CPU) and
//! High elsewhere; the game says so once, in the status line, when it picks Low by itself.

use crate::news::{News, Notices};
use crate::settings::{Quality, Settings};
use bevy::light::DirectionalLightShadowMap;
use bevy::post_process::bloom::Bloom;
use bevy::prelude::*;
use bevy::render::renderer::RenderAdapterInfo;
use bevy::render::view::Msaa;

/// The preset in force (never `Auto`) and whether the renderer runs on the CPU.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Graphics {
    pub active: Quality,
    pub software: bool,
}

pub(super) fn plugin(app: &mut App) {
    // After Startup, so that a setting made at start (the scripted run's) is seen.
    app.add_systems(PostStartup, detect)
        .add_systems(Update, apply.in_set(crate::GameSet::View));
}

/// What `Auto` means on this machine.
pub fn resolve(chosen: Quality, software: bool) -> Quality {
    match chosen {
        Quality::Auto if software => Quality::Low,
        Quality::Auto => Quality::High,
        q => q,
    }
}

fn detect(
    adapter: Option<Res<RenderAdapterInfo>>,
    mut settings: ResMut<Settings>,
    mut notices: ResMut<Notices>,
    mut commands: Commands,
) {
    // Bevy does not re-export wgpu's `DeviceType`; its name is enough to tell a CPU adapter.
    let software = adapter
        .as_ref()
        .is_some_and(|a| format!("{:?}", a.device_type) == "Cpu");
    let active = resolve(settings.quality, software);
    if software && settings.quality == Quality::Auto {
        let name = adapter.map(|a| a.name.clone()).unwrap_or_default();
        info!("software renderer {name}: graphics quality Low");
        // Said once, in a dialog; the setting remembers that it was said.
        if !settings.told_software_renderer {
            notices.0.push(News::SoftwareRenderer(name).to_string());
            settings.told_software_renderer = true;
        }
    }
    commands.insert_resource(Graphics { active, software });
}

/// Sets the camera and the sun to the preset whenever the setting changes.
fn apply(
    settings: Res<Settings>,
    graphics: Option<ResMut<Graphics>>,
    cameras: Query<Entity, With<crate::board::BoardCamera>>,
    mut suns: Query<&mut DirectionalLight>,
    mut fills: Query<&mut Visibility, With<PointLight>>,
    mut shadow_map: ResMut<DirectionalLightShadowMap>,
    hall: Option<Res<super::environment::Hall>>,
    mut commands: Commands,
    mut applied: Local<Option<Quality>>,
) {
    let Some(mut graphics) = graphics else { return };
    let Some(hall) = hall else { return };
    let q = resolve(settings.quality, graphics.software);
    let Ok(camera) = cameras.single() else { return };
    if *applied == Some(q) {
        return;
    }
    *applied = Some(q);
    graphics.active = q;
    let mut e = commands.entity(camera);
    match q {
        Quality::High => {
            e.insert((
                Bloom {
                    intensity: 0.3,
                    ..Bloom::NATURAL
                },
                Msaa::Sample4,
                super::environment::light(&hall),
            ));
        }
        Quality::Medium => {
            e.remove::<Bloom>()
                .insert((Msaa::Sample4, super::environment::light(&hall)));
        }
        Quality::Low | Quality::Auto => {
            e.remove::<(Bloom, bevy::light::EnvironmentMapLight)>()
                .insert(Msaa::Off);
        }
    }
    // The fill light costs a second light in every pixel's shading; Low does without it.
    for mut v in &mut fills {
        *v = if q == Quality::Low {
            Visibility::Hidden
        } else {
            Visibility::Inherited
        };
    }
    for mut sun in &mut suns {
        sun.shadow_maps_enabled = q != Quality::Low;
    }
    shadow_map.size = if q == Quality::High { 2048 } else { 1024 };
}

/// The board's render scale: image pixels per window pixel (`board_image` follows it).
pub fn render_scale_of(q: Quality) -> f32 {
    match q {
        Quality::Low | Quality::Auto => 0.5,
        Quality::Medium | Quality::High => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_is_low_on_a_software_renderer_only() {
        assert_eq!(resolve(Quality::Auto, true), Quality::Low);
        assert_eq!(resolve(Quality::Auto, false), Quality::High);
        for q in [Quality::Low, Quality::Medium, Quality::High] {
            assert_eq!(resolve(q, true), q);
            assert_eq!(resolve(q, false), q);
        }
    }

    #[test]
    fn the_quality_setting_reads_and_older_files_default_to_auto() {
        let s = Settings::from_bytes(b"(quality: Medium)", "settings.ron").expect("reads");
        assert_eq!(s.quality, Quality::Medium);
        let s = Settings::from_bytes(b"(speed: 1.0)", "settings.ron").expect("reads");
        assert_eq!(s.quality, Quality::Auto);
        let e = Settings::from_bytes(b"(quality: Ultra)", "settings.ron").expect_err("no Ultra");
        assert!(e.contains("settings.ron:1"), "{e}");
    }
}
