"""Consistent initial values: (y, y') with F(t0, y, y') = 0 before the first BDF step.

The user (or the netlist) gives y0; y'0 is rarely known and algebraic unknowns are often
rough guesses. Two methods, tried in order:

1. Mixed Newton (IDA's YA_YDP_INIT idea). Each component j contributes one unknown:
   y'_j when j is differential and *fixed* (its y0 must be kept), y_j otherwise
   (algebraic unknowns, free differential ones). Column j of the Newton matrix is then
   dF/dy_j or dF/dy'_j. The problem only gives dF/dy + cj dF/dy', so
   dF/dy = jacobian(cj=0) and dF/dy' = jacobian(cj=1) - jacobian(cj=0).
   Algebraic components get y' = 0 (their y' appears in no equation).

2. Backward-Euler fallback. The mixed matrix is singular when a fixed differential
   unknown is also pinned by an algebraic equation (a capacitor node driven by a potential
   source, a mass whose velocity a joint prescribes): no choice of y' can repair the
   pinning equation. Then a few backward-Euler steps of size BE_STEP * tscale land on a
   consistent point (fixed states move where the constraints force them, by an amount the
   caller is told about in ``info['moved']``), y' is taken from the last step, the point
   is moved back to t0 along y', and the mixed Newton is tried once more from there with
   every differential y kept, to refine y' and the algebraic y.

If both fail, InconsistentInitialConditions names the equations with the largest |F|
(equation i is the balance/equation of unknown i).
"""
from __future__ import annotations

import numpy as np

from ..errors import InconsistentInitialConditions
from .magnitudes import MagnitudeGroups
from .matching import structural_rank
from .rowmatrix import RowMatrix
from .newton import ROUNDING_ULPS, BadValues, factorise, jacobian, residual, wrms
from .problem import unknown_names

INIT_TOL = 1e-3      # weighted correction that ends Newton: well below the integrator's 0.33,
#                      since an error at the start propagates
INIT_MAX_ITERS = 10  # Newton converges fast from a sane guess; beyond this the guess is bad
REUSE_RATE = 0.1     # keep the mixed matrix while it cuts |F| 10x per iteration (linear models)
BE_STEP = 1e-9       # fallback backward-Euler step / tscale: fixed states hardly drift
BE_STEPS = 3         # step 1 meets the constraints; the parabola through 1-3 gives y, y'
REPORT_WORST = 5     # how many equations / unknowns a message names


class _NoSolution(Exception):
    def __init__(self, what: str, res: np.ndarray | None = None):
        super().__init__(what)
        self.what = what
        self.res = res


def _new_stats(stats):
    if stats is None:
        stats = {}
    for key in ("nres", "njac", "nlu"):
        stats.setdefault(key, 0)
    return stats


def consistent_initial_conditions(problem, t0, y0, yp0=None, fixed=None, rtol=1e-6, atol=1e-9,
                                  *, tscale=1.0, stats=None):
    """Return (y0, yp0, info) with F(t0, y0, yp0) = 0.

    ``fixed``: boolean mask of y0 entries to keep (default: the differential ones,
    ``problem.id == 1``). Algebraic entries are always solved for, so ``fixed`` only
    matters for differential ones: a free differential y is solved for with its y'
    kept (e.g. ``fixed`` all False and yp0 = 0 asks for a steady state).
    ``tscale``: the time scale of the run (the fallback's step is BE_STEP * tscale).
    ``stats``: a dict whose nres/njac/nlu counters are incremented.

    ``info``: {'method': 'newton' | 'backward-euler', 'moved': [(name, from, to), ...]
    (fixed unknowns that had to change, largest weighted change first), 'note': why the
    first method failed ('' if it did not)}.
    """
    stats = _new_stats(stats)
    n = problem.n
    y = np.array(y0, dtype=float).reshape(n)
    yp = np.zeros(n) if yp0 is None else np.array(yp0, dtype=float).reshape(n)
    diff = np.asarray(problem.id) != 0
    keep = diff.copy() if fixed is None else (np.asarray(fixed, dtype=bool).reshape(n) & diff)
    yp[~diff] = 0.0
    atol = np.broadcast_to(np.asarray(atol, dtype=float), (n,))
    tscale = float(tscale) if tscale and np.isfinite(tscale) and tscale > 0 else 1.0

    try:
        y1, yp1 = _mixed_newton(problem, t0, y, yp, ~keep, diff, rtol, atol, tscale, stats)
        return y1, yp1, {"method": "newton", "moved": [], "note": ""}
    except _NoSolution as exc:
        first = exc

    try:
        y1, yp1 = _backward_euler(problem, t0, y, diff, BE_STEP * tscale, rtol, atol, stats)
    except _NoSolution as exc:
        res = first.res if first.res is not None else exc.res
        fallback = ("failed for the same reason" if exc.what == first.what
                    else f"failed too ({exc.what})")
        raise InconsistentInitialConditions(
            f"no consistent initial values: {first.what}; the backward-Euler fallback "
            f"{fallback}; the unknowns named are those of the least satisfied equations",
            t=t0, worst=_worst_rows(problem, res)) from None
    try:                                      # refine y' with every differential y kept
        y1, yp1 = _mixed_newton(problem, t0, y1, yp1, ~diff, diff, rtol, atol, tscale, stats)
    except _NoSolution:
        pass                                  # keep the backward-Euler y'
    return y1, yp1, {"method": "backward-euler", "note": first.what,
                     "moved": _moved(problem, y, y1, keep, rtol, atol)}


