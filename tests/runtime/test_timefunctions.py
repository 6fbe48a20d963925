"""Time functions: hand values, breakpoints, errors, and the vectorized array."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from circuitsim.netlist import units
from circuitsim.errors import NetlistError
from circuitsim.netlist import ast
from circuitsim.netlist.parser import parse
from circuitsim.netlist.timefunction_builder import make_time_function
from circuitsim.runtime import expressions
from circuitsim.runtime.timefunctions import (CORNER_STOPS_MAX_POINTS, Constant, Pulse, Pwl,
                                              Ramp, Sine, Step, TimeFunctionArray)

SCOPE = {"Vmax": 12.0, "f0": 50.0}


def _converter(unit):
    def convert(value):
        if isinstance(value, ast.Number):
            try:
                return units.to_si(value.mantissa, value.suffix, unit)
            except units.UnitError as exc:   # as the elaborator does: locate the value
                raise NetlistError(str(exc), value.loc) from None
        if isinstance(value, ast.Expr):
            return expressions.evaluate(value.tree, SCOPE, value.loc)
        if isinstance(value, ast.Ident):
            return SCOPE[value.name]
        raise AssertionError(value)
    return convert


def tf(text, unit="V"):
    """The time function written as the value of V=... in a netlist line."""
    value = parse(f"V V1 a 0 V={text}\n", "f.cir").statements[0].params[0].value
    if isinstance(value, ast.Expr):
        value = ast.Expr(value.loc, value.text, expressions.substitute(value.tree, SCOPE))
    return make_time_function(value, _converter(unit), _converter("s"), value.loc)


def test_step():
    f = tf("step(1m, 0, {Vmax})")
    assert isinstance(f, Step)
    assert [f(0.0), f(0.999e-3), f(1e-3), f(2.0)] == [0.0, 0.0, 12.0, 12.0]
    assert f.breakpoints() == [1e-3]
    assert not f.is_constant


def test_ramp():
    f = tf("ramp(1, 3, 2, -2)")
    assert isinstance(f, Ramp)
    assert [f(0.0), f(1.0), f(1.5), f(2.0), f(3.0), f(9.0)] == [2.0, 2.0, 1.0, 0.0, -2.0, -2.0]
    assert f.breakpoints() == [1.0, 3.0]
    assert f.breakpoints(horizon=2.0) == [1.0]


def test_ramp_of_zero_duration_is_a_step():
    f = tf("ramp(1, 1, 0, 5)")
    assert (f(0.99), f(1.0)) == (0.0, 5.0)


def test_sin():
    f = tf("sin(1, 2, 50Hz, 90deg)")
    assert isinstance(f, Sine)
    assert f(0.0) == pytest.approx(3.0)                      # 1 + 2 sin(pi/2)
    assert f(0.005) == pytest.approx(1.0, abs=1e-12)         # quarter period later
    g = tf("sin(0, 1, {f0})")                                # phase defaults to 0
    assert g(0.0) == 0.0 and g(0.005) == pytest.approx(1.0)
    assert f.breakpoints() == []


def test_pulse_single():
    f = tf("pulse(0, 5, 1, 0.1, 0.2, 0.5)")
    assert isinstance(f, Pulse)
    times = [0.0, 1.0, 1.05, 1.1, 1.3, 1.6, 1.7, 1.8, 5.0]
    assert [f(t) for t in times] == pytest.approx([0, 0, 2.5, 5, 5, 5, 2.5, 0, 0])
    assert f.breakpoints(10) == pytest.approx([1.0, 1.1, 1.6, 1.8])


def test_pulse_periodic():
    f = tf("pulse(-1, 1, 0.5, 0, 0, 1, 2)")          # square wave, period 2
    times = [0.0, 0.5, 1.0, 1.49, 1.5, 2.4, 2.5, 3.0, 4.5, 5.499]
    assert [f(t) for t in times] == [-1, 1, 1, 1, -1, -1, 1, 1, 1, 1]
    assert f.breakpoints(4.0) == pytest.approx([0.5, 1.5, 2.5, 3.5])
    assert len(f.breakpoints()) > 0                  # capped, finite
    g = tf("pulse(0, 1, 2, 0, 0, 1, 2)")             # t - delay = -period exactly
    assert [g(0.0), g(1.99), g(2.0), g(3.0), g(4.0)] == [0, 0, 1, 0, 1]


def test_pwl():
    f = tf("pwl(0,0, 1,5, 3,-1)")
    assert isinstance(f, Pwl)
    assert [f(-1.0), f(0.5), f(1.0), f(2.0), f(3.0), f(10.0)] == [0, 2.5, 5, 2, -1, -1]
    assert f.breakpoints() == [0.0, 1.0, 3.0]


def test_pwl_jump():
    """Two points at one time: the later value holds from that time on, as step()."""
    f = tf("pwl(0,0, 1,5, 1,7, 2,3)")
    before = math.nextafter(1.0, 0.0)
    assert [f(0.5), f(1.0), f(1.5), f(2.0), f(9.0)] == [2.5, 7.0, 5.0, 3.0, 3.0]
    assert f(before) == pytest.approx(5.0)
    assert tf("pwl(0,0, 1,5, 1,7)")(1.0) == 7.0 and tf("pwl(0,2, 0,4, 1,4)")(0.0) == 4.0
    np.testing.assert_array_equal(f(np.array([before, 1.0])), [f(before), 7.0])
    arr = TimeFunctionArray([f, 1.0])
    assert arr(1.0).tolist() == [7.0, 1.0] and arr(before)[0] == f(before)


def _points(n, jump_at=None):
    """pwl text of n points at 0, 1, 2, ... s; values alternate 0, 1 (every point is a
    corner); ``jump_at``: that time is written twice, the second time with value 5."""
    pairs = [f"{i}, {i % 2}" for i in range(n)]
    if jump_at is not None:
        pairs.insert(jump_at + 1, f"{jump_at}, 5")
    return ", ".join(pairs)


@pytest.mark.parametrize("n", [2, 10, 11, 500])
def test_pwl_breakpoint_rule(n):
    """At most CORNER_STOPS_MAX_POINTS points: every point is a breakpoint; more: only
    the jumps. ``breakpoints=corners|jumps`` chooses either way."""
    corners = [float(i) for i in range(n)]
    default = tf(f"pwl({_points(n)})")
    assert default.breakpoints() == (corners if n <= CORNER_STOPS_MAX_POINTS else [])
    assert tf(f"pwl({_points(n)}, breakpoints=corners)").breakpoints() == corners
    assert tf(f"pwl({_points(n)}, breakpoints=jumps)").breakpoints() == []
    jumps = tf(f"pwl({_points(n, jump_at=1)}, breakpoints=jumps)")
    assert jumps.breakpoints() == [1.0] and jumps.breakpoints(horizon=0.5) == []
    assert tf(f"pwl({_points(n, jump_at=1)}, breakpoints=corners)").breakpoints() == corners


def test_pwl_repr_names_a_rule_other_than_the_default():
    assert repr(tf("pwl(0,0, 1,5)")) == "pwl(0, 0, 1, 5)"
    assert repr(tf("pwl(0,0, 1,5, breakpoints=jumps)")) == "pwl(0, 0, 1, 5, breakpoints=jumps)"
    with pytest.raises(ValueError, match="breakpoints"):
        Pwl([0, 1], [0, 1], "edges")


def test_spline_pwl_passes_its_points_smoothly_and_keeps_its_jumps():
    """interp=spline: the not-a-knot cubic spline through the points between jumps,
    continuous in slope and curvature at the points, the later value at a jump,
    constant outside; no corners, so only the jumps are breakpoints."""
    f = tf("pwl(0,0, 1,1, 2,4, 3,9, 3,20, 4,21, 5,23, interp=spline)")
    at_points = [f(t) for t in (-1, 0, 1, 2, 3, 4, 5, 6)]
    assert at_points == pytest.approx([0, 0, 1, 4, 20, 21, 23, 23])
    assert f(1.5) == pytest.approx(2.25)            # x² through 4 points: reproduced
    assert f(4.5) == pytest.approx(21.875)          # three after the jump: their parabola
    assert f.breakpoints() == [3.0] and repr(f).endswith(", interp=spline)")
    step = 1e-4                                     # curvature continuous at t = 1
    curvature = [(f(t + step) - 2 * f(t) + f(t - step)) / step ** 2
                 for t in (1 - step, 1 + step)]
    assert curvature == pytest.approx([2.0, 2.0], rel=1e-3)
    array = TimeFunctionArray([f, 1.0])
    assert array(1.5).tolist() == [f(1.5), 1.0]
    assert f(np.array([0.5, 3.0])).tolist() == [f(0.5), 20.0]
    with pytest.raises(ValueError, match="interp"):
        Pwl([0, 1], [0, 1], interp="cubic")


def test_long_pwl_is_built_in_linear_time_and_evaluated_by_bisection():
    """200 000 points: built from arrays, evaluated at a scalar by one np.interp (its
    binary search) on the stored float64 arrays, not converted per call."""
    times = np.linspace(0.0, 1.0, 200_000)
    f = Pwl(times, np.sin(times))
    assert f.times.dtype == f.values.dtype == np.float64 and f.breakpoints() == []
    assert f(0.123456) == pytest.approx(np.sin(0.123456), abs=1e-11)
    assert TimeFunctionArray([f])(0.5)[0] == f(0.5)


def test_expression_of_time():
    f = tf("{Vmax*sin(2*pi*f0*time)}")
    assert f(0.005) == pytest.approx(12.0)
    assert f(0.0) == pytest.approx(0.0)
    assert not f.is_constant and f.breakpoints() == []
    np.testing.assert_allclose(f(np.array([0.0, 0.005])), [0.0, 12.0], atol=1e-12)


def test_constant_values():
    assert tf("{2*Vmax}").is_constant and tf("{2*Vmax}")(7.0) == 24.0
    c = tf("10mV")
    assert isinstance(c, Constant) and c(1.0) == pytest.approx(0.01)


def test_array_arguments_give_arrays():
    t = np.array([0.0, 0.5, 1.0, 2.0])
    np.testing.assert_allclose(tf("ramp(0, 1, 0, 10)")(t), [0, 5, 10, 10])
    np.testing.assert_allclose(tf("pwl(0,0, 1,5)")(t), [0, 2.5, 5, 5])
    np.testing.assert_allclose(tf("{Vmax}")(t), [12, 12, 12, 12])


@pytest.mark.parametrize("text, message, col", [
    ("stpe(0, 0, 1)", "unknown time function 'stpe'", 12),
    ("step(0, 1)", "step() takes 3 arguments (t0, v0, v1), got 2", 12),
    ("sin(0, 1)", "sin() takes 3 or 4 arguments", 12),
    ("pulse(0, 1, 0, 0, 0)", "pulse() takes 6 or 7 arguments", 12),
    ("pwl(0, 1, 2)", "pwl() takes pairs of arguments", 12),
    ("pwl(0,0, 2,1, 1,3)", "pwl(): times must increase", 26),
    ("pwl(0,0, 1,1, 1,2, 1,3)", "pwl(): three points at 1 s", 31),
    ("pwl(0,0, 1,1, breakpoint=jumps)", "pwl(): unknown keyword 'breakpoint'", 26),
    ("pwl(0,0, 1,1, breakpoints=jump)", "pwl(): breakpoints is one of corners, jumps", 38),
    ("pwl(0,0, breakpoints=jumps, 1,1)", "keyword arguments come after the positional", 21),
    ("pwl(0,0, 1,1, breakpoints=jumps, breakpoints=corners)", "breakpoints is given twice",
     45),
    ("step(0, 0, 1, breakpoints=jumps)", "step() takes no keyword arguments", 26),
    ("pwl(0,0, 1,1, interp=cubic)", "pwl(): interp is one of linear, spline", 33),
    ("ramp(2, 1, 0, 1)", "ramp(): t1 = 1 s is before t0 = 2 s", 20),
    ("pulse(0, 1, 0, -1, 0, 1)", "rise must not be negative", 27),
    ("step(1bar, 0, 1)", "unit 'bar' does not fit", 17),
    ("{time*q}", "unknown name 'q'", 18),
])
def test_errors(text, message, col):
    with pytest.raises(NetlistError) as info:
        tf(text)
    assert message in info.value.message
    assert (info.value.loc.file, info.value.loc.line, info.value.loc.col) == ("f.cir", 1, col)


def test_unknown_function_hint():
    with pytest.raises(NetlistError) as info:
        tf("stpe(0, 0, 1)")
    assert info.value.hint == "did you mean 'step'?"


# --- the vectorized array -------------------------------------------------------------
_t = st.floats(0.0, 5.0)
_v = st.floats(-10.0, 10.0)
_dur = st.floats(0.0, 1.0)
_kinds = st.one_of(
    st.tuples(_t, _v, _v).map(lambda p: Step(*p)),
    st.tuples(_t, st.floats(0.01, 2.0), _v, _v).map(lambda p: Ramp(p[0], p[0] + p[1], p[2], p[3])),
    st.tuples(_v, _v, st.floats(0.0, 10.0), _v).map(lambda p: Sine(*p)),
    st.tuples(_v, _v, _t, _dur, _dur, _dur, st.sampled_from([0.0, 1.0, 3.5]))
    .map(lambda p: Pulse(*p[:6], max(p[6], sum(p[3:6])) if p[6] else 0.0)),
    st.lists(_v, min_size=1, max_size=5).map(lambda vs: Pwl(np.arange(len(vs)) * 0.7, vs)),
    _v.map(Constant),
    _v,
    st.sampled_from(["{2*time}", "{sin(time)^2}", "{time}"]).map(tf),
)


@settings(max_examples=40, deadline=None)
@given(functions=st.lists(_kinds, min_size=1, max_size=12),
       times=st.lists(st.floats(0.0, 8.0), min_size=1, max_size=5))
def test_array_equals_each_function(functions, times):
    arr = TimeFunctionArray(functions)
    assert len(arr) == len(functions)
    for t in times:
        expected = [f(t) if callable(f) else f for f in functions]
        np.testing.assert_allclose(arr(t), expected, rtol=1e-12, atol=1e-12)
    points = arr.breakpoints(6.0)
    assert np.all(np.diff(points) > 0) and np.all((points >= 0) & (points <= 6.0))
    every = sorted({p for f in functions if callable(f) for p in f.breakpoints(6.0)})
    np.testing.assert_allclose(points, every)


def test_array_shares_equal_expressions_and_handles_missing_values():
    arr = TimeFunctionArray([tf("{2*time}"), 3.0, tf("{2*time}"), None, tf("step(1, 0, 1)")])
    out = arr(2.0)
    assert out[[0, 1, 2, 4]].tolist() == [4.0, 3.0, 4.0, 1.0] and math.isnan(out[3])
    assert sum(len(idx) for idx, _ in arr._groups) == 3 and len(arr._groups) == 2
    assert arr.breakpoints(10).tolist() == [1.0]
    assert TimeFunctionArray([1.0, Constant(2.0)]).is_constant
