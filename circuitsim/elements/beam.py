"""beam — one co-rotational 3D beam element (axial, torsion, two bendings) between two frames.

A flexible beam is a chain of these elements whose inner nodes are ordinary bodies
carrying the beam's mass (lumped, with rotary inertia: :func:`discretise` writes the
chain); docs/beam.md gives the formulation and its validation.

Ports
    frame1, frame2: bodies, or 0 (the fixed ground frame).
Parameters
    EA (N), GJ (N·m²), EIy, EIz (N·m²): axial, torsional and bending stiffnesses; EIy
        resists rotation of the section about its local y axis (deflection along local
        z), EIz about local z (deflection along local y). EIz defaults to EIy.
    eta (s): stiffness-proportional damping, each generalised force k·(m + eta·dm/dt)
        (default 0).
    at1, at2: (x, y, z) the element's end points on frame 1 and frame 2, global
        coordinates at t = 0 (m); default the frames' centres of mass.
    yaxis: the section's local y direction at t = 0 (global; made perpendicular to the
        axis); default global y, or global z for an element along y.
Equations
    At t = 0 the element frame E0 = [e1 e2 e3] (e1 = (P2 − P1)/l0 along the element,
    e2 from yaxis) is fixed in each end frame i as the triad ρ_i = A_i0ᵀ·E0 and the end
    point as x_i = A_i0ᵀ(P_i − r_i0). During the motion, A_i = A(q_i):
    (1) end triads t_ij = A_i·ρ_i[:, j] (j = 1, 2, 3), arms a_i = A_i·x_i,
        chord d = (r2 + a2) − (r1 + a1), l = |d|, c = d/l
    (2) deformation measures, each a rotation relative to the chord or between the end
        triads, exact to first order in the element's local rotations and zero for any
        rigid motion (so rotations of any size are exact):
          m0 = l − l0                          axial stretch
          m1 = ½(t13·t22 − t12·t23)            twist θx2 − θx1
          m2 = c·(t13 + t23)                   θy1 + θy2 (rotation of the ends about y)
          m3 = ½(t11·t23 − t13·t21)            θy2 − θy1
          m4 = −c·(t12 + t22)                  θz1 + θz2
          m5 = ½(t12·t21 − t11·t22)            θz2 − θz1
    (3) U = Σ ½·k_k·m_k², k = (EA, GJ, 3·EIy, EIy, 3·EIz, EIz)/l0: the cubic
        (Euler–Bernoulli) element's strain energy EI/l0·(2θ1² + 2θ1θ2 + 2θ2²) =
        EI/(2 l0)·(3(θ1 + θ2)² + (θ2 − θ1)²) per plane, the bar's and the torsion shaft's.
    (4) S_k = k_k·(m_k + eta·dm_k/dt),  g_d = Σ S_k ∂m_k/∂d,  g_ij = Σ S_k ∂m_k/∂t_ij
        (the rates from dd/dt = v2 + ω2 × a2 − v1 − ω1 × a1 and dt_ij/dt = ω_i × t_ij)
    (5) virtual work with δt_ij = δφ_i × t_ij, δd = δr2 + δφ2 × a2 − δr1 − δφ1 × a1:
        force and torque on frame 1:  F1 = g_d,   M1 = a1 × g_d − Σ_j t1j × g_1j
        force and torque on frame 2:  F2 = −g_d,  M2 = −a2 × g_d − Σ_j t2j × g_2j
        rows V, ω of frame i: −F_i, −M_i (flows = minus what the element applies)
    The axial force of (4) along the chord turning with the chord is the geometric
    (stress) stiffness: a tensioned beam stiffens (a spinning blade).
    Jacobian: by complex-step differentiation of (1)-(5) (each of the 26 frame
    variables perturbed by i·1e-30): exact to rounding, no truncation error.
Outputs
    B.l: chord length (m); B.N: axial force S0, tension positive (N); B.U: strain energy
    (3) (J).
Example
    ``beam E1 0 N1 EA=2.8e7 EIy=1.4e4 GJ=1.4e4 at1=(0, 0, 0) at2=(1, 0, 0)``
"""
from types import SimpleNamespace

import numpy as np

from ..errors import ModelError
from . import quaternion
from .base import ElementType, Output, Param, Port
from .frames import NV, Q, R, V, W, local_offset

