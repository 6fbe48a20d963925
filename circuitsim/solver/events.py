"""State events of a BDF run: switching functions g(t, y, y') (contract item 17).

After each converged corrector the switching functions are checked; at a sign change
(against the reference sign, and in value) the first root t_e is located by Illinois on
the predictor or the step's interpolant, the step is cut to end there (redone with
h = t_e - t_n) and, once a step ends on it, the run restarts at order 1 as at a
breakpoint. The step loop (``bdf.py``) asks ``StateEvents`` where to cut and restarts.
"""
from __future__ import annotations

import numpy as np

from ..errors import SingularInput
from .history import History

EVENT_TOL_ULPS = 4.0     # event times are located to a few ulps of t ...
EVENT_TOL_STEP = 1e-12   # ... or to this fraction of the step, whichever is larger
EVENT_ROOT_ITERS = 60    # Illinois iterations (superlinear: ~10 reach the tolerance)
EVENT_MAX_CUTS = 3       # re-cuts of one step: the shortened step's root may move earlier


def _illinois(g, a: float, ga: float, b: float, gb: float, tol: float) -> float:
    """The root of the scalar g in [a, b] (ga, gb of opposite signs) by the Illinois
    variant of regula falsi (the retained end's value is halved when it is kept twice,
    so both ends move: superlinear). Returns the end past the root (sign of gb), within
    tol of it."""
    side = 0
    for it in range(EVENT_ROOT_ITERS):
        if b - a <= tol:
            break
        c = (a * gb - b * ga) / (gb - ga)
        if not a < c < b or it >= EVENT_ROOT_ITERS // 2:   # rounding: bisect
            c = 0.5 * (a + b)
        gc = g(c)
        if gc == 0.0:
            return c
        if (gc > 0) == (gb > 0):           # root in [a, c]
            b, gb = c, gc
            if side == 1:
                ga *= 0.5
            side = 1
        else:                              # root in [c, b]
            a, ga = c, gc
            if side == -1:
                gb *= 0.5
            side = -1
    return b


def _tolerance(t_n: float, t_new: float) -> float:
    return max(EVENT_TOL_ULPS * np.spacing(abs(t_new)), EVENT_TOL_STEP * (t_new - t_n))


