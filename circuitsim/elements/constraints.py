"""Constraint primitives between two frames (conventions.md §4), vectorized.

Every joint is a set of scalar constraints g_k(positions) = 0 of two kinds:

* point-on-plane: a point fixed in frame 2 stays in a plane fixed in frame 1,
      g = n·(P2 − P1),  n = A1·n_l (normal fixed in frame 1),
      P_i = p_i + A_i·x_i (the joint point as fixed in frame i; P1 = P2 at t = 0);
* rotation restriction: a vector a fixed in frame 1 stays perpendicular to b fixed in
  frame 2,  g = (A1·a_l)·(A2·b_l); it forbids relative rotation about d = b × a.

The time derivative is linear in the frames' velocities u = (V1, ω1, V2, ω2):
dg/dt = W(positions)·u, with (s1 = P2 − p1 the arm of frame 1 to the point of frame 2)

    point-on-plane:  W = (−n, −s1 × n, n, r2 × n)       r2 = A2·x2
    rotation:        W = (0, c, 0, −c)                  c = a × b = −d

Wᵀλ is the generalized force of the constraint: λ is the force along n (torque about
d) that frame 1 exerts on frame 2 — frame 2 receives λn at P2 (λd), frame 1 the
opposite at the same point. A joint's axis coupling (flange, conventions.md §5) uses the
same rows: along an axis the point-on-plane row with normal = axis (relative velocity
along it), about an axis W = (0, −n, 0, n) (relative angular velocity about it).

Each primitive class takes the ``Frames`` of the 26 local variables of the two frame
ports (FRAME_VARS order per frame) and constant local vectors of shape (N, m, 3) for m
primitives of the same kind, and gives what the joint's equations use:

    g (N, m), dg (N, m, 26)        value and gradient (non-zero on p, q only)
    W (N, m, 26)                   velocity rows (non-zero on V, ω only)
    rate(v)           W·v (N, m)
    force(λ)          Wᵀλ (N, 26)
    gradient_force(μ) (∂g/∂x)ᵀμ (N, 26)
    rate_gradient(v)  ∂(W·v)/∂x at fixed v (N, m, 26)
    row_rate(ẋ)       Σ_j ẋ_j ∂W/∂x_j (N, m, 26): the rows' change as the positions move
    add_force_jacobian(out, λ, s)  out += s·∂(Wᵀλ)/∂x, out (N, 26, 26)
    add_hessian(out, μ)            out += Σ_k μ_k ∂²g_k/∂x²

Everything is written with the 3-vectors the rows are made of and contracted over the
primitives before any 26×26 block is formed (λ, μ enter linearly), so a residual costs
a few cross products per joint and a Jacobian one 26×26 block per joint, never the
(N, m, 26, 26) tensors ∂W/∂x and ∂²g/∂x²; the second-order terms are added into that
block where they are non-zero (a 26×26 array per term cost half a joint's Jacobian).
The quaternion derivatives: with
∂(A·c)/∂q_k = E_k × (A·c) (``Frames.E``), D(c) = ∂(A·c)/∂q (3×4) and
D(c)ᵀν = E·((A·c) × ν); D2(c, w) = Σ_i w_i ∂²(A·c)_i/∂q² (4×4), linear in w.
"""
import numpy as np

from . import quaternion
from .frames import cross, skew

NV2 = 26                                   # variables of the two frame ports
V1, W1, P1, Q1 = slice(0, 3), slice(3, 6), slice(6, 9), slice(9, 13)
V2, W2, P2, Q2 = slice(13, 16), slice(16, 19), slice(19, 22), slice(22, 26)