NVARS = NROWS = 2 * NV
H_CS = 1e-30               # complex step: no subtraction, so any tiny step is exact
# (frame, column) pairs of the triad vectors each measure reads, with its coefficient;
# measure k's derivative with respect to t_ij is Σ coeff·(the other vector)
_PAIRS = {1: ((0, 2, 1, 1, 0.5), (0, 1, 1, 2, -0.5)),     # m1 = ½(t13·t22 − t12·t23)
          3: ((0, 0, 1, 2, 0.5), (0, 2, 1, 0, -0.5)),     # m3 = ½(t11·t23 − t13·t21)
          5: ((0, 1, 1, 0, 0.5), (0, 0, 1, 1, -0.5))}     # m5 = ½(t12·t21 − t11·t22)
_CHORD = {2: (2, 1.0), 4: (1, -1.0)}                      # m2 = c·(t13+t23), m4 = −c·(t12+t22)


def _cross(a, b):
    """a × b over leading axes; complex-safe."""
    return np.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
                     a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                     a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


def _dot(a, b):
    return np.sum(a * b, axis=-1)


def _kernel(x, k, eta, l0, x1, x2, rho1, rho2):
    """Measures m (…,6), generalised forces S (…,6) and the element's rows (…,26)."""
    A1, A2 = quaternion.dcm(x[..., 9:13]), quaternion.dcm(x[..., NV + 9:NV + 13])
    a1 = np.einsum("...ij,...j->...i", A1, x1)
    a2 = np.einsum("...ij,...j->...i", A2, x2)
    T = np.stack([np.einsum("...ij,...jk->...ki", A1, rho1),       # T[..., i, j] = t_ij
                  np.einsum("...ij,...jk->...ki", A2, rho2)], axis=-3)
    w = np.stack([x[..., W], x[..., NV + 3:NV + 6]], axis=-2)
    Tdot = _cross(w[..., :, None, :], T)                            # ω_i × t_ij
    d = x[..., NV + 6:NV + 9] + a2 - x[..., R] - a1                 # (1)
    ddot = (x[..., NV:NV + 3] + _cross(x[..., NV + 3:NV + 6], a2)
            - x[..., V] - _cross(x[..., W], a1))
    l = np.sqrt(_dot(d, d))
    c = d / l[..., None]
    cdot = (ddot - c * _dot(c, ddot)[..., None]) / l[..., None]
    shape = x.shape[:-1]
    m = np.zeros(shape + (6,), dtype=x.dtype)
    mdot = np.zeros_like(m)
    Gd = np.zeros(shape + (6, 3), dtype=x.dtype)                    # ∂m_k/∂d
    Gt = np.zeros(shape + (6, 2, 3, 3), dtype=x.dtype)              # ∂m_k/∂t_ij
    m[..., 0], mdot[..., 0], Gd[..., 0, :] = l - l0, _dot(c, ddot), c          # (2) m0
    for kk, pairs in _PAIRS.items():                                           # (2) m1 m3 m5
        for i, j, i2, j2, coef in pairs:
            u, v = T[..., i, j, :], T[..., i2, j2, :]
            m[..., kk] += coef * _dot(u, v)
            mdot[..., kk] += coef * (_dot(Tdot[..., i, j, :], v) + _dot(u, Tdot[..., i2, j2, :]))
            Gt[..., kk, i, j, :] += coef * v
            Gt[..., kk, i2, j2, :] += coef * u
    for kk, (j, sign) in _CHORD.items():                                       # (2) m2 m4
        s = T[..., 0, j, :] + T[..., 1, j, :]
        sdot = Tdot[..., 0, j, :] + Tdot[..., 1, j, :]
        m[..., kk] = sign * _dot(c, s)
        mdot[..., kk] = sign * (_dot(cdot, s) + _dot(c, sdot))
        Gd[..., kk, :] = sign * (s - c * _dot(c, s)[..., None]) / l[..., None]
        Gt[..., kk, 0, j, :] = Gt[..., kk, 1, j, :] = sign * c
    S = k * (m + eta[..., None] * mdot)                                        # (4)
    gd = np.einsum("...k,...ki->...i", S, Gd)
    gt = np.einsum("...k,...kjmi->...jmi", S, Gt)
    torque = np.sum(_cross(T, gt), axis=-2)                                    # Σ_j t_ij × g_ij
    out = np.zeros(shape + (NROWS,), dtype=x.dtype)
    out[..., V] = -gd                                                          # (5) −F1
    out[..., W] = -(_cross(a1, gd) - torque[..., 0, :])                        # −M1
    out[..., NV:NV + 3] = gd                                                   # −F2
    out[..., NV + 3:NV + 6] = _cross(a2, gd) + torque[..., 1, :]               # −M2
    return m, S, out, l


