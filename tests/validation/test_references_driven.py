"""Self-tests of the independent inverse-dynamics references (driven four-bar, driven
slider-crank, open 3-joint arm): the two routes of each reference agree, the energy balance
int tau.qdot dt = Delta T + Delta V holds, the closures hold, and global momentum balances
close.  Tolerance 1e-9 relative throughout (observed errors are ~1e-13 or smaller)."""
import numpy as np
import pytest

from validation import ref_driven_fourbar as fb
from validation import ref_driven_slider_crank as sc
from validation import ref_open_arm as arm

RTOL = 1e-9
H = 1e-30   # complex step


def gauss(fun, a, b, panels=100, nodes=16):
    """Composite Gauss-Legendre quadrature of a vectorised fun on [a, b]."""
    x, w = np.polynomial.legendre.leggauss(nodes)
    edges = np.linspace(a, b, panels + 1)
    lo, hi = edges[:-1, None], edges[1:, None]
    t = (0.5 * (hi - lo) * x + 0.5 * (hi + lo)).ravel()
    ww = (0.5 * (hi - lo) * w).ravel()
    return float(np.sum(ww * fun(t))), t


def _check_energy(power, energy, t0, t1):
    work, _ = gauss(power, t0, t1)
    T0, V0 = energy(np.array([t0]))
    T1, V1 = energy(np.array([t1]))
    dE = float((T1 + V1 - T0 - V0)[0])
    scale, _ = gauss(lambda t: np.abs(power(t)), t0, t1)
    assert abs(work - dE) <= RTOL * max(abs(dE), 1e-300), (work, dE)
    assert abs(work - dE) <= 1e-12 * scale
    return work, dE


# ----------------------------------------------------------------------------- four-bar
def test_fourbar_initial_configuration_and_closures():
    t = np.linspace(0, 1, 1001)
    B, C = fb.joint_points(t)
    assert np.allclose(B[0], [0.0, 0.1], atol=1e-15)
    assert np.allclose(C[0], fb.DATA["C0"], atol=5e-8)
    A, D = np.array(fb.DATA["A"]), np.array(fb.DATA["D"])
    assert np.max(abs(np.linalg.norm(B - A, axis=1) - 0.1)) < 1e-14
    assert np.max(abs(np.linalg.norm(C - B, axis=1) - 0.35)) < 1e-14
    assert np.max(abs(np.linalg.norm(C - D, axis=1) - 0.3)) < 1e-14
    # the branch stays the one of C(0): (D-B) x (C-B) > 0, well away from zero
    cr = (D - B)[:, 0] * (C - B)[:, 1] - (D - B)[:, 1] * (C - B)[:, 0]
    assert cr.min() > 0.05
    assert np.allclose(fb.crank_angle(t), np.pi / 2 + 10 * t)
    assert np.all(np.abs(np.diff(fb.rocker_angle(t))) < 0.05)     # continuous, no wrap


def test_fourbar_velocities_match_complex_step_of_positions():
    t = np.linspace(0, 1, 201)
    w1, w2, w3 = fb.angular_velocities(t)
    _, Bx, By, Cx, Cy = fb._positions(t + 1j * H)
    vC = np.stack([Cx.imag, Cy.imag], -1) / H
    _, C = fb.joint_points(t)
    B, _ = fb.joint_points(t)
    k = C - np.array(fb.DATA["D"])
    c = C - B
    assert np.allclose(vC, w3[:, None] * np.stack([-k[:, 1], k[:, 0]], -1), rtol=0, atol=1e-13)
    vB = np.stack([Bx.imag, By.imag], -1) / H
    assert np.allclose(vC, vB + w2[:, None] * np.stack([-c[:, 1], c[:, 0]], -1), rtol=0, atol=1e-13)


@pytest.mark.parametrize("ref", [fb, sc], ids=["fourbar", "slider_crank"])
def test_two_routes_agree(ref):
    """Newton-Euler and the energy route (τ·ω = d(T + V)/dt) give the same torque."""
    t = np.linspace(0, 1, 1001)
    t1, t2 = ref.drive_torque(t), ref.drive_torque_energy(t)
    assert np.max(abs(t1 - t2)) <= RTOL * np.max(abs(t1))


def test_fourbar_energy_balance():
    _check_energy(lambda t: fb.drive_torque(t) * fb.DATA["omega"], fb.energy, 0.0, 1.0)


