"""Variable-order (1-5), variable-step BDF integrator for F(t, y, y') = 0: the step loop.

The method (DASSL/IDA family, quasi-constant step size as in Shampine & Reichelt's
ode15s paper, pure BDF coefficients). This module controls the step, drives Newton and
accepts steps; beside it:

``history.py``    the backward differences D[j] = nabla^j y_n at the constant step h: the
                  predictor y_pred = sum_{j<=k} D[j], the difference update, step and
                  order changes, the interpolant between steps.
``events.py``     state events: switching functions, locating a root on the step, the
                  cut and the restart.
``stability.py``  on a compliant problem, the orders at which BDF does not amplify a
                  lightly damped mode.
``recording.py``  the recorded points and what ``solve`` returns.

Corrector. The BDF of order k in difference form, sum_{m=1}^k (1/m) nabla^m y_{n+1} = h y'_{n+1},
           becomes, with the unknown correction d = y_{n+1} - y_pred (= nabla^{k+1} y_{n+1}),
               y'_{n+1} = (gamma_k d + psi) / h,   gamma_k = sum_{m<=k} 1/m,
               psi = sum_{m=1}^k gamma_m D[m],
           so F(t_{n+1}, y_pred + d, psi/h + cj d) = 0 with cj = gamma_k / h (``newton.py``).
Error.     The local truncation error of order k is about d / (k+1). Its weighted RMS norm
           (ewt = 1 / (rtol |y_n| + atol)) over the error-tested unknowns that carry the
           error, at most the independent states, must be <= 1 (``error_norm``).
           On a compliant problem (stiff joint springs) d is filtered instead:
           J^-1 cj dF/dy' d with the kept Newton matrix J, which passes a component of
           eigenvalue lambda times 1/(1 - h lambda/gamma_k): the joints' vibration, which
           the formula damps, is not counted as error; nor is the normal part, which
           J^-1 removes (no y' on the constraint rows). The order is then at most 4, and
           lower where a lightly damped mode that the filter leaves out would grow
           (``stability.py``).
           Algebraic unknowns are not tested: their values follow from the differential
           ones through the constraints, and testing them (Lagrange multipliers, joint
           forces, source currents) makes the step collapse on every jump of an input.
Order/step. After k+1 steps at the same h and order, the error estimates at orders k-1
           (D[k] / k), k (d / (k+1)) and k+1 (D[k+2] / (k+2)) give the step factor each order
           allows (filtered as d is, on a compliant problem); the order with the largest
           step wins.
Events.    A problem's switching functions (contract item 17) are checked after each
           converged corrector, before the error test; at a sign change the step is
           redone to end at the first root and the solver restarts at order 1, as at a
           breakpoint (``events.py``).
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from ..arrays import distinct
from ..errors import (ConvergenceError, Interrupted, SolverError, StepSizeTooSmall,
                      Terminated)
from .events import EVENT_MAX_CUTS, StateEvents
from .magnitudes import MagnitudeGroups
from .history import GAMMA, MAX_ORDER, History
from .initial import consistent_initial_conditions
from .newton import MAX_ITERS, BadValues, Newton, residual, wrms
from .problem import DAEProblem, unknown_names
from .recording import Recorder, SolverOutput, keeps_fitting_points, polished_unknowns
from .stability import COMPLIANT_MAX_ORDER, ModeGuard

SAFETY = 0.9             # aim below the tolerance so that the next step is unlikely to fail
MAX_FACTOR = 10.0        # the difference array extrapolates badly over larger step increases
MIN_GROWTH = 1.2         # smaller gains are not worth new differences (and maybe a new matrix)
SIGNIFICANT = 1e-3       # an unknown whose weighted error is below this fraction of the
                         # largest one does not count in the error norm's mean (0.1 and
                         # 0.01 left out a mechanism's small but real errors: up to 25 %
                         # and 11 % more steps on the shipped netlists)
ERR_FAIL_MIN = 0.1       # after one error-test failure cut h at most 10x: the estimate is rough
ERR_FAIL_MAX = 0.9       # ... and at least 10%, or the retry is likely to fail again
ERR_FAIL_REPEAT = 0.25   # second and later failures: the estimate is not to be trusted, cut 4x
ERR_FAILS_ORDER1 = 3     # this many failures in one step: fall back to order 1 (IDA's rule)
NEWTON_FAIL_FACTOR = 0.25  # Newton failed with a fresh matrix: h is far too large (IDA's 1/4)
MAX_STEP_FAILS = 10      # failures of one kind in one step before giving up (IDA's MXNCF/MXNEF)
H0_SPAN = 1e-3           # default first step at most this fraction of the time span
H0_YP = 0.5              # ... and small enough to change y by at most half a tolerance unit
STRETCH = 1.1            # land on a stop point if it is within 10% beyond the planned step
HMIN_ULPS = 16.0         # steps below 16 ulps of t cannot be represented reliably
HMIN_SPAN = 1e-3         # near t = 0, measure those ulps on this fraction of the span instead
PROJECTION_MAX = 0.1     # largest projection of an unknown (error-test units) applied
PROGRESS_EVERY = 100     # steps between progress callbacks
REPORT_WORST = 5         # unknowns named in an error message

EPS = np.finfo(float).eps

# --- the integrator ---------------------------------------------------------------------------

def solve(problem, t0, t_end, y0, yp0=None, *, t_out=None, rtol=1e-6, atol=1e-9,
          max_step=np.inf, first_step=None, max_order=5, fixed=None, on_output=None,
          progress=None, on_step=None) -> SolverOutput:
    """Integrate F(t, y, y') = 0 from t0 to t_end.

    ``t_out``: output times (by interpolation; None: every accepted step, plus t0).
    ``rtol``, ``atol`` (scalar or per unknown): ewt = 1 / (rtol |y| + atol).
    ``max_step``, ``first_step`` (None: estimated), ``max_order`` (1..5).
    ``fixed``: mask of y0 entries kept by the initial-value computation (default: the
    differential ones). ``on_output(t, y, yp)`` is called for each recorded point,
    ``progress(t)`` every PROGRESS_EVERY steps; ``on_step(T, Y, YP)`` with the points of
    each accepted step (``Recorder``: for quadratures over the steps).

    Never raises SolverError: a failure or Ctrl-C returns the results so far with
    status 'failed' / 'interrupted' and ``error`` set.
    """
    run = _Run(problem, float(t0), float(t_end), rtol, atol, max_step, first_step, max_order,
               t_out, on_output, progress, on_step)
    try:
        run.start(y0, yp0, fixed)
        run.integrate()
    except KeyboardInterrupt as exc:
        why = (f"stopped by {exc.signal_name}" if isinstance(exc, Terminated)
               else "interrupted by the user")
        run.error = Interrupted(f"{why}; the results so far are kept",
                                t=run.t, h=run.h, order=run.order)
    except SolverError as exc:
        run.error = exc
    return run.output()


def start(problem, t0, y0, *, horizon, rtol=1e-6, atol=1e-9, max_step=np.inf,
          first_step=None, max_order=5):
    """A run from consistent initial values at t0 that is advanced in pieces
    (``run.advance(t_next, restart)``, ``run.state()``): what a co-simulation's
    communication steps need. ``horizon``: the time scale of the whole run (its first
    step and smallest step are set from it, as ``solve``'s t_end). Nothing is recorded;
    a failure raises the SolverError."""
    run = _Run(problem, float(t0), float(horizon), rtol, atol, max_step, first_step,
               max_order, np.zeros(0), None, None)
    run.start(y0, None, None)
    return run


def _validated_atol(atol, n: int) -> np.ndarray:
    atol = np.broadcast_to(np.asarray(atol, dtype=float), (n,)).copy()
    if not (atol > 0).all():
        raise ValueError("atol must be positive for every unknown")
    return atol


class _Run:
    """One integration: state, counters and the step loop."""

    def __init__(self, problem, t0, t_end, rtol, atol, max_step, first_step, max_order,
                 t_out, on_output, progress, on_step=None):
        if not t_end >= t0:
            raise ValueError(f"t_end ({t_end}) must not be before t0 ({t0})")
        if not 1 <= int(max_order) <= MAX_ORDER:
            raise ValueError(f"max_order must be 1..{MAX_ORDER}, got {max_order}")
        if not rtol > 0:
            raise ValueError("rtol must be positive")
        if not isinstance(problem, DAEProblem):
            raise TypeError("solve() takes a circuitsim.solver.DAEProblem (subclass it, or "
                            "build one with SimpleProblem)")
        self.problem = problem
        self.n = int(problem.n)
        self.t0, self.t_end = t0, t_end
        self.span = t_end - t0
        self.rtol = float(rtol)
        # a problem may give each unknown a nominal magnitude that scales atol (problem.py)
        scale = problem.atol_scale                                       # (6)
        self.atol = _validated_atol(atol, self.n) * (1.0 if scale is None else scale)
        self.max_step = float(max_step) if max_step is not None and max_step > 0 else np.inf
        self.first_step = first_step if first_step is not None and first_step > 0 else None
        self.max_order = int(max_order)
        self.progress = progress
        mask = problem.id if problem.error_mask is None else problem.error_mask   # (5)
        self.err_mask = (np.asarray(mask) != 0).astype(float)
        tested = max(1, int(self.err_mask.sum()))
        # the RMS of the error is over the independent states the tested unknowns describe
        dim = problem.error_dimension                                    # (16)
        self.n_err = tested if dim is None else min(max(1, int(dim)), tested)
        self.project = problem.project                                   # (8)
        self.differential = np.asarray(problem.id) != 0
        self.magnitude_groups = MagnitudeGroups(problem.magnitude_groups)   # (13)
        # Multipliers of higher-index constraints (joint forces) converge with the
        # unknowns they constrain; weighing them in the Newton test (their scale is
        # unknown, often ~0) only makes it fail. The problem may say which to leave out.
        mask = problem.newton_mask                                       # (7)
        self.newton_mask = np.ones(self.n) if mask is None else np.asarray(mask, dtype=float)
        # Higher-index constraints (positions of joints) give consistent y' and
        # multipliers only through their differentiated form: a problem may offer that
        # form for the initial-value computation (problem.py).
        self.init_problem = problem.for_initialisation or problem        # (9)
        self.check_values = problem.check_values                         # (10)
        # stiff joint springs: error estimates filtered, order at most 4 (docs/solver.md)
        self.compliant = bool(problem.compliant)                         # (15)
        if self.compliant:
            self.max_order = min(self.max_order, COMPLIANT_MAX_ORDER)
        self.stats = dict(nsteps=0, nres=0, njac=0, nlu=0, nfail_err=0, nfail_conv=0, nniter=0,
                          nrestart=0, max_order_used=0, hmin_used=0.0, hmax_used=0.0,
                          error_dimension=self.n_err)
        self.newton = Newton(problem, self.stats)
        self.mode_guard = ModeGuard(self.newton, self.n) if self.compliant else None   # (15)
        self.invariant_rows = self.newton.invariant_rows                 # (12)
        self.out = Recorder(t_out, t0, t_end, on_output, on_step)
        algebraic = np.asarray(problem.id) == 0
        polished = polished_unknowns(problem)                           # (18)
        keep_fit = keeps_fitting_points(problem, polished)
        # (18) a point's fit is judged by what is written, stabilisers left out
        weighed = polished & (True if problem.stabilisers is None
                              else ~np.asarray(problem.stabilisers, dtype=bool))
        if polished.any():
            self.out.polish = lambda t, y, yp: self.newton.polish(
                t, y, yp, algebraic, self._ewt(y) * self.newton_mask,
                self._ewt(y) * weighed if keep_fit else None)
        self.stops = self._stop_points(problem.breakpoints)              # (4)
        self.istop = 0
        self.hist: History | None = None
        self.error: SolverError | None = None
        self.initial: dict = {}
        self.moved_at_restarts: list = []
        self.events = StateEvents(problem.event_functions, problem.event_names,   # (17)
                                  problem.event_terminal)                          # (21)
        self.event_update = problem.event_update if self.events.active else None   # (20)
        self.stats["nevents"] = 0

    # state for messages
    @property
    def t(self):
        return self.hist.t if self.hist is not None else self.t0

    @property
    def h(self):
        return self.hist.h if self.hist is not None else None

    @property
    def order(self):
        return self.hist.order if self.hist is not None else None

    def _stop_points(self, breakpoints, t_from=None) -> np.ndarray:
        """Breakpoints strictly inside (t_from, t_end) (t_from: t0), well separated, then
        t_end."""
        t_from = self.t0 if t_from is None else t_from
        bps = distinct(np.asarray([] if breakpoints is None else breakpoints, dtype=float))
        gap = HMIN_ULPS * EPS * max(abs(self.t0), abs(self.t_end), self.span)
        bps = bps[(bps > t_from + gap) & (bps < self.t_end - gap)]
        if len(bps) > 1:
            bps = bps[np.concatenate([[True], np.diff(bps) > gap])]
        return np.append(bps, self.t_end)

    def _ewt(self, y: np.ndarray) -> np.ndarray:
        magnitude = self.magnitude_groups.largest(np.abs(y))             # (13)
        magnitude *= self.rtol
        magnitude += self.atol
        return np.divide(1.0, magnitude, out=magnitude)

    def _order1_from_tangent(self, factor: float) -> History:
        """The history from y_n and y'_n at order 1 with h * factor: after repeated
        error-test failures the high differences are not to be trusted (IDA's rule), and
        the order-1 predictor then takes the derivative at t_n, not the secant of the last
        step (History.change), whose slope is off by about h_old y''/2: an error of the
        predictor proportional to h, which no smaller step brings below an absolute
        tolerance near a zero crossing (a motor current through zero at atol 1e-14
        stopped the run)."""
        hist = self.hist
        self.hist = History(hist.t, hist.D[0].copy(), self.yp_now, hist.h * factor)
        return self.hist

    def _hmin(self) -> float:
        return HMIN_ULPS * EPS * max(abs(self.hist.t), HMIN_SPAN * self.span)

    def _worst(self, weights) -> list:
        """(name, weighted size) of the REPORT_WORST largest entries, largest first."""
        if weights is None:
            return []
        idx = np.argsort(-weights, kind="stable")[:REPORT_WORST]
        names = unknown_names(self.problem)
        return [(names[i], float(weights[i])) for i in idx if weights[i] > 0]

    # --- start and restart ----------------------------------------------------------------
    def start(self, y0, yp0, fixed) -> None:
        y0 = np.asarray(y0, dtype=float)
        if y0.shape != (self.n,):
            raise ValueError(f"y0 has shape {y0.shape}, expected ({self.n},)")
        y, yp, info = consistent_initial_conditions(
            self.init_problem, self.t0, y0, yp0, fixed, self.rtol, self.atol,
            tscale=self.span, stats=self.stats)
        if self.event_update is not None:          # (20) a discrete state due at t0
            y_set, handled = self.event_update(
                self.t0, y, np.flatnonzero(self.events.values(self.t0, y, yp) > 0))
            if len(handled):
                y, yp, info = consistent_initial_conditions(
                    self.init_problem, self.t0, y_set, yp, fixed, self.rtol, self.atol,
                    tscale=self.span, stats=self.stats)
        self.initial = info
        self.out.point(self.t0, y, yp)
        h = self.first_step or self._estimate_step(self.t0, y, yp)
        self.hist = History(self.t0, y, yp, self._limit_first(self.t0, h))
        self.yp_now = yp                           # y' at the history's t
        self.events.reset(self.t0, y, yp, ())

    def _estimate_step(self, t, y, yp) -> float:
        """IDA's first step: a fraction of the span, and h ||y'|| <= H0_YP tolerance units,
        the mean over every tested unknown. (Over the independent states it is up to 7x
        smaller; bodies starting at rest are measured against atol alone, and Andrews'
        mechanism at rtol 1e-9 then began at h = 1e-19 s, where Newton's matrix, cj =
        1e19, no longer resolves the joints' velocities.)"""
        h = H0_SPAN * (self.t_end - t)
        ypnorm = wrms(yp, self._ewt(y) * self.err_mask, int(self.err_mask.sum()) or 1)
        if ypnorm * h > H0_YP:
            h = H0_YP / ypnorm
        return h

    def _limit_first(self, t, h) -> float:
        """No farther than max_step, the next stop and the next output time."""
        return min(h, self.max_step, self.stops[self.istop] - t, self.out.next_time(t) - t)

    def _restart(self, yp_left, event=None) -> None:
        """At a breakpoint: keep the differential y, recompute consistent algebraic y and
        y' with the inputs' values just after t (right limits, whatever the model's
        convention at t itself), and start again at order 1 with a small step. Also at a
        mere kink of an input: the high differences are wrong across it, and going on
        with them cost a 100x larger error in tests (triangle wave) for the same work."""
        hist = self.hist
        t = hist.t
        y_left, fired = hist.D[0].copy(), () if event is None else event[0]
        if event is not None and self.event_update is not None:    # (20) discrete states
            y_left, handled = self.event_update(t, y_left, fired)
            fired = np.setdiff1d(fired, handled)
        y, yp, info = consistent_initial_conditions(
            self.init_problem, np.nextafter(t, np.inf), y_left, yp_left, None,
            self.rtol, self.atol, tscale=self.t_end - t, stats=self.stats)
        if info["moved"]:
            self.moved_at_restarts.append((t, info["moved"]))
        if event is None:
            self.stats["nrestart"] += 1
        self.newton.invalidate()
        # at an event: the step planned before the cut, not the cut one (it may be tiny)
        h = min(hist.h if event is None else event[1], self._estimate_step(t, y, yp))
        self.hist = History(t, y, yp, self._limit_first(t, h))
        self.yp_now = yp
        self.out.point(t, y, yp)
        self.events.reset(t, y, yp, fired)

    # --- a run advanced in pieces ---------------------------------------------------------
    def state(self) -> tuple:
        """(t, y, y') at the last accepted point (a copy)."""
        Y, YP = self.hist.interpolate(np.array([self.hist.t]))
        return self.hist.t, self.hist.D[0].copy(), YP[0]

    def advance(self, t_next: float, restart: bool = False) -> None:
        """Integrate on from the last accepted point to ``t_next`` and land on it, then
        stop without restarting: the order and the history go on into the next piece
        (a co-simulation's communication step). ``restart``: the inputs changed at the
        current time; first restart there as at a breakpoint (differential y kept,
        algebraic y and y' made consistent with the inputs as they are now, order 1)."""
        t = self.hist.t
        if not t_next > t:
            raise ValueError(f"advance needs a later time: from t = {t!r} to {t_next!r}")
        yp = self.state()[2]
        self.t_end = float(t_next)
        self.stops = self._stop_points(self.problem.breakpoints, t)
        self.istop = 0
        self.events.pending = None
        if restart:
            self._restart(yp)
        else:
            self.events.reset(t, self.hist.D[0], yp, ())
        self.integrate()

    # --- the step loop --------------------------------------------------------------------
    def integrate(self) -> None:
        while self.hist.t < self.t_end:
            self._step()
            if self.progress is not None and self.stats["nsteps"] % PROGRESS_EVERY == 0:
                self.progress(self.hist.t)
        if self.progress is not None:
            self.progress(self.hist.t)

    def _fit_to_stop(self):
        """Shorten (or stretch by at most STRETCH) the step to land on the next stop point.
        Returns (t_new, lands_on_stop)."""
        hist = self.hist
        tstop = self.stops[self.istop]
        if self.events.pending is not None:           # a located event comes first
            tstop = min(tstop, self.events.pending[0])
        remaining = tstop - hist.t
        if hist.h >= remaining or (hist.h * STRETCH >= remaining and remaining <= self.max_step):
            hist.rescale(remaining / hist.h)
            return tstop, True
        return hist.t + hist.h, False

    def _step(self) -> None:
        """One accepted step, retried with smaller h (and order) as often as needed."""
        hist = self.hist
        fails_conv = fails_err = fails_check = cuts = 0
        while True:
            t_new, at_stop = self._fit_to_stop()
            k, h = hist.order, hist.h
            hmin = self._hmin()
            # a step ending on an interior breakpoint sees the inputs' left limits
            t_eval = np.nextafter(t_new, -np.inf) if at_stop and t_new < self.t_end else t_new
            ewt = self._ewt(hist.D[0])
            y_pred, yp_pred = hist.predict()
            result = self.newton.correct(t_eval, y_pred, yp_pred, GAMMA[k] / h,
                                         ewt * self.newton_mask)
            if not result.converged:
                self.stats["nfail_conv"] += 1
                fails_conv += 1
                why = self._why_give_up(fails_conv, NEWTON_FAIL_FACTOR, hmin)
                if why:
                    raise ConvergenceError(f"{result.reason}; {why}", t=hist.t, h=h, order=k,
                                           worst=self._worst(result.worst))
                if self.events.lands(t_new):
                    # the step ends on a switch where the law jumps (a damped stop's force
                    # by c·v at contact): Newton finds no solution at the jump; take the
                    # predictor's state there (the history's extrapolation, within the
                    # step's error) and restart from it
                    predicted = SimpleNamespace(d=np.zeros(self.n), yp=yp_pred, niter=0)
                    self._accept(predicted, t_new, at_stop, 0.0, t_eval,
                                 self.events.pending_event())
                    return
                # Newton may fail for the switch alone: end the step where it is predicted
                if cuts < EVENT_MAX_CUTS and self.events.cut_at_predicted(hist, t_new, hmin):
                    cuts += 1
                    continue
                hist.rescale(NEWTON_FAIL_FACTOR)
                continue
            if self.check_values is not None:
                message = self.check_values(result.y)
                if message:
                    fails_check += 1
                    why = self._why_give_up(fails_check, NEWTON_FAIL_FACTOR, hmin)
                    if why:
                        raise ConvergenceError(f"{message}; {why}", t=hist.t, h=h, order=k)
                    hist.rescale(NEWTON_FAIL_FACTOR)
                    continue
            # before the error test: a step across a switch fails it for the kink alone
            event = None
            if self.events.active:
                event, cut = self.events.locate(hist, result, t_new, cuts, hmin)
                if cut:                   # redo the step, ending at the event
                    cuts += 1
                    continue
            err_w, err, drift = self._estimate(result, ewt, t_eval)
            err /= k + 1
            if err > 1.0:
                self.stats["nfail_err"] += 1
                fails_err += 1
                factor = min(max(SAFETY * err ** (-1.0 / (k + 1)), ERR_FAIL_MIN), ERR_FAIL_MAX)
                if fails_err >= 2:
                    factor = min(factor, ERR_FAIL_REPEAT)
                why = self._why_give_up(fails_err, factor, hmin)
                if why:
                    raise StepSizeTooSmall(f"the local error test keeps failing; {why}",
                                           t=hist.t, h=h, order=k,
                                           worst=self._worst(err_w / (k + 1)))
                if fails_err >= ERR_FAILS_ORDER1:
                    hist = self._order1_from_tangent(factor)
                else:
                    hist.change(k, factor)
                continue
            self._accept(result, t_new, at_stop, err, t_eval, event, drift)
            return

    def _why_give_up(self, fails: int, factor: float, hmin: float) -> str:
        """Why retrying the step with h * factor is pointless ('' if it is not)."""
        if fails >= MAX_STEP_FAILS:
            return f"{fails} retries with smaller steps failed"
        if self.hist.h * factor < hmin:
            return f"the step size reached the smallest one possible at this t ({hmin:.3g} s)"
        return ""

    def _estimate(self, result, ewt, t_eval):
        """(weighted |e| per unknown, its RMS, the drift correction of the new point or
        None) for the error estimate e made of the correction d: d along the invariants
        (``_invariant_solves``, which also gives the drift correction), or on a compliant
        problem d filtered (``Newton.filtered``)."""
        d, w = result.d, ewt * self.err_mask
        if self.newton.lu is None:
            return (*self._weighted(d, w), None)
        if self.compliant:
            return (*self._weighted(self.newton.filtered(d), w), None)
        if self.invariant_rows is None:
            return (*self._weighted(d, w), None)
        normal, drift = self._invariant_solves(d, t_eval, result.y, result.yp)
        return (*self._weighted(np.where(self.differential, d - normal, d), w), drift)

    def _weighted(self, v, w):
        """(|v| w per unknown, its norm ``error_norm``)."""
        v_w = np.abs(v) * w
        return v_w, _norm_of_weighted(v_w, self.n_err)

    def _filtered_size(self, v, w, n_err):
        """wrms of v filtered as d is in the error test (order selection on a compliant
        problem: the differences carry the joints' stiff vibration as d does)."""
        if self.newton.lu is None:
            return error_norm(v, w, n_err)
        return self._weighted(self.newton.filtered(v), w)[1]

    def _invariant_solves(self, d, t, y, yp):
        """(normal part of the correction d, drift correction of the new point y), both
        solved with the kept matrix J in one call (two right-hand sides cost about 1.5
        one).

        The normal part: J delta = J d_x on the invariant rows, 0 elsewhere (d_x: d of
        the differential unknowns, algebraic ones do not drift). For a mechanism it is
        the mass-weighted normal component of d, the predictor's violation of the
        constraints, which the corrector removes and the drift correction keeps at zero:
        it is not an error of the solution, and d - delta is what the error test
        measures. Near a singular configuration that part is amplified by the
        conditioning of the constraints; tested, it cut the step into the singular
        instant (the IFToMM double four-bar stopped at its first flat passage).

        The drift correction (``_restore_invariants``): J delta = -r on the invariant
        rows, r their residual at the new point."""
        moved = np.where(self.differential, d, 0.0)
        columns = [np.where(self.invariant_rows, self.newton.matrix @ moved, 0.0)]
        r = self._invariant_residual(t, y, yp)
        if r is not None:
            columns.append(-r)
        solved = self.newton.lu.solve(np.column_stack(columns))
        drift = np.where(self.differential, solved[:, 1], 0.0) if r is not None else None
        return solved[:, 0], drift

    def _invariant_residual(self, t, y, yp):
        """The residual of the invariant rows at (t, y, y') (0 on the other rows), or
        None where it cannot be evaluated."""
        try:
            r = residual(self.problem, t, y, yp, self.stats, invariant=True)
        except BadValues:
            return None
        return np.where(self.invariant_rows, r, 0.0)

    def _restore_invariants(self, t, yp, drift=None) -> None:
        """Put the accepted y back onto the invariant rows (position and velocity
        constraints): one chord step J delta = -r_inv with the kept matrix, applied to the
        differential unknowns only (``drift``, when ``_invariant_solves`` found it
        already). With J's blocks for a constrained mechanism this is the mass-weighted
        projection of (q, u) onto g = 0, W u = 0; the algebraic unknowns (multipliers)
        keep their converged values."""
        lu = self.newton.lu
        if lu is None:
            return
        y = self.hist.D[0]
        if drift is None:
            r = self._invariant_residual(t, y, yp)
            if r is None:
                return
            drift = np.where(self.differential, lu.solve(-r), 0.0)
        # a drift well inside the tolerance is corrected; a larger correction means the
        # kept matrix does not fit this point (near a singular configuration, where it
        # amplifies rounding along the nearly free direction): then y is left as it is
        if np.max(np.abs(drift) * self._ewt(y) * self.err_mask) <= PROJECTION_MAX:
            y += drift

    def _accept(self, result, t_new: float, at_stop: bool, err: float, t_eval: float,
                event=None, drift=None) -> None:
        hist = self.hist
        t_old, h = hist.t, hist.h
        hist.accept(result.d, t_new)
        self.yp_now = result.yp
        if self.invariant_rows is not None:
            self._restore_invariants(t_eval, result.yp, drift)
        if self.project is not None:
            y_proj = self.project(t_new, hist.D[0].copy())
            if y_proj is not None:
                hist.D[0] = y_proj                  # corrects y_{n+1} only; differences keep
        st = self.stats
        st["nsteps"] += 1
        st["max_order_used"] = max(st["max_order_used"], hist.order)
        st["hmin_used"] = float(h) if st["nsteps"] == 1 else min(st["hmin_used"], float(h))
        st["hmax_used"] = max(st["hmax_used"], float(h))
        if event is not None:
            self.events.record(t_new, event)
            self.stats["nevents"] = len(self.events.found)
            at_stop = at_stop and t_new == self.stops[self.istop]   # not a breakpoint
        restart = (at_stop or event is not None) and t_new < self.t_end
        self.out.step(hist, t_old, result.yp, include_end=not restart, t_eval=t_eval,
                      at_event=event is not None)
        if at_stop:
            self.istop += 1
        if restart:
            self.events.pending = None    # found again after the restart if still ahead
            self._restart(result.yp, event)
        elif t_new < self.t_end:
            self.events.reset(t_new, hist.D[0], result.yp, ())
            self._adapt(err, result.niter)


    def _adapt(self, err: float, niter: int) -> None:
        """After k+1 equal steps: pick the order (k-1, k, k+1) allowing the largest step."""
        hist = self.hist
        k = hist.order
        if hist.n_equal < k + 1:
            return
        D, w = hist.D, self._ewt(hist.D[0]) * self.err_mask
        size = self._filtered_size if self.compliant else error_norm
        err_m = size(D[k], w, self.n_err) / k if k > 1 else np.inf
        err_p = size(D[k + 2], w, self.n_err) / (k + 2) if k < self.max_order else np.inf
        with np.errstate(divide="ignore"):           # a zero estimate allows any step
            factors = np.array([err_m, err, err_p]) ** (-1.0 / np.arange(k, k + 3))
        # ties go to the higher order: with no error-tested unknowns (an algebraic circuit
        # driven by inputs) every estimate is 0, and a higher order interpolates better
        best = 2 - int(np.argmax(factors[::-1]))
        # fewer Newton iterations leave more room (they signal a well-behaved step)
        safety = SAFETY * (2 * MAX_ITERS + 1) / (2 * MAX_ITERS + niter)

        def allowed(order):
            """The step factor the error estimate allows at order (k-1 .. k+1)."""
            return min(MAX_FACTOR, safety * factors[order - k + 1], self.max_step / hist.h)
        new_order = k - 1 + best
        factor = allowed(new_order)
        if 1.0 <= factor < MIN_GROWTH:
            factor = 1.0
        if self.compliant:
            new_order, factor = self.mode_guard.stable_order(k, hist.h, new_order, factor, allowed)
        if new_order != k or factor != 1.0:
            hist.change(new_order, factor)

    # --- result ---------------------------------------------------------------------------
    def output(self) -> SolverOutput:
        t, y, yp = self.out.arrays(self.n)
        if self.error is None:
            status = "success"
            message = f"reached t_end = {self.t_end:g} s in {self.stats['nsteps']} steps"
        else:
            status = "interrupted" if isinstance(self.error, Interrupted) else "failed"
            message = str(self.error)
        notes = []
        if self.initial.get("moved"):
            notes.append("initial values changed to satisfy the equations: " +
                         _moved_text(self.initial["moved"]))
        for tb, moved in self.moved_at_restarts:
            notes.append(f"values jumped at the breakpoint t = {tb:g} s: " + _moved_text(moved))
        if notes:
            message = "; ".join([message] + notes)
        stats = dict(self.stats, events=list(self.events.found))    # (t, name) of each event
        out = SolverOutput(t, y, yp, stats, status, self.error, message, self.initial)
        if self.error is not None and self.error.partial is None:
            self.error.partial = out
        return out


def error_norm(v: np.ndarray, w: np.ndarray, n_err: int) -> float:
    """The error test's norm of v with the weights w (``_norm_of_weighted``)."""
    with np.errstate(over="ignore"):      # a diverging estimate: inf is the right answer
        return _norm_of_weighted(np.abs(v) * w, n_err)


def _norm_of_weighted(x: np.ndarray, n_err: int) -> float:
    """sqrt(sum x_i^2 / m), m = min(n_err, the number of x_i > SIGNIFICANT max x): the
    RMS over the unknowns that carry the error, at most the independent states. The
    RMS over all n_err would divide the error of a few active unknowns by the many
    quiet ones: on an RC ladder driven at one end the driven node's error grew with N."""
    largest = np.maximum.reduce(x) if len(x) else 0.0
    carrying = np.count_nonzero(x > SIGNIFICANT * largest)
    return math.sqrt(np.add.reduce(x * x) / min(max(carrying, 1), n_err))


def _moved_text(moved) -> str:
    items = [f"{name} {a:.6g} -> {b:.6g}" for name, a, b in moved[:REPORT_WORST]]
    if len(moved) > REPORT_WORST:
        items.append(f"and {len(moved) - REPORT_WORST} more")
    return ", ".join(items)


# --- verification helper ----------------------------------------------------------------------

def fixed_step_bdf(problem, t0: float, values, h: float, nsteps: int, rtol=1e-12, atol=1e-12):
    """``nsteps`` steps of constant size h and order k = len(values) - 1 from exact past
    values ``values[i] = y(t0 - i h)``; no error control. Used to verify that the formulas
    have order k (the global error scales as h^k). Returns (t, y) at the end."""
    values = np.asarray(values, dtype=float)
    n = values.shape[1]
    stats = dict(nres=0, njac=0, nlu=0, nniter=0)
    newton = Newton(problem, stats)
    hist = History.from_values(t0, values, h)
    atol = _validated_atol(atol, n)
    for i in range(1, nsteps + 1):
        t_new = t0 + i * h
        y_pred, yp_pred = hist.predict()
        ewt = 1.0 / (rtol * np.abs(hist.D[0]) + atol)
        result = newton.correct(t_new, y_pred, yp_pred, GAMMA[hist.order] / h, ewt)
        if not result.converged:
            raise ConvergenceError(result.reason, t=hist.t, h=h, order=hist.order)
        hist.accept(result.d, t_new)
    return hist.t, hist.D[0].copy()
