"""beam — one co-rotational 3D beam element (axial, torsion, two bendings) between two frames.

A flexible beam is a chain of these elements whose inner nodes are ordinary bodies
carrying the beam's mass (lumped, with rotary inertia). Written with ``n=`` one line
is the whole chain: n elements <name>1..<name>n and the bodies <name>_1..<name>_(n-1)
between them (and the free end <name>_n when one frame is written); :func:`discretise`
writes the same lines from Python. docs/beam.md gives the formulation and its
validation.

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
    mass: lumped (default: the element is massless, its end frames carry the mass) or
        consistent (with rhoA (kg/m), rhoIy, rhoIz, rhoJ (kg·m): equation (7)).
    stiffening: on (default) or off (with ref, a frame: equation (6)).
    n: the line writes a whole beam of n elements (then rhoA, rhoIy, at1 and at2 are
        needed; the chain's nodes carry the lumped mass): ``beam B hub n=8 EA=2.8e7
        GJ=1.4e4 EIy=1.4e4 rhoA=1.2 rhoIy=6e-4 at1=(0, 0, 0) at2=(10, 0, 0)`` is a beam
        of 8 elements from the frame hub to a free end B_8.
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
    (6) stiffening=off: m0 = e·d − l0 along e = A(q_ref)·A_ref0ᵀ·e1 (the element's
        initial axis carried by the frame ref) instead of the chord: a deflection no
        longer turns the tension, the linear floating-frame model; the element reads
        ref's ω and q but does not load it (use a frame whose motion is prescribed).
    (7) mass=consistent: ΔM = M_c − M_l (12×12, :func:`consistent_mass` less
        :func:`lumped_mass`, the halves the end frames carry) in the co-rotated axes
        E = [c, e2, e3] (e2: the end triads' mean y axis normal to c); with the end
        points' accelerations a_Pi = V̇i + ω̇i × a_i + ωi × (ωi × a_i) and ω̇i, f =
        ΔM·(Eᵀa_P1, Eᵀω̇1, Eᵀa_P2, Eᵀω̇2) enters frame i's rows as force E·f_i and
        moment E·μ_i + a_i × E·f_i (the terms of E's own rate are left out).
    Jacobian: by complex-step differentiation of (1)-(7) (each frame variable, and
    each of their derivatives for (7), perturbed by i·1e-30): exact to rounding, no
    truncation error.
Sign convention
    F_i, M_i of (5): the force and the torque (about frame i's centre of mass) the
    element applies to frame i; as flows into the frame they enter its rows negated
    (conventions.md §1, §3). m0 > 0 is a stretch: the axial force S0 > 0 is a tension
    that pulls the two end points towards each other.
Outputs
    B.l: chord length (m); B.N: axial force S0, tension positive (N); B.U: strain energy
    (3) (J).
Example
    ``beam E1 0 N1 EA=2.8e7 EIy=1.4e4 GJ=1.4e4 at1=(0, 0, 0) at2=(1, 0, 0)``
"""
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from ..errors import ModelError
from ..runtime.names import GROUND
from . import compiled, quaternion
from .base import ElementType
from .declarations import REQUIRED, Output, Param, Port
from .frames import NV, Q, R, V, W, local_offset, point_params

NVARS = NROWS = 2 * NV
MASS_MODELS = ("lumped", "consistent")
MAX_ELEMENTS_PER_BEAM = 10_000      # n= above this is refused (a typo, not a beam)
H_CS = 1e-30               # complex step: no subtraction, so any tiny step is exact
# (frame, column) pairs of the triad vectors each measure reads, with its coefficient;
# measure k's derivative with respect to t_ij is Σ coeff·(the other vector)
_PAIRS = {1: ((0, 2, 1, 1, 0.5), (0, 1, 1, 2, -0.5)),     # m1 = ½(t13·t22 − t12·t23)
          3: ((0, 0, 1, 2, 0.5), (0, 2, 1, 0, -0.5)),     # m3 = ½(t11·t23 − t13·t21)
          5: ((0, 1, 1, 0, 0.5), (0, 0, 1, 1, -0.5))}     # m5 = ½(t12·t21 − t11·t22)
