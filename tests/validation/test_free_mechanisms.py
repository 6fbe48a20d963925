"""Free motion of IFToMM benchmark mechanisms against exact 1-DOF references written
separately (ref_spatial_slider_crank.py, ref_double_fourbar.py).

The full convergence tables (rtol 1e-6 ... 1e-10) are printed by
``python benchmarks/convergence.py``; docs/validation.md lists them.
"""
from functools import lru_cache

import numpy as np
import pytest

import circuitsim
from helpers import REPO
from validation import ref_double_fourbar, ref_spatial_slider_crank

HERE = REPO / "tests" / "validation"
FOURBAR_JOINTS = ("G1", "G2", "G3", "T1", "T2", "T3", "T4")


def stored_energy(res) -> np.ndarray:
    return sum(res[n] for n in res.names if n.endswith((".T", ".U")))


@pytest.mark.slow
def test_spatial_slider_crank_follows_the_exact_model():
    """Started at exactly consistent velocities: the start-up moves nothing. Slider
    position against the exact model over the first 2.5 s (4 crank turns; the error
    grows with the phase, so the bounds are the netlist's 5 s ones scaled with it) at
    rtol 1e-9, atol 1e-12: measured 8.7e-8 m (7.9e-8 on the compiled kernels), energy
    6.4e-8 J (5.9e-8) of 0.72 J. Over the 5 s: 4.7e-7 m, 1.4e-7 J (7.7e-7 m, 2.0e-7 J
    before; 5.9e-6 at rtol 1e-8, 1.0e-7 at 1e-10: the error falls 7-9x per decade of
    rtol, benchmarks/convergence.py, which has 8.8e-7 m at 1e-9 with an atol one bit
    apart: the step pattern's scatter). The error test's mean over the 2 independent
    states, not the 41 coordinates, made it 4x smaller than before (2.9e-6 m, 7.9e-7 J
    over 5 s)."""
    net = circuitsim.load(HERE / "spatial_slider_crank.cir")
    assert net.check().notes == []
    res = net.simulate(rtol=1e-9, atol=1e-12, t_end=2.5)
    assert res.stats["error_dimension"] == 2
    err = np.max(np.abs(res["slider.x"] - ref_spatial_slider_crank.slider_x(res.t)))
    assert err < 2e-7
    energy = stored_energy(res)
    assert np.max(np.abs(energy - energy[0])) < 2e-7


@lru_cache(maxsize=None)
def double_fourbar(model, rtol, atol, **options):
    """One run (cached: the tests that check the same run share it; they only read it)."""
    net = circuitsim.load(HERE / "double_fourbar.cir")
    return net.simulate(rtol=rtol, atol=atol, set={f"{j}.model": model for j in FOURBAR_JOINTS},
                        **options)


# 14 s of one core: the passages' accuracy is also checked at rtol 0.97e-9 and against
# SciPy's BDF below
@pytest.mark.long
def test_double_fourbar_passes_ten_flat_configurations():
    """The rockers go full circle and pass the flat configuration (a rank change of the
    constraints) ten times in 10 s; the position model at rtol 1e-9, atol 1e-9 stays on
    the parallelogram branch: rocker angle and coupler position within 3e-5 of the
    exact solution, couplers' ω below 1e-5 rad/s, energy within 3e-5 J of 35.8 J. Each
    passage adds an error set by rounding amplified by the conditioning (the open part
    of the singular-configuration work), so one run samples a spread: over ten rtol
    values from 0.97e-9 to 1.06e-9 the largest angle error was 1.3e-6 to 2.0e-5 rad and
    the couplers' largest ω 1.0e-7 to 3.4e-6 rad/s (the kernels before the lean rewrite
    of the same equations: the same spread, and E_NEWTON at 8.48 s at one of them). At
    atol 1e-12 (the slow test below) ω stays below 2e-8."""
    res = double_fourbar("position", 1e-9, 1e-9, report=True)
    passages = ref_double_fourbar.passages(10.0)
    assert len(passages) == 10
    # the run report names each passage (at the 10 ms recorded points)
    found = np.array([t for t, _, _ in res.report.singular])
    assert len(found) == 10 and np.max(np.abs(found - passages)) <= 0.006
    phi = -res["G1.angle"]                    # the reference's angle turns about −z
    assert np.max(np.abs(phi - ref_double_fourbar.rocker_angle(res.t))) < 3e-5
    cx, cy = ref_double_fourbar.coupler_centre(res.t, 0)
    assert np.max(np.hypot(res["C1.x"] - cx, res["C1.y"] - cy)) < 3e-5
    assert np.max(np.abs(res["C1.wz"])) < 1e-5              # the couplers translate
    energy = stored_energy(res)
    assert np.max(np.abs(energy - energy[0])) < 3e-5


