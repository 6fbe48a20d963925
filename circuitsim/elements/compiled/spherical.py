"""The spherical joint's residual and Jacobian in the position and velocity models
(joint.py (1)-(3) with the point-on-plane rows of constraints.py for global normals, no
friction and no cone limit, the run form) as compiled loops over the joints, equal to
the numpy reference to rounding. Imported only when the compiled kernels are in use (it
imports numba)."""
import numpy as np
from numba import njit

from ..constraints import HALF_NUMERATOR_D2Q
from .body import _dcm

NV2, M = 26, 3                       # the two frames' variables; the three constraints
L0, M0 = NV2, NV2 + M                # the first λ and μ row (and column)
# the kernels' types for the extension built ahead of time (ahead.py): x, normals, x1,
# x2, active, position (and ½ d²N/dq² for the Jacobian) -> F or dF/dx
EXPORTS = {"residual": ("f2", ("f2*", "f3", "f2", "f2", "f2", "b")),
           "jacobian": ("f3", ("f2*", "f3", "f2", "f2", "f2", "b", "f2"))}
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
def residual(x, normals, x1, x2, active, position):
    """Rows (N, 32): the frame rows −Wᵀλ (+ (∂g/∂x)ᵀ(μ·active) in the position model),
    then W·u and, in the position model, g of the three constraints
    g_k = n_k·(P2 − P1) (a switched-off row: λ_k = 0, μ_k = 0); μ = 0 in the velocity
    model."""
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
                if position:
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
            if position:
                out[k, NV2 + M + m] = act[m] * gap + (1.0 - act[m]) * mu[m]  # (3)
            else:
                out[k, NV2 + M + m] = mu[m]
    return out


@njit(cache=True)
def _angle_rows(q, E):
    """2·E(q)/|q|² (4, 3) (constraints._angle_gradient): ∂(A·c)/∂q_k = E_k × (A·c)."""
    s = 2.0 / (q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    for k in range(4):
        for j in range(3):
            E[k, j] = q[E_INDEX[k, j]] * s * E_SIGN[k, j]


@njit(cache=True)
def _hessian(q, c, w, half_d2q, H):
    """H = Σ_j w_j ∂²(A·c)_j/∂q² (4, 4) (Frames.D2): with K = ½ Σ_jl w_j c_l ∂²N_jl/∂q²,
    s = |q|², H = 2K/s − 4(Kq qᵀ + q qᵀK)/s² − 2(qᵀKq)I/s² + 8(qᵀKq) q qᵀ/s³."""
    K, Kq = np.zeros(16), np.zeros(4)
    for j in range(3):
        for l in range(3):
            wc = w[j] * c[l]
            for kr in range(16):
                K[kr] += wc * half_d2q[3 * j + l, kr]
    s = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]
    qKq = 0.0
    for k in range(4):
        for r in range(4):
            Kq[k] += K[4 * k + r] * q[r]
        qKq += Kq[k] * q[k]
    for k in range(4):
        for r in range(4):
            H[k, r] = (2.0 * K[4 * k + r] / s - 4.0 * (Kq[k] * q[r] + Kq[r] * q[k]) / s ** 2
                       + 8.0 * qKq * q[k] * q[r] / s ** 3)
        H[k, k] -= 2.0 * qKq / s ** 2


@njit(cache=True)
def _constraint_columns(k, normals, s1, r1, r2, E1, E2, act, position, J):
    """(1) ∂/∂λ of the frame rows: −Wᵀ; (3) ∂/∂μ: (∂g/∂x)ᵀ·active; the rows W·u and g:
    their ∂/∂λ, ∂/∂μ (1 − active on the diagonal; 1 for μ in the velocity model)."""
    c, t = np.empty(3), np.empty(3)
    for m in range(M):
        n = normals[k, m]
        a = act[m]
        _cross(s1, n, c)
        _cross(r2, n, t)
        for i in range(3):
            J[k, i, L0 + m] = n[i]                                      # −W on V1
            J[k, 3 + i, L0 + m] = c[i]                                  # −W on ω1
            J[k, 13 + i, L0 + m] = -n[i]                                # −W on V2
            J[k, 16 + i, L0 + m] = -t[i]                                # −W on ω2
            J[k, L0 + m, i] = a * -n[i]                                 # W·u on V, ω
            J[k, L0 + m, 3 + i] = a * -c[i]
            J[k, L0 + m, 13 + i] = a * n[i]
            J[k, L0 + m, 16 + i] = a * t[i]
        J[k, L0 + m, L0 + m] = 1.0 - a
        if not position:
            J[k, M0 + m, M0 + m] = 1.0
            continue
        _cross(r1, n, c)
        for j in range(4):                                  # dg on q1: E1·(−r1 × n), q2
            d1, d2 = 0.0, 0.0
            for i in range(3):
                d1 += E1[j, i] * -c[i]
                d2 += E2[j, i] * t[i]
            J[k, 9 + j, M0 + m] = d1 * a
            J[k, 22 + j, M0 + m] = d2 * a
            J[k, M0 + m, 9 + j] = a * d1
            J[k, M0 + m, 22 + j] = a * d2
        for i in range(3):
            J[k, 6 + i, M0 + m] = -n[i] * a
            J[k, 19 + i, M0 + m] = n[i] * a
            J[k, M0 + m, 6 + i] = a * -n[i]
            J[k, M0 + m, 19 + i] = a * n[i]
        J[k, M0 + m, M0 + m] = 1.0 - a