class Beam(ElementType):
    keyword = "beam"
    dissipating_store = True        # eta
    drawn_as = "spring"
    description = ("co-rotational 3D beam element (axial, torsion, bending; large "
                   "rotations) between two frames")
    ports = (Port("frame1", frame=True, description="first end frame (body or 0)"),
             Port("frame2", frame=True, description="second end frame (body or 0)"))
    params = (Param("EA", "N", description="axial stiffness", positive=True),
              Param("GJ", "N*m^2", description="torsional stiffness", positive=True),
              Param("EIy", "N*m^2", description="bending stiffness about the section's "
                    "local y axis", positive=True),
              Param("EIz", "N*m^2", default=None, description="bending stiffness about "
                    "the local z axis (default EIy)", positive=True),
              Param("eta", "s", default=0.0, description="stiffness-proportional damping "
                    "time", nonnegative=True),
              Param("at1", "m", default=None, description="end point on frame 1, global "
                    "coordinates at t = 0 (default: its centre of mass)",
                    kind="vector", size=3),
              Param("at2", "m", default=None, description="end point on frame 2, global "
                    "coordinates at t = 0 (default: its centre of mass)",
                    kind="vector", size=3),
              Param("yaxis", "1", default=None, description="the section's local y "
                    "direction at t = 0 (default global y; global z for an element along "
                    "y)", kind="vector", size=3))
    outputs = (Output("l", "m", "chord length"),
               Output("N", "N", "axial force (tension positive)"),
               Output("U", "J", "strain energy Σ ½·k·m²", kind="energy"))

    @classmethod
    def local_pattern(cls, n_extra=0, group=None):
        mask = np.zeros((NROWS, NVARS), dtype=bool)
        mask[0:6, :] = mask[NV:NV + 6, :] = True      # forces and torques on both frames
        return mask

    @classmethod
    def link(cls, inst, frames):
        prm = inst.params
        f1, f2 = frames[inst.nodes[0]], frames[inst.nodes[1]]
        points = []
        for i, f in ((1, f1), (2, f2)):
            at = prm.get(f"at{i}")
            centre = np.array([f[k] for k in ("x", "y", "z")], dtype=float)
            points.append(centre if at is None else np.asarray(at, dtype=float))
        axis = points[1] - points[0]
        l0 = float(np.linalg.norm(axis))
        if not l0 > 0:
            raise ModelError(f"beam {inst.name}: its two end points coincide", inst.loc)
        e1 = axis / l0
        y = prm.get("yaxis")
        if y is None:
            y = np.array([0.0, 1.0, 0.0]) if abs(e1[1]) < 0.9 else np.array([0.0, 0.0, 1.0])
        y = np.asarray(y, dtype=float) - np.dot(y, e1) * e1
        if not np.linalg.norm(y) > 1e-9:
            raise ModelError(f"beam {inst.name}: yaxis is parallel to the beam",
                             inst.param_locs.get("yaxis", inst.loc))
        e2 = y / np.linalg.norm(y)
        E0 = np.column_stack([e1, e2, np.cross(e1, e2)])
        for i, (f, point) in enumerate(((f1, points[0]), (f2, points[1])), start=1):
            q = np.array([f[k] for k in ("q0", "q1", "q2", "q3")])
            prm[f"x{i}"] = local_offset(f, point)
            prm[f"rho{i}"] = quaternion.dcm(q).T @ E0
        prm["l0"] = l0

    @classmethod
    def prepare(cls, instances):
        def stack(name, default=None):
            return np.array([i.params[name] if i.params.get(name) is not None
                             else i.params[default] for i in instances], dtype=float)
        l0 = stack("l0")
        EA, GJ, EIy = stack("EA"), stack("GJ"), stack("EIy")
        EIz = stack("EIz", "EIy")
        k = np.stack([EA, GJ, 3 * EIy, EIy, 3 * EIz, EIz], axis=-1) / l0[:, None]  # (3)
        return SimpleNamespace(k=k, l0=l0, eta=stack("eta"), x1=stack("x1"),
                               x2=stack("x2"), rho1=stack("rho1"), rho2=stack("rho2"))

    @classmethod
    def residual(cls, t, x, xp, p):
        return _kernel(x, p.k, p.eta, p.l0, p.x1, p.x2, p.rho1, p.rho2)[2]

    @classmethod
    def jacobian(cls, t, x, xp, p):
        # complex step: dF/dx_j = Im F(x + i·h·e_j)/h, all 26 columns in one batch
        xc = x[:, None, :] + 1j * H_CS * np.eye(NVARS)[None]
        F = _kernel(xc, p.k[:, None], p.eta[:, None], p.l0[:, None], p.x1[:, None],
                    p.x2[:, None], p.rho1[:, None], p.rho2[:, None])[2]
        J = np.ascontiguousarray(np.swapaxes(F.imag, 1, 2)) / H_CS   # (N, rows, vars)
        return J, np.zeros_like(J)

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        m, S, _, l = _kernel(x, p.k, p.eta, p.l0, p.x1, p.x2, p.rho1, p.rho2)
        U = 0.5 * np.sum(p.k * m * m, axis=-1)
        return np.stack([l, S[..., 0], U], axis=-1)

    @classmethod
    def sample_params(cls, rng):
        def rotation():
            return quaternion.dcm(quaternion.normalise(rng.normal(size=4)))
        return {"EA": 80.0, "GJ": 3.0, "EIy": 5.0, "EIz": 7.0, "eta": 0.3,
                "x1": rng.uniform(-1, 1, 3), "x2": rng.uniform(-1, 1, 3),
                "rho1": rotation(), "rho2": rotation(), "l0": 0.8}


