"""Two O(N) solutions of tree-multibody equations for the accelerations, compared.

    python benchmarks/seed000.py             # chains of N = 10 ... 10000 bodies
    python benchmarks/seed000.py --quick     # N = 10 ... 300 (well under 30 s)
    python benchmarks/seed000.py 50 500      # chosen sizes

Reproduces the benchmark of V. A. Shimanovsky, "Method for computer simulation of
multibody system dynamics" (Perm State University): a chain of N rigid bodies joined by
3-DOF ball joints (body 1 to the ground by a ball joint too), under gravity, integrated
with a 6th-order Stormer method, the time per step against N for two ways of solving the
equations of motion for the accelerations:

* the sweep ("progonka") of A. F. Vereshchagin, which eliminates the reactions of the
  carried bodies leaf-to-root with the projector P = E - M* A (A^T M* A)^-1 A^T and then
  solves root-to-leaf; in the paper's view an LU elimination of system (5), blind to its
  symmetry;
* the block L^T D L (Cholesky-type) factorisation of the symmetric system (5), which
  needs only the Cholesky factor of A^T M* A and a rank-n downdate V^T V.

Both run over the same per-body blocks of the paper (eqs. (1)-(4)): body-frame velocity
and acceleration 6-vectors (angular first) of the body pole O_i, the 6x6 transfer
matrix C_i, the 6xn joint basis A_i, the bias acceleration w*_i, the body mass matrix M_i
about O_i and the force column F_i. The local coordinates q_i of a ball joint are Cardan
(Bryant x-y-z) angles of body i relative to its parent, so the state is (q, qdot) and
the Stormer method integrates qddot = f(q, qdot) as the paper's does.

For each N the script prints: the largest difference of both recursions' accelerations
from a dense numpy.linalg.solve of the same system (5) (N <= DENSE_MAX), the median time
of one acceleration solve and of one full integration step for each method, the ratio
L^T D L / sweep of the medians and of the minima, and the floating-point operations per
body counted by instrumenting every numpy/LAPACK operation the two solvers execute. Then
the scaling exponents, the error of the L^T D L recursion when M* is not kept
symmetric, and the energy drift and convergence order of the integrator on a small
chain. Exit status 1 if an accuracy or energy check fails.

Errata in the paper (equation numbers as printed); the code follows the corrected forms:
  E1  (5): the unknown block is W_i = (q_i, R_i, w_i); the unknown is qddot_i, not q_i.
  E2  sweep algorithm, F*_i update: (F*_j - M*_j w_j) must be (F*_j - M*_j w*_j); w_j is
      not yet known on the leaf-to-root pass (follows from R_j = M*_j w_j - F*_j).
  E3  first L^T D L step: L_MN, L_UN are called Cholesky factors of "V_N and U_N"; they
      are the factors of M_N (M*_N) and U_N = A^T M* A (V_N is not even square).
  E4  the sweep's cost is said to lie in inverting A_i^T M_i A_i; it is A_i^T M*_i A_i
      (the articulated, not the body, mass matrix).
Not an erratum but easy to get wrong: M_i of (3) is right only with J_i the inertia
about the pole O_i, not about the centre of mass (it couples through m r_c~). The
remaining misprints (the block L ending in L_2 instead of L_N, I for the signature
matrix in the first factorisation step, "Fig. 3" for Fig. 2) do not change any formula.
"""
from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from math import comb

import numpy as np
from scipy.linalg import lapack

GRAVITY = np.array([0.0, 0.0, -9.81])    # m/s^2, ground frame
SIZES = [10, 30, 100, 300, 1000, 3000, 10000]
QUICK_MAX = 300
DENSE_MAX = 300           # the dense (12N+3N)^2 check costs O(N^3): only small chains
FIT_FROM = 30             # N = 10 is dominated by fixed per-call overheads
STEP = 1e-3               # s, integration step of the energy check (5 bodies)
# s, step of the timed runs: a hanging chain's fastest pendulum mode is ~sqrt(N g / l)
# (the tension at the top grows with N), ~440 rad/s at N = 10000, beyond the stability
# interval of the explicit 6th-order method at 1 ms; the cost of a step does not depend on h
TIMING_STEP = 1e-4
TIME_BUDGET = 1.0         # s of repeats per timed quantity (at least MIN_REPEATS)
MIN_REPEATS = 5
NDOF = 3                  # ball joint
I6 = np.eye(6)


