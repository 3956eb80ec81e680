"""Makes `pieces.glb`, the models of every Khet piece and of the board, with Blender's Python API.

    blender -b -P assets/models/make_models.py

(Blender 3.4 from Debian's packages: `apt-get install blender`.) The made file is committed, so
neither CI nor a player needs Blender; change a recipe below and run it again to change a model.

What the game expects (`src/view/models.rs` reads it, and falls back to its own shapes for a
model that is missing):
- one mesh per model, named `Pharaoh`, `Sphinx`, `Pyramid`, `Anubis`, `Scarab`, `Djed`, `Eye`,
  `Obelisk` (one stone of a stack), `BaseSilver`, `BaseRed` (what a piece stands on), `Emitter`
  (Khet 1.0's fixed laser on the rim, firing north) and `Board` (the slab under the squares, its
  top at y = -0.02);
- each built for orientation 0, the square's centre at the origin, one unit a square: the mirror
  of a Pyramid runs from the north-west to the south-east corner facing north-east, a Scarab's,
  Djed's or Eye's mirror along the same diagonal, an Anubis's shield and a Sphinx's lens face
  north (glTF's -Z);
- materials named by role: `body` and `trim` (the game gives each side its own finish: the
  materials `silver_body`, `red_body`, `silver_trim`, `red_trim` in this file), `mirror`,
  `glass`, `gold`, `lens`, `stone`.
"""

import math
import os

import bmesh
import bpy
import numpy as np
from mathutils import Matrix, Vector

OUT = os.path.dirname(os.path.abspath(__file__))


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)


# ---- materials ----------------------------------------------------------------------------------


def material(name, color, metallic=0.0, roughness=0.5, emission=None, alpha=1.0, texture=None):
    m = bpy.data.materials.new(name)
    m.use_nodes = True
    p = m.node_tree.nodes["Principled BSDF"]
    p.inputs["Base Color"].default_value = (*color, 1.0)
    p.inputs["Metallic"].default_value = metallic
    p.inputs["Roughness"].default_value = roughness
    if emission is not None:
        p.inputs["Emission"].default_value = (*emission, 1.0)
        p.inputs["Emission Strength"].default_value = 4.0
    if alpha < 1.0:
        p.inputs["Alpha"].default_value = alpha
        m.blend_method = "BLEND"
    if texture is not None:
        t = m.node_tree.nodes.new("ShaderNodeTexImage")
        t.image = texture
        m.node_tree.links.new(t.outputs["Color"], p.inputs["Base Color"])
    return m


def value_noise(rng, size, cells):
    """Smooth noise that tiles: a random grid, interpolated with a smoothstep."""
    grid = rng.random((cells, cells))
    x = np.arange(size) * cells / size
    i0 = np.floor(x).astype(int) % cells
    i1 = (i0 + 1) % cells
    f = x - np.floor(x)
    f = f * f * (3 - 2 * f)
    fx, fy = f[None, :], f[:, None]
    top = grid[np.ix_(i0, i0)] * (1 - fx) + grid[np.ix_(i0, i1)] * fx
    bottom = grid[np.ix_(i1, i0)] * (1 - fx) + grid[np.ix_(i1, i1)] * fx
    return top * (1 - fy) + bottom * fy


def stone_image(size=512, seed=7):
    """A sandstone texture: layered value noise with darker veins and grain, tileable."""
    rng = np.random.default_rng(seed)
    octaves = [(4, 0.5), (8, 0.25), (16, 0.13), (64, 0.08), (128, 0.04)]
    v = sum(w * value_noise(rng, size, c) for c, w in octaves)
    veins = np.abs(np.sin(v * 22.0 + 3.0 * value_noise(rng, size, 6)))
    shade = 0.8 + 0.35 * (v - 0.5) - 0.1 * np.clip(0.12 - veins, 0, 1) / 0.12
    base = np.array([0.42, 0.35, 0.27])
    rgb = np.clip(shade[:, :, None] * base[None, None, :], 0, 1)
    img = bpy.data.images.new("stone", size, size)
    pixels = np.concatenate([rgb, np.ones((size, size, 1))], axis=2)
    img.pixels.foreach_set(pixels.astype(np.float32).ravel())
    img.file_format = "PNG"
    img.pack()
    return img