_CHORD = {2: (2, 1.0), 4: (1, -1.0)}                      # m2 = c·(t13+t23), m4 = −c·(t12+t22)
# a residual or Jacobian call in numpy, on average over a run's calls (about one
# Jacobian to 13 residuals): fixed, and per element (flexible_arm.cir, N = 6: 0.44 ms;
# the compiled twin, mass=lumped, costs ~1/60 of a residual, ~1/8 of a Jacobian)
NUMPY_CALL_SECONDS, NUMPY_ELEMENT_SECONDS = 3e-4, 2e-5


def _cross(a, b):
    """a × b over leading axes; complex-safe."""
    return np.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
                     a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                     a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


def _dot(a, b):
    return np.sum(a * b, axis=-1)


def _geometry(x, x1, x2, rho1, rho2):
    """End triads T[..., i, j] = t_ij, arms a1, a2 and chord d of equations (1)."""
    A1, A2 = quaternion.dcm(x[..., 9:13]), quaternion.dcm(x[..., NV + 9:NV + 13])
    a1 = np.einsum("...ij,...j->...i", A1, x1)
    a2 = np.einsum("...ij,...j->...i", A2, x2)
    T = np.stack([np.einsum("...ij,...jk->...ki", A1, rho1),       # T[..., i, j] = t_ij
                  np.einsum("...ij,...jk->...ki", A2, rho2)], axis=-3)
    d = x[..., NV + 6:NV + 9] + a2 - x[..., R] - a1                 # (1)
    return T, a1, a2, d


def _reference_axis(x, rref):
    """stiffening=off: the element's initial axis carried by the reference frame, e =
    A(q_ref)·rref, and its rate ω_ref × e; the reference frame's ω and q are the local
    variables after the two frames' (none: the ground, e = rref)."""
    if x.shape[-1] == NVARS:
        return rref, np.zeros_like(rref)
    e = np.einsum("...ij,...j->...i", quaternion.dcm(x[..., NVARS + 3:NVARS + 7]), rref)
    return e, _cross(x[..., NVARS:NVARS + 3], e)


def _kernel(x, k, eta, l0, x1, x2, rho1, rho2, rref=None):
    """Measures m (…,6), generalised forces S (…,6) and the element's rows (…,26).
    ``rref`` given (stiffening=off): m0 = e·d − l0 along the reference axis e instead
    of the chord's stretch l − l0."""
    T, a1, a2, d = _geometry(x, x1, x2, rho1, rho2)
    w = np.stack([x[..., W], x[..., NV + 3:NV + 6]], axis=-2)
    Tdot = _cross(w[..., :, None, :], T)                            # ω_i × t_ij
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
    if rref is not None:                                                       # (6)
        e, edot = _reference_axis(x, rref)
        m[..., 0], mdot[..., 0] = _dot(e, d) - l0, _dot(e, ddot) + _dot(edot, d)
        Gd[..., 0, :] = e
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


