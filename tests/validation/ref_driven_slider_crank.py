r"""Independent reference: planar slider-crank driven at constant crank speed (inverse dynamics).

Problem statement
-----------------
Planar mechanism in the xy-plane, gravity g = 9.81 m/s^2 along -y.  Crank OA turns about
+z at the origin O, r = 0.1 m; connecting rod AB, l = 0.3 m; slider B on the x axis
(y = 0, frictionless guide).  At t = 0 the crank points along +x (A = (0.1, 0),
B = (0.4, 0)).  Bodies:

    crank  1.0 kg, centre of mass at its middle, I = m r^2/12 about it
    rod    2.0 kg, centre of mass at its middle, I = m l^2/12 about it
    slider 0.5 kg, point mass on the x axis (no rotation)

The crank is driven at the prescribed constant angular velocity omega = 10 rad/s about +z
from t = 0 (mechanism moving consistently at t = 0).  Reference interval 0 <= t <= 1 s.

Sign conventions
----------------
* theta = omega t is the crank angle from +x, counter-clockwise.
* The drive torque tau is the torque the actuator at O applies to the crank about +z
  (ground receives -tau).
* guide_force is the y component N of the force the guide applies to the slider
  (the guide is frictionless, so its force is (0, N)); pin_force_O is the force of ground
  on the crank at O.

Formulation
-----------
Position:  A = r (cos theta, sin theta),  x_B = r cos theta + sqrt(l^2 - r^2 sin^2 theta),
c = B - A = (sqrt(l^2 - r^2 sin^2 theta), -r sin theta).
Velocity (closed form):  v_A = omega perp(a) (perp(v) = (-v_y, v_x)); the constraint
v_By = 0 gives the rod rate  omega2 = -v_Ay / c_x  and  xdot_B = v_Ax - omega2 c_y.

Route 1 (virtual power / energy):  T = (I1 + m1 r^2/4) omega^2/2
+ (m2 |v_G2|^2 + I2 omega2^2)/2 + m3 xdot_B^2/2,  V = g (m1 y_G1 + m2 y_G2) (slider at y = 0),

    tau omega = d(T + V)/dt,

the derivative by the complex step Im f(t + i h)/h, h = 1e-30 (all expressions analytic).

Route 2 (Newton-Euler, linear system per instant).  a_A = -omega^2 a;
a_By = 0 gives alpha2 = (omega2^2 c_y - a_Ay)/c_x;  xddot_B = a_Ax - alpha2 c_y - omega2^2 c_x;
a_G1 = -omega^2 a/2,  a_G2 = a_A + alpha2 perp(c)/2 - omega2^2 c/2.
Unknowns (8): F_O (ground on crank), F_A (crank on rod), F_B (rod on slider), N, tau:
    crank:  F_O - F_A + G1 = m1 a_G1,   (O-G1) x F_O - (A-G1) x F_A + tau = 0  (alpha1 = 0)
    rod:    F_A - F_B + G2 = m2 a_G2,   (A-G2) x F_A - (B-G2) x F_B = I2 alpha2
    slider: F_B + (0, N) + G3 = m3 (xddot_B, 0)
(G_i = (0, -m_i g); the slider is a point mass at the pin, so it carries no moment.)

Tolerances
----------
Routes 1 and 2 agree to |tau_1 - tau_2| <= 1e-9 max|tau| (observed ~1e-15);
int_0^1 tau omega dt = Delta T + Delta V to 1e-9 relative; closures |A| = r, |B - A| = l,
y_B = 0 to ~1e-16.  Public functions accept scalars or arrays of t and return route 2
unless stated otherwise.
"""
import numpy as np

DATA = {
    "r": 0.1,
    "l": 0.3,
    "m": (1.0, 2.0, 0.5),                         # crank, rod, slider [kg]
    "I": (1.0 * 0.1 ** 2 / 12, 2.0 * 0.3 ** 2 / 12, 0.0),  # about the centre of mass [kg m^2]
    "g": 9.81,                                    # along -y
    "omega": 10.0,                                # crank speed about +z [rad/s]
    "theta0": 0.0,
    "t_span": (0.0, 1.0),
}

_r, _l = DATA["r"], DATA["l"]
_m1, _m2, _m3 = DATA["m"]
_I1, _I2, _ = DATA["I"]
_g, _w = DATA["g"], DATA["omega"]


def _kin(t):
    """Positions and velocities, analytic in t (complex t allowed)."""
    th = DATA["theta0"] + _w * t
    ax, ay = _r * np.cos(th), _r * np.sin(th)
    cx = np.sqrt(_l ** 2 - (_r * np.sin(th)) ** 2)
    cy = -ay
    xB = ax + cx
    vAx, vAy = -_w * ay, _w * ax
    w2 = -vAy / cx
    xBd = vAx - w2 * cy
    return th, ax, ay, cx, cy, xB, vAx, vAy, w2, xBd


