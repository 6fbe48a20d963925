"""spring3d: the 3D linear spring–damper between points of two frames, run through the
engine against closed forms and conservation laws computed here (not from the element's
own outputs, which are cross-checked against them)."""
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.integrate import cumulative_simpson

import circuitsim
from circuitsim.elements import quaternion as quat
from circuitsim.elements.spring3d import EPS, NV, Spring3D

from helpers import zero_crossings

G = 9.81


def stack(res, body, names):
    return np.stack([res[f"{body}.{n}"] for n in names], axis=1)


def point(res, body, x_local):
    """Global position of a point fixed in the body at local offset x_local."""
    r, q = stack(res, body, "xyz"), stack(res, body, ("q0", "q1", "q2", "q3"))
    return r + np.einsum("tij,j->ti", quat.dcm(q), x_local)


# --- vertical oscillation ------------------------------------------------------------------

def test_vertical_oscillation_frequency_and_equilibrium():
    """A body hung from the ground point (0, 0, 1) on a spring of free length 1, released
    with the spring unstretched: z(t) = −s·(1 − cos ωt), ω = sqrt(k/m), s = m·g/k (the
    equilibrium stretch). The pivot sits above the origin so that z stays small and the
    solver's relative tolerance acts on the motion itself."""
    m, k = 2.0, 200.0
    w, s = np.sqrt(k / m), m * G / k
    res = circuitsim.parse(f"""
.gravity 0 0 -{G}
body B m={m} J=(0.1, 0.2, 0.3) pos=(0, 0, 0)
spring3d S1 0 B k={k} L0=1 at1=(0, 0, 1)
.tran 3 1m
""").simulate(rtol=1e-9, atol=1e-12)
    t = res.t
    z_exact = -s * (1 - np.cos(w * t))
    assert np.max(np.abs(res["B.z"] - z_exact)) / s < 1e-6          # observed 3.0e-7
    assert np.max(np.abs(res["S1.f"] - k * s * (1 - np.cos(w * t)))) / (k * s) < 1e-6
    np.testing.assert_allclose(res["S1.L"], 1 - z_exact, rtol=0, atol=1e-6 * s)
    # frequency from the zeros of vz (at n·π/ω); the equilibrium as the centre of the
    # oscillation, z ≈ z_eq + a·cos(ω_sim t) + b·sin(ω_sim t) fitted by least squares
    tc = zero_crossings(t, res["B.vz"])
    tc = tc[tc > 0.1]                        # the release itself is a zero of vz
    n = np.round(tc * w / np.pi)
    w_sim = np.pi * np.sum(n * n) / np.sum(n * tc)
    assert w_sim == pytest.approx(w, rel=1e-6)                       # observed 7e-10
    basis = np.stack([np.ones_like(t), np.cos(w_sim * t), np.sin(w_sim * t)], axis=1)
    z_eq = np.linalg.lstsq(basis, res["B.z"], rcond=None)[0][0]
    assert -z_eq == pytest.approx(s, rel=1e-6)
    # no sideways motion or rotation appears
    assert np.max(np.abs(stack(res, "B", ("x", "y", "wx", "wy", "wz")))) < 1e-12


def test_damped_vertical_spring_settles_at_mg_over_k():
    m, k, c = 1.0, 400.0, 8.0                  # ζ = c/(2·sqrt(km)) = 0.2
    res = circuitsim.parse(f"""
.gravity 0 0 -{G}
body B m={m} J=(1, 1, 1) pos=(0, 0, 0)
spring3d S1 0 B k={k} c={c} at1=(0, 0, 0.5)
.tran 6 10m
""").simulate(rtol=1e-9, atol=1e-12)
    # L0 defaults to the initial distance 0.5: the body starts at the free length
    assert res["S1.L"][0] == pytest.approx(0.5, abs=1e-15)
    assert res["S1.L"][-1] - 0.5 == pytest.approx(m * G / k, rel=1e-6)
    assert res["S1.f"][-1] == pytest.approx(m * G, rel=1e-6)


# --- spring pendulum: energy -------------------------------------------------------------

