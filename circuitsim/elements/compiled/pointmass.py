"""The point mass's residual and Jacobian (elements/pointmass.py, equations (1)-(4)) as
one compiled loop over the instances: the same equations entry by entry, equal to the
numpy reference to rounding. Imported only when the compiled kernels are in use (it
imports numba)."""
import numpy as np
from numba import njit

from .body import _dcm, _dcm_dq
from .spherical import _cross

# the kernels' types for the extension built ahead of time (ahead.py): x, x', m, g,
# x_local -> F or (dF/dx, dF/dx')
_ARGS = ("f2*", "f2*", "f1", "f2", "f2")
EXPORTS = {"residual": ("f2", _ARGS), "jacobian": (("f3", "f3"), _ARGS)}
NV = 13          # a frame's variables: V 0:3, ω 3:6, position 6:9, q 9:13


@njit(cache=True)
def _skew(a, S):
    """S·b = a × b."""
    S[0, 0], S[0, 1], S[0, 2] = 0.0, -a[2], a[1]
    S[1, 0], S[1, 1], S[1, 2] = a[2], 0.0, -a[0]
    S[2, 0], S[2, 1], S[2, 2] = -a[1], a[0], 0.0


@njit(cache=True)
def _force(x, xp, m, g, r, wr, f):
    """f = m·(V' + ω' × r + ω × (ω × r) − g) of (1), (2); wr = ω × r."""
    a, b = np.empty(3), np.empty(3)
    _cross(xp[3:6], r, a)
    _cross(x[3:6], r, wr)
    _cross(x[3:6], wr, b)
    for i in range(3):
        f[i] = m * ((xp[i] + a[i] + b[i]) - g[i])


@njit(cache=True)
def residual(x, xp, m, g, x_local):
    n = x.shape[0]
    F = np.zeros((n, NV))
    A, r, wr, f, rf = np.empty((3, 3)), np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    for k in range(n):
        q = x[k, 9:13]
        _dcm(q, q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], A)
        for i in range(3):
            r[i] = A[i, 0] * x_local[k, 0] + A[i, 1] * x_local[k, 1] + A[i, 2] * x_local[k, 2]
        _force(x[k], xp[k], m[k], g[k], r, wr, f)
        _cross(r, f, rf)
        for i in range(3):
            F[k, i] = f[i]                                                     # (3)
            F[k, 3 + i] = rf[i]                                                # (4)
    return F


@njit(cache=True)
def jacobian(x, xp, m, g, x_local):
    n = x.shape[0]
    dfdx, dfdxp = np.zeros((n, NV, NV)), np.zeros((n, NV, NV))
    A, dA = np.empty((3, 3)), np.empty((3, 3, 4))
    r, wr, f, dr = np.empty(3), np.empty(3), np.empty(3), np.empty((3, 4))
    Sr, Sw, Swr, Swp, Sf = (np.empty((3, 3)), np.empty((3, 3)), np.empty((3, 3)),
                            np.empty((3, 3)), np.empty((3, 3)))
    Dfx, Dfp = np.empty((3, NV)), np.empty((3, NV))
    for k in range(n):
        q = x[k, 9:13]
        s = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]
        _dcm(q, s, A)
        _dcm_dq(q, s, A, dA)
        for i in range(3):
            r[i] = A[i, 0] * x_local[k, 0] + A[i, 1] * x_local[k, 1] + A[i, 2] * x_local[k, 2]
            for c in range(4):
                dr[i, c] = (dA[i, 0, c] * x_local[k, 0] + dA[i, 1, c] * x_local[k, 1]
                            + dA[i, 2, c] * x_local[k, 2])
        _force(x[k], xp[k], m[k], g[k], r, wr, f)
        _skew(r, Sr)
        _skew(x[k, 3:6], Sw)
        _skew(wr, Swr)
        _skew(xp[k, 3:6], Swp)
        _skew(f, Sf)
        Dfx[:, :] = 0.0
        Dfp[:, :] = 0.0
        for i in range(3):
            Dfp[i, i] = m[k]                                       # ∂f/∂V'
            for j in range(3):
                Dfp[i, 3 + j] = -m[k] * Sr[i, j]                   # ω' × r = −r × ω'
                SwSr = Sw[i, 0] * Sr[0, j] + Sw[i, 1] * Sr[1, j] + Sw[i, 2] * Sr[2, j]
                Dfx[i, 3 + j] = -m[k] * (SwSr + Swr[i, j])          # ∂(ω × (ω × r))/∂ω
            for c in range(4):                                     # through r(q)
                acc = 0.0
                for j in range(3):
                    SwSw = Sw[i, 0] * Sw[0, j] + Sw[i, 1] * Sw[1, j] + Sw[i, 2] * Sw[2, j]
                    acc += (Swp[i, j] + SwSw) * dr[j, c]
                Dfx[i, 9 + c] = m[k] * acc
        for i in range(3):
            for c in range(NV):
                dfdx[k, i, c], dfdxp[k, i, c] = Dfx[i, c], Dfp[i, c]           # (3)
                dfdx[k, 3 + i, c] = (Sr[i, 0] * Dfx[0, c] + Sr[i, 1] * Dfx[1, c]
                                     + Sr[i, 2] * Dfx[2, c])                     # (4)
                dfdxp[k, 3 + i, c] = (Sr[i, 0] * Dfp[0, c] + Sr[i, 1] * Dfp[1, c]
                                      + Sr[i, 2] * Dfp[2, c])
            for c in range(4):                                     # ∂r/∂q × f = −f × ∂r/∂q
                dfdx[k, 3 + i, 9 + c] -= (Sf[i, 0] * dr[0, c] + Sf[i, 1] * dr[1, c]
                                          + Sf[i, 2] * dr[2, c])
    return dfdx, dfdxp