def materials():
    stone = stone_image()
    return {
        # Stand-ins for the side's finish; the game puts the side's own material there.
        "body": material("body", (0.6, 0.6, 0.6), roughness=0.4),
        "trim": material("trim", (0.8, 0.8, 0.8), roughness=0.4),
        "silver_body": material("silver_body", (0.80, 0.82, 0.86), metallic=0.9, roughness=0.28),
        "red_body": material("red_body", (0.50, 0.04, 0.05), metallic=0.15, roughness=0.32),
        "silver_trim": material("silver_trim", (0.95, 0.95, 0.98), metallic=0.6, roughness=0.2),
        "red_trim": material("red_trim", (0.22, 0.02, 0.03), metallic=0.1, roughness=0.45),
        "mirror": material("mirror", (0.92, 0.96, 1.0), metallic=1.0, roughness=0.04),
        "glass": material("glass", (0.55, 0.85, 1.0), metallic=0.1, roughness=0.05, alpha=0.45),
        "gold": material("gold", (1.0, 0.74, 0.28), metallic=1.0, roughness=0.25),
        "lens": material("lens", (1.0, 0.2, 0.1), emission=(1.0, 0.15, 0.05)),
        "stone": material("stone", (1.0, 1.0, 1.0), roughness=0.85, texture=stone),
    }


# ---- building blocks ----------------------------------------------------------------------------
# Blender is Z-up with north +Y here; the glTF exporter turns that into Y-up with north -Z.


def box(bm, size, at=(0, 0, 0), bevel=0.02, rot_z=0.0):
    geom = bmesh.ops.create_cube(bm, size=1.0)["verts"]
    m = Matrix.Translation(at) @ Matrix.Rotation(rot_z, 4, "Z") @ Matrix.Diagonal((*size, 1.0))
    bmesh.ops.transform(bm, matrix=m, verts=geom)
    return _bevel(bm, geom, bevel)


def cylinder(bm, radius_bottom, radius_top, height, at=(0, 0, 0), segments=32, bevel=0.0):
    geom = bmesh.ops.create_cone(
        bm,
        cap_ends=True,
        cap_tris=False,
        segments=segments,
        radius1=radius_bottom,
        radius2=radius_top,
        depth=height,
    )["verts"]
    bmesh.ops.translate(bm, vec=Vector(at), verts=geom)
    _smooth(bm, geom)
    # A round one has only its rims bevelled: bevelling the seams between its smooth sides
    # added a thousand triangles to a base that no one could see (and that a software renderer
    # draws); a square one (4 segments) keeps its bevelled corners.
    return _bevel(bm, geom, bevel, rims_only=segments > 8)


def sphere(bm, radius, at=(0, 0, 0), scale=(1, 1, 1)):
    geom = bmesh.ops.create_uvsphere(bm, u_segments=24, v_segments=14, radius=radius)["verts"]
    m = Matrix.Translation(at) @ Matrix.Diagonal((*scale, 1.0))
    bmesh.ops.transform(bm, matrix=m, verts=geom)
    _smooth(bm, geom)
    return geom


def prism(bm, corners, z0, z1, bevel=0.015):
    """A vertical prism over a polygon (counter-clockwise from above)."""
    bottom = [bm.verts.new((x, y, z0)) for x, y in corners]
    top = [bm.verts.new((x, y, z1)) for x, y in corners]
    bm.faces.new(list(reversed(bottom)))
    bm.faces.new(top)
    n = len(corners)
    for i in range(n):
        j = (i + 1) % n
        bm.faces.new([bottom[i], bottom[j], top[j], top[i]])
    return _bevel(bm, bottom + top, bevel)


def _smooth(bm, verts):
    vs = set(verts)
    for f in bm.faces:
        if all(v in vs for v in f.verts) and len(f.verts) <= 4:
            f.smooth = True


def _bevel(bm, verts, offset, rims_only=False):
    if offset <= 0:
        return verts
    vs = set(verts)
    edges = [e for e in bm.edges if e.verts[0] in vs and e.verts[1] in vs]
    if rims_only:
        edges = [e for e in edges if abs(e.verts[0].co.z - e.verts[1].co.z) < 1e-6]
    bmesh.ops.bevel(bm, geom=edges, offset=offset, segments=2, profile=0.5, affect="EDGES")
    return verts


