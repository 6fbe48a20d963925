"""The BDF run's history: the backward differences of the solution at a constant step.

D[0] = y_n and D[j] = nabla^j y_n, the backward differences of the solution at the
constant step h (t = t_n). The formulas of the step loop (``bdf.py``) always see equal
steps:

Predictor.     y_pred = sum_{j<=k} D[j]   (the interpolant through y_n..y_{n-k},
               extrapolated), and y'_pred = psi / h with psi = sum_{m=1}^k gamma_m D[m],
               gamma_m = sum_{i<=m} 1/i (``GAMMA``).
Update.        After y_{n+1} = y_pred + d: nabla^{k+1} y_{n+1} = d and
               nabla^j y_{n+1} = nabla^j y_n + nabla^{j+1} y_{n+1}, j = k down to 0.
Step change.   A step size change by a factor r re-interpolates the differences
               (``History.rescale``); an order change keeps them (``History.change``).
Interpolation. Within the last step y(t) = sum_j D[j] B_j(s), s = (t - t_n)/h,
               B_j(s) = s (s+1) ... (s+j-1) / j!, and y'(t) is its time derivative.
"""
from __future__ import annotations

from math import comb

import numpy as np

MAX_ORDER = 5    # as DASSL and IDA: BDF6 is stable only in a narrow wedge, BDF7 nowhere
# gamma_k = sum_{m=1}^k 1/m (index 0 unused)
GAMMA = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, MAX_ORDER + 2))])


def _newton_basis(s: np.ndarray, order: int):
    """B_j(s) = s (s+1) ... (s+j-1) / j! and dB_j/ds for j = 0..order; shapes (len(s), order+1)."""
    s = np.asarray(s, dtype=float)
    B, dB = [np.ones(len(s))], [np.zeros(len(s))]
    for j in range(1, order + 1):
        factor = s + j - 1
        dB.append((dB[-1] * factor + B[-1]) / j)        # product rule
        B.append(B[-1] * factor / j)
    return np.stack(B, axis=1), np.stack(dB, axis=1)


def _difference_matrix(order: int) -> np.ndarray:
    """Row j gives nabla^j at point 0 from values at points 0, -1, ..., -order:
    nabla^j v_0 = sum_i (-1)^i C(j, i) v_{-i}."""
    return np.array([[(-1) ** i * comb(j, i) for i in range(order + 1)]
                     for j in range(order + 1)], dtype=float)


_DIFFERENCES = [_difference_matrix(order) for order in range(MAX_ORDER + 1)]


def _rescale_matrix(order: int, factor: float) -> np.ndarray:
    """Maps D[:order+1] at step h to D[:order+1] at step factor*h: evaluate the interpolant
    at t_n - i factor h (i = 0..order), then difference those values. B_j(s) at these
    k + 1 points in Python floats, the products of ``_newton_basis`` (at most 36
    numbers: numpy's per-call cost made this 3 % of a small mechanism's run)."""
    B = []
    for s in (-factor * np.arange(order + 1)).tolist():
        b, row = 1.0, [1.0]
        for j in range(1, order + 1):
            b = b * (s + j - 1) / j
            row.append(b)
        B.append(row)
    return _DIFFERENCES[order] @ np.array(B)


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
        # row by row: np.cumsum over the reversed rows (the same sums) took 0.2 ms at
        # 4 864 unknowns, 20x these k + 1 additions
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

    def change(self, order: int, factor: float) -> None:
        """Go on at ``order`` with h = factor*h. A higher order takes the kept row
        D[order] (the last correction, nabla^order y_n) into the predictor; a lower one
        leaves its top row out."""
        self.order = order
        self.rescale(factor)

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

