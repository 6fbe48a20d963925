"""A pwl drive with many points: the solver stops at its jumps only, the error test
controls the step across its slope corners (Pwl), and the result stays accurate.

The DC motor of netlists/dcmotor.cir, L i' = V - R i - k w and J w' = k i - b w from
rest, is linear: driven by a pwl it has the exact solution ``motor_from_rest``."""
import numpy as np
import pytest

import circuitsim

from helpers import netlist_text, relative_error

R, L, K, J, B = 1.0, 0.5e-3, 0.05, 1e-4, 1e-5       # as in dcmotor.cir
A = np.array([[-R / L, -K / L], [K / J, -B / J]])
EIGENVALUES, MODES = np.linalg.eig(A)                  # real, distinct
INPUT = np.linalg.solve(MODES, [1.0 / L, 0.0])         # V's column of x' = A x + (1/L, 0) V


def _advance(y0, v0, slope, u):
    """The modes after u of V = v0 + slope·u: y e^{λu} + β (v0 (e^{λu} - 1)/λ
    + slope (e^{λu} - 1 - λu)/λ²)."""
    x = EIGENVALUES * u[:, None]
    grown = np.expm1(x)
    return (np.exp(x) * y0 + INPUT * (v0[:, None] * grown / EIGENVALUES
                                      + slope[:, None] * (grown - x) / EIGENVALUES ** 2))


def motor_from_rest(times, values, t_eval):
    """(i, w) at t_eval of the motor from rest driven by pwl(times, values)."""
    times, values = np.asarray(times, float), np.asarray(values, float)
    span = np.diff(times)
    slopes = np.append(np.divide(np.diff(values), span, out=np.zeros_like(span),
                                 where=span > 0), 0.0)      # constant after the last point
    modes = np.zeros((len(times), 2))
    for j in range(len(span)):                    # the modes at each point (a jump: kept)
        modes[j + 1] = _advance(modes[j], values[j:j + 1], slopes[j:j + 1], span[j:j + 1])[0]
    j = np.searchsorted(times, t_eval, side="right") - 1    # a jump: its later point
    return (_advance(modes[j], values[j], slopes[j], t_eval - times[j]) @ MODES.T).real


def motor(drive: str, tstop: float, tstep: str = "") -> str:
    """dcmotor.cir with the supply V=drive and .tran tstop [tstep]."""
    lines = [line for line in netlist_text("dcmotor.cir").splitlines()
             if not line.startswith((".tran", "V Vsup"))]
    return "\n".join(lines + [f"V Vsup sup 0 V={drive}", f".tran {tstop} {tstep}", ""])


def ripple_pwl(n: int, tstop: float, keyword: str = ""):
    """(times, values, text) of an n-point pwl of 12 V + 1 V sin(2π 5 Hz t) over the run."""
    times = np.linspace(0.0, tstop, n)
    values = 12.0 + np.sin(2 * np.pi * 5.0 * times)
    points = ", ".join(f"{float(t)!r}, {float(v)!r}" for t, v in zip(times, values))
    return times, values, f"pwl({points}{', ' + keyword if keyword else ''})"


def errors(res, times, values):
    exact = motor_from_rest(times, values, res.t)
    return relative_error(res["La.i"], exact[:, 0]), relative_error(res["shaft"], exact[:, 1])


def test_exact_solution_agrees_with_a_tight_run():
    times, values, text = ripple_pwl(8, 0.3)
    res = circuitsim.parse(motor(text, 0.3, "1m")).simulate(rtol=1e-10, atol=1e-14)
    assert max(errors(res, times, values)) < 1e-8                # 4.3e-10


def test_500_point_ripple_crosses_its_corners_without_stopping():
    """0.6 ms between points, more than the L/R = 0.5 ms of the armature: each corner
    bends the current, and the error test takes the steps that resolve that bend (the
    sine drive does not have it); none of them restarts the solver."""
    smooth = circuitsim.parse(motor("sin(12, 1, 5)", 0.3, "1m")).simulate()
    times, values, text = ripple_pwl(500, 0.3)
    res = circuitsim.parse(motor(text, 0.3, "1m")).simulate()
    assert res.stats["nrestart"] == 0
    assert res.stats["nsteps"] < 20 * smooth.stats["nsteps"]     # 3246 vs 210: 15.5
    # more accurate than stopping at each corner (breakpoints=corners: 7550 steps, 498
    # restarts, errors 1.2e-5 in the current and 1.0e-5 in the speed)
    current, speed = errors(res, times, values)
    assert current < 5e-6 and speed < 5e-6                      # 3.3e-6, 1.2e-6


def test_dense_pwl_takes_the_steps_of_the_sine():
    """10 000 points over 0.2 s (20 us apart, well inside L/R): the corners are too small
    for the error test to see, the run costs what the sine's does."""
    smooth = circuitsim.parse(motor("sin(12, 1, 5)", 0.2, "1m")).simulate()
    times, values, text = ripple_pwl(10_000, 0.2)
    res = circuitsim.parse(motor(text, 0.2, "1m")).simulate()
    assert res.stats["nrestart"] == 0
    assert res.stats["nsteps"] < 1.5 * smooth.stats["nsteps"]    # 186 vs 175: 1.06
    assert max(errors(res, times, values)) < 5e-6                # 9.0e-7


