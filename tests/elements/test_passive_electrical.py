"""The passive two-terminals R, C and L (in any domain), each against a closed form:
an RC charge, an RL current rise, an LC oscillation, initial values, and R as a
mechanical damper."""
import numpy as np

import circuitsim

from helpers import relative_error, zero_crossings

TIGHT = dict(rtol=1e-9, atol=1e-12)


def test_rc_charge():
    """V → R → C from v_C(0) = 0: v_C = V·(1 − exp(−t/RC)), i = (V − v_C)/R,
    E = ½·C·v_C²; to 1e-7 of the amplitude."""
    res = circuitsim.parse("""
V V1 a 0 V=5
R R1 a b R=1k
C C1 b 0 C=1u ic=0
.tran 5m 10u
""").simulate(**TIGHT)
    v = 5 * (1 - np.exp(-res.t / 1e-3))
    assert relative_error(res["b"], v) < 1e-7
    assert relative_error(res["C1.i"], (5 - v) / 1e3) < 1e-7
    assert relative_error(res["C1.E"], 0.5 * 1e-6 * v ** 2) < 1e-7
    np.testing.assert_allclose(res["R1.i"], res["C1.i"], rtol=1e-7, atol=1e-12)


def test_rl_current_rise():
    """V → R → L from i(0) = 0: i = V/R·(1 − exp(−t·R/L)), E = ½·L·i²."""
    res = circuitsim.parse("""
V V1 a 0 V=10
R R1 a b R=5
L L1 b 0 L=0.5
.tran 1 5m
""").simulate(**TIGHT)
    i = 2 * (1 - np.exp(-10 * res.t))
    assert relative_error(res["L1.i"], i) < 1e-7
    assert relative_error(res["L1.E"], 0.5 * 0.5 * i ** 2) < 1e-7


def test_lc_oscillates_with_period_two_pi_sqrt_lc():
    """C charged to 1 V discharging into L: v = cos(t/sqrt(LC)); the period between
    upward zero crossings is 2π·sqrt(LC) to 1e-6, the amplitude 1 V to 1e-6."""
    res = circuitsim.parse("""
C C1 a 0 C=1m ic=1
L L1 a 0 L=0.1
.tran 0.5 0.1m
""").simulate(**TIGHT)
    period = 2 * np.pi * np.sqrt(0.1 * 1e-3)
    crossings = zero_crossings(res.t, res["a"], direction=1)
    assert len(crossings) >= 6
    np.testing.assert_allclose(np.diff(crossings), period, rtol=1e-6)
    assert relative_error(res["a"], np.cos(res.t / np.sqrt(0.1 * 1e-3))) < 1e-6


def test_resistor_in_the_translational_domain_is_a_damper():
    """R between a mass's node and ground draws the force v/R: m·v' = −v/R, so
    v = v0·exp(−t/(R·m))."""
    res = circuitsim.parse("""
mass M1 v m=2 v0=3
R R1 v 0 R=0.5
.tran 2 10m
""").simulate(**TIGHT)
    np.testing.assert_allclose(res["v"], 3 * np.exp(-res.t), rtol=1e-7)
    np.testing.assert_allclose(res["R1.i"], res["v"] / 0.5, rtol=1e-9)


def test_initial_values_capacitor_ic_and_dot_ic():
    """C's ic, then a .ic line overriding it: an RC discharge from that value."""
    res = circuitsim.parse("""
C C1 a 0 C=1m ic=5
R R1 a 0 R=100
.tran 0.5 5m
""").simulate(**TIGHT)
    np.testing.assert_allclose(res["a"], 5 * np.exp(-res.t / 0.1), rtol=1e-7)
    res = circuitsim.parse("""
C C1 a 0 C=1m ic=5
R R1 a 0 R=100
.ic a=2
.tran 0.5 5m
""").simulate(**TIGHT)
    np.testing.assert_allclose(res["a"], 2 * np.exp(-res.t / 0.1), rtol=1e-7)


def test_inductor_ic():
    """L's ic: an RL decay from that current."""
    res = circuitsim.parse("""
L L1 a 0 L=2 ic=1.5
R R1 a 0 R=4
.tran 2 10m
""").simulate(**TIGHT)
    np.testing.assert_allclose(res["L1.i"], 1.5 * np.exp(-2 * res.t), rtol=1e-7)
