"""The joint framework's residual and Jacobian in the run form of its three models
(joint.py (1)-(4), (6), (7) with the primitives of constraints.py), for any joint type
built from it without added terms, as compiled loops over the joints, equal to the
numpy reference to rounding. Each joint's rows are first written out per instance as
26-wide rows (``_geometry``): W (velocity rows), ∂(W·u)/∂x at the current u, ∂g/∂x and
g, for the m constraints then the flanges; the equations are contractions of these.
Imported only when the compiled kernels are in use (it imports numba)."""
import numpy as np
from numba import njit

from .body import _dcm
from .spherical import HALF_NUMERATOR_D2Q, _angle_rows, _cross, _hessian, _rotate

NV2 = 26                                   # the two frames' variables
# the kernels' types for the extension built ahead of time (ahead.py): pp_n, x1, x2,
# rot_a, rot_b, axes, kappa, damp, active, kinds, npp, global_normals, model after x (and
# x' for the residual) -> F or dF/dx
_ARGS = ("f3", "f2", "f2", "f3", "f3", "f3", "f2", "f2", "f2", "i1", "i", "b", "i")
EXPORTS = {"residual": ("f2", ("f2*", "f2*") + _ARGS), "jacobian": ("f3", ("f2*",) + _ARGS)}
VELOCITY, POSITION, ELASTIC = 0, 1, 2      # the models (joint.MODELS order)
ROT, TRANS, ROT2 = 0, 1, 2                 # the flange kinds (ROT2: axis fixed in frame 2)
# rows of the per-instance vector scratch: the arms and velocities, then temporaries
R1, R2, S1, D, REL, W21, T1, T2, T3, F, FQ, FA, FB = range(13)


@njit(cache=True)
def _orient(E, v, row, col):
    """row[col:col + 4] = E·v: a generalized force v on the rotation angle as one on q."""
    for k in range(4):
        row[col + k] = E[k, 0] * v[0] + E[k, 1] * v[1] + E[k, 2] * v[2]


@njit(cache=True)
def _point_row(j, n, fixed, vec, E1, E2, w1, W, G, dG, g, with_g):
    """Point-on-plane row j, normal n (global): W = (−n, −s1 × n, n, r2 × n),
    ∂(W·u)/∂x (n × ω1 on p1, −n × ω1 on p2, E2·(r2 × (n × (ω2 − ω1))) on q2,
    E1·(n × rel) on q1 for a normal fixed in frame 1), g = n·d and ∂g/∂x."""
    t, u, v = vec[T1], vec[T2], vec[T3]
    _cross(vec[S1], n, t)
    _cross(vec[R2], n, u)
    _cross(n, w1, v)
    for i in range(3):
        W[j, i], W[j, 3 + i], W[j, 13 + i], W[j, 16 + i] = -n[i], -t[i], n[i], u[i]
        G[j, 6 + i], G[j, 19 + i] = v[i], -v[i]
    if with_g:
        _orient(E2, u, dG[j], 22)                              # E2·(r2 × n)
        _cross(vec[R1], n, t)
        _cross(n, vec[D], v)
        for i in range(3):
            dG[j, 6 + i], dG[j, 19 + i] = -n[i], n[i]
            t[i] = -t[i] + (0.0 if fixed else v[i])            # −r1 × n (+ n × d)
        _orient(E1, t, dG[j], 9)
        g[j] = n[0] * vec[D, 0] + n[1] * vec[D, 1] + n[2] * vec[D, 2]
    _cross(n, vec[W21], t)
    _cross(vec[R2], t, u)
    _orient(E2, u, G[j], 22)
    if not fixed:
        _cross(n, vec[REL], t)
        _orient(E1, t, G[j], 9)


@njit(cache=True)
def _rotation_row(j, a, b, vec, E1, E2, W, G, dG, g):
    """Rotation restriction row j, a ⊥ b (global), c = a × b: W = (0, c, 0, −c),
    ∂(W·u)/∂x = E1·(a × (b × σ)) on q1, E2·(b × (σ × a)) on q2 (σ = ω1 − ω2),
    g = a·b, ∂g/∂x = (E1·c, −E2·c) on q1, q2."""
    c, t, u = vec[T1], vec[T2], vec[T3]
    _cross(a, b, c)
    for i in range(3):
        W[j, 3 + i], W[j, 16 + i] = c[i], -c[i]
    _orient(E1, c, dG[j], 9)
    _orient(E2, c, dG[j], 22)
    for k in range(4):
        dG[j, 22 + k] = -dG[j, 22 + k]
    g[j] = a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    for i in range(3):
        c[i] = -vec[W21, i]                                    # σ = ω1 − ω2
    _cross(b, c, t)
    _cross(a, t, u)
    _orient(E1, u, G[j], 9)
    _cross(c, a, t)
    _cross(b, t, u)
    _orient(E2, u, G[j], 22)


