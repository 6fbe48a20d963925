"""The hydraulics library against the static force balance and the orifice law."""
import numpy as np
import pytest
from scipy.optimize import brentq

import circuitsim


def test_cylinder_static_force_balance():
    """Rod held still: the holding force is pa*Aa - pb*Ab (F = p*A per chamber)."""
    res = circuitsim.parse("""
.lib hydraulics
V Pa a 0 V=20bar
V Pb b 0 V=5bar
cylinder C1 a b rod x0=0.1
V Hold rod 0 V=0
.tran 0.01 1m
""").simulate(rtol=1e-9, atol=1e-12)
    force_on_rod = 20e5 * 2e-3 - 5e5 * 1e-3
    np.testing.assert_allclose(res["Hold.i"], force_on_rod, rtol=1e-9)


def test_cylinder_extends_at_pump_flow_over_area():
    """A pump feeding chamber A of a free rod: steady speed Q/Aa; B drains to tank.
    The oil column rings at ~4 kHz on the 1 kg rod and pressure a swings through zero
    (-4.6 bar .. +2.8 bar) before settling: with atol 1e-12 applied to pressures in Pa as
    it is, the error test near a zero crossing asked for 1e-15 s steps and the run
    collapsed at t = 0.038 s; scaled by the nominal 1e5 Pa (atol 1e-7 Pa) it runs."""
    res = circuitsim.parse("""
.lib hydraulics
pump P1 a Q=1e-4
cylinder C1 a b rod x0=0.01 Fc=10
orifice O1 b t A=2e-5
tank T1 t
.tran 0.5 1m
""").simulate(rtol=1e-8, atol=1e-12)
    assert res["rod"][-1] == pytest.approx(1e-4 / 2e-3, rel=1e-4)
    # B drains through the orifice: Q = Ab*v at the orifice pressure drop
    q = 1e-3 * res["rod"][-1]
    dp = res["b"][-1]
    law = 0.7 * 2e-5 * np.sqrt(2 / 850) * dp / (dp ** 2 + 1e4 ** 2) ** 0.25
    assert law == pytest.approx(q, rel=1e-6)


def test_orifice_is_turbulent_well_above_the_transition():
    res = circuitsim.parse("""
.lib hydraulics
V Ps s 0 V=50bar
orifice O1 s 0 A=1e-5 Cd=0.7 rho=850
.tran 1m
""").simulate()
    q = -res["Ps.i"][-1]
    assert q == pytest.approx(0.7 * 1e-5 * np.sqrt(2 * 50e5 / 850), rel=1e-5)


def test_library_nodes_are_hydraulic_with_nominal_tolerances():
    """The library's R/C/B/I/V carry domain=hydraulic: its nodes are pressures in Pa,
    its flows m^3/s, and the solver's atol is scaled by their nominal magnitudes
    (1e5 Pa, 1e-4 m^3/s); the rod stays a translational node with scale 1."""
    net = circuitsim.parse("""
.lib hydraulics
pump P1 a Q=1e-4
cylinder C1 a b rod
orifice O1 b t A=2e-5
tank T1 t
.tran 0.01
""")
    system = net.prepare().system
    scale = dict(zip(system.names, system.atol_scale))
    assert system.units["a"] == "Pa" and system.units["O1.Q.i"] == "m^3/s"
    assert scale["a"] == 1e5 and scale["b"] == 1e5 and scale["O1.Q.i"] == 1e-4
    assert system.units["rod"] == "m/s" and scale["rod"] == 1.0
    res = net.simulate()
    assert res.units["a"] == "Pa" and res.units["O1.Q.i"] == "m^3/s"


def test_valve_opening_from_closed_at_t0_settles_at_the_orifice_divider_pressure():
    """A propvalve opened by a ramp from command 0 at t = 0 (the law's kink at the
    closed position) fills a chamber that drains through an orifice. The first step
    used to fail: the first Newton correction is ~0 (the matrix sees no opening), the
    second moves the valve flow by a tiny amount, and the ratio of the two was taken
    for divergence until the step collapsed at 4e-14 s. Steady state: valve flow =
    orifice flow with the library's regularised law, solved here by brentq
    (pa = 205.52 bar for 3000 psi); measured error 5e-14 relative (fully open: ue = 1)."""
    res = circuitsim.parse("""
.lib hydraulics
V Psup sup 0 V=3000psi
V Ucmd cmd 0 V=ramp(0, 0.1, 0, 1)
R Rcmd cmd 0 R=1k
propvalve PV sup pa cmd A=2e-5
chamber CA pa V=1e-3
orifice OB pa tk A=1.6e-6
tank T tk
.tran 0.5 10m
""").simulate(rtol=1e-8)
    assert res.success

    def law(area, dp, cd=0.7, rho=850.0, ptr=1e4):
        return cd * area * np.sqrt(2 / rho) * dp / (dp ** 2 + ptr ** 2) ** 0.25
    ps = 3000 * 6894.757293168
    pa = brentq(lambda p: law(2e-5, ps - p) - law(1.6e-6, p), 0.0, ps, xtol=1e-6)
    assert res["pa"][-1] == pytest.approx(pa, rel=1e-9)
