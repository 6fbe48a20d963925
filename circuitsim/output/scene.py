"""What a 3D view of a mechanism draws, taken from the elaborated netlist: each body as a
box, each joint as a marker at its point, sliders and spatial springs as lines.

A body's box is the uniform box with the body's mass and principal moments (body axes):

    Jx = m(b² + c²)/12,  Jy = m(a² + c²)/12,  Jz = m(a² + b²)/12
    ⇒  a² = 6(Jy + Jz − Jx)/m,  b² = 6(Jx + Jz − Jy)/m,  c² = 6(Jx + Jy − Jz)/m

(products of inertia are not drawn). A point mass or a slender rod gets a side of at
least MIN_SIDE of its longest side, so that it stays visible. Attachment points are
offsets in their body's frame (as the joints hold them), or global points on ground.

A Scene is plain data (lists of floats and names): it pickles with the Result that
carries it, and the animation (circuitsim.output.animation) needs nothing else of the netlist.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

MIN_SIDE = 0.08          # smallest side of a drawn box, as a fraction of its longest
POINT_SIDE = 0.05        # side (m) of a body with no rotational inertia and no neighbour
POSE = ("x", "y", "z", "q0", "q1", "q2", "q3")   # a body's recorded pose, in this order


@dataclass(frozen=True)
class End:
    """One end of a joint or spring: ``body`` (None: ground) and the point, an offset in
    the body's frame from its centre of mass (on ground: global coordinates)."""
    body: str | None
    offset: tuple


@dataclass(frozen=True)
class Link:
    """A joint (``kind`` 'joint' or 'slider') or a spatial spring ('spring') between two
    ends."""
    name: str
    kind: str
    ends: tuple


@dataclass
class Scene:
    bodies: list = field(default_factory=list)     # (name, (a, b, c) box sides in m)
    links: list = field(default_factory=list)      # Link
    up: tuple = (0.0, 0.0, 1.0)                    # against gravity (z without gravity)

    def pose_names(self) -> list:
        """The recorded variables a view of the motion needs: every body's pose."""
        return [f"{name}.{p}" for name, _ in self.bodies for p in POSE]

    def missing(self, recorded) -> list:
        have = set(recorded)
        return [n for n in self.pose_names() if n not in have]


def box_sides(m: float, J) -> tuple:
    """Sides (a, b, c) of the uniform box of mass m with principal moments J."""
    J = np.asarray(J, dtype=float)
    squares = 6.0 * (J.sum() - 2.0 * J) / m if m > 0 else np.zeros(3)
    sides = np.sqrt(np.clip(squares, 0.0, None))
    longest = sides.max()
    if longest <= 0.0:
        return (POINT_SIDE,) * 3
    return tuple(float(s) for s in np.maximum(sides, MIN_SIDE * longest))


def scene_of(circuit) -> Scene:
    """The scene of an elaborated (and linked) circuit; empty if it has no bodies."""
    scene = Scene()
    bodies = set()
    for e in circuit.elements:
        if e.type.drawn_as == "body":
            scene.bodies.append((e.name, box_sides(float(e.params["m"]), e.params["J"])))
            bodies.add(e.name)
    for e in circuit.elements:
        if e.type.drawn_as not in ("joint", "slider", "spring") or "x1" not in e.params:
            continue
        ends = tuple(End(node if node in bodies else None,
                         tuple(float(v) for v in e.params[key]))
                     for node, key in zip(e.nodes[:2], ("x1", "x2")))
        if any(end.body for end in ends):
            scene.links.append(Link(e.name, e.type.drawn_as, ends))
    g = np.asarray(circuit.gravity if circuit.gravity else (0.0, 0.0, 0.0), dtype=float)
    if np.linalg.norm(g) > 0.0:
        scene.up = tuple(float(v) for v in -g / np.linalg.norm(g))
    return scene
