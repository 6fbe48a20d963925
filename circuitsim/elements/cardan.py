"""Joint angles read from the relative rotation of a joint's two frames (the universal
joint's two Cardan angles, the ball joint's three x-y-z angles), their gradients by the
quaternions, and the miss of a full orientation target, for the start-up and the outputs.

A joint fixes an orthonormal basis C = (c1, c2, c3) (global, as drawn at t = 0) in each
frame: B_i = A_i(0)ᵀ·C, the same three directions as frame i's local vectors. The
relative rotation of frame 2 to frame 1 with respect to the drawn pose, in that basis,

    (1) R = B1ᵀ·A1ᵀ·A2·B2,  R_ij = u_i·v_j,  u_i = A1·B1_i (fixed in frame 1),
        v_j = A2·B2_j (fixed in frame 2); R = I as drawn.

Cardan angles about c1, then c2, then c3 (each turned by the rotations before it):

    (2) R = Rx(a1)·Ry(a2)·Rz(a3)
        a2 = atan2(R13, sqrt(R11² + R12²))     in [−π/2, π/2]
        a1 = atan2(−R23, R33), a3 = atan2(−R12, R11)   in (−π, π]
    (3) singular set cos a2 = 0 (a2 = ±π/2: a1 and a3 turn about the same axis, only
        a1 ± a3 is defined): there (cos a2 < SINGULAR) a3 = 0 and
        a1 = atan2(R32, R22) (= a1 ± a3); no NaN anywhere.
    (4) two angles (a3 = 0, the universal joint: R12 = c1·R·c2 = 0 by its constraint):
        a1 = atan2(R32, R22), a2 = atan2(R13, R11), defined at every pose.

Gradients: a small rotation δ_i of frame i turns u (v) by δ1 × u (δ2 × v), so
dR_ij = (δ1 − δ2)·(u_i × v_j); through quaternion q_i, ∂θ/∂q_i = E_i (Frames.E):
∂R_ij/∂q1 = E1·(u_i × v_j), ∂R_ij/∂q2 = −E2·(u_i × v_j).
"""
import numpy as np

from .constraints import NV2, Q1, Q2, Frames
from .frames import cross

# cos a2 below this: the x-y-z angles are on their singular set (3); an output there
# is exact to ~1e-16/SINGULAR rad in a1 ± a3
SINGULAR = 1e-9


def basis_pair(A1: np.ndarray, A2: np.ndarray, C: np.ndarray) -> tuple:
    """(B1, B2) = (A1ᵀ·C, A2ᵀ·C): the basis C (columns, global at t = 0) as local
    vectors of frames 1 and 2, for frame rotations A1, A2 at t = 0."""
    return A1.T @ C, A2.T @ C


def relative_rotation(fr: Frames, B1: np.ndarray, B2: np.ndarray) -> tuple:
    """(R, u, v) of (1): R (N, 3, 3); u, v (N, 3, 3) with u[:, i] = u_i (global)."""
    u = np.einsum("nij,njk->nki", fr.A[0], B1)
    v = np.einsum("nij,njk->nki", fr.A[1], B2)
    return np.einsum("nik,njk->nij", u, v), u, v


def _atan2_partials(y, x):
    """∂atan2(y, x)/∂y and ∂/∂x, 0 where y = x = 0."""
    d = y * y + x * x
    safe = np.where(d > 0, d, 1.0)
    return np.where(d > 0, x / safe, 0.0), np.where(d > 0, -y / safe, 0.0)


def xyz_angles(R: np.ndarray) -> tuple:
    """(2), (3): angles (N, 3) and their partials by R (N, 3, 3, 3)."""
    N = R.shape[0]
    h = np.hypot(R[:, 0, 0], R[:, 0, 1])
    singular = h < SINGULAR
    dR = np.zeros((N, 3, 3, 3))
    a2 = np.arctan2(R[:, 0, 2], h)
    gy, gh = _atan2_partials(R[:, 0, 2], h)
    hs = np.where(singular, 1.0, h)
    dR[:, 1, 0, 2] = gy
    dR[:, 1, 0, 0] = np.where(singular, 0.0, gh * R[:, 0, 0] / hs)
    dR[:, 1, 0, 1] = np.where(singular, 0.0, gh * R[:, 0, 1] / hs)
    a1 = np.where(singular, np.arctan2(R[:, 2, 1], R[:, 1, 1]),
                  np.arctan2(-R[:, 1, 2], R[:, 2, 2]))
    a3 = np.where(singular, 0.0, np.arctan2(-R[:, 0, 1], R[:, 0, 0]))
    gy, gx = _atan2_partials(-R[:, 1, 2], R[:, 2, 2])
    sy, sx = _atan2_partials(R[:, 2, 1], R[:, 1, 1])
    dR[:, 0, 1, 2], dR[:, 0, 2, 2] = np.where(singular, 0.0, -gy), np.where(singular, 0.0, gx)
    dR[:, 0, 2, 1], dR[:, 0, 1, 1] = np.where(singular, sy, 0.0), np.where(singular, sx, 0.0)
    gy, gx = _atan2_partials(-R[:, 0, 1], R[:, 0, 0])
    dR[:, 2, 0, 1], dR[:, 2, 0, 0] = np.where(singular, 0.0, -gy), np.where(singular, 0.0, gx)
    return np.stack([a1, a2, a3], axis=1), dR


