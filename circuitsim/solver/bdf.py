"""Variable-order (1-5), variable-step BDF integrator for F(t, y, y') = 0.

The method (DASSL/IDA family, quasi-constant step size as in Shampine & Reichelt's
ode15s paper, pure BDF coefficients):

History.   D[0] = y_n and D[j] = nabla^j y_n, the backward differences of the solution at
           the constant step h. A step size change by a factor r re-interpolates the
           differences (``History.rescale``), so the formulas always see equal steps.
Predictor. y_pred = sum_{j<=k} D[j]   (the interpolant through y_n..y_{n-k}, extrapolated).
Corrector. The BDF of order k in difference form, sum_{m=1}^k (1/m) nabla^m y_{n+1} = h y'_{n+1},
           becomes, with the unknown correction d = y_{n+1} - y_pred (= nabla^{k+1} y_{n+1}),
               y'_{n+1} = (gamma_k d + psi) / h,   gamma_k = sum_{m<=k} 1/m,
               psi = sum_{m=1}^k gamma_m D[m],
           so F(t_{n+1}, y_pred + d, psi/h + cj d) = 0 with cj = gamma_k / h (``newton.py``).
Error.     The local truncation error of order k is about d / (k+1). Its weighted RMS norm
           (ewt = 1 / (rtol |y_n| + atol)) over the error-tested unknowns must be <= 1.
           On a compliant problem (stiff joint springs) d is filtered instead:
           J^-1 cj dF/dy' d with the kept Newton matrix J, which passes a component of
           eigenvalue lambda times 1/(1 - h lambda/gamma_k): the joints' vibration, which
           the formula damps, is not counted as error; nor is the normal part, which
           J^-1 removes (no y' on the constraint rows). The order is then at most 4, and
           lower where a lightly damped mode that the filter leaves out would grow
           (``_stable_order``).
           Algebraic unknowns are not tested: their values follow from the differential
           ones through the constraints, and testing them (Lagrange multipliers, joint
           forces, source currents) makes the step collapse on every jump of an input.
Order/step. After k+1 steps at the same h and order, the error estimates at orders k-1
           (D[k] / k), k (d / (k+1)) and k+1 (D[k+2] / (k+2)) give the step factor each order
           allows (filtered as d is, on a compliant problem); the order with the largest
           step wins.
Events.    A problem's switching functions (contract item 17) are checked after each
           converged corrector; at a sign change the first root is located (Illinois) on
           the predictor or the step's interpolant, the step is redone to end there and
           the solver restarts at order 1, as at a breakpoint (``_locate_event``).
Output.    Between steps y(t) is the interpolant sum_j D[j] B_j(s), s = (t - t_n)/h,
           B_j(s) = s (s+1) ... (s+j-1) / j!, and y'(t) its time derivative.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from math import comb
from types import SimpleNamespace

import numpy as np

from ..errors import (ConvergenceError, Interrupted, SolverError, StepSizeTooSmall,
                      Terminated)
from .initial import consistent_initial_conditions
from .newton import MAX_ITERS, BadValues, Newton, residual, wrms
from .problem import DAEProblem, unknown_names

MAX_ORDER = 5
# gamma_k = sum_{m=1}^k 1/m (index 0 unused)
GAMMA = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, MAX_ORDER + 2))])

SAFETY = 0.9             # aim below the tolerance so that the next step is unlikely to fail
MAX_FACTOR = 10.0        # the difference array extrapolates badly over larger step increases
MIN_GROWTH = 1.2         # smaller gains are not worth new differences (and maybe a new matrix)
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
OUT_SLACK = 1e-9         # output times this close (relative to the span) beyond t_end mean t_end
COMPLIANT_MAX_ORDER = 4  # BDF5 amplifies a lightly damped joint vibration at h omega ~ 1-5
LIGHT_DAMPING = 0.3      # compliant problem: modes below this damping ratio are watched
FILTERED_PART = 0.9      # ... where the error estimate passes less than this of them
LIGHT_MODES_MAX_SIZE = 800   # unknowns: a dense generalized eigenvalue solve (~1 s) finds
UNWATCHED_MAX_ORDER = 3      # ... those modes; above that size the order is kept <= 3
PROJECTION_MAX = 0.1     # largest projection of an unknown (error-test units) applied
PROGRESS_EVERY = 100     # steps between progress callbacks
MAX_POINTS = 10_000_000  # recorded points held in memory ...
MAX_POINT_BYTES = 4 * 2**30   # ... and their bytes (y and y')
REPORT_WORST = 5         # unknowns named in an error message
EVENT_TOL_ULPS = 4.0     # event times are located to a few ulps of t ...
EVENT_TOL_STEP = 1e-12   # ... or to this fraction of the step, whichever is larger
EVENT_ROOT_ITERS = 60    # Illinois iterations (superlinear: ~10 reach the tolerance)
EVENT_MAX_CUTS = 3       # re-cuts of one step: the shortened step's root may move earlier

EPS = np.finfo(float).eps


def bdf_growth(k: int, hl: np.ndarray) -> float:
    """Largest growth per step of BDF-k at constant step on y' = lambda y, over the
    values h lambda given: the largest |z| with sum_j (1/j) (1 - 1/z)^j = h lambda."""
    base = np.zeros(k + 1)
    for j in range(1, k + 1):                  # coefficients in w = 1/z, lowest first
        base[:j + 1] += np.polynomial.polynomial.polypow([1.0, -1.0], j) / j
    worst = 0.0
    for v in np.atleast_1d(hl):
        c = base.astype(complex)
        c[0] -= v
        w = np.roots(c[::-1])
        worst = max(worst, float(np.max(1.0 / np.abs(w))))
    return worst


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


# --- the difference array --------------------------------------------------------------------

def _newton_basis(s: np.ndarray, order: int):
    """B_j(s) = s (s+1) ... (s+j-1) / j! and dB_j/ds for j = 0..order; shapes (len(s), order+1)."""
    s = np.asarray(s, dtype=float)
    B = np.ones((len(s), order + 1))
    dB = np.zeros((len(s), order + 1))
    for j in range(1, order + 1):
        dB[:, j] = (dB[:, j - 1] * (s + j - 1) + B[:, j - 1]) / j    # product rule
        B[:, j] = B[:, j - 1] * (s + j - 1) / j
    return B, dB


def _difference_matrix(order: int) -> np.ndarray:
    """Row j gives nabla^j at point 0 from values at points 0, -1, ..., -order:
    nabla^j v_0 = sum_i (-1)^i C(j, i) v_{-i}."""
    return np.array([[(-1) ** i * comb(j, i) for i in range(order + 1)]
                     for j in range(order + 1)], dtype=float)


def _rescale_matrix(order: int, factor: float) -> np.ndarray:
    """Maps D[:order+1] at step h to D[:order+1] at step factor*h: evaluate the interpolant
    at t_n - i factor h (i = 0..order), then difference those values."""
    B, _ = _newton_basis(-factor * np.arange(order + 1), order)
    return _difference_matrix(order) @ B


class History:
    """D[0] = y_n, D[j] = nabla^j y_n at the constant step h; t = t_n.

    Rows up to order+2 are kept: after a step D[order+1] is the correction d and
    D[order+2] the change of d from the previous step (the error estimate at order+1).
    """

    def __init__(self, t: float, y: np.ndarray, yp: np.ndarray, h: float, order: int = 1):
        self.D = np.zeros((MAX_ORDER + 3, len(y)))
        self.D[0] = y
        self.D[1] = h * yp                 # nabla y ~ h y' starts order 1
        self.t, self.h, self.order = t, h, order
        self.n_equal = 0                   # steps taken since the last change of h or order

    @classmethod
    def from_values(cls, t: float, values: np.ndarray, h: float) -> "History":
        """From exact past values: values[i] = y(t - i h), i = 0..order."""
        values = np.asarray(values, dtype=float)
        order = len(values) - 1
        hist = cls(t, values[0], np.zeros(values.shape[1]), h, order)
        hist.D[:order + 1] = _difference_matrix(order) @ values
        return hist

    def predict(self):
        """y_pred = sum_{j<=k} D[j] and y'_pred = psi / h."""
        k = self.order
        y_pred = self.D[:k + 1].sum(axis=0)
        psi = GAMMA[1:k + 1] @ self.D[1:k + 1]
        return y_pred, psi / self.h

    def accept(self, d: np.ndarray, t_new: float) -> None:
        """Difference update after y_{n+1} = y_pred + d: nabla^{k+1} y_{n+1} = d and
        nabla^j y_{n+1} = nabla^j y_n + nabla^{j+1} y_{n+1}, from j = k down to 0."""
        k, D = self.order, self.D
        D[k + 2] = d - D[k + 1]
        D[k + 1] = d
        for j in range(k, -1, -1):
            D[j] += D[j + 1]
        self.t = t_new
        self.n_equal += 1

    def rescale(self, factor: float) -> None:
        """Change h to factor*h by re-interpolating the differences."""
        if factor != 1.0:
            k = self.order
            self.D[:k + 1] = _rescale_matrix(k, factor) @ self.D[:k + 1]
            self.h *= factor
        self.n_equal = 0

    def advanced(self, d: np.ndarray, t_new: float) -> "History":
        """A copy after ``accept(d, t_new)``: its interpolant spans the trial step."""
        trial = History.__new__(History)
        trial.D, trial.t, trial.h = self.D.copy(), self.t, self.h
        trial.order, trial.n_equal = self.order, self.n_equal
        trial.accept(d, t_new)
        return trial

    def interpolate(self, times):
        """y and y' at ``times`` (within the last step) from the interpolant of order k."""
        k = self.order
        B, dB = _newton_basis((np.asarray(times, dtype=float) - self.t) / self.h, k)
        return B @ self.D[:k + 1], (dB @ self.D[:k + 1]) / self.h


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