@pytest.mark.slow
def test_double_fourbar_position_model_at_tight_tolerances():
    """rtol 1e-9, atol 1e-12 (it stopped 1.2 ms before the first passage when the error
    test counted the constraint violation of the predictor, whose removal the
    conditioning amplifies near the flat configuration): all ten passages, measured
    rocker angle 2.5e-6 rad (the three rockers' angles equal to 8.1e-10 rad: on the
    parallelogram branch to 8.1e-10 m), energy 1.3e-6 J, couplers' ω 2.6e-8 rad/s; on
    the compiled kernels 8.0e-7 rad, 5.1e-10, 7.2e-7 J, 7.7e-9 rad/s (the step pattern's
    scatter: 3.0e-6 rad with atol exactly 1e-12). Earlier: 1.6e-6 rad, 3.6e-10,
    9.1e-7 J, 1.1e-8 rad/s, and 6.0e-6, 3.3e-6, 6.5e-8 with the error's mean over all 72
    tested coordinates, not the 2 states; 2.8e-6, 1.2e-6, 1.3e-8 with the global ω
    integrated instead of the body-axes ω_b. At the 7th passage an output point's
    polished ω was 0.10 rad/s while the steps' were 1e-11: the polish of output points
    is now kept only when it satisfies the equations better than the interpolant."""
    # atol 1e-9·1e-3 (1e-12 to one bit): the run of the comparison with SciPy's BDF
    # below, shared
    res = double_fourbar("position", 1e-9, 1e-9 * 1e-3)
    assert res.t[-1] == 10.0
    phi_error = np.max(np.abs(-res["G1.angle"] - ref_double_fourbar.rocker_angle(res.t)))
    assert phi_error < 1e-5
    # on the parallelogram branch: the three 1 m rockers turn by the same angle, so their
    # tips stay 1 m apart along the couplers (measured 3.6e-10 m off)
    angles = np.array([res[f"{g}.angle"] for g in ("G1", "G2", "G3")])
    assert np.max(np.abs(angles - angles[0])) * 1.0 < 1e-6
    assert np.max(np.abs(res["C1.wz"])) < 1e-7
    energy = stored_energy(res)
    assert np.max(np.abs(energy - energy[0])) < 1e-5


@pytest.mark.slow
@pytest.mark.parametrize("rtol", [0.97e-9, pytest.param(1.09e-9, marks=pytest.mark.long)])
def test_double_fourbar_passes_where_rounding_stalled_newton(rtol):
    """At these rtol (atol 1e-12) the run stopped at a flat passage: E_NEWTON at 8.4844 s
    (0.97e-9; the step cut from 5e-5 s to 2e-10 s), E_STEP_COLLAPSE at 6.5419 s (1.09e-9).
    Within 2e-5 s of the singular instant the constraint rows' rounding (1e-15),
    solved with the Newton matrix, moved the couplers' and outer rockers' ω by 10-80
    tolerance units in every iteration and at every step size, while the rest of the
    correction was 1e-5 units; Newton's test now leaves that part out and the step
    keeps the iterate without it (docs/solver.md). The runs end at 8.75 s, past the later
    stall and the ninth passage (the 10 s run's steps up to there are the same).
    Measured: rocker angle 2.0e-6 / 4.2e-6 rad, couplers' ω 2.2e-8 / 1.0e-8 rad/s, no
    Newton failure in either run (1.0e-5 / 1.2e-5 rad, 3.2e-8 / 2.7e-8 rad/s before)."""
    res = double_fourbar("position", rtol, 1e-12, report=True, t_end=8.75)
    assert res.t[-1] == 8.75
    found = np.array([t for t, _, _ in res.report.singular])
    passages = ref_double_fourbar.passages(8.75)
    assert len(found) == 9 and np.max(np.abs(found - passages)) <= 0.006
    assert res.stats["nfail_conv"] == 0
    phi_error = np.max(np.abs(-res["G1.angle"] - ref_double_fourbar.rocker_angle(res.t)))
    assert phi_error < 3e-5
    assert np.max(np.abs(res["C1.wz"])) < 1e-7


