"""What a BDF run records and returns: (t, y, y') at the requested output times (by
interpolation within the step that passes them), or at every accepted step if none.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..arrays import distinct
from ..errors import SolverError
from .history import History

OUT_SLACK = 1e-9         # output times this close (relative to the span) beyond t_end mean t_end
MAX_POINTS = 10_000_000  # recorded points held in memory ...
MAX_POINT_BYTES = 4 * 2**30   # ... and their bytes (y and y')

EPS = np.finfo(float).eps
POLISH_ALL = False       # True: every interpolated point polished whatever is recorded and
                         # however well it fits (the reference the tests compare against)


@dataclass
class SolverOutput:
    """What ``solve`` returns, also on failure (then with the results up to the failure)."""
    t: np.ndarray
    y: np.ndarray                # (len(t), n)
    yp: np.ndarray               # (len(t), n)
    stats: dict
    status: str = "success"      # 'success' | 'failed' | 'interrupted'
    error: SolverError | None = None
    message: str = ""
    initial: dict = field(default_factory=dict)   # consistent_initial_conditions' info at t0


def polished_unknowns(problem) -> np.ndarray:
    """(n,) True for the unknowns whose correction at an interpolated output point changes
    what is written (18): the recorded algebraic unknowns (their y is corrected) and the
    differential ones whose y' is recorded (their y' is). None without algebraic
    unknowns: the interpolant of a differential y is as accurate as the steps, and such a
    problem's points were never corrected."""
    algebraic = np.asarray(problem.id) == 0
    if not algebraic.any():
        return algebraic
    if POLISH_ALL:
        return np.ones_like(algebraic)
    values = _mask(problem.recorded, len(algebraic))
    rates = _mask(problem.recorded_rates, len(algebraic))
    return (algebraic & values) | (~algebraic & rates)


def keeps_fitting_points(problem, polished: np.ndarray) -> bool:
    """Whether a point whose first correction moves no algebraic unknown beyond the
    tolerance may be kept as interpolated (18): only if what is recorded is named (all of
    y also means the equations at the points, a run report's balances), no polished
    unknown is differential (a recorded y' has no tolerance to judge its correction by)
    and some unknown is (without one the error test watches nothing: the polish is all
    the accuracy of a point)."""
    differential = np.asarray(problem.id) != 0
    named = problem.recorded is not None and problem.recorded_rates is not None
    return (named and not POLISH_ALL and differential.any()
            and not (polished & differential).any())


def _mask(recorded, n: int) -> np.ndarray:
    """(n,) bool of a ``recorded`` vector, None meaning all."""
    return np.ones(n, dtype=bool) if recorded is None else np.asarray(recorded) != 0


class Recorder:
    """Collects (t, y, y') at the requested output times, or at every step if none."""

    def __init__(self, t_out, t0: float, t_end: float, on_output, on_step=None):
        self.on_output = on_output
        # on_step(T, Y, YP): the run's own points, for a quadrature over the steps (a run
        # report's energies). One point: a (re)start, t0 or the right limit at a restart;
        # pairs of points: an accepted step from the point before, cut at the output
        # points inside it, each piece as its midpoint (interpolated, corrected as an
        # output point is) and its end (the step's end at the left limit of the inputs
        # if it ends on a breakpoint); a fourth argument says whether the step ends on a
        # located event (where an element's law switches: the end's state is on the
        # switch, either side of it)
        self.on_step = on_step
        self.polish = None        # (t, y, yp) -> consistent (y, yp) at interpolated points
        self.every = t_out is None
        self.T, self.Y, self.YP = [], [], []
        if not self.every:
            times = np.asarray(t_out, dtype=float).ravel()
            slack = OUT_SLACK * max(t_end - t0, abs(t_end) * EPS)
            times = times[(times >= t0) & (times <= t_end + slack)]
            self.times = distinct(np.minimum(times, t_end))
            self.next = 0

    def _add(self, t, y, yp) -> None:
        if len(self.T) >= min(MAX_POINTS, MAX_POINT_BYTES // (16 * max(len(y), 1))):
            raise SolverError(f"{len(self.T)} points recorded, as many as memory allows "
                              "(without output times every step is recorded): give the "
                              "run an output interval (.tran tstop tstep)", t=self.T[-1])
        y, yp = np.array(y, dtype=float), np.array(yp, dtype=float)
        self.T.append(float(t))
        self.Y.append(y)
        self.YP.append(yp)
        if self.on_output is not None:
            self.on_output(float(t), y.copy(), yp.copy())

    def next_time(self, t: float) -> float:
        """The first requested output time after t (inf if none)."""
        if self.every:
            return np.inf
        later = self.times[self.times > t]
        return float(later[0]) if len(later) else np.inf

    def point(self, t, y, yp) -> None:
        """A known point: t0 or the right limit at a restart."""
        if self.on_step is not None:
            self.on_step(np.array([t], dtype=float), np.array(y, dtype=float)[None],
                         np.array(yp, dtype=float)[None], False)
        if self.every:
            self._add(t, y, yp)
            return
        while self.next < len(self.times) and self.times[self.next] <= t:
            self._add(self.times[self.next], y, yp)
            self.next += 1

    def step(self, hist: History, t_old: float, yp_new, include_end: bool,
             t_eval: float | None = None, at_event: bool = False) -> None:
        """Outputs in (t_old, hist.t] (or (t_old, hist.t) if include_end is False).
        ``t_eval``: the time the step's end was computed at (hist.t, or its left limit
        on a breakpoint); ``at_event``: the step ends on a located event."""
        t_new = hist.t
        inside = []                              # the output points inside the step
        if not self.every:
            i = j = self.next
            while j < len(self.times) and (self.times[j] < t_new or
                                           (include_end and self.times[j] == t_new)):
                j += 1
            if j > i:
                Y, YP = hist.interpolate(self.times[i:j])
                for m in range(j - i):
                    t, y, yp = self.times[i + m], Y[m], YP[m]
                    if t != t_new:
                        if self.polish is not None:
                            y, yp = self.polish(t, y, yp)
                        inside.append((t, y, yp))
                    self._add(t, y, yp)
                self.next = j
        elif include_end:
            self._add(t_new, hist.D[0], yp_new)
        if self.on_step is not None:
            end = (t_new if t_eval is None else t_eval, hist.D[0], yp_new)
            self._quadrature_points(hist, t_old, inside + [end], at_event)

    def _quadrature_points(self, hist: History, t_old: float, ends: list,
                           at_switch: bool) -> None:
        """``on_step`` with the step cut at its output points: each piece's midpoint
        (interpolated, corrected as an output point is) and end; ``at_switch``: the step
        ends on a located event."""
        points, start = [], t_old
        for end in ends:
            t_mid = 0.5 * (start + end[0])
            Y, YP = hist.interpolate(np.array([t_mid]))
            y_mid, yp_mid = (Y[0], YP[0]) if self.polish is None else \
                self.polish(t_mid, Y[0], YP[0])
            points += [(t_mid, y_mid, yp_mid), end]
            start = end[0]
        T, Y, YP = zip(*points)
        self.on_step(np.array(T), np.stack(Y), np.stack(YP), at_switch)

    def arrays(self, n: int):
        m = len(self.T)
        if m == 0:
            return np.zeros(0), np.zeros((0, n)), np.zeros((0, n))
        return np.array(self.T), np.array(self.Y).reshape(m, n), np.array(self.YP).reshape(m, n)
