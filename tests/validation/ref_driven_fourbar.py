r"""Independent reference: planar four-bar driven at constant crank speed (inverse dynamics).

Problem statement
-----------------
Planar mechanism in the xy-plane, all hinges about +z, gravity g = 9.81 m/s^2 along -y.
Ground pivots A = (0, 0) and D = (0.4, 0).  Crank AB = 0.1 m, coupler BC = 0.35 m,
rocker DC = 0.3 m.  At t = 0 the crank points along +y (B = (0, 0.1)) and C is the upper
intersection of the circles about B (radius 0.35) and D (radius 0.3),
C(0) ~ (0.2987219, 0.2823876).  Centres of mass at the middle of each link, moments of
inertia about the centre of mass (about z):

    crank   0.5 kg, 4.2e-4 kg m^2
    coupler 1.0 kg, 1.02e-2 kg m^2
    rocker  0.8 kg, 6.0e-3 kg m^2

The crank is driven at the prescribed constant angular velocity omega = 10 rad/s about +z
from t = 0 (the whole mechanism already moves consistently with that speed at t = 0).
Reference interval 0 <= t <= 1 s.

Sign conventions
----------------
* Angles are measured from +x, counter-clockwise (about +z): crank angle
  theta = angle of B - A, coupler angle = angle of C - B, rocker angle = angle of C - D.
* The drive torque tau is the torque the actuator at A applies to the crank (outer body)
  about +z; ground receives -tau.
* pin_force_A is the force of ground on the crank at A; pin_force_D the force of ground
  on the rocker at D (global x, y components, newtons).

Formulation
-----------
Position (closed form).  theta = pi/2 + omega t, B = A + r1 (cos theta, sin theta).
With d = |D - B|, e = (D - B)/d, n = (-e_y, e_x) (e turned +90 deg),
a = (L2^2 - L3^2 + d^2) / (2 d), h = sqrt(L2^2 - a^2):

    C = B + a e + h n          (h > 0 is the branch containing the given C(0);
                                Grashof crank-rocker, s + l = 0.5 < p + q = 0.65,
                                so the branch never degenerates: h > 0 for all t).

Velocity (closed form, Cramer).  With b = B - A, c = C - B, k = C - D and
u x v = u_x v_y - u_y v_x, the loop closure  omega1 perp(b) + omega2 perp(c)
= omega3 perp(k)  dotted with c and with k gives

    omega3 = omega1 (b x c) / (k x c),      omega2 = -omega1 (b x k) / (c x k).

Route 1 (virtual power / energy).  T = sum_i (m_i |v_Gi|^2 + I_i omega_i^2)/2,
V = g sum_i m_i y_Gi; the drive is the only non-conservative power source, so

    tau omega1 = d(T + V)/dt,

with d/dt evaluated by the complex step, d f/dt = Im f(t + i h)/h, h = 1e-30 (exact to
rounding: every expression above is analytic in t; no abs/hypot/atan2 is used).

Route 2 (Newton-Euler, linear system per instant).  Acceleration analysis:
alpha1 = 0, a_B = -omega1^2 b; the 2x2 system
    alpha2 perp(c) - alpha3 perp(k) = -a_B + omega2^2 c - omega3^2 k
gives alpha2, alpha3; a_G1 = -omega1^2 b/2,
a_G2 = a_B + alpha2 perp(c)/2 - omega2^2 c/2, a_G3 = alpha3 perp(k)/2 - omega3^2 k/2.
Unknowns (9): F_A (ground on crank), F_B (crank on coupler), F_C (coupler on rocker),
F_D (ground on rocker), tau.  Equations (9), with G = (0, -m g):
    crank:   F_A - F_B + G1 = m1 a_G1,  (A-G1) x F_A - (B-G1) x F_B + tau = I1 alpha1
    coupler: F_B - F_C + G2 = m2 a_G2,  (B-G2) x F_B - (C-G2) x F_C       = I2 alpha2
    rocker:  F_C + F_D + G3 = m3 a_G3,  (C-G3) x F_C + (D-G3) x F_D       = I3 alpha3

Tolerances
----------
The two routes agree to |tau_1 - tau_2| <= 1e-9 * max|tau| (observed ~1e-14);
energy balance  int_0^1 tau omega dt = Delta T + Delta V  holds to 1e-9 relative
(composite Gauss-Legendre quadrature); closures |B-A|, |C-B|, |C-D| exact to ~1e-15 m.
The public functions accept scalars or arrays of t and return the Newton-Euler route
(route 2) unless stated otherwise.
"""
import numpy as np