def cardan_angles(R: np.ndarray) -> tuple:
    """(4): angles (N, 2) and their partials by R (N, 2, 3, 3)."""
    N = R.shape[0]
    dR = np.zeros((N, 2, 3, 3))
    dR[:, 0, 2, 1], dR[:, 0, 1, 1] = _atan2_partials(R[:, 2, 1], R[:, 1, 1])
    dR[:, 1, 0, 2], dR[:, 1, 0, 0] = _atan2_partials(R[:, 0, 2], R[:, 0, 0])
    angles = np.stack([np.arctan2(R[:, 2, 1], R[:, 1, 1]),
                       np.arctan2(R[:, 0, 2], R[:, 0, 0])], axis=1)
    return angles, dR


def gradients(fr: Frames, u, v, dR: np.ndarray) -> np.ndarray:
    """∂(angles)/∂x (N, k, 26) from their partials by R (N, k, 3, 3): the chain rule
    through dR_ij of the module docstring (non-zero on q1, q2 only)."""
    c = np.einsum("nkij,nijl->nkl", dR, cross(u[:, :, None, :], v[:, None, :, :]))
    out = np.zeros(dR.shape[:2] + (NV2,))
    out[:, :, Q1] = np.einsum("nqj,nkj->nkq", fr.E[0], c)
    out[:, :, Q2] = -np.einsum("nqj,nkj->nkq", fr.E[1], c)
    return out


def xyz_matrix(angles: np.ndarray) -> np.ndarray:
    """Rx(a1)·Ry(a2)·Rz(a3) (N, 3, 3) of (2)."""
    c, s = np.cos(angles), np.sin(angles)
    one, zero = np.ones(len(angles)), np.zeros(len(angles))
    rx = np.array([[one, zero, zero], [zero, c[:, 0], -s[:, 0]], [zero, s[:, 0], c[:, 0]]])
    ry = np.array([[c[:, 1], zero, s[:, 1]], [zero, one, zero], [-s[:, 1], zero, c[:, 1]]])
    rz = np.array([[c[:, 2], -s[:, 2], zero], [s[:, 2], c[:, 2], zero], [zero, zero, one]])
    return np.einsum("ijn,jkn,kln->nil", rx, ry, rz)


def orientation_miss(fr: Frames, u, v, R: np.ndarray, T: np.ndarray) -> tuple:
    """The miss of a full orientation target T (N, 3, 3): r = log(Tᵀ·R) (N, 3), the
    rotation vector from the target to the relative rotation (zero exactly at the
    target, defined at every target, the singular set of (3) included), and ∂r/∂x
    (N, 3, 26) taken as Tᵀ·(rotation of frame 2 relative to frame 1 in the basis): the
    log map's Jacobian is the identity at r = 0, so Gauss–Newton keeps its quadratic
    convergence there. A small rotation ε (basis coordinates, ε = uᵀ·(δ2 − δ1)) turns
    R into (I + [ε])·R and Tᵀ·R into (I + [Tᵀε])·Tᵀ·R."""
    from scipy.spatial.transform import Rotation      # start-up only
    r = Rotation.from_matrix(np.einsum("nji,njk->nik", T, R)).as_rotvec()
    G = np.einsum("nji,njl->nil", T, u)               # Tᵀ·U: ∂r/∂(δ2 − δ1)
    out = np.zeros((len(r), 3, NV2))
    out[:, :, Q1] = -np.einsum("nqj,nkj->nkq", fr.E[0], G)
    out[:, :, Q2] = np.einsum("nqj,nkj->nkq", fr.E[1], G)
    return r, out
