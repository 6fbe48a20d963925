"""Control blocks on signal nodes (conventions.md §7): transfer functions, the lag, the
integrator's anti-windup, a PID speed loop, the sensors and the signal sources, each
against a closed form or an independent integration, at the default and at tight
tolerances."""
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import circuitsim
from circuitsim.errors import NetlistError

from helpers import zero_crossings

TIGHT = dict(rtol=1e-9, atol=1e-12)
# (solver tolerances, bound on the error against the closed form)
# measured: first order 4e-7 / 2.6e-9, second order 3.1e-6 / 8e-9, integrator 5e-10
# (the clamp's ramp width) at both
LEVELS = [pytest.param({}, 2e-5, id="default"), pytest.param(TIGHT, 2e-8, id="tight")]


@pytest.mark.parametrize("tol,bound", LEVELS)
def test_first_order_step_response(tol, bound):
    """1/(tau·s + 1) as tf and as lag, unit step at t = 0: y = 1 − exp(−t/tau)."""
    res = circuitsim.parse("""
sigsrc U u v=1
tf T1 u y num=(1) den=(0.2, 1)
lag L1 u z tau=0.2
.tran 1 5m
""").simulate(**tol)
    exact = 1 - np.exp(-res.t / 0.2)
    assert np.max(np.abs(res["y"] - exact)) < bound
    assert np.max(np.abs(res["z"] - exact)) < bound


@pytest.mark.parametrize("tol,bound", LEVELS)
def test_second_order_step_response(tol, bound):
    """wn²/(s² + 2·zeta·wn·s + wn²), wn = 10 rad/s, zeta = 0.3, unit step:
    y = 1 − exp(−zeta·wn·t)·sin(wd·t + acos zeta)/sqrt(1 − zeta²)."""
    wn, zeta = 10.0, 0.3
    res = circuitsim.parse(f"""
sigsrc U u v=1
tf T1 u y num=({wn**2}) den=(1, {2 * zeta * wn}, {wn**2})
.tran 2 2m
""").simulate(**tol)
    wd = wn * np.sqrt(1 - zeta ** 2)
    exact = 1 - np.exp(-zeta * wn * res.t) * np.sin(wd * res.t + np.arccos(zeta)) / np.sqrt(
        1 - zeta ** 2)
    assert np.max(np.abs(res["y"] - exact)) < bound
    # the canonical states: x1 = y/wn², x2 = dx1/dt
    assert np.max(np.abs(res["T1.x1"] * wn ** 2 - res["y"])) < 1e-12


@pytest.mark.parametrize("tol,bound", LEVELS)
def test_integrator_clamps_and_recovers(tol, bound):
    """u = +1 until t = 1, then −1; k = 2, upper = 1, lower = −0.5. The ramp 2t reaches
    the limit at t = 0.5 and stays (no wind-up); it leaves at t = 1 exactly, y = 1 −
    2(t − 1), crosses 0 at t = 1.5 and clamps at −0.5 from t = 1.75."""
    res = circuitsim.parse("""
sigsrc U u v=step(1, 1, -1)
integ I1 u y k=2 lower=-0.5 upper=1
.tran 2.5 5m
""").simulate(**tol)
    t = res.t
    exact = np.clip(np.where(t < 1, 2 * t, 1 - 2 * (t - 1)), -0.5, 1.0)
    assert np.max(np.abs(res["y"] - exact)) < bound
    crossing = zero_crossings(t, res["y"], -1)
    assert crossing == pytest.approx([1.5], abs=bound)
    held = (t > 0.51) & (t <= 1.0)
    assert np.max(np.abs(res["y"][held] - 1.0)) < 1e-8      # within the ramp width δ


def _pi_loop(kp, ki, kd, tf, lower, upper, aw="clamp", tt=1.0, extra=""):
    """PID on the plant tau·dw/dt + w = K·u (a first-order speed loop), set-point r."""
    return circuitsim.parse(f"""
sigsrc R r v=step(0.1, 0, 1)
sum E r w e
pid C e u kp={kp} ki={ki} kd={kd} tf={tf} lower={lower} upper={upper} aw={aw} tt={tt}
lag P u w tau=0.5 k=2
.tran 3 5m
""")