@njit(cache=True)
def _geometry(x, k, pp_n, x1, x2, rot_a, rot_b, axes, kinds, npp, global_normals,
              A1, A2, E1, E2, vec, dirs, ab, W, G, dG, g):
    """Instance k's arms (``vec``), the global directions of its rows (``dirs``: the
    points' normals, the flange axes; ``ab``: a, b of the rotations) and its rows
    W, ∂(W·u)/∂x, ∂g/∂x, g (``_point_row``, ``_rotation_row``, the flanges)."""
    q1, q2 = x[k, 9:13], x[k, 22:26]
    _dcm(q1, q1[0] * q1[0] + q1[1] * q1[1] + q1[2] * q1[2] + q1[3] * q1[3], A1)
    _dcm(q2, q2[0] * q2[0] + q2[1] * q2[1] + q2[2] * q2[2] + q2[3] * q2[3], A2)
    _angle_rows(q1, E1)
    _angle_rows(q2, E2)
    _rotate(A1, x1[k], vec[R1])
    _rotate(A2, x2[k], vec[R2])
    w1 = x[k, 3:6]
    _cross(x[k, 16:19], vec[R2], vec[T1])
    for i in range(3):
        vec[S1, i] = x[k, 19 + i] + vec[R2, i] - x[k, 6 + i]    # P2 − p1
        vec[D, i] = vec[S1, i] - vec[R1, i]                     # P2 − P1
        vec[W21, i] = x[k, 16 + i] - x[k, 3 + i]                # ω2 − ω1
    _cross(w1, vec[S1], vec[T2])
    for i in range(3):                                          # V2 + ω2 × r2 − V1 − ω1 × s1
        vec[REL, i] = x[k, 13 + i] + vec[T1, i] - x[k, i] - vec[T2, i]
    m = g.shape[0]
    for j in range(npp):
        if global_normals:
            dirs[j] = pp_n[k, j]
        else:
            _rotate(A1, pp_n[k, j], dirs[j])
        _point_row(j, dirs[j], global_normals, vec, E1, E2, w1, W, G, dG, g, True)
    for j in range(npp, m):
        _rotate(A1, rot_a[k, j - npp], ab[j - npp, 0])
        _rotate(A2, rot_b[k, j - npp], ab[j - npp, 1])
        _rotation_row(j, ab[j - npp, 0], ab[j - npp, 1], vec, E1, E2, W, G, dG, g)
    for f in range(kinds.shape[0]):
        n = dirs[m + f]
        _rotate(A2 if kinds[f] == ROT2 else A1, axes[k, f], n)
        if kinds[f] == TRANS:
            _point_row(m + f, n, False, vec, E1, E2, w1, W, G, dG, g, False)
            continue
        _cross(n, vec[W21], vec[T1])                            # (ω2 − ω1)·n
        if kinds[f] == ROT2:
            _orient(E2, vec[T1], G[m + f], 22)
        else:
            _orient(E1, vec[T1], G[m + f], 9)
        for i in range(3):
            W[m + f, 3 + i], W[m + f, 16 + i] = -n[i], n[i]


@njit(cache=True)
def _scratch(m, nf):
    """A1, A2, E1, E2, vec, dirs, ab, W, G, dG, g of ``_geometry``, zeroed once: every
    instance writes the same entries of them."""
    return (np.zeros((3, 3)), np.zeros((3, 3)), np.zeros((4, 3)), np.zeros((4, 3)),
            np.zeros((13, 3)), np.zeros((m + nf, 3)), np.zeros((max(m, 1), 2, 3)),
            np.zeros((m + nf, NV2)), np.zeros((m + nf, NV2)), np.zeros((m, NV2)),
            np.zeros(m))