DATA = {
    "A": (0.0, 0.0),
    "D": (0.4, 0.0),
    "L_crank": 0.1,
    "L_coupler": 0.35,
    "L_rocker": 0.3,
    "m": (0.5, 1.0, 0.8),            # crank, coupler, rocker [kg]
    "I": (4.2e-4, 1.02e-2, 6.0e-3),  # about the centre of mass, about z [kg m^2]
    "g": 9.81,                       # along -y
    "omega": 10.0,                   # crank speed about +z [rad/s]
    "theta0": np.pi / 2,             # crank angle at t = 0
    "t_span": (0.0, 1.0),
    "C0": (0.2987219, 0.2823876),    # approximate, as stated
}

_r1, _L2, _L3 = DATA["L_crank"], DATA["L_coupler"], DATA["L_rocker"]
_m1, _m2, _m3 = DATA["m"]
_I1, _I2, _I3 = DATA["I"]
_g, _w = DATA["g"], DATA["omega"]
_Dx, _Dy = DATA["D"]


def _cross(ux, uy, vx, vy):
    return ux * vy - uy * vx


def _positions(t):
    """Closed-form positions; analytic in t (works for complex t)."""
    th = DATA["theta0"] + _w * t
    Bx, By = _r1 * np.cos(th), _r1 * np.sin(th)
    dx, dy = _Dx - Bx, _Dy - By
    d = np.sqrt(dx * dx + dy * dy)
    ex, ey = dx / d, dy / d
    nx, ny = -ey, ex
    a = (_L2 ** 2 - _L3 ** 2 + d * d) / (2 * d)
    h = np.sqrt(_L2 ** 2 - a * a)
    Cx, Cy = Bx + a * ex + h * nx, By + a * ey + h * ny
    return th, Bx, By, Cx, Cy


def _velocities(t):
    th, Bx, By, Cx, Cy = _positions(t)
    bx, by = Bx, By
    cx, cy = Cx - Bx, Cy - By
    kx, ky = Cx - _Dx, Cy - _Dy
    w1 = _w * np.ones_like(th)
    w3 = w1 * _cross(bx, by, cx, cy) / _cross(kx, ky, cx, cy)
    w2 = -w1 * _cross(bx, by, kx, ky) / _cross(cx, cy, kx, ky)
    return (th, Bx, By, Cx, Cy), (w1, w2, w3)


def _energy(t):
    """T, V (analytic in t)."""
    (th, Bx, By, Cx, Cy), (w1, w2, w3) = _velocities(t)
    bx, by = Bx, By
    cx, cy = Cx - Bx, Cy - By
    kx, ky = Cx - _Dx, Cy - _Dy
    # centre-of-mass velocities, v = omega perp(r) = omega (-r_y, r_x)
    v1x, v1y = -w1 * by / 2, w1 * bx / 2
    v2x, v2y = -w1 * by - w2 * cy / 2, w1 * bx + w2 * cx / 2
    v3x, v3y = -w3 * ky / 2, w3 * kx / 2
    T = 0.5 * (_m1 * (v1x ** 2 + v1y ** 2) + _I1 * w1 ** 2
               + _m2 * (v2x ** 2 + v2y ** 2) + _I2 * w2 ** 2
               + _m3 * (v3x ** 2 + v3y ** 2) + _I3 * w3 ** 2)
    y1, y2, y3 = By / 2, By + cy / 2, _Dy + ky / 2
    V = _g * (_m1 * y1 + _m2 * y2 + _m3 * y3)
    return T, V


def energy(t):
    """(T, V) at times t [J]; V = g * sum m_i y_Gi (zero level y = 0)."""
    t = np.asarray(t, dtype=float)
    return _energy(t)


def crank_angle(t):
    """theta(t) = pi/2 + omega t [rad] (unwrapped)."""
    return DATA["theta0"] + _w * np.asarray(t, dtype=float)


def joint_points(t):
    """B and C positions, arrays of shape (..., 2)."""
    _, Bx, By, Cx, Cy = _positions(np.asarray(t, dtype=float))
    return np.stack([Bx, By], -1), np.stack([Cx, Cy], -1)


def rocker_angle(t):
    """Angle of C - D from +x, counter-clockwise [rad] (stays within [1.770, 2.468] here; 1.91516 at t=0)."""
    _, Bx, By, Cx, Cy = _positions(np.asarray(t, dtype=float))
    return np.arctan2(Cy - _Dy, Cx - _Dx)


def coupler_angle(t):
    """Angle of C - B from +x, counter-clockwise [rad] (0.54815 at t=0; within [0.524, 1.118] here)."""
    _, Bx, By, Cx, Cy = _positions(np.asarray(t, dtype=float))
    return np.arctan2(Cy - By, Cx - Bx)


def angular_velocities(t):
    """(omega_crank, omega_coupler, omega_rocker) [rad/s], closed-form velocity analysis."""
    _, w = _velocities(np.asarray(t, dtype=float))
    return w


