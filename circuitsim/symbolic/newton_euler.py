"""Recursive Newton–Euler inverse dynamics of the same Kinematics, built symbolically:
the reference the operation counts of the method of connected graphs are set against.

Every vector in the coordinates of its frame (E = rot(A_k): frame k → parent, p = the
origin of frame k in the parent frame, z = e_z, σ the joint's sign); the ground moves
with acceleration −g so that gravity needs no force of its own:

    outward   ω_k = Eᵀω_p + σq̇ z                       (revolute; prismatic: Eᵀω_p)
              ω̇_k = Eᵀω̇_p + σq̈ z + Eᵀω_p × σq̇ z     (prismatic: Eᵀω̇_p)
              a_k = Eᵀ(a_p + ω̇_p × p + ω_p × (ω_p × p))
                    (+ 2ω_k × σq̇ z + σq̈ z, prismatic)
              a_C = a_k + ω̇_k × c + ω_k × (ω_k × c)
              F_k = m a_C,   N_k = K ω̇_k + ω_k × K ω_k
    inward    f_k = F_k + Σ_children E f_c
              n_k = N_k + c × F_k + Σ_children (E n_c + p × E f_c)
    drive     P_k = σ n_k·z (revolute), σ f_k·z (prismatic)
"""
from __future__ import annotations

import sympy as sp

from .kinematics import Kinematics, matrix


def _cross(a, b):
    return sp.Matrix([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                      a[0] * b[1] - a[1] * b[0]])


def drive_forces(kin: Kinematics) -> list:
    n = kin.n
    z = sp.Matrix([0, 0, 1])
    w, dw, a = [None] * n, [None] * n, [None] * n
    F, N, E, p = [None] * n, [None] * n, [None] * n, [None] * n
    zero = sp.zeros(3, 1)
    for k, fr in enumerate(kin.tree.frames):
        E[k], p[k] = kin.links[k][:3, :3], kin.links[k][:3, 3]
        if fr.parent < 0:
            wp, dwp, ap = zero, zero, -kin.g
        else:
            wp, dwp, ap = w[fr.parent], dw[fr.parent], a[fr.parent]
        Et = E[k].T
        w_in, dw_in = Et * wp, Et * dwp
        a[k] = Et * (ap + _cross(dwp, p[k]) + _cross(wp, _cross(wp, p[k])))
        rate, acc = fr.sign * kin.qd[k] * z, fr.sign * kin.qdd[k] * z
        if kin.revolute(k):
            w[k], dw[k] = w_in + rate, dw_in + acc + _cross(w_in, rate)
        else:
            w[k], dw[k] = w_in, dw_in
            a[k] = a[k] + 2 * _cross(w[k], rate) + acc
        m, c, K = kin.bodies[k]
        c, K = matrix(c.reshape(3, 1)), matrix(K)
        aC = a[k] + _cross(dw[k], c) + _cross(w[k], _cross(w[k], c))
        F[k] = matrix([[m]])[0, 0] * aC
        N[k] = K * dw[k] + _cross(w[k], K * w[k]) + _cross(c, F[k])
    f, nm, out = [None] * n, [None] * n, [None] * n
    for k in reversed(range(n)):
        f[k], nm[k] = F[k], N[k]
        for ch in kin.children(k):
            Ef = E[ch] * f[ch]
            f[k] = f[k] + Ef
            nm[k] = nm[k] + E[ch] * nm[ch] + _cross(p[ch], Ef)
        sign = kin.tree.frames[k].sign
        out[k] = sign * (nm[k][2] if kin.revolute(k) else f[k][2])
    return out
