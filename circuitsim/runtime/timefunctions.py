"""Time functions of sources and drives: step, ramp, sin, pulse, pwl, {expr of time}.

Each kind has one numpy kernel ``_kernel(q, t)`` (``q`` = ``_prepare(params)``) that
broadcasts: a single function calls it with scalar parameters, :class:`TimeFunctionArray`
with the parameter arrays of all functions of that kind at once (the simulation hot
path evaluates N sources with one call per kind, not one per source). The netlist
front-end makes them from written values (:mod:`circuitsim.netlist.timefunction_builder`).
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..arrays import distinct
from .expressions import compile_, compile_group, require_names, to_text


# Breakpoints of a periodic pulse are listed up to the horizon; a cap keeps a very
# short period over a long run from producing millions of points.
MAX_BREAKPOINTS = 100_000

# A linear pwl of at most this many points (a written profile: a ramp and hold) stops
# the solver at every point by default; a longer one (a sampled waveform) only at its
# jumps: each stop restarts the solver at order 1, some 20 steps, which a corner every
# few steps would multiply. (A spline pwl has no corners: jumps only.)
CORNER_STOPS_MAX_POINTS = 10

# Pulse edges shorter than this are instantaneous (no overflow in time/edge for any
# realistic time).
MIN_EDGE = 1e-200


class TimeFunction:
    """A scalar function of time. Subclasses set ``kind`` and ``params`` (floats).

    ``_prepare(params)`` turns the written parameters into what ``_kernel(q, t)`` needs
    (both work on scalars and on arrays of many functions' parameters alike)."""

    kind = ""
    is_constant = False

    def __init__(self, *params: float):
        self.params = tuple(float(p) for p in params)
        self._q = self._prepare(self.params)

    def __call__(self, t):
        value = self._kernel(self._q, t)
        if np.ndim(t) and not np.ndim(value):
            value = np.full(np.shape(t), value)
        return float(value) if np.ndim(value) == 0 else value

    @staticmethod
    def _prepare(p):
        return p

    @staticmethod
    def _kernel(q, t):
        raise NotImplementedError

    def _points(self, horizon: float) -> list:
        return []

    def breakpoints(self, horizon: float = math.inf) -> list:
        """Times in [0, horizon] where the solver stops and restarts: where the value or
        the slope jumps (a long pwl: where the value jumps, see Pwl)."""
        return sorted({float(x) for x in self._points(horizon) if 0.0 <= x <= horizon})

    def time_scale(self) -> float:
        """A time over which the value changes smoothly (inf: piecewise linear or
        constant between breakpoints). The solver limits its step to a fraction of it."""
        return math.inf

    def __repr__(self) -> str:
        return f"{self.kind}({', '.join(f'{p:g}' for p in self.params)})"


class Constant(TimeFunction):
    kind = "const"
    is_constant = True

    @staticmethod
    def _kernel(q, t):
        return q[0]


class Step(TimeFunction):
    """step(t0, v0, v1): v0 before t0, v1 from t0 on."""
    kind = "step"

    @staticmethod
    def _kernel(q, t):
        t0, v0, v1 = q
        return np.where(t < t0, v0, v1)

    def _points(self, horizon):
        return [self.params[0]]


class Ramp(TimeFunction):
    """ramp(t0, t1, v0, v1): v0 until t0, linear to v1 at t1 (> t0), v1 after."""
    kind = "ramp"

    @staticmethod
    def _prepare(p):
        t0, t1, v0, v1 = p
        return t0, np.divide(1.0, np.subtract(t1, t0)), v0, np.subtract(v1, v0)

    @staticmethod
    def _kernel(q, t):
        t0, inv_span, v0, dv = q
        frac = np.minimum(np.maximum((t - t0) * inv_span, 0.0), 1.0)   # clip(), but faster
        return v0 + dv * frac

    def _points(self, horizon):
        return self.params[:2]


class Sine(TimeFunction):
    """sin(offset, amplitude, freq_hz[, phase_rad]) = offset + amplitude sin(2πft + phase)."""
    kind = "sin"

    @staticmethod
    def _prepare(p):
        offset, amplitude, freq, phase = p
        return offset, amplitude, np.multiply(2.0 * np.pi, freq), phase

    @staticmethod
    def _kernel(q, t):
        offset, amplitude, omega, phase = q
        return offset + amplitude * np.sin(omega * t + phase)

    def time_scale(self) -> float:
        freq = abs(self.params[2])
        return 1.0 / freq if freq > 0 and self.params[1] != 0 else math.inf    # the period


class Pulse(TimeFunction):
    """pulse(v0, v1, delay, rise, fall, width[, period]) with SPICE semantics; period 0
    (or omitted) gives a single pulse."""
    kind = "pulse"

    @staticmethod
    def _prepare(p):
        v0, v1, delay, rise, fall, width, period = (np.asarray(x, dtype=float) for x in p)
        # An edge of (near) zero duration is never on its sloped branch; dividing by
        # 1.0 instead avoids 0/0 and overflow in the branch np.where discards.
        rise = np.where(rise > MIN_EDGE, rise, 0.0)
        fall = np.where(fall > MIN_EDGE, fall, 0.0)
        rise_div = np.where(rise > 0, rise, 1.0)
        fall_div = np.where(fall > 0, fall, 1.0)
        period = np.where(period > 0, period, np.inf)   # fmod(tau, inf) = tau: one pulse
        return (v0, v1 - v0, delay, rise, rise + width, rise + width + fall,
                rise_div, fall_div, period)

    @staticmethod
    def _kernel(q, t):
        v0, dv, delay, rise, top_end, fall_end, rise_div, fall_div, period = q
        since = t - delay
        tau = np.fmod(since, period)   # time into the current period
        shape = np.where(tau < rise, tau / rise_div,
                         np.where(tau < top_end, 1.0, (fall_end - tau) / fall_div))
        shape = np.where((since < 0) | (tau >= fall_end), 0.0, shape)
        return v0 + dv * shape

    def _points(self, horizon):
        v0, v1, delay, rise, fall, width, period = self.params
        corners = np.array([0.0, rise, rise + width, rise + width + fall])
        if period <= 0:
            count = 1
        elif not math.isfinite(horizon):
            count = MAX_BREAKPOINTS // 4
        else:
            count = min(max(int((horizon - delay) // period) + 1, 1), MAX_BREAKPOINTS // 4)
        starts = delay + period * np.arange(count)
        return (starts[:, None] + corners[None, :]).ravel().tolist()


class Pwl(TimeFunction):
    """pwl(t1, v1, t2, v2, ...): linear between the points, constant outside. Two points
    at one time make a jump: the later value holds from that time on.

    ``interp`` says how the points are joined: "linear" (straight lines: a corner at
    every point) or "spline" (the not-a-knot cubic spline through the points between
    jumps: continuous slope and curvature, so the solver's step is not cut at every
    point; it may overshoot between points).
    ``breakpoints`` says which times the solver stops and restarts at: "corners" (every
    point) or "jumps" (the times written twice); across the other corners the step is
    left to the error test. None: corners for a linear pwl of at most
    CORNER_STOPS_MAX_POINTS points, jumps otherwise."""
    kind = "pwl"
    BREAKPOINTS = ("corners", "jumps")
    INTERPOLATIONS = ("linear", "spline")

    def __init__(self, times, values, breakpoints: str | None = None,
                 interp: str | None = None):
        self.times = np.array(times, dtype=float)       # owned copies, float64 for np.interp
        self.values = np.array(values, dtype=float)
        self.params = tuple(np.concatenate([self.times, self.values]).tolist())
        for name, choice, choices in (("breakpoints", breakpoints, self.BREAKPOINTS),
                                      ("interp", interp, self.INTERPOLATIONS)):
            if choice is not None and choice not in choices:
                raise ValueError(f"pwl {name} must be one of {choices}, got {choice!r}")
        self.interp = interp or "linear"
        self.default_breakpoints = ("corners" if self.interp == "linear"
                                    and len(self.times) <= CORNER_STOPS_MAX_POINTS
                                    else "jumps")
        self.breakpoint_rule = breakpoints or self.default_breakpoints
        self.evaluate = (self._linear if self.interp == "linear" or len(self.times) < 2
                         else _spline(self.times, self.values))      # one point: a constant

    def _linear(self, t):
        # a binary search and one interpolation; np.interp keeps the later of two values
        # at one time (it looks for the last point at or before t): a jump's right limit
        return np.interp(t, self.times, self.values)

    def __call__(self, t):
        value = self.evaluate(t)
        return float(value) if np.ndim(value) == 0 else value

    def jump_times(self) -> np.ndarray:
        """The times written twice."""
        t = self.times
        return t[1:][t[1:] == t[:-1]]

    def _points(self, horizon):
        return (self.times if self.breakpoint_rule == "corners" else self.jump_times()).tolist()

    def __repr__(self) -> str:
        rule = ("" if self.breakpoint_rule == self.default_breakpoints
                else f", breakpoints={self.breakpoint_rule}")
        interp = "" if self.interp == "linear" else f", interp={self.interp}"
        return ("pwl(" + ", ".join(f"{a:g}, {b:g}" for a, b in zip(self.times, self.values))
                + rule + interp + ")")


def _spline(times: np.ndarray, values: np.ndarray):
    """t -> the not-a-knot cubic spline through each run of points between jumps (a run
    of two points: the straight line), constant outside; at a jump (two points at one
    time) the later value, as np.interp."""
    from scipy.interpolate import CubicSpline      # only a spline pwl needs scipy here
    # per interval i: v(t) = c0 + u (c1 + u (c2 + u c3)), u = t - t_i; a jump's interval
    # (of zero length, reached only past the last point) holds its later value
    coef = np.zeros((4, len(times) - 1))
    coef[0] = values[1:]
    starts = np.concatenate([[0], np.flatnonzero(times[1:] == times[:-1]) + 1, [len(times)]])
    for a, b in zip(starts[:-1], starts[1:]):
        if b - a >= 2:
            coef[:, a:b - 1] = CubicSpline(times[a:b], values[a:b]).c[::-1]
    c0, c1, c2, c3 = coef
    first, last_time, last = times[0], times[-1], len(times) - 2

    def evaluate(t):
        i = np.minimum(np.maximum(np.searchsorted(times, t, side="right") - 1, 0), last)
        u = np.minimum(np.maximum(t, first), last_time) - times[i]     # clip(), but faster
        return c0[i] + u * (c1[i] + u * (c2[i] + u * c3[i]))
    return evaluate


class ExprFunction(TimeFunction):
    """An expression of ``time`` (the other names already substituted). Its text and its
    own compiled function are made on first use: a group of them is evaluated by one
    function compiled for the group (TimeFunctionArray), and a leg length of 4 kB took
    60 ms to compile and 10 ms to write out as text."""
    kind = "expr"

    def __init__(self, tree):
        self.params = ()
        self.tree = tree
        require_names(tree, ["time"])      # a name other than time: an error here

    @functools.cached_property
    def key(self) -> str:
        return to_text(self.tree)

    @functools.cached_property
    def fn(self):
        return compile_(self.tree, ["time"])

    def __call__(self, t):
        if isinstance(t, float):                 # one time: the float route
            return float(self.fn(t))
        value = np.broadcast_to(self.fn(t), np.shape(t))
        return float(value) if np.ndim(value) == 0 else np.array(value)

    def __repr__(self) -> str:
        return "{" + self.key + "}"


class HeldInput(TimeFunction):
    """An input set from outside between the pieces of a run (a co-simulation master):
    the written function ``default`` until ``hold(value)`` is called, then that value,
    constant until it is set again."""
    kind = "input"

    def __init__(self, default: TimeFunction):
        self.params = ()
        self.default = default
        self.value: float | None = None

    def hold(self, value: float) -> None:
        self.value = float(value)

    def __call__(self, t):
        if self.value is None:
            return self.default(t)
        return np.full(np.shape(t), self.value) if np.ndim(t) else self.value

    def breakpoints(self, horizon: float = math.inf) -> list:
        return self.default.breakpoints(horizon) if self.value is None else []

    def time_scale(self) -> float:
        return self.default.time_scale() if self.value is None else math.inf

    def __repr__(self) -> str:
        return f"input({self.default!r})" if self.value is None else f"input({self.value:g})"


# --- many functions at once -------------------------------------------------------------
class TimeFunctionArray:
    """N time functions evaluated together: ``tfa(t)`` -> (N,) array.

    Entries may be TimeFunctions or plain numbers (constants; None counts as NaN).
    Constants are filled once; each kind is evaluated with one vectorized kernel call;
    pwl functions use np.interp each; equal expressions are evaluated once."""

    def __init__(self, functions):
        funcs = [f if isinstance(f, TimeFunction)
                 else Constant(math.nan if f is None else float(f)) for f in functions]
        self.functions = funcs
        self._base = np.array([f.params[0] if f.is_constant else 0.0 for f in funcs])
        by_kind: dict = {}
        for i, f in enumerate(funcs):
            if not f.is_constant:
                by_kind.setdefault(type(f), []).append(i)
        self._groups = []     # (indices, evaluator of t)
        for cls, idx in by_kind.items():
            members = [funcs[i] for i in idx]
            if cls is Pwl:
                for i, f in zip(idx, members):
                    self._groups.append((np.array([i]), _pwl_eval(f)))
            elif cls is HeldInput:                  # its value changes between calls
                for i, f in zip(idx, members):
                    self._groups.append((np.array([i]), f))
            elif cls is ExprFunction:     # one function: equal subexpressions computed once
                self._groups.append((np.array(idx),
                                     compile_group([f.tree for f in members], ["time"])))
            else:
                params = tuple(np.array(col) for col in zip(*(f.params for f in members)))
                self._groups.append((np.array(idx),
                                     _kernel_eval(cls._kernel, cls._prepare(params))))
        self.is_constant = not self._groups

    def __len__(self) -> int:
        return len(self.functions)

    def __call__(self, t: float) -> np.ndarray:
        out = self._base.copy()
        for idx, evaluate in self._groups:
            out[idx] = evaluate(t)
        return out

    def time_scale(self) -> float:
        """The shortest time scale of the functions (see TimeFunction.time_scale)."""
        return min((f.time_scale() for f in self.functions), default=math.inf)

    def breakpoints(self, horizon: float = math.inf) -> np.ndarray:
        points = [p for f in self.functions for p in f.breakpoints(horizon)]
        return distinct(np.asarray(points, dtype=float))


def _kernel_eval(kernel, params):
    return lambda t: kernel(params, t)


def _pwl_eval(f: Pwl):
    if f.interp != "linear":
        return f.evaluate
    times, values = f.times, f.values
    return lambda t: np.interp(t, times, values)


class TimeVectorArray:
    """N vectors whose components are time functions: ``tva(t)`` -> (N, size).

    ``vectors``: N sequences of ``size`` entries, each a TimeFunction or a number."""

    def __init__(self, vectors, size: int = 3):
        self.components = [TimeFunctionArray([v[j] for v in vectors]) for j in range(size)]

    def __call__(self, t: float) -> np.ndarray:
        return np.stack([c(t) for c in self.components], axis=-1)

    def time_scale(self) -> float:
        return min(c.time_scale() for c in self.components)

    def breakpoints(self, horizon: float = math.inf) -> np.ndarray:
        return distinct(np.concatenate([c.breakpoints(horizon) for c in self.components]))