def test_a_jump_in_a_long_pwl_is_still_a_breakpoint():
    """A 21-point pwl (corners not stopped at) with a jump 12 V -> 6 V at t = 0.1234 s:
    the solver lands on the jump, restarts there once, and follows the exact solution."""
    t_jump = 0.1234
    times = np.concatenate([np.linspace(0.0, t_jump, 10), np.linspace(t_jump, 0.3, 11)])
    values = np.concatenate([np.linspace(12.0, 11.0, 10), np.linspace(6.0, 7.0, 11)])
    text = "pwl(" + ", ".join(f"{float(t)!r}, {float(v)!r}" for t, v in zip(times, values)) + ")"
    res = circuitsim.parse(motor(text, 0.3)).simulate(rtol=1e-8, atol=1e-12)
    assert res.stats["nrestart"] == 1
    assert t_jump in res.t.tolist()
    assert max(errors(res, times, values)) < 1e-6                # 2.1e-8


@pytest.mark.parametrize("points, keyword, restarts", [
    (8, "", 6), (8, "breakpoints=jumps", 0), (50, "", 0), (50, "breakpoints=corners", 48)])
def test_the_solver_restarts_at_the_corners_of_a_short_pwl_or_when_asked(points, keyword,
                                                                       restarts):
    """At most 10 points: every interior point is a breakpoint, more: none (no jumps);
    the keyword overrides the rule either way."""
    text = ripple_pwl(points, 0.05, keyword)[2]
    res = circuitsim.parse(motor(text, 0.05)).simulate()
    assert res.stats["nrestart"] == restarts


def test_spline_pwl_takes_the_steps_of_the_sine():
    """interp=spline joins the 500 points with continuous curvature: no corner bends the
    current, the run costs what the sine's does and departs from the linear pwl's exact
    solution by the linear interpolation's own error, as the sine does."""
    smooth = circuitsim.parse(motor("sin(12, 1, 5)", 0.3, "1m")).simulate()
    times, values, text = ripple_pwl(500, 0.3, "interp=spline")
    res = circuitsim.parse(motor(text, 0.3, "1m")).simulate()
    assert res.stats["nrestart"] == 0
    assert res.stats["nsteps"] < 1.5 * smooth.stats["nsteps"]    # 226 vs 243
    # 2.2e-6 for both
    assert max(errors(res, times, values)) < 2 * max(errors(smooth, times, values))


def test_pwl_errors_shrink_with_rtol():
    """The 500-point ripple crossed at its corners (no restarts) converges as rtol does:
    each 100x tighter rtol gives an error at least 10x smaller (against the exact
    solution, which a run at rtol 1e-10 hitting every corner agrees with)."""
    times, values, text = ripple_pwl(500, 0.3)
    net = circuitsim.parse(motor(text, 0.3, "1m"))
    found = [max(errors(net.simulate(rtol=rtol), times, values)) for rtol in (1e-4, 1e-6, 1e-8)]
    # 4.7e-5, 2.1e-6, 5.6e-8
    assert found[1] < found[0] / 10 and found[2] < found[1] / 10, found


def motor_on_sine(offset, amplitude, freq, t_eval):
    """(i, w) at t_eval of the motor from rest on V = offset + amplitude sin(2π freq t):
    each mode y' = λ y + β V has y = β offset (e^{λt} - 1)/λ
    + β amplitude (ω e^{λt} - λ sin ωt - ω cos ωt)/(λ² + ω²)."""
    omega, t = 2 * np.pi * freq, np.asarray(t_eval, float)[:, None]
    lam = EIGENVALUES
    modes = INPUT * (offset * np.expm1(lam * t) / lam + amplitude * (
        omega * np.exp(lam * t) - lam * np.sin(omega * t) - omega * np.cos(omega * t))
        / (lam ** 2 + omega ** 2))
    return (modes @ MODES.T).real


def test_the_sine_drive_at_tight_tolerances_through_the_currents_zero_crossings():
    """The armature current crosses zero 9 times a second. At atol 1e-14 the test there
    is absolute and 1e-14 A tight; repeated failures fall back to order 1, which used to
    predict with the last step's secant, whose O(h) slope error no smaller step removes
    (E_STEP_COLLAPSE at t = 0.68 s). From the tangent y'_n the run goes through, and its
    error against the closed form shrinks with rtol."""
    worst = []
    for rtol, atol in ((1e-6, 1e-9), (1e-8, 1e-11), (1e-10, 1e-14)):
        res = circuitsim.parse(motor("sin(12, 1, 5)", 1.0, "1m")).simulate(rtol=rtol,
                                                                          atol=atol)
        exact = motor_on_sine(12.0, 1.0, 5.0, res.t)
        assert np.sum(np.diff(np.sign(exact[:, 0])) != 0) >= 8
        worst.append(max(relative_error(res["La.i"], exact[:, 0]),
                         relative_error(res["shaft"], exact[:, 1])))
    assert worst[0] < 5e-5 and worst[1] < 1e-6 and worst[2] < 1e-8, worst
    assert worst[0] > worst[1] > worst[2]
