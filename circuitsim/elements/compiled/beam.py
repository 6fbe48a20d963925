"""The beam's residual and Jacobian (elements/beam.py, equations (1)-(6), mass=lumped,
stiffening on or off) as one compiled loop over the instances: the same equations
entry by entry, equal to the numpy reference to rounding. The element's rows are
written once (``_element``) for real and complex variables; the Jacobian is their
complex step, column by column (dF/dx_j = Im F(x + i·h·e_j)/h, exact to rounding, as
the reference's). Imported only when the compiled kernels are in use (it imports
numba)."""
import numpy as np
from numba import njit

from .body import _dcm
from .spherical import _cross

NV = 13                              # a frame's local variables (frames.NV)
NROWS = 2 * NV                       # the beam's rows (beam.NROWS)
H_CS = 1e-30                         # the complex step (beam.H_CS)
# the kernels' types for the extension built ahead of time (ahead.py): x, k, eta, l0, x1,
# x2, rho1, rho2, rref, linear -> F, or (dF/dx, dF/dx')
_ARGS = ("f2*", "f2", "f1", "f1", "f2", "f2", "f3", "f3", "f2", "b")
EXPORTS = {"residual": ("f2", _ARGS), "jacobian": (("f3", "f3"), _ARGS)}
# (measure, frame i, column j, frame i2, column j2, coefficient) of m1, m3, m5 (beam._PAIRS)
_PAIRS = ((1, 0, 2, 1, 1, 0.5), (1, 0, 1, 1, 2, -0.5),
          (3, 0, 0, 1, 2, 0.5), (3, 0, 2, 1, 0, -0.5),
          (5, 0, 1, 1, 0, 0.5), (5, 0, 0, 1, 1, -0.5))
# (measure, column, sign) of m2 = c·(t13 + t23), m4 = −c·(t12 + t22) (beam._CHORD)
_CHORD = ((2, 2, 1.0), (4, 1, -1.0))


@njit(cache=True)
def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True)
def _geometry(x, x1, x2, rho1, rho2, A, T, Td, u):
    """(1): the end triads T[f, j] = t_fj and their rates Td, and in the rows of u the
    arms a1, a2, the chord d, its rate, c = d/l and its rate; returns l."""
    a1, a2, d, dd, c, cd, s, sd = u[0], u[1], u[2], u[3], u[4], u[5], u[9], u[10]
    for f in range(2):
        q = x[f * NV + 9:f * NV + 13]
        _dcm(q, q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], A[f])
        rho = rho1 if f == 0 else rho2
        w = x[f * NV + 3:f * NV + 6]
        for j in range(3):                     # t_fj = A_f·ρ_f[:, j], its rate ω_f × t_fj
            for i in range(3):
                T[f, j, i] = A[f, i, 0] * rho[0, j] + A[f, i, 1] * rho[1, j] + A[f, i, 2] * rho[2, j]
            _cross(w, T[f, j], Td[f, j])
    for i in range(3):
        a1[i] = A[0, i, 0] * x1[0] + A[0, i, 1] * x1[1] + A[0, i, 2] * x1[2]
        a2[i] = A[1, i, 0] * x2[0] + A[1, i, 1] * x2[1] + A[1, i, 2] * x2[2]
        d[i] = x[NV + 6 + i] + a2[i] - x[6 + i] - a1[i]
    _cross(x[NV + 3:NV + 6], a2, s)            # dd/dt = v2 + ω2 × a2 − v1 − ω1 × a1
    _cross(x[3:6], a1, sd)
    for i in range(3):
        dd[i] = x[NV + i] + s[i] - x[i] - sd[i]
    l = np.sqrt(_dot(d, d))
    for i in range(3):
        c[i] = d[i] / l
    cdd = _dot(c, dd)
    for i in range(3):
        cd[i] = (dd[i] - c[i] * cdd) / l
    return l


@njit(cache=True)
def _element(x, k, eta, l0, x1, x2, rho1, rho2, rref, linear, A, T, Td, u, gt, m, out):
    """The rows ``out`` (26) of one element at its variables ``x`` (26, or 33 with the
    reference frame's ω and q after them); A (2,3,3), T, Td, gt (2,3,3), u (12,3), m (2,6)
    are scratch of x's type."""
    l = _geometry(x, x1, x2, rho1, rho2, A, T, Td, u)
    a1, a2, d, dd, c, cd, e, ed, gd, s, sd, tq = (u[0], u[1], u[2], u[3], u[4], u[5],
                                                  u[6], u[7], u[8], u[9], u[10], u[11])
    mdot = m[1]
    m[0, :] = 0.0
    mdot[:] = 0.0
    m[0, 0], mdot[0] = l - l0, _dot(c, dd)                                 # (2) m0
    if linear:                                 # (6) along e = A(q_ref)·rref, rate ω_ref × e
        if x.shape[0] == NROWS:
            for i in range(3):
                e[i], ed[i] = rref[i], 0.0
        else:
            q = x[NROWS + 3:NROWS + 7]
            _dcm(q, q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3], A[0])
            for i in range(3):
                e[i] = A[0, i, 0] * rref[0] + A[0, i, 1] * rref[1] + A[0, i, 2] * rref[2]
            _cross(x[NROWS:NROWS + 3], e, ed)
        m[0, 0], mdot[0] = _dot(e, d) - l0, _dot(e, dd) + _dot(ed, d)
    for kk, i, j, i2, j2, coef in _PAIRS:                                  # (2) m1 m3 m5
        m[0, kk] += coef * _dot(T[i, j], T[i2, j2])
        mdot[kk] += coef * (_dot(Td[i, j], T[i2, j2]) + _dot(T[i, j], Td[i2, j2]))
    for kk, j, sign in _CHORD:                                             # (2) m2 m4
        for i in range(3):
            s[i], sd[i] = T[0, j, i] + T[1, j, i], Td[0, j, i] + Td[1, j, i]
        m[0, kk] = sign * _dot(c, s)
        mdot[kk] = sign * (_dot(cd, s) + _dot(c, sd))
    for kk in range(6):                                                    # (4)
        m[0, kk] = k[kk] * (m[0, kk] + eta * mdot[kk])
    _forces(m[0], l, T, u, gt, linear, out)