# --------------------------------------------------------------------------- model
@dataclass
class Chain:
    """A tree of rigid bodies on ball joints; a chain when parent[i] == i - 1.

    Body i has its pole O_i at joint i; parent[i] < i (-1 = ground). rho[i] is the
    vector O_parent -> O_i in the parent's frame (ground frame for roots), rc[i] the
    centre of mass and J[i] the inertia tensor about O_i, both in body i's frame."""
    parent: np.ndarray
    m: np.ndarray
    rc: np.ndarray
    J: np.ndarray
    rho: np.ndarray

    @property
    def n(self) -> int:
        return len(self.parent)

    @property
    def M(self) -> np.ndarray:
        """Body mass matrices of eq. (3), (N,6,6): [[J, m rc~], [-m rc~, m E]]."""
        mr = self.m[:, None, None] * skew(self.rc)
        M = np.zeros((self.n, 6, 6))
        M[:, :3, :3] = self.J
        M[:, :3, 3:] = mr
        M[:, 3:, :3] = -mr
        M[:, 3:, 3:] = self.m[:, None, None] * np.eye(3)
        return M


def skew(v: np.ndarray) -> np.ndarray:
    """v~ with v~ x = v x x, for (..., 3) -> (..., 3, 3)."""
    s = np.zeros(v.shape + (3,))
    s[..., 0, 1], s[..., 0, 2], s[..., 1, 2] = -v[..., 2], v[..., 1], -v[..., 0]
    s[..., 1, 0], s[..., 2, 0], s[..., 2, 1] = v[..., 2], -v[..., 1], v[..., 0]
    return s


def box_inertia(m, sides, rc, axes=None) -> np.ndarray:
    """Inertia about the body origin of a box of mass m, principal axes `axes` (columns),
    centred at rc: J = R Jc R^T + m (|rc|^2 E - rc rc^T) (parallel axes)."""
    a, b, c = np.asarray(sides, float) ** 2
    Jc = m / 12.0 * np.diag([b + c, a + c, a + b])
    if axes is not None:
        Jc = axes @ Jc @ axes.T
    return Jc + m * (rc @ rc * np.eye(3) - np.outer(rc, rc))


def rod_chain(n: int) -> Chain:
    """The benchmark chain: n equal rods 0.5 m x 5 cm x 5 cm, 1 kg, hanging from O_i."""
    rc = np.array([0.0, 0.0, -0.25])
    J = box_inertia(1.0, (0.05, 0.05, 0.5), rc)
    return Chain(parent=np.arange(n) - 1, m=np.ones(n), rc=np.tile(rc, (n, 1)),
                 J=np.tile(J, (n, 1, 1)), rho=np.tile([0.0, 0.0, -0.5], (n, 1)))


def random_tree(n: int, rng, parent=None) -> Chain:
    """Bodies of random mass, shape, centre of mass, principal axes and joint offsets;
    a chain unless `parent` is given."""
    parent = np.arange(n) - 1 if parent is None else np.asarray(parent)
    m = rng.uniform(0.5, 2.0, n)
    rc = rng.uniform(-0.3, 0.3, (n, 3))
    J = np.array([box_inertia(m[i], rng.uniform(0.05, 0.6, 3), rc[i],
                              np.linalg.qr(rng.normal(size=(3, 3)))[0]) for i in range(n)])
    return Chain(parent=parent, m=m, rc=rc, J=J, rho=rng.uniform(-0.5, 0.5, (n, 3)))


def random_state(n: int, rng, angle=0.8, rate=1.0):
    """Joint angles and rates, |beta| < angle < pi/2 away from the Cardan singularity."""
    return rng.uniform(-angle, angle, (n, 3)), rng.uniform(-rate, rate, (n, 3))


# ----------------------------------------------------------------- kinematics, eq (1)-(3)
def cardan(q: np.ndarray, qd: np.ndarray):
    """Ball joint in Cardan angles q = (alpha, beta, gamma), body i relative to parent:
    S = Rx(alpha) Ry(beta) Rz(gamma) maps body-i to parent coordinates. Returns S,
    Om (relative angular velocity in body i = Om qd) and Omdot qd. Singular at
    cos(beta) = 0."""
    ca, cb, cg = np.cos(q).T
    sa, sb, sg = np.sin(q).T
    ad, bd, gd = qd.T
    one, zero = np.ones_like(ca), np.zeros_like(ca)
    Rx = np.stack([one, zero, zero, zero, ca, -sa, zero, sa, ca], -1).reshape(-1, 3, 3)
    Ry = np.stack([cb, zero, sb, zero, one, zero, -sb, zero, cb], -1).reshape(-1, 3, 3)
    Rz = np.stack([cg, -sg, zero, sg, cg, zero, zero, zero, one], -1).reshape(-1, 3, 3)
    Om = np.stack([cb * cg, sg, zero, -cb * sg, cg, zero, sb, zero, one], -1).reshape(-1, 3, 3)
    Omd_qd = np.stack([(-sb * cg * bd - cb * sg * gd) * ad + cg * gd * bd,
                       (sb * sg * bd - cb * cg * gd) * ad - sg * gd * bd,
                       cb * bd * ad], -1)
    return Rx @ Ry @ Rz, Om, Omd_qd