PEND = """
.gravity 0 0 -{g}
body B m={m} J=(0.01, 0.02, 0.015) pos=(0.3, 0, -0.8) v=(0, 0.8, 0)
spring3d S 0 B k={k} c={c} L0={L0} at1=(0, 0, 0) at2=(0.3, 0.05, -0.7)
.tran 3 1m
"""
M, K, L0 = 0.5, 60.0, 0.6
X_LOCAL = np.array([0.0, 0.05, 0.1])   # at2 − pos: the body starts unrotated


def pendulum(c, t_end=None):
    """A spring pendulum hooked off the centre of mass (it tumbles as it swings in 3D);
    energy from the body's kinetic energy B.T plus potentials computed here."""
    res = circuitsim.parse(PEND.format(g=G, m=M, k=K, c=c, L0=L0)).simulate(
        t_end, rtol=1e-9, atol=1e-12)
    L = np.linalg.norm(point(res, "B", X_LOCAL), axis=1)     # from the pivot at the origin
    U_gravity = M * G * res["B.z"]
    U_spring = 0.5 * K * (L - L0) ** 2
    E = res["B.T"] + U_gravity + U_spring
    # the element's and body's own outputs agree with these
    np.testing.assert_allclose(res["S.L"], L, rtol=0, atol=1e-13)
    np.testing.assert_allclose(res["S.U"], U_spring, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res["B.U"], U_gravity, rtol=0, atol=1e-12)
    return res, E


def test_spring_pendulum_conserves_energy():
    res, E = pendulum(c=0.0, t_end=1.5)                 # B.y passes 0.2 m at 0.36 s
    assert np.max(np.abs(res["B.wx"])) > 1.0             # it really tumbles
    assert np.max(np.abs(res["B.y"])) > 0.2              # and swings out of the xz plane
    # relative to the energy exchanged between the forms: the largest kinetic energy
    assert np.max(np.abs(E - E[0])) / res["B.T"].max() < 1e-6       # observed 1.2e-8


def test_damping_removes_energy_monotonically_and_as_dissipated():
    c = 0.3
    res, E = pendulum(c=c)
    scale = res["B.T"].max()
    assert np.max(np.diff(E)) <= 1e-9 * scale          # never increases (observed < 0)
    assert (E[0] - E[-1]) / scale > 0.2                # and really decreases
    # energy balance: what is lost is what the damper dissipated, ∫ c·(dL/dt)² dt
    Ldot = (res["S.f"] - K * (res["S.L"] - L0)) / c
    dissipated = cumulative_simpson(c * Ldot ** 2, x=res.t, initial=0.0)
    assert np.max(np.abs(E[0] - E - dissipated)) / scale < 1e-6      # observed 2.9e-8


# --- between two bodies: Newton's third law and the torques -----------------------------

def test_two_bodies_conserve_momentum_angular_momentum_and_energy():
    """Two spinning bodies joined by spring3d at off-centre points, no gravity: total
    momentum, total angular momentum about the origin (Σ r × m·V + H) and energy are
    constant — which fails if a torque r_i × F_i has the wrong arm or sign."""
    m1, m2, k = 1.0, 2.0, 50.0
    res = circuitsim.parse(f"""
body B1 m={m1} J=(0.1, 0.2, 0.3) pos=(0, 0, 0) v=(0.1, 0, 0.2) w=(1, -2, 0.5)
body B2 m={m2} J=(0.3, 0.2, 0.4) pos=(1, 0.2, 0) rot=(0, 0, 1, 40deg) w=(0, 1, 3)
spring3d S B1 B2 k={k} L0=0.6 at1=(0.1, 0.1, 0) at2=(0.9, 0.2, 0.1)
.tran 2 5m
""").simulate(rtol=1e-10, atol=1e-12)
    P = m1 * stack(res, "B1", ("vx", "vy", "vz")) + m2 * stack(res, "B2", ("vx", "vy", "vz"))
    Hc = sum(np.cross(stack(res, b, "xyz"), m * stack(res, b, ("vx", "vy", "vz")))
             + stack(res, b, ("Hx", "Hy", "Hz")) for b, m in (("B1", m1), ("B2", m2)))
    E = res["B1.T"] + res["B2.T"] + res["S.U"]
    assert np.ptp(res["S.L"]) > 0.3                      # the spring does work (0.38 m)
    assert np.max(np.abs(P - P[0])) / np.linalg.norm(P[0]) < 1e-8      # observed 6e-15
    assert np.max(np.linalg.norm(Hc - Hc[0], axis=1)) / np.linalg.norm(Hc[0]) < 1e-6  # 2.0e-9
    assert np.max(np.abs(E - E[0])) / E[0] < 1e-6                      # observed 5.8e-9


