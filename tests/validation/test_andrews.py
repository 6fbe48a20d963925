"""Andrews' squeezing mechanism (the seven-body mechanism of Hairer & Wanner, "Solving
Ordinary Differential Equations II", Sec. VII.7) against the reference solution of the
Test Set for IVP Solvers (Univ. of Bari, problem "andrews", file andrews.f, subroutine
andsoln: PSIDE at rtol = atol = 1e-14). The netlist andrews.cir builds the mechanism from
bodies, ten revolute joints, a spring3d and a motor torque; the data, the initial angles
and the reference values below are the test set's.

The test set's seven coordinates are joint angles of the netlist (andrews.cir explains
the placement): beta = JO (crank), Theta = JP (link 2 relative to the crank), gamma = JB,
Phi = JH (link 4 relative to link 5), delta = JA5, Omega = JG (link 6 relative to link 7),
epsilon = JA7; each is J.angle plus its initial value. The same angles are also formed
from the bodies' quaternions (absolute angle 2·atan2(q3, q0), unwrapped over the run).

Measured at t = 0.03 s (the crank has turned 2.5 revolutions and spins at 1140 rad/s),
largest angle error (beta and Theta) / largest error of the slow angles (gamma .. epsilon):
    rtol/atol 1e-6/1e-9:   6.7e-4 / 7.4e-6 rad,  393 steps (37 rejected), ~1.1 s
    rtol/atol 1e-9/1e-12:  1.3e-6 / 1.3e-8 rad, 1055 steps (25 rejected), ~2.2 s
(1e-10/1e-13: 8.4e-8 / 4.5e-10 rad; 1e-11/1e-13: 1.6e-8 / 1.1e-10 rad — the run keeps
converging onto the reference.) With one degree of freedom every configuration is a
function of beta, and the angles from the quaternions are the reference's moved along
that curve: each error is beta's error times y_i'/beta' to 2.4e-13 rad at 1e-9 (a time
shift of 9.25e-10 s for all seven), which checks the geometry and the angle mapping to
the test set's constraints. The joints' J.angle, integrated from the axis nodes, differ
from the quaternion angles by 5.4e-9 rad (1e-9) / 4.8e-6 rad (1e-6). The angular
velocities, left out of the error test under rigid joints, carry the same phase error
times the large accelerations (Phi'' = 5.7e5 rad/s^2): largest velocity error 5.3e-4
rad/s at 1e-9 and 0.27 rad/s at 1e-6 (Phi', of 19.3 rad/s). Joint gaps stay below
7.3e-13 m (1e-9) and 1.5e-9 m (1e-6). At t = 0 the reaction of the hinge of links 2 and 3
equals the test set's multipliers (lambda1, lambda2) = (98.5669, -6.1227) N to 1e-15
relative, and the other two hinges at E carry nothing (< 1e-16 N), as there.
"""
import time
from functools import lru_cache

import numpy as np
import pytest

import circuitsim
from helpers import REPO

HERE = REPO / "tests" / "validation"
TIGHT, DEFAULT = (1e-9, 1e-12), (1e-6, 1e-9)

# the test set's coordinates, in its order, and the joints that measure them
NAMES = ["beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon"]
JOINTS = ["JO", "JP", "JB", "JH", "JA5", "JG", "JA7"]
# consistent initial values (test set, andrews.f / its problem description), rad
Y0 = np.array([-0.0617138900142764496358948458001, 0.0,
               0.455279819163070380255912382449, 0.222668390165885884674473185609,
               0.487364979543842550225598953530, -0.222668390165885884674473185609,
               1.23054744454982119249735015568])
# reference solution at t = 0.03 s (test set, andsoln: y(1..7) and y(8..14))
REF = np.array([0.1581077119629904e+2, -0.1575637105984298e+2, 0.4082224013073101e-1,
                -0.5347301163226948e+0, 0.5244099658805304e+0, 0.5347301163226948e+0,
                0.1048080741042263e+1])
REF_RATE = np.array([0.1139920302151208e+4, -0.1424379294994111e+4, 0.1103291221937134e+2,
                     0.1929337464421385e+2, 0.5735699284790808e+0, -0.1929337464421385e+2,
                     0.3231791658026955e+0])
# multipliers at t = 0 (test set, y(22..27)): only the pair of g1, g2 (link 2 = link 3
# at E) is nonzero; -G^T lambda enters the equations, so (lambda1, lambda2) is the force
# on link 3 at E, the force frame 1 (L2) exerts on frame 2 (L3) of joint JE3.
LAMBDA12 = np.array([98.5668703962410896057654982170, -6.12268834425566265503114393122])
# geometry for the spring length (test set's data, as in andrews.cir)
XB, YB, XC, YC, SC, SD = -0.03635, 0.03273, 0.014, 0.072, 18e-3, 2e-2


@lru_cache(maxsize=None)
def run(tol):
    t0 = time.perf_counter()
    res = circuitsim.load(HERE / "andrews.cir").simulate(rtol=tol[0], atol=tol[1])
    return res, time.perf_counter() - t0


def joint_angles(res):
    """The test set's seven coordinates at the end of the run, from the joint angles."""
    return np.array([res[j + ".angle"][-1] for j in JOINTS]) + Y0