@dataclass
class Blocks:
    """Per-body blocks of eqs. (1)-(3), all in body frames: C (N,6,6), A (N,6,3),
    wstar (N,6), F (N,6); plus absolute orientation Rabs (N,3,3) and angular velocity
    omega (N,3) for the energy."""
    C: np.ndarray
    A: np.ndarray
    wstar: np.ndarray
    F: np.ndarray
    Rabs: np.ndarray
    omega: np.ndarray


def blocks(ch: Chain, q: np.ndarray, qd: np.ndarray) -> Blocks:
    """The paper's first sub-task: from (q, qdot) the body velocities and the blocks."""
    n, par = ch.n, ch.parent
    S, Om, Omd_qd = cardan(q, qd)
    G = S.transpose(0, 2, 1)                       # parent -> body i coordinates
    w_rel = np.einsum("nij,nj->ni", Om, qd)
    omega, Rabs = np.empty((n, 3)), np.empty((n, 3, 3))
    for i in range(n):                             # (1), angular part; R = R_parent S
        k = par[i]
        omega[i] = w_rel[i] + (G[i] @ omega[k] if k >= 0 else 0.0)
        Rabs[i] = Rabs[k] @ S[i] if k >= 0 else S[i]
    om_k = np.where(par[:, None] >= 0, omega[par], 0.0)        # parent's, 0 for ground
    C = np.zeros((n, 6, 6))                        # C = [[G, 0], [-G rho~, G]]
    C[:, :3, :3] = C[:, 3:, 3:] = G
    C[:, 3:, :3] = -G @ skew(ch.rho)
    A = np.zeros((n, 6, NDOF))
    A[:, :3] = Om
    wstar = np.empty((n, 6))                       # (2): all but C w_k + A qddot
    wstar[:, :3] = Omd_qd + np.cross(np.einsum("nij,nj->ni", G, om_k), w_rel)
    wstar[:, 3:] = np.einsum("nij,nj->ni", G, np.cross(om_k, np.cross(om_k, ch.rho)))
    f = ch.m[:, None] * np.einsum("nji,j->ni", Rabs, GRAVITY)  # gravity in body frame
    F = np.empty((n, 6))                           # (3): [mu - w~ J w, f - m w~^2 rc]
    F[:, :3] = np.cross(ch.rc, f) - np.cross(omega, np.einsum("nij,nj->ni", ch.J, omega))
    F[:, 3:] = f - ch.m[:, None] * np.cross(omega, np.cross(omega, ch.rc))
    return Blocks(C, A, wstar, F, Rabs, omega)


# ----------------------------------------------------------------- small dense kernels
_FLOPS: list | None = None      # [count] while count_flops() runs


def _tally(flops: float) -> None:
    if _FLOPS is not None:
        _FLOPS[0] += flops


def _inv_general(U: np.ndarray) -> np.ndarray:
    """U^-1 by LU (LAPACK getrf + getri), as an elimination blind to symmetry does."""
    n = len(U)
    lu, piv, _ = lapack.dgetrf(U)
    inv, _ = lapack.dgetri(lu, piv)
    _tally(2 * n**3 - 1.5 * n**2 + 1.5 * n)   # LAWN 41: getrf + getri
    return inv


def _chol_upper(U: np.ndarray) -> np.ndarray:
    """Upper Cholesky factor L_U with U = L_U^T L_U (the paper's convention)."""
    n = len(U)
    c, _ = lapack.dpotrf(U, lower=0)
    _tally(n**3 / 3 + n**2 / 2 + n / 6)         # LAWN 41: potrf
    return c


def _inv_upper(c: np.ndarray) -> np.ndarray:
    """Inverse of an upper triangular factor (LAPACK trtri)."""
    n = len(c)
    ci, _ = lapack.dtrtri(c, lower=0)
    _tally(n**3 / 3 + 2 * n / 3)                # LAWN 41: trtri
    return ci


