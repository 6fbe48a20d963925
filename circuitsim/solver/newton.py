"""Modified Newton iteration for the implicit BDF step, reusing one factorised matrix.

A BDF step solves  G(d) = F(t, y_pred + d, yp_pred + cj d) = 0  for the correction d
(``bdf.py`` explains why y' moves by cj d). The Newton matrix is

    J = dF/dy + cj dF/dy'

and it is expensive (one Jacobian evaluation plus one LU: dense up to DENSE_MAX unknowns,
where LAPACK's few calls cost less than SuperLU's set-up, sparse above), so it is kept for as
long as it works: across iterations and across steps. It is rebuilt only when

* Newton failed with a matrix that was not built for this step (a *stale* matrix), or
* cj moved outside [CJ_RATIO_LOW, CJ_RATIO_HIGH] times the cj the matrix was built for
  (the problem only gives J for a given cj, so a new Jacobian is evaluated).

Inside that band the correction solved with the old matrix is scaled by 2/(1 + cj/cj_lu):
for stiff (dF/dy'-dominated) rows the exact correction is the old one divided by the ratio,
for non-stiff rows it is the old one; the scaling is the mean of the two (IDA's choice).

Convergence is judged from the observed contraction rate (as in IDA): with
rate = (|delta_m| / |delta_0|)^(1/m) the remaining error after iteration m is about
rate/(1 - rate) |delta_m|, and the iteration has converged when that is below NEWTON_TOL in
weighted RMS units. The rate is measured afresh in every step (at least two iterations
unless the predictor already solves the equations): trusting the previous step's rate
to accept a single iterate computed with a stale matrix put Newton errors into the
difference array, which on stiff problems (Robertson) doubled the number of steps
through rejected ones and on the linear oscillator made the error 10x larger.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .problem import unknown_names
from .columnmatrix import ColumnMatrix
from .lapack import getrf_getrs
from .superlu import splu

NEWTON_TOL = 0.33       # a third of the error test's bound (1 in WRMS units) (IDA's value)
MAX_ITERS = 4           # not converged in 4 iterations: cheaper to retry with a smaller h
MAX_RATE = 0.9          # contraction slower than this cannot reach NEWTON_TOL in MAX_ITERS
TINY_FIRST = 1e-4       # first correction this small (x NEWTON_TOL): the predictor solves G = 0
CJ_RATIO_LOW = 0.6      # cj below this ratio to the factorised cj: the old matrix is too slow
CJ_RATIO_HIGH = 1 / 0.6  # ... and above this one
BAD_VALUE_ERRORS = (ArithmeticError, ValueError)   # a model's way to say "y is outside my domain"


ROUNDING_ULPS = 16.0  # an invariant row's residual within this many ulps of its terms is rounding

POLISH_ITERS = 3      # output-point corrections: linear models need one, mild nonlinearity two
# ... with invariant rows left out (polish) two: a third moved a mechanism's multipliers
# no closer to the values consistent with the interpolated positions and velocities (seven
# shipped mechanisms, against those values solved exactly); one left a slider-crank's
# guide force 8e-6 N off the closed form at rtol 1e-9
POLISH_ITERS_INVARIANTS = 2
POLISH_TOL = 1e-3     # weighted size of the last correction that ends them
POLISH_FIT = 1.0      # an interpolated point whose first polishing update is within this
                      # many tolerance units (rtol·|y| + atol) is kept: it already fits
POLISH_FIT_INVARIANTS = 0.1   # ... with invariant rows (a mechanism's velocity constraints,
                      # not Newton's here) the first update underestimates the whole by up
                      # to 7x (measured on the pendulum's studies): a margin



PIVOT_THRESHOLD = 0.1   # diagonal pivot kept if >= this fraction of its column's largest
FILL_MARGIN = 1.2       # the problem's elimination order is kept up to this much more fill
# SuperLU's panel width and relaxed-supernode size in the tree order, whose elimination
# blocks are a body's or a joint's ~20 unknowns: the default panel (wider) factorised
# P4's matrix 20-30 % slower at N = 64, 256 and 1 024 (9.6 against 13.9 ms at 1 024)
PANEL_SIZE, RELAX_SUPERNODE = 4, 16
# Newton matrices up to this size are factorised dense (LAPACK getrf/getrs): on a 4-link
# chain (88 unknowns) a factorisation took 35 against 80 us and a solve 3 against 6 us in
# SuperLU's tree order; from about 150 unknowns OpenBLAS's getrf goes multi-threaded and
# on a busy 2-core machine took milliseconds. A problem that offers jacobian_dense gives
# these as arrays: a small run builds no sparse matrix and imports no scipy.sparse
DENSE_MAX = 128

REPORT_BLAMED = 5            # elements / unknowns named in a message
SINGULAR_DENSE_MAX = 3000    # largest matrix whose singular part is found by dense SVD
SINGULAR_RTOL = 1e-12        # relative singular value counted as zero


class BadValues(Exception):
    """The problem raised or returned non-finite values; ``rows`` lists the culprits."""

    def __init__(self, what: str, rows=None):
        super().__init__(what)
        self.what = what
        self.rows = np.asarray([] if rows is None else rows, dtype=int)


def _blamed(problem, t, y, yp, what: str) -> str:
    """``what`` plus the elements the problem names as the source of bad values."""
    blame = problem.blame                                        # problem.py (11)
    if blame is None:
        return what
    try:
        with np.errstate(all="ignore"):
            names = blame(t, y, yp)
    except Exception:                             # a diagnosis must never hide the error
        return what
    if not names:
        return what
    return f"{what} (evaluating {', '.join(names[:REPORT_BLAMED])}" + (
        f" and {len(names) - REPORT_BLAMED} more)" if len(names) > REPORT_BLAMED else ")")


def residual(problem, t, y, yp, stats, invariant: bool = False) -> np.ndarray:
    """F(t, y, y') (``invariant``: on the invariant rows, where the problem evaluates
    those alone); raises BadValues instead of returning NaN/inf or letting the model's
    FloatingPointError/ValueError/ZeroDivisionError escape."""
    stats["nres"] += 1
    evaluate = (problem.invariant_residual if invariant and problem.invariant_residual
                is not None else problem.residual)
    try:
        with np.errstate(all="ignore"):          # the solver itself handles non-finite values
            res = np.asarray(evaluate(t, y, yp), dtype=float)
    except BAD_VALUE_ERRORS as exc:
        raise BadValues(_blamed(problem, t, y, yp, f"the residual raised "
                                f"{type(exc).__name__}: {exc}")) from None
    if not all_finite(res):
        raise BadValues(_blamed(problem, t, y, yp, "the residual is not finite"),
                        np.flatnonzero(~np.isfinite(res)))
    return res


def all_finite(v: np.ndarray) -> bool:
    """Whether every entry of v is finite: the sum first (one reduction, 3x cheaper than
    the test of every entry; it is not finite when an entry is not, and, rarely, when
    finite entries overflow it), the entries only when it is not."""
    return math.isfinite(np.add.reduce(v, axis=None)) or bool(np.isfinite(v).all())


def jacobian(problem, t, y, yp, cj, stats):
    """dF/dy + cj dF/dy': a dense array up to DENSE_MAX unknowns where the problem gives
    one (``jacobian_dense``), else a ColumnMatrix (``jacobian_columns`` where the
    problem gives it, else its ``jacobian`` read by columns); raises BadValues on
    exceptions or non-finite entries."""
    stats["njac"] += 1
    dense = problem.n <= DENSE_MAX and problem.jacobian_dense is not None
    evaluate = (problem.jacobian_dense if dense else problem.jacobian_columns
                or problem.jacobian)
    try:
        with np.errstate(all="ignore"):
            J = evaluate(t, y, yp, cj)
    except BAD_VALUE_ERRORS as exc:
        raise BadValues(_blamed(problem, t, y, yp, f"the Jacobian raised "
                                f"{type(exc).__name__}: {exc}")) from None
    if dense:
        finite = np.isfinite(J)
        if not finite.all():
            raise BadValues(_blamed(problem, t, y, yp, "the Jacobian is not finite"),
                            np.flatnonzero(~finite.all(axis=0)))
        return J
    J = ColumnMatrix.of(J)
    if not np.isfinite(J.data).all():
        bad = ~np.isfinite(J.data)
        raise BadValues(_blamed(problem, t, y, yp, "the Jacobian is not finite"),
                        np.unique(J.columns[bad]))
    return J


def factorise(J, stats, problem=None):
    """Sparse LU of J (SuperLU with its COLAMD column ordering), DenseLU of a dense J;
    raises BadValues when it is exactly singular, naming the unknowns and equations of
    the singular part when ``problem`` is given."""
    if isinstance(J, np.ndarray):                # a small problem's dense matrix
        return DenseLU(J, stats, problem)
    stats["nlu"] += 1
    try:
        return splu(J)
    except RuntimeError:                         # SuperLU: "Factor is exactly singular"
        where = singular_part(J, problem) if problem is not None else ""
        raise BadValues(f"the Newton matrix is singular{where}") from None


class DenseLU:
    """The dense LU of a small J (LAPACK getrf with partial pivoting), solving J x = b
    for one right-hand side or several (columns, each solved as one)."""

    def __init__(self, J, stats, problem=None):
        dgetrf, self._getrs = getrf_getrs()
        stats["nlu"] += 1
        dense = np.array(J, order="F") if isinstance(J, np.ndarray) else J.toarray(order="F")
        self._lu, self._piv, info = dgetrf(dense, overwrite_a=True)
        if info > 0:                             # U[info-1, info-1] is exactly zero
            where = singular_part(J, problem) if problem is not None else ""
            raise BadValues(f"the Newton matrix is singular{where}")

    def solve(self, b: np.ndarray) -> np.ndarray:
        if b.ndim == 1:
            return self._getrs(self._lu, self._piv, b)[0]
        # one column at a time: getrs with several right-hand sides calls OpenBLAS's
        # threaded trsm, which on a busy 2-core machine took 3-10 ms against 3 us a column
        x = np.empty_like(b, dtype=float)
        for j in range(b.shape[1]):
            x[:, j] = self._getrs(self._lu, self._piv, b[:, j])[0]
        return x


class OrderedLU:
    """The LU of P·J·Pᵀ (P: the rows of the identity in ``order``), solving J x = b."""

    def __init__(self, lu, order: np.ndarray):
        self.lu, self.order = lu, order

    def solve(self, b: np.ndarray) -> np.ndarray:
        x = np.empty_like(b)
        x[self.order] = self.lu.solve(b[self.order])
        return x


class EliminationOrder:
    """Factorises the Newton matrix in the problem's elimination order (14), when it has
    one and it pays: SuperLU then keeps that order (no COLAMD pass at every
    factorisation) and pivots on the diagonal where it is at least PIVOT_THRESHOLD of
    its column. At the first factorisation the fill of L and U in that order is compared
    with COLAMD's; the order is kept if it is within FILL_MARGIN of it (``choice``). A
    zero pivot in the order falls back to COLAMD for that matrix."""

    def __init__(self, order):
        self.order = None if order is None else np.asarray(order, dtype=np.int64)
        self.choice = "general" if self.order is None else None
        self._pattern = None          # (indptr, indices) the permutation below is for
        self._permutation = None      # (data source index, indices, indptr) of P·J·Pᵀ

    def factorise(self, J, stats, problem=None):
        if self.choice == "general":
            return factorise(J, stats, problem)
        Jp = self._permuted(ColumnMatrix.of(J))
        try:
            lu = splu(Jp, permc_spec="NATURAL", diag_pivot_thresh=PIVOT_THRESHOLD,
                      options=dict(SymmetricMode=True), panel_size=PANEL_SIZE,
                      relax=RELAX_SUPERNODE)
        except RuntimeError:
            return factorise(J, stats, problem)
        stats["nlu"] += 1
        if self.choice is None:
            general = factorise(J, stats, problem)
            ordered_fill = lu.L.nnz + lu.U.nnz
            self.choice = ("tree" if ordered_fill <= FILL_MARGIN * (general.L.nnz + general.U.nnz)
                           else "general")
            stats["ordering"] = self.choice
            if self.choice == "general":
                return general
        return OrderedLU(lu, self.order)

    def _permuted(self, J):
        """P·J·Pᵀ; the map of the data is computed once per sparsity pattern."""
        if (self._pattern is None or not np.array_equal(self._pattern[0], J.indptr)
                or not np.array_equal(self._pattern[1], J.indices)):
            self._pattern = (J.indptr.copy(), J.indices.copy())
            self._permutation = J.permuted(self.order)
        source, indices, indptr = self._permutation
        return ColumnMatrix(J.data[source], indices, indptr, J.shape)


def singular_part(J, problem) -> str:
    """': unknowns ... undetermined; equations ... dependent' from the null vectors of a
    singular matrix (dense SVD: only on failure, and only for moderate sizes)."""
    n = J.shape[0]
    if n > SINGULAR_DENSE_MAX:
        return f" (too large, {n} unknowns, to name its singular part)"
    u, sv, vt = np.linalg.svd(J if isinstance(J, np.ndarray) else J.toarray())
    null = sv <= SINGULAR_RTOL * max(sv[0], 1e-300)
    if not null.any():
        null[-1] = True
    cols = np.abs(vt[null]).max(axis=0)
    rows = np.abs(u[:, null]).max(axis=1)
    names = unknown_names(problem)
    equations = list(problem.equation_names or names)

    def top(weights, labels):
        # rounded so that equal weights (up to SVD rounding) keep the numbering order
        ranked = np.round(weights / max(weights.max(), 1e-300), 8)
        idx = [i for i in np.argsort(-ranked, kind="stable")[:REPORT_BLAMED]
               if weights[i] > 1e-3 * weights.max()]
        return ", ".join(labels[i] for i in idx)
    return (f": {int(null.sum())} direction(s) undetermined — unknowns "
            f"{top(cols, names)}; equations {top(rows, equations)}")


def wrms(v: np.ndarray, w: np.ndarray, count: int | None = None) -> float:
    """Weighted RMS norm sqrt(sum((v w)^2) / count); count defaults to len(v)."""
    with np.errstate(over="ignore"):      # a diverging iterate: inf is the right answer
        x = v * w
        # not np.dot: a BLAS call may spin up threads, which on a busy 2-core machine made
        # this 1000x slower than the plain sum (seen on 1e4 unknowns)
        return math.sqrt(np.add.reduce(x * x) / (count or len(x)))


def _culprits(exc: BadValues, n: int):
    """inf for the unknowns whose equations went non-finite (None if unknown)."""
    if len(exc.rows) == 0:
        return None
    worst = np.zeros(n)
    worst[exc.rows] = np.inf
    return worst


@dataclass
class NewtonResult:
    converged: bool
    d: np.ndarray | None = None        # correction y - y_pred
    y: np.ndarray | None = None
    yp: np.ndarray | None = None
    niter: int = 0
    reason: str = ""
    worst: np.ndarray | None = None    # per unknown: weighted size of the failure (for messages)


class Newton:
    """Keeps the factorised Newton matrix between iterations and steps."""

    def __init__(self, problem, stats: dict):
        self.problem = problem
        self.stats = stats
        self.lu = None
        self.ordering = EliminationOrder(problem.elimination_order)      # (14)
        self.matrix = None          # the kept matrix J (its LU is ``lu``)
        self._magnitude = None      # |J| entrywise, made when first asked for
        self.cj_lu = 0.0
        self.fresh = False          # True when the matrix was built during the current step
        self._predicted_residual = None   # F at the current step's predicted point
        rows = problem.invariant_rows                                    # (12)
        # the constraint rows (bool mask), None when the problem has none
        self.invariant_rows = None if rows is None or not np.any(rows) else \
            np.asarray(rows, dtype=bool)

    def invalidate(self) -> None:
        """Force a new matrix at the next step (after a restart: the model changed)."""
        self.lu = None

    def _needs_matrix(self, cj: float) -> bool:
        if self.lu is None:
            return True
        ratio = cj / self.cj_lu
        return not (CJ_RATIO_LOW <= ratio <= CJ_RATIO_HIGH)

    def _build(self, t, y, yp, cj) -> None:
        J = jacobian(self.problem, t, y, yp, cj, self.stats)
        self.lu = None            # if the LU fails, no matrix of another point is left behind
        if J.shape[0] <= DENSE_MAX:
            self.lu = DenseLU(J, self.stats, self.problem)
        else:
            self.lu = self.ordering.factorise(J, self.stats, self.problem)
        self.matrix = J
        self._magnitude = None
        self.cj_lu = cj
        self.fresh = True
        self._mass = None
        self._built_at = (t, y.copy(), yp.copy())

    @property
    def magnitude(self) -> ColumnMatrix:
        """|J| entrywise, the size of each row's terms (output points' polish, the
        rounding test): made from the kept matrix when first asked for."""
        if self._magnitude is None:
            self._magnitude = abs(self.matrix)
        return self._magnitude

    def mass(self) -> ColumnMatrix:
        """dF/dy' where the kept matrix was built: (J(cj) - J(0)) / cj, one more
        Jacobian evaluation, made when first asked for."""
        if self._mass is None:
            t, y, yp = self._built_at
            self._mass = (self.matrix - jacobian(self.problem, t, y, yp, 0.0, self.stats)) \
                / self.cj_lu
        return self._mass

    def filtered(self, v: np.ndarray) -> np.ndarray:
        """J^-1 cj dF/dy' v with the kept matrix: v as the step's implicit formula passes
        it on. A component of eigenvalue lambda is multiplied by 1/(1 - h lambda/gamma_k):
        about 1 where h|lambda| is small, about 0 for a stiff one."""
        return self.lu.solve(self.cj_lu * (self.mass() @ v))

    def correct(self, t, y_pred, yp_pred, cj, ewt) -> NewtonResult:
        """Solve F(t, y_pred + d, yp_pred + cj d) = 0 for d.

        Tries the kept matrix first; if that fails and it was stale, rebuilds it at the
        predicted point and tries once more. A failure with a fresh matrix is reported
        to the caller, who cuts the step (the retry reuses the residual at the predicted
        point)."""
        self.fresh = False
        self._predicted_residual = None
        try:
            if self._needs_matrix(cj):
                self._build(t, y_pred, yp_pred, cj)
            result = self._iterate(t, y_pred, yp_pred, cj, ewt)
            if not result.converged and not self.fresh:
                self._build(t, y_pred, yp_pred, cj)
                result = self._iterate(t, y_pred, yp_pred, cj, ewt, self._predicted_residual)
        except BadValues as exc:
            return NewtonResult(False, reason=exc.what, worst=_culprits(exc, len(y_pred)))
        return result

    def polish(self, t, y, yp, algebraic, ewt, fit=None):
        """Make an interpolated output point consistent: differential y kept, algebraic y
        and the differential y' corrected so that F(t, y, y') = 0.

        The error test does not watch algebraic unknowns, so between steps their
        interpolant can be poor (an algebraic circuit driven by a fast input). With the
        kept matrix J = dF/dy + cj dF/dy', the update y_a += delta_a, y'_d += cj delta_d is
        Newton's method for (y_a, y'_d) up to O(dF/dy_d / cj). Cheap: a residual and a
        back-substitution per iteration, no new matrix. The invariant rows (position and
        velocity constraints: no y', only differential unknowns, which the polish keeps)
        are left out: their residual at an interpolated point is the interpolant's error
        in the positions and velocities, which no algebraic unknown can correct; solved
        for, it turned into a large change of the multipliers. ``fit``: the error weights
        of y (multipliers included); a point whose first update of the algebraic unknowns
        is within POLISH_FIT in them (POLISH_FIT_INVARIANTS with invariant rows) is
        returned as it is: polishing would change nothing beyond the tolerance. Returns
        the input if it fails, or if it leaves the equations less satisfied than it found
        them (in tolerance units, |F_i| / (|J_i|·tol)): near a singular configuration the
        kept matrix can turn a residual into a large change of an algebraic unknown. The
        iteration ends when the next update is below POLISH_TOL (it is applied) or after
        the last allowed one. Where the residual evaluated before the last update was
        within the first, the residual after it is not evaluated (one residual per point
        fewer; with a contracting iteration it is smaller still); where it was not, it
        is, and the point is kept only if that final residual is within the first."""
        if self.lu is None:
            return y, yp
        y_new, yp_new = y.copy(), yp.copy()
        differential = ~algebraic
        tol = np.divide(1.0, ewt, out=np.zeros_like(ewt), where=ewt > 0)
        invariant = self.invariant_rows
        iters = POLISH_ITERS if invariant is None else POLISH_ITERS_INVARIANTS
        try:
            res = self._polished_rows(t, y_new, yp_new)
            delta = self.lu.solve(-res)
            limit = POLISH_FIT if invariant is None else POLISH_FIT_INVARIANTS
            if fit is not None and _fits(delta, algebraic, fit, limit):
                return y, yp
            size = self.magnitude @ tol                 # a row's terms at tolerance size
            size[size == 0] = 1.0
            misfit = np.max(np.abs(res) / size)
            within = True          # the misfit last evaluated after an update within the first
            for k in range(iters):
                if not np.isfinite(delta).all():
                    return y, yp
                y_new[algebraic] += delta[algebraic]
                yp_new[differential] += self.cj_lu * delta[differential]
                last = k + 1 == iters
                if last and within:
                    break                  # its residual is not evaluated (see above)
                res = self._polished_rows(t, y_new, yp_new)
                within = np.max(np.abs(res) / size) <= misfit
                if last:
                    break
                delta = self.lu.solve(-res)
                if within and wrms(delta * algebraic, ewt) <= POLISH_TOL:
                    y_new[algebraic] += delta[algebraic]    # what is left is below
                    yp_new[differential] += self.cj_lu * delta[differential]   # POLISH_TOL
                    break
        except BadValues:
            return y, yp
        return (y_new, yp_new) if within else (y, yp)

    def _polished_rows(self, t, y, yp) -> np.ndarray:
        """The residual the polish solves: every row but the invariant ones (0 there)."""
        res = residual(self.problem, t, y, yp, self.stats)
        return res if self.invariant_rows is None else np.where(self.invariant_rows, 0.0, res)

    def _only_rounding_left(self, y, res, delta, scale, ewt) -> np.ndarray | None:
        """The rounding part of the last correction ``delta`` (solved from the residual
        ``res`` at the iterate before it; y is the iterate after it) if, apart from it,
        the iteration has converged (the caller then takes it back out of the iterate);
        None if not. The invariant rows (position and velocity constraints) whose residual
        is within ROUNDING_ULPS of the size of their terms (|dF/dy|·|y|: these rows have
        no y') are at their rounding level; the part of the correction solved from them
        carries no information. Near a singular configuration (the flat position of a
        four-bar chain) the kept matrix amplifies it by the conditioning of the
        constraints into tolerance units of velocity along the nearly free direction,
        the same in every iteration and at every step size. The rest must be below
        NEWTON_TOL at the slowest contraction accepted (MAX_RATE). Called only when the
        usual test fails, and only with a matrix built for this step (a kept one that
        fails is rebuilt first: on a long chain most failures are that, and the test's
        |J| product cost 3 % of the run): one matrix-vector product and one
        back-substitution."""
        if self.invariant_rows is None or not self.fresh or not np.isfinite(res).all():
            return None
        y_before = y - delta
        level = ROUNDING_ULPS * np.finfo(float).eps * (self.magnitude @ np.abs(y_before))
        noise_rows = self.invariant_rows & (np.abs(res) <= level)
        if not noise_rows.any():
            return None
        noise = self.lu.solve(-np.where(noise_rows, res, 0.0)) * scale
        return noise if wrms(delta - noise, ewt) <= NEWTON_TOL * (1.0 - MAX_RATE) else None

    def _iterate(self, t, y_pred, yp_pred, cj, ewt, predicted_residual=None) -> NewtonResult:
        y, yp = y_pred.copy(), yp_pred.copy()
        d = np.zeros_like(y)
        scale = 2.0 / (1.0 + cj / self.cj_lu)
        norm0 = 1.0
        for m in range(MAX_ITERS):
            if m == 0 and predicted_residual is not None:
                res = predicted_residual
            else:
                try:
                    res = residual(self.problem, t, y, yp, self.stats)
                except BadValues as exc:
                    return NewtonResult(False, niter=m, reason=exc.what,
                                        worst=_culprits(exc, len(y)))
                if m == 0:
                    self._predicted_residual = res
            delta = self.lu.solve(-res)
            if scale != 1.0:
                delta *= scale
            self.stats["nniter"] += 1
            if not all_finite(delta):
                return NewtonResult(False, niter=m + 1,
                                    reason="the Newton correction is not finite",
                                    worst=np.where(np.isfinite(delta), 0.0, np.inf))
            d += delta
            y += delta
            yp += cj * delta             # y' = (gamma_k d + psi)/h: cj per unit of d
            norm = wrms(delta, ewt)
            if m == 0:
                norm0 = norm
                if norm <= TINY_FIRST * NEWTON_TOL:
                    return NewtonResult(True, d, y, yp, 1)
                continue
            rate = (norm / norm0) ** (1.0 / m) if norm0 > 0 else 0.0
            if rate > MAX_RATE:
                # A growing correction that is still within the tolerance is not
                # divergence: a first correction near zero (an input that just left a
                # kink, e.g. a valve command leaving 0) makes any later one look like
                # growth. Iterate on; the next correction tells.
                if norm > NEWTON_TOL:
                    noise = self._only_rounding_left(y, res, delta, scale, ewt)
                    if noise is not None:
                        return NewtonResult(True, d - noise, y - noise, yp - cj * noise, m + 1)
                    return NewtonResult(False, niter=m + 1, reason="Newton's method diverged",
                                        worst=np.abs(delta * ewt))
                continue
            if rate / (1.0 - rate) * norm <= NEWTON_TOL:
                return NewtonResult(True, d, y, yp, m + 1)
        noise = self._only_rounding_left(y, res, delta, scale, ewt)
        if noise is not None:
            return NewtonResult(True, d - noise, y - noise, yp - cj * noise, MAX_ITERS)
        return NewtonResult(False, niter=MAX_ITERS,
                            reason=f"Newton's method did not converge in {MAX_ITERS} iterations",
                            worst=np.abs(delta * ewt))


def _fits(delta, algebraic, weights, limit) -> bool:
    """Whether a polishing update leaves every algebraic unknown within ``limit`` in
    its error weight (the largest entry, not the RMS, multipliers included: none moves
    beyond its tolerance). The update of a differential y' is not weighed: a point kept
    has the interpolant's y', as every output point of a problem without algebraic
    unknowns has."""
    return bool(np.max(np.abs(delta[algebraic]) * weights[algebraic], initial=0.0)
                <= limit)
