"""netlists/position_loop.cir against an independent reference: the same servo (motor,
position PID with a current limit and clamping anti-windup, current PI with a voltage
limit, winding R(T) heated by i²R through a thermal capacity and resistance) written as
an ODE from the problem statement alone and integrated with scipy piecewise between its
located switches (tests/validation/ref_position_loop.py, its results stored in
ref_position_loop.json: Radau at rtol 1e-12 agrees with DOP853 and LSODA to 1e-9)."""
import json
from pathlib import Path

import numpy as np
import pytest

from helpers import load_netlist

REF = json.loads((Path(__file__).parent / "ref_position_loop.json").read_text())
# reference name -> (recorded variable, the scale an error is measured against)
COMPARED = {"theta": ("theta", 2.0), "w": ("shaft", 50.0), "i": ("i", 2.0),
            "i_ref": ("iref", 2.0), "u": ("u", 24.0), "T": ("tw", 293.15),
            "xi": ("Cp.xi", 1.0)}


def worst_error(res) -> float:
    """The largest error at the reference's times, each in units of its scale."""
    worst = 0.0
    for time, row in REF["outputs"].items():
        k = int(np.argmin(np.abs(res.t - float(time))))
        assert res.t[k] == pytest.approx(float(time), abs=1e-12)
        for key, (name, scale) in COMPARED.items():
            worst = max(worst, abs(res[name][k] - row[key]) / scale)
    return worst


@pytest.mark.slow
@pytest.mark.parametrize("rtol, atol, bound", [(1e-6, 1e-9, 5e-6), (1e-9, 1e-12, 1e-8)])
def test_position_loop_matches_its_independent_ode(rtol, atol, bound):
    # measured: 9.9e-7 at the default tolerances, 2.5e-9 at rtol 1e-9
    res = load_netlist("position_loop.cir").simulate(rtol=rtol, atol=atol)
    assert worst_error(res) < bound
    m = res.measures.values
    # the peak between 1 ms output points, by the parabola through the largest three:
    # 9.4e-7 at either tolerance (the output interval's, not the run's, error)
    assert m["overshoot"] == pytest.approx(REF["theta_max_0.05_0.55"], rel=max(bound, 2e-6))
    # a crossing of the PID's unlimited output, whose derivative part moves on the
    # filter's 2 ms time scale: the cubic through 1 ms points finds it to 1.5e-5 s
    assert m["tlimit"] == pytest.approx(REF["t_iref_leaves_plus_limit"], abs=3e-5)
    assert m["Tend"] == pytest.approx(REF["T_3"], rel=bound)
    assert m["Rend"] == pytest.approx(REF["R_T_3"], rel=bound)
    assert m["irms"] == pytest.approx(REF["i_rms_0_3"], rel=bound)
    if rtol == 1e-6:
        winding_resistance_follows_its_temperature(res)


def winding_resistance_follows_its_temperature(res):
    T, R = res["tw"], res["M.Ra.R"]
    assert np.max(np.abs(R - 1.0 * (1 + 3.93e-3 * (T - 293.15)))) < 1e-12
    assert res["tw"][-1] - 293.15 > 2.0          # the duty cycle warms it (2.48 K)