# ----------------------------------------------------------------- the two recursions
def solve_sweep(parent, M, F, C, A, wstar):
    """Vereshchagin's sweep generalised to trees, as in the paper, with erratum E2.

    Leaf to root:  M*_k += C^T P M* C,  F*_k += C^T P (F* - M* w*),
                   P = E - M* A U^-1 A^T,  U = A^T M* A  (inverted explicitly).
    Root to leaf:  qdd = U^-1 A^T (F* - M* (C w_k + w*)),  w = C w_k + A qdd + w*,
                   R = M* w - F*.
    Returns (qdd, w, R), each (N, .)."""
    n = len(parent)
    Ms, Fs = M.copy(), F.copy()
    Uinv = [None] * n
    for i in range(n - 1, -1, -1):
        MA = Ms[i] @ A[i]
        Uinv[i] = _inv_general(A[i].T @ MA)
        k = parent[i]
        if k >= 0:
            P = I6 - MA @ Uinv[i] @ A[i].T
            Ms[k] += C[i].T @ P @ Ms[i] @ C[i]
            Fs[k] += C[i].T @ (P @ (Fs[i] - Ms[i] @ wstar[i]))       # E2: w*_j, not w_j
    return _root_to_leaf(parent, Ms, Fs, C, A, wstar,
                         lambda i, c, wk: Uinv[i] @ (A[i].T @ (Fs[i] - Ms[i] @ c)))


def solve_ltdl(parent, M, F, C, A, wstar, symmetrise=True):
    """The block L^T D L (Cholesky-type) recursion of the paper, generalised to trees.

    Leaf to root:  L_U = chol(A^T M* A) (upper, U = L_U^T L_U),  r = F* - M* w*,
                   x = L_U^-T A^T r,  V = L_U^-T A^T M* C,
                   M*_k += C^T M* C - V^T V,  F*_k += C^T r - V^T x.
    Root to leaf:  qdd = L_U^-1 (x - V w_k),  w = C w_k + A qdd + w*,  R = M* w - F*.
    The paper inverts the triangular factors, so L_U^-1 is formed once per body.
    The Cholesky factorisation reads one triangle of A^T M* A, so M* must stay exactly
    symmetric; the computed C^T M* C is not (rounding), and left alone that asymmetry
    accumulates leaf to root: the accelerations then drift from the dense solution by
    ~1e-10 at N = 100 and ~1e-9 at N = 300 for the benchmark chain, while the sweep,
    which inverts the whole of A^T M* A, stays at ~1e-14. Each update is therefore
    symmetrised (symmetrise=False shows the drift)."""
    n = len(parent)
    Ms, Fs = M.copy(), F.copy()
    Li, x, V = [None] * n, [None] * n, [None] * n
    for i in range(n - 1, -1, -1):
        MA = Ms[i] @ A[i]
        Li[i] = _inv_upper(_chol_upper(A[i].T @ MA))
        r = Fs[i] - Ms[i] @ wstar[i]
        x[i] = Li[i].T @ (A[i].T @ r)
        k = parent[i]
        if k >= 0:
            V[i] = Li[i].T @ (MA.T @ C[i])
            X = C[i].T @ Ms[i] @ C[i] - V[i].T @ V[i]
            Ms[k] += 0.5 * (X + X.T) if symmetrise else X     # see the docstring
            Fs[k] += C[i].T @ r - V[i].T @ x[i]

    def qdd(i, c, wk):
        return Li[i] @ (x[i] - V[i] @ wk) if wk is not None else Li[i] @ x[i]
    return _root_to_leaf(parent, Ms, Fs, C, A, wstar, qdd)


def _root_to_leaf(parent, Ms, Fs, C, A, wstar, joint_acc):
    """Common second pass: (2) for w and R_i = M*_i w_i - F*_i; joint_acc(i, c, w_k)
    gives qddot_i from c = C_i w_k + w*_i (w_k None at the ground, where w_0 = 0)."""
    n = len(parent)
    qdd, w, R = np.empty((n, A.shape[2])), np.empty((n, 6)), np.empty((n, 6))
    for i in range(n):
        k = parent[i]
        wk = w[k] if k >= 0 else None
        c = C[i] @ wk + wstar[i] if k >= 0 else wstar[i]
        qdd[i] = joint_acc(i, c, wk)
        w[i] = c + A[i] @ qdd[i]
        R[i] = Ms[i] @ w[i] - Fs[i]
    return qdd, w, R