@njit(cache=True)
def jacobian(x, normals, x1, x2, active, position, half_d2q):
    """dF/dx (N, 32, 32) of ``residual`` (dF/dx' is zero): the λ, μ columns and rows
    (``_constraint_columns``); ∂(−Wᵀλ)/∂x on ω1, ω2 (the arms move with p and q2);
    ∂(W·u)/∂x on p, q2 at fixed u; the position model's Σμ ∂²g/∂x² on q1, q2."""
    n_joints = x.shape[0]
    J = np.zeros((n_joints, NV2 + 2 * M, NV2 + 2 * M))
    A1, A2, E1, E2 = np.empty((3, 3)), np.empty((3, 3)), np.empty((4, 3)), np.empty((4, 3))
    r1, r2, s1, f, fm = np.empty(3), np.empty(3), np.empty(3), np.empty(3), np.empty(3)
    D, c, t, spin, H = np.empty(3), np.empty(3), np.empty(3), np.empty(3), np.empty((4, 4))
    for k in range(n_joints):
        q1, q2 = x[k, 9:13], x[k, 22:26]
        _dcm(q1, q1[0] * q1[0] + q1[1] * q1[1] + q1[2] * q1[2] + q1[3] * q1[3], A1)
        _dcm(q2, q2[0] * q2[0] + q2[1] * q2[1] + q2[2] * q2[2] + q2[3] * q2[3], A2)
        _angle_rows(q1, E1)
        _angle_rows(q2, E2)
        _rotate(A1, x1[k], r1)
        _rotate(A2, x2[k], r2)
        lam, mu, act = x[k, L0:L0 + M], x[k, M0:M0 + M], active[k]
        for i in range(3):
            s1[i] = x[k, 19 + i] + r2[i] - x[k, 6 + i]                  # P2 − p1
            f[i], fm[i] = 0.0, 0.0
            for m in range(M):
                f[i] += lam[m] * normals[k, m, i]                       # Σ λ n
                fm[i] += mu[m] * act[m] * normals[k, m, i]              # Σ μ n
        _constraint_columns(k, normals, s1, r1, r2, E1, E2, act, position, J)
        # ∂(−Wᵀλ)/∂x: −s1 × f on ω1 (s1 moves with p1, p2, q2), r2 × f on ω2 (with q2)
        J[k, 3, 20], J[k, 3, 21] = f[2], -f[1]                          # −skew(f) on p2
        J[k, 4, 19], J[k, 4, 21] = -f[2], f[0]
        J[k, 5, 19], J[k, 5, 20] = f[1], -f[0]
        for i in range(3):
            for j in range(3):
                J[k, 3 + i, 6 + j] = -J[k, 3 + i, 19 + j]               # skew(f) on p1
        for j in range(4):
            _cross(E2[j], r2, D)                                        # ∂r2/∂q2_j
            _cross(f, D, c)
            for i in range(3):
                J[k, 3 + i, 22 + j] = -c[i]
                J[k, 16 + i, 22 + j] = c[i]
        # ∂(W·u)/∂x: n × ω1 on p1, −n × ω1 on p2, E2·(r2 × (n × (ω2 − ω1))) on q2
        for m in range(M):
            n = normals[k, m]
            a = act[m]
            for i in range(3):
                t[i] = x[k, 16 + i] - x[k, 3 + i]
            _cross(n, t, spin)
            _cross(r2, spin, t)
            _cross(n, x[k, 3:6], c)
            for i in range(3):
                J[k, L0 + m, 6 + i] = a * c[i]
                J[k, L0 + m, 19 + i] = a * -c[i]
            for j in range(4):
                J[k, L0 + m, 22 + j] = a * (E2[j, 0] * t[0] + E2[j, 1] * t[1]
                                            + E2[j, 2] * t[2])
        if position:                                    # Σμ ∂²g/∂x²: −D2(q1) and D2(q2)
            _hessian(q1, x1[k], fm, half_d2q, H)
            J[k, 9:13, 9:13] = -H
            _hessian(q2, x2[k], fm, half_d2q, H)
            J[k, 22:26, 22:26] = H
    return J