def discretise(name: str, frame1: str, frame2: str | None, p1, p2, n: int, *, EA: float,
               GJ: float, EIy: float, EIz: float | None = None, rhoA: float,
               rhoIy: float, rhoIz: float | None = None, rhoJ: float | None = None,
               eta: float = 0.0, yaxis=None) -> str:
    """Netlist lines of a beam from point p1 on frame1 to point p2 on frame2 as n
    ``beam`` elements. The inner nodes are bodies ``<name>_1 .. <name>_<n-1>`` at
    p1 + i·(p2 − p1)/n carrying the mass lumped on them: ρA·h (h = L/n) and the rotary
    inertia of the length h, h·(ρJ, ρIy, ρIz) in the section's axes (ρJ default
    ρIy + ρIz, the polar moment). ``frame2`` None: a free end, the body ``<name>_<n>``
    at p2 with half of that (ρA·h/2). The end frames get no mass from here: a body
    written as frame carries the half-element next to it itself."""
    p1, p2 = np.asarray(p1, dtype=float), np.asarray(p2, dtype=float)
    rhoIz = rhoIy if rhoIz is None else rhoIz
    rhoJ = rhoIy + rhoIz if rhoJ is None else rhoJ
    e1 = (p2 - p1) / np.linalg.norm(p2 - p1)
    y = (np.array([0.0, 1.0, 0.0]) if abs(e1[1]) < 0.9 else np.array([0.0, 0.0, 1.0])) \
        if yaxis is None else np.asarray(yaxis, dtype=float)
    e2 = y - np.dot(y, e1) * e1
    e2 /= np.linalg.norm(e2)
    E0 = np.column_stack([e1, e2, np.cross(e1, e2)])
    h = float(np.linalg.norm(p2 - p1)) / n

    def fmt(v):
        return "(" + ", ".join(f"{c:.17g}" for c in v) + ")"

    def node(i, share):
        Jg = E0 @ np.diag(share * h * np.array([rhoJ, rhoIy, rhoIz])) @ E0.T
        return (f"body {name}_{i} m={share * rhoA * h:.17g} J={fmt(np.diag(Jg))} "
                f"Jp={fmt((Jg[0, 1], Jg[0, 2], Jg[1, 2]))} pos={fmt(p1 + i * h * e1)}")

    lines = [node(i, 1.0) for i in range(1, n)]
    if frame2 is None:
        frame2 = f"{name}_{n}"
        lines.append(node(n, 0.5))
    stiff = f"EA={EA:.17g} GJ={GJ:.17g} EIy={EIy:.17g}" + (
        "" if EIz is None else f" EIz={EIz:.17g}") + (f" eta={eta:.17g}" if eta else "") + (
        f" yaxis={fmt(e2)}")
    frames = [frame1] + [f"{name}_{i}" for i in range(1, n)] + [frame2]
    for i in range(n):
        lines.append(f"beam {name}{i + 1} {frames[i]} {frames[i + 1]} {stiff} "
                     f"at1={fmt(p1 + i * h * e1)} at2={fmt(p1 + (i + 1) * h * e1)}")
    return "\n".join(lines) + "\n"
