"""Lookup tables (runtime/tables.py) against independent computations: np.interp for the
linear table, scipy's PchipInterpolator for the monotone cubic, a bilinear function (which
bilinear interpolation reproduces exactly) for the map; their derivatives, as expression
trees differentiated and compiled for a Jacobian, against central differences."""
import numpy as np
import pytest
from scipy.interpolate import PchipInterpolator

from circuitsim.runtime.expressions import (Binary, Func, Name, Num, compile_, compile_group,
                                            diff, evaluate, substitute, to_text)
from circuitsim.runtime.tables import Table1D, Table2D

RNG = np.random.default_rng(20261201)
X = np.sort(RNG.uniform(0.0, 10.0, 40))
Y = np.sin(X) + 0.3 * X                      # rises and turns: PCHIP's cases all occur
INSIDE = RNG.uniform(X[0], X[-1], 2000)


def test_linear_table_is_np_interp_inside_and_holds_its_ends_outside():
    t = Table1D(X, Y)
    assert np.max(np.abs(t(INSIDE) - np.interp(INSIDE, X, Y))) <= 1e-14 * np.max(np.abs(Y))
    assert t(X).tolist() == pytest.approx(Y.tolist(), rel=1e-15, abs=1e-15)
    assert t(X[0] - 5.0) == Y[0] and t(X[-1] + 5.0) == Y[-1]        # clamped, exactly


def test_linear_extrapolation_continues_the_end_segments():
    t = Table1D(X, Y, extrap="linear")
    left = Y[0] - 2.0 * (Y[1] - Y[0]) / (X[1] - X[0])
    right = Y[-1] + 3.0 * (Y[-1] - Y[-2]) / (X[-1] - X[-2])
    assert t(X[0] - 2.0) == pytest.approx(left, rel=1e-13)
    assert t(X[-1] + 3.0) == pytest.approx(right, rel=1e-13)


def test_spline_is_scipys_pchip_with_its_first_and_second_derivatives():
    t = Table1D(X, Y, interp="spline")
    ref = PchipInterpolator(X, Y)
    scale = np.max(np.abs(Y))
    assert np.max(np.abs(t(INSIDE) - ref(INSIDE))) <= 1e-13 * scale
    d1, d2 = t.derivative(), t.derivative().derivative()
    assert np.max(np.abs(d1(INSIDE) - ref.derivative()(INSIDE))) <= 1e-12 * scale
    assert np.max(np.abs(d2(INSIDE) - ref.derivative(2)(INSIDE))) <= 1e-10 * scale
    # the slope is continuous at the points (C1): left and right limits agree
    eps = 1e-9
    jump = np.abs(d1(X[1:-1] + eps) - d1(X[1:-1] - eps))
    assert np.max(jump) < 1e-6                                   # ~eps * |y''|


def test_spline_keeps_monotone_data_monotone():
    x = np.array([0.0, 1.0, 2.0, 2.5, 6.0, 7.0])
    y = np.array([0.0, 0.0, 0.1, 3.0, 3.1, 10.0])                # steps and flats
    values = Table1D(x, y, interp="spline")(np.linspace(0.0, 7.0, 5001))
    assert np.all(np.diff(values) >= -1e-15)
    assert values.min() >= 0.0 and values.max() <= 10.0          # no overshoot


@pytest.mark.parametrize("interp, extrap", [("linear", "clamp"), ("linear", "linear"),
                                            ("spline", "clamp"), ("spline", "linear")])
def test_a_tables_derivative_in_a_jacobian_matches_central_differences(interp, extrap):
    """d/du of 2 u table(u^2 / 4) for u inside and outside the points: the tree that diff
    builds, compiled as an element's Jacobian is, against central differences of the
    compiled value (points at least 1e-4 from a breakpoint: the linear table's slope
    jumps there)."""
    t = Table1D(X, Y, interp, extrap)
    u = Name("u")
    tree = Binary("*", Binary("*", Num(2.0), u),
                  Func("table", (Binary("/", Binary("^", u, Num(2.0)), Num(4.0)),), table=t))
    f, df = compile_(tree, ["u"]), compile_group([diff(tree, "u")], ["u"])
    us = np.sqrt(4 * np.concatenate([RNG.uniform(X[0], X[-1], 300), [X[-1] + 2.0]]))
    us = us[np.min(np.abs(us[:, None] ** 2 / 4 - X[None, :]), axis=1) > 1e-4]
    h = 1e-7
    fd = (f(us + h) - f(us - h)) / (2 * h)
    assert np.max(np.abs(df(us)[0] - fd) / (1 + np.abs(fd))) < 1e-6
    assert evaluate(tree, {"u": 3.0}) == pytest.approx(float(f(3.0)), rel=1e-15)


def test_a_linear_tables_second_derivative_is_zero_and_drops():
    t = Table1D(X, Y)
    tree = Func("table", (Name("x"),), table=t)
    assert to_text(diff(diff(tree, "x"), "x")) == "0"
    assert diff(Func("table", (Num(2.0),), table=t), "x") == Num(0.0)


def bilinear(x, y):
    return 1.5 - 2.0 * x + 0.75 * y + 0.4 * x * y


XG = np.array([-2.0, -0.5, 0.0, 1.2, 2.0])
YG = np.array([0.0, 0.1, 0.45, 0.8])
ZG = bilinear(XG[:, None], YG[None, :])


def test_map_reproduces_a_bilinear_function_and_holds_its_edges():
    m = Table2D(XG, YG, ZG)
    x, y = RNG.uniform(-3.0, 3.0, 3000), RNG.uniform(-0.3, 1.2, 3000)
    expected = bilinear(np.clip(x, -2.0, 2.0), np.clip(y, 0.0, 0.8))
    assert np.max(np.abs(m(x, y) - expected)) < 1e-14 * np.max(np.abs(ZG))
    assert m(0.3, 0.2) == pytest.approx(bilinear(0.3, 0.2), rel=1e-15)


def test_map_partial_derivatives_in_a_jacobian():
    """d/da of table2(a, 0.5 a) = z_x + 0.5 z_y, exact for the bilinear data inside the
    grid; outside it the held edge has no slope across it."""
    m = Table2D(XG, YG, ZG)
    a = Name("a")
    tree = Func("table2", (a, Binary("*", Num(0.5), a)), table=m)
    slope = compile_group([diff(tree, "a")], ["a"])
    inside = RNG.uniform(0.0, 1.6, 200)
    exact = (-2.0 + 0.4 * 0.5 * inside) + 0.5 * (0.75 + 0.4 * inside)
    assert np.max(np.abs(slope(inside)[0] - exact)) < 1e-13
    assert slope(2.5)[0] == 0.0                   # x and y both beyond the grid: held
    # x inside, y = 0.5 * 1.8 = 0.9 beyond the last y: only z_x remains
    assert slope(1.8)[0] == pytest.approx(-2.0 + 0.4 * 0.8, rel=1e-13)


def test_tables_compare_by_key_and_fold_as_constants():
    a, b = Table1D(X, Y, key=("f.csv", 1)), Table1D(X, Y, key=("f.csv", 1))
    assert a == b and hash(a) == hash(b)
    assert a != Table1D(X, Y, interp="spline", key=("f.csv", 1))
    tree = Func("table", (Name("k"),), table=a)
    assert substitute(tree, {"k": 2.5}) == Num(float(np.interp(2.5, X, Y)))
