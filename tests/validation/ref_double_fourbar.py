r"""Independent reference: MBS-benchmark A02 "N four-bar mechanism", N = 2, free motion.

Problem statement
-----------------
Planar, xy-plane, gravity g = 9.81 m/s^2 along -y; simulate 0 <= t <= 10 s.
Ground pivots A0 = (0, 0), A1 = (1, 0), A2 = (2, 0) m.  Three rockers (uniform rods, 1 m,
1 kg each) hinged at their lower ends to ground at those pivots, initially pointing along
+y (tips B0 = (0, 1), B1 = (1, 1), B2 = (2, 1)); two couplers (uniform rods, 1 m, 1 kg each)
B0-B1 and B1-B2.  Seven revolute joints about z (three to ground, four at the tips);
Gruebler: 3 * 5 - 2 * 7 = 1 degree of freedom away from the flat configuration.  Initial
velocity: the x component of point B0 is 1 m/s (so every rocker turns at 1 rad/s and the couplers
translate at (1, 0) m/s).

Motion on the parallelogram branch: every rocker has the same angle phi, measured from the
+y axis towards +x (i.e. clockwise; the rotation of each rocker about +z is -phi), and the
couplers translate, staying horizontal:

    tip of rocker i:  B_i = (i + sin phi, cos phi),   i = 0, 1, 2,
    coupler j centre: (j + 1/2 + sin phi, cos phi),   j = 0, 1.

When the rockers are horizontal (phi = pi/2 + k pi, the "flat" configuration), the
mechanism is singular: the constraint Jacobian loses rank N = 2, the number of degrees of
freedom momentarily rises from 1 to N + 1 = 3, and a simulator may leave the parallelogram
branch.  The reference is the smooth continuation along the parallelogram branch.

Formulation (exact)
-------------------
T = (1/2) [3 (m L^2/3) + 2 m L^2] phidot^2 = (1/2) M phidot^2,  M = 3 kg m^2
(rockers about their pivots; couplers translate with |v| = L |phidot|);
V = m g L cos(phi) (3 * 1/2 + 2 * 1) = 3.5 m g L cos(phi)  (V = 0 at y = 0);
Lagrange:  M phi'' = 3.5 m g L sin(phi),  i.e.  phi'' = k sin(phi),  k = 3.5 g / 3 = 11.445 s^-2
(an inverted pendulum starting at its unstable top with phidot0 = 1 rad/s).

Energy: E = M phidot0^2 / 2 + 3.5 m g L = 1.5 + 34.335 = 35.835 J.  The top (phi = 0 mod 2 pi)
is the maximum of V, so with phidot0 != 0 the rockers go FULL CIRCLE: any kinetic energy
at the top suffices (the energy needed to reach the flat configuration from the top is 0;
from the bottom, going over the top would need 2 * 3.5 m g L = 68.67 J).  Closed form:

    phidot^2 = phidot0^2 + 4 k sin^2(phi/2),
    t(phi)   = (2/phidot0) F(phi/2 | mpar),   mpar = -4 k / phidot0^2 = -45.78  (F: elliptic
               integral of the first kind, parameter convention of scipy.special.ellipkinc),
    phi(t)   = 2 am(phidot0 t / 2 | mpar)  (am via the imaginary-modulus transformation
               sn(u|m) = sd(v|mu)/sqrt(1-m), cn(u|m) = cd(v|mu), v = u sqrt(1-m), mu = -m/(1-m)),
    period of one revolution  T_rev = 4 K(mpar) / phidot0 = 1.942515 s.

Flat passages at phi = pi/2 + j pi, t_j = (2/phidot0) F(pi/4 + j pi/2 | mpar): 10 passages in
10 s, at t = 0.714356, 1.228159, 2.656870, 3.170674, 4.599385, 5.113189, 6.541900, 7.055704,
8.484415, 8.998219 s (alternately 0.513804 s apart, the fast swing through the bottom, and
1.428711 s apart, the slow swing over the top; see ``passages``).  Sample values:
phi(1) = 3.3378708 rad, phi(5) = 16.6543535 rad, phi(10) = 31.7505972 rad.

Tolerances
----------
phi(t) by solve_ivp DOP853, rtol 1e-12, atol 1e-14, dense output (integrated once, cached);
max_step 0.01 s so that the dense interpolant is as good as the steps.  Observed: phi(t)
agrees with the closed form to 3e-13 rad over 10 s; energy drift ~1e-14 relative; passage
times by root finding on the dense output agree with the elliptic-integral times to ~1e-13 s.

Sources
-------
MBS benchmark library of the Laboratorio de Ingenieria Mecanica, Univ. da Coruna (M. Gonzalez
et al., "A benchmarking system for MBS simulation software", Multibody System Dynamics 16,
2006), problem A02 specification (lim.ii.udc.es/mbsbenchmark/dist/A02/A02_specification.xml):
"2N+1 links of 1 m length with a uniformly distributed mass of 1 kg", gravity 9.81 along -y,
"the velocity of the x-coordinate of point B0 is 1 m/s", singular when the mechanism is
horizontal; the original problem uses N = 40 and 20 s.  The N = 2, 10 s variant is the
one run in the public OpenSim port of the library (rehabenggroup.github.io/
MBSbenchmarksInOpenSim, "A02: N-Four-Bar Mechanism": N = 2, 1 kg, 1 m, B0x' = 1 m/s,
10 s), which checks the energy; no numerical N = 2 reference values were found.
"""
from functools import lru_cache

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq
from scipy.special import ellipj, ellipk, ellipkinc

