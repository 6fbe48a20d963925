"""Time functions in sources, behavioural sources, transducers and initial values,
each against a closed form or an independent integration."""
import numpy as np
import pytest
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


def test_gyrator_piston_pressure_to_force():
    """Pressure p on a piston of area A drives a mass: m v' = A p, Q = A v."""
    res = circuitsim.parse("""
V P1 p 0 V=2bar
gyrator Pist p 0 v 0 k=1e-3
mass M1 v m=10kg
.tran 1 10m
""").simulate(**TIGHT)
    A, p, m = 1e-3, 2e5, 10.0
    np.testing.assert_allclose(res["v"], A * p * res.t / m, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(-res["P1.i"], A * res["v"], rtol=1e-9, atol=1e-15)


def test_transformer_gear_reflects_inertia():
    """Torque on the input of a gear w1 = n w2: J_eq = J1 + J2/n^2 and power balances."""
    res = circuitsim.parse("""
I T1 0 w1 I=2
inertia J1 w1 J=0.1
transformer G w1 0 w2 0 n=4
inertia J2 w2 J=0.8
.tran 1 10m
""").simulate(**TIGHT)
    j_eq = 0.1 + 0.8 / 16
    np.testing.assert_allclose(res["w1"], 2 * res.t / j_eq, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(res["w2"], res["w1"] / 4, rtol=1e-9, atol=1e-12)


def test_initial_values_capacitor_ic_dot_ic_and_mass_v0():
    net = circuitsim.parse("""
C C1 a 0 C=1m ic=5
R R1 a 0 R=100
mass M1 v m=2 v0=3
damper D1 v 0 b=4
.tran 0.5 5m
""")
    res = net.simulate(**TIGHT)
    np.testing.assert_allclose(res["a"], 5 * np.exp(-res.t / 0.1), rtol=1e-7)
    np.testing.assert_allclose(res["v"], 3 * np.exp(-2 * res.t), rtol=1e-7)
    res = circuitsim.parse("""
C C1 a 0 C=1m ic=5
R R1 a 0 R=100
.ic a=2
.tran 0.5 5m
""").simulate(**TIGHT)
    np.testing.assert_allclose(res["a"], 2 * np.exp(-res.t / 0.1), rtol=1e-7)


def test_inductor_ic_and_spring_x0():
    res = circuitsim.parse("""
L L1 a 0 L=2 ic=1.5
R R1 a 0 R=4
.tran 2 10m
""").simulate(**TIGHT)
    np.testing.assert_allclose(res["L1.i"], 1.5 * np.exp(-2 * res.t), rtol=1e-7)


@pytest.mark.parametrize("text,value", [("5kg", 5.0), ("500g", 0.5)])
def test_units_on_mass(text, value):
    c = circuitsim.parse(f"mass M1 v m={text}\nI F 0 v I=1\n.tran 1\n").circuit()
    assert c.element("M1").params["m"] == pytest.approx(value)


@pytest.mark.parametrize("line,param,value", [
    ("L L1 a 0 L=10mH", "L", 0.01),
    ("inertia J1 a J=1 w0=300rpm", "w0", 300 * 2 * np.pi / 60),
    ("spring K1 a 0 k=1 x0=90deg", "x0", np.pi / 2),
    ("V P1 a 0 V=2bar", "V", 2e5),
    ("spring K1 a 0 k=1 x0=1m", "x0", 1.0),
    ("R R1 a 0 R=1m", "R", 1e-3),
    ("C C1 a 0 C=10u", "C", 1e-5),
])
def test_units_on_element_parameters(line, param, value):
    extra = "\ninertia Jx a J=1" if "rpm" in line or "deg" in line else (
        "\nmass Mx a m=1" if "x0=1m" in line else "\nR Rx a 0 R=1")
    c = circuitsim.parse(line + extra + "\n.tran 1\n").circuit()
    assert c.elements[0].params[param] == pytest.approx(value)