def _reference(kp, ki, kd, tf, lower, upper, aw, tt, t_eval):
    """The same closed loop written from the equations: states w, xi, xf."""
    tau, K, delta = 0.5, 2.0, 1e-9 * max(1, abs(lower), abs(upper))

    def w_ramp(z):
        return np.clip(z / delta + 1, 0, 1)

    def rhs(t, s, r):
        w, xi, xf = s
        e = r - w
        v = kp * e + xi + kd * (e - xf) / tf
        u = min(max(v, lower), upper)
        if aw == "clamp":
            ri = ki * e
            dxi = ri - max(ri, 0) * w_ramp(v - upper) - min(ri, 0) * w_ramp(lower - v)
        else:
            dxi = ki * e + (u - v) / tt
        return [(K * u - w) / tau, dxi, (e - xf) / tf]

    out, state, t0 = [], [0.0, 0.0, 0.0], 0.0
    for t1, r in ((0.1, 0.0), (t_eval[-1], 1.0)):      # the set-point steps at 0.1
        mask = (t_eval >= t0) & (t_eval <= t1) if t0 == 0 else (t_eval > t0) & (t_eval <= t1)
        sol = solve_ivp(rhs, (t0, t1), state, args=(r,), t_eval=t_eval[mask], rtol=1e-12,
                        atol=1e-14, method="Radau", dense_output=True)
        out.append(sol.y)
        state, t0 = sol.sol(t1), t1
    return np.concatenate(out, axis=1)


@pytest.mark.parametrize("tol,bound", [pytest.param({}, 1e-5, id="default"),
                                       pytest.param(TIGHT, 1e-7, id="tight")])
@pytest.mark.parametrize("aw", ["clamp", "backcalc"])
def test_pid_speed_loop_against_independent_integration(aw, tol, bound):
    """PID (kp 0.8, ki 4, kd 0.02, tf 0.01) with output limits ±1.2 on the plant
    0.5·dw/dt + w = 2·u: the set-point step to 1 saturates the output at first; the
    same loop integrated by scipy (Radau, rtol 1e-12) agrees to 1e-7 relative at rtol
    1e-9 (measured 2e-9 / 4e-9 for w / xi), 1e-5 at the default (measured 5e-7 / 8e-7)."""
    gains = dict(kp=0.8, ki=4.0, kd=0.02, tf=0.01, lower=-1.2, upper=1.2, aw=aw, tt=0.3)
    res = _pi_loop(**gains).simulate(**tol)
    ref = _reference(**gains, t_eval=res.t)
    assert np.max(np.abs(res["w"] - ref[0])) / np.max(np.abs(ref[0])) < bound
    assert np.max(np.abs(res["C.xi"] - ref[1])) / np.max(np.abs(ref[1])) < bound
    assert np.max(res["u"]) == pytest.approx(1.2, abs=1e-12)   # it did saturate
    assert res["w"][-1] == pytest.approx(1.0, abs=1e-3)         # and settled


def _clamped_rate(r, v, lower, upper):
    """The clamp law (3) of pid: the integral's rate r, stopped beyond a limit."""
    delta = 1e-9 * max(1, abs(lower), abs(upper))
    ramp = lambda z: min(max(z / delta + 1, 0.0), 1.0)     # noqa: E731
    return r - max(r, 0) * ramp(v - upper) - min(r, 0) * ramp(lower - v)


