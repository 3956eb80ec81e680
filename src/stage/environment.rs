//! The surroundings the mirrors and metals reflect: a dim temple hall made in code (a warm
//! ceiling, a bright band of lamp-lit walls with brighter lamps at the horizon, a dark floor), as
//! a small cubemap with its mipmaps, given to the board camera as its environment light in
//! Medium and High (`quality`). A Pyramid's mirror then shows the hall's lamps instead of black.
//!
//! Made, not loaded: 32 × 32 texels a face is enough for something this soft, and it is built
//! in well under a millisecond, so there is no file to lose.

use bevy::asset::RenderAssetUsages;
use bevy::image::Image;
use bevy::light::EnvironmentMapLight;
use bevy::prelude::*;
use bevy::render::render_resource::{
    Extent3d, TextureDimension, TextureFormat, TextureViewDescriptor, TextureViewDimension,
};

/// Texels along a face's side at the sharpest level.
const SIZE: usize = 32;

/// The hall's cubemap, made once.
#[derive(Resource, Clone)]
pub struct Hall(pub Handle<Image>);

pub(super) fn plugin(app: &mut App) {
    app.add_systems(Startup, make_hall);
}

fn make_hall(mut images: ResMut<Assets<Image>>, mut commands: Commands) {
    commands.insert_resource(Hall(images.add(hall_cubemap())));
}

/// The environment light the presets with reflections give the board camera.
pub fn light(hall: &Hall) -> EnvironmentMapLight {
    EnvironmentMapLight {
        diffuse_map: hall.0.clone(),
        specular_map: hall.0.clone(),
        intensity: 900.0,
        ..default()
    }
}

/// The direction a face's texel looks along (the usual cubemap faces: +X, -X, +Y, -Y, +Z, -Z).
fn direction(face: usize, u: f32, v: f32) -> Vec3 {
    match face {
        0 => Vec3::new(1.0, -v, -u),
        1 => Vec3::new(-1.0, -v, u),
        2 => Vec3::new(u, 1.0, v),
        3 => Vec3::new(u, -1.0, -v),
        4 => Vec3::new(u, -v, 1.0),
        _ => Vec3::new(-u, -v, -1.0),
    }
    .normalize()
}

/// The hall seen along `d`, in linear light (at most 1).
pub fn radiance(d: Vec3) -> Vec3 {
    let ceiling = Vec3::new(0.20, 0.16, 0.12);
    let wall = Vec3::new(0.55, 0.45, 0.32);
    let floor = Vec3::new(0.05, 0.04, 0.035);
    let y = d.y;
    let mut c = if y >= 0.0 {
        wall.lerp(ceiling, (y / 0.6).min(1.0).powf(0.8))
    } else {
        wall.lerp(floor, (-y / 0.25).min(1.0))
    };
    // Eight lamps round the hall, just above the horizon.
    let angle = d.z.atan2(d.x);
    let lamp = (angle * 4.0).cos().max(0.0).powf(40.0);
    let band = (-((y - 0.12) / 0.08).powi(2)).exp();
    c += Vec3::new(1.0, 0.85, 0.6) * lamp * band * 0.9;
    c.min(Vec3::ONE)
}

fn hall_cubemap() -> Image {
    let levels = SIZE.trailing_zeros() as usize + 1;
    let mut data = Vec::new();
    for face in 0..6 {
        let mut level: Vec<Vec3> = (0..SIZE * SIZE)
            .map(|i| {
                let (x, y) = (i % SIZE, i / SIZE);
                let u = (x as f32 + 0.5) / SIZE as f32 * 2.0 - 1.0;
                let v = (y as f32 + 0.5) / SIZE as f32 * 2.0 - 1.0;
                radiance(direction(face, u, v))
            })
            .collect();
        let mut size = SIZE;
        loop {
            for c in &level {
                data.extend_from_slice(&Color::linear_rgb(c.x, c.y, c.z).to_srgba().to_u8_array());
            }
            if size == 1 {
                break;
            }
            // Each coarser level averages 2 × 2 texels: a blur that rough metals read.
            let half = size / 2;
            level = (0..half * half)
                .map(|i| {
                    let (x, y) = (2 * (i % half), 2 * (i / half));
                    (level[y * size + x]
                        + level[y * size + x + 1]
                        + level[(y + 1) * size + x]
                        + level[(y + 1) * size + x + 1])
                        / 4.0
                })
                .collect();
            size = half;
        }
    }
    let mut image = Image::new_uninit(
        Extent3d {
            width: SIZE as u32,
            height: SIZE as u32,
            depth_or_array_layers: 6,
        },
        TextureDimension::D2,
        // Eight bits in sRGB are plenty for something this soft, and always filterable.
        TextureFormat::Rgba8UnormSrgb,
        RenderAssetUsages::RENDER_WORLD,
    );
    image.data = Some(data);
    image.texture_descriptor.mip_level_count = levels as u32;
    image.texture_view_descriptor = Some(TextureViewDescriptor {
        dimension: Some(TextureViewDimension::Cube),
        ..default()
    });
    image
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hall_has_every_level_of_every_face() {
        let image = hall_cubemap();
        // 32² + 16² + … + 1² texels a face, six faces, 4 bytes a texel.
        let texels: usize = (0..6).map(|l| (SIZE >> l) * (SIZE >> l)).sum();
        assert_eq!(image.data.as_ref().map(Vec::len), Some(texels * 6 * 4));
        assert_eq!(image.texture_descriptor.mip_level_count, 6);
    }

    #[test]
    fn lamps_are_bright_the_floor_dark() {
        let lamp = radiance(Vec3::new(1.0, 0.12, 0.0).normalize());
        let between = radiance(Vec3::new(1.0, 0.12, 0.41).normalize());
        let floor = radiance(Vec3::NEG_Y);
        assert!(lamp.x > 0.9 && lamp.x > between.x + 0.3);
        assert!(floor.length() < 0.1);
        for face in 0..6 {
            let d = direction(face, 0.3, -0.7);
            assert!((d.length() - 1.0).abs() < 1e-5);
        }
    }
}
