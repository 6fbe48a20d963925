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

All functions take the 26 local variables of the two frame ports, x (N, 26) in
FRAME_VARS order per frame, and constant local vectors of shape (N, m, 3) for m
primitives of the same kind; they return, per primitive,

    g (N, m), dg (N, m, 26)        value and gradient (non-zero on p, q only)
    W (N, m, 26)                   velocity row (non-zero on V, ω only)
    dW (N, m, 26, 26)              ∂W/∂x (on p, q columns)
    H (N, m, 26, 26)               Hessian of g (for stabilised position constraints)

D(c) = ∂(A·c)/∂q (3×4) and D2(c, w) = Σ_i w_i ∂²(A·c)_i/∂q² (4×4) come from the
quaternion module.
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
        self.A = tuple(quaternion.dcm(q) for q in self.q)
        self._E = self._d2A = None

    @property
    def E(self):
        """Columns of 2·E(q)/|q|² (N, 4, 3): ∂θ/∂q_k of the global rotation angle, so that
        ∂(A·c)/∂q_k = (2E/|q|²)_k × (A·c) (A = dcm(q/|q|); E·q = 0)."""
        if self._E is None:
            out = []
            for q in self.q:
                q0, q1, q2, q3 = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
                E = np.stack([np.stack([-q1, -q2, -q3], -1), np.stack([q0, q3, -q2], -1),
                              np.stack([-q3, q0, q1], -1), np.stack([q2, -q1, q0], -1)], 1)
                out.append(E * (2.0 / np.sum(q * q, axis=1))[:, None, None])
            self._E = tuple(out)
        return self._E

    @property
    def d2A(self):
        if self._d2A is None:
            self._d2A = tuple(quaternion.dcm_d2q(q) for q in self.q)
        return self._d2A

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
        """Σ_j w_j ∂²(A_i·c)_j/∂q_i²: (N, m, 4, 4); c, w each (N, 3) or (N, m, 3)."""
        c = c if c.ndim == 3 else c[:, None, :]
        w = w if w.ndim == 3 else w[:, None, :]
        return np.einsum("nijkl,nmj,nmi->nmkl", self.d2A[i], c, w)