@njit(cache=True)
def residual(x, xp, pp_n, x1, x2, rot_a, rot_b, axes, kappa, damp, active, kinds,
             npp, global_normals, model):
    """Rows (N, nrows) of the run form: (1) −Σ W_kᵀλ_k − Σ W_fᵀτ_f (+ (∂g/∂x)ᵀ(μ·active),
    position model); the flange nodes' rows τ; (2) W·u (4: λ + κg + c·W·u); (3) g or μ;
    (6) w − W_f·u; (7) coordinate' − w. A switched-off row: λ = 0, μ = 0."""
    N, m, nf = x.shape[0], kappa.shape[1], kinds.shape[0]
    L0 = NV2 + nf
    M0, T0, C0 = L0 + m, L0 + 2 * m, L0 + 2 * m + nf
    out = np.zeros((N, C0 + nf))
    A1, A2, E1, E2, vec, dirs, ab, W, G, dG, g = _scratch(m, nf)
    for k in range(N):
        _geometry(x, k, pp_n, x1, x2, rot_a, rot_b, axes, kinds, npp, global_normals,
                  A1, A2, E1, E2, vec, dirs, ab, W, G, dG, g)
        for j in range(m + nf):
            weight = -x[k, L0 + j] if j < m else -x[k, T0 + j - m]      # −λ, −τ
            rate = 0.0
            for i in range(NV2):
                out[k, i] += weight * W[j, i]
                rate += W[j, i] * x[k, i]
            if j >= m:
                out[k, NV2 + j - m] = x[k, T0 + j - m]                   # τ
                out[k, T0 + j - m] = x[k, NV2 + j - m] - rate            # (6)
                out[k, C0 + j - m] = xp[k, C0 + j - m] - x[k, NV2 + j - m]  # (7)
                continue
            lam, mu, act = x[k, L0 + j], x[k, M0 + j], active[k, j]
            if model == ELASTIC:
                out[k, L0 + j] = lam + kappa[k, j] * g[j] + damp[k, j] * rate
            else:
                out[k, L0 + j] = act * rate + (1.0 - act) * lam
            if model == POSITION:
                out[k, M0 + j] = act * g[j] + (1.0 - act) * mu
                for i in range(NV2):
                    out[k, i] += mu * act * dG[j, i]
            else:
                out[k, M0 + j] = mu
    return out


@njit(cache=True)
def _add_skew(J, k, r0, c0, f, sign):
    """J[k, r0:r0 + 3, c0:c0 + 3] += sign·skew(f) (skew(f)·v = f × v)."""
    J[k, r0, c0 + 1] -= sign * f[2]
    J[k, r0, c0 + 2] += sign * f[1]
    J[k, r0 + 1, c0] += sign * f[2]
    J[k, r0 + 1, c0 + 2] -= sign * f[0]
    J[k, r0 + 2, c0] -= sign * f[1]
    J[k, r0 + 2, c0 + 1] += sign * f[0]


@njit(cache=True)
def _forces(k, x, L0, T0, npp, m, kinds, global_normals, dirs, vec):
    """vec[F] = Σλn of the points and translational flanges (global), vec[FQ] its part
    whose normals turn with q1, vec[FA] (vec[FB]) = Σ τn of the rotational flanges
    whose axes turn with q1 (q2)."""
    for i in range(3):
        vec[F, i], vec[FQ, i], vec[FA, i], vec[FB, i] = 0.0, 0.0, 0.0, 0.0
    for j in range(npp):
        for i in range(3):
            vec[F, i] += x[k, L0 + j] * dirs[j, i]
    if not global_normals:
        vec[FQ] = vec[F]
    for f in range(kinds.shape[0]):
        tau = x[k, T0 + f]
        for i in range(3):
            if kinds[f] == TRANS:
                vec[F, i] += tau * dirs[m + f, i]
                vec[FQ, i] += tau * dirs[m + f, i]
            elif kinds[f] == ROT2:
                vec[FB, i] += tau * dirs[m + f, i]
            else:
                vec[FA, i] += tau * dirs[m + f, i]