class Model:
    """A mesh of several parts, each with a material role."""

    def __init__(self, name, mats):
        self.name = name
        self.mats = mats
        self.parts = []  # (role, bmesh)

    def part(self, role):
        bm = bmesh.new()
        self.parts.append((role, bm))
        return bm

    def build(self):
        roles = []
        final = bmesh.new()
        for role, bm in self.parts:
            if role not in roles:
                roles.append(role)
            index = roles.index(role)
            for f in bm.faces:
                f.material_index = index
            tmp = bpy.data.meshes.new("tmp")
            bm.to_mesh(tmp)
            final.from_mesh(tmp)
            bpy.data.meshes.remove(tmp)
            bm.free()
        mesh = bpy.data.meshes.new(self.name)
        final.to_mesh(mesh)
        final.free()
        mesh.use_auto_smooth = True
        mesh.auto_smooth_angle = math.radians(40)
        for role in roles:
            mesh.materials.append(self.mats[role])
        obj = bpy.data.objects.new(self.name, mesh)
        bpy.context.scene.collection.objects.link(obj)
        return obj


# ---- the pieces ---------------------------------------------------------------------------------
# Side-specific parts use the roles "body" and "trim"; the game swaps in each side's material.


def base_silver(m):
    cylinder(m.part("trim"), 0.44, 0.44, 0.06, at=(0, 0, 0.03), segments=48, bevel=0.012)


def base_red(m):
    box(m.part("trim"), (0.84, 0.84, 0.06), at=(0, 0, 0.03), bevel=0.012)


def pharaoh(m):
    body = m.part("body")
    cylinder(body, 0.30, 0.25, 0.50, at=(0, 0, 0.31), segments=40)
    cylinder(body, 0.25, 0.30, 0.06, at=(0, 0, 0.59), segments=40)
    gold = m.part("gold")
    cylinder(gold, 0.31, 0.31, 0.05, at=(0, 0, 0.10), segments=40, bevel=0.01)
    cylinder(gold, 0.32, 0.30, 0.06, at=(0, 0, 0.64), segments=40, bevel=0.01)
    # The white crown: a tall tapering bulb, with a knob.
    crown = m.part("gold")
    sphere(crown, 0.2, at=(0, 0, 0.86), scale=(1.0, 1.0, 1.45))
    sphere(m.part("trim"), 0.07, at=(0, 0, 1.15))
    # The uraeus on the brow, north.
    box(m.part("gold"), (0.05, 0.04, 0.12), at=(0, 0.29, 0.72), bevel=0.01)


def sphinx(m):
    body = m.part("body")
    # A couchant lion: the body, the forepaws reaching north, the head over them.
    box(body, (0.56, 0.62, 0.26), at=(0, -0.08, 0.19), bevel=0.04)
    box(body, (0.13, 0.3, 0.09), at=(-0.16, 0.3, 0.11), bevel=0.02)
    box(body, (0.13, 0.3, 0.09), at=(0.16, 0.3, 0.11), bevel=0.02)
    box(body, (0.30, 0.28, 0.26), at=(0, 0.12, 0.46), bevel=0.04)
    # The nemes headdress in gold: a flaring cloth and its lappets.
    gold = m.part("gold")
    prism(gold, [(-0.22, -0.02), (0.22, -0.02), (0.17, 0.27), (-0.17, 0.27)], 0.57, 0.63)
    box(gold, (0.07, 0.05, 0.22), at=(-0.18, 0.2, 0.38), bevel=0.01)
    box(gold, (0.07, 0.05, 0.22), at=(0.18, 0.2, 0.38), bevel=0.01)
    # The laser's lens points north at the beam's height, in a gold ring.
    north_disc(m.part("lens"), 0.08, 0.1, 0.34)
    north_disc(m.part("gold"), 0.11, 0.05, 0.28)


