"""body — a free rigid body in 3D, its orientation a unit quaternion (conventions.md §3).

Ports
    None written: a body B owns six nodes, global components — B.vx B.vy B.vz
    (translational, m/s: velocity of the centre of mass) and B.wx B.wy B.wz (rotational,
    rad/s: angular velocity). Forces, torques and joints attach to B as a frame.
Parameters
    m (kg); J = (Jx, Jy, Jz) central principal moments and Jp = (Jxy, Jxz, Jyz) the
    off-diagonal entries of the inertia tensor, body frame (kg·m²):
    Jc = [[Jx, Jxy, Jxz], [Jxy, Jy, Jyz], [Jxz, Jyz, Jz]] (must be positive definite).
    pos, v, w: initial centre of mass (m), velocity (m/s), angular velocity (rad/s, global).
    Orientation, at most one of (default: local axes = global axes):
      q = (q0, q1, q2, q3)      quaternion, local → global, normalised on input;
      rot = (ux, uy, uz, angle) rotation by angle (rad, ``90deg`` works) about axis u;
      euler = (phi, theta, psi) z-y-x intrinsic (yaw psi about z, then pitch theta about
                                the new y, then roll phi about the newest x):
                                A = Rz(psi)·Ry(theta)·Rx(phi).
    gyro: 1 (default) keeps the gyroscopic term ω × (Jω); 0 drops it (the simplified body model).
    g: gravity (m/s²), set from ``.gravity`` unless written.
Internal variables
    x, y, z (m): centre of mass; q0, q1, q2, q3: unit quaternion, local → global;
    wbx, wby, wbz (rad/s): angular velocity in the body's own axes, ω_b = Aᵀ·ω (what a
    body-mounted gyro reads).
Equations
    Flows into the body at its nodes (conventions.md §1 and §3); A = A(q) the
    direction-cosine matrix of conventions.md §3.
    (1) rows vx, vy, vz:  m·dV/dt − m·g                  (gravity: an applied force m·g)
    (2) rows wx, wy, wz:  A·(Jc·dω_b/dt + gyro·ω_b × (Jc·ω_b))   (Euler's equations, turned
                          into global components)
    (3) rows x, y, z:     dr/dt − V
    (4) rows q0..q3:      dq/dt − ½·q ⊗ (0, ω_b)
    (5) rows wbx..wbz:    ω_b − Aᵀ·ω   (while initial values are computed: its derivative,
                          dω_b/dt − Aᵀ·dω/dt, the term in dA/dt vanishing as ω × ω = 0)
    The integrated rotational state is ω_b, the global ω follows from it by (5): in body
    axes the inertia is constant, so an error in the orientation does not feed back into
    the rotation rates (a free body's flips about its intermediate axis keep their times).
    |q| = 1 is kept by projection: after each accepted step the solver calls
    ``Body.project``, which rescales q to unit length (the sign of q is kept).
Sign convention
    V and ω are potentials (global components, V at the centre of mass). The rows are
    flows into the body: a force F and a torque M applied to it enter rows (1) and (2)
    as −F and −M, so that m·dV/dt = m·g + ΣF and J·dω/dt + ω × (Jω) = ΣM
    (conventions.md §1, §3).
Outputs
    T = ½·m·|V|² + ½·ωᵀJω (J), kinetic energy; Hx, Hy, Hz = J·ω (N·m·s), angular momentum
    about the centre of mass, global components; U = −m·g·r (J), potential energy in
    gravity (zero at the origin).
Example
    ``body B1 m=1 J=(0.02, 0.02, 0.001) pos=(0.5, 0, 0) rot=(0, 1, 0, 90deg)``
"""
from types import SimpleNamespace

import numpy as np

from ..errors import ModelError
from . import compiled
from . import quaternion as quat
from .base import ElementType
from .declarations import Output, Param, Port, RigidBody, State
from .frames import Q, R, V, W, cross, skew
from .protocols import BodyProtocol, BoundResidualProtocol

ZERO3 = (0.0, 0.0, 0.0)
ORIENTATIONS = ("q", "rot", "euler")
TRIANGLE_RTOL = 1e-6   # a flat plate or thin rod is on the limit: let rounding pass


