"""The hydraulics library against the static force balance and the orifice law."""
import numpy as np
import pytest

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
    """A pump feeding chamber A of a free rod: steady speed Q/Aa; B drains to tank."""
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
