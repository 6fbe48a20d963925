"""netlists/motor_pendulum.cir against an independent reference: a DC motor through a
20:1 gear swinging a pendulum over the top, on a piecewise-linear supply whose four
corners are breakpoints. The reference (tests/validation/ref_motor_pendulum.py, its
results in ref_motor_pendulum.json) was written from the problem statement alone as a
three-state ODE and integrated with scipy piecewise between the corners (Radau at rtol
1e-12; DOP853 and LSODA agree to 3.5e-12 of each quantity's range).

Every corner is passed at every setting from rtol 1e-6 to 1e-10, and the error falls
with rtol. (Before the start-up's convergence tests knew their rounding floor, the
restarts at 1.5 s and 1.502 s stopped with E_INIT at rtol 1e-8 and 1e-9.)"""
import json
from pathlib import Path

import numpy as np
import pytest

from helpers import load_netlist

REF = json.loads((Path(__file__).parent / "ref_motor_pendulum.json").read_text())
# reference name -> (recorded variable, the scale an error is measured against: its range)
COMPARED = {"theta": ("H.angle", 8.6), "dtheta_dt": ("P.wz", 10.0), "i": ("M.La.i", 3.3)}
# measured worst errors: 2.4e-7, 4.6e-8, 7.2e-9, 1.7e-9, 2.0e-10
SETTINGS = [(1e-6, 1e-9, 1e-6), (1e-7, 1e-10, 2e-7), (1e-8, 1e-11, 5e-8),
            (1e-9, 1e-12, 1e-8), (1e-10, 1e-13, 1e-9)]
SUITE = (1e-6, 1e-10)     # the others with CIRCUITSIM_LONG_TESTS=1


def worst_error(res) -> float:
    worst = 0.0
    for time, row in REF["outputs"].items():
        k = int(np.argmin(np.abs(res.t - float(time))))
        assert res.t[k] == pytest.approx(float(time), abs=1e-12)
        for key, (name, scale) in COMPARED.items():
            worst = max(worst, abs(res[name][k] - row[key]) / scale)
    return worst


def checked(rtol, atol, bound) -> float:
    """One run: every corner passed, the reference met; its worst error."""
    res = load_netlist("motor_pendulum.cir").simulate(rtol=rtol, atol=atol)
    assert res.status == "success" and res.t[-1] == 3.0
    assert res.stats["nrestart"] == 3          # 1 ms, 1.5 s, 1.502 s (3 s is the end)
    error = worst_error(res)
    assert error < bound
    m = res.measures.values
    assert m["over_top"] == pytest.approx(REF["t_first_theta_pi"], abs=max(bound, 2e-7))
    # the peak between 1 ms output points, by the parabola through the largest three
    assert m["wmax"] == pytest.approx(REF["dtheta_dt_max_0_1.5"], rel=max(bound, 1e-6))
    return error


def test_corners_passed_and_the_error_falls_with_rtol():
    errors = [checked(*s) for s in SETTINGS if s[0] in SUITE]
    assert errors[1] < 1e-3 * errors[0]


@pytest.mark.long
@pytest.mark.parametrize("rtol, atol, bound", [s for s in SETTINGS if s[0] not in SUITE])
def test_every_other_setting(rtol, atol, bound):
    checked(rtol, atol, bound)