def consistent_mass(l, rhoA, rhoJ, rhoIy, rhoIz):
    """The 12×12 consistent mass matrix of the cubic (Euler–Bernoulli) element in its own
    axes, degrees of freedom (u, v, w, θx, θy, θz) at end 1 then end 2 (arrays of N
    elements -> (N, 12, 12)): M = ∫ ρA·Nᵀ N + ρI·N'ᵀ N' dx over the linear (axial,
    torsion) and cubic Hermite (bending) shape functions,
      axial, torsion   ρA·l/6·[[2, 1], [1, 2]],  ρJ·l/6·[[2, 1], [1, 2]]
      bending (v, θz)  ρA·l/420·[[156, 22l, 54, −13l], [22l, 4l², 13l, −3l²],
                                 [54, 13l, 156, −22l], [−13l, −3l², −22l, 4l²]]
                       + ρIz/(30l)·[[36, 3l, −36, 3l], [3l, 4l², −3l, −l²],
                                    [−36, −3l, 36, −3l], [3l, −l², −3l, 4l²]]
      bending (w, θy)  the same with ρIy and θ → −θ (θy = −dw/dx)."""
    l, rhoA, rhoJ, rhoIy, rhoIz = np.broadcast_arrays(*map(np.asarray, (l, rhoA, rhoJ,
                                                                        rhoIy, rhoIz)))
    M = np.zeros(l.shape + (12, 12))
    pair = np.array([[2.0, 1.0], [1.0, 2.0]]) / 6
    M[..., [[0], [6]], [0, 6]] = (rhoA * l)[..., None, None] * pair
    M[..., [[3], [9]], [3, 9]] = (rhoJ * l)[..., None, None] * pair

    def plane(rho_i, sign):
        ll = l[..., None, None]
        one, s = np.ones_like(ll), sign * ll
        trans = np.block([[156 * one, 22 * s, 54 * one, -13 * s],
                          [22 * s, 4 * ll ** 2, 13 * s, -3 * ll ** 2],
                          [54 * one, 13 * s, 156 * one, -22 * s],
                          [-13 * s, -3 * ll ** 2, -22 * s, 4 * ll ** 2]])
        rot = np.block([[36 * one, 3 * s, -36 * one, 3 * s],
                        [3 * s, 4 * ll ** 2, -3 * s, -ll ** 2],
                        [-36 * one, -3 * s, 36 * one, -3 * s],
                        [3 * s, -ll ** 2, -3 * s, 4 * ll ** 2]])
        return ((rhoA * l)[..., None, None] / 420 * trans
                + (rho_i / l)[..., None, None] / 30 * rot)

    M[..., [[1], [5], [7], [11]], [1, 5, 7, 11]] = plane(rhoIz, 1.0)
    M[..., [[2], [4], [8], [10]], [2, 4, 8, 10]] = plane(rhoIy, -1.0)
    return M


def lumped_mass(l, rhoA, rhoJ, rhoIy, rhoIz):
    """The half-element each end carries (N, 12, 12): ρA·l/2 and l/2·(ρJ, ρIy, ρIz)."""
    l, rhoA, rhoJ, rhoIy, rhoIz = np.broadcast_arrays(*map(np.asarray, (l, rhoA, rhoJ,
                                                                        rhoIy, rhoIz)))
    half = np.stack([rhoA, rhoA, rhoA, rhoJ, rhoIy, rhoIz], axis=-1) * l[..., None] / 2
    diag = np.concatenate([half, half], axis=-1)
    return diag[..., :, None] * np.eye(12)


def _inertia(x, xp, dM, x1, x2, rho1, rho2):
    """Rows (…,26) of the inertial forces dM·ü of the element's extra mass dM (its
    consistent mass less the lumped half-elements on its end frames), in the
    co-rotated element axes E = [c, e2, e3] (e2: the end triads' mean y axis made
    normal to the chord c). ü = (a_P1, ω̇1, a_P2, ω̇2): the end points' accelerations
    a_Pi = V̇i + ω̇i × a_i + ωi × (ωi × a_i) and the frames' angular accelerations.
    The force f_i and moment μ_i on end i enter frame i's rows as f_i and μ_i + a_i × f_i."""
    T, a1, a2, d = _geometry(x, x1, x2, rho1, rho2)
    c = d / np.sqrt(_dot(d, d))[..., None]
    s = T[..., 0, 1, :] + T[..., 1, 1, :]
    e2 = s - c * _dot(c, s)[..., None]
    e2 = e2 / np.sqrt(_dot(e2, e2))[..., None]
    E = np.stack([c, e2, _cross(c, e2)], axis=-2)                  # rows e1, e2, e3
    acc = []
    for off, arm in ((0, a1), (NV, a2)):
        w, wdot = x[..., off + 3:off + 6], xp[..., off + 3:off + 6]
        acc += [xp[..., off:off + 3] + _cross(wdot, arm) + _cross(w, _cross(w, arm)), wdot]
    u = np.concatenate([np.einsum("...ij,...j->...i", E, b) for b in acc], axis=-1)
    f = np.einsum("...ij,...j->...i", dM, u)
    f = [np.einsum("...ji,...j->...i", E, f[..., 3 * b:3 * b + 3]) for b in range(4)]
    out = np.zeros(np.broadcast_shapes(x.shape, xp.shape)[:-1] + (NROWS,),
                   dtype=np.result_type(x, xp))
    out[..., V], out[..., W] = f[0], f[1] + _cross(a1, f[0])
    out[..., NV:NV + 3], out[..., NV + 3:NV + 6] = f[2], f[3] + _cross(a2, f[2])
    return out