def _inertia(J, Jp) -> np.ndarray:
    """Jc (…,3,3) from the principal moments (…,3) and products (Jxy, Jxz, Jyz) (…,3)."""
    J, Jp = np.asarray(J, dtype=float), np.asarray(Jp, dtype=float)
    Jc = np.zeros(J.shape[:-1] + (3, 3))
    Jc[..., [0, 1, 2], [0, 1, 2]] = J
    for k, (i, j) in enumerate(((0, 1), (0, 2), (1, 2))):
        Jc[..., i, j] = Jc[..., j, i] = Jp[..., k]
    return Jc


WB = slice(13, 16)          # ω_b, after the frame's 13 variables (FRAME_VARS)
NB = 16
# a residual or Jacobian call in numpy, on average (its twin's cost is ~1/20 of it):
# fixed, and per body (benchmarks/kernels.py)
NUMPY_CALL_SECONDS, NUMPY_BODY_SECONDS = 1e-4, 2e-6


def _pattern() -> np.ndarray:
    """Union of the structures of dF/dx and dF/dx', run and initialisation forms (rows
    and columns in local order)."""
    P = np.zeros((NB, NB), dtype=bool)
    eye = np.eye(3, dtype=bool)
    P[V, V] = eye                    # (1) m·V'
    P[W, WB] = P[W, Q] = True        # (2) A(q)·(Jc·ω_b' + ω_b × Jc·ω_b)
    P[R, V] = P[R, R] = eye          # (3) r' − V
    P[Q, WB] = P[Q, Q] = True        # (4) q' − ½ L(q)·ω_b
    P[WB, WB] = eye                  # (5) ω_b − A(q)ᵀ·ω, or its derivative
    P[WB, W] = P[WB, Q] = True
    return P