def solve_dense(parent, M, F, C, A, wstar):
    """Assemble system (5) for a tree (unknowns per body: qdd_i, R_i, w_i) and solve it
    with numpy.linalg.solve. Block rows of body i:
        A^T R_i = 0;   A qdd_i - w_i + C_i w_k = -w*_i;   -R_i + M_i w_i + sum C_j^T R_j = F_i."""
    n, nq = len(parent), A.shape[2]
    nb = nq + 12
    K, b = np.zeros((n * nb, n * nb)), np.zeros(n * nb)
    for i in range(n):
        o = i * nb
        iq, iR, iw = slice(o, o + nq), slice(o + nq, o + nq + 6), slice(o + nq + 6, o + nb)
        K[iq, iR] = A[i].T
        K[iR, iq], K[iR, iw], b[iR] = A[i], -I6, -wstar[i]
        K[iw, iR], K[iw, iw], b[iw] = -I6, M[i], F[i]
        k = parent[i]
        if k >= 0:
            kw = slice(k * nb + nq + 6, (k + 1) * nb)
            K[iR, kw] = C[i]              # H_i
            K[kw, iR] = C[i].T            # H_i^T
    sol = np.linalg.solve(K, b).reshape(n, nb)
    return sol[:, :nq], sol[:, nq + 6:], sol[:, nq:nq + 6]


SOLVERS = {"sweep": solve_sweep, "ltdl": solve_ltdl, "dense": solve_dense}


def solve(ch: Chain, bl: Blocks, method: str, M=None):
    """(qdd, w, R) of chain `ch` at blocks `bl` by one of SOLVERS."""
    return SOLVERS[method](ch.parent, ch.M if M is None else M, bl.F, bl.C, bl.A, bl.wstar)


def accelerations(ch: Chain, method: str, M=None):
    """f(q, qdot) -> qddot, as the integrator wants it."""
    M = ch.M if M is None else M

    def f(q, qd):
        return solve(ch, blocks(ch, q, qd), method, M)[0]
    return f


# ----------------------------------------------------------------- energy
def energy(ch: Chain, q: np.ndarray, qd: np.ndarray):
    """(kinetic, potential): T = sum 1/2 [w; v]^T M [w; v] with v the velocity of O_i,
    V = -sum m g . (p_i + R_i rc_i)."""
    bl = blocks(ch, q, qd)
    S, Mb = cardan(q, qd)[0], ch.M
    p, v = np.empty((ch.n, 3)), np.empty((ch.n, 3))
    T = V = 0.0
    for i in range(ch.n):
        k = ch.parent[i]
        if k >= 0:
            p[i] = p[k] + bl.Rabs[k] @ ch.rho[i]
            v[i] = S[i].T @ (v[k] + np.cross(bl.omega[k], ch.rho[i]))
        else:
            p[i], v[i] = ch.rho[i], 0.0
        u = np.concatenate([bl.omega[i], v[i]])
        T += 0.5 * u @ Mb[i] @ u
        V -= ch.m[i] * GRAVITY @ (p[i] + bl.Rabs[i] @ ch.rc[i])
    return T, V


# ----------------------------------------------------------------- Stormer integrator
def _backward_to_ordinates(coef):
    """sum_j c_j nabla^j f_n  ->  sum_m b_m f_{n-m},
    with nabla^j f_n = sum_m (-1)^m C(j, m) f_{n-m}."""
    return [sum(c * (-1) ** m * comb(j, m) for j, c in enumerate(coef) if j >= m)
            for m in range(len(coef))]


# Stormer, y_{n+1} - 2 y_n + y_{n-1} = h^2 sum_j sigma_j nabla^j f_n, order 6 with j <= 5
# (Hairer, Norsett, Wanner, Solving ODEs I, III.10); gives (317,-266,374,-276,109,-18)/240.
STORMER6 = np.array([float(b) for b in _backward_to_ordinates(
    [Fraction(1), Fraction(0), Fraction(1, 12), Fraction(1, 12), Fraction(19, 240),
     Fraction(3, 40)])])
# Adams-Bashforth of the same order for the velocities the forces need (gyroscopic and
# Coriolis terms): (4277,-7923,9982,-7298,2877,-475)/1440.
ADAMS6 = np.array([float(b) for b in _backward_to_ordinates(
    [Fraction(1), Fraction(1, 2), Fraction(5, 12), Fraction(3, 8), Fraction(251, 720),
     Fraction(95, 288)])])