class Beam(ElementType):
    keyword = "beam"
    dissipating_store = True        # eta
    # mass=consistent reads the frames' accelerations (V̇, ω̇ of both frames):
    # local_differential declares them for its groups only
    differential_vars = tuple(range(0, 6)) + tuple(range(NV, NV + 6))
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
              *point_params("end point"),
              Param("yaxis", "1", default=None, description="the section's local y "
                    "direction at t = 0 (default global y; global z for an element along "
                    "y)", kind="vector", size=3),
              Param("mass", "1", default="lumped", kind="choice", choices=MASS_MODELS,
                    description="lumped: the element has no mass (its end frames carry "
                    "it); consistent: it adds the inertia of its consistent mass matrix "
                    "less the lumped half-element its end frames carry"),
              Param("rhoA", "kg/m", default=None, description="mass per length (mass="
                    "consistent, or with n)", positive=True),
              Param("rhoIy", "kg*m", default=None, description="rotary inertia per length "
                    "about the section's y axis (mass=consistent, or with n)",
                    positive=True),
              Param("rhoIz", "kg*m", default=None, description="rotary inertia per length "
                    "about local z (default rhoIy)", positive=True),
              Param("rhoJ", "kg*m", default=None, description="polar rotary inertia per "
                    "length (default rhoIy + rhoIz)", positive=True),
              Param("stiffening", "1", default="on", kind="choice", choices=("on", "off"),
                    description="off: the axial stretch is measured along the element's "
                    "initial axis carried by the frame ref, not along the chord: the "
                    "linear floating-frame model without geometric stiffening"),
              Param("ref", None, default=None, kind="node", description="the reference "
                    "frame of stiffening=off (a body or 0; default 0)"),
              Param("n", "1", default=None, description="write the whole beam: the line "
                    "expands into n elements B1..Bn with inner bodies B_1..B_(n-1) (and a "
                    "free end B_n when one frame is written); docs/beam.md"))
    outputs = (Output("l", "m", "chord length"),
               Output("N", "N", "axial force (tension positive)"),
               Output("U", "J", "strain energy Σ ½·k·m²", kind="energy"))

    @classmethod
    def local_pattern(cls, n_extra=0, group=None):
        mask = np.zeros((NROWS, NVARS + n_extra), dtype=bool)
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
        E0 = _section_axes(axis, prm.get("yaxis"))
        if E0 is None:
            raise ModelError(f"beam {inst.name}: yaxis is parallel to the beam",
                             inst.param_locs.get("yaxis", inst.loc))
        for i, (f, point) in enumerate(((f1, points[0]), (f2, points[1])), start=1):
            prm[f"x{i}"] = local_offset(f, point)
            prm[f"rho{i}"] = f["A"].T @ E0
        prm["l0"] = l0
        prm["rref"] = frames[prm.get("ref") or GROUND]["A"].T @ E0[:, 0]

    @classmethod
    def group_key(cls, inst):
        return (inst.params.get("stiffening", "on"), inst.params.get("mass", "lumped"))

    @classmethod
    def local_differential(cls, n_extra=0, group=None):
        mask = super().local_differential(n_extra, group)
        if group is not None and not group.massive:
            mask[:] = False              # lumped: the element reads no derivative
        return mask

    @classmethod
    def extra_vars(cls, inst):
        ref = inst.params.get("ref")
        if inst.params.get("stiffening") != "off" or ref in (None, GROUND):
            return []
        return [f"{ref}.{v}" for v in ("wx", "wy", "wz", "q0", "q1", "q2", "q3")]

    expansion_param = "n"

    @classmethod
    def expand(cls, name, label, frames, values, locs, loc):
        problem = chain_problem(frames, values)
        if problem is not None:
            param, message = problem
            raise ModelError(f"beam {label}: {message}", locs.get(param, loc))
        chain_args = {k: v for k, v in values.items() if k not in ("n", "at1", "at2")}
        return chain(name, frames[0], frames[1] if len(frames) == 2 else None,
                     values["at1"], values["at2"], int(values["n"]), **chain_args)

    @classmethod
    def check(cls, inst):
        prm = inst.params
        if prm.get("mass") == "consistent":
            for name in ("rhoA", "rhoIy"):
                if prm.get(name) is None:
                    raise ModelError(f"beam {inst.name}: mass=consistent needs {name}",
                                     inst.loc)

    @classmethod
    def prepare(cls, instances):
        def stack(name, default=None):
            return np.array([i.params[name] if i.params.get(name) is not None
                             else i.params[default] for i in instances], dtype=float)
        l0 = stack("l0")
        EA, GJ, EIy = stack("EA"), stack("GJ"), stack("EIy")
        EIz = stack("EIz", "EIy")
        k = np.stack([EA, GJ, 3 * EIy, EIy, 3 * EIz, EIz], axis=-1) / l0[:, None]  # (3)
        dM = np.zeros((len(instances), 12, 12))
        for n, inst in enumerate(instances):
            if inst.params.get("mass") == "consistent":
                rho = section_inertia(inst.params)
                dM[n] = (consistent_mass(l0[n], inst.params["rhoA"], *rho)
                         - lumped_mass(l0[n], inst.params["rhoA"], *rho))
        linear = instances[0].params.get("stiffening") == "off"
        return SimpleNamespace(k=k, l0=l0, eta=stack("eta"), x1=stack("x1"),
                               x2=stack("x2"), rho1=stack("rho1"), rho2=stack("rho2"),
                               rref=stack("rref") if linear else None,
                               dM=dM, massive=bool(np.any(dM)),
                               warmup=compiled.Warmup(NUMPY_CALL_SECONDS
                                                      + NUMPY_ELEMENT_SECONDS * len(instances)))

    @staticmethod
    def _twin(p):
        """The compiled twin when it should run (mass=lumped only), else None."""
        return None if p.massive else compiled.twin("beam", p.warmup)

    @staticmethod
    def _twin_args(x, p):
        """The twin's arguments; without rref (stiffening on) any (N, 3) array stands in
        for it, unread, so that both variants run one compiled signature."""
        linear = p.rref is not None
        return (np.ascontiguousarray(x, dtype=float), p.k, p.eta, p.l0, p.x1, p.x2, p.rho1,
                p.rho2, p.rref if linear else p.x1, linear)

    @classmethod
    def residual(cls, t, x, xp, p):
        fast = cls._twin(p)
        if fast is not None:
            return fast.residual(*cls._twin_args(x, p))
        out = _kernel(x, p.k, p.eta, p.l0, p.x1, p.x2, p.rho1, p.rho2, p.rref)[2]
        if p.massive:
            out = out + _inertia(x, xp, p.dM, p.x1, p.x2, p.rho1, p.rho2)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        fast = cls._twin(p)
        if fast is not None:
            return fast.jacobian(*cls._twin_args(x, p))
        # complex step: dF/dx_j = Im F(x + i·h·e_j)/h, all columns in one batch
        step = 1j * H_CS * np.eye(x.shape[1])[None]
        xc = x[:, None, :] + step
        args = (p.x1[:, None], p.x2[:, None], p.rho1[:, None], p.rho2[:, None])
        F = _kernel(xc, p.k[:, None], p.eta[:, None], p.l0[:, None], *args,
                    None if p.rref is None else p.rref[:, None])[2]
        Jp = np.zeros(F.shape[:1] + F.shape[2:] + F.shape[1:2])
        if p.massive:
            F = F + _inertia(xc, xp[:, None, :], p.dM[:, None], *args)
            Fp = _inertia(x[:, None, :], xp[:, None, :] + step, p.dM[:, None], *args)
            Jp = np.ascontiguousarray(np.swapaxes(Fp.imag, 1, 2)) / H_CS
        J = np.ascontiguousarray(np.swapaxes(F.imag, 1, 2)) / H_CS   # (N, rows, vars)
        return J, Jp

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        m, S, _, l = _kernel(x, p.k, p.eta, p.l0, p.x1, p.x2, p.rho1, p.rho2, p.rref)
        U = 0.5 * np.sum(p.k * m * m, axis=-1)
        return np.stack([l, S[..., 0], U], axis=-1)

    @classmethod
    def sample_variants(cls):
        return [{}, {"mass": "consistent"}, {"stiffening": "off"}]

    @classmethod
    def sample_params(cls, rng):
        def rotation():
            return quaternion.dcm(quaternion.normalise(rng.normal(size=4)))
        return {"EA": 80.0, "GJ": 3.0, "EIy": 5.0, "EIz": 7.0, "eta": 0.3,
                "x1": rng.uniform(-1, 1, 3), "x2": rng.uniform(-1, 1, 3),
                "rho1": rotation(), "rho2": rotation(), "l0": 0.8, "mass": "lumped",
                "rhoA": 2.0, "rhoIy": 0.3, "rhoIz": 0.5, "rhoJ": 0.7,
                "stiffening": "on", "rref": quaternion.normalise(rng.normal(size=3))}


