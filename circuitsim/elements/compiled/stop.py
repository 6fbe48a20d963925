"""The end stop's residual, Jacobian and switching functions (elements/stop.py,
equations (1)-(3)) as one compiled loop over the instances: the same equations entry by
entry, equal to the numpy reference to rounding. Imported only when the compiled kernels
are in use (it imports numba)."""
import numpy as np
from numba import njit


# the kernels' types for the extension built ahead of time (ahead.py): x (and x'), lower,
# upper, k, c -> F, (dF/dx, dF/dx') or the switching functions
_LIMITS = ("f1", "f1", "f1", "f1")
EXPORTS = {"residual": ("f2", ("f2*", "f2*") + _LIMITS),
           "jacobian": (("f3", "f3"), ("f2*", "f2*") + _LIMITS),
           "switching_functions": ("f2", ("f2*",) + _LIMITS)}

@njit(cache=True)
def _law(x, v, lower, upper, k, c):
    """(f, whether a contact pushes) of equation (2) for one instance."""
    du, dl = x - upper, lower - x
    fu, fl = k * du + c * v, k * dl - c * v
    if du > 0 and fu > 0:
        return fu, True
    if dl > 0 and fl > 0:
        return -fl, True
    return 0.0, False


@njit(cache=True)
def residual(x, xp, lower, upper, k, c):
    n = x.shape[0]
    F = np.empty((n, 3))
    for i in range(n):
        v = x[i, 0] - x[i, 1]
        f, _ = _law(x[i, 2], v, lower[i], upper[i], k[i], c[i])   # (2)
        F[i, 0], F[i, 1], F[i, 2] = f, -f, xp[i, 2] - v            # (1)
    return F


@njit(cache=True)
def jacobian(x, xp, lower, upper, k, c):
    n = x.shape[0]
    dfdx, dfdxp = np.zeros((n, 3, 3)), np.zeros((n, 3, 3))
    for i in range(n):
        _, on = _law(x[i, 2], x[i, 0] - x[i, 1], lower[i], upper[i], k[i], c[i])
        if on:                                   # df/dx = k, df/dv = c
            for row, sign in ((0, 1.0), (1, -1.0)):
                dfdx[i, row, 0], dfdx[i, row, 1] = sign * c[i], -sign * c[i]
                dfdx[i, row, 2] = sign * k[i]
        dfdx[i, 2, 0], dfdx[i, 2, 1], dfdxp[i, 2, 2] = -1.0, 1.0, 1.0
    return dfdx, dfdxp


@njit(cache=True)
def switching_functions(x, lower, upper, k, c):
    n = x.shape[0]
    g = np.empty((n, 2))
    for i in range(n):
        v, ratio = x[i, 0] - x[i, 1], c[i] / k[i]
        du, dl = x[i, 2] - upper[i], lower[i] - x[i, 2]
        g[i, 0] = min(du, du + ratio * v) if np.isfinite(upper[i]) else -1.0      # (3)
        g[i, 1] = min(dl, dl - ratio * v) if np.isfinite(lower[i]) else -1.0      # (3)
    return g