# --- kernel details ----------------------------------------------------------------------

def kernel_params(**kw):
    base = dict(k=np.array([10.0]), c=np.array([2.0]), L0=np.array([0.5]),
                x1=np.zeros((1, 3)), x2=np.zeros((1, 3)))
    base.update(kw)
    return SimpleNamespace(**base)


def frames(p1, p2, v1=(0, 0, 0), v2=(0, 0, 0)):
    x = np.zeros((1, 2 * NV))
    for o, p, v in ((0, p1, v1), (NV, p2, v2)):
        x[0, o:o + 3] = v
        x[0, o + 6:o + 9] = p
        x[0, o + 9] = 1.0
    return x


def test_force_direction_and_sign():
    """Stretched spring pulls frame 2 towards frame 1; rows are minus the applied force."""
    p = kernel_params(c=np.array([0.0]))
    x = frames((0, 0, 0), (0, 0, 2.0))
    F = Spring3D.residual(0.0, x, np.zeros_like(x), p)[0]
    tension = 10.0 * (2.0 - 0.5)
    np.testing.assert_allclose(F[NV:NV + 3], [0, 0, tension])     # −F2, F2 = −tension·ez
    np.testing.assert_allclose(F[0:3], [0, 0, -tension])          # −F1
    # closing at 1 m/s adds c·dL/dt = −2 N of (compressive) damping force
    p = kernel_params()
    x = frames((0, 0, 0), (0, 0, 2.0), v2=(0.3, 0, -1.0))
    F = Spring3D.residual(0.0, x, np.zeros_like(x), p)[0]
    np.testing.assert_allclose(F[NV + 2], tension - 2.0)


def test_coincident_points_give_zero_force_and_finite_jacobian():
    """L → 0: the direction is undefined; the smooth floor ε makes u = 0 there."""
    p = kernel_params(x1=np.array([[0.1, 0, 0]]), x2=np.array([[0.0, 0.1, 0]]))
    x = frames((0.1, 0, 0), (0.2, -0.1, 0), v1=(1, 2, 3))   # both points at (0.2, 0, 0)
    F = Spring3D.residual(0.0, x, np.zeros_like(x), p)
    J, Jp = Spring3D.jacobian(0.0, x, np.zeros_like(x), p)
    assert np.all(F == 0.0) and np.all(np.isfinite(J)) and not np.any(Jp)
    out = Spring3D.compute_outputs(np.zeros(1), x[None], None, p)[0, 0]
    assert out[0] == pytest.approx(EPS)            # L is floored at ε, not 0


def test_bad_parameters_are_input_errors():
    with pytest.raises(circuitsim.errors.CircuitsimError, match="k must not be negative"):
        circuitsim.parse("body B m=1 J=(1, 1, 1)\nspring3d S 0 B k=-1\n.tran 1").simulate()
    with pytest.raises(circuitsim.errors.CircuitsimError, match="not a body"):
        circuitsim.parse("spring3d S 0 X k=1\n.tran 1").simulate()


def test_instances_with_and_without_attachment_points_share_a_group():
    """One group holds springs with and without at1/at2 (stacked after link)."""
    k, m = 100.0, 1.0
    s = m * G / k
    res = circuitsim.parse(f"""
.gravity 0 0 -{G}
body B1 m={m} J=(1, 1, 1) pos=(0, 0, {-s})
body B2 m={m} J=(1, 1, 1) pos=(2, 0, -1)
spring3d S1 0 B1 k={k} L0=1 at1=(0, 0, 1)
spring3d S2 B2 0 k={k} L0={1 - s} at2=(2, 0, 0)
.tran 0.5 0.1
""").simulate(rtol=1e-10, atol=1e-12)
    # both hang at rest in equilibrium; S2 has the body as frame 1 and the ground as frame 2
    for b, z0 in (("B1", -s), ("B2", -1.0)):
        np.testing.assert_allclose(res[f"{b}.z"], z0, rtol=0, atol=1e-10)
    np.testing.assert_allclose(res["S1.f"], m * G, rtol=1e-9)
    np.testing.assert_allclose(res["S2.f"], m * G, rtol=1e-9)