def section_inertia(prm: dict) -> tuple:
    """(ρJ, ρIy, ρIz) with their defaults: ρIz = ρIy, ρJ = ρIy + ρIz (the polar moment)."""
    rhoIy = prm["rhoIy"]
    rhoIz = rhoIy if prm.get("rhoIz") is None else prm["rhoIz"]
    rhoJ = rhoIy + rhoIz if prm.get("rhoJ") is None else prm["rhoJ"]
    return rhoJ, rhoIy, rhoIz


@dataclass(frozen=True)
class Line:
    """One statement of an expanded beam: keyword, name, ports and SI parameter values
    (float, 3-tuple or choice)."""
    keyword: str
    name: str
    ports: tuple
    params: dict

    def text(self) -> str:
        return " ".join([self.keyword, self.name, *self.ports]
                        + [f"{k}={format_value(v)}" for k, v in self.params.items()])


def format_value(v) -> str:
    """17 significant digits (the value round-trips exactly); vectors as (a, b, c)."""
    if isinstance(v, str):
        return v
    if np.ndim(v):
        return "(" + ", ".join(format_value(c) for c in v) + ")"
    return f"{float(v):.17g}"


def chain_problem(frames: list, values: dict) -> tuple | None:
    """(parameter, message) for the first reason the beam written with ``n`` cannot be
    expanded, None when it can. ``values``: SI values of the parameters written."""
    for par in Beam.params:
        if par.default is REQUIRED and par.name not in values:
            return par.name, f"needs parameter {par.name} ({par.description}, {par.unit})"
    n = values["n"]
    if not (n == int(n) and 1 <= n <= MAX_ELEMENTS_PER_BEAM):
        return "n", (f"n must be a whole number of elements from 1 to "
                     f"{MAX_ELEMENTS_PER_BEAM}, got {n:g}")
    if not 1 <= len(frames) <= 2:
        return None, (f"a beam written with n= takes one frame (a free end) or two, got "
                      f"{len(frames)}")
    for name, what in (("rhoA", "mass per length, kg/m"),
                       ("rhoIy", "rotary inertia per length about the section's y axis, "
                        "kg*m"), ("at1", "first end point, m"), ("at2", "second end point, m")):
        if name not in values:
            return None, f"a beam written with n= needs {name} ({what})"
    p1, p2 = (np.asarray(values[k], dtype=float) for k in ("at1", "at2"))
    if not np.linalg.norm(p2 - p1) > 0:
        return "at2", "its two end points coincide (zero length)"
    if _section_axes(p2 - p1, values.get("yaxis")) is None:
        return "yaxis", "yaxis is parallel to the beam"
    return None


