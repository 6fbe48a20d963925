"""drive — prescribed joint motion: a joint coordinate held at x(t), its rate at x'(t).

Written by the directive ``.drive J.angle={x(time)}`` (``.drive J.s={...}`` for a
prismatic joint), which places it on the joint's two frames and axis node, names it
``J.drive`` (``J.drive_angle``, ``J.drive_s`` on a cylindrical joint) and makes the
start-up assemble the mechanism at J.angle = x(0) (docs/mechanics.md, prescribed joint
motion). The line it writes is the Example; written by hand, the start at x(0) needs an
``.ic`` of the coordinate as well.

Ports
    a: the joint's axis node (rotational or translational); b: its reference (0).
    frame1, frame2: the joint's two frames.
Parameters
    x: {expression} of time (and .param constants): the prescribed coordinate, rad
       (rotation) or m (translation).
    motion: rotation | translation (the joint's axis coupling).
    axis, at, atframe: the joint's axis and point (as the joint has them).
Internal variables
    f (algebraic): the torque (N·m) or force (N) the drive applies: the flow it pushes
    into node a, which the joint passes on to its frames.
    mu (algebraic): stabilising multiplier of the position constraint (0 in the exact
    solution).
Equations
    θ the joint's coordinate measured on the frames (the angle of frame 2's reference
    direction from frame 1's about the axis, or the displacement (P2 − P1)·n):
    (1) p_a − p_b − x'(t) = 0                   velocity level; x' = dx/dt,
                                                differentiated symbolically at set-up
    (2) g = sin(θ − x(t)) = 0 (rotation)        position level, with (∂g/∂x)ᵀμ added to
        g = θ − x(t) = 0      (translation)     the frames' kinematic rows (the
                                                stabilised index-2 form of Gear, Gupta
                                                and Leimkuhler, as a position-model
                                                joint holds its constraints): no drift
    rows: a: −f, b: +f; the frames' force rows 0. While initial values are computed,
    (2) is μ = 0 and the frames' rows are 0.
    For the rotation, sin(θ − x) = a(t)·b with b frame 2's reference direction and
    a(t) = −sin x(t)·e1 + cos x(t)·e2 fixed in frame 1: a rotation restriction whose
    direction turns with x(t) (constraints.py).
Sign convention
    a ──(f →)── the joint: f > 0 turns (moves) frame 2 positively about (along) the
    axis relative to frame 1, as a torque source on the node would (conventions.md §5).
Outputs
    J.drive.x: the prescribed coordinate x(t); J.drive.miss: θ − x(t) measured on the
    frames (the position error, a violation); J.drive.P: the power the drive delivers
    into the joint, f·(p_a − p_b) (W).
Example
    ``drive D1 J1.w 0 0 arm x={0.3*sin(2*pi*time)} axis=(0, 0, 1) at=(0, 0, 0)``
    (what .drive J1.angle={0.3*sin(2*pi*time)} writes, named J1.drive, for the joint
    revolute J1 0 arm at=(0, 0, 0) axis=(0, 0, 1))
"""
from types import SimpleNamespace

import numpy as np

from ..runtime import expressions
from ..runtime.expressions import Name, Num, func, mul
from ..runtime.names import GROUND
from .base import ElementType
from .constraints import NV2, Frames, PointOnPlane, Rotation
from .frames import cross
from .declarations import MECHANICAL, ElementInstance, Output, Param, Port, State
from .joint import AT_FRAMES, AXIS, POSE, anchor
from .resistor import _FLOW

ROTATION, TRANSLATION = "rotation", "translation"
POSITION = {"rotational": "rad", "translational": "m"}
FR = slice(2, 2 + NV2)            # the two frames' 26 local variables (and rows)
F, MU = 2 + NV2, 3 + NV2          # the states


