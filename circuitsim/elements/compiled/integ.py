"""The integrator's residual and Jacobian (elements/integ.py, equation (1)) as one
compiled loop over the instances: the same equation entry by entry, equal to the numpy
reference to rounding. Imported only when the compiled kernels are in use (it imports
numba)."""
import numpy as np
from numba import njit

from .pid import _ramp

# the kernels' types for the extension built ahead of time (ahead.py): x, x', k, lower,
# upper, the ramps' width δ -> F or (dF/dx, dF/dx')
_ARGS = ("f2*", "f2*", "f1", "f1", "f1", "f1")
EXPORTS = {"residual": ("f2", _ARGS), "jacobian": (("f3", "f3"), _ARGS)}


@njit(cache=True)
def _law(u, y, k, lower, upper, delta):
    """(dy/dt, its derivative by u, by y) of equation (1) for one instance."""
    r = k * u
    wu, dwu = _ramp(y - upper, delta)
    wl, dwl = _ramp(lower - y, delta)
    up, dn = r > 0.0, r < 0.0
    rate = r - (r * wu if up else 0.0) - (r * wl if dn else 0.0)
    drate_du = k * (1.0 - (wu if up else 0.0) - (wl if dn else 0.0))
    drate_dy = -(r * dwu if up else 0.0) + (r * dwl if dn else 0.0)
    return rate, drate_du, drate_dy


@njit(cache=True)
def residual(x, xp, k, lower, upper, delta):
    n = x.shape[0]
    F = np.zeros((n, 2))
    for i in range(n):
        rate, _, _ = _law(x[i, 0], x[i, 1], k[i], lower[i], upper[i], delta[i])
        F[i, 1] = xp[i, 1] - rate                                          # (1)
    return F


@njit(cache=True)
def jacobian(x, xp, k, lower, upper, delta):
    n = x.shape[0]
    dfdx, dfdxp = np.zeros((n, 2, 2)), np.zeros((n, 2, 2))
    for i in range(n):
        _, du, dy = _law(x[i, 0], x[i, 1], k[i], lower[i], upper[i], delta[i])
        dfdx[i, 1, 0], dfdx[i, 1, 1] = -du, -dy
        dfdxp[i, 1, 1] = 1.0
    return dfdx, dfdxp
