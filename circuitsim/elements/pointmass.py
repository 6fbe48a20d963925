"""pointmass — a mass without rotational inertia, fixed at a point of a body.

Ports
    body: the body carrying the mass (not the ground).
Parameters
    m: mass (kg, positive).
    at: (x, y, z) the mass's point P (m), global coordinates at t = 0 (required); it
        moves with the body. atframe=body: at is written in the body's frame, measured
        from its centre of mass.
    g: gravity (m/s²), set from ``.gravity`` unless written.
Equations
    x_l fixed in the body (from at and the body's initial pose), r = A(q)·x_l the arm
    from the body's centre of mass c to P; V, ω the body's velocity and angular
    velocity (global), V' and ω' their time derivatives:
    (1) a_P = V' + ω' × r + ω × (ω × r)      acceleration of P
    (2) f = m·(a_P − g)                      minus the force the mass applies to the body
                                             (d'Alembert's −m·a_P and its weight m·g)
    (3) rows V of the body:  f
    (4) rows ω of the body:  r × f           (about the centre of mass)
    The body's kinematic rows are zero. The body moves exactly as the rigid body of its
    own mass with the point mass added (combined mass, centre of mass and parallel-axis
    inertia), while its recorded position stays the centre of mass of the body alone.
    Jacobian, with S(a) the matrix of a × (skew), dr/dq = dA/dq·x_l:
      d(3)/dV' = m·I,  d(3)/dω' = −m·S(r),  d(3)/dω = −m·(S(ω)·S(r) + S(ω × r)),
      d(3)/dq = m·(S(ω') + S(ω)²)·dr/dq;  d(4) = S(r)·d(3), plus −S(f)·dr/dq in q.
Sign convention
    f is the flow into the body, minus the force F = m·g − m·a_P the mass applies to
    it (conventions.md §1, §3): on a free body under gravity f = m·(a_P − g) = 0 when
    the body falls freely (a_P = g), and it does, with or without point masses.
Outputs
    P.x, P.y, P.z: position of the point (m); P.vx, P.vy, P.vz: its velocity V + ω × r
    (m/s); P.T = ½·m·|v_P|² (J), kinetic energy; P.U = −m·g·r_P (J), potential energy
    in gravity (zero at the origin, as a body's).
Example
    ``pointmass Ball1 Arm1 m=5 at=(0.3, 0, 0.2)``
"""
from types import SimpleNamespace

import numpy as np

from ..errors import ModelError
from ..runtime.names import GROUND
from . import compiled
from .base import ElementType
from .declarations import REQUIRED, Output, Param, Port
from .frames import NV, Q, R, V, W, arm, cross, local_offset, skew
from .protocols import BoundResidualProtocol

ZERO3 = (0.0, 0.0, 0.0)
AT_FRAMES = ("global", "body")


def _mm(a, b):
    return np.einsum("...ij,...jk->...ik", a, b)


def _mv(a, b):
    return np.einsum("...ij,...j->...i", a, b)


NUMPY_CALL_SECONDS = 5e-5        # a numpy kernel's call on a few instances (the warm-up)


