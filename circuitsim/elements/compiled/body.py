"""The body's residual and Jacobian (elements/body.py, equations (1)-(5)) as one compiled
loop over the instances: the same equations entry by entry, equal to the numpy reference
to rounding. Imported only when the compiled kernels are in use (it imports numba)."""
import numpy as np
from numba import njit

NB = 16                              # the body's local variables and rows (body.NB)
# the kernels' types for the extension built ahead of time (ahead.py: "f2" a 2-D float64
# array, "b" a bool, "*" made at every call): x, x', m, Jc, γ, g, init -> F, or
# (dF/dx, dF/dx')
_ARGS = ("f2*", "f2*", "f1", "f3", "f1", "f2", "b")
EXPORTS = {"residual": ("f2", _ARGS), "jacobian": (("f3", "f3"), _ARGS)}


@njit(cache=True)
def _dcm(q, s, A):
    """A = N(q)/s, s = |q|² (quaternion.dcm: an exact rotation also off the unit sphere)."""
    q0, q1, q2, q3 = q[0], q[1], q[2], q[3]
    A[0, 0] = (q0 * q0 + q1 * q1 - q2 * q2 - q3 * q3) / s
    A[0, 1] = 2 * (q1 * q2 - q0 * q3) / s
    A[0, 2] = 2 * (q1 * q3 + q0 * q2) / s
    A[1, 0] = 2 * (q1 * q2 + q0 * q3) / s
    A[1, 1] = (q0 * q0 - q1 * q1 + q2 * q2 - q3 * q3) / s
    A[1, 2] = 2 * (q2 * q3 - q0 * q1) / s
    A[2, 0] = 2 * (q1 * q3 - q0 * q2) / s
    A[2, 1] = 2 * (q2 * q3 + q0 * q1) / s
    A[2, 2] = (q0 * q0 - q1 * q1 - q2 * q2 + q3 * q3) / s


@njit(cache=True)
def _dcm_dq(q, s, A, dA):
    """dA_ij/dq_k = dN_ij/dq_k / s − 2 q_k A_ij / s (quaternion.dcm_dq), dN linear in q."""
    q0, q1, q2, q3 = 2 * q[0], 2 * q[1], 2 * q[2], 2 * q[3]
    dN = np.empty((3, 3, 4))
    dN[0, 0, 0], dN[0, 0, 1], dN[0, 0, 2], dN[0, 0, 3] = q0, q1, -q2, -q3
    dN[1, 1, 0], dN[1, 1, 1], dN[1, 1, 2], dN[1, 1, 3] = q0, -q1, q2, -q3
    dN[2, 2, 0], dN[2, 2, 1], dN[2, 2, 2], dN[2, 2, 3] = q0, -q1, -q2, q3
    dN[0, 1, 0], dN[0, 1, 1], dN[0, 1, 2], dN[0, 1, 3] = -q3, q2, q1, -q0
    dN[0, 2, 0], dN[0, 2, 1], dN[0, 2, 2], dN[0, 2, 3] = q2, q3, q0, q1
    dN[1, 0, 0], dN[1, 0, 1], dN[1, 0, 2], dN[1, 0, 3] = q3, q2, q1, q0
    dN[1, 2, 0], dN[1, 2, 1], dN[1, 2, 2], dN[1, 2, 3] = -q1, -q0, q3, q2
    dN[2, 0, 0], dN[2, 0, 1], dN[2, 0, 2], dN[2, 0, 3] = -q2, q3, -q0, q1
    dN[2, 1, 0], dN[2, 1, 1], dN[2, 1, 2], dN[2, 1, 3] = q1, q0, q3, q2
    for i in range(3):
        for j in range(3):
            for k in range(4):
                dA[i, j, k] = dN[i, j, k] / s - 2 * q[k] * A[i, j] / s


@njit(cache=True)
def _euler(Jc, gyro, wb, wbp, Jwb, e):
    """Jwb = Jc·ω_b and e = Jc·ω_b' + γ ω_b × Jwb (the body-axes Euler terms of (2))."""
    for i in range(3):
        Jwb[i] = Jc[i, 0] * wb[0] + Jc[i, 1] * wb[1] + Jc[i, 2] * wb[2]
    for i in range(3):
        e[i] = Jc[i, 0] * wbp[0] + Jc[i, 1] * wbp[1] + Jc[i, 2] * wbp[2]
    e[0] += gyro * (wb[1] * Jwb[2] - wb[2] * Jwb[1])
    e[1] += gyro * (wb[2] * Jwb[0] - wb[0] * Jwb[2])
    e[2] += gyro * (wb[0] * Jwb[1] - wb[1] * Jwb[0])


@njit(cache=True)
def residual(x, xp, m, Jc, gyro, g, init):
    n = x.shape[0]
    F = np.empty((n, NB))
    A, Jwb, e = np.empty((3, 3)), np.empty(3), np.empty(3)
    for k in range(n):
        q, wb, wbp = x[k, 9:13], x[k, 13:16], xp[k, 13:16]
        _dcm(q, q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], A)
        _euler(Jc[k], gyro[k], wb, wbp, Jwb, e)
        # the rate that (5) compares ω_b with: ω, or ω' in its differentiated form
        w = xp[k, 3:6] if init else x[k, 3:6]
        for i in range(3):
            F[k, i] = m[k] * (xp[k, i] - g[k, i])                                 # (1)
            F[k, 3 + i] = A[i, 0] * e[0] + A[i, 1] * e[1] + A[i, 2] * e[2]       # (2)
            F[k, 6 + i] = xp[k, 6 + i] - x[k, i]                                  # (3)
            rate = wbp[i] if init else wb[i]
            F[k, 13 + i] = rate - (A[0, i] * w[0] + A[1, i] * w[1] + A[2, i] * w[2])  # (5)
        # (4) q' = ½ (−q_v·ω_b, q0·ω_b + q_v × ω_b)
        F[k, 9] = xp[k, 9] + 0.5 * (q[1] * wb[0] + q[2] * wb[1] + q[3] * wb[2])
        F[k, 10] = xp[k, 10] - 0.5 * (q[0] * wb[0] + (q[2] * wb[2] - q[3] * wb[1]))
        F[k, 11] = xp[k, 11] - 0.5 * (q[0] * wb[1] + (q[3] * wb[0] - q[1] * wb[2]))
        F[k, 12] = xp[k, 12] - 0.5 * (q[0] * wb[2] + (q[1] * wb[1] - q[2] * wb[0]))
    return F


