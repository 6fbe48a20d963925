"""The PID controller's residual and Jacobian (elements/pid.py, equations (1)-(3')) as
one compiled loop over the instances: the same equations entry by entry, equal to the
numpy reference to rounding. Imported only when the compiled kernels are in use (it
imports numba)."""
import numpy as np
from numba import njit


# the kernels' types for the extension built ahead of time (ahead.py): x, x', kp, ki,
# kd, tf, lower, upper, tt, the ramps' width δ, back-calculation -> F or (dF/dx, dF/dx')
_PARAMS = ("f1", "f1", "f1", "f1", "f1", "f1", "f1", "f1", "b1")
EXPORTS = {"residual": ("f2", ("f2*", "f2*") + _PARAMS),
           "jacobian": (("f3", "f3"), ("f2*", "f2*") + _PARAMS)}


@njit(cache=True)
def _ramp(z, delta):
    """(w, dw/dz) of signals.ramp: w = clip(z/δ + 1, 0, 1)."""
    u = z / delta + 1.0
    if u > 0.0 and u < 1.0:
        return u, 1.0 / delta
    return (0.0 if not u > 0.0 else 1.0), 0.0


@njit(cache=True)
def residual(x, xp, kp, ki, kd, tf, lower, upper, tt, delta, backcalc):
    n = x.shape[0]
    F = np.zeros((n, 4))
    for i in range(n):
        e, y, xi, xf = x[i, 0], x[i, 1], x[i, 2], x[i, 3]
        v = kp[i] * e + xi + kd[i] * (e - xf) / tf[i]
        F[i, 1] = y - min(max(v, lower[i]), upper[i])                      # (2)
        if backcalc[i]:
            F[i, 2] = xp[i, 2] - ki[i] * e - (y - v) / tt[i]               # (3')
        else:
            r = ki[i] * e
            wu, _ = _ramp(v - upper[i], delta[i])
            wl, _ = _ramp(lower[i] - v, delta[i])
            F[i, 2] = xp[i, 2] - r + max(r, 0.0) * wu + min(r, 0.0) * wl  # (3)
        F[i, 3] = tf[i] * xp[i, 3] + xf - e                                # (1)
    return F


@njit(cache=True)
def jacobian(x, xp, kp, ki, kd, tf, lower, upper, tt, delta, backcalc):
    n = x.shape[0]
    dfdx, dfdxp = np.zeros((n, 4, 4)), np.zeros((n, 4, 4))
    dv = np.empty(4)
    for i in range(n):
        e = x[i, 0]
        v = kp[i] * e + x[i, 2] + kd[i] * (e - x[i, 3]) / tf[i]
        dv[0], dv[1], dv[2], dv[3] = kp[i] + kd[i] / tf[i], 0.0, 1.0, -kd[i] / tf[i]
        if lower[i] < v < upper[i]:
            for j in range(4):
                dfdx[i, 1, j] = -dv[j]
        dfdx[i, 1, 1] = 1.0
        if backcalc[i]:
            for j in range(4):
                dfdx[i, 2, j] = dv[j] / tt[i]
            dfdx[i, 2, 0] -= ki[i]
            dfdx[i, 2, 1] = -1.0 / tt[i]
        else:
            r = ki[i] * e
            wu, dwu = _ramp(v - upper[i], delta[i])
            wl, dwl = _ramp(lower[i] - v, delta[i])
            coef = (r * dwu if r > 0.0 else 0.0) - (r * dwl if r < 0.0 else 0.0)   # d/dv
            for j in range(4):
                dfdx[i, 2, j] = coef * dv[j]
            dfdx[i, 2, 0] += -ki[i] + ki[i] * ((wu if r > 0.0 else 0.0)
                                               + (wl if r < 0.0 else 0.0))
        dfdxp[i, 2, 2] = 1.0
        dfdx[i, 3, 0], dfdx[i, 3, 3] = -1.0, 1.0
        dfdxp[i, 3, 3] = tf[i]
    return dfdx, dfdxp