class PointMass(BoundResidualProtocol, ElementType):
    keyword = "pointmass"
    description = "mass without rotational inertia fixed at a point of a body"
    ports = (Port("body", frame=True, description="the body carrying the mass"),)
    uses_gravity = True
    params = (Param("m", "kg", description="mass", positive=True),
              Param("at", "m", default=REQUIRED, description="the mass's point: global "
                    "coordinates at t = 0, or the body's frame with atframe=body",
                    kind="vector", size=3),
              Param("atframe", "1", default="global", description="coordinates of at: "
                    "global at t = 0, or body = the body's frame from its centre of mass",
                    kind="choice", choices=AT_FRAMES),
              Param("g", "m/s^2", default=ZERO3, description="gravity (gx, gy, gz), set by "
                    "`.gravity`", kind="vector", size=3))
    outputs = (*(Output(a, "m", f"position of the point, {a}") for a in "xyz"),
               *(Output(f"v{a}", "m/s", f"velocity of the point, {a}") for a in "xyz"),
               Output("T", "J", "kinetic energy ½·m·|v_P|²", kind="energy"),
               Output("U", "J", "potential energy in gravity, −m·g·r_P (zero at the "
                      "origin)", kind="energy"))
    # (1) reads V' and ω' of the body: its ω becomes differential (a body alone keeps
    # it algebraic, ω = A·ω_b); ω stays out of the error test, ω_b is tested for it
    differential_vars = tuple(range(0, 6))
    pattern = np.zeros((NV, NV), dtype=bool)
    pattern[0:6, 0:6] = pattern[0:6, Q] = True       # (3), (4) in V', ω', ω and q

    @classmethod
    def check(cls, inst):
        if inst.nodes[0] == GROUND:
            raise ModelError(f"pointmass {inst.name}: its frame is the ground 0, where a "
                             "mass does nothing; attach it to a body", inst.loc)

    @classmethod
    def link(cls, inst, frames):
        state = frames[inst.nodes[0]]
        at = np.asarray(inst.params["at"], dtype=float)
        if inst.params.get("atframe") == "body":
            at = np.array([state[k] for k in ("x", "y", "z")]) + state["A"] @ at
        inst.params["x_local"] = local_offset(state, at)

    @classmethod
    def prepare(cls, instances):
        def stack(name):
            return np.array([i.params[name] for i in instances], dtype=float)
        return SimpleNamespace(m=stack("m"), g=stack("g"), x_local=stack("x_local"),
                               warmup=compiled.Warmup(NUMPY_CALL_SECONDS))

    @staticmethod
    def _twin_args(p) -> tuple:
        """The group's arrays as the compiled kernels take them after x and x'."""
        return p.m, p.g, p.x_local

    @classmethod
    def residual_kernel(cls, p):
        fast = compiled.settled("pointmass", p.warmup)
        return None if fast is None else compiled.bound(fast.residual, *cls._twin_args(p))

    @classmethod
    def sample_params(cls, rng):
        return {"m": float(rng.uniform(0.5, 5.0)), "x_local": rng.uniform(-1, 1, 3),
                "g": rng.uniform(-10, 10, 3)}

    @staticmethod
    def _force(x, xp, p, r):
        """f of (2) over leading axes."""
        w, wp = x[..., W], xp[..., W]
        a = xp[..., V] + cross(wp, r) + cross(w, cross(w, r))                  # (1)
        return p.m[..., None] * (a - p.g)                                       # (2)

    @classmethod
    def residual(cls, t, x, xp, p):
        fast = compiled.twin("pointmass", p.warmup)
        if fast is not None:
            return fast.residual(x, xp, *cls._twin_args(p))
        r, _ = arm(x, 0, p.x_local)
        f = cls._force(x, xp, p, r)
        out = np.zeros((x.shape[0], NV))
        out[:, V] = f                                                           # (3)
        out[:, W] = cross(r, f)                                                 # (4)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        fast = compiled.twin("pointmass", p.warmup)
        if fast is not None:
            return fast.jacobian(x, xp, *cls._twin_args(p))
        n = x.shape[0]
        r, dr = arm(x, 0, p.x_local)
        f = cls._force(x, xp, p, r)
        m = p.m[:, None, None]
        Sr, Sw = skew(r), skew(x[:, W])
        # derivatives of f (3, nvars) in x and in x'
        Dfx, Dfp = np.zeros((n, 3, NV)), np.zeros((n, 3, NV))
        Dfp[:, :, V] = m * np.eye(3)
        Dfp[:, :, W] = -m * Sr                                   # ω' × r = −r × ω'
        Dfx[:, :, W] = -m * (_mm(Sw, Sr) + skew(cross(x[:, W], r)))
        Dfx[:, :, Q] = m * _mm(skew(xp[:, W]) + _mm(Sw, Sw), dr)
        dfdx, dfdxp = np.zeros((n, NV, NV)), np.zeros((n, NV, NV))
        dfdx[:, V], dfdxp[:, V] = Dfx, Dfp                                      # (3)
        dfdx[:, W], dfdxp[:, W] = _mm(Sr, Dfx), _mm(Sr, Dfp)                    # (4)
        dfdx[:, W, Q] -= _mm(skew(f), dr)                        # dr × f = −f × dr
        return dfdx, dfdxp

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        r, _ = arm(x, 0, p.x_local)                              # x: (T, N, NV)
        pos = x[..., R] + r
        vel = x[..., V] + cross(x[..., W], r)
        T = 0.5 * p.m * np.sum(vel * vel, axis=-1)
        U = -p.m * np.sum(p.g * pos, axis=-1)
        return np.concatenate([pos, vel, T[..., None], U[..., None]], axis=-1)
