"""Unit-quaternion helpers, vectorized over leading axes (q = (q0, q1, q2, q3), local→global)."""
import numpy as np


def _numerator_entries(q: np.ndarray) -> np.ndarray:
    """The bracketed matrix of conventions.md §3 (the usual quaternion matrix with −1
    written as −|q|² on the diagonal), entry by entry: a homogeneous quadratic N(q) with
    N = |q|²·R(q/|q|)."""
    q0, q1, q2, q3 = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    N = np.empty(np.shape(q)[:-1] + (3, 3))
    N[..., 0, 0] = q0 * q0 + q1 * q1 - q2 * q2 - q3 * q3
    N[..., 0, 1] = 2 * (q1 * q2 - q0 * q3)
    N[..., 0, 2] = 2 * (q1 * q3 + q0 * q2)
    N[..., 1, 0] = 2 * (q1 * q2 + q0 * q3)
    N[..., 1, 1] = q0 * q0 - q1 * q1 + q2 * q2 - q3 * q3
    N[..., 1, 2] = 2 * (q2 * q3 - q0 * q1)
    N[..., 2, 0] = 2 * (q1 * q3 - q0 * q2)
    N[..., 2, 1] = 2 * (q2 * q3 + q0 * q1)
    N[..., 2, 2] = q0 * q0 - q1 * q1 - q2 * q2 + q3 * q3
    return N


# N(q) = Σ_kl q_k q_l C_kl: the coefficients as a (16, 9) matrix, so that N of many
# quaternions is one matrix product of their outer products (3x fewer numpy calls)
_E4 = np.eye(4)
_NUMERATOR_COEFFS = np.array([
    (_numerator_entries(_E4[k] + _E4[l]) - _numerator_entries(_E4[k])
     - _numerator_entries(_E4[l])) / 2 if k != l else _numerator_entries(_E4[k])
    for k in range(4) for l in range(4)]).reshape(16, 9)


def _floating(q) -> np.ndarray:
    """q as a float array, or a complex one when it is complex (complex-step Jacobians)."""
    q = np.asarray(q)
    return q.astype(np.result_type(q.dtype, float), copy=False)


# the 16 products q_k·q_l (k, l row-major) gathered at once: fewer numpy calls than the
# broadcast outer product, and half the time at 1e3 quaternions
_K, _L = np.divmod(np.arange(16), 4)
_SQUARES = (0, 5, 10, 15)            # q0², q1², q2², q3² among them


def _products(q: np.ndarray) -> np.ndarray:
    return q[..., _K] * q[..., _L]


def _numerator(q: np.ndarray, products=None) -> np.ndarray:
    """N(q) (…, 3, 3) of ``_numerator_entries``, as qqᵀ·C (complex q kept complex)."""
    q = _floating(q)
    qq = _products(q) if products is None else products
    return (qq.reshape(-1, 16) @ _NUMERATOR_COEFFS).reshape(q.shape[:-1] + (3, 3))


def _numerator_dq(q: np.ndarray) -> np.ndarray:
    """dN_ij/dq_k (…,3,3,4); linear in q."""
    q0, q1, q2, q3 = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    D = np.zeros(np.shape(q)[:-1] + (3, 3, 4))
    D[..., 0, 0, :] = np.stack([2 * q0, 2 * q1, -2 * q2, -2 * q3], axis=-1)
    D[..., 1, 1, :] = np.stack([2 * q0, -2 * q1, 2 * q2, -2 * q3], axis=-1)
    D[..., 2, 2, :] = np.stack([2 * q0, -2 * q1, -2 * q2, 2 * q3], axis=-1)
    D[..., 0, 1, 1], D[..., 0, 1, 2], D[..., 0, 1, 0], D[..., 0, 1, 3] = 2 * q2, 2 * q1, -2 * q3, -2 * q0
    D[..., 0, 2, 1], D[..., 0, 2, 3], D[..., 0, 2, 0], D[..., 0, 2, 2] = 2 * q3, 2 * q1, 2 * q2, 2 * q0
    D[..., 1, 0, 1], D[..., 1, 0, 2], D[..., 1, 0, 0], D[..., 1, 0, 3] = 2 * q2, 2 * q1, 2 * q3, 2 * q0
    D[..., 1, 2, 2], D[..., 1, 2, 3], D[..., 1, 2, 0], D[..., 1, 2, 1] = 2 * q3, 2 * q2, -2 * q1, -2 * q0
    D[..., 2, 0, 1], D[..., 2, 0, 3], D[..., 2, 0, 0], D[..., 2, 0, 2] = 2 * q3, 2 * q1, -2 * q2, -2 * q0
    D[..., 2, 1, 2], D[..., 2, 1, 3], D[..., 2, 1, 0], D[..., 2, 1, 1] = 2 * q3, 2 * q2, 2 * q1, 2 * q0
    return D