class StateEvents:
    """The switching functions of one run, their values and reference signs at the
    history's t (``g_left``, ``g_sign``), the event a step is being cut to (``pending``:
    t_e, indices, the h planned before the cut) and the events found (``found``: t, name).
    Inactive (every query answers "no event") for a problem without switching functions.
    An event is (indices of the functions that fired, the h planned before the cut)."""

    def __init__(self, functions, names, terminal=None):
        self.functions, self.names = functions, names
        self.active = functions is not None
        # item 21: functions whose root ends the run (a pole); None: none does
        self.terminal = (None if terminal is None or not np.any(terminal)
                         else np.asarray(terminal, dtype=bool))
        self.g_left = self.g_sign = None
        self.pending = None
        self.found: list = []

    def name(self, i: int) -> str:
        return self.names[i] if self.names is not None else f"g[{i}]"

    def values(self, t, y, yp) -> np.ndarray:
        return np.asarray(self.functions(t, y, yp), dtype=float).ravel()

    def lands(self, t_new: float) -> bool:
        """Whether a step ending at t_new ends on the located event."""
        return self.pending is not None and t_new == self.pending[0]

    def pending_event(self):
        return self.pending[1], self.pending[2]

    def _stop_if_terminal(self, t_e: float, fired, t_n: float) -> None:
        """A terminal function among those whose first root is t_e: the run ends there."""
        if self.terminal is None:
            return
        ends = [i for i in np.atleast_1d(fired) if self.terminal[i]]
        if ends:
            names = ", ".join(self.name(i) for i in ends)
            verb = "changes" if len(ends) == 1 else "change"
            raise SingularInput(f"{names} {verb} sign: the expression is infinite or "
                                f"undefined there (a pole, or the edge of a function's "
                                f"domain), so the run stops instead of stepping over it "
                                f"(last step at t = {t_n:.9g} s)", t=t_e)

    def record(self, t_new: float, event) -> None:
        """A step ending on ``event`` was accepted."""
        self.found += [(float(t_new), self.name(i)) for i in event[0]]
        self.pending = None

    def reset(self, t, y, yp, fired) -> None:
        """Values and reference signs of the switching functions at the new hist.t. A
        zero keeps its previous sign; a function that has just fired takes the sign past
        its root even if the state landed a rounding error short of it, so that the
        same crossing is not found again."""
        if not self.active:
            return
        g = self.values(t, y, yp)
        sign = np.sign(g)
        if self.g_sign is not None:
            sign = np.where(sign == 0, self.g_sign, sign)
            fired = np.asarray(fired, dtype=int)
            sign[fired] = -self.g_sign[fired]
        self.g_left, self.g_sign = g, sign

    def _g_on(self, poly: History, t: float, i) -> float:
        y, yp = poly.interpolate([t])
        return self.values(t, y[0], yp[0])[i]

    def locate(self, hist: History, result, t_new: float, cuts: int, hmin: float):
        """After a step's corrector converged: (event, cut). A switching function that
        changed sign over [t_n, t_new] (against its reference sign, and in value) has its
        first root t_e found by Illinois on a polynomial of the step, and the step is cut
        to end there (cut True: hist is rescaled to h = t_e - t_n, the step is redone).
        Across a switch the corrector's polynomial carries the kink, so a first cut takes
        the root of the predictor (the history's extrapolation, smooth up to the switch)
        where that changes sign too; a step ending on a located event checks it with its
        own interpolant and is accepted as the event when that root is within the
        tolerance of its end (or after EVENT_MAX_CUTS re-cuts). hmin: the smallest step
        at hist.t."""
        t_n, g_left = hist.t, self.g_left
        trial = hist.advanced(result.d, t_new)
        g_new = self.values(t_new, trial.D[0], result.yp)
        changed = np.flatnonzero((self.g_sign * g_new < 0) & (g_left * g_new < 0))
        landing = self.lands(t_new)
        if not len(changed):
            return (self.pending_event(), False) if landing else (None, False)
        tol = _tolerance(t_n, t_new)
        g_pred = self.values(t_new, *hist.predict())
        roots = []
        for i in changed:
            poly, g_end = trial, g_new[i]
            if not landing and g_left[i] * g_pred[i] < 0:     # predictor: hist itself
                poly, g_end = hist, g_pred[i]
            roots.append(_illinois(lambda t, i=i, poly=poly: self._g_on(poly, t, i), t_n,
                                   g_left[i], t_new, g_end, tol))
        roots = np.array(roots)
        t_e = float(roots.min())
        fired = changed[roots <= t_e + tol]
        self._stop_if_terminal(t_e, fired, t_n)
        t_e = max(t_e, t_n + 2.0 * hmin)
        h_planned = self.pending[2] if self.pending is not None else hist.h
        if landing and (t_new - t_e <= tol or cuts >= EVENT_MAX_CUTS):
            return (np.union1d(fired, self.pending[1]), h_planned), False
        if t_new - t_e <= tol:
            return (fired, h_planned), False
        self.pending = (t_e, fired, h_planned)
        hist.rescale((t_e - t_n) / hist.h)
        return None, True

    def cut_at_predicted(self, hist: History, t_new: float, hmin: float) -> bool:
        """After Newton failed: if the predictor (the history's extrapolation) crosses a
        switch within the step, cut the step to end at its first root (True: hist is
        rescaled to it)."""
        if not self.active:
            return False
        t_n = hist.t
        g_pred = self.values(t_new, *hist.predict())
        changed = np.flatnonzero((self.g_sign * g_pred < 0) & (self.g_left * g_pred < 0))
        if not len(changed):
            return False
        tol = _tolerance(t_n, t_new)
        roots = np.array([_illinois(lambda t, i=i: self._g_on(hist, t, i), t_n,
                                    self.g_left[i], t_new, g_pred[i], tol) for i in changed])
        t_e = float(roots.min())
        self._stop_if_terminal(t_e, changed[roots <= t_e + tol], t_n)
        if not t_n + 2.0 * hmin < t_e < t_new - tol:
            return False
        h_planned = self.pending[2] if self.pending is not None else hist.h
        self.pending = (t_e, changed[roots <= t_e + tol], h_planned)
        hist.rescale((t_e - t_n) / hist.h)
        return True
