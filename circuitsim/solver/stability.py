"""Stability of lightly damped modes under BDF orders 3-5 (compliant problems).

On an undamped oscillation y' = i omega y, BDF3 and BDF4 let the amplitude grow a
little at every step (A(alpha)-stable with alpha = 86 and 73 degrees: part of the
imaginary axis lies outside their stability regions), and BDF5 grows a lightly damped
joint vibration at h omega ~ 1-5. On a compliant problem (stiff joint springs) the error
estimate is filtered, J^-1 cj dF/dy' d, which passes a component of eigenvalue lambda
times 1/(1 - h lambda/gamma_k): the joints' vibration, which the formula damps, is not
counted as error, and a lightly damped mode the filter (partly) leaves out could grow
unseen. So on such a problem the order is at most COMPLIANT_MAX_ORDER, and lower where
such a mode would grow from step to step at the new step size (``ModeGuard.stable_order``).
"""
from __future__ import annotations

import numpy as np

from .history import GAMMA
from .lapack import generalized_eigenvalues

COMPLIANT_MAX_ORDER = 4  # BDF5 amplifies a lightly damped joint vibration at h omega ~ 1-5
LIGHT_DAMPING = 0.3      # compliant problem: modes below this damping ratio are watched
FILTERED_PART = 0.9      # ... where the error estimate passes less than this of them
LIGHT_MODES_MAX_SIZE = 800   # unknowns: a dense generalized eigenvalue solve (~1 s) finds
UNWATCHED_MAX_ORDER = 3      # ... those modes; above that size the order is kept <= 3


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


class ModeGuard:
    """The lightly damped modes of one compliant run, found once at its first kept
    Newton matrix, and the orders at which BDF does not amplify them."""

    def __init__(self, newton, n: int):
        self.newton, self.n = newton, n
        self.modes = None

    def light_modes(self) -> np.ndarray | None:
        """Eigenvalues lambda of the linearised problem (dF/dy + lambda dF/dy') v = 0 at
        the first kept Newton matrix with damping ratio -Re lambda / |lambda| below
        LIGHT_DAMPING (upper half-plane): the vibrations BDF3-4 may amplify. None for a
        problem too large for the dense eigenvalue solve (LIGHT_MODES_MAX_SIZE)."""
        if self.n > LIGHT_MODES_MAX_SIZE:
            return None
        if self.modes is None:
            newton = self.newton
            if newton.lu is None:
                return np.zeros(0, complex)
            M = _dense(newton.mass())
            A = _dense(newton.matrix) - newton.cj_lu * M
            with np.errstate(all="ignore"):
                lam = generalized_eigenvalues(-A, M)
            lam = lam[np.isfinite(lam) & (lam.imag > 0) & (lam.real < 0)]
            zeta = -lam.real / np.abs(lam)
            self.modes = lam[zeta < LIGHT_DAMPING]
        return self.modes

    def stable_order(self, k: int, h: float, order: int, factor: float, allowed):
        """The highest order <= ``order`` at which no lightly damped mode that the
        filtered estimate leaves (partly) out grows from step to step at the new step
        size factor*h, and the step factor that order allows. k, h: the current order
        and step; allowed(o): the step factor the error estimate allows at order o
        (k-1 <= o <= k+1)."""
        modes = self.light_modes()
        while order > 2:
            if modes is None:            # too large to find them: an order that damps them
                if order <= UNWATCHED_MAX_ORDER:
                    break
            else:
                hl = h * factor * modes
                passed = 1.0 / np.abs(1.0 - hl / GAMMA[order])
                watched = hl[passed < FILTERED_PART]
                if not watched.size or bdf_growth(order, watched) <= 1.0:
                    break
            order -= 1
            if order >= k - 1:
                factor = min(allowed(order), factor)
        return order, factor


def _dense(matrix) -> np.ndarray:
    """A sparse matrix as an array (the Newton matrix of a small problem is one)."""
    return matrix if isinstance(matrix, np.ndarray) else matrix.toarray()
