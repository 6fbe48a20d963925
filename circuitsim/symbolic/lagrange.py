"""Lagrange's equations with the kinematics in homogeneous 4×4 matrices (the Uicker–Kahn
form of the robotics textbooks), built symbolically on the same Kinematics: the second
reference of the operation counts.

    U_kj = ∂Φ_k/∂q_j,   U_kjl = ∂U_kj/∂q_l          (zero unless j, l are at or above k)
    J_k  = ∫ [r; 1][r; 1]ᵀ dm = [[½tr(K)E − K + m c cᵀ, m c], [m cᵀ, m]]  (frame k)
    D_ij = Σ_k tr(U_kj J_k U_kiᵀ)                  (the mass matrix)
    h_ijl = Σ_k tr(U_kjl J_k U_kiᵀ)
    c_i  = −Σ_k [gᵀ 0] U_ki J_k e_4                (gravity; J_k e_4 = m [c; 1])
    P_i  = Σ_j D_ij q̈_j + Σ_j Σ_l h_ijl q̇_j q̇_l + c_i
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from .kinematics import Kinematics, matrix


def pseudo_inertia(m: float, c, K) -> np.ndarray:
    J = np.zeros((4, 4))
    J[:3, :3] = 0.5 * np.trace(K) * np.eye(3) - K + m * np.outer(c, c)
    J[:3, 3] = J[3, :3] = m * np.asarray(c)
    J[3, 3] = m
    return J


def _trace(A, J, B) -> sp.Expr:
    """tr(A J Bᵀ) = Σ_rst A_rs J_st B_rt (rows 0..2: the last rows of U are zero)."""
    return sp.Add(*[A[r, s] * J[s, t] * B[r, t] for r in range(3) for s in range(4)
                    for t in range(4) if A[r, s] != 0 and J[s, t] != 0 and B[r, t] != 0])


def drive_forces(kin: Kinematics) -> list:
    n, q = kin.n, kin.q
    gh = sp.Matrix([[*kin.g, 0]])
    U, UU, J = {}, {}, {}
    for k in range(n):
        m, c, K = kin.bodies[k]
        J[k] = matrix(pseudo_inertia(m, c, K))
        for j in kin.ancestors(k):
            U[k, j] = kin.poses[k].diff(q[j])
            for l in kin.ancestors(k):
                UU[k, j, l] = U[k, j].diff(q[l])
    out = []
    for i in range(n):
        terms = []
        below = [k for k in range(n) if i in kin.ancestors(k)]
        for j in range(n):
            D = sp.Add(*[_trace(U[k, j], J[k], U[k, i]) for k in below
                         if (k, j) in U])
            terms.append(D * kin.qdd[j])
            for l in range(n):
                h = sp.Add(*[_trace(UU[k, j, l], J[k], U[k, i]) for k in below
                             if (k, j, l) in UU])
                terms.append(h * kin.qd[j] * kin.qd[l])
        terms += [-(gh * U[k, i] * J[k][:, 3])[0, 0] for k in below]
        out.append(sp.Add(*terms))
    return out