def test_fourbar_global_force_balance():
    """F_A + F_D - g sum m e_y = dP/dt, P from the closed-form velocities (complex step)."""
    t = np.linspace(0, 1, 201)

    def momentum(tc):
        (th, Bx, By, Cx, Cy), (w1, w2, w3) = fb._velocities(tc)
        m1, m2, m3 = fb.DATA["m"]
        cx, cy = Cx - Bx, Cy - By
        kx, ky = Cx - fb.DATA["D"][0], Cy - fb.DATA["D"][1]
        Px = m1 * (-w1 * By / 2) + m2 * (-w1 * By - w2 * cy / 2) + m3 * (-w3 * ky / 2)
        Py = m1 * (w1 * Bx / 2) + m2 * (w1 * Bx + w2 * cx / 2) + m3 * (w3 * kx / 2)
        return Px, Py

    Px, Py = momentum(t + 1j * H)
    dP = np.stack([Px.imag, Py.imag], -1) / H
    s = fb.newton_euler(t)
    F = s["F_A"] + s["F_D"] + np.array([0.0, -fb.DATA["g"] * sum(fb.DATA["m"])])
    assert np.max(abs(F - dP)) <= RTOL * np.max(abs(dP))
    assert np.allclose(fb.pin_force_A(t), s["F_A"]) and np.allclose(fb.pin_force_D(t), s["F_D"])


# ------------------------------------------------------------------------- slider-crank
def test_slider_crank_closures():
    t = np.linspace(0, 1, 1001)
    th = sc.crank_angle(t)
    A = 0.1 * np.stack([np.cos(th), np.sin(th)], -1)
    xB = sc.slider_x(t)
    assert xB[0] == pytest.approx(0.4, abs=1e-15)
    assert np.max(abs(np.hypot(xB - A[:, 0], A[:, 1]) - 0.3)) < 1e-14
    # velocity: closed form vs complex step of the position
    assert np.allclose(sc.slider_velocity(t), sc._kin(t + 1j * H)[5].imag / H, rtol=0, atol=1e-13)


def test_slider_crank_energy_balance():
    _check_energy(lambda t: sc.drive_torque(t) * sc.DATA["omega"], sc.energy, 0.0, 1.0)


def test_slider_crank_static_like_instant():
    """At t = 0 (dead centre) dT/dt = 0: tau = g (m1 r/2 + m2 r/2), N = g (m3 + m2/2)."""
    g, r = sc.DATA["g"], sc.DATA["r"]
    m1, m2, m3 = sc.DATA["m"]
    assert sc.drive_torque(0.0) == pytest.approx(g * r * (m1 + m2) / 2, rel=1e-13)
    assert sc.guide_force(0.0) == pytest.approx(g * (m3 + m2 / 2), rel=1e-13)


def test_slider_crank_global_force_balance():
    t = np.linspace(0, 1, 201)

    def momentum(tc):
        th, ax, ay, cx, cy, xB, vAx, vAy, w2, xBd = sc._kin(tc)
        m1, m2, m3 = sc.DATA["m"]
        Px = m1 * vAx / 2 + m2 * (vAx - w2 * cy / 2) + m3 * xBd
        Py = m1 * vAy / 2 + m2 * (vAy + w2 * cx / 2)
        return Px, Py

    Px, Py = momentum(t + 1j * H)
    dP = np.stack([Px.imag, Py.imag], -1) / H
    s = sc.newton_euler(t)
    F = s["F_O"] + np.stack([0 * t, s["N"]], -1) + np.array([0.0, -sc.DATA["g"] * sum(sc.DATA["m"])])
    assert np.max(abs(F - dP)) <= RTOL * np.max(abs(dP))