class Stormer6:
    """Explicit 6th-order Stormer method for qdd = f(q, qd): one f per step, started by
    START classical RK4 steps of `substeps` sub-steps each (error ~ (h/substeps)^4 h)."""

    START = len(STORMER6) - 1

    def __init__(self, f, q0, qd0, h, substeps=8):
        self.f, self.h = f, h
        q, qd = np.array(q0, float), np.array(qd0, float)
        self.q, self.qd, self.acc = [q], [qd], [f(q, qd)]   # newest last
        for _ in range(self.START):
            for _ in range(substeps):
                q, qd = self._rk4(q, qd, h / substeps)
            self._push(q, qd)

    def _rk4(self, q, qd, h):
        k1v, k1a = qd, self.f(q, qd)
        k2v, k2a = qd + h / 2 * k1a, self.f(q + h / 2 * k1v, qd + h / 2 * k1a)
        k3v, k3a = qd + h / 2 * k2a, self.f(q + h / 2 * k2v, qd + h / 2 * k2a)
        k4v, k4a = qd + h * k3a, self.f(q + h * k3v, qd + h * k3a)
        return (q + h / 6 * (k1v + 2 * k2v + 2 * k3v + k4v),
                qd + h / 6 * (k1a + 2 * k2a + 2 * k3a + k4a))

    def _push(self, q, qd):
        self.q, self.qd = self.q[-1:] + [q], self.qd[-1:] + [qd]
        self.acc = self.acc[-(len(STORMER6) - 1):] + [self.f(q, qd)]

    def step(self):
        """Advance one step h; returns the new (q, qd)."""
        h, fs = self.h, self.acc[::-1]                 # f_n, f_{n-1}, ...
        q = 2 * self.q[-1] - self.q[-2] + h * h * sum(b * fm for b, fm in zip(STORMER6, fs))
        qd = self.qd[-1] + h * sum(b * fm for b, fm in zip(ADAMS6, fs))
        self._push(q, qd)
        return q, qd


def energy_drift(ch: Chain, q0, qd0, method: str, h: float, t_end: float):
    """max |E(t) - E(0)| / max T(t) over a Stormer run of t_end (T kinetic energy), and
    the largest |beta| met (the Cardan angles are singular at pi/2)."""
    integ = Stormer6(accelerations(ch, method), q0, qd0, h)
    T, V = energy(ch, q0, qd0)
    E0, drift, Tmax, beta = T + V, 0.0, T, 0.0
    for _ in range(int(round(t_end / h)) - integ.START):
        q, qd = integ.step()
        T, V = energy(ch, q, qd)
        drift, Tmax = max(drift, abs(T + V - E0)), max(Tmax, T)
        beta = max(beta, np.abs(q[:, 1]).max())
    return drift / Tmax, beta


# ----------------------------------------------------------------- flop counting
class _Counted(np.ndarray):
    """ndarray view that adds the flops of every ufunc applied to it to _FLOPS: a
    matmul with inner dimension k costs (2k - 1) per result entry, an elementwise
    operation one per entry. Transposes and indexing are free."""

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        plain = [x.view(np.ndarray) if isinstance(x, _Counted) else x for x in inputs]
        if out is not None:
            kwargs["out"] = tuple(o.view(np.ndarray) if isinstance(o, _Counted) else o
                                  for o in out)
        result = getattr(ufunc, method)(*plain, **kwargs)
        res = np.asarray(result)
        k = np.shape(plain[0])[-1] if ufunc is np.matmul else 1
        _tally(res.size * (2 * k - 1))
        if out is not None:
            return out[0]
        return res.view(_Counted) if isinstance(result, np.ndarray) else result


def count_flops(ch: Chain, bl: Blocks, method: str) -> int:
    """Floating-point operations one solve executes: every numpy operation counted from
    its shapes, every LAPACK kernel by its LAPACK Working Note 41 count."""
    global _FLOPS
    args = [ch.M, bl.F, bl.C, bl.A, bl.wstar]
    _FLOPS = [0]
    try:
        SOLVERS[method](ch.parent, *[a.view(_Counted) for a in args])
        return int(round(_FLOPS[0]))
    finally:
        _FLOPS = None


# ----------------------------------------------------------------- benchmark
# Flops per body the L^T D L solve would save by forming its three symmetric 6x6 results
# (C^T M* C: 11 flops an entry, V^T V: 5, their difference and the accumulation: 1 each)
# on one triangle only, 21 entries instead of 36, which also makes the symmetrisation
# (72) unnecessary. numpy has no triangle-only product, so this is counted, not timed.
SYMMETRY_SAVING = (36 - 21) * (11 + 5 + 1 + 1) + 72
ACCURACY = 1e-12          # max |qdd - qdd_dense| / max |qdd_dense| accepted
ENERGY_N, ENERGY_T = 5, 1.0
ENERGY_LIMIT = 1e-8       # relative energy drift accepted over ENERGY_T at STEP


def rel_diff(a, b) -> float:
    return float(np.abs(a - b).max() / np.abs(b).max())


