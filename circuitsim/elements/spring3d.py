"""spring3d — linear spring–damper between a point of frame 1 and a point of frame 2.

Ports
    frame1, frame2: bodies, or 0 (the fixed ground frame).
Parameters
    k: stiffness (N/m, nonnegative, required).
    c: damping along the line of action (N·s/m, default 0).
    L0: free length (m); default: the initial distance between the two points.
    at1, at2: (x, y, z) attachment points on frame 1 and frame 2, global coordinates at
        t = 0 (m); they move with their frames. Default: the centre of mass of the frame
        (the origin for the ground frame).
Equations
    x_i fixed in frame i (computed once from at_i and the initial pose), r_i = A(q_i)·x_i
    the arm from body i's centre of mass to its attachment point, p_i its position:
    (1) d = (p2 + r2) − (p1 + r1),  L = sqrt(d·d + ε²),  u = d / L
    (2) dL/dt = u·(v_P2 − v_P1),  v_Pi = V_i + ω_i × r_i
    (3) f = k·(L − L0) + c·dL/dt                  (tension, positive when stretched)
    (4) F2 = −f·u (force on frame 2),  F1 = −F2  (force on frame 1)
    rows V of frame 2: −F2;  rows ω of frame 2: −r2 × F2     (flows = minus what it applies)
    rows V of frame 1: +F2;  rows ω of frame 1: +r1 × F2
    The kinematic rows of both frames are zero. The element has no states of its own and
    no time derivative appears: dL/dt is formed from the frames' velocities, so the
    Jacobian has a dF/dx block only.
    Guard against L → 0: when the two points coincide the direction u is undefined. L is
    regularised as sqrt(d·d + ε²) with ε = 1e-9 m (a smooth floor, so the Jacobian stays
    continuous); at coincidence u = 0 and the spring exerts no force. Away from it the
    change in L is below ε²/(2L), i.e. 5e-16 m at L = 1 mm.
Sign convention
    f > 0 in tension: the spring pulls the two points towards each other (F2 = −f·u on
    frame 2, u pointing from the point of frame 1 to that of frame 2; F1 = +f·u on
    frame 1); as flows into the frames the forces enter their rows negated
    (conventions.md §1, §3).
Outputs
    S.L: the length L (m). S.f: the tension f of (3) (N). S.U: the stored potential
    energy ½·k·(L − L0)² (J).
Example
    ``spring3d S1 0 B1 k=100 c=0.5 at1=(0, 0, 1) at2=(0, 0, 0.5)``
"""
from types import SimpleNamespace

import numpy as np

from . import quaternion
from .base import ElementType
from .declarations import Output, Param, Port
from .frames import NV, Q, R, V, W, arm, local_offset, point_params, skew

EPS = 1e-9                 # m: smooth floor of the length (equation (1))
NVARS = NROWS = 2 * NV


def _cross(a, b):
    """a × b over leading axes (…,3); np.cross is several times slower on small arrays."""
    out = np.empty(np.broadcast_shapes(a.shape, b.shape))
    out[..., 0] = a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1]
    out[..., 1] = a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2]
    out[..., 2] = a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]
    return out


def _arm(x, offset, x_local):
    """r = A(q)·x_l for the frame at ``offset`` (no derivative: cheaper than frames.arm)."""
    return np.einsum("...ij,...j->...i", quaternion.dcm(x[..., offset + 9:offset + 13]),
                     x_local)


def _mm(M, N):
    return np.einsum("...ij,...jk->...ik", M, N)