# ------------------------------------------------------------------------------ open arm
def test_arm_joint_motion():
    t = np.linspace(0, 2, 401)
    q = arm.joint_angles(t)
    qd_cs = np.stack([arm.DATA["a"][i] * (1 - np.cos(2 * np.pi * arm.DATA["f"][i] * (t + 1j * H)))
                      / (2 * np.pi * arm.DATA["f"][i]) for i in range(3)], -1).imag / H
    assert np.allclose(qd_cs, arm.joint_rates(t), rtol=0, atol=1e-14)
    assert np.allclose(q[0], 0) and np.allclose(arm.joint_rates(0.0), 0)
    assert np.allclose(arm.joint_accelerations(0.0), 2 * np.pi * np.array([0.5, 0.7, 0.9]) * [1.0, 0.8, 1.2])
    # closure: elbow-to-shoulder distance stays 0.5, shoulder fixed at (0, 0, 0.2)
    R, z, p, c, I = arm._geometry(q)
    assert np.max(abs(np.linalg.norm(p[2] - p[1], axis=1) - 0.5)) < 1e-15
    assert np.max(abs(np.linalg.norm(c[2] - p[2], axis=1) - 0.2)) < 1e-15
    assert np.max(abs(np.einsum("ij,ij->i", z[2], z[1]) - 1)) < 1e-15    # parallel hinges


def test_arm_two_routes_agree():
    t = np.linspace(0, 2, 2001)
    t1, t2 = arm.drive_torques(t), arm.drive_torques_lagrange(t)
    assert np.all(np.max(abs(t1 - t2), axis=0) <= RTOL * np.max(abs(t1), axis=0))


def test_arm_kinetic_energy_two_ways():
    t = np.linspace(0, 2, 401)
    T, _ = arm.energy(t)
    M = arm.mass_matrix(arm.joint_angles(t))
    qd = arm.joint_rates(t)
    T2 = 0.5 * np.einsum("ni,nij,nj->n", qd, M, qd)
    assert np.max(abs(T - T2)) <= 1e-13 * np.max(T)


def test_arm_energy_balance():
    power = lambda t: np.sum(arm.drive_torques(t) * arm.joint_rates(t), axis=1)
    _check_energy(power, arm.energy, 0.0, 2.0)


def test_arm_waist_reaction_global_balance():
    """F = dP/dt - g sum m,  M_total(O) = dH_O/dt - sum c_i x m_i g, with P and H_O from the
    Jacobians (no accelerations), differentiated in t by the complex step."""
    t = np.linspace(0, 2, 201)
    tc = t + 1j * H
    w = 2 * np.pi * np.array(arm.DATA["f"])
    a = np.array(arm.DATA["a"])
    q = a * (1 - np.cos(w * tc[:, None])) / w
    qd = a * np.sin(w * tc[:, None])
    R, z, p, c, I = arm._geometry(q)
    P = 0
    Hm = 0
    om = 0
    for i in range(3):
        om = om + qd[:, i, None] * z[i]
        v = sum(np.cross(qd[:, j, None] * z[j], c[i] - p[j]) for j in range(i + 1))
        m = arm.DATA["m"][i]
        P = P + m * v
        Hm = Hm + m * np.cross(c[i], v) + np.einsum("nij,nj->ni", I[i], om)
    dP, dH = P.imag / H, Hm.imag / H
    gvec = np.array([0, 0, -arm.DATA["g"]])
    cr = [ci.real for ci in c]
    F_exp = dP - sum(arm.DATA["m"]) * gvec
    M_exp = dH - sum(np.cross(cr[i], arm.DATA["m"][i] * gvec) for i in range(3))
    F, M = arm.waist_reaction(t, include_drive=True)
    assert np.max(abs(F - F_exp)) <= RTOL * np.max(abs(F_exp))
    assert np.max(abs(M - M_exp)) <= RTOL * np.max(abs(M_exp))
    F0, M0 = arm.waist_reaction(t)
    assert np.allclose(F0, F) and np.max(abs(M0[:, 2])) < 1e-12
    assert np.allclose(M[:, 2], arm.drive_torques(t)[:, 0], rtol=0, atol=1e-12)


# --------------------------------------------------------------------- tabulated samples
@pytest.mark.parametrize("mod,funcs", [
    (fb, {"drive_torque": fb.drive_torque, "pin_force_A": fb.pin_force_A,
          "rocker_angle": fb.rocker_angle}),
    (sc, {"drive_torque": sc.drive_torque, "guide_force": sc.guide_force,
          "slider_x": sc.slider_x}),
    (arm, {"drive_torques": arm.drive_torques,
           "waist_force": lambda t: arm.waist_reaction(t)[0],
           "waist_moment": lambda t: arm.waist_reaction(t)[1]}),
])
def test_tabulated_samples(mod, funcs):
    s = mod.DATA["samples"]
    t = np.array(s["t"])
    for name, f in funcs.items():
        np.testing.assert_allclose(f(t), np.array(s[name]), rtol=1e-12, atol=1e-12)