def minimal_ode_bdf_error(rtol, atol):
    """The rocker angle's largest error when a standard BDF code (SciPy's) integrates
    the exact 1-DOF equation phi'' = k sin(phi) in (phi, phi') at the same tolerances:
    what variable-order BDF error control gives on this motion in the best case, the
    mechanism's own minimal coordinates."""
    from scipy.integrate import solve_ivp
    k = 3.5 * 9.81 / 3.0
    t = np.linspace(0.0, 10.0, 1001)
    sol = solve_ivp(lambda _, y: [y[1], k * np.sin(y[0])], (0.0, 10.0), [0.0, 1.0],
                    method="BDF", rtol=rtol, atol=atol, t_eval=t)
    return np.max(np.abs(sol.y[0] - ref_double_fourbar.rocker_angle(t)))


@pytest.mark.slow
def test_double_fourbar_as_accurate_as_bdf_on_its_exact_equation():
    """The rocker's error over 10 s comes from the top of each turn, an unstable
    equilibrium passed slowly (phi'' = k·phi there, growth e^(3.4 t)), which amplifies
    every local velocity error (measured: 0.08 tolerance units per step, median, with
    no systematic sign; the angle's own local errors are 1e-3 units). At rtol 1e-9,
    atol 1e-12 the 72-unknown DAE measured 2.5e-6 rad (8.0e-7 on the compiled kernels;
    1.6e-6 earlier: the step pattern's scatter), SciPy's BDF on the exact 1-DOF ODE
    2.5e-6 rad, LSODA 3.4e-6 rad: 1e-6 rad at rtol 1e-9 is beyond BDF error control
    even in minimal coordinates. circuitsim meets it at rtol 5e-10 (1.2e-7 rad, 6.7e-7
    compiled, 3191 steps) and the error fell about 10x per decade of rtol (6.0e-6,
    1.6e-6, 2.6e-7 rad at 1e-8, 1e-9, 1e-10)."""
    bdf_error = minimal_ode_bdf_error(1e-9, 1e-12)
    errors = {}
    for rtol in (1e-9, 5e-10):
        res = double_fourbar("position", rtol, rtol * 1e-3)
        errors[rtol] = np.max(np.abs(-res["G1.angle"] - ref_double_fourbar.rocker_angle(res.t)))
    assert errors[1e-9] < 1.3 * bdf_error
    assert errors[5e-10] < 1e-6


def test_velocity_model_names_the_branch_risk_at_a_singular_configuration():
    """The velocity model holds W·u = 0 only, so its joints' positions drift (here
    ~5e-8 m); near the flat configuration the drift opens the crossing of the two
    assembly branches into two separate sheets and the motion must follow one of them:
    it leaves the parallelogram branch at the first passage (0.714 s; measured 1.7 m
    off by 1 s). Nothing in the velocity model can tell the branches apart, so the run
    report says so and names the joints; the position model holds the branch (tests
    above). The first second holds that first passage; the rest of the netlist's 10 s,
    mostly off the branch, added only time."""
    res = double_fourbar("velocity", 1e-6, 1e-9, report=True, t_end=1.0)
    assert res.report.singular
    assert set(res.report.drifting) <= set(FOURBAR_JOINTS) and len(res.report.drifting) >= 2
    assert "velocity model" in res.report.text()
    position = double_fourbar("position", 1e-6, 1e-9, report=True, t_end=1.0)
    assert position.report.singular and position.report.drifting == []


def test_regular_mechanism_reports_no_singular_configuration():
    """The four-bar of netlists/ turns its crank without coming near a rank change
    (its conditioning varies by 1.4x over the run). One degree of freedom: the crank's
    first turn (1.1 turns in 0.5 s) passes every configuration of the netlist's 2 s."""
    res = circuitsim.load(REPO / "netlists" / "fourbar.cir").simulate(report=True, t_end=0.5)
    assert res.report.singular == []
    assert "near-singular" not in res.report.text()