@njit(cache=True)
def _force_jacobian(k, x, L0, npp, m, vec, E1, E2, ab, J):
    """∂(−Σ W_kᵀλ_k − Σ W_fᵀτ_f)/∂x at fixed λ, τ (add_force_jacobian with sign −1), f
    of ``_forces``: −s1 × f on ω1 and r2 × f on ω2 (the arms move with p and q2, f with
    q1 where its normals are fixed in frame 1), τn on ω1, ω2 (turning with q1 or q2), and the
    rotations' c = a × b (with q1 and q2)."""
    f, t, u, v = vec[F], vec[T1], vec[T2], vec[T3]
    _add_skew(J, k, 3, 6, f, 1.0)
    _add_skew(J, k, 3, 19, f, -1.0)
    for l in range(4):
        _cross(E2[l], vec[R2], t)
        _cross(f, t, u)                                          # f × ∂r2/∂q2_l
        for i in range(3):
            J[k, 3 + i, 22 + l] -= u[i]
            J[k, 16 + i, 22 + l] += u[i]
        _cross(E1[l], vec[FQ], t)                                # ∂f/∂q1_l
        _cross(vec[S1], t, u)
        _cross(vec[R2], t, v)
        for i in range(3):
            J[k, i, 9 + l] += t[i]
            J[k, 13 + i, 9 + l] -= t[i]
            J[k, 3 + i, 9 + l] += u[i]
            J[k, 16 + i, 9 + l] -= v[i]
        _cross(E1[l], vec[FA], t)                                # ∂(τn)/∂q1_l
        for i in range(3):
            J[k, 3 + i, 9 + l] += t[i]
            J[k, 16 + i, 9 + l] -= t[i]
        _cross(E2[l], vec[FB], t)                                # ∂(τn)/∂q2_l
        for i in range(3):
            J[k, 3 + i, 22 + l] += t[i]
            J[k, 16 + i, 22 + l] -= t[i]
        for j in range(npp, m):                                  # rotations
            lam, a, b = x[k, L0 + j], ab[j - npp, 0], ab[j - npp, 1]
            _cross(E1[l], a, t)
            _cross(b, t, u)                                      # b × ∂a/∂q1_l
            _cross(E2[l], b, t)
            _cross(a, t, v)                                      # a × ∂b/∂q2_l
            for i in range(3):
                J[k, 3 + i, 9 + l] += lam * u[i]
                J[k, 16 + i, 9 + l] -= lam * u[i]
                J[k, 3 + i, 22 + l] -= lam * v[i]
                J[k, 16 + i, 22 + l] += lam * v[i]


@njit(cache=True)
def _add_block(J, k, r0, c0, H, sign):
    """J[k, r0:r0 + 4, c0:c0 + 4] += sign·H."""
    for a in range(4):
        for b in range(4):
            J[k, r0 + a, c0 + b] += sign * H[a, b]


@njit(cache=True)
def _point_hessian(k, x, M0, npp, pp_n, x1, x2, active, global_normals, vec, E1, E2,
                   dirs, work, H, J):
    """Σμ·active ∂²g/∂x² of the points (PointOnPlane.add_hessian): −D2(x1) and D2(x2)
    against Σμn, and where the normals turn with q1 the terms of Dn = ∂(Σμn)/∂q1."""
    q1, q2, fm, nmu = x[k, 9:13], x[k, 22:26], vec[T1], vec[T2]
    Dn, Dx = work[0], work[1]                    # rows l: ∂(Σμn)/∂q1_l, ∂r/∂q_l
    for i in range(3):
        fm[i], nmu[i] = 0.0, 0.0
        for j in range(npp):
            w = x[k, M0 + j] * active[k, j]
            fm[i] += w * dirs[j, i]
            nmu[i] += w * pp_n[k, j, i]
    _hessian(q1, x1[k], fm, HALF_NUMERATOR_D2Q, H)
    _add_block(J, k, 9, 9, H, -1.0)
    _hessian(q2, x2[k], fm, HALF_NUMERATOR_D2Q, H)
    _add_block(J, k, 22, 22, H, 1.0)
    if global_normals:
        return
    for l in range(4):
        _cross(E1[l], fm, Dn[l])
        for i in range(3):
            J[k, 6 + i, 9 + l] -= Dn[l, i]
            J[k, 19 + i, 9 + l] += Dn[l, i]
            J[k, 9 + l, 6 + i] -= Dn[l, i]
            J[k, 9 + l, 19 + i] += Dn[l, i]
    _hessian(q1, nmu, vec[D], HALF_NUMERATOR_D2Q, H)
    _add_block(J, k, 9, 9, H, 1.0)
    for frame in range(2):
        for l in range(4):
            _cross(E1[l] if frame == 0 else E2[l], vec[R1] if frame == 0 else vec[R2],
                   Dx[l])
        for a in range(4):
            for b in range(4):
                H[a, b] = Dn[a, 0] * Dx[b, 0] + Dn[a, 1] * Dx[b, 1] + Dn[a, 2] * Dx[b, 2]
        if frame == 0:                           # − both − bothᵀ on q1, q1
            _add_block(J, k, 9, 9, H, -1.0)
            _add_block(J, k, 9, 9, H.T, -1.0)
        else:                                    # the cross block and its transpose
            _add_block(J, k, 9, 22, H, 1.0)
            _add_block(J, k, 22, 9, H.T, 1.0)


