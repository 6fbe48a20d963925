"""The rate limiter, the relay with hysteresis, the lookup tables and the tf's initial
steady state, each against a closed form or numpy/scipy, at the default and at tight
tolerances."""
import numpy as np
import pytest
from scipy.interpolate import RegularGridInterpolator

import circuitsim
from circuitsim.elements import element_types
from circuitsim.errors import CircuitsimError

TIGHT = dict(rtol=1e-9, atol=1e-12)
TOLS = [pytest.param({}, id="default"), pytest.param(TIGHT, id="tight")]


def _rate_limited(t, tau=1e-6):
    """y of ratelim rising=2 falling=1 for u stepping 0 -> 1 at 0.1 and 1 -> -0.5 at 1:
    a ramp at the rate until y = u -/+ rate·tau, then the approach exp(−t/tau)."""
    y = np.zeros_like(t)
    t1 = 0.1 + (1 - 2 * tau) / 2
    m = (t > 0.1) & (t <= t1); y[m] = 2 * (t[m] - 0.1)
    m = (t > t1) & (t <= 1); y[m] = 1 - 2 * tau * np.exp(-(t[m] - t1) / tau)
    y1 = 1 - 2 * tau * np.exp(-(1 - t1) / tau)
    t2 = 1 + (y1 + 0.5 - tau)
    m = (t > 1) & (t <= t2); y[m] = y1 - (t[m] - 1)
    m = t > t2; y[m] = -0.5 + tau * np.exp(-(t[m] - t2) / tau)
    return y, t1, t2


@pytest.mark.parametrize("tol,bound", [pytest.param({}, 1e-7, id="default"),
                                       pytest.param(TIGHT, 1e-9, id="tight")])
def test_rate_limiter_steps_become_ramps(tol, bound):
    """Steps 0 -> 1 (t = 0.1) and 1 -> −0.5 (t = 1) through rising=2, falling=1: ramps
    reaching the input at 0.6 − tau and 2.5 − tau (measured 8e-9 / 6e-11 from the closed
    form); the limits' ends are located events at those instants."""
    res = circuitsim.parse("""
sigsrc U u v=pwl(0,0, 0.1,0, 0.1,1, 1,1, 1,-0.5)
ratelim R u y rising=2 falling=1
.tran 3 10m
""").simulate(**tol)
    exact, t1, t2 = _rate_limited(res.t)
    assert np.max(np.abs(res["y"] - exact)) < bound
    events = [t for t, name in res.stats["events"]]
    assert events == pytest.approx([t1, t2], abs=1e-12)


@pytest.mark.parametrize("tol", TOLS)
def test_relay_switches_where_a_sine_crosses_its_thresholds(tol):
    """u = sin(2πt), uon = 0.5, uoff = −0.3: on at asin(0.5)/2π + k, off at
    1/2 + asin(0.3)/2π + k; the output is yon = 2 / yoff = −1 between. The instants are
    the event search's roots on the step polynomial of u (measured within 7e-8 s at both
    tolerances: u is algebraic, its polynomial between long steps is the limit)."""
    res = circuitsim.parse("""
sigsrc U u v=sin(0, 1, 1)
relay H u y uon=0.5 uoff=-0.3 yon=2 yoff=-1
.tran 2.5 5m
""").simulate(**tol)
    ton = np.arcsin(0.5) / (2 * np.pi) + np.arange(3)
    toff = 0.5 + np.arcsin(0.3) / (2 * np.pi) + np.arange(2)
    events = np.array([t for t, name in res.stats["events"]])
    assert events == pytest.approx(np.sort(np.r_[ton, toff]), abs=2e-7)
    t, y = res.t, res["y"]
    on = np.zeros_like(t, dtype=bool)
    for a, b in zip(ton, np.r_[toff, np.inf]):
        on |= (t > a + 1e-6) & (t < b - 1e-6)
    off = ~on & (np.min(np.abs(t[:, None] - events[None, :]), axis=1) > 1e-6)
    assert np.all(y[on] == 2.0) and np.all(y[off] == -1.0)
    assert np.all(res["H.s"][on] == 1.0)


@pytest.mark.parametrize("tol,bound", [pytest.param({}, 1e-3, id="default"),
                                       pytest.param(TIGHT, 1e-6, id="tight")])