# --- output recording -------------------------------------------------------------------------

class _Recorder:
    """Collects (t, y, y') at the requested output times, or at every step if none."""

    def __init__(self, t_out, t0: float, t_end: float, on_output):
        self.on_output = on_output
        self.polish = None        # (t, y, yp) -> consistent (y, yp) at interpolated points
        self.every = t_out is None
        self.T, self.Y, self.YP = [], [], []
        if not self.every:
            times = np.asarray(t_out, dtype=float).ravel()
            slack = OUT_SLACK * max(t_end - t0, abs(t_end) * EPS)
            times = times[(times >= t0) & (times <= t_end + slack)]
            self.times = np.unique(np.minimum(times, t_end))
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
        if self.every:
            self._add(t, y, yp)
            return
        while self.next < len(self.times) and self.times[self.next] <= t:
            self._add(self.times[self.next], y, yp)
            self.next += 1

    def step(self, hist: History, t_old: float, yp_new, include_end: bool) -> None:
        """Outputs in (t_old, hist.t] (or (t_old, hist.t) if include_end is False)."""
        t_new = hist.t
        if self.every:
            if include_end:
                self._add(t_new, hist.D[0], yp_new)
            return
        i = self.next
        j = i
        while j < len(self.times) and (self.times[j] < t_new or
                                       (include_end and self.times[j] == t_new)):
            j += 1
        if j > i:
            Y, YP = hist.interpolate(self.times[i:j])
            for m in range(j - i):
                y, yp = Y[m], YP[m]
                if self.polish is not None and self.times[i + m] != t_new:
                    y, yp = self.polish(self.times[i + m], y, yp)
                self._add(self.times[i + m], y, yp)
            self.next = j

    def arrays(self, n: int):
        m = len(self.T)
        if m == 0:
            return np.zeros(0), np.zeros((0, n)), np.zeros((0, n))
        return np.array(self.T), np.array(self.Y).reshape(m, n), np.array(self.YP).reshape(m, n)


