"""Lookup tables of expressions: ``table(x, file=...)`` and ``table2(x, y, file=...)``.

A table is a function of one or two arguments given by sampled points, evaluated with
numpy on scalars and arrays alike, and differentiable: ``derivative()`` (one argument)
and ``partial(axis)`` (two) give the tables of its derivatives, which
:func:`circuitsim.runtime.expressions.diff` puts in the Jacobian's expressions.

* :class:`Table1D` is a piecewise polynomial through the points (x_i, y_i): straight
  lines (``interp="linear"``) or the monotone cubic of Fritsch and Butland
  (``interp="spline"``: PCHIP, continuous slope, no overshoot between points). Outside
  the points it holds the end values (``extrap="clamp"``) or continues along the end
  slope (``extrap="linear"``).
* :class:`Table2D` interpolates a grid z[i, j] at (x_i, y_j) bilinearly and holds the
  edge values outside it.

Tables compare and hash by ``key`` (the data's origin and the options), so equal tables
in many expressions group together, and they pickle (a case run in another process).
The netlist front-end reads the files (:mod:`circuitsim.netlist.datafiles`).
"""
from __future__ import annotations

import numpy as np

INTERPOLATIONS = ("linear", "spline")
EXTRAPOLATIONS = ("clamp", "linear")


class _Table:
    """What both kinds share: identity by ``key`` and a canonical ``text``."""

    key: tuple = ()
    text: str = ""

    def __eq__(self, other) -> bool:
        return type(other) is type(self) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return self.text


class Table1D(_Table):
    """y(x) through the points (x_i, y_i), x strictly increasing, at least two points.

    Stored as a piecewise polynomial: on [x_i, x_i+1], y = sum_k c[k, i] u^k with
    u = x - x_i; outside, y = y_end + s_end (x - x_end) with s_end the end slope
    (``extrap="linear"``) or 0 (``"clamp"``). ``order`` counts the derivatives taken
    (0: the table itself)."""

    def __init__(self, x, y, interp: str = "linear", extrap: str = "clamp",
                 key: tuple = (), text: str = "table"):
        if interp not in INTERPOLATIONS or extrap not in EXTRAPOLATIONS:
            raise ValueError(f"interp in {INTERPOLATIONS}, extrap in {EXTRAPOLATIONS}")
        x, y = np.array(x, dtype=float), np.array(y, dtype=float)
        if x.ndim != 1 or x.shape != y.shape or len(x) < 2 or not np.all(np.diff(x) > 0):
            raise ValueError("a table needs two or more points, x strictly increasing")
        h, delta = np.diff(x), np.diff(y) / np.diff(x)
        if interp == "linear":
            coef, slopes = np.stack([y[:-1], delta]), (delta[0], delta[-1])
        else:
            d = pchip_slopes(x, y)
            coef = np.stack([y[:-1], d[:-1], (3 * delta - 2 * d[:-1] - d[1:]) / h,
                             (d[:-1] + d[1:] - 2 * delta) / h ** 2])
            slopes = (d[0], d[-1])
        if extrap == "clamp":
            slopes = (0.0, 0.0)
        self.interp, self.extrap = interp, extrap
        self._set(x, coef, (y[0], slopes[0]), (y[-1], slopes[1]), 0,
                  key + (interp, extrap), text)

    def _set(self, breaks, coef, left, right, order, key, text):
        self.breaks, self.coef = breaks, coef
        self.left = (float(left[0]), float(left[1]))
        self.right = (float(right[0]), float(right[1]))
        self.order, self._base, self._text = order, key, text
        self.key = key + (order,)
        self.text = text + "'" * order
        self._last = len(breaks) - 2

    def __call__(self, x):
        x = np.asarray(x, dtype=float)
        b = self.breaks
        i = np.minimum(np.maximum(np.searchsorted(b, x, side="right") - 1, 0), self._last)
        u = x - b[i]
        coef = self.coef
        value = coef[-1][i]
        for k in range(len(coef) - 2, -1, -1):      # Horner
            value = value * u + coef[k][i]
        (y0, s0), (y1, s1) = self.left, self.right
        value = np.where(x < b[0], y0 + s0 * (x - b[0]), value)
        return np.where(x >= b[-1], y1 + s1 * (x - b[-1]), value)

    def derivative(self) -> "Table1D | None":
        """dy/dx as a table; None where it is 0 everywhere (the derivative of a piecewise
        constant table: the slopes of a linear one)."""
        if len(self.coef) == 1:
            return None
        new = object.__new__(Table1D)
        new.interp, new.extrap = self.interp, self.extrap
        coef = self.coef[1:] * np.arange(1, len(self.coef))[:, None]
        # outside, the derivative of y_end + s (x - x_end) is the constant s
        new._set(self.breaks, coef, (self.left[1], 0.0), (self.right[1], 0.0),
                 self.order + 1, self._base, self._text)
        return new


