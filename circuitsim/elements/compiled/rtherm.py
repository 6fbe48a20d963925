"""The heating resistor's residual and Jacobian (elements/rtherm.py, equations (1)-(3))
as one compiled loop over the instances: the same equations entry by entry, equal to
the numpy reference to rounding. Imported only when the compiled kernels are in use (it
imports numba)."""
import numpy as np
from numba import njit

from ..rtherm import RMIN

# the kernels' types for the extension built ahead of time (ahead.py): x, x', R0, alpha,
# T0 -> F or (dF/dx, dF/dx')
_ARGS = ("f2*", "f2*", "f1", "f1", "f1")
EXPORTS = {"residual": ("f2", _ARGS), "jacobian": (("f3", "f3"), _ARGS)}


@njit(cache=True)
def _law(T, R0, alpha, T0):
    """R(T) of equation (1) and dR/dT (0 on the floor)."""
    r = 1.0 + alpha * (T - T0)
    if r > RMIN:
        return R0 * r, R0 * alpha
    return R0 * RMIN, 0.0


@njit(cache=True)
def residual(x, xp, R0, alpha, T0):
    n = x.shape[0]
    F = np.empty((n, 3))
    for k in range(n):
        u = x[k, 0] - x[k, 1]
        R, _ = _law(x[k, 2], R0[k], alpha[k], T0[k])
        i = u / R                                                           # (2)
        F[k, 0], F[k, 1], F[k, 2] = i, -i, -u * i                           # (3)
    return F


@njit(cache=True)
def jacobian(x, xp, R0, alpha, T0):
    n = x.shape[0]
    dfdx = np.empty((n, 3, 3))
    for k in range(n):
        u = x[k, 0] - x[k, 1]
        R, dR = _law(x[k, 2], R0[k], alpha[k], T0[k])
        di_du, di_dT = 1.0 / R, -u * dR / R ** 2
        for row, sign in ((0, 1.0), (1, -1.0)):
            dfdx[k, row, 0], dfdx[k, row, 1] = sign * di_du, -sign * di_du
            dfdx[k, row, 2] = sign * di_dT
        dfdx[k, 2, 0], dfdx[k, 2, 1] = -2.0 * u / R, 2.0 * u / R
        dfdx[k, 2, 2] = -u * di_dT
    return dfdx, np.zeros((n, 3, 3))
