"""The kinematic tree of an elaborated circuit, as numbers (no sympy): what the symbolic
equations of motion are derived from.

Bodies joined by revolute, prismatic, fixed, universal and spherical joints into a
loop-free tree rooted at the ground. Every joint coordinate (revolute: ``angle``,
prismatic: ``s``) gets a joint frame drawn at t = 0: origin at the joint point, z along
the joint axis (B = [e1 e2 n]); a fixed joint adds none (its child lies in its parent's
frame). A universal joint is two revolute rotations in sequence at its point (``angle1``
about axis1, then ``angle2`` about axis2 as turned), a spherical joint three (``angle1``,
``angle2``, ``angle3`` about the global x, y, z as drawn, each turned by the ones before
it): the joint's basis C (columns c_k, global at t = 0) gives frame k the axis c_k, so
that the chain turns the child by Rot(c1, a1)·Rot(c2, a2)(·Rot(c3, a3)) = C·Rx·Ry(·Rz)·Cᵀ
relative to its parent, the engine's joint angles (cardan.py (1)-(2)); a joint whose
child is its frame 1 has the inverse, Rot(c3, −a3)·Rot(c2, −a2)·Rot(c1, −a1): the frames
in reverse order, each with σ = −1. The constant transform from the parent joint frame
F_p to the frame F_j (4×4, homogeneous)

    H_j = F_p⁻¹ F_j,   R_j = B_pᵀ B_j,  p_j = B_pᵀ (P_j − P_p)               (1)

and the joint's own motion Q_j(q) (a rotation about z or a translation along z, sign σ
= +1 when the child is the joint's frame 2, −1 when it is frame 1: the joint's recorded
coordinate measures frame 2 relative to frame 1) give the pose of frame j:

    Φ_j(q) = Φ_p(q) H_j Q_j(σ_j q_j),   Φ_ground = E                          (2)

Each body is constant in its frame f: centre c = F_f⁻¹ r_C (drawn), central inertia
K = B_fᵀ A J_c Aᵀ B_f (A its drawn orientation, J_c its body-frame tensor).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

from ..errors import Loc, ModelError, NetlistError

GROUND = "0"
ROTATION, TRANSLATION, WELDED = "rotation", "translation", "none"
SAME_GRAVITY = 1e-12     # relative difference of two bodies' gravity taken as equal
# joints whose angles are rotations about the columns of their basis C, in this order
CARDAN = {"universal": 2, "spherical": 3}
SUPPORTED = "trees of revolute, prismatic, fixed, universal and spherical joints"


@dataclass(frozen=True)
class Frame:
    """The frame of one joint with a coordinate (q_k, k its index in Tree.frames)."""
    joint: str              # the joint's element name
    coordinate: str         # its recorded coordinate (W.angle, P.s, S.angle2)
    motion: str             # ROTATION or TRANSLATION
    parent: int             # index of the parent frame, -1: ground
    H: np.ndarray           # (4, 4) constant transform from the parent frame (1)
    sign: int               # σ: +1 child is frame 2, -1 child is frame 1


@dataclass(frozen=True)
class Mass:
    """A body, constant in its frame (-1: welded to the ground)."""
    name: str
    frame: int
    m: float
    centre: np.ndarray      # (3,) in frame coordinates
    inertia: np.ndarray     # (3, 3) central, in frame coordinates


@dataclass
class Tree:
    frames: list = field(default_factory=list)     # Frame, each after its parent
    masses: list = field(default_factory=list)     # Mass
    g: np.ndarray = field(default_factory=lambda: np.zeros(3))

    @property
    def joints(self) -> tuple:
        return tuple(f.joint for f in self.frames)

    @property
    def coordinates(self) -> tuple:
        return tuple(f.coordinate for f in self.frames)

    def ancestors(self, k: int) -> list:
        """Frame k and the frames between it and the ground, root first."""
        out = []
        while k >= 0:
            out.append(k)
            k = self.frames[k].parent
        return out[::-1]


def _frame_of(point, axis) -> np.ndarray:
    """F = [[B, P], [0, 1]] with B = [e1 e2 n] right-handed, n = axis."""
    n = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    t = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    e1 = t - (t @ n) * n
    e1 /= np.linalg.norm(e1)
    F = np.eye(4)
    F[:3, :3] = np.column_stack([e1, np.cross(n, e1), n])
    F[:3, 3] = point
    return F


def _inverse(F: np.ndarray) -> np.ndarray:
    out = np.eye(4)
    out[:3, :3] = F[:3, :3].T
    out[:3, 3] = -F[:3, :3].T @ F[:3, 3]
    return out


def _label(inst) -> str:
    return f"{inst.type.keyword} {inst.name}"


@dataclass(frozen=True)
class JointSpec:
    """A rigid joint as the tree reads it: ``point`` its offset in frame 1 (global on
    ground) and ``axes`` [(coordinate, motion, unit axis in frame 1)] in the order the
    rotations are composed (one for a one-axis joint; none for a welded one)."""
    point: np.ndarray
    axes: list


def _spec(e):
    """The JointSpec of a rigid joint element; a located ModelError for the others."""
    prm = e.params
    joint = e.type.axis_joint(e)
    if joint is not None:
        rigid = joint.rigid
        names = e.type.coordinate_names()
        axes = [] if joint.motion == WELDED else [(names[0], joint.motion, joint.axis)]
        point = joint.point
    elif e.type.keyword in CARDAN:
        rigid = e.type.is_rigid(SimpleNamespace(**prm))      # the protocol, on one instance
        basis = np.asarray(prm["basis1"], dtype=float)        # C in frame 1 (cardan.py)
        axes = [(f"angle{k + 1}", ROTATION, basis[:, k]) for k in range(CARDAN[e.type.keyword])]
        point = np.asarray(prm["x1"], dtype=float)
        for name, what in (("mu", "friction"), ("Tpre", "friction"), ("cone", "cone-limit")):
            if prm.get(name) not in (None, 0.0):       # the ball joint's own torques
                raise ModelError(f"{_label(e)}: {name}= adds a {what} torque of the joint's "
                                 "own; the equations of motion take the joints' drives, "
                                 "inertia and gravity only (leave it out)",
                                 e.param_locs.get(name, e.loc))
    else:
        raise ModelError(f"{_label(e)}: the equations of motion are derived for "
                         f"{SUPPORTED} only", e.loc)
    if not rigid:
        raise ModelError(f"{_label(e)}: the elastic model is a stiff spring, not a "
                         "rigid joint; the equations of motion need rigid joints "
                         "(model=position or velocity)", e.param_locs.get("model", e.loc))
    return JointSpec(point, axes)


def tree_of(circuit) -> Tree:
    """The tree of an elaborated circuit; a located ModelError naming the element for
    anything else (a loop, another kind of joint, an elastic joint, a ball joint's
    friction or cone limit, a load on a body, a body not joined to the ground)."""
    bodies = {e.name: e for e in circuit.elements if e.type.is_body}
    body_nodes = {node: name for name, e in bodies.items() for node in e.nodes}
    joints = []
    for e in circuit.elements:
        if e.name in bodies:
            continue
        if e.type.is_joint:
            joints.append((e, _spec(e)))
            continue
        for port, node in zip(e.type.ports, e.nodes):
            body = node if port.frame and node in bodies else body_nodes.get(node)
            if body is not None:
                raise ModelError(f"{_label(e)} acts on body {body}: the equations of motion "
                                 "take the joints' drives, inertia and gravity only (loads "
                                 "belong on the joints' flanges)", e.loc)
    for name, e in bodies.items():
        if not e.type.rigid_body(e).gyroscopic:
            raise ModelError(f"body {name}: gyro=0 (the simplified body model) is not "
                             "supported; the equations of motion keep ω × (Jω)",
                             e.param_locs.get("gyro", e.loc))
    return _build(circuit, bodies, joints)


def _build(circuit, bodies: dict, joints: list) -> Tree:
    tree = Tree()
    drawn = {GROUND: np.eye(4)}                 # drawn pose of each body (and ground)
    for name, e in bodies.items():
        rb = e.type.rigid_body(e)
        T = np.eye(4)
        T[:3, :3], T[:3, 3] = rb.orientation, rb.centre
        drawn[name] = T
    placed = {GROUND: (-1, np.eye(4))}          # frame -> (frame index, drawn F)
    pending = dict(enumerate(joints))           # joints not yet placed, netlist order

    def attach(node):
        """Depth-first: every joint at ``node`` places its other side."""
        for i in [i for i, (e, _) in pending.items() if node in e.nodes[:2]]:
            if i not in pending:
                continue
            e, joint = pending.pop(i)
            a, b = e.nodes[0], e.nodes[1]
            if a == b:
                raise ModelError(f"{_label(e)} joins {a} to itself", e.loc)
            child = b if a == node else a
            if child in placed:
                raise ModelError(f"{_label(e)} closes a kinematic loop ({a} and {b} are "
                                 "already joined through other joints); the equations of "
                                 f"motion are derived for loop-free {SUPPORTED}, not for "
                                 "closed chains: cut the loop (leave out one of its joints) "
                                 "to derive the open tree's equations, without the cut "
                                 "joint's reaction, or simulate the closed mechanism",
                                 e.loc)
            parent, F_parent = placed[node]
            sign = 1 if child == b else -1
            T1 = drawn[a]
            point = T1[:3, :3] @ joint.point + T1[:3, 3]
            # child = frame 1: the inverse motion, the rotations in reverse order (σ = −1)
            for coord, motion, axis in joint.axes[::sign]:
                F = _frame_of(point, T1[:3, :3] @ axis)
                tree.frames.append(Frame(e.name, f"{e.name}.{coord}", motion, parent,
                                         _inverse(F_parent) @ F, sign))
                parent, F_parent = len(tree.frames) - 1, F
            placed[child] = (parent, F_parent)
            attach(child)
    attach(GROUND)
    for e, _ in pending.values():
        raise ModelError(f"{_label(e)} is not joined to the ground through joints; the "
                         "equations of motion are derived for a tree rooted at the ground",
                         e.loc)
    gravity = None
    for name, e in bodies.items():
        if name not in placed:
            raise ModelError(f"body {name} is not joined to the ground through joints; the "
                             "equations of motion are derived for a tree rooted at the "
                             "ground", e.loc)
        rb = e.type.rigid_body(e)
        k, F = placed[name]
        Fi = _inverse(F)
        B = F[:3, :3]
        tree.masses.append(Mass(name, k, rb.m, Fi[:3, :3] @ rb.centre + Fi[:3, 3],
                                B.T @ rb.orientation @ rb.inertia @ rb.orientation.T @ B))
        if gravity is None:
            gravity = rb.g
        elif np.linalg.norm(rb.g - gravity) > SAME_GRAVITY * max(np.linalg.norm(gravity), 1):
            raise ModelError(f"body {name}: its gravity g differs from the other bodies'; the "
                             "equations of motion take one gravity vector",
                             e.param_locs.get("g", e.loc))
    if not tree.frames:
        raise NetlistError("no revolute, prismatic, universal or spherical joint between "
                           "bodies: no equations of motion to derive", Loc(circuit.source, 1, 1))
    tree.g = np.zeros(3) if gravity is None else np.asarray(gravity, dtype=float)
    return tree