class Body(BodyProtocol, BoundResidualProtocol, ElementType):
    keyword = "body"
    description = "free rigid body (6 nodes: velocity and angular velocity; quaternion pose)"
    ports = tuple(Port(n, ("translational",), group=n, description=f"{n} of the centre of mass")
                  for n in ("vx", "vy", "vz")) + tuple(
            Port(n, ("rotational",), group=n, description=f"angular velocity {n}")
            for n in ("wx", "wy", "wz"))
    uses_gravity = True
    drawn_as = "body"
    params = (
        Param("m", "kg", description="mass", positive=True),
        Param("J", "kg*m^2", description="central principal moments (Jx, Jy, Jz), body frame",
              kind="vector", size=3),
        Param("Jp", "kg*m^2", default=ZERO3, description="products of inertia (Jxy, Jxz, Jyz): "
              "off-diagonal entries of the inertia tensor, body frame", kind="vector", size=3),
        Param("pos", "m", default=ZERO3, description="initial centre of mass (x, y, z)",
              kind="vector", size=3),
        Param("v", "m/s", default=ZERO3, description="initial velocity (vx, vy, vz), global",
              kind="vector", size=3),
        Param("w", "rad/s", default=ZERO3, description="initial angular velocity "
              "(wx, wy, wz), global", kind="vector", size=3),
        Param("q", "1", default=None, description="initial orientation quaternion (q0, q1, "
              "q2, q3), local → global, normalised (default (1, 0, 0, 0))",
              kind="vector", size=4),
        Param("rot", ["1", "1", "1", "rad"], default=None, description="initial orientation "
              "as (ux, uy, uz, angle): rotation by angle about axis u", kind="vector", size=4),
        Param("euler", "rad", default=None, description="initial orientation as z-y-x "
              "intrinsic angles (phi, theta, psi): A = Rz(psi)·Ry(theta)·Rx(phi)",
              kind="vector", size=3),
        Param("gyro", "1", default=1.0, description="1: include the gyroscopic term "
              "ω × (Jω); 0: omit it (simplified body model)"),
        Param("g", "m/s^2", default=ZERO3, description="gravity (gx, gy, gz), set by "
              "`.gravity`", kind="vector", size=3),
    )
    states = (tuple(State(n, "m", True, f"centre of mass {n}") for n in "xyz")
              + tuple(State(f"q{i}", "1", True, f"orientation quaternion q{i}")
                      for i in range(4))
              + tuple(State(f"wb{a}", "rad/s", True, f"angular velocity in the body's own "
                            f"axes, {a} (Aᵀ·ω; what a body-mounted gyro reads)")
                      for a in "xyz"))
    outputs = (Output("T", "J", "kinetic energy ½m|V|² + ½ωᵀJω", kind="energy"),
               *(Output(f"H{a}", "N*m*s", f"angular momentum about the centre of mass, {a}")
                 for a in "xyz"),
               Output("U", "J", "potential energy in gravity, −m·g·r (zero at the origin)",
                      kind="energy"))
    # V, r, q, ω_b; the global ω is algebraic by (5) (differential while initialising)
    differential_vars = tuple(range(0, 3)) + tuple(range(6, NB))
    pattern = _pattern()
    # ω_b stands for ω in the local error test: it takes the speed label a joint gives ω
    body_rates = (WB, W)
    has_init_form = True             # (5) differentiated while initialising

    # --- set-up ------------------------------------------------------------------------
    @classmethod
    def check(cls, inst):
        prm = inst.params

        def fail(msg, name):
            raise ModelError(f"body {inst.name}: {msg}", inst.param_locs.get(name, inst.loc))

        given = [k for k in ORIENTATIONS if prm.get(k) is not None]
        if len(given) > 1:
            fail(f"give at most one orientation, got {' and '.join(given)}", given[1])
        if prm.get("q") is not None and not np.linalg.norm(prm["q"]) > 0:
            fail("q must not be zero", "q")
        if prm.get("rot") is not None and not np.linalg.norm(prm["rot"][:3]) > 0:
            fail("the rotation axis (ux, uy, uz) must not be zero", "rot")
        if not np.all(np.asarray(prm["J"]) > 0):
            got = ", ".join(f"{float(v):g}" for v in prm["J"])
            fail(f"the principal moments J must be positive, got ({got})", "J")
        moments = np.linalg.eigvalsh(_inertia(prm["J"], cls._get(prm, "Jp")))
        if not np.all(moments > 0):
            fail("the inertia tensor (J, Jp) is not positive definite", "Jp")
        # a rigid body's principal moments obey I1 <= I2 + I3 (each is a sum of two of
        # the mass's second moments, all of them >= 0)
        if moments[2] > (moments[0] + moments[1]) * (1 + TRIANGLE_RTOL):
            which = "Jp" if np.any(np.asarray(cls._get(prm, "Jp")) != 0) else "J"
            fail(f"no rigid body has these moments of inertia: the largest principal "
                 f"moment {moments[2]:.6g} exceeds the sum of the other two "
                 f"{moments[0]:.6g} + {moments[1]:.6g} (each must be <= the sum of the "
                 "other two)", which)

    @staticmethod
    def _get(prm: dict, name: str):
        """A parameter's value, or its declared default when absent."""
        value = prm.get(name)
        if value is None:
            value = next(p.default for p in Body.params if p.name == name)
        return value

    @classmethod
    def orientation(cls, prm: dict) -> np.ndarray:
        """The initial unit quaternion from q, rot or euler (identity if none)."""
        if prm.get("q") is not None:
            return quat.normalise(prm["q"])
        if prm.get("rot") is not None:
            return quat.from_axis_angle(prm["rot"][:3], prm["rot"][3])
        if prm.get("euler") is not None:
            return quat.from_euler(*prm["euler"])
        return np.array([1.0, 0.0, 0.0, 0.0])

    @classmethod
    def initial_state(cls, inst):
        prm = inst.params
        q = cls.orientation(prm)
        w = np.asarray(cls._get(prm, "w"), dtype=float)
        values = np.concatenate([cls._get(prm, "v"), w, cls._get(prm, "pos"), q,
                                 quat.dcm(q).T @ w])
        return {name: float(v) for name, v in zip(cls.variable_names(), values)}

    @classmethod
    def variable_names(cls) -> tuple:
        """The 16 local variables in order: vx vy vz wx wy wz x y z q0 q1 q2 q3 wbx wby
        wbz (the frame's 13, FRAME_VARS, then ω_b)."""
        return tuple(p.name for p in cls.ports) + tuple(s.name for s in cls.states)

    @classmethod
    def mass_properties(cls, inst):
        return float(inst.params["m"]), np.asarray(inst.params["J"], dtype=float)

    @classmethod
    def tied_states(cls, count, group=None):
        return np.ones(count)                           # |q| = 1 (kept by ``project``)

    @classmethod
    def rigid_body(cls, inst):
        prm = inst.params
        return RigidBody(float(prm["m"]), _inertia(prm["J"], cls._get(prm, "Jp")),
                         np.asarray(cls._get(prm, "pos"), dtype=float),
                         quat.dcm(cls.orientation(prm)),
                         np.asarray(cls._get(prm, "g"), dtype=float),
                         float(cls._get(prm, "gyro")) != 0.0)

    @classmethod
    def project(cls, xs: np.ndarray) -> np.ndarray:
        """States (N,10) = [x, y, z, q0..q3, ω_b] with q rescaled to |q| = 1 (sign kept;
        A(q) does not change, so neither does ω = A·ω_b)."""
        out = np.array(xs, dtype=float)
        out[:, 3:7] = quat.normalise(out[:, 3:7])
        return out

    @classmethod
    def sync_states(cls, x: np.ndarray) -> np.ndarray:
        """ω_b = A(q)ᵀ·ω from the frame's ω and q (N, 16), after the start-up moved them."""
        out = np.array(x, dtype=float)
        out[:, WB] = np.einsum("nji,nj->ni", quat.dcm(out[:, Q]), out[:, W])
        return out

    @classmethod
    def prepare(cls, instances):
        def stack(name):
            return np.array([np.asarray(cls._get(i.params, name), dtype=float)
                             for i in instances])
        return SimpleNamespace(m=stack("m"), Jc=_inertia(stack("J"), stack("Jp")),
                               gyro=stack("gyro"), g=stack("g"), init=False,
                               warmup=compiled.Warmup(NUMPY_CALL_SECONDS
                                                      + NUMPY_BODY_SECONDS * len(instances)))

    @classmethod
    def local_differential(cls, n_extra=0, group=None):
        mask = super().local_differential(n_extra, group)
        if group is not None and group.init:
            mask[W] = True               # (5) differentiated: ω' is solved for at t0
        return mask

    @classmethod
    def invariant_rows(cls, n_extra=0, group=None):
        rows = np.zeros(NB, dtype=bool)
        rows[WB] = True                  # (5): the error is measured along it, as along
        return rows                      # the joints' velocity rows that read ω

    @classmethod
    def invariant_residual(cls, t, x, xp, p):
        """Row (5) alone; compiled, the whole residual costs less than this row in numpy
        (its other rows are ignored)."""
        if not p.init and compiled.twin("body", p.warmup) is not None:
            return cls.residual(t, x, xp, p)
        F = np.zeros((x.shape[0], NB))
        F[:, WB] = x[:, WB] - np.einsum("nji,nj->ni", quat.dcm(x[:, Q]), x[:, W])   # (5)
        return F

    @classmethod
    def constrained_vars(cls, n_extra=0, group=None):
        mask = np.zeros(NB, dtype=bool)
        mask[W] = True                   # ω_b is tested in its place (an element that
        return mask                      # reads ω' makes ω differential too: a beam)

    @classmethod
    def sample_params(cls, rng):
        return {"m": float(rng.uniform(0.5, 2.0)), "J": rng.uniform(0.5, 2.0, 3),
                "Jp": rng.uniform(-0.1, 0.1, 3), "pos": rng.uniform(-1, 1, 3),
                "v": rng.uniform(-1, 1, 3), "w": rng.uniform(-1, 1, 3),
                "q": quat.normalise(rng.normal(size=4)), "gyro": 1.0,
                "g": rng.uniform(-10, 10, 3)}

    # --- kernels -----------------------------------------------------------------------
    @staticmethod
    def _twin_args(p) -> tuple:
        """The group's arrays as the compiled kernels take them after x and x'."""
        return p.m, p.Jc, p.gyro, p.g, p.init

    @classmethod
    def residual_kernel(cls, p):
        fast = compiled.settled("body", p.warmup)
        return None if fast is None else compiled.bound(fast.residual, *cls._twin_args(p))

    @classmethod
    def residual(cls, t, x, xp, p):
        fast = compiled.twin("body", p.warmup)
        if fast is not None:
            return fast.residual(x, xp, *cls._twin_args(p))
        w, q, wb, wbp = x[:, W], x[:, Q], x[:, WB], xp[:, WB]
        A = quat.dcm(q)
        Jwb = np.einsum("nij,nj->ni", p.Jc, wb)
        euler = np.einsum("nij,nj->ni", p.Jc, wbp) + p.gyro[:, None] * cross(wb, Jwb)
        F = np.empty((x.shape[0], NB))
        F[:, V] = p.m[:, None] * (xp[:, V] - p.g)                       # (1)
        F[:, W] = np.einsum("nij,nj->ni", A, euler)                     # (2)
        F[:, R] = xp[:, R] - x[:, V]                                    # (3)
        # (4) q' = ½ q ⊗ (0, ω_b) = ½ (−q_v·ω_b, q0·ω_b + q_v × ω_b)
        qv = q[:, 1:]
        F[:, 9] = xp[:, 9] + 0.5 * np.einsum("ni,ni->n", qv, wb)
        F[:, 10:13] = xp[:, 10:13] - 0.5 * (q[:, :1] * wb + cross(qv, wb))
        if p.init:                                                      # (5), differentiated
            F[:, WB] = wbp - np.einsum("nji,nj->ni", A, xp[:, W])
        else:                                                           # (5)
            F[:, WB] = wb - np.einsum("nji,nj->ni", A, w)
        return F

    @classmethod
    def jacobian(cls, t, x, xp, p):
        fast = compiled.twin("body", p.warmup)
        if fast is not None:
            return fast.jacobian(x, xp, *cls._twin_args(p))
        n = x.shape[0]
        q, wb, wbp = x[:, Q], x[:, WB], xp[:, WB]
        gyro = p.gyro[:, None, None]
        A, dA = quat.dcm(q), quat.dcm_dq(q)                             # dA: (N,3,3,4)
        At = np.swapaxes(A, -1, -2)
        dfdx, dfdxp = np.zeros((n, NB, NB)), np.zeros((n, NB, NB))
        eye3 = np.eye(3)
        # (1) m·V' − m·g
        dfdxp[:, V, V] = p.m[:, None, None] * eye3
        # (2) A·e, e = Jc·ω_b' + γ ω_b × (Jc·ω_b):  d/dω_b' = A·Jc;
        #     d/dω_b = γ A·(skew(ω_b)·Jc − skew(Jc·ω_b));  d/dq_k = dA_k·e
        Jwb = np.einsum("nij,nj->ni", p.Jc, wb)
        euler = np.einsum("nij,nj->ni", p.Jc, wbp) + p.gyro[:, None] * cross(wb, Jwb)
        dfdxp[:, W, WB] = A @ p.Jc
        dfdx[:, W, WB] = gyro * (A @ (skew(wb) @ p.Jc - skew(Jwb)))
        dfdx[:, W, Q] = np.einsum("nijk,nj->nik", dA, euler)
        # (3) r' − V
        dfdxp[:, R, R] = eye3
        dfdx[:, R, V] = -eye3
        # (4) q' − ½ L(q)·ω_b:  d/dω_b = −½ L;  d/dq_k = −½ dL_k·ω_b
        dfdxp[:, Q, Q] = np.eye(4)
        dfdx[:, Q, WB] = -0.5 * quat.omega_matrix(q)
        dfdx[:, Q, Q] = -0.5 * np.einsum("ijk,nj->nik", quat.OMEGA_MATRIX_DQ, wb)
        # (5) ω_b − Aᵀ·ω: d/dω_b = I, d/dω = −Aᵀ, d/dq_k = −dA_kᵀ·ω
        #     differentiated, ω_b' − Aᵀ·ω': the same entries in ω_b', ω' (and ω' for ω)
        (dfdxp if p.init else dfdx)[:, WB, WB] = eye3
        (dfdxp if p.init else dfdx)[:, WB, W] = -At
        dfdx[:, WB, Q] = -np.einsum("njik,nj->nik", dA, xp[:, W] if p.init else x[:, W])
        return dfdx, dfdxp

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        vel, w, A = x[..., V], x[..., W], quat.dcm(x[..., Q])          # x: (T, N, 16)
        H = np.einsum("tnij,njk,tnlk,tnl->tni", A, p.Jc, A, w)          # H = A·Jc·Aᵀ·ω
        T = 0.5 * p.m * np.sum(vel * vel, axis=-1) + 0.5 * np.sum(w * H, axis=-1)
        U = -p.m * np.sum(p.g * x[..., R], axis=-1)                      # −m g·r
        return np.concatenate([T[..., None], H, U[..., None]], axis=-1)
