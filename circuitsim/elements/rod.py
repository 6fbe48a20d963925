"""rod — massless rigid link between a point of frame 1 and a point of frame 2 (an S-S
link), of fixed or prescribed length, in the three models of the joints.

Ports
    frame1, frame2: bodies, or 0 (the fixed ground frame).
Parameters
    at1, at2: the link's ends (m), global coordinates at t = 0, fixed in frame 1 and in
        frame 2 (default: that frame's centre of mass). They must differ.
    L: the length (m): a constant or a brace expression of ``time`` (``.param``
        constants and the built-in functions allowed), positive at t = 0; default: the
        distance of the two ends at t = 0. Its time derivatives L', L'' are those of
        the expression, symbolically.
    model: velocity | position (default) | elastic; k, c: elastic model (as the joints).
Internal variables
    f (N): the tension of the link (the reaction); mu: stabilisation (position model);
    Lset (m), Lrate (m/s): the prescribed length L(t) and its rate L'(t), held as
    unknowns so that the start-up's velocity rows are linear in the unknowns.
Equations
    P_i = p_i + A_i·x_i the end fixed in frame i (x_i from at_i at t = 0), r_i = A_i·x_i,
    d = P2 − P1, u = d/|d|, v = V2 + ω2 × r2 − V1 − ω1 × r1 (the ends' relative velocity):
    (1) g = |d| − Lset = 0: the position-level constraint (|d| − L rather than
        ½(|d|² − L²): its gradient is the unit direction, of the joints' point rows'
        size whatever the length, its value a length in metres as theirs, and f is the
        force itself, not f/L)
    (2) W·u = u·v, W = (−u, −r1 × u, u, r2 × u) on (V1, ω1, V2, ω2)
    (3) frame rows  +W·f (on V, ω), + (∂g/∂x)·μ on the kinematic rows (position model)
    (4) velocity    u·v − Lrate = 0; μ = 0 (positions drift slowly)
    (5) position    u·v − Lrate = 0 and g = 0 (stabilised index 2, as the joints; no drift)
    (6) elastic     f − k·g − c·(u·v − Lrate) = 0; μ = 0
    (7) initialisation (rigid models) d²g/dt² = u·a + v·(I − u uᵀ)·ḋ/|d| − L''(t) = 0,
        a = V2' − V1' + ω2' × r2 − ω1' × r1 + ω2 × ṙ2 − ω1 × ṙ1 (determines f at t = 0)
    (8) Lset − L(t) = 0,  Lrate − L'(t) = 0
Sign convention
    frame1 ●──(f)──● frame2: f > 0 in tension: the rod pulls P2 towards P1 (force −f·u on
    frame 2 at P2, +f·u on frame 1 at P1); f < 0 in compression. No moment.
Outputs
    ROD.f (the state): tension (N); ROD.L (m): the current length |d|;
    ROD.gap (m): | |d| − L(t) |.
Example
    ``rod LEG1 0 PLAT at1=(0.5, 0, 0) at2=(0.2, 0, 0.4) L={0.5 + 0.01*sin(2*pi*time)}``
"""
from types import SimpleNamespace

import numpy as np

from ..errors import ModelError
from ..runtime import expressions
from ..runtime.timefunctions import Constant, ExprFunction, TimeFunction, TimeFunctionArray
from .base import ElementType
from .constraints import Frames
from .declarations import Output, Param, Port, State
from .frames import cross, local_offset, point_params, reduced, skew
from .joint import MODELS, RIGID, ConstraintModels
from .protocols import NO_LABEL, SPEED, SPIN, JointProtocol

NV2 = 26
V1, W1, P1, Q1 = slice(0, 3), slice(3, 6), slice(6, 9), slice(9, 13)
V2, W2, P2, Q2 = slice(13, 16), slice(16, 19), slice(19, 22), slice(22, 26)
POSE = np.r_[6:13, 19:26]
IF, IMU, ILS, ILR = 26, 27, 28, 29          # f, mu, Lset, Lrate
NVARS = 30


def _mm(a, b):
    return np.einsum("...ij,...jk->...ik", a, b)


def _vm(v, M):
    """vᵀ·M over (N, 3) and (N, 3, k)."""
    return np.einsum("ni,nik->nk", v, M)