class Frames:
    """Orientation data of the two frames of a joint; the derivatives of the rotation
    matrices are computed on first use (a residual needs fewer than a Jacobian)."""

    def __init__(self, x: np.ndarray):
        self.x = x
        self.q = (x[:, Q1], x[:, Q2])
        self.p = (x[:, P1], x[:, P2])
        # both frames' quaternions as rows of one (2N, 4) array: one call per quantity
        self._q12 = x[:, _Q12].reshape(-1, 4)
        self.A = _pair(quaternion.dcm(self._q12))
        self._E = None

    @property
    def E(self):
        """Columns of 2·E(q)/|q|² (N, 4, 3): ∂θ/∂q_k of the global rotation angle, so that
        ∂(A·c)/∂q_k = (2E/|q|²)_k × (A·c) (A = dcm(q/|q|); E·q = 0)."""
        if self._E is None:
            self._E = _pair(_angle_gradient(self._q12))
        return self._E

    def spin(self, i: int, xdot: np.ndarray) -> np.ndarray:
        """Ω (N, 3) with d(A_i·c)/dt = Ω × (A_i·c) when q_i moves at xdot's rate (N, 26)."""
        return np.einsum("nkj,nk->nj", self.E[i], xdot[:, Q1 if i == 0 else Q2])

    def rotate(self, i: int, c: np.ndarray) -> np.ndarray:
        """A_i·c for c (N, 3) or (N, m, 3)."""
        if c.ndim == 2:
            return np.einsum("nij,nj->ni", self.A[i], c)
        return np.einsum("nij,nmj->nmi", self.A[i], c)

    def D(self, i: int, c: np.ndarray) -> np.ndarray:
        """∂(A_i·c)/∂q_i: (N, 3, 4) or (N, m, 3, 4)."""
        u = self.rotate(i, c)
        E = self.E[i] if c.ndim == 2 else self.E[i][:, None]
        return np.swapaxes(cross(E, u[..., None, :]), -1, -2)

    def D2(self, i: int, c: np.ndarray, w: np.ndarray) -> np.ndarray:
        """Σ_j w_j ∂²(A_i·c)_j/∂q_i²: (N, m, 4, 4); c, w each (N, 3) or (N, m, 3).

        wᵀA·c = qᵀKq / s (s = |q|², K = ½ Σ_jl w_j c_l ∂²N_jl/∂q², N the quadratic
        numerator of A), whose Hessian is
        2K/s − 4(Kq qᵀ + q qᵀK)/s² − 2(qᵀKq) I/s² + 8(qᵀKq) q qᵀ/s³."""
        c = c if c.ndim == 3 else c[:, None, :]
        w = w if w.ndim == 3 else w[:, None, :]
        c, w = np.broadcast_arrays(c, w)
        N, m = c.shape[:2]
        wc = (w[..., :, None] * c[..., None, :]).reshape(N * m, 9)
        K = (wc @ HALF_NUMERATOR_D2Q).reshape(N, m, 4, 4)
        q = self.q[i][:, None, :]                                    # (N, 1, 4)
        s = np.einsum("nmk,nmk->nm", q, q)[..., None, None]
        Kq = np.einsum("nmkl,nml->nmk", K, q)
        qKq = np.einsum("nmk,nmk->nm", Kq, q)[..., None, None]
        outer = Kq[..., :, None] * q[..., None, :]
        qq = q[..., :, None] * q[..., None, :]
        return (2.0 * K / s - 4.0 * (outer + _mT(outer)) / s ** 2
                - 2.0 * qKq * np.eye(4) / s ** 2 + 8.0 * qKq * qq / s ** 3)


_Q12 = np.r_[Q1, Q2]


def _pair(rows: np.ndarray) -> tuple:
    """(frame 1, frame 2) of per-quaternion values computed on the (2N, 4) rows."""
    both = rows.reshape((-1, 2) + rows.shape[1:])
    return both[:, 0], both[:, 1]


# ½ ∂²N_jl/∂q_k∂q_r as a (9, 16) matrix: rows (j, l), columns (k, r)
HALF_NUMERATOR_D2Q = 0.5 * quaternion.NUMERATOR_D2Q.reshape(9, 16)


# the rows of E(q) as entries of q: E[k, j] = _E_SIGN[k, j] · q[_E_INDEX[k, j]]
_E_INDEX = np.array([[1, 2, 3], [0, 3, 2], [3, 0, 1], [2, 1, 0]])
_E_SIGN = np.array([[-1.0, -1.0, -1.0], [1.0, 1.0, -1.0], [-1.0, 1.0, 1.0], [1.0, -1.0, 1.0]])


def _angle_gradient(q: np.ndarray) -> np.ndarray:
    """2·E(q)/|q|² (N, 4, 3), rows (−q1, −q2, −q3), (q0, q3, −q2), (−q3, q0, q1),
    (q2, −q1, q0)."""
    s = 2.0 / np.einsum("ni,ni->n", q, q)
    return (q * s[:, None])[:, _E_INDEX] * _E_SIGN