def pchip_slopes(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The slopes at the points of the monotone piecewise cubic (PCHIP: Fritsch and
    Butland, 1984): the weighted harmonic mean of the neighbouring secants where they
    have one sign, 0 at a local extremum; at the ends the three-point formula, kept to
    the sign of the end secant and to 3 times it where the data turn. Two points: the
    secant."""
    h = np.diff(x)
    delta = np.diff(y) / h
    d = np.empty_like(y)
    if len(x) == 2:
        d[:] = delta[0]
        return d
    w1, w2 = 2 * h[1:] + h[:-1], h[1:] + 2 * h[:-1]
    same = np.sign(delta[:-1]) * np.sign(delta[1:]) > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = (w1 + w2) / (w1 / delta[:-1] + w2 / delta[1:])
    d[1:-1] = np.where(same, mean, 0.0)
    d[0] = _end_slope(h[0], h[1], delta[0], delta[1])
    d[-1] = _end_slope(h[-1], h[-2], delta[-1], delta[-2])
    return d


def _end_slope(h0, h1, m0, m1) -> float:
    d = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1)
    if np.sign(d) != np.sign(m0):
        return 0.0
    if np.sign(m0) != np.sign(m1) and abs(d) > abs(3 * m0):
        return 3 * m0
    return d


class Table2D(_Table):
    """z(x, y) on the grid x_i (rows) × y_j (columns), both strictly increasing with at
    least two values, bilinear in each cell, the edge values held outside.

    ``orders`` = (derivatives in x, in y) taken, each 0 or 1 (bilinear: a second
    derivative in one variable is 0)."""

    def __init__(self, x, y, z, key: tuple = (), text: str = "table2"):
        x, y, z = (np.array(a, dtype=float) for a in (x, y, z))
        if (x.ndim != 1 or y.ndim != 1 or z.shape != (len(x), len(y)) or len(x) < 2
                or len(y) < 2 or not np.all(np.diff(x) > 0) or not np.all(np.diff(y) > 0)):
            raise ValueError("a map needs a grid of 2 x 2 or more, breakpoints increasing")
        self.x, self.y, self.z = x, y, z
        self._hx, self._hy = np.diff(x), np.diff(y)
        self._set((0, 0), key, text)

    def _set(self, orders, key, text):
        self.orders, self._base = orders, key
        self.key = key + orders
        self._text = text
        marks = "".join("'" * o + v for o, v in zip(orders, "xy") if o)
        self.text = text if not any(orders) else f"{text}_{marks}"

    def _weights(self, v, breaks, h, order):
        """(cell index, weight of its low end, of its high end) for the values v."""
        clipped = np.minimum(np.maximum(v, breaks[0]), breaks[-1])
        i = np.minimum(np.searchsorted(breaks, clipped, side="right") - 1, len(breaks) - 2)
        if order == 0:
            t = (clipped - breaks[i]) / h[i]
            return i, 1.0 - t, t
        inside = np.where((v >= breaks[0]) & (v <= breaks[-1]), 1.0 / h[i], 0.0)
        return i, -inside, inside

    def __call__(self, x, y):
        x, y = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
        i, a0, a1 = self._weights(x, self.x, self._hx, self.orders[0])
        j, b0, b1 = self._weights(y, self.y, self._hy, self.orders[1])
        z = self.z
        return (a0 * (b0 * z[i, j] + b1 * z[i, j + 1])
                + a1 * (b0 * z[i + 1, j] + b1 * z[i + 1, j + 1]))

    def partial(self, axis: int) -> "Table2D | None":
        """dz/dx (axis 0) or dz/dy (axis 1) as a map; None where it is 0 everywhere."""
        if self.orders[axis]:
            return None
        new = object.__new__(Table2D)
        new.x, new.y, new.z, new._hx, new._hy = self.x, self.y, self.z, self._hx, self._hy
        orders = tuple(o + (k == axis) for k, o in enumerate(self.orders))
        new._set(orders, self._base, self._text)
        return new
