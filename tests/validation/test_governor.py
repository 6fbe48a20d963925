"""netlists/governor.cir against an independent reference: a free flyball governor
(spindle, two arms with 5 kg balls as point masses, two links, a sleeve on the spindle:
two closed loops of 8 joints under gravity), released spinning. The reference
(tests/validation/ref_governor.py, results in ref_governor.json) was written from the
problem statement alone: the symmetric motion's Lagrangian in (phi, theta) built with
sympy from every body's 3D pose, integrated by DOP853 at rtol 1e-12 (Radau and LSODA
agree to 9e-10 of each quantity's range; energy and angular momentum about z drift by
1e-13).

Compared at 13 times over 3 s: the arms' angle (both arms), the spin, the spindle's
angle, the sleeve's height and speed, each relative to its value (the sleeve's speed
absolutely, m/s). Measured worst, base case (w0 = 6 rad/s) / study spin9 (9 rad/s):
9.9e-6 / 5.5e-6 at the default tolerances, 1.6e-8 / 2.1e-8 at rtol 1e-9 (atol 1e-12),
1.9e-9 / 2.6e-9 at rtol 1e-10 (atol 1e-13). Before the start-up's Newton knew its
rounding floor this mechanism stopped at t = 0 with E_INIT whenever atol <= 1e-13."""
import json
from pathlib import Path

import numpy as np
import pytest

from helpers import load_netlist

REF = json.loads((Path(__file__).parent / "ref_governor.json").read_text())
THETA0 = REF["problem"]["theta0_rad"]
CASES = {None: "w0=6", "spin9": "w0=9"}


def worst_error(res, case) -> float:
    worst = 0.0
    for time, row in REF["cases"][case]["outputs"].items():
        k = int(np.argmin(np.abs(res.t - float(time))))
        assert res.t[k] == pytest.approx(float(time), abs=1e-12)
        got = {"theta": THETA0 + res["A1.angle"][k], "w": res["S.wz"][k],
               "phi": res["JS.angle"][k], "zs": res["sleeve.z"][k]}
        for key, value in got.items():
            if row[key] != 0.0:
                worst = max(worst, abs(value - row[key]) / abs(row[key]))
        worst = max(worst, abs(res["A2.angle"][k] - res["A1.angle"][k]) / THETA0,
                    abs(res["sleeve.vz"][k] - row["dzs_dt"]))
    return worst


@pytest.mark.parametrize("study, rtol, atol, bound", [
    (None, None, None, 5e-5), (None, 1e-9, 1e-12, 1e-7),
    pytest.param("spin9", None, None, 5e-5, marks=pytest.mark.long),
    pytest.param(None, 1e-10, 1e-13, 1e-8, marks=pytest.mark.long),
    pytest.param("spin9", 1e-9, 1e-12, 1e-7, marks=pytest.mark.long),
    pytest.param("spin9", 1e-10, 1e-13, 1e-8, marks=pytest.mark.long)])
def test_governor_matches_its_independent_lagrangian_model(study, rtol, atol, bound):
    tol = {} if rtol is None else dict(rtol=rtol, atol=atol)
    res = load_netlist("governor.cir").simulate(study=study, **tol)
    assert worst_error(res, CASES[study]) < bound
    # the spin's minimum, where the arms are farthest out (angular momentum kept)
    spin = [row["w"] for row in REF["cases"][CASES[study]]["outputs"].values()]
    assert res.measures.values["spin_min"] <= min(spin) + 1e-9


@pytest.mark.parametrize("rtol, atol", [(1e-9, 1e-12), (1e-10, 1e-13), (1e-9, 1e-13)])
def test_governor_starts_at_tight_tolerances(rtol, atol):
    """The consistent start of the two closed loops under gravity: the velocities given
    consistent to rounding are kept, every equation solved to its rounding level."""
    res = load_netlist("governor.cir").simulate(t_end=0.02, rtol=rtol, atol=atol)
    assert res.status == "success"
    start = REF["cases"]["w0=6"]["outputs"]["0"]
    assert res["S.wz"][0] == pytest.approx(start["w"], rel=1e-14)
    assert res["sleeve.z"][0] == pytest.approx(start["zs"], rel=1e-14)
    assert res["A1.angle"][0] == 0.0 or abs(res["A1.angle"][0]) < 1e-14