def _mT(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def _matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Batched small matrix product without BLAS (einsum; the box's BLAS is slow on 3×4)."""
    return np.einsum("...ij,...jk->...ik", a, b)


def _on_orientation(E: np.ndarray, v: np.ndarray) -> np.ndarray:
    """E·v: a generalized force v (…, 3) on the rotation angle as one on q (…, 4); with
    ∂(A·c)/∂q_k = E_k × (A·c), Dᵀν = E·((A·c) × ν). E (N, 4, 3), v (N, 3) or (N, m, 3)."""
    if v.ndim == 2:
        return np.einsum("nkj,nj->nk", E, v)
    return np.einsum("nkj,nmj->nmk", E, v)


def _sum_m(weights: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """Σ_m w_m v_m: (N, m) with (N, m, 3) -> (N, 3)."""
    return np.einsum("nm,nmi->ni", weights, vectors)


class PointOnPlane:
    """m point-on-plane constraints with normals n_l (N, m, 3) fixed in frame 1, the joint
    point at x1_l in frame 1 and x2_l in frame 2 (N, 3).

    ``fixed``: the normals are constant global directions instead (n = n_l, ∂n/∂q1 = 0).
    Three independent ones make the points coincide whatever frame they are fixed in:
    the spherical joint uses the global axes, so that its λ are the global components
    of the joint force."""

    def __init__(self, fr: Frames, n_l, x1_l, x2_l, fixed: bool = False):
        self.fr, self.n_l, self.x1_l, self.x2_l, self.fixed = fr, n_l, x1_l, x2_l, fixed
        self.n = n_l if fixed else fr.rotate(0, n_l)          # (N, m, 3)
        self.r1, self.r2 = fr.rotate(0, x1_l), fr.rotate(1, x2_l)
        self.s1 = fr.p[1] + self.r2 - fr.p[0]                  # P2 − p1
        self.d = self.s1 - self.r1                             # P2 − P1
        self.g = np.einsum("nmi,ni->nm", self.n, self.d)

    def _relative_velocity(self, v):
        """V2 + ω2 × r2 − V1 − ω1 × s1 of the velocities v (N, 26): W·v = n·(this)."""
        return v[:, V2] + cross(v[:, W2], self.r2) - v[:, V1] - cross(v[:, W1], self.s1)

    def rate(self, v):
        return np.einsum("nmi,ni->nm", self.n, self._relative_velocity(v))

    def force(self, lam):
        f = _sum_m(lam, self.n)                                # force on frame 2
        out = np.zeros((f.shape[0], NV2))
        out[:, V1], out[:, W1] = -f, -cross(self.s1, f)
        out[:, V2], out[:, W2] = f, cross(self.r2, f)
        return out

    def gradient_force(self, mu):
        fm = _sum_m(mu, self.n)
        E1, E2 = self.fr.E
        turn1 = -cross(self.r1, fm)                            # −D(x1)ᵀ·Σμn
        if not self.fixed:
            turn1 = turn1 + cross(fm, self.d)                  # + Σμ D(n)ᵀ·d
        out = np.zeros((fm.shape[0], NV2))
        out[:, P1], out[:, P2] = -fm, fm
        out[:, Q1], out[:, Q2] = _on_orientation(E1, turn1), _on_orientation(E2, cross(self.r2, fm))
        return out

    @property
    def W(self):
        n = self.n
        W = np.zeros(n.shape[:2] + (NV2,))
        W[:, :, V1], W[:, :, W1] = -n, -cross(self.s1[:, None, :], n)
        W[:, :, V2], W[:, :, W2] = n, cross(self.r2[:, None, :], n)
        return W

    @property
    def dg(self):
        n = self.n
        E1, E2 = self.fr.E
        turn1 = -cross(self.r1[:, None, :], n)
        if not self.fixed:
            turn1 = turn1 + cross(n, self.d[:, None, :])
        dg = np.zeros(n.shape[:2] + (NV2,))
        dg[:, :, P1], dg[:, :, P2] = -n, n
        dg[:, :, Q1] = _on_orientation(E1, turn1)
        dg[:, :, Q2] = _on_orientation(E2, cross(self.r2[:, None, :], n))
        return dg

    def rate_gradient(self, v):
        n = self.n
        E1, E2 = self.fr.E
        w1 = v[:, None, W1]
        out = np.zeros(n.shape[:2] + (NV2,))
        out[:, :, P1] = cross(n, w1)
        out[:, :, P2] = -out[:, :, P1]
        spin = cross(n, v[:, None, W2] - w1)                   # n × (ω2 − ω1)
        out[:, :, Q2] = _on_orientation(E2, cross(self.r2[:, None, :], spin))
        if not self.fixed:
            rel = self._relative_velocity(v)[:, None, :]
            out[:, :, Q1] = _on_orientation(E1, cross(n, rel))
        return out

    def row_rate(self, xdot):
        n, r2 = self.n, self.r2
        n_dot = 0.0 * n if self.fixed else cross(self.fr.spin(0, xdot)[:, None, :], n)
        r2_dot = cross(self.fr.spin(1, xdot), r2)
        s1_dot = xdot[:, P2] + r2_dot - xdot[:, P1]
        out = np.zeros(n.shape[:2] + (NV2,))
        out[:, :, V1], out[:, :, V2] = -n_dot, n_dot
        out[:, :, W1] = -cross(s1_dot[:, None, :], n) - cross(self.s1[:, None, :], n_dot)
        out[:, :, W2] = cross(r2_dot[:, None, :], n) + cross(r2[:, None, :], n_dot)
        return out

    def add_force_jacobian(self, out, lam, sign):
        fr = self.fr
        f = _sum_m(lam, self.n)
        sk_f = sign * skew(f)
        sk_f_D2x = _matmul(sk_f, fr.D(1, self.x2_l))
        out[:, W1, P1] -= sk_f
        out[:, W1, P2] += sk_f
        out[:, W1, Q2] += sk_f_D2x
        out[:, W2, Q2] -= sk_f_D2x
        if not self.fixed:
            Df = sign * fr.D(0, _sum_m(lam, self.n_l))         # ∂(Σλn)/∂q1
            out[:, V1, Q1] -= Df
            out[:, V2, Q1] += Df
            out[:, W1, Q1] -= _matmul(skew(self.s1), Df)
            out[:, W2, Q1] += _matmul(skew(self.r2), Df)

    def add_hessian(self, out, mu):
        fr = self.fr
        fm = _sum_m(mu, self.n)
        out[:, Q1, Q1] -= fr.D2(0, self.x1_l, fm)[:, 0]
        out[:, Q2, Q2] += fr.D2(1, self.x2_l, fm)[:, 0]
        if not self.fixed:
            n_mu = _sum_m(mu, self.n_l)
            Dn = fr.D(0, n_mu)                                 # Σμ ∂n/∂q1
            DnT = _mT(Dn)
            out[:, P1, Q1] -= Dn
            out[:, P2, Q1] += Dn
            out[:, Q1, P1] -= DnT
            out[:, Q1, P2] += DnT
            both = _matmul(DnT, fr.D(0, self.x1_l))
            out[:, Q1, Q1] += fr.D2(0, n_mu, self.d)[:, 0] - both - _mT(both)
            cross_block = _matmul(DnT, fr.D(1, self.x2_l))
            out[:, Q1, Q2] += cross_block
            out[:, Q2, Q1] += _mT(cross_block)


class Rotation:
    """m rotation restrictions a (fixed in frame 1) ⊥ b (fixed in frame 2), (N, m, 3) each."""

    def __init__(self, fr: Frames, a_l, b_l):
        self.fr, self.a_l, self.b_l = fr, a_l, b_l
        self.a, self.b = fr.rotate(0, a_l), fr.rotate(1, b_l)
        self.g = np.einsum("nmi,nmi->nm", self.a, self.b)
        self.c = cross(self.a, self.b)

    def rate(self, v):
        return np.einsum("nmi,ni->nm", self.c, v[:, W1] - v[:, W2])

    def force(self, lam):
        fc = _sum_m(lam, self.c)
        out = np.zeros((fc.shape[0], NV2))
        out[:, W1], out[:, W2] = fc, -fc
        return out

    def gradient_force(self, mu):
        fm = _sum_m(mu, self.c)
        E1, E2 = self.fr.E
        out = np.zeros((fm.shape[0], NV2))
        out[:, Q1], out[:, Q2] = _on_orientation(E1, fm), -_on_orientation(E2, fm)
        return out

    @property
    def W(self):
        W = np.zeros(self.c.shape[:2] + (NV2,))
        W[:, :, W1], W[:, :, W2] = self.c, -self.c
        return W

    @property
    def dg(self):
        E1, E2 = self.fr.E
        dg = np.zeros(self.c.shape[:2] + (NV2,))
        dg[:, :, Q1], dg[:, :, Q2] = _on_orientation(E1, self.c), -_on_orientation(E2, self.c)
        return dg

    def rate_gradient(self, v):
        E1, E2 = self.fr.E
        spin = (v[:, W1] - v[:, W2])[:, None, :]               # ω1 − ω2
        out = np.zeros(self.c.shape[:2] + (NV2,))
        out[:, :, Q1] = _on_orientation(E1, cross(self.a, cross(self.b, spin)))
        out[:, :, Q2] = _on_orientation(E2, cross(self.b, cross(spin, self.a)))
        return out

    def row_rate(self, xdot):
        a_dot = cross(self.fr.spin(0, xdot)[:, None, :], self.a)
        b_dot = cross(self.fr.spin(1, xdot)[:, None, :], self.b)
        c_dot = cross(a_dot, self.b) + cross(self.a, b_dot)
        out = np.zeros(self.c.shape[:2] + (NV2,))
        out[:, :, W1], out[:, :, W2] = c_dot, -c_dot
        return out

    def add_force_jacobian(self, out, lam, sign):
        fr = self.fr
        dc1 = -_matmul(skew(self.b), fr.D(0, self.a_l))       # ∂(a × b)/∂q1 (N, m, 3, 4)
        dc2 = _matmul(skew(self.a), fr.D(1, self.b_l))        # ∂(a × b)/∂q2
        C1, C2 = (sign * np.einsum("nm,nmik->nik", lam, dc) for dc in (dc1, dc2))
        out[:, W1, Q1] += C1
        out[:, W1, Q2] += C2
        out[:, W2, Q1] -= C1
        out[:, W2, Q2] -= C2

    def add_hessian(self, out, mu):
        fr = self.fr
        w = mu[:, :, None]
        out[:, Q1, Q1] += fr.D2(0, self.a_l, w * self.b).sum(axis=1)
        out[:, Q2, Q2] += fr.D2(1, self.b_l, w * self.a).sum(axis=1)
        cross_block = np.einsum("nm,nmik,nmil->nkl", mu, fr.D(0, self.a_l),
                                fr.D(1, self.b_l))
        out[:, Q1, Q2] += cross_block
        out[:, Q2, Q1] += _mT(cross_block)


class AxialRotation:
    """Relative angular velocity about axes n_l (N, m, 3) fixed in frame ``frame`` (0:
    frame 1, 1: frame 2): W·u = (ω2 − ω1)·n. The rows of a rotational flange (no
    position-level g)."""

    def __init__(self, fr: Frames, n_l, frame: int = 0):
        self.fr, self.n_l, self.frame = fr, n_l, frame
        self.n = fr.rotate(frame, n_l)
        self.Q = (Q1, Q2)[frame]

    def rate(self, v):
        return np.einsum("nmi,ni->nm", self.n, v[:, W2] - v[:, W1])

    def force(self, lam):
        f = _sum_m(lam, self.n)
        out = np.zeros((f.shape[0], NV2))
        out[:, W1], out[:, W2] = -f, f
        return out

    @property
    def W(self):
        W = np.zeros(self.n.shape[:2] + (NV2,))
        W[:, :, W1], W[:, :, W2] = -self.n, self.n
        return W

    def rate_gradient(self, v):
        E = self.fr.E[self.frame]
        out = np.zeros(self.n.shape[:2] + (NV2,))
        out[:, :, self.Q] = _on_orientation(E, cross(self.n, (v[:, W2] - v[:, W1])[:, None, :]))
        return out

    def row_rate(self, xdot):
        n_dot = cross(self.fr.spin(self.frame, xdot)[:, None, :], self.n)
        out = np.zeros(self.n.shape[:2] + (NV2,))
        out[:, :, W1], out[:, :, W2] = -n_dot, n_dot
        return out

    def add_force_jacobian(self, out, lam, sign):
        Df = sign * self.fr.D(self.frame, _sum_m(lam, self.n_l))
        out[:, W1, self.Q] -= Df
        out[:, W2, self.Q] += Df


def relative_angle(fr: Frames, n_l, ref1_l, ref2_l) -> np.ndarray:
    """Rotation angle of frame 2 relative to frame 1 about the axis n (fixed in frame 1),
    from a reference direction fixed in each frame (equal at t = 0), in (−π, π]."""
    n = fr.rotate(0, n_l)
    u1, u2 = fr.rotate(0, ref1_l), fr.rotate(1, ref2_l)
    return np.arctan2(np.einsum("...i,...i->...", cross(u1, u2), n),
                      np.einsum("...i,...i->...", u1, u2))
