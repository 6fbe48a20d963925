"""End stop: impact against the analytic contact of a mass on a stiff spring."""
import numpy as np
import pytest

import circuitsim
from circuitsim.errors import NetlistError

BOUNCE = """
mass M1 v m=1 v0=1
stop S1 v 0 upper=0.1 k=1e6 c={c}
.tran 0.3 0.1m
"""


def test_elastic_impact_returns_the_speed():
    """c = 0: contact of half a period pi*sqrt(m/k), penetration v0*sqrt(m/k),
    rebound at the impact speed."""
    res = circuitsim.parse(BOUNCE.replace("{c}", "0")).simulate(rtol=1e-8, atol=1e-10)
    assert res["v"][-1] == pytest.approx(-1.0, rel=1e-4)
    assert np.max(res["S1.x"]) - 0.1 == pytest.approx(1e-3, rel=1e-3)
    contact = res.t[res["S1.f"] > 0]
    assert contact[-1] - contact[0] == pytest.approx(np.pi * 1e-3, abs=2e-4)
    assert np.max(res["S1.f"]) == pytest.approx(1e6 * 1e-3, rel=1e-3)


def test_damped_impact_loses_speed_and_never_pulls():
    res = circuitsim.parse(BOUNCE.replace("{c}", "200")).simulate(rtol=1e-8, atol=1e-10)
    # damping ratio zeta = c/(2 sqrt(k m)) = 0.1: restitution exp(-pi zeta/sqrt(1-zeta^2))
    zeta = 0.1
    e = np.exp(-np.pi * zeta / np.sqrt(1 - zeta ** 2))
    assert -res["v"][-1] == pytest.approx(e, rel=0.05)   # the no-pull rule ends contact early
    assert np.min(res["S1.f"]) >= 0.0


def test_stop_needs_a_limit():
    with pytest.raises(NetlistError, match="lower= and/or upper="):
        circuitsim.parse("mass M v m=1\nstop S v 0 k=1\n.tran 1\n").circuit()
