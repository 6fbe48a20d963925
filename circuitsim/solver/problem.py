"""What the solver needs to know about a DAE  F(t, y, y') = 0  (the IDA contract).

The solver imports nothing but its own modules and ``errors``: the assembler hands it
a DAEProblem. ``SimpleProblem`` builds one from plain functions (tests,
users with their own DAE).
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from .lazy import sparse as sp   # scipy.sparse, imported on first use

class DAEProblem:
    """What the solver reads of a problem. Subclass it (``SimpleProblem``, the
    assembler's ``System``) and set what applies; every optional member has its default
    here and the solver reads it as a plain attribute.

    Required:
    (1) ``n``: the number of unknowns; ``id``: (n,) 1.0 where y' of the unknown appears
        (differential), 0.0 where it does not (algebraic).
    (2) ``residual(t, y, yp)`` -> F (n,); ``jacobian(t, y, yp, cj)`` -> dF/dy + cj·dF/dy'
        as CSC with the same sparsity pattern on every call.
    Optional (default in brackets):
    (3) ``names`` [y[0], y[1], ...]: the unknowns' names, for messages;
        ``equation_names`` [names]: each equation's description, for messages.
    (4) ``breakpoints`` [none]: sorted times where inputs are discontinuous; the solver
        steps onto each one and restarts there.
    (5) ``error_mask`` [id]: 1.0 for the unknowns in the local error test, 0.0 for those
        left out (algebraic unknowns always; velocities determined by a velocity-level
        constraint, whose jumps onto it would read as error).
    (6) ``atol_scale`` [1]: per-unknown factor on atol, a nominal magnitude (1e5 for a
        pressure in Pa), so that one atol fits unknowns of very different size.
    (7) ``newton_mask`` [all 1]: 1.0 for the unknowns in the Newton convergence test, 0.0
        for multipliers of higher-index constraints (they converge with the unknowns
        they constrain; their own scale is unknown, often ~0).
    (8) ``project(t, y) -> y`` [None]: called after each accepted step, returns a
        corrected y (quaternions renormalised); None: nothing to project.
    (9) ``for_initialisation`` [None: the problem itself]: a problem with the same
        unknowns whose higher-index constraints are differentiated to index 1, used to
        compute consistent (y, y') at the start and at restarts.
    (10) ``check_values(y) -> str | None`` [None]: a message when y is outside the
        model's domain (the step is then rejected and retried smaller).
    (11) ``blame(t, y, yp) -> list[str]`` [None]: after a failure, the parts of the model
        whose equations are not finite at (t, y, y'), named for the message.
    (12) ``invariant_rows`` [None]: (n,) True for equations that are invariants of the
        motion (position and velocity constraints); after each accepted step the solver
        puts y back onto them with one chord step of the kept Newton matrix, applied to
        the differential unknowns only. ``invariant_residual(t, y, yp)`` [None: the
        residual]: F on those rows (the others may hold anything), where the problem
        can evaluate them for less than the whole residual.
    (13) ``magnitude_groups`` [None]: (n,) integer labels; unknowns with the same label
        >= 0 share one magnitude, the largest |y| among them, in the relative part of
        their error weight: rtol · max(|y_i|, max_group |y|) + atol. A body's velocity
        that passes through zero is then measured against the mechanism's speed, not
        against atol alone (near a singular configuration it is determined no better).
    (14) ``elimination_order`` [None]: a permutation of the unknowns (order[k] is
        eliminated k-th) in which the Newton matrix factorises with little fill, e.g.
        leaf-first along a mechanism's joint tree; the solver factorises in it (no
        fill-reducing pass per factorisation) while its fill stays close to the general
        ordering's, and reports ``stats['ordering']`` ('tree' or 'general').
    (15) ``compliant`` [False]: the problem has stiff springs standing in for rigid
        connections (elastic joints): the error estimates are filtered through the
        Newton matrix, J^-1 cj dF/dy' d, so that their fast vibration, which the formula
        damps, is not counted as error, and the order is at most 4 (lower where a
        lightly damped mode of the linearised problem would grow).
    (16) ``error_dimension`` [None: the number of tested unknowns]: how many independent
        states the tested unknowns describe; the local error's RMS is taken over this
        many (a mechanism in redundant coordinates: the tested coordinates less the
        relations its invariants fix among them), so that the tolerance means what it
        would in minimal coordinates.
    (17) ``event_functions(t, y, yp) -> (m,)`` [None]: switching functions whose sign
        change marks a discontinuity of the model (a contact closing or opening); after
        each step that passes the error test the solver locates the first sign change on
        the step's interpolant, ends the step there and restarts at order 1, as at a
        breakpoint. ``event_names`` [g[0], g[1], ...]: each function's name, for
        ``stats['events']``, the list of (t, name) found.
    (18) ``recorded`` [None: all]: (n,) 1.0 for the unknowns whose values at the output
        points are written, directly or through a quantity computed from them;
        ``recorded_rates`` [None: all]: (n,) 1.0 for those whose y' is (a capacitor's
        current C·dv/dt). An output point inside a step is interpolated; the solver makes
        it consistent (F = 0: algebraic y and differential y' corrected, one residual and
        back-substitution per correction) only if that changes something written: a
        recorded algebraic unknown or a recorded rate of a differential one. With no
        recorded rate, a point whose first correction moves no algebraic unknown beyond
        the tolerance is kept as interpolated; ``stabilisers`` [None: none]: (n,) bool,
        algebraic unknowns that are 0 in the exact solution and only keep a constraint's
        drift out (no output reads them): that test does not weigh them.
    (19) ``jacobian_dense(t, y, yp, cj)`` [None]: the same matrix as ``jacobian`` as a
        dense (n, n) array; the solver asks for it instead up to newton.DENSE_MAX
        unknowns, so that a small problem's run builds no sparse matrix (and does not
        import scipy.sparse).
    (20) ``event_update(t, y, fired) -> (y, handled)`` [None]: discrete states (a
        relay's on/off) changed at an event. Such a state is a differential unknown with
        y' = 0, so that steps keep it exactly and restarts keep it; at a restart on an
        event the solver passes the indices of the switching functions that fired
        (item 17) and goes on from the returned y (its algebraic part made consistent
        again), and once at the start those positive there (a state that must switch
        at t0). ``handled``: the fired indices whose functions the update changed: their
        signs are read afresh from the new state, not taken as past their roots.
    (21) ``event_terminal`` [None: none]: (m,) bool, the switching functions (item 17)
        whose sign change ends the run (a pole of an expression): the solver locates the
        first such root and stops there with :class:`~circuitsim.errors.SingularInput`,
        the results up to its last step kept.
    (22) ``jacobian_columns(t, y, yp, cj)`` [None]: the same matrix as ``jacobian`` as a
        :class:`~circuitsim.solver.columnmatrix.ColumnMatrix` (CSC arrays in numpy); the
        solver asks for it instead above newton.DENSE_MAX unknowns, so that a run of a
        few hundred unknowns builds no scipy.sparse matrix (and does not import it).
    """
    n: int = 0
    id: np.ndarray = None
    names: Sequence[str] | None = None
    equation_names: Sequence[str] | None = None
    breakpoints: np.ndarray = np.zeros(0)
    error_mask: np.ndarray | None = None
    atol_scale: np.ndarray | None = None
    newton_mask: np.ndarray | None = None
    project: Callable | None = None
    for_initialisation: "DAEProblem | None" = None
    check_values: Callable | None = None
    blame: Callable | None = None
    invariant_rows: np.ndarray | None = None
    invariant_residual: Callable | None = None
    magnitude_groups: np.ndarray | None = None
    elimination_order: np.ndarray | None = None
    compliant: bool = False
    error_dimension: int | None = None
    event_functions: Callable | None = None
    event_names: Sequence[str] | None = None
    recorded: np.ndarray | None = None
    recorded_rates: np.ndarray | None = None
    stabilisers: np.ndarray | None = None
    jacobian_dense: Callable | None = None
    event_update: Callable | None = None
    event_terminal: np.ndarray | None = None
    jacobian_columns: Callable | None = None

    def residual(self, t: float, y: np.ndarray, yp: np.ndarray) -> np.ndarray:
        """F(t, y, y'), shape (n,)."""
        raise NotImplementedError

    def jacobian(self, t: float, y: np.ndarray, yp: np.ndarray, cj: float) -> sp.csc_matrix:
        """dF/dy + cj * dF/dy' as CSC with the same sparsity pattern on every call."""
        raise NotImplementedError


def unknown_names(problem: DAEProblem) -> list:
    """The unknowns' names, (3): ``names`` or y[0], y[1], ..."""
    return list(problem.names) if problem.names is not None else [
        f"y[{i}]" for i in range(problem.n)]


class SimpleProblem(DAEProblem):
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
