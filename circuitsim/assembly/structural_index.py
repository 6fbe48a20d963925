"""Which unknowns are multipliers: the index of each unknown from the assembled system's
structure (not from flags of the elements).

The algebraic part of F(t, y, y') = 0 is the rows in which no y' appears and the columns
of the algebraic unknowns (id = 0). In an index-1 system it determines the algebraic
unknowns: a perfect matching pairs each algebraic row with an algebraic column on the
pattern of ∂F/∂y. A multiplier — a joint's reaction, the flow of a potential source
that prescribes a constrained motion (`V Vd drive 0` on a joint's flange: the source's
current and the flange torque balance each other, ``JA.tau + Vd.i = 0``, and neither
is fixed by an algebraic equation alone) — is determined only through the derivative of
a constraint: its column is left unmatched, and so is every algebraic column reachable
from an unmatched one by an alternating path (Dulmage–Mendelsohn: the under-determined
part). Those are the multipliers.

The pattern is taken from the values of the Jacobian at the start point and at a
perturbed point (an entry that vanishes at both is absent): switched-off redundant rows
of a closed loop (whose λ entry is 1 − active = 0 when the row is on) and accidental
zeros of a symmetric start are told apart.

Multipliers are left out of Newton's convergence test (their corrections are rounding
noise amplified by cj = γ/h: weighted like states they make the test fail ever harder
as the step shrinks) and, being algebraic, out of the local error test.
"""
from __future__ import annotations

from collections import deque

import numpy as np

from ..arrays import Probes
from ..solver.columnmatrix import ColumnMatrix
from ..solver.matching import maximum_matching
from ..solver.newton import DENSE_MAX
from ..solver.rowmatrix import RowMatrix

PERTURBATION = 1e-3      # relative change of the perturbed point (exposes accidental zeros)
SEED = 12345             # the perturbation is reproducible
EVALUATION_ERRORS = (ArithmeticError, ValueError)


def multipliers(problem, t0: float, y0: np.ndarray) -> np.ndarray:
    """Boolean mask (n,) of the unknowns that are multipliers of higher-index
    constraints, from the structure of ``problem`` near (t0, y0)."""
    n = problem.n
    rng = Probes(SEED)
    y1 = y0 * (1.0 + PERTURBATION * rng.uniform(-1, 1, n)) + PERTURBATION * rng.uniform(-1, 1, n)
    yp1 = rng.uniform(-1, 1, n)
    dense = n <= DENSE_MAX and problem.jacobian_dense is not None
    dfdy = dfdyp = np.zeros((n, n)) if dense else ColumnMatrix.zeros((n, n))
    for y, yp in ((y0, np.zeros(n)), (y1, yp1)):
        with np.errstate(all="ignore"):
            try:
                J0 = _jacobian(problem, dense, t0, y, yp, 0.0)
                J1 = _jacobian(problem, dense, t0, y, yp, 1.0) - J0
            except EVALUATION_ERRORS:       # the perturbed point left a model's domain
                continue
        dfdy = dfdy + abs(J0)
        dfdyp = dfdyp + abs(J1)
    cols = np.flatnonzero(np.asarray(problem.id) == 0)          # algebraic unknowns
    if dense:
        rows = np.flatnonzero(np.count_nonzero(dfdyp, axis=1) == 0)   # no y' in the row
        at_rows, at_cols = np.nonzero(dfdy[np.ix_(rows, cols)]) if len(rows) else ((), ())
    else:
        rows = np.flatnonzero(np.bincount(dfdyp.nonzero()[0], minlength=n) == 0)
        entry_rows, entry_cols = dfdy.nonzero()
        row_at, col_at = np.full(n, -1), np.full(n, -1)
        row_at[rows], col_at[cols] = np.arange(len(rows)), np.arange(len(cols))
        inside = (row_at[entry_rows] >= 0) & (col_at[entry_cols] >= 0)
        at_rows, at_cols = row_at[entry_rows[inside]], col_at[entry_cols[inside]]
    if not len(rows) or not len(cols):
        return np.zeros(n, dtype=bool)
    B = RowMatrix.from_entries(at_rows, at_cols, np.ones(len(at_rows)), len(rows), len(cols))
    match = maximum_matching(B, perm_type="row")     # column -> row, or -1
    row_of_col = match
    col_of_row = np.full(len(rows), -1)
    col_of_row[match[match >= 0]] = np.flatnonzero(match >= 0)
    rows_of_col = _rows_of_columns(B)
    marked = np.zeros(len(cols), dtype=bool)
    queue = deque(np.flatnonzero(row_of_col < 0))
    marked[list(queue)] = True
    while queue:                         # alternating paths: column -> row -> its column
        c = queue.popleft()
        for r in rows_of_col[c]:
            partner = col_of_row[r]
            if partner >= 0 and not marked[partner]:
                marked[partner] = True
                queue.append(partner)
    out = np.zeros(n, dtype=bool)
    out[cols[marked]] = True
    return out


def _jacobian(problem, dense: bool, t, y, yp, cj):
    """The Jacobian as a dense array (``dense``) or a ColumnMatrix."""
    if dense:
        return problem.jacobian_dense(t, y, yp, cj)
    evaluate = problem.jacobian_columns or problem.jacobian
    return ColumnMatrix.of(evaluate(t, y, yp, cj))


def _rows_of_columns(B) -> list:
    """For each column of the CSR pattern ``B``, the rows with an entry in it."""
    n_rows, n_cols = B.shape
    entry_rows = np.repeat(np.arange(n_rows), np.diff(B.indptr))
    order = np.argsort(B.indices, kind="stable")
    starts = np.searchsorted(B.indices[order], np.arange(n_cols + 1))
    grouped = entry_rows[order]
    return [grouped[starts[c]:starts[c + 1]] for c in range(n_cols)]