def drive_torque_energy(t, h=1e-30):
    """Route 1: tau = d(T+V)/dt / omega by complex-step differentiation [N m]."""
    t = np.asarray(t, dtype=float)
    T, V = _energy(t + 1j * h)
    return np.imag(T + V) / h / _w


def _newton_euler(t):
    t = np.atleast_1d(np.asarray(t, dtype=float))
    (th, Bx, By, Cx, Cy), (w1, w2, w3) = _velocities(t)
    n = t.size
    out = np.empty((n, 9))
    for i in range(n):
        b = np.array([Bx[i], By[i]])
        C = np.array([Cx[i], Cy[i]])
        D = np.array([_Dx, _Dy])
        c = C - b
        k = C - D
        perp = lambda v: np.array([-v[1], v[0]])
        a_B = -w1[i] ** 2 * b
        M = np.column_stack([perp(c), -perp(k)])
        rhs = -a_B + w2[i] ** 2 * c - w3[i] ** 2 * k
        al2, al3 = np.linalg.solve(M, rhs)
        G1, G2, G3 = b / 2, b + c / 2, D + k / 2
        aG1 = -w1[i] ** 2 * b / 2
        aG2 = a_B + al2 * perp(c) / 2 - w2[i] ** 2 * c / 2
        aG3 = al3 * perp(k) / 2 - w3[i] ** 2 * k / 2
        A = np.zeros(2)
        K = np.zeros((9, 9))
        r = np.zeros(9)
        # unknown order: FAx FAy FBx FBy FCx FCy FDx FDy tau
        cr = lambda p: np.array([-p[1], p[0]])   # p x F = cr(p) . F
        # crank
        K[0, 0], K[0, 2] = 1, -1
        K[1, 1], K[1, 3] = 1, -1
        K[2, 0:2] = cr(A - G1)
        K[2, 2:4] = -cr(b - G1)
        K[2, 8] = 1
        r[0:2] = _m1 * aG1 + np.array([0, _m1 * _g])
        r[2] = 0.0  # I1 * alpha1, alpha1 = 0
        # coupler
        K[3, 2], K[3, 4] = 1, -1
        K[4, 3], K[4, 5] = 1, -1
        K[5, 2:4] = cr(b - G2)
        K[5, 4:6] = -cr(C - G2)
        r[3:5] = _m2 * aG2 + np.array([0, _m2 * _g])
        r[5] = _I2 * al2
        # rocker
        K[6, 4], K[6, 6] = 1, 1
        K[7, 5], K[7, 7] = 1, 1
        K[8, 4:6] = cr(C - G3)
        K[8, 6:8] = cr(D - G3)
        r[6:8] = _m3 * aG3 + np.array([0, _m3 * _g])
        r[8] = _I3 * al3
        out[i] = np.linalg.solve(K, r)
    return out


def newton_euler(t):
    """Route 2, full solution: dict of arrays F_A, F_B, F_C, F_D (shape (n, 2)) and tau (n,).

    F_A: ground on crank; F_B: crank on coupler; F_C: coupler on rocker; F_D: ground on rocker.
    """
    s = _newton_euler(t)
    return {"F_A": s[:, 0:2], "F_B": s[:, 2:4], "F_C": s[:, 4:6], "F_D": s[:, 6:8], "tau": s[:, 8]}


def drive_torque(t):
    """Drive torque at A on the crank about +z [N m] (route 2, Newton-Euler)."""
    s = _newton_euler(t)
    return s[:, 8] if np.ndim(t) else s[0, 8]


def pin_force_A(t):
    """Force of ground on the crank at A, (Fx, Fy) [N], shape (n, 2) (or (2,) for scalar t)."""
    s = _newton_euler(t)
    return s[:, 0:2] if np.ndim(t) else s[0, 0:2]


def pin_force_D(t):
    """Force of ground on the rocker at D, (Fx, Fy) [N], shape (n, 2) (or (2,) for scalar t)."""
    s = _newton_euler(t)
    return s[:, 6:8] if np.ndim(t) else s[0, 6:8]


# Tabulated reference values (route 2; tau [N m], pin_force_A [N], rocker_angle [rad]), checked by test_references_driven.py.
DATA["samples"] = {
    "t": [0.0, 0.1, 0.25, 0.5, 1.0],
    "drive_torque": [0.12477283663809036, -1.4112620693807547, -0.3605043961030467, 0.16353047874640983, 1.4596924583102788],
    "pin_force_A": [
        [-1.2477283663809031, 2.9345569497314266],
        [12.787977490853658, 11.012803442612357],
        [12.512489894624878, 25.22606680503621],
        [-14.44130810120963, -0.11407203754425854],
        [2.8368802396236648, 24.908575505348]],
    "rocker_angle": [1.9151556505110299, 2.236078591468484, 2.4666506293050787, 1.8158926484373388, 2.265044084447174],
}