def north_disc(bm, radius, depth, y):
    """A disc facing north, centred `y` north of the origin at the beam's height (0.32)."""
    geom = cylinder(bm, radius, radius, depth, segments=24)
    bmesh.ops.rotate(bm, cent=(0, 0, 0), matrix=Matrix.Rotation(math.radians(90), 3, "X"), verts=geom)
    bmesh.ops.translate(bm, vec=Vector((0, y, 0.32)), verts=geom)


def pyramid(m):
    h, top = 0.42, 0.58
    # Behind the mirror: the half-square south-west of the diagonal from NW to SE.
    prism(m.part("body"), [(-h, -h), (h, -h), (-h, h)], 0.06, top, bevel=0.02)
    # The mirror, just in front of the hypotenuse, facing north-east.
    mirror = m.part("mirror")
    s = 1 / math.sqrt(2)
    off = 0.014
    a = mirror.verts.new((-h + off * s, h + off * s, 0.09))
    b = mirror.verts.new((h + off * s, -h + off * s, 0.09))
    c = mirror.verts.new((h + off * s, -h + off * s, top - 0.03))
    d = mirror.verts.new((-h + off * s, h + off * s, top - 0.03))
    mirror.faces.new([a, d, c, b])
    # A gold rim round the mirror.
    gold = m.part("gold")
    length = 2 * h * math.sqrt(2)
    for z in (0.075, top - 0.015):
        box(gold, (length, 0.03, 0.03), at=(0, 0, z), rot_z=-math.pi / 4, bevel=0.006)
    sphere(m.part("trim"), 0.06, at=(-0.28, -0.28, top + 0.02))


def anubis(m):
    body = m.part("body")
    box(body, (0.40, 0.34, 0.46), at=(0, -0.08, 0.31), bevel=0.04)
    box(body, (0.22, 0.26, 0.22), at=(0, -0.1, 0.66), bevel=0.04)
    # The jackal's muzzle points north over the shield.
    box(body, (0.1, 0.16, 0.08), at=(0, 0.08, 0.64), bevel=0.02)
    trim = m.part("trim")
    for x in (-0.07, 0.07):
        cylinder(trim, 0.045, 0.005, 0.2, at=(x, -0.12, 0.86), segments=12)
    # The shield, facing north (the side that stops the beam).
    gold = m.part("gold")
    box(gold, (0.72, 0.07, 0.56), at=(0, 0.2, 0.34), bevel=0.025)
    box(m.part("trim"), (0.12, 0.03, 0.3), at=(0, 0.245, 0.36), bevel=0.01)


def double_mirror(m, kind):
    """Scarab, Djed and Eye: a two-faced mirror along the NW-SE diagonal, between two rails."""
    length, height = 1.15, 0.56
    rot = -math.pi / 4
    face = m.part("glass" if kind == "Eye" else "mirror")
    box(face, (length, 0.07, height), at=(0, 0, 0.06 + height / 2), rot_z=rot, bevel=0.008)
    body = m.part("body")
    box(body, (length, 0.16, 0.06), at=(0, 0, 0.08), rot_z=rot, bevel=0.015)
    box(body, (length, 0.14, 0.06), at=(0, 0, 0.66), rot_z=rot, bevel=0.015)
    gold = m.part("gold")
    if kind == "Scarab":
        sphere(gold, 0.15, at=(0, 0, 0.74), scale=(1.0, 0.75, 0.55))
        sphere(gold, 0.06, at=(0.08, 0.08, 0.74))
    elif kind == "Djed":
        cylinder(gold, 0.09, 0.09, 0.22, at=(0, 0, 0.8), segments=24)
        for z in (0.74, 0.8, 0.86):
            cylinder(gold, 0.12, 0.12, 0.025, at=(0, 0, z), segments=24)
    else:
        torus(gold, 0.15, 0.03, at=(0, 0, 0.76))
        sphere(m.part("glass"), 0.06, at=(0, 0, 0.76))


def torus(bm, major, minor, at=(0, 0, 0), segments=32, ring=10):
    verts = []
    for i in range(segments):
        a = 2 * math.pi * i / segments
        row = []
        for j in range(ring):
            b = 2 * math.pi * j / ring
            r = major + minor * math.cos(b)
            # Upright, facing north-south, so it reads from the camera.
            row.append(bm.verts.new((at[0] + r * math.cos(a), at[1] + minor * math.sin(b), at[2] + r * math.sin(a))))
        verts.append(row)
    for i in range(segments):
        for j in range(ring):
            a, b = verts[i][j], verts[(i + 1) % segments][j]
            c, d = verts[(i + 1) % segments][(j + 1) % ring], verts[i][(j + 1) % ring]
            f = bm.faces.new([a, b, c, d])
            f.smooth = True