def _mixed_newton(problem, t, y, yp, solve_y, diff, rtol, atol, tscale, stats):
    """Newton on u_j = y_j (solve_y[j]) or y'_j (otherwise); algebraic y' stay 0."""
    y, yp = y.copy(), yp.copy()
    groups = MagnitudeGroups(problem.magnitude_groups)
    ycol = solve_y.astype(float)
    ypcol = (~solve_y & diff).astype(float)
    lu = None
    res = None
    try:
        for it in range(INIT_MAX_ITERS):
            res_prev = res
            res = residual(problem, t, y, yp, stats)
            if it and np.all(np.abs(res) <= floor(y, yp)):
                return y, yp
            # keep the matrix while it cuts |F| by REUSE_RATE per iteration (a linear model:
            # to rounding); otherwise the model is nonlinear here and a fresh one is needed
            if lu is not None and np.abs(res).max() > REUSE_RATE * np.abs(res_prev).max():
                lu = None
            if lu is None:
                J0 = jacobian(problem, t, y, yp, 0.0, stats)
                J1 = jacobian(problem, t, y, yp, 1.0, stats)
                # column j: dF/dy_j for y-unknowns, dF/dy'_j = (J1 - J0)[:, j] for y'-unknowns
                M = (J0 * ycol + (J1 - J0) * ypcol if isinstance(J0, np.ndarray) else
                     (J0.scaled_columns(ycol) + (J1 - J0).scaled_columns(ypcol)).without_zeros())
                floor = (lambda y, yp, A0=abs(J0), A1=abs(J1 - J0):
                         _rounding_level(A0, groups.largest(np.abs(y)) + atol)
                         + _rounding_level(A1, groups.largest(np.abs(yp)) + atol / tscale))
                # The usual reason for the fallback: checked here, because SuperLU
                # prints BLAS complaints to stdout on some structurally singular matrices.
                if _structurally_singular(M):
                    raise _NoSolution("a fixed differential unknown is pinned by an "
                                      "algebraic equation (structurally singular)", res)
                lu = factorise(M, stats, problem)
            delta = lu.solve(-res)
            if not np.isfinite(delta).all():
                raise _NoSolution("the initial-value Newton correction is not finite", res)
            y += ycol * delta
            yp += ypcol * delta
            w = np.where(solve_y, 1.0 / (rtol * np.abs(y) + atol),
                         1.0 / (rtol * np.abs(yp) + atol / tscale))
            if wrms(delta, w) <= INIT_TOL:
                return y, yp
    except BadValues as exc:
        raise _NoSolution(exc.what, _with_bad_rows(res, exc.rows, len(y))) from None
    raise _NoSolution(f"Newton did not converge in {INIT_MAX_ITERS} iterations", res)


def _rounding_level(A, u: np.ndarray) -> np.ndarray:
    """How far from 0 rounding alone leaves each equation: ROUNDING_ULPS ulps of the
    size of its terms, |A|·u (A = dF/du at the iterate, u = |u| + atol with the
    components of a magnitude group, a mechanism's velocities or angular velocities,
    at the group's largest), as Newton's stepping test takes an invariant row's
    rounding. The group, not each component: a coefficient that is 0 in exact
    arithmetic (a hinge axis perpendicular to the spin, from a rotated vector) comes
    out as rounding of 1 and multiplies the spin, not the 0 beside it. At atol 1e-12
    the weighted test alone can ask for less than rounding (a closed loop's velocities
    and multipliers, a force found from a backward-Euler step's (y − y_prev)/h):
    Newton then wanders at its rounding level without ever passing it, and an equation
    within this level of 0 is as solved as it can be."""
    return ROUNDING_ULPS * np.finfo(float).eps * (A @ u)