# --- the integrator ---------------------------------------------------------------------------

def solve(problem, t0, t_end, y0, yp0=None, *, t_out=None, rtol=1e-6, atol=1e-9,
          max_step=np.inf, first_step=None, max_order=5, fixed=None, on_output=None,
          progress=None) -> SolverOutput:
    """Integrate F(t, y, y') = 0 from t0 to t_end.

    ``t_out``: output times (by interpolation; None: every accepted step, plus t0).
    ``rtol``, ``atol`` (scalar or per unknown): ewt = 1 / (rtol |y| + atol).
    ``max_step``, ``first_step`` (None: estimated), ``max_order`` (1..5).
    ``fixed``: mask of y0 entries kept by the initial-value computation (default: the
    differential ones). ``on_output(t, y, yp)`` is called for each recorded point,
    ``progress(t)`` every PROGRESS_EVERY steps.

    Never raises SolverError: a failure or Ctrl-C returns the results so far with
    status 'failed' / 'interrupted' and ``error`` set.
    """
    run = _Run(problem, float(t0), float(t_end), rtol, atol, max_step, first_step, max_order,
               t_out, on_output, progress)
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


def _validated_atol(atol, n: int) -> np.ndarray:
    atol = np.broadcast_to(np.asarray(atol, dtype=float), (n,)).copy()
    if not (atol > 0).all():
        raise ValueError("atol must be positive for every unknown")
    return atol


