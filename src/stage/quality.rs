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
//! `Auto` is Low on a software renderer (llvmpipe and the like: the adapter reports a CPU), said
//! once in a dialog. Elsewhere it starts at High and watches the frames while something moves:
//! a graphics card too weak for High (a phone's, a browser's on an old laptop) draws them slower
//! than 30 a second, and Auto steps down to Medium, then Low, saying so in the status line. It
//! never steps up again by itself: a busy moment would make it flicker.

use crate::news::{News, Notices};
use crate::settings::{Quality, Settings};
use bevy::light::DirectionalLightShadowMap;
use bevy::post_process::bloom::Bloom;
use bevy::prelude::*;
use bevy::render::renderer::RenderAdapterInfo;
use bevy::render::view::Msaa;

/// The preset in force (never `Auto`), whether the renderer runs on the CPU, and what `Auto`
/// stands for on this machine now.
#[derive(Resource, Clone, Copy, Debug, PartialEq, Eq)]
pub struct Graphics {
    pub active: Quality,
    pub software: bool,
    pub auto: Quality,
}

pub(super) fn plugin(app: &mut App) {
    // After Startup, so that a setting made at start (the scripted run's) is seen.
    app.add_systems(PostStartup, detect).add_systems(
        Update,
        (watch_frames, apply).chain().in_set(crate::GameSet::View),
    );
}

/// What `Auto` starts as on this machine.
pub fn auto_at_start(software: bool) -> Quality {
    if software {
        Quality::Low
    } else {
        Quality::High
    }
}

/// The preset in force for the setting `chosen`, where `Auto` stands for `auto`.
pub fn resolve(chosen: Quality, auto: Quality) -> Quality {
    match chosen {
        Quality::Auto => auto,
        q => q,
    }
}

/// Frames a second below which `Auto` steps down.
pub const SLOW_FPS: f32 = 30.0;
/// Frames drawn after a change before they are judged (shaders compiled, images made).
const SETTLE: u32 = 30;
/// Frames judged at once; their median decides.
const JUDGED: usize = 60;

/// The preset below `q`, if there is one.
pub fn below(q: Quality) -> Option<Quality> {
    match q {
        Quality::High => Some(Quality::Medium),
        Quality::Medium => Some(Quality::Low),
        Quality::Low | Quality::Auto => None,
    }
}

/// Whether frames this long (seconds, as drawn one after another) are too slow to keep.
pub fn too_slow(frames: &mut [f32]) -> bool {
    if frames.is_empty() {
        return false;
    }
    frames.sort_by(f32::total_cmp);
    frames[frames.len() / 2] > 1.0 / SLOW_FPS
}

/// The frames seen at the present preset: how many were let settle, and those judged.
#[derive(Default)]
struct Watch {
    at: Option<Quality>,
    settled: u32,
    frames: Vec<f32>,
}

/// Times the frames drawn one after another while `Auto` is chosen, and steps it down a preset
/// when their median is slower than [`SLOW_FPS`]. Only continuous frames count: at rest the
/// loop sleeps between frames (`super::rest`), and that wait says nothing of the machine.
fn watch_frames(
    time: Res<Time<Real>>,
    settings: Res<Settings>,
    winit: Option<Res<bevy::winit::WinitSettings>>,
    graphics: Option<ResMut<Graphics>>,
    mut news: MessageWriter<News>,
    mut watch: Local<Watch>,
) {
    let Some(mut graphics) = graphics else { return };
    if settings.quality != Quality::Auto || below(graphics.auto).is_none() {
        return;
    }
    if watch.at != Some(graphics.auto) {
        *watch = Watch {
            at: Some(graphics.auto),
            ..Watch::default()
        };
    }
    // The frame before this one asked for this one at once: the time between is its drawing.
    if winit.is_none_or(|w| w.focused_mode != bevy::winit::UpdateMode::Continuous) {
        return;
    }
    if watch.settled < SETTLE {
        watch.settled += 1;
        return;
    }
    watch.frames.push(time.delta_secs());
    if watch.frames.len() < JUDGED {
        return;
    }
    let slow = too_slow(&mut watch.frames);
    watch.frames.clear();
    if slow && let Some(lower) = below(graphics.auto) {
        info!("frames slower than {SLOW_FPS} a second: Auto graphics now {lower:?}");
        graphics.auto = lower;
        news.write(News::AutoQuality(format!("{lower:?}")));
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
    let auto = auto_at_start(software);
    let active = resolve(settings.quality, auto);
    if software && settings.quality == Quality::Auto {
        let name = adapter.map(|a| a.name.clone()).unwrap_or_default();
        info!("software renderer {name}: graphics quality Low");
        // Said once, in a dialog; the setting remembers that it was said.
        if !settings.told_software_renderer {
            notices.0.push(News::SoftwareRenderer(name).to_string());
            settings.told_software_renderer = true;
        }
    }
    commands.insert_resource(Graphics {
        active,
        software,
        auto,
    });
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
    let q = resolve(settings.quality, graphics.auto);
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
    fn auto_starts_low_on_a_software_renderer_only_and_a_choice_stands() {
        assert_eq!(resolve(Quality::Auto, auto_at_start(true)), Quality::Low);
        assert_eq!(resolve(Quality::Auto, auto_at_start(false)), Quality::High);
        for q in [Quality::Low, Quality::Medium, Quality::High] {
            for auto in [Quality::Low, Quality::Medium, Quality::High] {
                assert_eq!(resolve(q, auto), q);
            }
        }
    }

    #[test]
    fn auto_steps_down_when_most_frames_are_slower_than_30_a_second() {
        let frames = |fast: usize, slow: usize| {
            let mut v = vec![1.0 / 60.0; fast];
            v.extend(vec![1.0 / 20.0; slow]);
            v
        };
        assert!(!too_slow(&mut frames(60, 0)));
        // A few slow frames (a hiccup) are not enough; most of them are.
        assert!(!too_slow(&mut frames(40, 20)));
        assert!(too_slow(&mut frames(20, 40)));
        assert!(!too_slow(&mut []));
        assert_eq!(below(Quality::High), Some(Quality::Medium));
        assert_eq!(below(Quality::Medium), Some(Quality::Low));
        assert_eq!(below(Quality::Low), None);
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