@njit(cache=True)
def _rotation_hessian(k, x, M0, npp, m, rot_a, rot_b, active, vec, E1, E2, ab, work,
                      H, J):
    """Σμ·active ∂²g/∂x² of the rotations (Rotation.add_hessian): D2(a_l) against μb on
    q1, D2(b_l) against μa on q2, and the cross block μ (∂a/∂q1)ᵀ(∂b/∂q2)."""
    q1, q2, w = x[k, 9:13], x[k, 22:26], vec[T1]
    Da, Db = work[0], work[1]
    for j in range(npp, m):
        mu = x[k, M0 + j] * active[k, j]
        a, b = ab[j - npp, 0], ab[j - npp, 1]
        for i in range(3):
            w[i] = mu * b[i]
        _hessian(q1, rot_a[k, j - npp], w, HALF_NUMERATOR_D2Q, H)
        _add_block(J, k, 9, 9, H, 1.0)
        for i in range(3):
            w[i] = mu * a[i]
        _hessian(q2, rot_b[k, j - npp], w, HALF_NUMERATOR_D2Q, H)
        _add_block(J, k, 22, 22, H, 1.0)
        for l in range(4):
            _cross(E1[l], a, Da[l])
            _cross(E2[l], b, Db[l])
        for r in range(4):
            for c in range(4):
                H[r, c] = mu * (Da[r, 0] * Db[c, 0] + Da[r, 1] * Db[c, 1]
                                + Da[r, 2] * Db[c, 2])
        _add_block(J, k, 9, 22, H, 1.0)
        _add_block(J, k, 22, 9, H.T, 1.0)


@njit(cache=True)
def _rows_jacobian(k, L0, m, nf, model, kappa, damp, active, W, G, dG, J):
    """The λ, μ, τ columns of the frame rows (−Wᵀ, (∂g/∂x)ᵀ·active, −W_fᵀ) and the rows
    (2)-(4), (6), (7): ∂/∂x of W·u is W + ∂(W·u)/∂x; their own columns."""
    M0, T0 = L0 + m, L0 + 2 * m
    C0, F0 = T0 + nf, NV2
    for j in range(m):
        act = active[k, j]
        for i in range(NV2):
            grad = W[j, i] + G[j, i]
            J[k, i, L0 + j] = -W[j, i]
            if model == ELASTIC:
                J[k, L0 + j, i] = kappa[k, j] * dG[j, i] + damp[k, j] * grad
            else:
                J[k, L0 + j, i] = act * grad
            if model == POSITION:
                J[k, i, M0 + j] = dG[j, i] * act
                J[k, M0 + j, i] = act * dG[j, i]
        J[k, L0 + j, L0 + j] = 1.0 if model == ELASTIC else 1.0 - act
        J[k, M0 + j, M0 + j] = 1.0 - act if model == POSITION else 1.0
    for f in range(nf):
        for i in range(NV2):
            J[k, i, T0 + f] = -W[m + f, i]
            J[k, T0 + f, i] = -(W[m + f, i] + G[m + f, i])
        J[k, F0 + f, T0 + f] = 1.0
        J[k, T0 + f, F0 + f] = 1.0
        J[k, C0 + f, F0 + f] = -1.0


@njit(cache=True)
def jacobian(x, pp_n, x1, x2, rot_a, rot_b, axes, kappa, damp, active, kinds, npp,
             global_normals, model):
    """dF/dx (N, nrows, nvars) of ``residual`` (dF/dx' is the identity on the
    coordinates (7), set by the caller): ``_rows_jacobian``, the frame rows' ∂/∂x at
    fixed multipliers (``_force_jacobian``) and in the position model Σμ ∂²g/∂x²."""
    N, m, nf = x.shape[0], kappa.shape[1], kinds.shape[0]
    L0 = NV2 + nf
    size = L0 + 2 * m + 2 * nf
    J = np.zeros((N, size, size))
    A1, A2, E1, E2, vec, dirs, ab, W, G, dG, g = _scratch(m, nf)
    work, H = np.zeros((2, 4, 3)), np.zeros((4, 4))
    for k in range(N):
        _geometry(x, k, pp_n, x1, x2, rot_a, rot_b, axes, kinds, npp, global_normals,
                  A1, A2, E1, E2, vec, dirs, ab, W, G, dG, g)
        _rows_jacobian(k, L0, m, nf, model, kappa, damp, active, W, G, dG, J)
        _forces(k, x, L0, L0 + 2 * m, npp, m, kinds, global_normals, dirs, vec)
        _force_jacobian(k, x, L0, npp, m, vec, E1, E2, ab, J)
        if model == POSITION:
            _point_hessian(k, x, L0 + m, npp, pp_n, x1, x2, active, global_normals, vec,
                           E1, E2, dirs, work, H, J)
            _rotation_hessian(k, x, L0 + m, npp, m, rot_a, rot_b, active, vec, E1, E2,
                              ab, work, H, J)
    return J