def test_speed_loop_with_current_limit_against_independent_integration():
    """netlists/speed_loop.cir (psense, fsense, two sums, two PI with limits, vsig on
    the DC motor) against the same cascade written from the equations and integrated
    by scipy: speed and current to 1e-6 of their range at rtol 1e-9 (measured 4e-10 and
    3e-9);
    the current reference sits at its 2 A limit during the run-up; the sensors read
    the shaft speed and the armature current."""
    R, La, k, J, b = 1.0, 0.5e-3, 0.05, 1e-4, 1e-5

    def rhs(t, s, wref):
        i, w, xw, xc = s
        ew = wref - w
        vw = 0.2 * ew + xw
        iref = min(max(vw, -2.0), 2.0)
        ei = iref - i
        vi = ei + xc
        u = min(max(vi, -24.0), 24.0)
        return [(u - R * i - k * w) / La, (k * i - b * w) / J,
                _clamped_rate(8.0 * ew, vw, -2.0, 2.0), _clamped_rate(2000.0 * ei, vi, -24.0, 24.0)]

    res = circuitsim.load(Path(__file__).parents[2] / "netlists" / "speed_loop.cir").simulate(
        **TIGHT)
    t = res.t
    first = t <= 0.01
    a = solve_ivp(rhs, (0, 0.01), [0, 0, 0, 0], args=(0.0,), t_eval=t[first], rtol=1e-12,
                  atol=1e-14, method="Radau", dense_output=True)
    c = solve_ivp(rhs, (0.01, t[-1]), a.sol(0.01), args=(150.0,), t_eval=t[~first],
                  rtol=1e-12, atol=1e-14, method="Radau")
    ref = np.concatenate([a.y, c.y], axis=1)
    assert np.max(np.abs(res["La.i"] - ref[0])) / np.ptp(ref[0]) < 1e-6
    assert np.max(np.abs(res["shaft"] - ref[1])) / np.ptp(ref[1]) < 1e-6
    assert np.max(res["iref"]) == pytest.approx(2.0, abs=1e-12)
    assert res["w"][-1] == pytest.approx(150.0, rel=1e-3)
    np.testing.assert_allclose(res["w"], res["shaft"], atol=1e-6)
    np.testing.assert_allclose(res["i"], res["La.i"], atol=1e-6)


@pytest.mark.parametrize("text,line,message", [
    ("sigsrc R ref v=1\ngain G ref v k=2\nmass M1 v m=1\n", 3,
     "signal port on a physical node 'v': gain G (port out) at line 2"),
    ("sigsrc R1 ref v=1\nsigsrc R2 ref v=2\ngain G ref u\n", 2,
     "signal node 'ref' is driven by two outputs: sigsrc R1 at line 1 and sigsrc R2"),
    ("sigsrc R ref v=1\nsum E ref meas e\ngain G e u\n", 2,
     "signal node 'meas' is read by sum E but no block output drives it"),
    ("sigsrc R ref v=1\nR R1 ref 0 R=1\n", 2,
     "R R1 (port a) is connected to the signal node 'ref' of sigsrc R"),
    ("gain G 0 0\n", 1, "gain G: its output out is on ground 0"),
])
def test_signal_wiring_errors_are_located(text, line, message):
    with pytest.raises(NetlistError) as info:
        circuitsim.parse(text + ".tran 1\n").circuit()
    assert info.value.message.startswith(message), info.value.message
    assert info.value.loc.line == line


@pytest.mark.parametrize("tol", [pytest.param({}, id="default"), pytest.param(TIGHT, id="tight")])
def test_static_blocks_sensors_and_sources_on_a_ramp(tol):
    """u = 2t − 1 over 1 s: sat, deadzone, gain and sense against their formulas (1e-9);
    isig pushes 2u into a 1 kg mass from rest, v = 2(t² − t) (1e-5 / 1e-8); vsig puts 3u
    across 2 Ω, i = −1.5u through the source (SPICE sign), read back by fsense in series
    and psense across (1e-9)."""
    res = circuitsim.parse("""
sigsrc U u v={2*time - 1}
sat S1 u us lower=-0.5 upper=0.4
deadzone D1 u ud lower=-0.5 upper=0.4
gain G1 u ug k=3
sense X1 ux S={u^2 + time}
isig F1 0 v u k=2 domain=translational
mass M1 v m=1
vsig V1 p 0 u k=3
fsense A1 p q cur
R R1 q 0 R=2
psense P1 p 0 vp
.tran 1 10m
""").simulate(**tol)
    t, u = res.t, 2 * res.t - 1
    np.testing.assert_allclose(res["us"], np.clip(u, -0.5, 0.4), atol=1e-9)
    np.testing.assert_allclose(res["ud"], u - np.clip(u, -0.5, 0.4), atol=1e-9)
    np.testing.assert_allclose(res["ug"], 3 * u, atol=1e-9)
    np.testing.assert_allclose(res["ux"], u ** 2 + t, atol=1e-9)
    bound = 1e-8 if tol else 1e-5
    np.testing.assert_allclose(res["v"], 2 * (t ** 2 - t), atol=bound)
    np.testing.assert_allclose(res["vp"], 3 * u, atol=1e-9)
    np.testing.assert_allclose(res["cur"], 1.5 * u, atol=1e-9)
    np.testing.assert_allclose(res["V1.i"], -1.5 * u, atol=1e-9)
