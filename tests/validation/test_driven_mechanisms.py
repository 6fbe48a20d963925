"""Prescribed motion against inverse dynamics written separately (ref_driven_*.py,
ref_open_arm.py: closed-form kinematics with energy and Newton–Euler routes, recursive
Newton–Euler and Lagrange for the arm), at the default-like and at tight tolerances.

Measured (rtol/atol 1e-6/1e-9 -> 1e-9/1e-12), largest error over the run:
four-bar drive torque 3.4e-4 -> 4.4e-7 N·m (peak 1.55), rocker angle 1.5e-6 -> 1.7e-9
rad (2.2e-8 at every rtol from 1e-9 down with the netlist's 7-digit joint point C); slider–crank torque 8.2e-4 -> 5.5e-7 N·m, slider x 2.0e-7 -> 2.7e-10 m (the torque at
the default tolerance varies with the step pattern: 3.5e-4, 4.3e-4 and 8.2e-4 N·m with
three variants of the error norm and first step, peak 6 N·m); arm
torques 3.6e-4 -> 1.2e-6 N·m (peak 12 N·m; 6.4e-6 at rtol 1e-8, 1.8e-7 at 1e-10), at
t = 0 2.6e-11 (the prescribed accelerations enter the initial reactions), waist force
7.3e-4 -> 4.3e-6 N (2.7e-6 with atol 1.0000000000000001e-12: the step pattern's
scatter; 1.5e-5 at rtol 1e-8, 5.6e-8 at 1e-11), moment 3.8e-4 -> 2.7e-7 N·m. The
reactions come from the bodies' accelerations, BDF derivatives of their rates, ~1/(h·ω)
times less accurate than the rates the error test watches: with the global ω rather
than the body-axes ω_b as the integrated state (the same steps, 454 against 449) they
were torques 2.5e-4 -> 5.6e-7 N·m, force 3.7e-4 -> 1.5e-6 N (1.7e-5 at 1e-8, 2.5e-8
at 1e-11): the same rate of convergence with another scatter.
A fully driven mechanism has no motion along its constraints, so the local error test
(which measures the correction along them) sees little of it: the reactions' accuracy
at the default tolerance comes from the steps the inputs and coordinates need.
"""
import numpy as np

import circuitsim
from helpers import REPO, netlist_text
from validation import ref_driven_fourbar as fourbar_ref
from validation import ref_driven_slider_crank as slider_ref
from validation import ref_open_arm as arm_ref

HERE = REPO / "tests" / "validation"
TIGHT, DEFAULT = (1e-9, 1e-12), (1e-6, 1e-9)


def driven_fourbar() -> str:
    """netlists/fourbar.cir with its crank's axis node held at 10 rad/s, and its joint
    point C (given there to 7 digits: a 2e-8 rad floor on the rocker angle) at the
    reference's exact circle intersection."""
    cx, cy = (float(v) for v in fourbar_ref.joint_points(0.0)[1])
    return (netlist_text("fourbar").replace(".ic crank.wz=8", "")
            .replace(".param cx=0.2987219 cy=0.2823876", f".param cx={cx!r} cy={cy!r}")
            .replace(".tran 2 2m", ".tran 1 10m")
            .replace("revolute JA 0 crank at=(0, 0, 0) axis=(0, 0, 1)",
                     "revolute JA 0 crank at=(0, 0, 0) axis=(0, 0, 1) flange=drive\n"
                     "V Vd drive 0 V=10")
            .replace(".probe", ".probe JA.tau Vd.i"))


def errors_fourbar(tol):
    res = circuitsim.parse(driven_fourbar(), "driven_fourbar.cir").simulate(
        rtol=tol[0], atol=tol[1])
    rocker = fourbar_ref.rocker_angle(res.t) - fourbar_ref.rocker_angle(0.0)
    return (np.max(np.abs(res["JA.tau"] - fourbar_ref.drive_torque(res.t))),
            np.max(np.abs(res["JD.angle"] - rocker)), res)


def errors_slider_crank(tol):
    res = circuitsim.load(HERE / "slider_crank_driven.cir").simulate(rtol=tol[0], atol=tol[1])
    return (np.max(np.abs(res["J1.tau"] - slider_ref.drive_torque(res.t))),
            np.max(np.abs(res["slider.x"] - slider_ref.slider_x(res.t))), res)


def errors_arm(tol):
    res = circuitsim.load(HERE / "open_arm.cir").simulate(rtol=tol[0], atol=tol[1])
    tau = np.stack([res["W.tau"], res["S.tau"], res["E.tau"]], axis=1)
    ref = arm_ref.drive_torques(res.t)
    F, M = arm_ref.waist_reaction(res.t)       # ground on link 1; M about the origin
    Fs = np.stack([res[f"W.F{a}"] for a in "xyz"], axis=1)
    Ms = np.stack([res[f"W.M{a}"] for a in "xyz"], axis=1)  # the drive torque apart
    return (np.max(np.abs(tau - ref)), np.max(np.abs(tau[0] - ref[0])),
            np.max(np.abs(Fs - F)), np.max(np.abs(Ms - M)))


def converged(errors, tight_bounds, default_bounds):
    """Run ``errors(tol)`` at the tight and the default tolerances: each error within its
    bound, and every error at least 50x smaller at the tight tolerance. Returns the
    tight run's extra outputs."""
    *tight, extra = errors(TIGHT)
    *default, _ = errors(DEFAULT)
    for e_tight, e_default, b_tight, b_default in zip(tight, default, tight_bounds,
                                                      default_bounds):
        assert e_tight < b_tight and e_default < b_default
        assert e_tight < e_default / 50
    return extra


def test_driven_fourbar_drive_torque_and_rocker():
    res = converged(errors_fourbar, (3e-6, 1e-8), (6e-4, 2e-5))       # torque, rocker
    # the source's flow is the reaction of the drive: Vd.i = -JA.tau
    np.testing.assert_allclose(res["Vd.i"], -res["JA.tau"], atol=1e-12)


def test_driven_slider_crank_drive_torque_and_slider():
    res = converged(errors_slider_crank, (4e-6, 1e-9), (1.5e-3, 1e-6))  # torque, slider x
    # the guide carries the slider's weight and the rod's vertical load: P.Fy = N
    np.testing.assert_allclose(res["P.Fy"], slider_ref.guide_force(res.t), atol=5e-6)


def test_open_arm_reactions_follow_the_prescribed_motion_from_t0():
    """The drive torques at t = 0 include the prescribed joint accelerations (they were
    computed as if those were zero: waist 0 instead of 1.99 N·m)."""
    tau, tau0, force, moment = errors_arm(TIGHT)
    assert tau0 < 1e-9
    assert tau < 2e-6 and force < 6e-6 and moment < 1e-6
    tau_default, tau0_default, force_default, moment_default = errors_arm(DEFAULT)
    assert tau0_default < 1e-9
    assert tau_default < 5e-4 and force_default < 2e-3 and moment_default < 5e-4
    assert tau < tau_default / 50