@njit(cache=True)
def _forces(S, l, T, u, gt, linear, out):
    """(4)-(5): g_d, g_ij from the generalised forces S and the rows (26) they load."""
    a1, a2, c, e, gd, s, sd, tq = u[0], u[1], u[4], u[6], u[8], u[9], u[10], u[11]
    # g_d = Σ S_k ∂m_k/∂d: ∂m0/∂d = c (e), ∂m2/∂d, ∂m4/∂d = ±(s − c (c·s))/l
    for i in range(3):
        gd[i] = S[0] * (e[i] if linear else c[i])
    gt[:] = 0.0
    for kk, j, sign in _CHORD:
        for i in range(3):
            s[i] = T[0, j, i] + T[1, j, i]
        cs = _dot(c, s)
        for i in range(3):
            gd[i] += S[kk] * (sign * (s[i] - c[i] * cs) / l)
            gt[0, j, i] += S[kk] * (sign * c[i])                   # ∂m/∂t_1j = ∂m/∂t_2j = ±c
            gt[1, j, i] += S[kk] * (sign * c[i])
    for kk, i, j, i2, j2, coef in _PAIRS:      # g_ij = Σ S_k ∂m_k/∂t_ij: coef·(the other)
        for r in range(3):
            gt[i, j, r] += S[kk] * (coef * T[i2, j2, r])
            gt[i2, j2, r] += S[kk] * (coef * T[i, j, r])
    out[:] = 0.0
    for f in range(2):                         # Σ_j t_fj × g_fj
        tq[:] = 0.0
        for j in range(3):
            _cross(T[f, j], gt[f, j], s)
            for i in range(3):
                tq[i] += s[i]
        _cross(a1 if f == 0 else a2, gd, sd)
        for i in range(3):                                                 # (5)
            if f == 0:
                out[i], out[3 + i] = -gd[i], -(sd[i] - tq[i])              # −F1, −M1
            else:
                out[NV + i], out[NV + 3 + i] = gd[i], sd[i] + tq[i]        # −F2, −M2


@njit(cache=True)
def residual(x, k, eta, l0, x1, x2, rho1, rho2, rref, linear):
    n = x.shape[0]
    F = np.empty((n, NROWS))
    A, T, Td, gt = (np.empty((2, 3, 3)), np.empty((2, 3, 3)), np.empty((2, 3, 3)),
                    np.empty((2, 3, 3)))
    u, m = np.empty((12, 3)), np.empty((2, 6))
    for r in range(n):
        _element(x[r], k[r], eta[r], l0[r], x1[r], x2[r], rho1[r], rho2[r], rref[r], linear,
                 A, T, Td, u, gt, m, F[r])
    return F


@njit(cache=True)
def jacobian(x, k, eta, l0, x1, x2, rho1, rho2, rref, linear):
    """(dF/dx, dF/dx'): the complex step of every column; the rows read no x'."""
    n, nv = x.shape
    J, Jp = np.empty((n, NROWS, nv)), np.zeros((n, NROWS, nv))
    A, T, Td, gt = (np.empty((2, 3, 3), np.complex128), np.empty((2, 3, 3), np.complex128),
                    np.empty((2, 3, 3), np.complex128), np.empty((2, 3, 3), np.complex128))
    u, m = np.empty((12, 3), np.complex128), np.empty((2, 6), np.complex128)
    xc, out = np.empty(nv, np.complex128), np.empty(NROWS, np.complex128)
    for r in range(n):
        for col in range(nv):
            for i in range(nv):
                xc[i] = x[r, i]
            xc[col] += 1j * H_CS
            _element(xc, k[r], eta[r], l0[r], x1[r], x2[r], rho1[r], rho2[r], rref[r],
                     linear, A, T, Td, u, gt, m, out)
            for i in range(NROWS):
                J[r, i, col] = out[i].imag / H_CS
    return J, Jp