def body_angles(res):
    """The same seven coordinates from the bodies' quaternions: each body's absolute
    angle (turn about z since t = 0, unwrapped, plus its initial absolute angle)."""
    turn = {b: np.unwrap(2 * np.arctan2(res[f"L{b}.q3"], res[f"L{b}.q0"]))[-1]
            for b in range(1, 8)}
    beta, gamma, delta, eps = (turn[1] + Y0[0], turn[3] + Y0[2], turn[5] + Y0[4],
                               turn[7] + Y0[6])
    link2 = turn[2] + Y0[0] + Y0[1]             # beta + Theta
    link4 = turn[4] + Y0[3] + Y0[4]             # Phi + delta
    link6 = turn[6] + Y0[5] + Y0[6]             # Omega + epsilon
    return np.array([beta, link2 - beta, gamma, link4 - delta, delta, link6 - eps, eps])


def test_runs_reach_t_end():
    for tol in (TIGHT, DEFAULT):
        res, _ = run(tol)
        assert res.success, res.message
        assert res.t[-1] == pytest.approx(0.03, abs=1e-15)


def test_angles_at_t_003_match_the_reference_solution():
    err_tight = joint_angles(run(TIGHT)[0]) - REF
    err_default = joint_angles(run(DEFAULT)[0]) - REF
    # all seven (beta, Theta: 15.8 rad after 2.5 turns): measured 1.3e-6 and 6.7e-4
    assert np.max(np.abs(err_tight)) < 3e-6
    assert np.max(np.abs(err_default)) < 2e-3
    # the slow angles gamma .. epsilon: measured 1.3e-8 and 7.4e-6
    assert np.max(np.abs(err_tight[2:])) < 4e-8
    assert np.max(np.abs(err_default[2:])) < 2e-5
    # tightening the tolerance by 1000 gains ~500 (no error floor of the model)
    assert np.max(np.abs(err_tight)) < np.max(np.abs(err_default)) / 100
    assert np.max(np.abs(err_tight[2:])) < np.max(np.abs(err_default[2:])) / 100


def test_body_orientations_give_the_same_angles():
    """The quaternions and the joints' integrated angles tell the same story (measured
    difference 5e-9 rad at 1e-9), and the quaternion angles meet the reference too."""
    res, _ = run(TIGHT)
    from_bodies = body_angles(res)
    assert np.max(np.abs(from_bodies - joint_angles(res))) < 3e-8
    assert np.max(np.abs(from_bodies - REF)) < 3e-6
    assert np.max(np.abs(from_bodies[2:] - REF[2:])) < 4e-8


@pytest.mark.parametrize("tol, off", [(TIGHT, 2e-12), (DEFAULT, 3e-7)])
def test_the_error_lies_along_the_one_degree_of_freedom(tol, off):
    """The quaternion angles' errors are beta's error times dy_i/dbeta = y_i'/beta' of the
    reference: measured off the curve by 2.4e-13 rad (1e-9) and 6.2e-8 rad (1e-6)."""
    err = body_angles(run(tol)[0]) - REF
    assert np.max(np.abs(err - err[0] * REF_RATE / REF_RATE[0])) < off


def test_angular_velocities_at_t_003():
    """The joints' axis nodes are the test set's y(8..14). Measured 5.3e-4 rad/s (Phi')
    at 1e-9 and 0.27 rad/s at 1e-6: the phase error times the accelerations."""
    rates = lambda res: np.array([res[j + ".w"][-1] for j in JOINTS])
    err_tight = rates(run(TIGHT)[0]) - REF_RATE
    err_default = rates(run(DEFAULT)[0]) - REF_RATE
    assert np.max(np.abs(err_tight)) < 1.5e-3
    assert np.max(np.abs(err_default)) < 0.8
    assert np.max(np.abs(err_tight)) < np.max(np.abs(err_default)) / 100


def test_initial_reactions_are_the_test_sets_multipliers():
    """Released from rest, the crank's torque and the spring load meet at E: the hinge of
    links 2-3 carries the test set's (lambda1, lambda2), those of links 2-4 and 2-6 none."""
    res, _ = run(TIGHT)
    assert res.t[0] == 0.0
    force = np.array([res["JE3.Fx"][0], res["JE3.Fy"][0]])
    np.testing.assert_allclose(force, LAMBDA12, rtol=1e-12)
    for j in ("JE4", "JE6"):
        assert abs(res[j + ".Fx"][0]) < 1e-12 and abs(res[j + ".Fy"][0]) < 1e-12


@pytest.mark.parametrize("tol, gap", [(TIGHT, 1e-11), (DEFAULT, 1e-8)])
def test_loops_stay_closed_and_the_spring_follows_gamma(tol, gap):
    """Joint gaps (measured 7.3e-13 m at 1e-9, 1.5e-9 m at 1e-6) and the spring's length
    against |D(gamma) - C| of the reference gamma."""
    res, _ = run(tol)
    joints = JOINTS + ["JE3", "JE4", "JE6"]
    assert max(np.max(np.abs(res[j + ".gap"])) for j in joints) < gap
    g = REF[2]
    d = np.array([XB + SD * np.cos(g) + SC * np.sin(g), YB + SD * np.sin(g) - SC * np.cos(g)])
    length = np.hypot(*(d - [XC, YC]))
    # dL/dgamma ~ 0.02 m/rad: the gamma errors above map to 4e-10 m and 2e-7 m
    assert abs(res["S.L"][-1] - length) < (1e-9 if tol == TIGHT else 5e-7)