def test_relay_thermostat_limit_cycle(tol, bound):
    """A heater (30 on, 0 off) on a lag tau = 2 s, switched on below 19 and off above 21:
    heating from 20 ends at tau·ln(10/9), then the cycle alternates cooling
    tau·ln(21/19) and heating tau·ln(11/9) (period 2·(ln(11/9) + ln(21/19)) = 0.6015 s).
    Measured: the 33 switching instants within 1e-4 s (default) and 2e-7 s (tight)."""
    tau = 2.0
    res = circuitsim.parse(f"""
lag P q T tau={tau} y0=20
gain G T e k=-1
relay H e q uon=-19 uoff=-21 yon=30 yoff=0 s0=1
.tran 10 10m
""").simulate(**tol)
    events = np.array([t for t, name in res.stats["events"]])
    heat, cool = tau * np.log(11 / 9), tau * np.log(21 / 19)
    exact = [tau * np.log(10 / 9)]
    while len(exact) < len(events) + 1:
        exact.append(exact[-1] + (cool if len(exact) % 2 else heat))
    assert len(events) == np.sum(np.array(exact) < 10)
    assert np.max(np.abs(events - exact[:len(events)])) < bound
    period = np.diff(events[1::2])
    assert period == pytest.approx(heat + cool, abs=bound)
    T = res["T"]
    assert T.min() > 19 - 1e-6 and T.max() < 21 + 1e-6


def test_relay_starting_beyond_a_threshold_switches_at_t0():
    """s0 = 0 (off) with u(0) = 1 > uon: the relay is on from the start."""
    res = circuitsim.parse("""
sigsrc U u v=1
relay H u y uon=0.5 uoff=0
.tran 1 0.1
""").simulate()
    assert np.all(res["y"] == 1.0)


X, Y = [0.0, 1.0, 2.0, 4.0], [0.0, 0.5, 2.0, 3.0]
GRID = ([0.0, 1.0, 3.0], [0.0, 10.0, 20.0])
Z = np.array([[0, 1, 2], [1, 3, 7], [2, 5, 4]], dtype=float)


def _files(tmp_path):
    (tmp_path / "valve.csv").write_text(
        "x [1], flow [1]\n" + "".join(f"{a}, {b}\n" for a, b in zip(X, Y)))
    (tmp_path / "map.csv").write_text(
        "a, b, c\na \\ b, 0, 10, 20\n"
        + "".join(f"{x}, " + ", ".join(f"{v:g}" for v in row) + "\n"
                  for x, row in zip(GRID[0], Z)))
    net = tmp_path / "lookup.cir"
    net.write_text(f"""
sigsrc U u v=pwl(0,-1, 5,5)
sigsrc W w v=pwl(0,-1, 5,25)
lookup L1 u y1 data={{table(u, file="valve.csv")}}
lookup L2 u y2 x=({", ".join(map(str, X))}) y=({", ".join(map(str, Y))}) extrap=linear
lookup L3 u y3 x=(0, 1, 2, 4) y=(0, 0.5, 2, 3) interp=spline
lookup2 M1 u w z1 data={{table2(u1, u2, file="map.csv")}}
lookup2 M2 u w z2 x1=(0, 1, 3) x2=(0, 10, 20) z=(0, 1, 2, 1, 3, 7, 2, 5, 4)
.tran 5 1m
""")
    return net


@pytest.mark.parametrize("tol", TOLS)
def test_lookups_against_numpy_and_scipy(tmp_path, tol):
    """Ramps through the tables, inline and from CSV files: numpy.interp (clamped ends;
    the end segments' slope 0.5 with extrap=linear), scipy's PchipInterpolator (spline)
    and RegularGridInterpolator on the clipped inputs (maps), to 1e-12."""
    from scipy.interpolate import PchipInterpolator
    res = circuitsim.load(_files(tmp_path)).simulate(**tol)
    u, w = res["u"], res["w"]
    clamped = np.interp(u, X, Y)
    linear = np.where(u < 0, 0.5 * u, np.where(u > 4, 3 + 0.5 * (u - 4), clamped))
    assert np.max(np.abs(res["y1"] - clamped)) < 1e-12
    assert np.max(np.abs(res["y2"] - linear)) < 1e-12
    spline = PchipInterpolator(X, Y)(np.clip(u, 0, 4))
    assert np.max(np.abs(res["y3"] - spline)) < 1e-12
    ref = RegularGridInterpolator(GRID, Z)(np.stack([np.clip(u, 0, 3), np.clip(w, 0, 20)], 1))
    assert np.max(np.abs(res["z1"] - ref)) < 1e-12
    assert np.max(np.abs(res["z2"] - ref)) < 1e-12


def _jacobian(keyword, params, x):
    etype = element_types()[keyword]
    from circuitsim.elements.declarations import ElementInstance
    inst = ElementInstance(etype, "L", ["a", "b", "c"][:len(etype.ports)], params)
    p = etype.prepare([inst])
    return etype.jacobian(0.0, np.array([x]), np.zeros((1, len(x))), p)[0][0]


