"""The equations of motion by Kuzmin's method of connected graphs: d'Alembert's principle
written directly in the joint coordinates from the position functions of the centres of
mass, with the bodies' rotational inertia added in the same form.

Per frame k (its bodies combined: mass m, centre c, central inertia K in frame k):

    r_k(q) = Φ_k(q) [c; 1]                           centre of mass                 (8)
    f_kj = ∂r_k/∂q_j,   φ_kjl = ∂f_kj/∂q_l           the F and Φ matrices           (10)
    r̈_k = Σ_j f_kj q̈_j + Σ_j Σ_l φ_kjl q̇_j q̇_l = r̄_k + r̂_k                      (11)
    Ω_kj = σ_j R_{j→k}ᵀ e_z  (revolute j ⊒ k, else 0)   ω_k = Σ_j Ω_kj q̇_j  (frame k)
    ψ_kjl = ∂Ω_kj/∂q_l,  ω̇_k = Σ_j Ω_kj q̈_j + Σ_j Σ_l ψ_kjl q̇_j q̇_l = ω̄_k + ω̂_k
    M_j = Σ_k m_k f_kj·r̄_k + Ω_kj·K_k ω̄_k                                          (12)
    S_j = Σ_k m_k f_kj·r̂_k + Ω_kj·(K_k ω̂_k + ω_k × K_k ω_k)
    G_j = Σ_k m_k f_kj·g
    P = M + S − G        (P_j the drive torque/force of joint j, the flange's tau / f)

R_{j→k} = rot(A_{j+1}) ⋯ rot(A_k) turns frame-k components into frame-j ones, so
Ω_kj is joint j's axis in frame k (ω̇ of a rigid body has the same components whether
differentiated in the ground frame or in its own, hence the Euler form). Every product
with a structurally zero factor is skipped, and the additions, multiplications and
differentiations the formulas perform are tallied (``Tally``).
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

from .kinematics import Kinematics, matrix


@dataclass
class Tally:
    """Operations the derivation performs on matrix entries (an entry counts as one
    operand, whatever its size): products and sums of non-zero entries, and symbolic
    differentiations."""
    adds: int = 0
    mults: int = 0
    diffs: int = 0

    def product(self, *factors):
        if any(f == 0 for f in factors):
            return 0
        self.mults += len(factors) - 1
        return sp.Mul(*factors)

    def total(self, terms):
        terms = [t for t in terms if t != 0]
        self.adds += max(len(terms) - 1, 0)
        return sp.Add(*terms)

    def diff(self, expr, x):
        if expr == 0:
            return 0
        self.diffs += 1
        return sp.diff(expr, x)


def _cross(t: Tally, a, b) -> list:
    return [t.total([t.product(a[1], b[2]), -t.product(a[2], b[1])]),
            t.total([t.product(a[2], b[0]), -t.product(a[0], b[2])]),
            t.total([t.product(a[0], b[1]), -t.product(a[1], b[0])])]


def _matvec(t: Tally, K, v) -> list:
    return [t.total([t.product(K[i, j], v[j]) for j in range(3)]) for i in range(3)]


def _dot(t: Tally, a, b) -> sp.Expr:
    return t.total([t.product(x, y) for x, y in zip(a, b)])


def axes_in_frame(kin: Kinematics, k: int) -> dict:
    """{j: Ω_kj (3 entries)} for the revolute joints j at or above frame k."""
    out = {}
    R = sp.eye(3)                                   # R_{j→k}, from j = k upwards
    for j in reversed(kin.ancestors(k)):
        if kin.revolute(j):
            out[j] = [kin.tree.frames[j].sign * R[2, i] for i in range(3)]
        R = kin.links[j][:3, :3] * R
    return out


def derive(kin: Kinematics) -> dict:
    """M(q) (n×n), the velocity terms S(q, q̇), the gravity terms −G(q) and the drive
    forces P(q, q̇, q̈) as sympy expressions; the Tally of the derivation by the formulas
    (10)–(12) (point masses, as the method has them) and that of the rotational terms."""
    n, t, tr = kin.n, Tally(), Tally()
    q, qd, qdd = kin.q, kin.qd, kin.qdd
    mass = [[0] * n for _ in range(n)]
    Mv, S, G = [[] for _ in range(n)], [[] for _ in range(n)], [[] for _ in range(n)]
    for k in range(n):
        m, c, Kc = kin.bodies[k]
        if m == 0.0:
            continue
        m, K = matrix([[m]])[0, 0], matrix(Kc)
        anc = kin.ancestors(k)
        r = (kin.poses[k] * matrix(list(c) + [1.0]).reshape(4, 1))[:3, 0]       # (8)
        f = {j: [t.diff(r[i], q[j]) for i in range(3)] for j in anc}            # (10)
        phi = {(j, l): [t.diff(f[j][i], q[l]) for i in range(3)] for j in anc for l in anc}
        rbar = [t.total([t.product(f[j][i], qdd[j]) for j in anc]) for i in range(3)]
        rhat = [t.total([t.product(qd[l], t.total([t.product(phi[j, l][i], qd[j])
                                                    for j in anc])) for l in anc])
                for i in range(3)]                                              # (11)
        Om = axes_in_frame(kin, k)                   # the rotational terms: tally tr
        psi = {(j, l): [tr.diff(Om[j][i], q[l]) for i in range(3)] for j in Om for l in anc}
        w = [tr.total([tr.product(Om[j][i], qd[j]) for j in Om]) for i in range(3)]
        wbar = [tr.total([tr.product(Om[j][i], qdd[j]) for j in Om]) for i in range(3)]
        what = [tr.total([tr.product(qd[l], tr.total([tr.product(psi[j, l][i], qd[j])
                                                      for j in Om])) for l in anc])
                for i in range(3)]
        Kwbar, Kw = _matvec(tr, K, wbar), _matvec(tr, K, w)
        rot_hat = [tr.total([a, b]) for a, b in zip(_matvec(tr, K, what), _cross(tr, w, Kw))]
        for j in anc:                                                           # (12)
            Mv[j].append(t.product(m, _dot(t, f[j], rbar)))
            S[j].append(t.product(m, _dot(t, f[j], rhat)))
            G[j].append(t.product(m, _dot(t, f[j], kin.g)))
            if j in Om:
                Mv[j].append(_dot(tr, Om[j], Kwbar))
                S[j].append(_dot(tr, Om[j], rot_hat))
            for l in anc:            # the mass matrix: the coefficients of q̈_l in M_j
                mass[j][l] = sp.Add(mass[j][l], m * sum(a * b for a, b in zip(f[j], f[l])))
                if j in Om and l in Om:
                    mass[j][l] += sum(a * b for a, b in zip(Om[j], _matvec(Tally(), K, Om[l])))
    M_, S_, G_ = ([t.total(v) for v in vec] for vec in (Mv, S, G))
    P = [t.total([a, b, -g]) for a, b, g in zip(M_, S_, G_)]
    return {"mass": sp.Matrix(mass), "velocity": sp.Matrix(S_),
            "gravity": sp.Matrix([-g for g in G_]), "drive": P, "tally": t,
            "tally_rotation": tr}