def _section_axes(axis, yaxis) -> np.ndarray | None:
    """E0 = [e1 e2 e3]: e1 along ``axis``, e2 from ``yaxis`` (default global y, global z
    for an axis along y) made normal to it; None when yaxis is parallel to the axis."""
    e1 = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    y = (np.array([0.0, 1.0, 0.0]) if abs(e1[1]) < 0.9 else np.array([0.0, 0.0, 1.0])) \
        if yaxis is None else np.asarray(yaxis, dtype=float)
    e2 = y - np.dot(y, e1) * e1
    if not np.linalg.norm(e2) > 1e-9 * np.linalg.norm(y):
        return None
    e2 /= np.linalg.norm(e2)
    return np.column_stack([e1, e2, np.cross(e1, e2)])


def chain(name: str, frame1: str, frame2: str | None, p1, p2, n: int, *, EA: float,
          GJ: float, EIy: float, EIz: float | None = None, rhoA: float, rhoIy: float,
          rhoIz: float | None = None, rhoJ: float | None = None, eta: float = 0.0,
          yaxis=None, mass: str = "lumped", stiffening: str = "on") -> list:
    """The statements (:class:`Line`) of a beam from point p1 on frame1 to point p2 on
    frame2 as n ``beam`` elements ``<name>1 .. <name><n>``. The inner nodes are bodies
    ``<name>_1 .. <name>_<n-1>`` at p1 + i·(p2 − p1)/n carrying the mass lumped on them:
    ρA·h (h = L/n) and the rotary inertia of the length h, h·(ρJ, ρIy, ρIz) in the
    section's axes (ρIz default ρIy, ρJ default ρIy + ρIz, the polar moment).
    ``frame2`` None: a free end, the body ``<name>_<n>`` at p2 with half of that.
    The end frames get no mass from here: a body written as frame carries the
    half-element next to it itself. ``mass='consistent'``: each element adds its
    consistent mass less those lumped halves (the nodes' mass matrix becomes the
    consistent one). ``stiffening='off'``: the elements measure their stretch along
    their initial axes carried by frame1 (the linear floating-frame model, without
    geometric stiffening). Both the netlist form (``beam B H n=8 ...``) and
    :func:`discretise` go through here."""
    p1, p2 = np.asarray(p1, dtype=float), np.asarray(p2, dtype=float)
    rhoJ, rhoIy, rhoIz = section_inertia(dict(rhoIy=rhoIy, rhoIz=rhoIz, rhoJ=rhoJ))
    E0 = _section_axes(p2 - p1, yaxis)
    if E0 is None:
        raise ModelError(f"beam {name}: yaxis is parallel to the beam")
    e1, h = E0[:, 0], float(np.linalg.norm(p2 - p1)) / n

    def node(i, share):
        Jg = E0 @ np.diag(share * h * np.array([rhoJ, rhoIy, rhoIz])) @ E0.T
        return Line("body", f"{name}_{i}", (), dict(
            m=share * rhoA * h, J=tuple(np.diag(Jg)), Jp=(Jg[0, 1], Jg[0, 2], Jg[1, 2]),
            pos=tuple(p1 + i * h * e1)))

    lines = [node(i, 1.0) for i in range(1, n)]
    if frame2 is None:
        frame2 = f"{name}_{n}"
        lines.append(node(n, 0.5))
    stiff = dict(EA=EA, GJ=GJ, EIy=EIy, **({} if EIz is None else dict(EIz=EIz)),
                 **(dict(eta=eta) if eta else {}), yaxis=tuple(E0[:, 1]))
    if mass == "consistent":
        stiff.update(mass="consistent", rhoA=rhoA, rhoIy=rhoIy, rhoIz=rhoIz, rhoJ=rhoJ)
    if stiffening == "off":
        stiff.update(stiffening="off", ref=frame1)
    frames = [frame1] + [f"{name}_{i}" for i in range(1, n)] + [frame2]
    for i in range(n):
        lines.append(Line("beam", f"{name}{i + 1}", (frames[i], frames[i + 1]), dict(
            stiff, at1=tuple(p1 + i * h * e1), at2=tuple(p1 + (i + 1) * h * e1))))
    return lines


def discretise(name: str, frame1: str, frame2: str | None, p1, p2, n: int,
               **params) -> str:
    """Netlist text of :func:`chain` (the same statements the netlist line
    ``beam <name> <frame1> [<frame2>] n=<n> at1=<p1> at2=<p2> ...`` expands into)."""
    return "".join(line.text() + "\n" for line in chain(name, frame1, frame2, p1, p2, n,
                                                         **params))