def _mT(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def _matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Batched small matrix product without BLAS (einsum; the box's BLAS is slow on 3×4)."""
    return np.einsum("...ij,...jk->...ik", a, b)


def point_on_plane(fr: Frames, n_l, x1_l, x2_l, level: int = 2, fixed: bool = False):
    """Point-on-plane constraints with normals n_l (N, m, 3) fixed in frame 1, joint
    point at x1_l in frame 1 and x2_l in frame 2 (N, 3). Returns g, dg, W, dW, H;
    ``level`` 0: g and W only (the others None), 1: also dg, 2: also dW, 3: also H.

    ``fixed``: the normals are constant global directions instead (n = n_l, ∂n/∂q1 = 0).
    Three independent ones make the points coincide whatever frame they are fixed in:
    the spherical joint uses the global axes, so that its λ are the global components
    of the joint force."""
    N, m = n_l.shape[:2]
    ng = n_l if fixed else fr.rotate(0, n_l)         # (N, m, 3)
    r1, r2 = fr.rotate(0, x1_l), fr.rotate(1, x2_l)  # (N, 3)
    s1 = fr.p[1] + r2 - fr.p[0]                      # P2 − p1
    d = s1 - r1                                      # P2 − P1
    g = np.einsum("nmi,ni->nm", ng, d)
    W = np.zeros((N, m, NV2))
    W[:, :, V1] = -ng
    W[:, :, W1] = -cross(s1[:, None, :], ng)
    W[:, :, V2] = ng
    W[:, :, W2] = cross(r2[:, None, :], ng)
    if level < 1:
        return g, None, W, None, None

    D1n = None if fixed else fr.D(0, n_l)            # ∂n/∂q1 (N, m, 3, 4); 0 if fixed
    D1x = fr.D(0, x1_l)                              # (N, 3, 4)
    D2x = fr.D(1, x2_l)
    dg = np.zeros((N, m, NV2))
    dg[:, :, P1] = -ng
    dg[:, :, Q1] = -np.einsum("nik,nmi->nmk", D1x, ng)
    if not fixed:
        dg[:, :, Q1] += np.einsum("nmik,ni->nmk", D1n, d)
    dg[:, :, P2] = ng
    dg[:, :, Q2] = np.einsum("nik,nmi->nmk", D2x, ng)
    if level < 2:
        return g, dg, W, None, None

    dW = np.zeros((N, m, NV2, NV2))
    sk_n = skew(ng)                                  # (N, m, 3, 3)
    sk_n_D2x = np.einsum("nmij,njk->nmik", sk_n, D2x)
    dW[:, :, W1, P2] = sk_n
    dW[:, :, W1, P1] = -sk_n
    dW[:, :, W1, Q2] = sk_n_D2x
    dW[:, :, W2, Q2] = -sk_n_D2x
    if not fixed:
        dW[:, :, V1, Q1] = -D1n
        dW[:, :, W1, Q1] = -np.einsum("nij,nmjk->nmik", skew(s1), D1n)   # W = n × s1
        dW[:, :, V2, Q1] = D1n
        dW[:, :, W2, Q1] = np.einsum("nij,nmjk->nmik", skew(r2), D1n)    # W = r2 × n

    if level < 3:
        return g, dg, W, dW, None
    H = np.zeros((N, m, NV2, NV2))
    H[:, :, Q1, Q1] = -fr.D2(0, x1_l, ng)
    if not fixed:
        D1nT = _mT(D1n)
        H[:, :, P1, Q1] = -D1n
        H[:, :, P2, Q1] = D1n
        H[:, :, Q1, P1] = -D1nT
        H[:, :, Q1, P2] = D1nT
        cross_terms = _matmul(D1nT, D1x[:, None])     # D1nᵀ·D1x (N, m, 4, 4)
        H[:, :, Q1, Q1] += fr.D2(0, n_l, d) - cross_terms - _mT(cross_terms)
        H[:, :, Q1, Q2] = _matmul(D1nT, D2x[:, None])
        H[:, :, Q2, Q1] = _mT(H[:, :, Q1, Q2])
    H[:, :, Q2, Q2] = fr.D2(1, x2_l, ng)
    return g, dg, W, dW, H


def rotation(fr: Frames, a_l, b_l, level: int = 2):
    """Rotation restrictions a (fixed in frame 1) ⊥ b (fixed in frame 2), (N, m, 3)
    each. Returns g, dg, W, dW, H like point_on_plane."""
    N, m = a_l.shape[:2]
    ag, bg = fr.rotate(0, a_l), fr.rotate(1, b_l)
    g = np.einsum("nmi,nmi->nm", ag, bg)
    c = cross(ag, bg)
    W = np.zeros((N, m, NV2))
    W[:, :, W1] = c
    W[:, :, W2] = -c
    if level < 1:
        return g, None, W, None, None
    D1a, D2b = fr.D(0, a_l), fr.D(1, b_l)
    dg = np.zeros((N, m, NV2))
    dg[:, :, Q1] = np.einsum("nmik,nmi->nmk", D1a, bg)
    dg[:, :, Q2] = np.einsum("nmik,nmi->nmk", D2b, ag)
    if level < 2:
        return g, dg, W, None, None
    dW = np.zeros((N, m, NV2, NV2))
    dc1 = -_matmul(skew(bg), D1a)                    # ∂(a × b)/∂q1
    dc2 = _matmul(skew(ag), D2b)                     # ∂(a × b)/∂q2
    dW[:, :, W1, Q1], dW[:, :, W1, Q2] = dc1, dc2
    dW[:, :, W2, Q1], dW[:, :, W2, Q2] = -dc1, -dc2
    if level < 3:
        return g, dg, W, dW, None
    H = np.zeros((N, m, NV2, NV2))
    H[:, :, Q1, Q1] = fr.D2(0, a_l, bg)
    H[:, :, Q1, Q2] = _matmul(_mT(D1a), D2b)
    H[:, :, Q2, Q1] = _mT(H[:, :, Q1, Q2])
    H[:, :, Q2, Q2] = fr.D2(1, b_l, ag)
    return g, dg, W, dW, H


def axial_rotation(fr: Frames, n_l, level: int = 2):
    """Relative angular velocity about an axis n_l (N, m, 3) fixed in frame 1:
    (ω2 − ω1)·n = W·u. Returns W, dW (None below ``level`` 2)."""
    N, m = n_l.shape[:2]
    ng = fr.rotate(0, n_l)
    W = np.zeros((N, m, NV2))
    W[:, :, W1], W[:, :, W2] = -ng, ng
    if level < 2:
        return W, None
    D1n = fr.D(0, n_l)
    dW = np.zeros((N, m, NV2, NV2))
    dW[:, :, W1, Q1], dW[:, :, W2, Q1] = -D1n, D1n
    return W, dW


def relative_angle(fr: Frames, n_l, ref1_l, ref2_l) -> np.ndarray:
    """Rotation angle of frame 2 relative to frame 1 about the axis n (fixed in frame 1),
    from a reference direction fixed in each frame (equal at t = 0), in (−π, π]."""
    n = fr.rotate(0, n_l)
    u1, u2 = fr.rotate(0, ref1_l), fr.rotate(1, ref2_l)
    return np.arctan2(np.einsum("...i,...i->...", cross(u1, u2), n),
                      np.einsum("...i,...i->...", u1, u2))


def velocity_gradient(W, dW, x26):
    """∂(W·u)/∂x = W + uᵀ·∂W/∂x: the gradient of a velocity row (N, m, 26)."""
    return W + np.einsum("nmij,ni->nmj", dW, x26)