def _energy(t):
    th, ax, ay, cx, cy, xB, vAx, vAy, w2, xBd = _kin(t)
    v2x, v2y = vAx - w2 * cy / 2, vAy + w2 * cx / 2
    T = (0.5 * (_I1 + _m1 * _r ** 2 / 4) * _w ** 2
         + 0.5 * (_m2 * (v2x ** 2 + v2y ** 2) + _I2 * w2 ** 2)
         + 0.5 * _m3 * xBd ** 2)
    V = _g * (_m1 * ay / 2 + _m2 * (ay + cy / 2))
    return T, V


def energy(t):
    """(T, V) at times t [J]; V = g sum m_i y_Gi (zero level y = 0)."""
    return _energy(np.asarray(t, dtype=float))


def crank_angle(t):
    return DATA["theta0"] + _w * np.asarray(t, dtype=float)


def slider_x(t):
    """x_B(t) = r cos theta + sqrt(l^2 - r^2 sin^2 theta) [m]."""
    return _kin(np.asarray(t, dtype=float))[5]


def slider_velocity(t):
    return _kin(np.asarray(t, dtype=float))[9]


def rod_angle(t):
    """Angle of B - A from +x, counter-clockwise [rad]."""
    k = _kin(np.asarray(t, dtype=float))
    return np.arctan2(k[4], k[3])


def drive_torque_energy(t, h=1e-30):
    """Route 1: tau = d(T+V)/dt / omega, complex step [N m]."""
    T, V = _energy(np.asarray(t, dtype=float) + 1j * h)
    return np.imag(T + V) / h / _w


def _newton_euler(t):
    t = np.atleast_1d(np.asarray(t, dtype=float))
    th, ax, ay, cx, cy, xB, vAx, vAy, w2, xBd = _kin(t)
    out = np.empty((t.size, 8))
    cr = lambda p: np.array([-p[1], p[0]])     # p x F = cr(p) . F
    perp = lambda v: np.array([-v[1], v[0]])
    for i in range(t.size):
        a = np.array([ax[i], ay[i]])
        c = np.array([cx[i], cy[i]])
        B = a + c
        aA = -_w ** 2 * a
        al2 = (w2[i] ** 2 * c[1] - aA[1]) / c[0]
        xBdd = aA[0] - al2 * c[1] - w2[i] ** 2 * c[0]
        G1, G2 = a / 2, a + c / 2
        aG1 = -_w ** 2 * a / 2
        aG2 = aA + al2 * perp(c) / 2 - w2[i] ** 2 * c / 2
        K = np.zeros((8, 8))
        r = np.zeros(8)
        # unknowns: FOx FOy FAx FAy FBx FBy N tau
        K[0, 0], K[0, 2] = 1, -1
        K[1, 1], K[1, 3] = 1, -1
        K[2, 0:2] = cr(-G1)
        K[2, 2:4] = -cr(a - G1)
        K[2, 7] = 1
        r[0:2] = _m1 * aG1 + [0, _m1 * _g]
        K[3, 2], K[3, 4] = 1, -1
        K[4, 3], K[4, 5] = 1, -1
        K[5, 2:4] = cr(a - G2)
        K[5, 4:6] = -cr(B - G2)
        r[3:5] = _m2 * aG2 + [0, _m2 * _g]
        r[5] = _I2 * al2
        K[6, 4] = 1
        K[7, 5], K[7, 6] = 1, 1
        r[6:8] = [_m3 * xBdd, _m3 * _g]
        out[i] = np.linalg.solve(K, r)
    return out


def newton_euler(t):
    """Route 2 full solution: F_O (ground on crank), F_A (crank on rod), F_B (rod on slider),
    N (guide on slider, y), tau."""
    s = _newton_euler(t)
    return {"F_O": s[:, 0:2], "F_A": s[:, 2:4], "F_B": s[:, 4:6], "N": s[:, 6], "tau": s[:, 7]}


def drive_torque(t):
    """Drive torque at O on the crank about +z [N m] (route 2, Newton-Euler)."""
    s = _newton_euler(t)
    return s[:, 7] if np.ndim(t) else s[0, 7]


def guide_force(t):
    """Normal force N of the guide on the slider (y component; force = (0, N)) [N]."""
    s = _newton_euler(t)
    return s[:, 6] if np.ndim(t) else s[0, 6]


def pin_force_O(t):
    """Force of ground on the crank at O, (Fx, Fy) [N]."""
    s = _newton_euler(t)
    return s[:, 0:2] if np.ndim(t) else s[0, 0:2]


# Tabulated reference values (route 2; tau [N m], guide_force N [N], slider_x [m]), checked by test_references_driven.py.
DATA["samples"] = {
    "t": [0.0, 0.05, 0.2, 0.5, 1.0],
    "drive_torque": [1.4715, 2.417204714349439, -1.4926036482742686, 0.3305443623665807, -0.6856250647642488],
    "guide_force": [14.714999999999998, 10.628390194765139, 14.4950749923109, 18.197745674996867, 14.522588131971924],
    "slider_x": [0.4, 0.38390266611321716, 0.24427302488778666, 0.3126277923733486, 0.2111189651040775],
}