@njit(cache=True)
def _omega_matrix(q, L):
    """L(q) (4,3) with q ⊗ (0, w) = L·w (quaternion.omega_matrix)."""
    q0, q1, q2, q3 = q[0], q[1], q[2], q[3]
    L[0, 0], L[0, 1], L[0, 2] = -q1, -q2, -q3
    L[1, 0], L[1, 1], L[1, 2] = q0, -q3, q2
    L[2, 0], L[2, 1], L[2, 2] = q3, q0, -q1
    L[3, 0], L[3, 1], L[3, 2] = -q2, q1, q0


@njit(cache=True)
def _rotation_rows(k, A, dA, e, Jc, gyro, wb, Jwb, dfdx, dfdxp):
    """(2) A·e: d/dω_b' = A·Jc; d/dω_b = γ A·(skew(ω_b)·Jc − skew(Jwb)); d/dq = dA·e."""
    S = np.empty((3, 3))             # skew(ω_b)·Jc − skew(Jc·ω_b)
    for j in range(3):
        S[0, j] = wb[1] * Jc[2, j] - wb[2] * Jc[1, j]
        S[1, j] = wb[2] * Jc[0, j] - wb[0] * Jc[2, j]
        S[2, j] = wb[0] * Jc[1, j] - wb[1] * Jc[0, j]
    S[0, 1] += Jwb[2]
    S[0, 2] -= Jwb[1]
    S[1, 0] -= Jwb[2]
    S[1, 2] += Jwb[0]
    S[2, 0] += Jwb[1]
    S[2, 1] -= Jwb[0]
    for i in range(3):
        for j in range(3):
            dfdxp[k, 3 + i, 13 + j] = A[i, 0] * Jc[0, j] + A[i, 1] * Jc[1, j] + A[i, 2] * Jc[2, j]
            dfdx[k, 3 + i, 13 + j] = gyro * (A[i, 0] * S[0, j] + A[i, 1] * S[1, j]
                                             + A[i, 2] * S[2, j])
        for c in range(4):
            dfdx[k, 3 + i, 9 + c] = dA[i, 0, c] * e[0] + dA[i, 1, c] * e[1] + dA[i, 2, c] * e[2]


@njit(cache=True)
def jacobian(x, xp, m, Jc, gyro, g, init):
    n = x.shape[0]
    dfdx, dfdxp = np.zeros((n, NB, NB)), np.zeros((n, NB, NB))
    A, dA, L = np.empty((3, 3)), np.empty((3, 3, 4)), np.empty((4, 3))
    Jwb, e = np.empty(3), np.empty(3)
    # (5) ω_b − Aᵀ·ω, or ω_b' − Aᵀ·ω' while initialising: the same entries in x'
    rate = dfdxp if init else dfdx
    for k in range(n):
        q, wb, wbp = x[k, 9:13], x[k, 13:16], xp[k, 13:16]
        s = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]
        _dcm(q, s, A)
        _dcm_dq(q, s, A, dA)
        _euler(Jc[k], gyro[k], wb, wbp, Jwb, e)
        _rotation_rows(k, A, dA, e, Jc[k], gyro[k], wb, Jwb, dfdx, dfdxp)
        w = xp[k, 3:6] if init else x[k, 3:6]
        _omega_matrix(q, L)
        for i in range(3):
            dfdxp[k, i, i] = m[k]                                         # (1)
            dfdxp[k, 6 + i, 6 + i] = 1.0                                  # (3)
            dfdx[k, 6 + i, i] = -1.0
            rate[k, 13 + i, 13 + i] = 1.0                                 # (5)
            for j in range(3):
                rate[k, 13 + i, 3 + j] = -A[j, i]
            for c in range(4):
                dfdx[k, 13 + i, 9 + c] = -(dA[0, i, c] * w[0] + dA[1, i, c] * w[1]
                                           + dA[2, i, c] * w[2])
        # (4) q' − ½ L(q)·ω_b: d/dω_b = −½ L, d/dq_c = −½ (dL/dq_c)·ω_b
        for r in range(4):
            dfdxp[k, 9 + r, 9 + r] = 1.0
            for j in range(3):
                dfdx[k, 9 + r, 13 + j] = -0.5 * L[r, j]
        dfdx[k, 9, 10], dfdx[k, 9, 11], dfdx[k, 9, 12] = 0.5 * wb[0], 0.5 * wb[1], 0.5 * wb[2]
        dfdx[k, 10, 9], dfdx[k, 10, 11], dfdx[k, 10, 12] = -0.5 * wb[0], -0.5 * wb[2], 0.5 * wb[1]
        dfdx[k, 11, 9], dfdx[k, 11, 10], dfdx[k, 11, 12] = -0.5 * wb[1], 0.5 * wb[2], -0.5 * wb[0]
        dfdx[k, 12, 9], dfdx[k, 12, 10], dfdx[k, 12, 11] = -0.5 * wb[2], -0.5 * wb[1], 0.5 * wb[0]
    return dfdx, dfdxp
