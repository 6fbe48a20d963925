"""The common machinery of every joint, built from constraint primitives (constraints.py).

A joint type (spherical.py, revolute.py, prismatic.py, ...) declares which primitives
it is made of (``layout``: point-on-plane normals and rotation-restriction pairs, from
the joint's triad e1, e2, n = axis), its axis flanges, and optionally terms of its own
(``added_torque``: the spherical joint's ball friction and cone limit). This class
turns them into an element in three models, g the m position-level constraints and
W = ∂(dg/dt)/∂u their velocity rows (u = (V1, ω1, V2, ω2)):

    (1) frame rows      −Σ_k W_kᵀ λ_k − Σ_f W_fᵀ τ_f  (− M on ω2, + M on ω1: added terms)
    (2) velocity        W·u = 0                (cheapest; positions drift slowly)
    (3) position        W·u = 0 and g = 0, with (∂g/∂x)ᵀμ added to the bodies'
                        kinematic rows (stabilised index-2 form of Gear, Gupta and
                        Leimkuhler: no drift; μ = 0 in the exact solution)
    (4) elastic         λ + κ·g + c·dg/dt = 0  (κ = k for a point, kr for a rotation;
                        copes with jamming and with redundant loops); μ = 0
    (5) initialisation  (rigid models, while consistent initial values are computed)
                        d²g/dt² = ∇(W·u)·x' = 0 (index 1: determines λ); μ = 0
    (6) flange          w − W_f·u = 0: the node's potential is the relative angular
                        velocity about n (or velocity along n; n the joint axis, fixed
                        in frame 1, or for a rotation an axis fixed in frame 2: the
                        universal joint's axis2); while initialising and
                        the node is determined by other equations (an inertia on it, a
                        potential source), its time derivative instead
    (7) coordinate      d(coordinate)/dt − w = 0 (J.angle, J.s)

λ_k is the reaction of primitive k (force along its normal, torque about its
direction, frame 1 on frame 2) in every model, so swapping the model changes nothing
else. A redundant row of a closed loop is switched off: its rows become λ_k = 0,
μ_k = 0 (``active``).

Local variables: frame1 (13), frame2 (13), the flange nodes, then the states
λ_1..λ_m (f1.., t1..), μ_1..μ_m, the flange flows (tau / f) and the joint coordinates
(angle / s). Rows: the same order (one equation per state).
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..arrays import Probes
from ..errors import ModelError
from . import compiled
from .base import ElementType, initialisation_params
from .cardan import basis_pair
from .constraints import NV2, AxialRotation, Frames, PointOnPlane, Rotation, relative_angle
from .declarations import AxisJoint, Output, Param, Port, State
from .frames import cross, global_point, local_offset, reduced
from .protocols import NO_LABEL, SPEED, SPIN, BoundResidualProtocol, JointProtocol

MODELS = ("velocity", "position", "elastic")
AT_FRAMES = ("global", "frame1", "frame2")
RIGID = ("velocity", "position")
AXIS = Param("axis", "1", default=(0.0, 0.0, 1.0), description="axis direction, global at "
             "t = 0, fixed in frame 1 from then on", kind="vector", size=3)
W1, W2 = slice(3, 6), slice(16, 19)      # ω of frame 1, of frame 2 (local variables)
POSE = np.r_[6:13, 19:26]                # p, q of both frames
PROBE_SEED, PROBE_STATES = 20261126, 2   # random states at which the pattern is probed
# instances probed at once: each Jacobian is (instances, rows, variables), and 4 096 ball
# joints at once took three times as long per joint (fresh pages of 33 MB arrays) as 512
PROBE_CHUNK = 512
# numpy cost of a run-form residual and Jacobian call, per group and per joint (a group
# of 1-4 revolutes: ~0.2 ms a residual), for the compiled kernels' warm-up
NUMPY_CALL_SECONDS, NUMPY_JOINT_SECONDS = 2e-4, 3e-6


def _instances(p, rows: slice, n: int):
    """The parameters of a group of ``n`` instances narrowed to ``rows``: what has one
    entry per instance (arrays and lists of n) is sliced, the group's constants shared.
    (Used with n > PROBE_CHUNK only, where no constant has n entries.)"""
    part = copy.copy(p)
    for key, value in vars(p).items():
        if isinstance(value, (np.ndarray, list)) and len(value) == n:
            setattr(part, key, value[rows])
    return part


@dataclass(frozen=True)
class Flange:
    """An axis coupling: ``port`` is the scalar node's port name (also the default node
    <joint>.<port>), ``param`` the parameter that names the node, ``kind`` 'rot' (about
    the axis) or 'trans' (along it), ``flow`` and ``coord`` the state names. The axis
    is the joint's axis (fixed in frame 1), or with ``column`` that column of the
    joint's coordinate basis fixed in frame ``frame`` (0, 1; a rotation only): the
    universal joint's second axis turns with frame 2."""
    port: str
    param: str
    kind: str
    flow: str
    coord: str
    frame: int = 0
    column: int | None = None


ROT = Flange("w", "flange", "rot", "tau", "angle")
TRANS = Flange("v", "flange", "trans", "f", "s")


def triad(axis) -> tuple:
    """Unit axis n and two unit vectors e1, e2 with (e1, e2, n) right-handed; read-only,
    being shared: the joints of a mechanism have a few axes (a chain's all the default),
    each worked out once."""
    return _triad(np.asarray(axis, dtype=float).tobytes())