class PositionDrive(ElementType):
    keyword = "drive"
    description = "prescribed joint motion: coordinate x(t) held, rate x'(t) (.drive)"
    ports = (Port("a", MECHANICAL, group="axis", description="the joint's axis node"),
             Port("b", MECHANICAL, group="axis", description="reference node (0)"),
             Port("frame1", frame=True), Port("frame2", frame=True))
    params = (Param("x", POSITION, kind="expr",
                    description="prescribed joint coordinate, an expression of time"),
              Param("motion", "1", default=ROTATION, kind="choice",
                    choices=(ROTATION, TRANSLATION),
                    description="the joint's axis coupling: rotation or translation"),
              AXIS,
              Param("at", "m", default=None, description="joint point (the joint's)",
                    kind="vector", size=3),
              Param("atframe", "1", default="global", description="coordinates of at "
                    "(the joint's)", kind="choice", choices=AT_FRAMES))
    states = (State("f", _FLOW, False, "torque or force the drive applies: the flow it "
                    "pushes into node a"),
              State("mu", "1", False, "stabilising multiplier of the position constraint"))
    outputs = (Output("x", POSITION, "the prescribed joint coordinate x(t)"),
               Output("miss", POSITION, "the coordinate measured on the frames less x(t)",
                      kind="violation"),
               Output("P", "W", "power delivered into the joint, f·(p_a − p_b)"))
    imposes = "potential"
    has_init_form = True

    @classmethod
    def instance_for(cls, joint, k: int, tree, loc, value_loc) -> ElementInstance:
        """The drive of coordinate ``k`` of the joint instance ``joint`` (an axis joint:
        its frame ports, then one axis node per coordinate), named <joint>.drive, or
        <joint>.drive_<coordinate> on a joint of several coordinates (cylindrical)."""
        prm = joint.params
        coords = joint.type.coordinate_names()
        name = f"{joint.name}.drive" + (f"_{coords[k]}" if len(coords) > 1 else "")
        rotation = joint.type.coordinate_periods()[k] > 0
        params = {"x": tree, "motion": ROTATION if rotation else TRANSLATION,
                  "axis": joint.type.joint_axis(prm), "at": prm.get("at"),
                  "atframe": prm.get("atframe", "global")}
        node = joint.nodes[2 + k]
        domain = joint.domains[2 + k] if len(joint.domains) > 2 + k else None
        return ElementInstance(cls, name,
                               [node, GROUND, joint.nodes[0], joint.nodes[1]], params, loc,
                               {"x": value_loc}, [domain, domain, None, None], {"x"})

    @classmethod
    def link(cls, inst, frames):
        anchor(inst.params, inst.nodes[2:], frames, inst.params["axis"])

    @classmethod
    def supplies_power(cls, p) -> bool:
        return True

    @classmethod
    def group_key(cls, inst):
        return (expressions.to_text(inst.params["x"]), inst.params["motion"])

    @classmethod
    def prepare(cls, instances):
        tree = instances[0].params["x"]

        def stack(key):
            return np.array([np.asarray(i.params[key], dtype=float) for i in instances])
        axis, ref1 = stack("axis_l"), stack("ref1")
        return SimpleNamespace(
            n=len(instances), init=False, rotation=instances[0].params["motion"] == ROTATION,
            x=expressions.compile_(tree, ["time"]),
            rate=expressions.compile_(expressions.diff(tree, "time"), ["time"]),
            axis=axis, e1=ref1, e2=cross(axis, ref1), ref2=stack("ref2"),
            x1=stack("x1"), x2=stack("x2"))

    @classmethod
    def imposed_potential(cls, t, p):
        return np.broadcast_to(np.asarray(p.rate(t), dtype=float), (p.n,))

    @classmethod
    def _constraint(cls, t, x, p):
        """The position constraint (2) as a primitive of one row, and its g (N,)."""
        fr = Frames(x[:, FR])
        target = np.broadcast_to(np.asarray(p.x(t), dtype=float), (x.shape[0],))
        if p.rotation:
            a = -np.sin(target)[:, None] * p.e1 + np.cos(target)[:, None] * p.e2
            prim = Rotation(fr, a[:, None, :], p.ref2[:, None, :])
            return prim, prim.g[:, 0]
        prim = PointOnPlane(fr, p.axis[:, None, :], p.x1, p.x2)
        return prim, prim.g[:, 0] - target

    @classmethod
    def residual(cls, t, x, xp, p):
        f, mu = x[:, F], x[:, MU]
        out = np.zeros((x.shape[0], cls.nrows()))
        out[:, 0], out[:, 1] = -f, f
        out[:, F] = x[:, 0] - x[:, 1] - p.rate(t)                       # (1)
        if p.init:
            out[:, MU] = mu
            return out
        prim, g = cls._constraint(t, x, p)
        out[:, FR] = prim.gradient_force(mu[:, None])                   # (2): (∂g/∂x)ᵀμ
        out[:, MU] = g                                                  # (2)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        N = x.shape[0]
        J = np.zeros((N, cls.nrows(), cls.nvars()))
        J[:, 0, F], J[:, 1, F] = -1.0, 1.0
        J[:, F, 0], J[:, F, 1] = 1.0, -1.0
        if p.init:
            J[:, MU, MU] = 1.0
            return J, np.zeros_like(J)
        prim, _ = cls._constraint(t, x, p)
        dg = prim.dg[:, 0]                                              # (N, 26)
        J[:, FR, MU] = dg
        J[:, MU, FR] = dg
        frame = np.zeros((N, NV2, NV2))
        prim.add_hessian(frame, x[:, MU][:, None])
        J[:, FR, FR] = frame
        return J, np.zeros_like(J)

    @classmethod
    def local_pattern(cls, n_extra=0, group=None):
        mask = np.zeros((cls.nrows(), cls.nvars(n_extra)), dtype=bool)
        mask[0, F] = mask[1, F] = mask[F, 0] = mask[F, 1] = mask[MU, MU] = True
        pose = 2 + POSE              # the frames' kinematic rows, positions, quaternions
        mask[pose, MU] = mask[MU, pose] = True
        mask[np.ix_(pose, pose)] = True
        return mask

    @classmethod
    def invariant_rows(cls, n_extra=0, group=None):
        rows = np.zeros(cls.nrows(), dtype=bool)
        rows[MU] = True                                 # the position constraint (2)
        return rows

    @classmethod
    def tied_states(cls, count, group=None):
        return np.full(count, 2.0)      # the coordinate and its rate: (1) and (2)

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        T, N = x.shape[:2]
        times = np.repeat(np.asarray(t, dtype=float), N)
        flat = x.reshape(T * N, x.shape[-1])
        q = SimpleNamespace(**{k: (np.tile(v, (T, 1)) if isinstance(v, np.ndarray) else v)
                               for k, v in vars(p).items()})
        target = np.broadcast_to(np.asarray(p.x(times), dtype=float), (T * N,))
        _, g = cls._constraint(times, flat, q)
        miss = np.arcsin(np.clip(g, -1.0, 1.0)) if p.rotation else g
        power = flat[:, F] * (flat[:, 0] - flat[:, 1])
        return np.stack([target, miss, power], axis=-1).reshape(T, N, 3)

    @classmethod
    def sample_variants(cls):
        return [{"motion": ROTATION}, {"motion": TRANSLATION}]

    @classmethod
    def sample_params(cls, rng):
        time = Name("time")                                  # 0.4·sin(3·time)
        axis = rng.uniform(-1, 1, 3)
        ref = np.cross(axis, rng.uniform(-1, 1, 3))
        return {"x": mul(Num(0.4), func("sin", mul(Num(3.0), time))), "motion": ROTATION,
                "axis_l": axis / np.linalg.norm(axis), "ref1": ref / np.linalg.norm(ref),
                "ref2": rng.uniform(-1, 1, 3), "x1": rng.uniform(-1, 1, 3),
                "x2": rng.uniform(-1, 1, 3)}
