"""Friction's residual and Jacobian (elements/friction.py, equation (1)) as one compiled
loop over the instances, with Fc(t) evaluated by the caller: the same equation entry by
entry, equal to the numpy reference to rounding. Imported only when the compiled kernels
are in use (it imports numba)."""
import math

import numpy as np
from numba import njit


# the kernels' types for the extension built ahead of time (ahead.py): x, Fc(t), Fs, Fs
# given, vs, b, veps -> F or dF/dx
_ARGS = ("f2*", "f1*", "f1", "b1", "f1", "f1", "f1")
EXPORTS = {"residual": ("f2", _ARGS), "jacobian": ("f3", _ARGS)}

@njit(cache=True)
def _law(v, Fc, Fs, given, vs, b, veps):
    """(f, df/dv) of equation (1) for one instance; Fs follows Fc where not given."""
    th = math.tanh(v / veps)
    peak = ((Fs if given else Fc) - Fc) * math.exp(-(v / vs) ** 2)
    level = Fc + peak
    return level * th + b * v, peak * (-2.0 * v / vs ** 2) * th + level * (1.0 - th ** 2) / veps + b


@njit(cache=True)
def residual(x, Fc, Fs, given, vs, b, veps):
    n = x.shape[0]
    F = np.empty((n, 2))
    for i in range(n):
        f, _ = _law(x[i, 0] - x[i, 1], Fc[i], Fs[i], given[i], vs[i], b[i], veps[i])  # (1)
        F[i, 0], F[i, 1] = f, -f
    return F


@njit(cache=True)
def jacobian(x, Fc, Fs, given, vs, b, veps):
    n = x.shape[0]
    dfdx = np.empty((n, 2, 2))
    for i in range(n):
        _, g = _law(x[i, 0] - x[i, 1], Fc[i], Fs[i], given[i], vs[i], b[i], veps[i])
        dfdx[i, 0, 0], dfdx[i, 0, 1], dfdx[i, 1, 0], dfdx[i, 1, 1] = g, -g, -g, g
    return dfdx