# d²N_ij/dq_k dq_l (3,3,4,4): constant, N being quadratic.
NUMERATOR_D2Q = np.stack([_numerator_dq(e) for e in np.eye(4)], axis=-1)


def dcm(q: np.ndarray) -> np.ndarray:
    """Direction-cosine matrix A (…,3,3), local → global, of the rotation q/|q|.

    On the unit sphere it is the usual quaternion matrix (conventions.md §3); off it
    (between projections, or as the Newton iterates wander) it is still an exact
    rotation, so rescaling q — the |q| projection after each step — moves no body and no
    joint arm. A complex q stays complex (the beam's complex-step Jacobian)."""
    q = _floating(q)
    qq = _products(q)
    a, b, c, d = (qq[..., k] for k in _SQUARES)
    return _numerator(q, qq) / (a + b + c + d)[..., None, None]        # N / |q|²


def dcm_dq(q: np.ndarray) -> np.ndarray:
    """dA_ij/dq_k (…,3,3,4) of dcm(q): dN_k/s − 2 q_k N/s², s = |q|²."""
    q = np.asarray(q, dtype=float)
    s = np.sum(q * q, axis=-1)[..., None, None, None]
    N = _numerator(q)[..., None]
    return _numerator_dq(q) / s - 2 * q[..., None, None, :] * N / s ** 2


def dcm_d2q(q: np.ndarray) -> np.ndarray:
    """d²A_ij/dq_k dq_l (…,3,3,4,4) of dcm(q): the full tensor, which the joints no longer
    form (constraints.Frames.D2 contracts it in closed form); kept as the reference
    that D2 is tested against."""
    q = np.asarray(q, dtype=float)
    s = np.sum(q * q, axis=-1)[..., None, None, None, None]
    N = _numerator(q)[..., None, None]
    dN = _numerator_dq(q)
    qk = q[..., None, None, :, None]
    ql = q[..., None, None, None, :]
    delta = np.eye(4)
    return (NUMERATOR_D2Q / s
            - 2 * ql * dN[..., :, None] / s ** 2 - 2 * qk * dN[..., None, :] / s ** 2
            - 2 * delta * N / s ** 2 + 8 * qk * ql * N / s ** 3)


def normalise(q: np.ndarray) -> np.ndarray:
    """q / |q| (…,4); the sign is kept (q and −q are the same rotation). |q| is summed
    as np.linalg.norm sums it (the same numbers), without its checks (a step's cost)."""
    q = np.asarray(q, dtype=float)
    return q / np.sqrt(np.add.reduce(q * q, axis=-1, keepdims=True))


def multiply(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hamilton product p ⊗ q (…,4); dcm(p ⊗ q) = dcm(p) @ dcm(q)."""
    p0, pv = np.asarray(p, dtype=float)[..., :1], np.asarray(p, dtype=float)[..., 1:]
    q0, qv = np.asarray(q, dtype=float)[..., :1], np.asarray(q, dtype=float)[..., 1:]
    scalar = p0 * q0 - np.sum(pv * qv, axis=-1, keepdims=True)
    return np.concatenate([scalar, p0 * qv + q0 * pv + np.cross(pv, qv)], axis=-1)


def from_axis_angle(axis: np.ndarray, angle) -> np.ndarray:
    """Unit quaternion (…,4) of a rotation by ``angle`` (rad) about ``axis`` (…,3, any length > 0)."""
    u = np.asarray(axis, dtype=float)
    u = u / np.linalg.norm(u, axis=-1, keepdims=True)
    half = 0.5 * np.asarray(angle, dtype=float)[..., None]
    return np.concatenate([np.cos(half), np.sin(half) * u], axis=-1)


def from_euler(phi, theta, psi) -> np.ndarray:
    """Unit quaternion of z-y-x intrinsic angles (yaw psi, pitch theta, roll phi; rad):
    dcm = Rz(psi) @ Ry(theta) @ Rx(phi)."""
    ex, ey, ez = np.eye(3)
    return multiply(multiply(from_axis_angle(ez, psi), from_axis_angle(ey, theta)),
                    from_axis_angle(ex, phi))


def omega_matrix(q: np.ndarray) -> np.ndarray:
    """L(q) (…,4,3) with q ⊗ (0, w) = L(q) @ w (linear in q)."""
    q0, q1, q2, q3 = np.moveaxis(np.asarray(q, dtype=float), -1, 0)
    L = np.empty(np.shape(q)[:-1] + (4, 3))
    L[..., 0, :] = np.stack([-q1, -q2, -q3], axis=-1)
    L[..., 1, :] = np.stack([q0, -q3, q2], axis=-1)
    L[..., 2, :] = np.stack([q3, q0, -q1], axis=-1)
    L[..., 3, :] = np.stack([-q2, q1, q0], axis=-1)
    return L


# dL_ij/dq_k (4,3,4): L is linear in q, so its derivative is a constant array.
OMEGA_MATRIX_DQ = np.stack([omega_matrix(e) for e in np.eye(4)], axis=-1)

