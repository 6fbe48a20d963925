"""Transducers: the ideal transformer and gyrator (power-conserving two-ports), each
against a closed form."""
import numpy as np

import circuitsim

from helpers import relative_error

TIGHT = dict(rtol=1e-9, atol=1e-12)

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


def test_gyrator_piston_pushed_at_a_velocity_draws_a_pressure():
    """The other way round: a piston (k = A) driven at v draws the volume flow A·v
    from the hydraulic node, so over R to tank p = −A·v·R (suction), and the piston
    needs the force −A·p from its source."""
    res = circuitsim.parse("""
V Vv v 0 V=ramp(0, 0.5, 0, 0.2) domain=translational
gyrator Pist p 0 v 0 k=1e-3
R Rh p 0 R=1e9 domain=hydraulic
.tran 1 10m
""").simulate(**TIGHT)
    A, R = 1e-3, 1e9
    v = np.interp(res.t, [0, 0.5, 1], [0, 0.2, 0.2])
    np.testing.assert_allclose(res["p"], -A * v * R, rtol=1e-9, atol=1e-6)
    np.testing.assert_allclose(res["Vv.i"], A * res["p"], rtol=1e-9, atol=1e-12)


def test_transformer_dc_motor_spins_up_to_its_no_load_speed():
    """V → R → transformer k → inertia J: V = R·i + k·ω, J·ω' = k·i, so
    ω = V/k·(1 − exp(−t/τ)) with τ = R·J/k², and i = (V − k·ω)/R."""
    res = circuitsim.parse("""
V V1 s 0 V=12
R Ra s a R=2
transformer TM a 0 w 0 n=0.05
inertia J1 w J=1e-4
.tran 0.5 1m
""").simulate(**TIGHT)
    V, R, k, J = 12.0, 2.0, 0.05, 1e-4
    omega = V / k * (1 - np.exp(-res.t * k ** 2 / (R * J)))
    assert relative_error(res["w"], omega) < 1e-6
    np.testing.assert_allclose(res["TM.i"], (V - k * res["w"]) / R, rtol=1e-9, atol=1e-12)