@lru_cache(maxsize=1024)
def _triad(axis: bytes) -> tuple:      # the bytes tell -0.0 from 0.0, as the arithmetic does
    n = np.frombuffer(axis)
    n = n / np.linalg.norm(n)
    t = np.array([1.0, 0.0, 0.0]) if abs(n[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    e1 = t - (t @ n) * n
    e1 /= np.linalg.norm(e1)
    out = e1, np.cross(n, e1), n
    for v in out:
        v.setflags(write=False)
    return out


def anchor(prm: dict, nodes, frames: dict, axis) -> tuple:
    """The joint point and axis of an element between two frames, into ``prm`` in each
    frame's coordinates (x1, x2; axis_l, axis_l2; the reference directions ref1, ref2 of
    the angle about the axis, equal at t = 0); returns the global triad (e1, e2, n)."""
    f1, f2 = frames[nodes[0]], frames[nodes[1]]
    if prm.get("at") is None:
        owner = f2 if nodes[1] != "0" else f1
        at = np.array([owner[k] for k in ("x", "y", "z")])
    else:
        at = global_point(frames, nodes, prm.get("atframe", "global"), prm["at"])
    e1, e2, n = triad(axis)
    A1t, A2t = f1["A"].T, f2["A"].T
    prm["x1"], prm["x2"] = local_offset(f1, at), local_offset(f2, at)
    prm["axis_l"], prm["axis_l2"] = A1t @ n, A2t @ n
    prm["ref1"], prm["ref2"] = A1t @ e1, A2t @ e1
    return e1, e2, n


class ConstraintModels:
    """The joint protocol's answers that follow from ``model=`` (velocity | position |
    elastic) and the redundant-row switches ``p.active``: shared by the joints and the
    rod."""

    @classmethod
    def is_rigid(cls, p):
        return p.model in RIGID

    @classmethod
    def is_compliant(cls, p):
        return p.model == "elastic"

    @classmethod
    def positions_drift(cls, p):
        return p.model == "velocity"

    @classmethod
    def active_rows(cls, p):
        return p.active > 0.5

    @classmethod
    def set_active(cls, p, active):
        p.active[...] = active        # shared with the initialisation form (a shallow copy)


class Joint(ConstraintModels, JointProtocol, BoundResidualProtocol, ElementType):
    """Base of the joints (not an element itself: no keyword)."""

    has_init_form = True         # constraints at acceleration level while initialising
    drawn_as = "joint"
    n_points: int = 0            # point-on-plane primitives
    n_rotations: int = 0         # rotation restrictions
    global_normals: bool = False # point-on-plane normals: global directions (else frame 1's)
    flanges: tuple = ()          # Flange declarations
    geometry: tuple = ()         # the joint's own geometric parameters
    added_params: tuple = ()     # parameters of the joint's own added terms
    added_outputs: tuple = ()    # outputs of the added terms (added_output_values)
    uses_point = True            # False: no joint point (norotation)
    # the relative motion of a one-axis joint ('rotation', 'translation', 'none': welded)
    # for AxisJoint; '' for the other joints
    axis_motion: str = ""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not cls.keyword:
            return
        nf = len(cls.flanges)
        domain = {"rot": ("rotational",), "trans": ("translational",)}
        cls.ports = (Port("frame1", frame=True), Port("frame2", frame=True)) + tuple(
            Port(f.port, domain[f.kind], group=f.port, frame=False, param=f.param,
                 description=("relative angular velocity about" if f.kind == "rot" else
                              "relative velocity along") + " the axis")
            for f in cls.flanges)
        point = (Param("at", "m", default=None, description="joint point, global "
                       "coordinates at t = 0 (default: frame 2's centre of mass)",
                       kind="vector", size=3),
                 Param("atframe", "1", default="global", description="coordinates of at: "
                       "global at t = 0, or frame1/frame2 = that body's frame",
                       kind="choice", choices=AT_FRAMES)) if cls.uses_point else ()
        translational = (
            Param("k", "N/m", default=1e8, description="translational stiffness "
                  "(elastic model)", positive=True),
            Param("c", "N*s/m", default=None, description="translational damping (elastic "
                  "model; default critical: 2·sqrt(k·m_eff))", nonnegative=True),
        ) if cls.n_points else ()
        rotational = (
            Param("kr", "N*m/rad", default=1e6, description="rotational stiffness "
                  "(elastic model)", positive=True),
            Param("cr", "N*m*s/rad", default=None, description="rotational damping "
                  "(elastic model; default critical: 2·sqrt(kr·J_eff), J_eff about the "
                  "joint point)", nonnegative=True),
        ) if cls.n_rotations else ()
        cls.params = (point + tuple(cls.geometry)
                      + (Param("model", "1", default="position", description="constraint "
                               "model", kind="choice", choices=MODELS),)
                      + translational + rotational + tuple(cls.added_params)
                      + tuple(Param(f.param, None, default=None, description="name of the "
                                    f"axis node (default <joint>.{f.port})", kind="node")
                              for f in cls.flanges))
        m = cls.n_points + cls.n_rotations
        cls.states = (
            tuple(State(f"f{i + 1}", "N", False, f"reaction force along normal {i + 1}")
                  for i in range(cls.n_points))
            + tuple(State(f"t{i + 1}", "N*m", False, f"reaction torque about direction "
                          f"{i + 1}") for i in range(cls.n_rotations))
            + tuple(State(f"mu{i + 1}", "1", False, "stabilising multiplier (position "
                          "model)", stabiliser=True) for i in range(m))
            + tuple(State(f.flow, "N*m" if f.kind == "rot" else "N", False,
                          "flow of the axis coupling (drive torque/force on the joint)")
                    for f in cls.flanges)
            + tuple(State(f.coord, "rad" if f.kind == "rot" else "m", True,
                          "joint coordinate (integral of the axis node's potential)")
                    for f in cls.flanges))
        cls.outputs = (
            tuple(Output(f"F{a}", "N", f"reaction force of frame 1 on frame 2, {a}",
                         kind="force") for a in "xyz")
            + tuple(Output(f"M{a}", "N*m", f"reaction moment of frame 1 on frame 2 about "
                           f"the joint point, {a}", kind="moment") for a in "xyz")
            + (Output("gap", "m", "position-level violation of the point constraints",
                      kind="violation"),)
            + ((Output("twist", "rad", "position-level violation of the rotation "
                       "constraints", kind="violation"),) if cls.n_rotations else ())
            + tuple(cls.added_outputs))
        # offsets of the blocks in the local variable (and row) vector
        cls._F0 = NV2                         # flange nodes
        cls._L0 = NV2 + nf                    # λ
        cls._M0 = cls._L0 + m                 # μ
        cls._T0 = cls._M0 + m                 # flange flows
        cls._C0 = cls._T0 + nf                # coordinates
        cls._m, cls._nf = m, nf
        # compiled.joint's ROT (about an axis fixed in frame 1), TRANS, ROT2 (fixed in 2)
        cls._kinds = np.array([1 if f.kind == "trans" else 2 if f.frame else 0
                               for f in cls.flanges], dtype=np.int64)

    # --- the joint protocol (protocols.JointProtocol) -------------------------------------
    @classmethod
    def constraint_names(cls):
        return tuple(s.name for s in cls.states[:cls._m])

    @classmethod
    def coordinate_names(cls):
        return tuple(f.coord for f in cls.flanges)

    @classmethod
    def coordinate_periods(cls):
        return tuple(2.0 * np.pi if f.kind == "rot" else 0.0 for f in cls.flanges)

    @classmethod
    def flange_vars(cls):
        return slice(cls._F0, cls._F0 + cls._nf)

    @classmethod
    def coordinate_vars(cls):
        return slice(cls._C0, cls._C0 + cls._nf)

    @classmethod
    def axis_joint(cls, inst):
        if not cls.axis_motion:
            return None
        prm = inst.params
        return AxisJoint(cls.axis_motion, np.asarray(prm["x1"], dtype=float),
                         np.asarray(prm["axis_l"], dtype=float), prm["model"] in RIGID)

    # --- added terms (the spherical joint's friction and cone limit) --------------------------
    @classmethod
    def added_torque(cls, x, p):
        """Torque (N, 3) that the joint's own added terms make frame 1 exert on frame 2
        (global), or None: it enters the rows of ω2 as −M and of ω1 as +M, (1)."""
        return None

    @classmethod
    def added_torque_jacobian(cls, x, p):
        """∂M/∂x (N, 3, nvars) of ``added_torque`` (None when it is None)."""
        return None

    @classmethod
    def added_output_values(cls, x, p) -> list:
        """Values (N,) of ``added_outputs``, in order."""
        return []

    # --- geometry ------------------------------------------------------------------------
    @classmethod
    def check(cls, inst):
        for par in cls.geometry:
            value = inst.params.get(par.name)
            if par.kind == "vector" and value is not None and not np.linalg.norm(value) > 0:
                raise ModelError(f"{cls.keyword} {inst.name}: {par.name} must be a non-zero "
                                 "direction", inst.param_locs.get(par.name, inst.loc))

    @classmethod
    def layout(cls, prm: dict, e1, e2, n) -> tuple:
        """(point-on-plane normals, rotation pairs (a in frame 1, b in frame 2)) as
        global vectors at t = 0. A pair restricts rotation about b × a."""
        raise NotImplementedError

    @classmethod
    def coordinate_basis(cls, prm: dict, e1, e2, n) -> np.ndarray:
        """Orthonormal directions (columns, global at t = 0) in which the joint's angles
        are measured (cardan.py (1)); fixed in each frame as ``basis1``, ``basis2``."""
        return np.column_stack([e1, e2, n])

    @classmethod
    def joint_axis(cls, prm: dict):
        return prm.get("axis", (0.0, 0.0, 1.0))

    @classmethod
    def link(cls, inst, frames):
        prm = inst.params
        f1, f2 = frames[inst.nodes[0]], frames[inst.nodes[1]]
        e1, e2, n = anchor(prm, inst.nodes, frames, cls.joint_axis(prm))
        normals, pairs = cls.layout(prm, e1, e2, n)
        A1t, A2t = f1["A"].T, f2["A"].T
        prm["pp_n"] = np.array([v if cls.global_normals else A1t @ v
                                for v in normals]).reshape(-1, 3)
        prm["rot_a"] = np.array([A1t @ a for a, _ in pairs]).reshape(-1, 3)
        prm["rot_b"] = np.array([A2t @ b for _, b in pairs]).reshape(-1, 3)
        prm["basis1"], prm["basis2"] = basis_pair(f1["A"], f2["A"],
                                                  cls.coordinate_basis(prm, e1, e2, n))
        masses = [f["m"] for f in (f1, f2) if f.get("m")]
        # inertia about the joint point: mean principal moment + m·|arm|² (parallel axes)
        inertias = [float(np.mean(f["J"])) + f["m"] * float(arm @ arm)
                    for f, arm in ((f1, prm["x1"]), (f2, prm["x2"])) if f.get("J") is not None]
        if cls.n_points and prm.get("c") is None:
            prm["c"] = 2.0 * np.sqrt(prm["k"] * reduced(masses))
        if cls.n_rotations and prm.get("cr") is None:
            prm["cr"] = 2.0 * np.sqrt(prm["kr"] * reduced(inertias))

    @classmethod
    def group_key(cls, inst):
        return inst.params["model"]

    @classmethod
    def prepare(cls, instances):
        p = super().prepare(instances)
        N, m, npp = len(instances), cls._m, cls.n_points
        p.model = instances[0].params["model"]
        p.init = False
        p.flange_differential = np.zeros((N, cls._nf), dtype=bool)
        p.flange_prescribed = np.zeros((N, cls._nf), dtype=bool)
        p.flange_rate = lambda t: np.zeros((N, cls._nf))

        def stack(key, shape):
            return np.array([np.asarray(i.params.get(key, np.zeros(shape)), dtype=float)
                             .reshape(shape) for i in instances]).reshape((N,) + shape)

        p.x1, p.x2 = stack("x1", (3,)), stack("x2", (3,))
        p.pp_n = stack("pp_n", (npp, 3))
        p.rot_a, p.rot_b = stack("rot_a", (cls.n_rotations, 3)), stack("rot_b",
                                                                        (cls.n_rotations, 3))
        p.axis_l, p.axis_l2 = stack("axis_l", (3,)), stack("axis_l2", (3,))
        p.ref1, p.ref2 = stack("ref1", (3,)), stack("ref2", (3,))
        p.basis1, p.basis2 = stack("basis1", (3, 3)), stack("basis2", (3, 3))
        p.flange_axes = cls._flange_axes(p)

        def values(key):
            return np.array([i.params.get(key) or 0.0 for i in instances], dtype=float)
        p.kappa = np.concatenate([np.repeat(values("k")[:, None], npp, 1),
                                  np.repeat(values("kr")[:, None], m - npp, 1)], axis=1)
        p.damp = np.concatenate([np.repeat(values("c")[:, None], npp, 1),
                                 np.repeat(values("cr")[:, None], m - npp, 1)], axis=1)
        # 0 for a redundant rigid constraint (a closed loop): its λ and μ are set to 0
        p.active = np.ones((N, m))
        for row, inst in enumerate(instances):
            p.active[row, list(inst.params.get("inactive", ()))] = 0.0
        p.warmup = compiled.Warmup(NUMPY_CALL_SECONDS + NUMPY_JOINT_SECONDS * N)
        return p

    @classmethod
    def bind_determined(cls, p_init, local_determined, local_rates):
        """Flange nodes that other equations determine (an inertia or a potential
        source on them): their relation is differentiated while initialising, (6), with
        the node's w' the source's dV/dt where a source prescribes it (so the reactions
        at t = 0 include the prescribed acceleration)."""
        F = cls.flange_vars()
        p_init.flange_differential = local_determined[:, F]
        p_init.flange_rate = lambda t: local_rates(t)[:, F]
        p_init.flange_prescribed = ~np.isnan(p_init.flange_rate(0.0))

    # --- kernels ---------------------------------------------------------------------------
    @classmethod
    def _primitives(cls, x, p):
        """The m constraints as primitive objects (constraints.py) with the slice of
        their λ, μ; and one object per flange (its axis coupling)."""
        fr = Frames(x[:, :NV2])
        npp, parts = cls.n_points, []
        if npp:
            parts.append((PointOnPlane(fr, p.pp_n, p.x1, p.x2, cls.global_normals),
                          slice(0, npp)))
        if cls.n_rotations:
            parts.append((Rotation(fr, p.rot_a, p.rot_b), slice(npp, cls._m)))
        axes = p.flange_axes
        flanges = [PointOnPlane(fr, axes[:, i:i + 1], p.x1, p.x2) if f.kind == "trans"
                   else AxialRotation(fr, axes[:, i:i + 1], f.frame)
                   for i, f in enumerate(cls.flanges)]
        return fr, parts, flanges

    @classmethod
    def _flange_axes(cls, p) -> np.ndarray:
        """The flanges' axes (N, nf, 3), local vectors of the frame each is fixed in."""
        if not cls.flanges:
            return np.zeros((len(p.axis_l), 0, 3))
        return np.stack([p.axis_l if f.column is None else
                         (p.basis1, p.basis2)[f.frame][:, :, f.column] for f in cls.flanges],
                        axis=1)

    @staticmethod
    def _rows(prims, get):
        """Per-primitive arrays (N, k, ...) of ``get(prim)``, side by side (axis 1)."""
        values = [get(prim) for prim in prims]
        return values[0] if len(values) == 1 else np.concatenate(values, axis=1)

    @classmethod
    def _blocks(cls, x):
        L0, M0, T0, F0, m, nf = cls._L0, cls._M0, cls._T0, cls._F0, cls._m, cls._nf
        return (x[:, L0:L0 + m], x[:, M0:M0 + m], x[:, T0:T0 + nf], x[:, F0:F0 + nf])

    @classmethod
    def _frame_force(cls, parts, flanges, lam, tau, mu_act):
        """Frame rows (1): −Σ W_kᵀλ_k − Σ W_fᵀτ_f (+ (∂g/∂x)ᵀμ in the position model)."""
        out = 0.0
        for prim, sl in parts:
            out = out - prim.force(lam[:, sl])
            if mu_act is not None:
                out = out + prim.gradient_force(mu_act[:, sl])
        for i, fl in enumerate(flanges):
            out = out - fl.force(tau[:, i:i + 1])
        return out

    @classmethod
    def _framework_twin(cls, p, ask=compiled.twin):
        """The compiled kernels (elements/compiled/joint.py) for the run form of a joint
        type without added terms, when they should run; else None. (A type with terms
        of its own has its own ``_twin``: this one is asked for only by the framework's
        kernels, so that they never get another type's module.) ``ask``: how the
        answer is asked for (``compiled.settled``: without counting a call)."""
        if p.init or cls.added_torque.__func__ is not Joint.added_torque.__func__:
            return None
        return ask("joint", p.warmup)

    @classmethod
    def _twin(cls, p):
        """The compiled kernels that ``residual`` runs for this group, or None."""
        return cls._framework_twin(p)

    @classmethod
    def _twin_args(cls, p) -> tuple:
        """The group's arrays and the type's constants, as the compiled kernels take them
        after x (and x')."""
        return (p.pp_n, p.x1, p.x2, p.rot_a, p.rot_b, p.flange_axes, p.kappa, p.damp,
                p.active, cls._kinds, cls.n_points, cls.global_normals,
                MODELS.index(p.model))

    @classmethod
    def residual_kernel(cls, p):
        fast = cls._framework_twin(p, ask=compiled.settled)
        return None if fast is None else compiled.bound(fast.residual, *cls._twin_args(p))

    @classmethod
    def residual(cls, t, x, xp, p):
        fast = cls._framework_twin(p)
        if fast is not None:
            return fast.residual(x, xp, *cls._twin_args(p))
        position = p.model == "position" and not p.init
        _, parts, flanges = cls._primitives(x, p)
        prims = [prim for prim, _ in parts]
        lam, mu, tau, wf = cls._blocks(x)
        act = p.active
        x26, xp26 = x[:, :NV2], xp[:, :NV2]
        out = np.zeros((x.shape[0], cls.nrows()))
        L0, M0, T0, C0, F0, m, nf = (cls._L0, cls._M0, cls._T0, cls._C0, cls._F0, cls._m,
                                     cls._nf)
        out[:, :NV2] = cls._frame_force(parts, flanges, lam, tau,
                                        mu * act if position else None)         # (1), (3)
        M = cls.added_torque(x, p)
        if M is not None:
            out[:, W1] += M                                                     # (1)
            out[:, W2] -= M
        out[:, F0:F0 + nf] = tau
        cls._constraint_rows(out, prims, flanges, x, p)                        # (2), (3), (6)
        if p.model == "elastic":
            g, gdot = (cls._rows(prims, get) for get in (lambda pr: pr.g,
                                                         lambda pr: pr.rate(x26)))
            out[:, L0:L0 + m] = lam + p.kappa * g + p.damp * gdot               # (4)
        elif p.init:
            # d²g/dt² = ∇(W·u)·x' = W·x' + (∂(W·u)/∂x)·x'
            gddot = cls._rows(prims, lambda pr: pr.rate(xp26) + np.einsum(
                "nmj,nj->nm", pr.rate_gradient(x26), xp26))
            out[:, L0:L0 + m] = act * gddot + (1.0 - act) * lam                 # (5)
        if nf and p.init:                                                       # (6)
            w_rate = np.where(p.flange_prescribed, p.flange_rate(t), xp[:, F0:F0 + nf])
            acc = w_rate - cls._rows(flanges, lambda fl: fl.rate(xp26) + np.einsum(
                "nmj,nj->nm", fl.rate_gradient(x26), xp26))
            out[:, T0:T0 + nf] = np.where(p.flange_differential, acc, out[:, T0:T0 + nf])
        out[:, C0:C0 + nf] = xp[:, C0:C0 + nf] - wf                             # (7)
        return out

    @classmethod
    def _constraint_rows(cls, out, prims, flanges, x, p) -> None:
        """Rows (2), (3) and (6) as the run form has them, written into ``out``: the
        velocity constraints of a rigid model (or λ = 0 where a row is switched off; the
        elastic model and the initialisation form write these rows themselves), the
        position constraints in the position model (else μ = 0), the flange relations."""
        lam, mu, _, wf = cls._blocks(x)
        act, x26, m, nf = p.active, x[:, :NV2], cls._m, cls._nf
        L0, M0, T0 = cls._L0, cls._M0, cls._T0
        if p.model != "elastic" and not p.init:
            out[:, L0:L0 + m] = (act * cls._rows(prims, lambda pr: pr.rate(x26))
                                 + (1.0 - act) * lam)
        out[:, M0:M0 + m] = (act * cls._rows(prims, lambda pr: pr.g) + (1.0 - act) * mu
                             if p.model == "position" and not p.init else mu)
        if nf:
            out[:, T0:T0 + nf] = wf - cls._rows(flanges, lambda fl: fl.rate(x26))

    @classmethod
    def invariant_residual(cls, t, x, xp, p):
        """Rows (2), (3) and (6) of the run form alone (the frame rows, whose reactions
        cost most of a residual, are left at 0); compiled, the whole residual costs less
        than these rows in numpy, and its other rows are ignored."""
        if cls._twin(p) is not None:
            return cls.residual(t, x, xp, p)
        _, parts, flanges = cls._primitives(x, p)
        out = np.zeros((x.shape[0], cls.nrows()))
        cls._constraint_rows(out, [prim for prim, _ in parts], flanges, x, p)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        fast = cls._framework_twin(p)
        if fast is not None:
            J = fast.jacobian(x, *cls._twin_args(p))
            if not cls._nf:
                return J, np.broadcast_to(0.0, J.shape)
            Jp = np.zeros_like(J)                       # (7): d(coordinate)/dt
            Jp[:, cls.coordinate_vars(), cls.coordinate_vars()] = np.eye(cls._nf)
            return J, Jp
        position = p.model == "position" and not p.init
        _, parts, flanges = cls._primitives(x, p)
        prims = [prim for prim, _ in parts]
        lam, mu, tau, wf = cls._blocks(x)
        x26, xp26 = x[:, :NV2], xp[:, :NV2]
        N = x.shape[0]
        L0, M0, T0, C0, F0, m, nf = (cls._L0, cls._M0, cls._T0, cls._C0, cls._F0, cls._m,
                                     cls._nf)
        L, M, T, C, Fl = (slice(L0, L0 + m), slice(M0, M0 + m), slice(T0, T0 + nf),
                          slice(C0, C0 + nf), slice(F0, F0 + nf))
        J = np.zeros((N, cls.nrows(), cls.nvars()))
        # dF/dx' is zero but for the initialisation form and the coordinates (7): a
        # read-only zero view then, which costs no memory traffic
        Jp = np.zeros_like(J) if p.init or nf else np.broadcast_to(0.0, J.shape)
        act = p.active
        eye_m = np.broadcast_to(np.eye(m), (N, m, m))
        W = cls._rows(prims, lambda pr: pr.W)
        # frame rows (1): −Wᵀλ − W_fᵀτ (+ Gᵀμ), ∓ M
        J[:, :NV2, L] = -np.swapaxes(W, 1, 2)
        frame = J[:, :NV2, :NV2]          # the terms added in place, block by block
        for prim, sl in parts:
            prim.add_force_jacobian(frame, lam[:, sl], -1.0)
            if position:
                prim.add_hessian(frame, mu[:, sl] * act[:, sl])
        for i, fl in enumerate(flanges):
            fl.add_force_jacobian(frame, tau[:, i:i + 1], -1.0)
        dM = cls.added_torque_jacobian(x, p)
        if dM is not None:
            J[:, W1] += dM
            J[:, W2] -= dM
        dg = cls._rows(prims, lambda pr: pr.dg) if position or p.model == "elastic" else None
        if position:
            J[:, :NV2, M] = np.swapaxes(dg * act[:, :, None], 1, 2)
        J[:, Fl, T] = np.broadcast_to(np.eye(nf), (N, nf, nf))
        grad = W + cls._rows(prims, lambda pr: pr.rate_gradient(x26))          # ∂(W·u)/∂x
        if p.model == "elastic":
            J[:, L, :NV2] = p.kappa[:, :, None] * dg + p.damp[:, :, None] * grad
            J[:, L, L] = eye_m
        elif p.init:
            # d/dx of ∇(W·u)·x' on the velocities (uᵀ∂W/∂x is linear in u); the terms in
            # the positions are left out: they are fixed while initial values are found
            J[:, L, :NV2] = act[:, :, None] * cls._rows(prims, lambda pr: pr.row_rate(xp26))
            Jp[:, L, :NV2] = act[:, :, None] * grad
            J[:, L, L] = eye_m * (1.0 - act)[:, None, :]
        else:
            J[:, L, :NV2] = act[:, :, None] * grad
            J[:, L, L] = eye_m * (1.0 - act)[:, None, :]
        if position:
            J[:, M, :NV2] = act[:, :, None] * dg
            J[:, M, M] = eye_m * (1.0 - act)[:, None, :]
        else:
            J[:, M, M] = eye_m
        if nf:
            Wf = cls._rows(flanges, lambda fl: fl.W)
            J[:, :NV2, T] = -np.swapaxes(Wf, 1, 2)
            eye_f = np.broadcast_to(np.eye(nf), (N, nf, nf))
            grad_f = Wf + cls._rows(flanges, lambda fl: fl.rate_gradient(x26))
            J[:, T, Fl] = eye_f
            J[:, T, :NV2] = -grad_f
            if p.init:
                d = p.flange_differential[:, :, None]
                J[:, T, Fl] = np.where(d, 0.0, eye_f)
                J[:, T, :NV2] = np.where(d, -cls._rows(flanges, lambda fl: fl.row_rate(xp26)),
                                         J[:, T, :NV2])
                Jp[:, T, Fl] = np.where(d & ~p.flange_prescribed[:, :, None], eye_f, 0.0)
                Jp[:, T, :NV2] = np.where(d, -grad_f, 0.0)
            Jp[:, C, C] = eye_f
            J[:, C, Fl] = -eye_f
        return J, Jp

    @classmethod
    def local_pattern(cls, n_extra=0, group=None):
        """The declared blocks (below), narrowed for a group to the entries that are not
        identically zero with its parameters (``_probed_pattern``): a ball joint's
        global normals make each of its rows read one component of each velocity and
        force, so its pattern holds 191 of the 640 declared entries. A sparser Newton
        matrix is assembled, scaled and factorised in proportion (P4, N = 1 024: 0.24 M
        entries instead of 0.62 M)."""
        declared = cls._declared_pattern()
        return declared if group is None else declared & cls._probed_pattern(group)

    @classmethod
    def _probed_pattern(cls, p) -> np.ndarray:
        """Where dF/dx or dF/dx' is non-zero at random states, for every instance of the
        group ``p``: in the run form and in the initialisation form with the flange
        relations both as written and differentiated (the assembler tells which after
        the pattern is built), each row half switched on (``active`` blends a row's
        constraint with λ = 0, μ = 0: both sets of entries). The joint kernels are
        analytic in the state (products, rotations, cross products), so an entry that is
        zero at two random states is zero at every state; terms that switch (the
        spherical joint's cone limit) are declared by the subclass on top of this."""
        N, nf = p.active.shape[0], cls._nf
        rng = Probes(PROBE_SEED)
        run = copy.copy(p)
        run.active = np.full_like(p.active, 0.5)
        forms = [run]
        init = initialisation_params(cls, run)
        for differential in (False, True):
            form = copy.copy(init)
            form.flange_differential = np.full((N, nf), differential)
            form.flange_prescribed = np.zeros((N, nf), dtype=bool)
            forms.append(form)
        mask = np.zeros((cls.nrows(), cls.nvars()), dtype=bool)
        chunks = [slice(i, i + PROBE_CHUNK) for i in range(0, N, PROBE_CHUNK)]
        for form in forms:
            parts = [form] if N <= PROBE_CHUNK else [_instances(form, c, N) for c in chunks]
            for _ in range(PROBE_STATES):
                x, xp = rng.uniform(-1.0, 1.0, (2, N, cls.nvars()))
                for part, rows in zip(parts, chunks):
                    for block in cls.jacobian(0.0, x[rows], xp[rows], part):
                        mask |= np.any(np.asarray(block) != 0.0, axis=0)
        return mask

    @classmethod
    def _declared_pattern(cls) -> np.ndarray:
        """Every block a joint's equations can touch, for any joint of this type."""
        L0, M0, T0, C0, F0, m, nf = (cls._L0, cls._M0, cls._T0, cls._C0, cls._F0, cls._m,
                                     cls._nf)
        mask = np.zeros((cls.nrows(), cls.nvars()), dtype=bool)
        mask[:NV2, POSE] = True                        # W, dW, H depend on p, q only
        mask[:NV2, L0:T0 + nf] = True                  # λ, μ, flange flows
        mask[F0:F0 + nf, T0:T0 + nf] = True
        mask[L0:M0 + m, :NV2] = True
        mask[L0:M0 + m, L0:M0 + m] = np.kron(np.eye(2, dtype=bool), np.eye(m, dtype=bool))
        mask[T0:T0 + nf, :NV2] = True
        mask[T0:T0 + nf, F0:F0 + nf] = np.eye(nf, dtype=bool)
        mask[C0:C0 + nf, C0:C0 + nf] = np.eye(nf, dtype=bool)
        mask[C0:C0 + nf, F0:F0 + nf] = np.eye(nf, dtype=bool)
        return mask

    @classmethod
    def local_differential(cls, n_extra=0, group=None):
        mask = np.zeros(cls.nvars(n_extra), dtype=bool)
        mask[cls._C0:cls._C0 + cls._nf] = True
        return mask

    @classmethod
    def constrained_vars(cls, n_extra=0, group=None):
        mask = np.zeros(cls.nvars(n_extra), dtype=bool)
        mask[cls._F0:cls._F0 + cls._nf] = True          # an inertia on a flange
        return mask

    @classmethod
    def speed_labels(cls, n_extra=0, group=None):
        labels = np.full(cls.nvars(n_extra), NO_LABEL)
        if group is not None and (cls.is_rigid(group) or cls.is_compliant(group)):
            labels[0:3] = labels[13:16] = SPEED            # V of both frames
            labels[3:6] = labels[16:19] = SPIN             # ω of both frames
        return labels

    @classmethod
    def invariant_rows(cls, n_extra=0, group=None):
        rows = np.zeros(cls.nrows(), dtype=bool)
        if group is not None and cls.is_rigid(group):
            rows[cls._L0:cls._M0 + cls._m] = True       # W·u = 0 and (position) g = 0
            rows[cls._T0:cls._T0 + cls._nf] = True      # flange: w = W_f·u
        return rows

    @classmethod
    def tied_states(cls, count, group=None):
        # a joint coordinate (angle, s) integrates its flange's speed w = W_f·u: it is the
        # bodies' relative motion, not a state of its own
        coordinates = np.full(count, float(cls._nf))
        if group is None or not cls.is_rigid(group):
            return coordinates
        levels = 2 if group.model == "position" else 1     # g = 0 and W·u = 0, or W·u = 0
        return coordinates + levels * np.sum(cls.active_rows(group), axis=1)

    # --- start-up hooks (the joint protocol) ------------------------------------------------
    @classmethod
    def position_constraints(cls, x, p):
        _, parts, _ = cls._primitives(x, p)
        prims = [prim for prim, _ in parts]
        g, dg = cls._rows(prims, lambda pr: pr.g), cls._rows(prims, lambda pr: pr.dg)
        full = np.zeros(dg.shape[:2] + (cls.nvars(),))
        full[:, :, :NV2] = dg
        return g, full

    @classmethod
    def velocity_rows(cls, x, p):
        _, parts, flanges = cls._primitives(x, p)
        N, nf = x.shape[0], cls._nf
        R = np.zeros((N, cls._m + nf, cls.nvars()))
        R[:, :cls._m, :NV2] = cls._rows([prim for prim, _ in parts], lambda pr: pr.W)
        if nf:
            R[:, cls._m:, :NV2] = -cls._rows(flanges, lambda fl: fl.W)
        R[:, cls._m:, cls._F0:cls._F0 + nf] = np.broadcast_to(np.eye(nf), (N, nf, nf))
        return R

    @classmethod
    def coordinates(cls, x, p):
        N = x.shape[0]
        fr = Frames(x[:, :NV2])
        values = np.zeros((N, cls._nf))
        grads = np.zeros((N, cls._nf, cls.nvars()))
        for k, f in enumerate(cls.flanges):
            if f.kind == "rot":
                values[:, k] = relative_angle(fr, p.axis_l, p.ref1, p.ref2)
                grads[:, k, :NV2] = _angle_gradient(x, p, values[:, k])
            else:
                along = PointOnPlane(fr, p.axis_l[:, None, :], p.x1, p.x2)
                values[:, k], grads[:, k, :NV2] = along.g[:, 0], along.dg[:, 0]
        return values, grads

    # --- outputs -------------------------------------------------------------------------
    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        T, N = x.shape[:2]
        flat = x.reshape(T * N, x.shape[-1])
        q = _tiled(p, N, T)
        fr, parts, _ = cls._primitives(flat, q)
        g = cls._rows([prim for prim, _ in parts], lambda pr: pr.g)
        lam = flat[:, cls._L0:cls._L0 + cls._m]
        npp = cls.n_points
        F = np.zeros((T * N, 3))
        M = np.zeros((T * N, 3))
        if npp:
            normals = q.pp_n if cls.global_normals else fr.rotate(0, q.pp_n)
            F = np.einsum("nmi,nm->ni", normals, lam[:, :npp])
        if cls.n_rotations:
            d = cross(fr.rotate(1, q.rot_b), fr.rotate(0, q.rot_a))     # b × a
            M = np.einsum("nmi,nm->ni", d, lam[:, npp:])
        added = cls.added_torque(flat, q)
        if added is not None:
            M = M + added
        cols = [F, M, np.sqrt(np.sum(g[:, :npp] ** 2, axis=1))[:, None]]
        if cls.n_rotations:
            cols.append(np.sqrt(np.sum(g[:, npp:] ** 2, axis=1))[:, None])
        cols += [v[:, None] for v in cls.added_output_values(flat, q)]
        return np.concatenate(cols, axis=1).reshape(T, N, len(cls.outputs))

    # --- contract tests ------------------------------------------------------------------
    @classmethod
    def sample_variants(cls):
        return [{"model": m} for m in MODELS] + [{"model": "position", "inactive": [0]}]

    @classmethod
    def sample_params(cls, rng):
        m = cls.n_rotations
        out = {"model": "position", "k": 1e3, "c": 5.0, "kr": 2e2, "cr": 3.0,
               "x1": rng.uniform(-1, 1, 3), "x2": rng.uniform(-1, 1, 3),
               "pp_n": rng.uniform(-1, 1, (cls.n_points, 3)),
               "rot_a": rng.uniform(-1, 1, (m, 3)), "rot_b": rng.uniform(-1, 1, (m, 3)),
               "axis_l": rng.uniform(-1, 1, 3), "axis_l2": rng.uniform(-1, 1, 3),
               "ref1": rng.uniform(-1, 1, 3), "ref2": rng.uniform(-1, 1, 3),
               "basis1": rng.uniform(-1, 1, (3, 3)), "basis2": rng.uniform(-1, 1, (3, 3))}
        return out


def _tiled(p, N: int, T: int):
    """The group's parameters repeated for T output times (arrays of N rows become T·N
    rows, in the order of x.reshape(T·N, ...)), others as they are."""
    q = copy.copy(p)
    for name, value in vars(p).items():
        if isinstance(value, np.ndarray) and value.ndim and value.shape[0] == N:
            setattr(q, name, np.broadcast_to(value, (T,) + value.shape).reshape(
                (T * N,) + value.shape[1:]))
    return q


def _angle_gradient(x, p, angle, step=1e-7):
    """∂angle/∂(p, q) by central differences on the quaternions (start-up only)."""
    N = x.shape[0]
    grad = np.zeros((N, NV2))
    for col in list(range(9, 13)) + list(range(22, 26)):
        xs = np.repeat(x[:, :NV2][:, None, :], 2, axis=1)
        xs[:, 0, col] += step
        xs[:, 1, col] -= step
        fr_p, fr_m = Frames(xs[:, 0]), Frames(xs[:, 1])
        a_p = relative_angle(fr_p, p.axis_l, p.ref1, p.ref2)
        a_m = relative_angle(fr_m, p.axis_l, p.ref1, p.ref2)
        grad[:, col] = np.angle(np.exp(1j * (a_p - a_m))) / (2 * step)
    return grad


def check_perpendicular(inst, a, b, names: str) -> None:
    """A located error unless the two directions are perpendicular."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    cos = abs(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b))
    if cos > 1e-6:
        raise ModelError(f"{inst.type.keyword} {inst.name}: {names} must be perpendicular "
                         f"(angle {np.degrees(np.arccos(min(cos, 1.0))):.4g}° from 90°)",
                         inst.param_locs.get(names.split()[0], inst.loc))