DATA = {
    "N": 2,                         # number of four-bar windows
    "pivots_x": (0.0, 1.0, 2.0),    # ground pivots on y = 0 (m)
    "link_length": 1.0,             # all links (m)
    "link_mass": 1.0,               # all links, uniform rods (kg)
    "g": 9.81,                      # along -y
    "B0_vx0": 1.0,                  # initial x velocity of the first rocker's tip (m/s)
    "phi0": 0.0,                    # rockers initially along +y
    "t_end": 10.0,
    "rtol": 1e-12,
    "atol": 1e-14,
    "max_step": 0.01,               # keeps the dense-output interpolant at the 1e-12 level
}

_L = DATA["link_length"]
_m = DATA["link_mass"]
_N = DATA["N"]
MASS = (_N + 1) * _m * _L ** 2 / 3.0 + _N * _m * _L ** 2        # 3 kg m^2
VCOEF = _m * DATA["g"] * _L * ((_N + 1) / 2.0 + _N)              # V = VCOEF cos(phi)
K = VCOEF / MASS                                                # phi'' = K sin(phi)
PHIDOT0 = DATA["B0_vx0"] / _L                                   # tip velocity / L (at phi = 0)
MPAR = -4.0 * K / PHIDOT0 ** 2                                  # elliptic parameter


def energy(phi, phidot):
    """Total mechanical energy T + V (J), V = 0 at y = 0."""
    return 0.5 * MASS * np.asarray(phidot, float) ** 2 + VCOEF * np.cos(np.asarray(phi, float))


def kinetic_energy_per_body(phidot):
    """(rocker, coupler) kinetic energies (J) of one body each."""
    w2 = np.asarray(phidot, float) ** 2
    return 0.5 * _m * _L ** 2 / 3.0 * w2, 0.5 * _m * _L ** 2 * w2


@lru_cache(maxsize=1)
def solution():
    sol = solve_ivp(lambda t, y: [y[1], K * np.sin(y[0])], (0.0, DATA["t_end"]),
                    [DATA["phi0"], PHIDOT0], method="DOP853", rtol=DATA["rtol"],
                    atol=DATA["atol"], max_step=DATA["max_step"], dense_output=True)
    if not sol.success:
        raise RuntimeError(sol.message)
    return sol


def _eval(t):
    t = np.asarray(t, float)
    if np.any(t < 0) or np.any(t > DATA["t_end"] + 1e-12):
        raise ValueError("t outside [0, t_end]")
    return solution().sol(t)


def rocker_angle(t):
    """phi(t) (rad): angle of every rocker from +y towards +x (clockwise), unwrapped."""
    return _eval(t)[0]


def rocker_angular_velocity(t):
    """phidot(t) (rad/s); the rockers' angular velocity about +z is -phidot."""
    return _eval(t)[1]


def tip_position(t, i=0):
    """(x, y) of the tip B_i of rocker i (i = 0 is the first rocker, pivot at the origin)."""
    phi = rocker_angle(t)
    return DATA["pivots_x"][i] + _L * np.sin(phi), _L * np.cos(phi)


def tip_velocity(t, i=0):
    y = _eval(t)
    return _L * np.cos(y[0]) * y[1], -_L * np.sin(y[0]) * y[1]


def coupler_centre(t, j):
    """(x, y) of the centre of coupler j (0: B0-B1, 1: B1-B2); couplers stay horizontal."""
    phi = rocker_angle(t)
    return DATA["pivots_x"][j] + _L / 2.0 + _L * np.sin(phi), _L * np.cos(phi)


def rocker_centre(t, i):
    phi = rocker_angle(t)
    return DATA["pivots_x"][i] + _L / 2.0 * np.sin(phi), _L / 2.0 * np.cos(phi)


# ------------------------------------------------------------------- closed form
def time_at_angle(phi):
    """Exact t at which the rockers reach phi >= 0 (monotone motion)."""
    phi = np.asarray(phi, float)
    half = phi / 2.0
    n = np.floor(half / np.pi)
    rem = half - n * np.pi
    return 2.0 / PHIDOT0 * (2.0 * n * ellipk(MPAR) + ellipkinc(rem, MPAR))


def revolution_period():
    """Time for one full turn of the rockers, 4 K(m)/phidot0 (s)."""
    return 4.0 * ellipk(MPAR) / PHIDOT0


def rocker_angle_exact(t):
    """phi(t) = 2 am(phidot0 t/2 | m) by Jacobi functions (independent of the ODE)."""
    u = PHIDOT0 * np.asarray(t, float) / 2.0
    Kq = ellipk(MPAR)
    n = np.floor(u / (2.0 * Kq))
    ur = u - 2.0 * n * Kq
    mu = -MPAR / (1.0 - MPAR)
    sn, cn, dn, _ = ellipj(ur * np.sqrt(1.0 - MPAR), mu)
    am = np.arctan2(sn / np.sqrt(1.0 - MPAR), cn)
    return 2.0 * (n * np.pi + am)


def passages(t_end=10.0, exact=False):
    """Times (s) in (0, t_end] at which the rockers are horizontal (phi = pi/2 + j pi, the flat
    singular configuration).  Default: roots of phi(t) - (pi/2 + j pi) on the ODE's dense
    output (brentq, xtol 1e-15); exact=True: elliptic-integral times."""
    if t_end > DATA["t_end"]:
        raise ValueError("t_end beyond the integrated interval")
    phi_end = float(rocker_angle(t_end))
    targets = np.pi / 2.0 + np.pi * np.arange(0, int(np.floor((phi_end - np.pi / 2) / np.pi)) + 1)
    if exact:
        return time_at_angle(targets)
    sol = solution()
    out = []
    for a in targets:
        tg = float(time_at_angle(a))
        lo, hi = max(0.0, tg - 0.05), min(t_end, tg + 0.05)
        out.append(brentq(lambda t: sol.sol(t)[0] - a, lo, hi, xtol=1e-15, rtol=1e-15))
    return np.array(out)
