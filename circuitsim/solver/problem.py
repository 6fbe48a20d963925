"""What the solver needs to know about a DAE  F(t, y, y') = 0  (the IDA contract).

The solver imports nothing from ``elements/`` or ``netlist/``: the assembler hands it
an object with this shape. ``SimpleProblem`` builds one from plain functions (tests,
users with their own DAE).
"""
from __future__ import annotations

from typing import Callable, Protocol, Sequence

import numpy as np
import scipy.sparse as sp


class DAEProblem(Protocol):
    n: int                      # number of unknowns
    id: np.ndarray              # 1.0 where y' of the unknown appears (differential), 0.0 algebraic
    names: Sequence[str]        # netlist names of the unknowns (for messages)
    breakpoints: np.ndarray     # sorted times where inputs are discontinuous (may be empty)

    def residual(self, t: float, y: np.ndarray, yp: np.ndarray) -> np.ndarray:
        """F(t, y, y'), shape (n,)."""

    def jacobian(self, t: float, y: np.ndarray, yp: np.ndarray, cj: float) -> sp.csc_matrix:
        """dF/dy + cj * dF/dy' as CSC with the same sparsity pattern on every call."""


# Optional attributes the solver uses when present:
#   error_mask: np.ndarray   1.0 for unknowns in the local error test, 0.0 excluded
#                            (default: ``id``, i.e. algebraic unknowns excluded).
#   atol_scale: np.ndarray   per-unknown factor on atol (a nominal magnitude, e.g. 1e5
#                            for a pressure in Pa); default 1.
#   project(t, y) -> y       called after each accepted step; returns a corrected y
#                            (e.g. quaternions renormalised). None to skip.
#   newton_mask: np.ndarray  1.0 for unknowns in the Newton convergence test, 0.0 for
#                            multipliers of index-2 constraints (default: all 1).
#   for_initialisation: DAEProblem
#                            the same unknowns with constraints in differentiated form
#                            (index 1), used to compute consistent (y, y') at the start
#                            and at restarts.
#   check_values(y) -> str | None
#                            a message when y is outside the model's domain (the step is
#                            then rejected and retried smaller).


class SimpleProblem:
    """A DAEProblem from plain callables.

    ``jac(t, y, yp, cj)`` may return a dense array or any sparse matrix; it is converted
    to CSC. If ``jac`` is omitted a dense finite-difference Jacobian is used (tests only).
    """

    def __init__(self, n: int, residual: Callable, jac: Callable | None = None,
                 id: Sequence[float] | None = None, names: Sequence[str] | None = None,
                 breakpoints: Sequence[float] = ()):
        self.n = int(n)
        self._res = residual
        self._jac = jac
        self.id = np.ones(self.n) if id is None else np.asarray(id, dtype=float)
        self.names = list(names) if names is not None else [f"y[{i}]" for i in range(self.n)]
        self.breakpoints = np.asarray(sorted(breakpoints), dtype=float)

    def residual(self, t, y, yp):
        return np.asarray(self._res(t, y, yp), dtype=float)

    def jacobian(self, t, y, yp, cj):
        if self._jac is not None:
            return sp.csc_matrix(self._jac(t, y, yp, cj))
        f0 = self.residual(t, y, yp)
        J = np.empty((self.n, self.n))
        for j in range(self.n):
            d = 1e-7 * max(1.0, abs(y[j]))
            y1 = y.copy(); y1[j] += d
            yp1 = yp.copy(); yp1[j] += cj * d
            J[:, j] = (self.residual(t, y1, yp1) - f0) / d
        return sp.csc_matrix(J)