def median_times(fns: dict, budget=TIME_BUDGET, cap=200) -> dict:
    """(median, minimum) wall time of each fn(), all called once per round in a shuffled
    order, over rounds filling about `budget` seconds. On the shared machine other jobs
    take the core for a time slice (~4 ms) now and then; taking turns spreads load
    changes over all fns, and the shuffle keeps a fixed order from falling into step
    with the scheduler. When a large share of calls is preempted the median moves; the
    minimum is the cost of an undisturbed call."""
    times = {name: [] for name in fns}
    order = np.random.default_rng(0)

    def one_round():
        for name in order.permutation(list(fns)):
            t0 = time.perf_counter()
            fns[name]()
            times[name].append(time.perf_counter() - t0)
    gc_was_enabled = gc.isenabled()
    gc.disable()                                  # as timeit does
    try:
        one_round()                               # warm-up, also sizes the repeats
        first = sum(t[0] for t in times.values())
        times = {name: [] for name in fns}
        for _ in range(max(MIN_REPEATS, min(cap, int(budget / max(first, 1e-9))))):
            one_round()
    finally:
        if gc_was_enabled:
            gc.enable()
    return {name: (statistics.median(t), min(t)) for name, t in times.items()}


def benchmark_state(n: int):
    """The benchmark chain, hanging, tilted at random by up to 0.3 rad per joint and
    turning at up to 0.5 rad/s per joint angle (seeded)."""
    q, qd = random_state(n, np.random.default_rng(n), angle=0.3, rate=0.5)
    return rod_chain(n), q, qd


def measure(n: int) -> dict:
    """One row of the table: timings first (the dense solve's BLAS threads would disturb
    them), then flop counts and the accuracy checks."""
    ch, q, qd = benchmark_state(n)
    M, bl = ch.M, blocks(ch, q, qd)
    methods = ("sweep", "ltdl")
    row = {"N": n}
    t = median_times({m: (lambda m=m: solve(ch, bl, m, M)) for m in methods})
    row.update({f"solve_{m}": t[m][0] for m in methods})
    row.update({f"solve_{m}_min": t[m][1] for m in methods})
    f = {m: accelerations(ch, m, M) for m in methods}
    integ = Stormer6(f["ltdl"], q, qd, TIMING_STEP, substeps=1)   # start-up accuracy moot

    def step(m):
        integ.f = f[m]
        integ.step()
    t = median_times({m: (lambda m=m: step(m)) for m in methods}, cap=50)
    row.update({f"step_{m}": t[m][0] for m in methods})
    row.update({f"step_{m}_min": t[m][1] for m in methods})
    if not (np.isfinite(integ.q[-1]).all() and np.isfinite(integ.qd[-1]).all()):
        raise RuntimeError(f"N = {n}: the timed Stormer run diverged; lower TIMING_STEP")
    row.update({f"flops_{m}": count_flops(ch, bl, m) / n for m in methods})
    sol = {m: solve(ch, bl, m, M)[0] for m in methods}
    row["sweep_vs_ltdl"] = rel_diff(sol["ltdl"], sol["sweep"])
    if n <= DENSE_MAX:
        ref = solve(ch, bl, "dense", M)[0]
        row.update({f"err_{m}": rel_diff(sol[m], ref) for m in methods})
        raw = solve_ltdl(ch.parent, M, bl.F, bl.C, bl.A, bl.wstar, symmetrise=False)[0]
        row["err_ltdl_unsym"] = rel_diff(raw, ref)
    return row


def slope(rows, key) -> float:
    """Exponent p of time ~ N^p, least squares over N >= FIT_FROM."""
    rows = [r for r in rows if r["N"] >= FIT_FROM] or rows
    if len(rows) < 2:
        return float("nan")
    return float(np.polyfit(np.log([r["N"] for r in rows]), np.log([r[key] for r in rows]), 1)[0])


def convergence_order(n=3, t_end=0.4, steps=(0.005, 0.0025), h_ref=0.000625) -> float:
    """Observed order of the Stormer run from the errors at two steps against a finer one."""
    ch, q0, qd0 = benchmark_state(n)
    f = accelerations(ch, "ltdl")

    def final(h):
        integ = Stormer6(f, q0, qd0, h, substeps=32)
        for _ in range(int(round(t_end / h)) - Stormer6.START):
            q, _ = integ.step()
        return q
    ref = final(h_ref)
    e1, e2 = (np.abs(final(h) - ref).max() for h in steps)
    return float(np.log(e1 / e2) / np.log(steps[0] / steps[1]))


def fmt(x, spec):
    return format(x, spec) if x is not None else "-".rjust(len(format(1.0, spec)))