class Rod(ConstraintModels, JointProtocol, ElementType):
    keyword = "rod"
    description = "massless rigid link of fixed or prescribed length between two points"
    drawn_as = "slider"
    has_init_form = True
    ports = (Port("frame1", frame=True, description="first frame (body or 0)"),
             Port("frame2", frame=True, description="second frame (body or 0)"))
    params = (*point_params("end of the rod"),
              Param("L", "m", default=None, kind="time", description="length: a constant "
                    "or a {expression of time} (default: the distance of the ends at t = 0)"),
              Param("model", "1", default="position", description="constraint model",
                    kind="choice", choices=MODELS),
              Param("k", "N/m", default=1e8, description="axial stiffness (elastic model)",
                    positive=True),
              Param("c", "N*s/m", default=None, description="axial damping (elastic model; "
                    "default critical: 2·sqrt(k·m_eff))", nonnegative=True))
    states = (State("f", "N", False, "tension of the rod (reaction)"),
              State("mu", "1", False, "stabilising multiplier (position model)"),
              State("Lset", "m", False, "prescribed length L(t)", init_param="Lset0"),
              State("Lrate", "m/s", False, "rate L'(t) of the prescribed length",
                    init_param="Lrate0"))
    outputs = (Output("L", "m", "current length |P2 − P1|"),
               Output("gap", "m", "position-level violation | |P2 − P1| − L(t) |",
                      kind="violation"))

    # --- checks and linking ----------------------------------------------------------------
    @classmethod
    def check(cls, inst):
        L = inst.params.get("L")
        if L is None:
            return
        where = inst.param_locs.get("L", inst.loc)
        if not isinstance(L, (int, float, Constant, ExprFunction)):
            raise ModelError(f"rod {inst.name}: L must be a constant or a brace expression "
                             "of time (e.g. L={0.5 + 0.01*sin(2*pi*time)}): its derivatives "
                             "are taken symbolically", where)
        if _derivatives(L) is None:
            raise ModelError(f"rod {inst.name}: L = {L!r} cannot be differentiated with "
                             "respect to time twice", where)
        L0 = float(L(0.0)) if callable(L) else float(L)
        if not L0 > 0.0:
            raise ModelError(f"rod {inst.name}: L must be positive at t = 0 (it is "
                             f"{L0:.6g} m)", where)

    @classmethod
    def link(cls, inst, frames):
        prm = inst.params
        f1, f2 = frames[inst.nodes[0]], frames[inst.nodes[1]]
        ends = []
        for i, f in ((1, f1), (2, f2)):
            centre = np.array([f[k] for k in ("x", "y", "z")], dtype=float)
            at = prm.get(f"at{i}")
            ends.append(centre if at is None else np.asarray(at, dtype=float))
            prm[f"x{i}"] = local_offset(f, ends[-1])
        distance = float(np.linalg.norm(ends[1] - ends[0]))
        if not distance > 0.0:
            point = ", ".join(f"{v:g}" for v in ends[0])
            raise ModelError(f"rod {inst.name}: its two ends coincide at t = 0, at ({point}) "
                             "(at1 and at2; each defaults to its frame's centre of mass): "
                             "a rod needs a length and a direction",
                             inst.param_locs.get("at2", inst.param_locs.get("at1", inst.loc)))
        if prm.get("L") is None:
            prm["L"] = distance
        L, Ld, Ldd = _derivatives(prm["L"])
        prm["Lset0"], prm["Lrate0"] = L(0.0), Ld(0.0)
        if prm.get("c") is None:
            prm["c"] = 2.0 * np.sqrt(prm["k"] * reduced([f["m"] for f in (f1, f2)
                                                         if f.get("m")]))

    @classmethod
    def supplies_power(cls, p) -> bool:
        # a prescribed length drives the mechanism: the rod absorbs f·L'(t) (its frame
        # rows times the velocities, f·W·u), work put in from outside
        return p.varies

    @classmethod
    def group_key(cls, inst):
        return inst.params["model"], _varies(inst.params.get("L"))

    @classmethod
    def prepare(cls, instances):
        N = len(instances)
        funcs = [_derivatives(i.params.get("L", 1.0)) for i in instances]

        def stack(key, default):
            return np.array([default if i.params.get(key) is None else i.params[key]
                             for i in instances], dtype=float)
        return SimpleNamespace(
            L=[i.params.get("L", 1.0) for i in instances],     # a TimeFunctionArray (system)
            Ldot=TimeFunctionArray([f[1] for f in funcs]),
            Lddot=TimeFunctionArray([f[2] for f in funcs]),
            model=instances[0].params["model"], init=False,
            varies=any(_varies(i.params.get("L")) for i in instances),
            k=stack("k", 0.0), c=stack("c", 0.0),
            x1=stack("x1", np.zeros(3)), x2=stack("x2", np.zeros(3)),
            active=np.array([[0.0 if 0 in i.params.get("inactive", ()) else 1.0]
                             for i in instances]).reshape(N, 1))

    # --- kinematics ------------------------------------------------------------------------
    @staticmethod
    def _kin(x, p):
        fr = Frames(x[:, :NV2])
        r1, r2 = fr.rotate(0, p.x1), fr.rotate(1, p.x2)
        d = x[:, P2] + r2 - x[:, P1] - r1
        ell = np.sqrt(np.sum(d * d, axis=1))
        u = d / ell[:, None]
        v = x[:, V2] + cross(x[:, W2], r2) - x[:, V1] - cross(x[:, W1], r1)
        return SimpleNamespace(fr=fr, r1=r1, r2=r2, d=d, ell=ell, u=u, v=v,
                               g=ell - x[:, ILS], rate=np.sum(u * v, axis=1))      # (1), (2)

    @staticmethod
    def _W(k):
        N = k.u.shape[0]
        W = np.zeros((N, NVARS))
        W[:, V1], W[:, W1] = -k.u, -cross(k.r1, k.u)                                   # (2)
        W[:, V2], W[:, W2] = k.u, cross(k.r2, k.u)
        return W

    @staticmethod
    def _G(k, D1, D2):
        """∂g/∂x (N, NVARS) of (1)."""
        G = np.zeros((k.u.shape[0], NVARS))
        G[:, P1], G[:, P2] = -k.u, k.u
        G[:, Q1], G[:, Q2] = -_vm(k.u, D1), _vm(k.u, D2)
        G[:, ILS] = -1.0
        return G

    # --- kernels ---------------------------------------------------------------------------
    @classmethod
    def residual(cls, t, x, xp, p):
        k = cls._kin(x, p)
        f, mu, act = x[:, IF], x[:, IMU], p.active[:, 0]
        rigid, position = p.model in RIGID, p.model == "position" and not p.init
        out = f[:, None] * cls._W(k)                                                   # (3)
        out[:, IF:] = 0.0
        if position:
            D1, D2 = k.fr.D(0, p.x1), k.fr.D(1, p.x2)
            G = cls._G(k, D1, D2)
            out[:, POSE] += (mu * act)[:, None] * G[:, POSE]
        srate = k.rate - x[:, ILR]
        if not rigid:
            out[:, IF] = f - p.k * k.g - p.c * srate                                   # (6)
        elif p.init:
            out[:, IF] = act * cls._gddot(k, x, xp, p, t) + (1.0 - act) * f            # (7)
        else:
            out[:, IF] = act * srate + (1.0 - act) * f                                 # (4), (5)
        out[:, IMU] = act * k.g + (1.0 - act) * mu if position else mu
        out[:, ILS] = x[:, ILS] - p.L(t)                                               # (8)
        out[:, ILR] = x[:, ILR] - p.Ldot(t)
        return out

    @classmethod
    def _gddot(cls, k, x, xp, p, t):
        D1, D2 = k.fr.D(0, p.x1), k.fr.D(1, p.x2)
        rd1 = np.einsum("nik,nk->ni", D1, xp[:, Q1])
        rd2 = np.einsum("nik,nk->ni", D2, xp[:, Q2])
        ddot = xp[:, P2] + rd2 - xp[:, P1] - rd1
        a = (xp[:, V2] - xp[:, V1] + cross(xp[:, W2], k.r2) - cross(xp[:, W1], k.r1)
             + cross(x[:, W2], rd2) - cross(x[:, W1], rd1))
        Pddot = (ddot - k.u * np.sum(k.u * ddot, axis=1)[:, None]) / k.ell[:, None]
        return np.sum(k.u * a, axis=1) + np.sum(k.v * Pddot, axis=1) - p.Lddot(t)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        k = cls._kin(x, p)
        N = x.shape[0]
        f, mu, act = x[:, IF], x[:, IMU], p.active[:, 0]
        rigid, position = p.model in RIGID, p.model == "position" and not p.init
        fr, u, r1, r2 = k.fr, k.u, k.r1, k.r2
        D1, D2 = fr.D(0, p.x1), fr.D(1, p.x2)                       # ∂r_i/∂q_i (N, 3, 4)
        eye = np.broadcast_to(np.eye(3), (N, 3, 3))
        P = (eye - u[:, :, None] * u[:, None, :]) / k.ell[:, None, None]        # ∂u/∂d
        Dd = np.zeros((N, 3, NVARS))
        Dd[:, :, P1], Dd[:, :, Q1], Dd[:, :, P2], Dd[:, :, Q2] = -eye, -D1, eye, D2
        Du = _mm(P, Dd)
        J = np.zeros((N, NVARS, NVARS))
        Jp = np.zeros_like(J)
        W = cls._W(k)
        # frame rows (3): f·W
        J[:, :, IF] = W
        J[:, V1, :] -= f[:, None, None] * Du
        J[:, V2, :] += f[:, None, None] * Du
        J[:, W1, :] -= f[:, None, None] * _mm(skew(r1), Du)
        J[:, W1, Q1] += f[:, None, None] * _mm(skew(u), D1)
        J[:, W2, :] += f[:, None, None] * _mm(skew(r2), Du)
        J[:, W2, Q2] -= f[:, None, None] * _mm(skew(u), D2)
        J[:, IF:, IF] = 0.0
        if position:
            G = cls._G(k, D1, D2)
            w = (mu * act)[:, None, None]
            J[:, POSE, IMU] = (act[:, None] * G)[:, POSE]
            J[:, P1, :] -= w * Du
            J[:, P2, :] += w * Du
            J[:, Q1, :] -= w * _mm(np.swapaxes(D1, 1, 2), Du)
            J[:, Q2, :] += w * _mm(np.swapaxes(D2, 1, 2), Du)
            J[:, Q1, Q1] -= w * fr.D2(0, p.x1, u)[:, 0]
            J[:, Q2, Q2] += w * fr.D2(1, p.x2, u)[:, 0]
        # ∂(u·v)/∂x
        Dv = np.zeros((N, 3, NVARS))
        Dv[:, :, V1], Dv[:, :, W1], Dv[:, :, Q1] = -eye, skew(r1), -_mm(skew(x[:, W1]), D1)
        Dv[:, :, V2], Dv[:, :, W2], Dv[:, :, Q2] = eye, -skew(r2), _mm(skew(x[:, W2]), D2)
        drate = _vm(k.v, Du) + _vm(u, Dv)
        if not rigid:                                                                   # (6)
            J[:, IF, :] = -p.k[:, None] * _vm(u, Dd) - p.c[:, None] * drate
            J[:, IF, IF] = 1.0
            J[:, IF, ILS] = p.k
            J[:, IF, ILR] = p.c
        elif p.init:                                                                    # (7)
            rd1 = np.einsum("nik,nk->ni", D1, xp[:, Q1])
            rd2 = np.einsum("nik,nk->ni", D2, xp[:, Q2])
            ddot = xp[:, P2] + rd2 - xp[:, P1] - rd1
            Pd = np.einsum("nij,nj->ni", P, ddot)
            Pv = np.einsum("nij,nj->ni", P, k.v)
            a = act[:, None]
            # the terms in the positions are left out (fixed while initialising, as the
            # joints do); those in the velocities and in x'
            J[:, IF, V2], J[:, IF, V1] = a * Pd, -a * Pd
            J[:, IF, W2] = a * (cross(r2, Pd) + cross(rd2, u))
            J[:, IF, W1] = -a * (cross(r1, Pd) + cross(rd1, u))
            J[:, IF, IF] = 1.0 - act
            Jp[:, IF, V2], Jp[:, IF, V1] = a * u, -a * u
            Jp[:, IF, W2], Jp[:, IF, W1] = a * cross(r2, u), -a * cross(r1, u)
            Jp[:, IF, P2], Jp[:, IF, P1] = a * Pv, -a * Pv
            Jp[:, IF, Q2] = a * _vm(cross(u, x[:, W2]) + Pv, D2)
            Jp[:, IF, Q1] = -a * _vm(cross(u, x[:, W1]) + Pv, D1)
        else:                                                                           # (4), (5)
            J[:, IF, :] = act[:, None] * drate
            J[:, IF, ILR] = -act
            J[:, IF, IF] = 1.0 - act
        if position:
            J[:, IMU, :] = act[:, None] * cls._G(k, D1, D2)
            J[:, IMU, IMU] = 1.0 - act
        else:
            J[:, IMU, IMU] = 1.0
        J[:, ILS, ILS] = 1.0                                                            # (8)
        J[:, ILR, ILR] = 1.0
        return J, Jp

    @classmethod
    def local_pattern(cls, n_extra=0, group=None):
        mask = np.zeros((NVARS, NVARS), dtype=bool)
        for rows in (np.r_[0:6], np.r_[13:19]):             # forces, torques: f·W
            mask[np.ix_(rows, POSE)] = True
            mask[rows, IF] = True
        for rows in (np.r_[6:13], np.r_[19:26]):            # kinematic rows: Gᵀμ
            mask[np.ix_(rows, POSE)] = True
            mask[rows, IMU] = True
        mask[IF, :NV2] = True
        mask[IF, [IF, ILS, ILR]] = True
        mask[IMU, POSE] = True
        mask[IMU, [IMU, ILS]] = True
        mask[ILS, ILS] = mask[ILR, ILR] = True
        return mask

    @classmethod
    def local_differential(cls, n_extra=0, group=None):
        return np.zeros(cls.nvars(n_extra), dtype=bool)

    # --- the joint protocol ----------------------------------------------------------------
    @classmethod
    def constraint_names(cls):
        return ("f",)

    @classmethod
    def position_constraints(cls, x, p):
        k = cls._kin(x, p)
        G = cls._G(k, k.fr.D(0, p.x1), k.fr.D(1, p.x2))
        return k.g[:, None], G[:, None, :]

    @classmethod
    def velocity_rows(cls, x, p):
        R = cls._W(cls._kin(x, p))
        R[:, ILR] = -1.0                                   # u·v − Lrate = 0, (4)
        return R[:, None, :]

    @classmethod
    def speed_labels(cls, n_extra=0, group=None):
        labels = np.full(cls.nvars(n_extra), NO_LABEL)
        if group is not None:
            labels[0:3] = labels[13:16] = SPEED
            labels[3:6] = labels[16:19] = SPIN
        return labels

    @classmethod
    def invariant_rows(cls, n_extra=0, group=None):
        rows = np.zeros(cls.nrows(), dtype=bool)
        if group is not None and cls.is_rigid(group) and not group.varies:
            rows[[IF, IMU]] = True             # u·v = 0 and (position) g = 0
        return rows

    @classmethod
    def tied_states(cls, count, group=None):
        if group is None or not cls.is_rigid(group) or group.varies:
            return np.zeros(count)
        levels = 2 if group.model == "position" else 1
        return levels * np.sum(cls.active_rows(group), axis=1).astype(float)

    # --- outputs ---------------------------------------------------------------------------
    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        T, N = x.shape[:2]
        flat = x.reshape(T * N, x.shape[-1])
        q = SimpleNamespace(x1=np.tile(p.x1, (T, 1)), x2=np.tile(p.x2, (T, 1)))
        k = cls._kin(flat, q)
        return np.stack([k.ell, np.abs(k.g)], axis=-1).reshape(T, N, 2)

    # --- contract tests --------------------------------------------------------------------
    @classmethod
    def sample_variants(cls):
        # L(t) of the sample, and constant lengths (rows that are invariants of the motion)
        return ([{"model": m} for m in MODELS] + [{"model": "position", "inactive": [0]}]
                + [{"model": m, "L": 1.3} for m in RIGID])

    @classmethod
    def sample_params(cls, rng):
        time = expressions.Name("time")
        wave = expressions.add(expressions.Num(1.2), expressions.mul(
            expressions.Num(0.1), expressions.func("sin", expressions.mul(
                expressions.Num(3.0), time))))
        return {"model": "position", "k": 1e3, "c": 5.0, "L": ExprFunction(wave),
                "x1": rng.uniform(-1, 1, 3), "x2": rng.uniform(-1, 1, 3)}


def _varies(L) -> bool:
    """A length that changes with time: its rows are no invariants of the motion (the
    solver leaves the motion along their normals out of its error test and projects the
    steps onto invariants; the motion a prescribed L(t) drives must be error-tested, or
    the steps grow past what interpolates it between them)."""
    return isinstance(L, ExprFunction)


def _derivatives(L):
    """(L, L', L'') as functions of time for a constant or an expression of time; None
    when the expression cannot be differentiated."""
    if isinstance(L, ExprFunction):
        try:
            first = expressions.diff(L.tree, "time")
            second = expressions.diff(first, "time")
        except Exception:            # a function without a derivative (a table, step)
            return None
        return L, _function(first), _function(second)
    value = float(L(0.0)) if isinstance(L, TimeFunction) else float(L)
    return Constant(value), Constant(0.0), Constant(0.0)


def _function(tree) -> TimeFunction:
    tree = expressions.substitute(tree, {})
    if isinstance(tree, expressions.Num):
        return Constant(tree.value)
    return ExprFunction(tree)
