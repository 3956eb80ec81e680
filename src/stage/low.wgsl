// Low graphics: the board's lights in a handful of instructions a pixel.
//
// On a software renderer Bevy's PBR fragment shader costs about 0.5 µs a pixel whatever the
// lighting (its unlit path is no cheaper). llvmpipe's cost here grows fast with every value a
// pixel keeps (one more colour term, 18 → 28 ms a frame), so all a material's arithmetic is done
// once on the CPU (`LowMaterial::from_standard`): how it answers the sun and the ambient light.
// Left is the sun's Lambert light, a sky-and-floor ambient, the stone texture and emission.

#import bevy_pbr::forward_io::VertexOutput

struct LowMaterial {
    // How the surface answers the sun's light (linear RGB; metals mirror part of it).
    sun: vec4<f32>,
    // How it answers the ambient light; for an unlit material, its colour.
    ambient: vec4<f32>,
    // Linear emission, as StandardMaterial's.
    emissive: vec4<f32>,
    // x: 1 when textured, y: 1 when unlit.
    flags: vec4<f32>,
}

@group(#{MATERIAL_BIND_GROUP}) @binding(0) var<uniform> material: LowMaterial;
@group(#{MATERIAL_BIND_GROUP}) @binding(1) var base_texture: texture_2d<f32>;
@group(#{MATERIAL_BIND_GROUP}) @binding(2) var base_sampler: sampler;

// Towards the sun (the scene's sun sits at (-4, 12, 6) and looks at the centre), scaled by its
// diffuse radiance after the camera's default exposure (9000 lux / π × exposure ≈ 2.75).
const SUN: vec3<f32> = vec3<f32>(-0.786, 2.357, 1.179);
// The ambient light (350 cd/m², slightly blue, after exposure) from above and from below.
const SKY: vec3<f32> = vec3<f32>(0.30, 0.31, 0.34);
const FLOOR: vec3<f32> = vec3<f32>(0.10, 0.09, 0.08);

@fragment
fn fragment(in: VertexOutput, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    var tint = vec3<f32>(1.0);
#ifdef VERTEX_UVS_A
    if material.flags.x > 0.5 {
        tint = textureSample(base_texture, base_sampler, in.uv).rgb;
    }
#endif
    if material.flags.y > 0.5 {
        return vec4<f32>(material.ambient.rgb * tint, 1.0);
    }
    var n = normalize(in.world_normal);
    if !front {
        n = -n;
    }
    let sun = max(dot(n, SUN), 0.0);
    let hemi = mix(FLOOR, SKY, n.y * 0.5 + 0.5);
    let lit = material.ambient.rgb * hemi + material.sun.rgb * sun;
    return vec4<f32>(lit * tint + material.emissive.rgb, 1.0);
}
