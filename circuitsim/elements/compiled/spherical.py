"""The spherical joint's residual in the position model (joint.py (1)-(3) with the
point-on-plane rows of constraints.py, no friction and no cone limit) as one compiled
loop over the joints, equal to the numpy reference to rounding. Imported only when the
compiled kernels are in use (it imports numba)."""
import numpy as np
from numba import njit

from .body import _dcm

NV2, M = 26, 3                       # the two frames' variables; the three constraints
# the rows of E(q) as entries of q (constraints._angle_gradient): E[k, j] = sign·q[index]
E_INDEX = np.array([[1, 2, 3], [0, 3, 2], [3, 0, 1], [2, 1, 0]])
E_SIGN = np.array([[-1.0, -1.0, -1.0], [1.0, 1.0, -1.0], [-1.0, 1.0, 1.0], [1.0, -1.0, 1.0]])


@njit(cache=True)
def _cross(a, b, out):
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@njit(cache=True)
def _rotate(A, c, out):
    for i in range(3):
        out[i] = A[i, 0] * c[0] + A[i, 1] * c[1] + A[i, 2] * c[2]


@njit(cache=True)
def _on_orientation(q, v, out):
    """2·E(q)·v/|q|²: a generalized force v on the rotation angle as one on q."""
    s = 2.0 / (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    for k in range(4):
        out[k] = 0.0
        for j in range(3):
            out[k] += E_SIGN[k, j] * q[E_INDEX[k, j]] * s * v[j]


@njit(cache=True)
def position_residual(x, normals, x1, x2, active):
    """Rows (N, 32): the frame rows −Wᵀλ + (∂g/∂x)ᵀ(μ·active), then W·u and g of the
    three constraints g_k = n_k·(P2 − P1) (a switched-off row: λ_k = 0, μ_k = 0)."""
    n = x.shape[0]
    out = np.zeros((n, NV2 + 2 * M))
    A1, A2 = np.empty((3, 3)), np.empty((3, 3))
    r1, r2, s1, d = np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    f, fm, rel, c, turn = np.empty(3), np.empty(3), np.empty(3), np.empty(3), np.empty(4)
    for k in range(n):
        q1, q2 = x[k, 9:13], x[k, 22:26]
        _dcm(q1, q1[0] * q1[0] + q1[1] * q1[1] + q1[2] * q1[2] + q1[3] * q1[3], A1)
        _dcm(q2, q2[0] * q2[0] + q2[1] * q2[1] + q2[2] * q2[2] + q2[3] * q2[3], A2)
        _rotate(A1, x1[k], r1)
        _rotate(A2, x2[k], r2)
        lam, mu, act = x[k, NV2:NV2 + M], x[k, NV2 + M:NV2 + 2 * M], active[k]
        for i in range(3):
            s1[i] = x[k, 19 + i] + r2[i] - x[k, 6 + i]                  # P2 − p1
            d[i] = s1[i] - r1[i]                                          # P2 − P1
            f[i] = 0.0                                                    # Σ λ n
            fm[i] = 0.0                                                   # Σ μ n
            for m in range(M):
                f[i] += lam[m] * normals[k, m, i]
                fm[i] += mu[m] * act[m] * normals[k, m, i]
        # relative velocity of the points: V2 + ω2 × r2 − V1 − ω1 × s1
        _cross(x[k, 16:19], r2, rel)
        _cross(x[k, 3:6], s1, c)
        for i in range(3):
            rel[i] += x[k, 13 + i] - x[k, i] - c[i]
            out[k, i] = f[i]                                              # (1) on V1, V2
            out[k, 13 + i] = -f[i]
            out[k, 6 + i] = -fm[i]                                        # (3) on p1, p2
            out[k, 19 + i] = fm[i]
        _cross(s1, f, c)
        out[k, 3:6] = c                                                   # (1) on ω1
        _cross(r2, f, c)
        out[k, 16:19] = -c                                                # (1) on ω2
        _cross(r1, fm, c)
        _on_orientation(q1, -c, turn)                                     # (3) on q1
        out[k, 9:13] = turn
        _cross(r2, fm, c)
        _on_orientation(q2, c, turn)                                      # (3) on q2
        out[k, 22:26] = turn
        for m in range(M):
            rate, gap = 0.0, 0.0
            for i in range(3):
                rate += normals[k, m, i] * rel[i]
                gap += normals[k, m, i] * d[i]
            out[k, NV2 + m] = act[m] * rate + (1.0 - act[m]) * lam[m]    # (2)
            out[k, NV2 + M + m] = act[m] * gap + (1.0 - act[m]) * mu[m]  # (3)
    return out