class _Run:
    """One integration: state, counters and the step loop."""

    def __init__(self, problem, t0, t_end, rtol, atol, max_step, first_step, max_order,
                 t_out, on_output, progress):
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
        labels = problem.magnitude_groups                                # (13)
        self.magnitude_groups = [] if labels is None else [
            np.flatnonzero(np.asarray(labels) == label)
            for label in np.unique(np.asarray(labels)) if label >= 0]
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
        self.light_modes = None         # compliant: lightly damped eigenvalues, found once
        self.stats = dict(nsteps=0, nres=0, njac=0, nlu=0, nfail_err=0, nfail_conv=0, nniter=0,
                          nrestart=0, max_order_used=0, hmin_used=0.0, hmax_used=0.0,
                          error_dimension=self.n_err)
        self.newton = Newton(problem, self.stats)
        self.invariant_rows = self.newton.invariant_rows                 # (12)
        self.out = _Recorder(t_out, t0, t_end, on_output)
        algebraic = np.asarray(problem.id) == 0
        if algebraic.any():
            self.out.polish = lambda t, y, yp: self.newton.polish(
                t, y, yp, algebraic, self._ewt(y) * self.newton_mask)
        self.stops = self._stop_points(problem.breakpoints)              # (4)
        self.istop = 0
        self.hist: History | None = None
        self.error: SolverError | None = None
        self.initial: dict = {}
        self.moved_at_restarts: list = []
        # state events (17): switching functions, their values and reference signs at
        # hist.t, an event the step is being cut to (t, indices), the events found
        self.event_functions = problem.event_functions                   # (17)
        self.event_names = problem.event_names
        self.g_left = self.g_sign = None
        self.pending = None
        self.events: list = []
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

    def _stop_points(self, breakpoints) -> np.ndarray:
        """Breakpoints strictly inside (t0, t_end), well separated, then t_end."""
        bps = np.unique(np.asarray([] if breakpoints is None else breakpoints, dtype=float))
        gap = HMIN_ULPS * EPS * max(abs(self.t0), abs(self.t_end), self.span)
        bps = bps[(bps > self.t0 + gap) & (bps < self.t_end - gap)]
        if len(bps) > 1:
            bps = bps[np.concatenate([[True], np.diff(bps) > gap])]
        return np.append(bps, self.t_end)

    def _ewt(self, y: np.ndarray) -> np.ndarray:
        magnitude = np.abs(y)
        for members in self.magnitude_groups:                            # (13)
            magnitude[members] = np.max(magnitude[members])
        return 1.0 / (self.rtol * magnitude + self.atol)

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
        self.initial = info
        self.out.point(self.t0, y, yp)
        h = self.first_step or self._estimate_step(self.t0, y, yp)
        self.hist = History(self.t0, y, yp, self._limit_first(self.t0, h))
        self._reset_switches(self.t0, y, yp, ())

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
        y, yp, info = consistent_initial_conditions(
            self.init_problem, np.nextafter(t, np.inf), hist.D[0].copy(), yp_left, None,
            self.rtol, self.atol, tscale=self.t_end - t, stats=self.stats)
        if info["moved"]:
            self.moved_at_restarts.append((t, info["moved"]))
        if event is None:
            self.stats["nrestart"] += 1
        self.newton.invalidate()
        # at an event: the step planned before the cut, not the cut one (it may be tiny)
        h = min(hist.h if event is None else event[1], self._estimate_step(t, y, yp))
        self.hist = History(t, y, yp, self._limit_first(t, h))
        self.out.point(t, y, yp)
        self._reset_switches(t, y, yp, () if event is None else event[0])

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
        if self.pending is not None:                  # a located event comes first
            tstop = min(tstop, self.pending[0])
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
                if self.pending is not None and t_new == self.pending[0]:
                    # the step ends on a switch where the law jumps (a damped stop's force
                    # by c·v at contact): Newton finds no solution at the jump; take the
                    # predictor's state there (the history's extrapolation, within the
                    # step's error) and restart from it
                    predicted = SimpleNamespace(d=np.zeros(self.n), yp=yp_pred, niter=0)
                    self._accept(predicted, t_new, at_stop, 0.0, t_eval,
                                 (self.pending[1], self.pending[2]))
                    return
                # Newton may fail for the switch alone: end the step where it is predicted
                if self.event_functions is not None and cuts < EVENT_MAX_CUTS and \
                        self._cut_at_predicted_event(t_new):
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
            if self.event_functions is not None:
                event, cut = self._locate_event(result, t_new, cuts)
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
                if fails_err >= ERR_FAILS_ORDER1:
                    hist.order = 1
                why = self._why_give_up(fails_err, factor, hmin)
                if why:
                    raise StepSizeTooSmall(f"the local error test keeps failing; {why}",
                                           t=hist.t, h=h, order=k,
                                           worst=self._worst(err_w / (k + 1)))
                hist.rescale(factor)
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
        """(|v| w per unknown, its RMS over the error-tested unknowns)."""
        v_w = np.abs(v) * w
        return v_w, float(np.sqrt(np.sum(v_w * v_w) / self.n_err))

    def _filtered_size(self, v, w, n_err):
        """wrms of v filtered as d is in the error test (order selection on a compliant
        problem: the differences carry the joints' stiff vibration as d does)."""
        if self.newton.lu is None:
            return wrms(v, w, n_err)
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
            self.events += [(float(t_new), self._event_name(i)) for i in event[0]]
            self.stats["nevents"] = len(self.events)
            self.pending = None
            at_stop = at_stop and t_new == self.stops[self.istop]   # not a breakpoint
        restart = (at_stop or event is not None) and t_new < self.t_end
        self.out.step(hist, t_old, result.yp, include_end=not restart)
        if at_stop:
            self.istop += 1
        if restart:
            self.pending = None           # found again after the restart if still ahead
            self._restart(result.yp, event)
        elif t_new < self.t_end:
            if self.event_functions is not None:
                self._reset_switches(t_new, hist.D[0], result.yp, ())
            self._adapt(err, result.niter)

    # --- state events (17) ------------------------------------------------------------------
    def _event_name(self, i: int) -> str:
        return self.event_names[i] if self.event_names is not None else f"g[{i}]"

    def _switch_values(self, t, y, yp) -> np.ndarray:
        return np.asarray(self.event_functions(t, y, yp), dtype=float).ravel()

    def _reset_switches(self, t, y, yp, fired) -> None:
        """Values and reference signs of the switching functions at the new hist.t. A
        zero keeps its previous sign; a function that has just fired takes the sign past
        its root even if the state landed a rounding error short of it, so that the
        same crossing is not found again."""
        if self.event_functions is None:
            return
        g = self._switch_values(t, y, yp)
        sign = np.sign(g)
        if self.g_sign is not None:
            sign = np.where(sign == 0, self.g_sign, sign)
            fired = np.asarray(fired, dtype=int)
            sign[fired] = -self.g_sign[fired]
        self.g_left, self.g_sign = g, sign

    def _locate_event(self, result, t_new: float, cuts: int):
        """After a step's corrector converged: (event, cut). A switching function that
        changed sign over [t_n, t_new] (against its reference sign, and in value) has its
        first root t_e found by Illinois on a polynomial of the step, and the step is cut
        to end there (cut True: it is redone with h = t_e - t_n). Across a switch the
        corrector's polynomial carries the kink, so a first cut takes the root of the
        predictor (the history's extrapolation, smooth up to the switch) where that
        changes sign too; a step ending on a located event checks it with its own
        interpolant and is accepted as the event when that root is within the tolerance
        of its end (or after EVENT_MAX_CUTS re-cuts): event = (indices, planned h)."""
        hist = self.hist
        t_n, g_left = hist.t, self.g_left
        trial = hist.advanced(result.d, t_new)
        g_new = self._switch_values(t_new, trial.D[0], result.yp)
        changed = np.flatnonzero((self.g_sign * g_new < 0) & (g_left * g_new < 0))
        landing = self.pending is not None and t_new == self.pending[0]
        if not len(changed):
            return ((self.pending[1], self.pending[2]), False) if landing else (None, False)

        def g_on(poly, t, i):
            y, yp = poly.interpolate([t])
            return self._switch_values(t, y[0], yp[0])[i]
        tol = max(EVENT_TOL_ULPS * np.spacing(abs(t_new)), EVENT_TOL_STEP * (t_new - t_n))
        g_pred = self._switch_values(t_new, *hist.predict())
        roots = []
        for i in changed:
            poly, g_end = trial, g_new[i]
            if not landing and g_left[i] * g_pred[i] < 0:     # predictor: hist itself
                poly, g_end = hist, g_pred[i]
            roots.append(_illinois(lambda t, i=i, poly=poly: g_on(poly, t, i), t_n, g_left[i],
                                   t_new, g_end, tol))
        roots = np.array(roots)
        t_e = float(roots.min())
        fired = changed[roots <= t_e + tol]
        t_e = max(t_e, t_n + 2.0 * self._hmin())
        h_planned = self.pending[2] if self.pending is not None else hist.h
        if landing and (t_new - t_e <= tol or cuts >= EVENT_MAX_CUTS):
            return (np.union1d(fired, self.pending[1]), h_planned), False
        if t_new - t_e <= tol:
            return (fired, h_planned), False
        self.pending = (t_e, fired, h_planned)
        hist.rescale((t_e - t_n) / hist.h)
        return None, True

    def _cut_at_predicted_event(self, t_new: float) -> bool:
        """After Newton failed: if the predictor (the history's extrapolation) crosses a
        switch within the step, cut the step to end at its first root (True)."""
        hist = self.hist
        t_n = hist.t
        g_pred = self._switch_values(t_new, *hist.predict())
        changed = np.flatnonzero((self.g_sign * g_pred < 0) & (self.g_left * g_pred < 0))
        if not len(changed):
            return False

        def g_on(t, i):
            y, yp = hist.interpolate([t])
            return self._switch_values(t, y[0], yp[0])[i]
        tol = max(EVENT_TOL_ULPS * np.spacing(abs(t_new)), EVENT_TOL_STEP * (t_new - t_n))
        roots = np.array([_illinois(lambda t, i=i: g_on(t, i), t_n, self.g_left[i], t_new,
                                    g_pred[i], tol) for i in changed])
        t_e = float(roots.min())
        if not t_n + 2.0 * self._hmin() < t_e < t_new - tol:
            return False
        h_planned = self.pending[2] if self.pending is not None else hist.h
        self.pending = (t_e, changed[roots <= t_e + tol], h_planned)
        hist.rescale((t_e - t_n) / hist.h)
        return True

    def _adapt(self, err: float, niter: int) -> None:
        """After k+1 equal steps: pick the order (k-1, k, k+1) allowing the largest step."""
        hist = self.hist
        k = hist.order
        if hist.n_equal < k + 1:
            return
        D, w = hist.D, self._ewt(hist.D[0]) * self.err_mask
        size = self._filtered_size if self.compliant else wrms
        err_m = size(D[k], w, self.n_err) / k if k > 1 else np.inf
        err_p = size(D[k + 2], w, self.n_err) / (k + 2) if k < self.max_order else np.inf
        with np.errstate(divide="ignore"):           # a zero estimate allows any step
            factors = np.array([err_m, err, err_p]) ** (-1.0 / np.arange(k, k + 3))
        # ties go to the higher order: with no error-tested unknowns (an algebraic circuit
        # driven by inputs) every estimate is 0, and a higher order interpolates better
        best = 2 - int(np.argmax(factors[::-1]))
        # fewer Newton iterations leave more room (they signal a well-behaved step)
        safety = SAFETY * (2 * MAX_ITERS + 1) / (2 * MAX_ITERS + niter)
        factor = min(MAX_FACTOR, safety * factors[best], self.max_step / hist.h)
        if 1.0 <= factor < MIN_GROWTH:
            factor = 1.0
        new_order = k - 1 + best
        if self.compliant:
            new_order, factor = self._stable_order(new_order, factor, factors, safety)
        if new_order != k or factor != 1.0:
            hist.order = new_order
            hist.rescale(factor)

    def _stable_order(self, order, factor, factors, safety):
        """On a compliant problem: the highest order <= ``order`` at which no lightly
        damped mode that the filtered estimate leaves (partly) out grows from step to step
        at the new step size, and the step factor that order allows."""
        hist = self.hist
        modes = self._light_modes()
        k = hist.order
        while order > 2:
            if modes is None:            # too large to find them: an order that damps them
                if order <= UNWATCHED_MAX_ORDER:
                    break
            else:
                hl = hist.h * factor * modes
                passed = 1.0 / np.abs(1.0 - hl / GAMMA[order])
                watched = hl[passed < FILTERED_PART]
                if not watched.size or bdf_growth(order, watched) <= 1.0:
                    break
            order -= 1
            if order >= k - 1:
                f = factors[order - k + 1]
                factor = min(MAX_FACTOR, safety * f, self.max_step / hist.h, factor)
        return order, factor

    def _light_modes(self) -> np.ndarray | None:
        """Eigenvalues lambda of the linearised problem (dF/dy + lambda dF/dy') v = 0 at
        the first kept Newton matrix with damping ratio -Re lambda / |lambda| below
        LIGHT_DAMPING (upper half-plane): the vibrations BDF3-4 may amplify. None for a
        problem too large for the dense eigenvalue solve (LIGHT_MODES_MAX_SIZE)."""
        if self.n > LIGHT_MODES_MAX_SIZE:
            return None
        if self.light_modes is None:
            newton = self.newton
            if newton.lu is None:
                return np.zeros(0, complex)
            M = newton.mass().toarray()
            A = newton.matrix.toarray() - newton.cj_lu * M
            import scipy.linalg   # on use: ~60 ms of import
            with np.errstate(all="ignore"):
                lam = scipy.linalg.eigvals(-A, M)
            lam = lam[np.isfinite(lam) & (lam.imag > 0) & (lam.real < 0)]
            zeta = -lam.real / np.abs(lam)
            self.light_modes = lam[zeta < LIGHT_DAMPING]
        return self.light_modes

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
        stats = dict(self.stats, events=list(self.events))    # (t, name) of each event
        out = SolverOutput(t, y, yp, stats, status, self.error, message, self.initial)
        if self.error is not None and self.error.partial is None:
            self.error.partial = out
        return out


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