def _structurally_singular(M) -> bool:
    """No perfect matching between rows and non-zero columns: singular for any values."""
    M = RowMatrix.pattern(M) if isinstance(M, np.ndarray) else M.tocsr()   # no zeros
    return structural_rank(M) < M.shape[0]


def _backward_euler(problem, t0, y, diff, h, rtol, atol, stats):
    """BE_STEPS (3) steps of F(t, y, (y - y_prev)/h) = 0 from t0. Returns y and y' at
    t0 of the parabola through the three end points y1, y2, y3 (at t0 + h, 2h, 3h):
    y(t0) = 3 y1 − 3 y2 + y3, y'(t0) = (−5 y1 + 8 y2 − 3 y3) / (2h). Step 1 lands on
    the constraints; what the steps then add is brought back: the backward-Euler points
    of y' = c·t are c·h²·k(k+1)/2, whose parabola is 0 at t0, where going back along the
    last step's tangent left −3c·h² (an inductor's current at a supply's ramp, 650
    atol units at atol 1e-13). Algebraic unknowns (y' = 0) from the line through steps
    2 and 3: step 1's carry the jump onto the constraints."""
    y_prev = y.copy()
    groups = MagnitudeGroups(problem.magnitude_groups)
    points = []
    t = t0
    res = None
    size = None
    try:
        for _ in range(BE_STEPS):
            t = t + h
            y_new = y_prev.copy()
            ewt = 1.0 / (rtol * np.abs(y_prev) + atol)
            for it in range(INIT_MAX_ITERS):
                with np.errstate(over="ignore"):      # a diverging iterate: caught below
                    yp_new = (y_new - y_prev) / h
                res = residual(problem, t, y_new, yp_new, stats)
                # the terms dF/dy'·(y_new − y_prev)/h cancel to rounding of |y|/h
                if it and np.all(np.abs(res) <= _rounding_level(
                        size, groups.largest(np.abs(y_new) + np.abs(y_prev)) + atol)):
                    break
                J = jacobian(problem, t, y_new, yp_new, 1.0 / h, stats)
                size = abs(J)
                lu = factorise(J, stats, problem)
                delta = lu.solve(-res)
                if not np.isfinite(delta).all():
                    raise _NoSolution("the backward-Euler correction is not finite", res)
                y_new += delta
                if wrms(delta, ewt) <= INIT_TOL:
                    break
            else:
                raise _NoSolution(f"a backward-Euler step did not converge in "
                                  f"{INIT_MAX_ITERS} iterations", res)
            points.append(y_new)
            y_prev = y_new
    except BadValues as exc:
        raise _NoSolution(exc.what, _with_bad_rows(res, exc.rows, len(y))) from None
    y1, y2, y3 = points
    yp = np.where(diff, (-5.0 * y1 + 8.0 * y2 - 3.0 * y3) / (2.0 * h), 0.0)
    # an algebraic unknown of step 1 carries the jump onto the constraints (a current
    # C·Δv/h): the line through steps 2 and 3 instead
    return np.where(diff, 3.0 * y1 - 3.0 * y2 + y3, 3.0 * y2 - 2.0 * y3), yp


def _moved(problem, y_from, y_to, keep, rtol, atol) -> list:
    """Fixed unknowns that changed by more than the tolerance, largest weighted change first."""
    change = np.abs(y_to - y_from) / (rtol * np.abs(y_from) + atol)
    idx = np.flatnonzero(keep & (change > 1.0))
    idx = idx[np.argsort(-change[idx], kind="stable")]
    names = unknown_names(problem)
    return [(names[i], float(y_from[i]), float(y_to[i])) for i in idx]


def _with_bad_rows(res, rows, n):
    """The last residual with the rows that went non-finite marked inf (for messages)."""
    if len(rows) == 0:
        return res
    out = np.zeros(n) if res is None else res.copy()
    out[rows] = np.inf
    return out


def _worst_rows(problem, res) -> list:
    if res is None:
        return []
    mag = np.where(np.isfinite(res), np.abs(res), np.inf)
    idx = np.argsort(-mag, kind="stable")[:REPORT_WORST]
    names = unknown_names(problem)
    return [(names[i], float(mag[i])) for i in idx if mag[i] > 0]