HEADER = (f"{'N':>6} | {'err V':>8} {'err L':>8} | {'solve V':>9} {'solve L':>9} {'L/V':>5}"
          f" {'min':>5} | {'step V':>9} {'step L':>9} {'L/V':>5} {'min':>5} |"
          f" {'flop/body V':>11} {'L':>6} {'L/V':>5}")


def format_row(r: dict) -> str:
    """One table line: dense errors, median times and the L/V ratio of the medians and
    of the minima, flops per body."""
    def times(kind):
        v, l_ = r[f"{kind}_sweep"], r[f"{kind}_ltdl"]
        return (f" {1e3 * v:>7.3f}ms {1e3 * l_:>7.3f}ms {l_ / v:>5.2f}"
                f" {r[f'{kind}_ltdl_min'] / r[f'{kind}_sweep_min']:>5.2f} |")
    return (f"{r['N']:>6} | {fmt(r.get('err_sweep'), '8.1e')} {fmt(r.get('err_ltdl'), '8.1e')} |"
            + times("solve") + times("step")
            + f" {r['flops_sweep']:>11.0f} {r['flops_ltdl']:>6.0f}"
            f" {r['flops_ltdl'] / r['flops_sweep']:>5.2f}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sizes", nargs="*", type=int, help=f"chain lengths (default {SIZES})")
    ap.add_argument("--quick", action="store_true", help=f"only N <= {QUICK_MAX}")
    args = ap.parse_args(argv)
    sizes = args.sizes or [n for n in SIZES if not args.quick or n <= QUICK_MAX]

    print("Chain of N rods (1 kg, 0.5 m) on ball joints under gravity; V = Vereshchagin's"
          " sweep, L = block L^T D L.")
    print(f"err: max|qdd - qdd_dense| / max|qdd_dense| (N <= {DENSE_MAX}); times: median of"
          f" one acceleration solve / one Stormer step of {TIMING_STEP:g} s (kinematics"
          " included); L/V of the medians and of the minima (min)")
    print(HEADER)
    print("-" * len(HEADER))
    rows, ok = [], True
    for n in sizes:
        r = measure(n)
        rows.append(r)
        errs = [r.get("err_sweep"), r.get("err_ltdl")]
        ok &= all(e is None or e <= ACCURACY for e in errs) and r["sweep_vs_ltdl"] <= ACCURACY
        print(format_row(r), flush=True)
        if n > DENSE_MAX:
            print(f"{'':>6}   (no dense check; sweep vs L^T D L: {r['sweep_vs_ltdl']:.1e})")

    for stat, sfx in (("medians", ""), ("minima", "_min")):
        p = {k: slope(rows, f"{k}{sfx}") for k in
             ("solve_sweep", "solve_ltdl", "step_sweep", "step_ltdl")}
        print(f"{'' if sfx else chr(10)}scaling exponent p (time ~ N^p, N >= {FIT_FROM}),"
              f" {stat}: solve V {p['solve_sweep']:.2f}, L {p['solve_ltdl']:.2f};"
              f" step V {p['step_sweep']:.2f}, L {p['step_ltdl']:.2f}")
    unsym = [r for r in rows if "err_ltdl_unsym" in r]
    if unsym:
        print("L^T D L without symmetrising M*, error against dense: " + ", ".join(
            f"N = {r['N']}: {r['err_ltdl_unsym']:.1e}" for r in unsym))
    speed = [r["solve_sweep"] / r["solve_ltdl"] for r in rows]
    fv, fl = rows[-1]["flops_sweep"], rows[-1]["flops_ltdl"]
    print(f"paper's T1/T2 = sweep / L^T D L (paper: 1.6-2):"
          f" median solve time {min(speed):.2f}-{max(speed):.2f}, flops {fv / fl:.2f};"
          f" with one-triangle symmetric products (counted, not run)"
          f" {fv:.0f} / {fl - SYMMETRY_SAVING:.0f} = {fv / (fl - SYMMETRY_SAVING):.2f}")

    ch, q, qd = benchmark_state(ENERGY_N)
    for m in ("sweep", "ltdl"):
        drift, beta = energy_drift(ch, q, qd, m, STEP, ENERGY_T)
        ok &= drift <= ENERGY_LIMIT
        print(f"energy drift, {ENERGY_N} bodies, {ENERGY_T:g} s at h = {STEP:g} s, {m}:"
              f" {drift:.1e} of max kinetic energy (max |beta| {beta:.2f} rad)")
    print(f"observed order of the Stormer method: {convergence_order():.2f} (nominal 6)")
    print("PASS" if ok else "FAIL: accuracy or energy outside limits")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