def test_lookup_jacobian_at_and_between_breakpoints():
    """-dF/du is the segment's slope between points (0.5, 1.5, 0.5), at a breakpoint the
    slope to its right, 0 beyond a clamped end, the end slope with extrap=linear."""
    prm = {"x": np.array(X), "y": np.array(Y), "interp": "linear", "extrap": "clamp"}
    slope = lambda u, **kw: -_jacobian("lookup", {**prm, **kw}, [u, 0.0])[1, 0]
    assert [slope(u) for u in (0.5, 1.5, 3.0)] == pytest.approx([0.5, 1.5, 0.5], abs=1e-15)
    assert [slope(u) for u in (0.0, 1.0, 2.0)] == pytest.approx([0.5, 1.5, 0.5], abs=1e-15)
    assert [slope(u) for u in (-1.0, 4.0, 5.0)] == [0.0, 0.0, 0.0]
    assert slope(5.0, extrap="linear") == pytest.approx(0.5, abs=1e-15)
    assert slope(-1.0, extrap="linear") == pytest.approx(0.5, abs=1e-15)
    # the map: in cell [1,3]x[10,20] at (2, 15): dz/du1 = ((5 - 3) + (4 - 7))/2/2,
    # dz/du2 = ((7 - 3) + (4 - 5))/2/10; on the grid line u1 = 1 the cell above
    mprm = {"x1": np.array(GRID[0]), "x2": np.array(GRID[1]), "z": Z.ravel()}
    jac = -_jacobian("lookup2", mprm, [2.0, 15.0, 0.0])[2, :2]
    assert jac == pytest.approx([-0.25, 0.15], abs=1e-15)
    jac = -_jacobian("lookup2", mprm, [1.0, 15.0, 0.0])[2, :2]
    assert jac == pytest.approx([((5 + 4) / 2 - (3 + 7) / 2) / 2, ((7 - 3) / 10)], abs=1e-15)
    assert -_jacobian("lookup2", mprm, [4.0, 25.0, 0.0])[2, 0] == 0.0


@pytest.mark.parametrize("tol,bound", [pytest.param({}, 2e-5, id="default"),
                                       pytest.param(TIGHT, 2e-8, id="tight")])
def test_tf_starts_in_steady_state(tol, bound):
    """wn²/(s² + 2·zeta·wn·s + wn²) with y0 = 2 and u = 2 until t = 0.5, then 3: y = 2
    exactly until the step, then 2 + the unit step response."""
    wn, zeta = 10.0, 0.3
    res = circuitsim.parse(f"""
sigsrc U u v=step(0.5, 2, 3)
tf T1 u y num=({wn**2}) den=(1, {2 * zeta * wn}, {wn**2}) y0=2
.tran 2 2m
""").simulate(**tol)
    t = res.t - 0.5
    wd = wn * np.sqrt(1 - zeta ** 2)
    step = 1 - np.exp(-zeta * wn * t) * np.sin(wd * t + np.arccos(zeta)) / np.sqrt(1 - zeta ** 2)
    exact = 2 + np.where(t > 0, step, 0.0)
    assert np.max(np.abs(res["y"][t <= 0] - 2.0)) < 1e-12
    assert np.max(np.abs(res["y"] - exact)) < bound


@pytest.mark.parametrize("line,message", [
    ("relay H u y uon=0 uoff=1", "relay H: uoff (1) must be below uon (0)"),
    ("relay H u y uon=1 uoff=0 s0=2", "relay H: s0 is 0 (off) or 1 (on), got 2"),
    ("lookup L u y x=(0, 1) y=(1, 2, 3)", "lookup L: x and y need the same number"),
    ("lookup L u y x=(1, 0) y=(1, 2)", "x strictly increasing"),
    ("lookup L u y", "lookup L needs x=, y= (the points) or data={...}"),
    ("lookup L u y x=(0, 1) y=(0, 1) data={sin(u)}", "give the points (x, y) or data="),
    ("lookup L u y data={2*u}", "data= takes one table() call"),
    ("lookup2 M u u y x1=(0, 1) x2=(0, 1) z=(1, 2, 3)", "z len(x1)·len(x2) = 4 values"),
    ("tf T u y num=(1, 0) den=(1, 1) y0=1", "y0 needs a state and a non-zero static gain"),
    ("ratelim R u y rising=0", "ratelim R: rising must be positive"),
])
def test_bad_blocks_are_located(line, message):
    with pytest.raises(CircuitsimError) as info:
        circuitsim.parse(f"sigsrc U u v=1\n{line}\n.tran 1\n").prepare()
    assert message in str(info.value)
    assert ":2:" in str(info.value)
