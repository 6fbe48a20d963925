"""Sources: the potential source V, the flow source I, the force and the torque on a
body, and the behavioural source B, with their time functions and outputs, each
against a closed form or an independent integration."""
import numpy as np
from scipy.integrate import solve_ivp

import circuitsim

from helpers import relative_error

TIGHT = dict(rtol=1e-9, atol=1e-12)


def test_sine_force_on_mass_damper():
    """m v' + b v = F0 sin(w t), v(0) = 0."""
    res = circuitsim.parse("""
mass M1 v m=2
damper D1 v 0 b=3
I F1 0 v I=sin(0, 5N, 1.5Hz)
.tran 4 2m
""").simulate(**TIGHT)
    m, b, F0, w = 2.0, 3.0, 5.0, 2 * np.pi * 1.5
    A, phi = F0 / np.hypot(b, m * w), np.arctan2(m * w, b)
    exact = A * np.sin(w * res.t - phi) + A * np.sin(phi) * np.exp(-b / m * res.t)
    assert relative_error(res["v"], exact) < 1e-6


def test_ramp_on_capacitor_and_pwl_on_resistor():
    res = circuitsim.parse("""
V V1 a 0 V=ramp(0.1, 0.3, 0, 4)
C C1 a 0 C=2u
V V2 b 0 V=pwl(0, 0, 0.2, 1, 0.4, -1)
R R2 b 0 R=10
.tran 0.5 1m
""").simulate(**TIGHT)
    t = res.t
    ramp_current = np.where((t > 0.1 + 1e-9) & (t < 0.3 - 1e-9), 2e-6 * 4 / 0.2, 0.0)
    inside = (np.abs(t - 0.1) > 2e-3) & (np.abs(t - 0.3) > 2e-3)
    np.testing.assert_allclose(res["C1.i"][inside], ramp_current[inside], atol=1e-9)
    exact = np.interp(t, [0, 0.2, 0.4], [0, 1, -1]) / 10
    np.testing.assert_allclose(res["R2.i"], exact, atol=1e-9)


def test_behavioural_cubic_spring_vs_independent_integration():
    """m x'' = -(k x + k3 x^3) with the force law written as a B source."""
    res = circuitsim.parse("""
.param k=50 k3=4e4
mass M1 v m=0.5
spring K0 v 0 k=0 x0=0.05
B Fnl v 0 I={k*K0.x + k3*K0.x^3}
.tran 2 5m
""").simulate(rtol=1e-10, atol=1e-13)
    ref = solve_ivp(lambda t, s: [s[1], -(50 * s[0] + 4e4 * s[0] ** 3) / 0.5], (0, 2),
                    [0.05, 0.0], t_eval=res.t, rtol=1e-11, atol=1e-13, method="DOP853")
    assert relative_error(res["K0.x"], ref.y[0]) < 1e-6
    assert relative_error(res["v"], ref.y[1]) < 1e-6
    np.testing.assert_allclose(res["Fnl.i"], 50 * res["K0.x"] + 4e4 * res["K0.x"] ** 3,
                               rtol=1e-9, atol=1e-12)


def test_behavioural_potential_source_with_v_references():
    res = circuitsim.parse("""
V V1 a 0 V=sin(0, 1, 2)
R Ra a 0 R=1
B E1 b 0 V={3*v(a) + 2*time}
R Rb b 0 R=2
.tran 1 10m
""").simulate(**TIGHT)
    # an algebraic circuit: the error test watches nothing, yet output points between
    # steps are made consistent (solver: Newton.polish), so they are exact
    exact = 3 * np.sin(2 * np.pi * 2 * res.t) + 2 * res.t
    np.testing.assert_allclose(res["b"], exact, atol=1e-9)
    np.testing.assert_allclose(res["E1.i"], -exact / 2, atol=1e-9)


def test_potential_source_drives_a_resistor_and_reports_its_power():
    """V across R: the source's flow (a through the source to b) is −V/R, the power it
    delivers V²/R. Algebraic: exact at the output points to the Newton tolerance."""
    res = circuitsim.parse("""
V V1 a 0 V=sin(2, 1, 5)
R R1 a 0 R=4
.tran 0.4 1m
""").simulate(**TIGHT)
    v = 2 + np.sin(2 * np.pi * 5 * res.t)
    np.testing.assert_allclose(res["a"], v, atol=1e-9)
    np.testing.assert_allclose(res["V1.i"], -v / 4, atol=1e-9)
    np.testing.assert_allclose(res["V1.P"], v ** 2 / 4, atol=1e-9)


def test_flow_source_pushes_its_flow_into_node_b():
    """``I I1 0 a I=2`` pushes 2 into a: over R to ground p_a = 2·R, and the source's
    output v = p_0 − p_a = −2·R."""
    res = circuitsim.parse("""
I I1 0 a I=step(0.1, 0, 2)
R R1 a 0 R=3
.tran 0.3 10m
""").simulate(**TIGHT)
    after = res.t > 0.1 + 1e-9
    np.testing.assert_allclose(res["a"][after], 6.0, rtol=1e-9)
    np.testing.assert_allclose(res["I1.v"][after], -6.0, rtol=1e-9)
    np.testing.assert_allclose(res["a"][res.t < 0.1 - 1e-9], 0.0, atol=1e-12)


def test_force_off_centre_accelerates_and_turns_a_free_body():
    """F = (0, 3, 0) N at the arm r = 0.4·(cos θ, sin θ, 0) m of a free body (no
    gravity): m·dV/dt = F exactly, and about the principal axis z
    Jz·θ'' = (r × F)_z = 1.2·cos θ, against an independent integration."""
    res = circuitsim.parse("""
body B1 m=2 J=(0.25, 0.25, 0.5)
force F1 B1 F=(0, 3, 0) at=(0.4, 0, 0)
.tran 1 10m
""").simulate(**TIGHT)
    np.testing.assert_allclose(res["B1.vy"], 3 * res.t / 2, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res["B1.vx"], 0.0, atol=1e-9)
    ref = solve_ivp(lambda t, s: [s[1], 0.4 * 3 * np.cos(s[0]) / 0.5], (0, 1), [0.0, 0.0],
                    t_eval=res.t, rtol=1e-12, atol=1e-14, method="DOP853")
    assert relative_error(res["B1.wz"], ref.y[1]) < 1e-6


def test_torque_spins_up_a_body_about_a_principal_axis():
    """M = (0, 0, 2·sin(2πt)) N·m on a body at rest: ωz = 2·(1 − cos 2πt)/(2π·Jz), the
    other components stay 0 (no gyroscopic coupling about a principal axis)."""
    res = circuitsim.parse("""
body B1 m=1 J=(0.3, 0.2, 0.5)
torque T1 B1 M=(0, 0, sin(0, 2, 1))
.tran 2 5m
""").simulate(**TIGHT)
    exact = 2 * (1 - np.cos(2 * np.pi * res.t)) / (2 * np.pi * 0.5)
    assert relative_error(res["B1.wz"], exact) < 1e-6
    for name in ("B1.wx", "B1.wy", "B1.vx", "B1.vy", "B1.vz"):
        np.testing.assert_allclose(res[name], 0.0, atol=1e-9)