def obelisk(m):
    # Four-sided, its faces square to the board.
    turn = Matrix.Rotation(math.pi / 4, 3, "Z")
    body = m.part("body")
    geom = cylinder(body, 0.25, 0.19, 0.5, at=(0, 0, 0.31), segments=4, bevel=0.015)
    bmesh.ops.rotate(body, cent=(0, 0, 0), matrix=turn, verts=body.verts[:])
    top = m.part("trim")
    cylinder(top, 0.19, 0.01, 0.1, at=(0, 0, 0.61), segments=4)
    bmesh.ops.rotate(top, cent=(0, 0, 0), matrix=turn, verts=top.verts[:])


def emitter(m):
    """Khet 1.0's fixed laser on the rim: a small pylon in the side's trim, a gold cornice, and
    its lens facing north at the beam's height (0.32) in a gold ring. Its base is the rim's top
    (-0.02); it stands 0.7 outside its corner square, firing into it."""
    turn = Matrix.Rotation(math.pi / 4, 3, "Z")
    body = m.part("trim")
    cylinder(body, 0.26, 0.2, 0.42, at=(0, 0, 0.19), segments=4, bevel=0.012)
    bmesh.ops.rotate(body, cent=(0, 0, 0), matrix=turn, verts=body.verts[:])
    box(m.part("gold"), (0.33, 0.33, 0.04), at=(0, 0, 0.42), bevel=0.008)
    north_disc(m.part("gold"), 0.085, 0.04, 0.15)
    north_disc(m.part("lens"), 0.06, 0.05, 0.17)


def board(m):
    """The slab under the squares: sandstone, a raised rim just above the squares' edge."""
    stone = m.part("stone")
    box(stone, (10.8, 8.8, 0.3), at=(0, 0, -0.17), bevel=0.04)
    for (sx, sy, x, y) in [(10.8, 0.3, 0, 4.25), (10.8, 0.3, 0, -4.25), (0.3, 8.8, 5.25, 0), (0.3, 8.8, -5.25, 0)]:
        box(stone, (sx, sy, 0.06), at=(x, y, 0.0), bevel=0.02)
    uv = stone.loops.layers.uv.new()
    for f in stone.faces:
        n = f.normal
        for loop in f.loops:
            co = loop.vert.co
            if abs(n.z) > 0.5:
                loop[uv].uv = (co.x / 2.7, co.y / 2.7)
            else:
                loop[uv].uv = ((co.x + co.y) / 2.7, co.z / 2.7)


def main():
    reset()
    mats = materials()
    recipes = {
        "BaseSilver": base_silver,
        "BaseRed": base_red,
        "Pharaoh": pharaoh,
        "Sphinx": sphinx,
        "Pyramid": pyramid,
        "Anubis": anubis,
        "Scarab": lambda m: double_mirror(m, "Scarab"),
        "Djed": lambda m: double_mirror(m, "Djed"),
        "Eye": lambda m: double_mirror(m, "Eye"),
        "Obelisk": obelisk,
        "Emitter": emitter,
        "Board": board,
    }
    for name, make in recipes.items():
        model = Model(name, mats)
        make(model)
        model.build()
    # The side materials the game swaps in: kept in the file by a hidden holder mesh.
    holder = Model("Finishes", mats)
    for role in ["silver_body", "red_body", "silver_trim", "red_trim"]:
        box(holder.part(role), (0.01, 0.01, 0.01), at=(0, 0, -5), bevel=0)
    holder.build()
    path = OUT.rstrip("/") + "/pieces.glb"
    bpy.ops.export_scene.gltf(
        filepath=path,
        export_format="GLB",
        export_yup=True,
        export_apply=True,
        export_materials="EXPORT",
        export_cameras=False,
        export_lights=False,
    )
    print("wrote", path)


main()