class Spring3D(ElementType):
    keyword = "spring3d"
    dissipating_store = True        # c·dL/dt
    drawn_as = "spring"
    description = "linear spring-damper between a point of frame 1 and a point of frame 2"
    ports = (Port("frame1", frame=True, description="first frame (body or 0)"),
             Port("frame2", frame=True, description="second frame (body or 0)"))
    params = (Param("k", "N/m", description="stiffness", nonnegative=True),
              Param("c", "N*s/m", default=0.0, description="damping along the line of "
                    "action", nonnegative=True),
              Param("L0", "m", default=None, description="free length (default: the "
                    "initial distance of the two points)", nonnegative=True),
              *point_params("attachment point"))
    outputs = (Output("L", "m", "length: distance between the two attachment points"),
               Output("f", "N", "tension k·(L − L0) + c·dL/dt (positive when stretched)"),
               Output("U", "J", "potential energy ½·k·(L − L0)²", kind="energy"))

    @classmethod
    def local_pattern(cls, n_extra=0, group=None):
        mask = np.zeros((NROWS, NVARS), dtype=bool)
        mask[0:6, :] = True                 # forces and torques of frame 1
        mask[NV:NV + 6, :] = True           # ... and of frame 2
        return mask

    @classmethod
    def link(cls, inst, frames):
        f1, f2 = frames[inst.nodes[0]], frames[inst.nodes[1]]
        points = []
        for i, f in ((1, f1), (2, f2)):
            at = inst.params.get(f"at{i}")
            centre = np.array([f[k] for k in ("x", "y", "z")], dtype=float)
            point = centre if at is None else np.asarray(at, dtype=float)
            inst.params[f"x{i}"] = local_offset(f, point)
            points.append(point)
        if inst.params.get("L0") is None:
            inst.params["L0"] = float(np.linalg.norm(points[1] - points[0]))

    @classmethod
    def prepare(cls, instances):
        # built by hand: at1/at2 may be given on some instances of a group and not on
        # others, which the generic stacking cannot hold (link turned them into x1/x2)
        def stack(name, default):
            return np.array([default if i.params.get(name) is None else i.params[name]
                             for i in instances], dtype=float)
        return SimpleNamespace(k=stack("k", 0.0), c=stack("c", 0.0), L0=stack("L0", 0.0),
                               x1=stack("x1", np.zeros(3)), x2=stack("x2", np.zeros(3)))

    @staticmethod
    def _kinematics(x, p, r1, r2):
        """d, L, u, relative point velocity and dL/dt over leading axes (…)."""
        d = x[..., NV + 6:NV + 9] + r2 - x[..., R] - r1                         # (1)
        L = np.sqrt(np.sum(d * d, axis=-1) + EPS * EPS)
        u = d / L[..., None]
        dv = (x[..., NV:NV + 3] + _cross(x[..., NV + 3:NV + 6], r2)
              - x[..., V] - _cross(x[..., W], r1))
        Ldot = np.sum(u * dv, axis=-1)                                          # (2)
        return d, L, u, dv, Ldot

    @classmethod
    def residual(cls, t, x, xp, p):
        r1, r2 = _arm(x, 0, p.x1), _arm(x, NV, p.x2)
        _, L, u, _, Ldot = cls._kinematics(x, p, r1, r2)
        f = p.k * (L - p.L0) + p.c * Ldot                                       # (3)
        F2 = -f[:, None] * u                                                    # (4)
        out = np.zeros((x.shape[0], NROWS))
        out[:, V] = F2
        out[:, W] = _cross(r1, F2)
        out[:, NV:NV + 3] = -F2
        out[:, NV + 3:NV + 6] = -_cross(r2, F2)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        n = x.shape[0]
        r1, dr1 = arm(x, 0, p.x1)
        r2, dr2 = arm(x, NV, p.x2)
        d, L, u, dv, Ldot = cls._kinematics(x, p, r1, r2)
        eye = np.broadcast_to(np.eye(3), (n, 3, 3))
        # derivatives (n, 3, NVARS) of d and of the relative point velocity dv
        Dd = np.zeros((n, 3, NVARS))
        Dd[:, :, R] = -eye
        Dd[:, :, Q] = -dr1
        Dd[:, :, NV + 6:NV + 9] = eye
        Dd[:, :, NV + 9:NV + 13] = dr2
        Dv = np.zeros((n, 3, NVARS))
        Dv[:, :, V] = -eye
        Dv[:, :, W] = skew(r1)                                  # −ω1 × r1 = r1 × ω1
        Dv[:, :, Q] = -_mm(skew(x[:, W]), dr1)
        Dv[:, :, NV:NV + 3] = eye
        Dv[:, :, NV + 3:NV + 6] = -skew(r2)
        Dv[:, :, NV + 9:NV + 13] = _mm(skew(x[:, NV + 3:NV + 6]), dr2)
        P = (eye - np.einsum("ni,nj->nij", u, u)) / L[:, None, None]   # du/dd
        Du = _mm(P, Dd)
        DL = np.einsum("ni,nij->nj", u, Dd)
        DLdot = np.einsum("ni,nij->nj", dv, Du) + np.einsum("ni,nij->nj", u, Dv)
        f = p.k * (L - p.L0) + p.c * Ldot
        Df = p.k[:, None] * DL + p.c[:, None] * DLdot
        F2 = -f[:, None] * u
        DF2 = -np.einsum("ni,nj->nij", u, Df) - f[:, None, None] * Du
        J = np.zeros((n, NROWS, NVARS))
        J[:, V] = DF2
        J[:, W] = _mm(skew(r1), DF2)                            # d(r1 × F2) = r1 × dF2
        J[:, W, Q] -= _mm(skew(F2), dr1)                        #          + dr1 × F2
        J[:, NV:NV + 3] = -DF2
        J[:, NV + 3:NV + 6] = -_mm(skew(r2), DF2)
        J[:, NV + 3:NV + 6, NV + 9:NV + 13] += _mm(skew(F2), dr2)
        return J, np.zeros_like(J)

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        r1, r2 = _arm(x, 0, p.x1), _arm(x, NV, p.x2)            # x: (T, N, NVARS)
        _, L, _, _, Ldot = cls._kinematics(x, p, r1, r2)
        stretch = L - p.L0
        f = p.k * stretch + p.c * Ldot
        U = 0.5 * p.k * stretch * stretch
        return np.stack([L, f, U], axis=-1)

    @classmethod
    def sample_params(cls, rng):
        return {"k": 50.0, "c": 0.7, "L0": 0.4, "x1": rng.uniform(-1, 1, 3),
                "x2": rng.uniform(-1, 1, 3)}
