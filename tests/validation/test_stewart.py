"""netlists/stewart_tracking.cir against an independent reference: a 6-SPS Stewart
platform whose six rods are driven by their lengths, the inverse kinematics of a
prescribed spatial motion written once as a .func of time. The reference
(tests/validation/ref_stewart.py, results in ref_stewart.json) was written from the
problem statement alone: the lengths from the pose, the platform's angular velocity
from R'Rᵀ (sympy, checked against finite differences), and the six leg tensions from
the platform's Newton–Euler equations (a 6×6 solve, condition number 8.5 at most;
force and moment residuals 1e-14).

Compared at the 21 sample times over 2 s: the platform's centre and attitude (Rz·Ry·Rx
angles, from the recorded quaternion), its angular velocity and the six leg forces.
Measured worst: centre 1.5e-9 m, attitude 1.6e-8 rad, ω 4.3e-9 rad/s, forces 2.6e-6 of
the largest at the default tolerances; 1.7e-12 m, 4.2e-12 rad, 3.7e-12 rad/s, 5.0e-9 at
rtol 1e-9 (atol 1e-12); 2.5e-13, 3.6e-13, 2.1e-13, 1.2e-9 at rtol 1e-10 (atol 1e-13)."""
import json
from pathlib import Path

import numpy as np
import pytest

from helpers import load_netlist

REF = json.loads((Path(__file__).parent / "ref_stewart.json").read_text())
LEGS = [f"LEG{k}.f" for k in range(1, 7)]


def attitude(q0, q1, q2, q3):
    """(roll, pitch, yaw) of R = Rz(yaw)·Ry(pitch)·Rx(roll) from a unit quaternion."""
    R = np.array([[1 - 2 * (q2**2 + q3**2), 2 * (q1*q2 - q0*q3), 2 * (q1*q3 + q0*q2)],
                  [2 * (q1*q2 + q0*q3), 1 - 2 * (q1**2 + q3**2), 2 * (q2*q3 - q0*q1)],
                  [2 * (q1*q3 - q0*q2), 2 * (q2*q3 + q0*q1), 1 - 2 * (q1**2 + q2**2)]])
    return np.array([np.arctan2(R[2, 1], R[2, 2]), -np.arcsin(R[2, 0]),
                     np.arctan2(R[1, 0], R[0, 0])])


def errors(res) -> dict:
    worst = dict(centre=0.0, attitude=0.0, spin=0.0, force=0.0)
    for time, row in REF["outputs"].items():
        k = int(np.argmin(np.abs(res.t - float(time))))
        assert res.t[k] == pytest.approx(float(time), abs=1e-12)
        centre = np.array([res[f"PLAT.{c}"][k] for c in "xyz"])
        q = [res[f"PLAT.q{j}"][k] for j in range(4)]
        spin = np.array([res[f"PLAT.w{c}"][k] for c in "xyz"])
        forces = np.array([res[name][k] for name in LEGS])
        worst["centre"] = max(worst["centre"], np.abs(centre - row["p"]).max())
        worst["attitude"] = max(worst["attitude"], np.abs(attitude(*q) - row["angles"]).max())
        worst["spin"] = max(worst["spin"], np.abs(spin - row["w"]).max())
        worst["force"] = max(worst["force"],
                             np.abs(forces - row["f"]).max() / np.abs(row["f"]).max())
    return worst


@pytest.mark.parametrize("rtol, atol, bound", [
    (None, None, 1e-4), (1e-9, 1e-12, 1e-7),
    pytest.param(1e-10, 1e-13, 1e-8, marks=pytest.mark.long)])
def test_platform_follows_its_leg_lengths_and_the_legs_carry_the_inverse_dynamics(
        rtol, atol, bound):
    tol = {} if rtol is None else dict(rtol=rtol, atol=atol)
    res = load_netlist("stewart_tracking.cir").simulate(**tol)
    worst = errors(res)
    # lengths and angles in m and rad (about 0.6 m, 0.1 rad), the spin in rad/s (0.4),
    # the forces relative to the largest (24 N)
    assert worst["centre"] < 0.1 * bound and worst["attitude"] < 0.1 * bound
    assert worst["spin"] < bound and worst["force"] < bound
