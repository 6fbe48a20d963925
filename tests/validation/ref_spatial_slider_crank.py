r"""Independent reference: IFToMM spatial rigid slider-crank, free motion (exact 1-DOF model).

Problem statement
-----------------
IFToMM Technical Committee for Multibody Dynamics, benchmark library, problem "Spatial rigid
slider-crank mechanism" (https://www.iftomm-multibody.org/benchmark/problem/
Spatial_rigid_slider-crank_mechanism/).  Global frame
x, y, z; gravity g = 9.81 m/s^2 along -z; simulate 0 <= t <= 5 s.

* crank AB: revolute joint to ground about the global x axis through A = (0, 0.1, 0.12) m;
  length |AB| = 0.08 m; mass 0.12 kg; Ixx = 1e-4 kg m^2 about the x axis through its centre
  of mass; centre of mass at A (``crank_com_offset`` = 0, see "Sources" below);
* spherical joint at B, the crank tip;
* connecting rod BC: length 0.3 m, mass 0.5 kg, centre of mass at its middle, 4e-4 kg m^2
  about its own axis, 4e-3 kg m^2 about any transverse axis through the centre of mass;
* universal (Hooke) joint at C between rod and slider: cross axis 1 fixed in the slider and
  along the global x axis (the guide direction); cross axis 2 fixed in the rod, perpendicular
  to the rod's axis (and, by the joint, to axis 1);
* slider: 2 kg, prismatic joint along the global x axis (the line y = z = 0), no rotation
  (its rotational inertia therefore plays no role);
* initial configuration: crank along +z, B = (0, 0.1, 0.2), C = (0.2, 0, 0)
  (|BC| = sqrt(0.2^2 + 0.1^2 + 0.2^2) = 0.3); crank angular velocity 6 rad/s about +x, all
  other velocities consistent: v_B = (0, -0.48, 0), slider xdot = 0.24 m/s, rod centre
  velocity (0.12, -0.24, 0), rod angular velocity (1.92, -0.96, 0.48) rad/s (its spin about
  the rod axis, -1.28 rad/s, is fixed by the universal joint).

The mechanism has one degree of freedom, the crank angle theta (rotation about +x, theta = 0
in the initial configuration); ``crank_angle(t)`` is theta unwrapped (it grows to ~51 rad).

Formulation (exact, closed form)
--------------------------------
With a = A_y = 0.1, h = A_z = 0.12, r = 0.08, L = 0.3, s = sin theta, c = cos theta:

    B = (0, a - r s, h + r c),  rho^2 = B_y^2 + B_z^2,  x_C = sqrt(L^2 - rho^2),  C = (x_C, 0, 0),
    x_C' = r P / x_C,  P = a c + h s;       x_C'' = (r P' - x_C'^2) / x_C,  P' = h c - a s.

Rod frame: e = (B - C)/L (rod axis), n = x_hat x e / |x_hat x e| = (0, -B_z, B_y)/rho (the
rod-fixed cross axis, perpendicular to e and to the slider axis x_hat), b = e x n.  With
psi = atan2(B_z, B_y):

    psi' = r Q / rho^2,  Q = r + h c - a s;     psi'' = (-r P + 2 psi' x_C x_C') / rho^2.

Rod angular velocity per unit thetadot, in the rod frame (derived from omega = e x edot +
(ndot . b) e):

    omega.e = -x_C psi' / L   (spin),     omega.n = x_C' / rho,     omega.b = rho psi' / L,

and |v_G|^2 / thetadot^2 = (x_C'^2 + r^2)/4 for the rod centre G = (B + C)/2.  Kinetic and
potential energy (V = 0 at z = 0; the slider stays at z = 0):

    T = M(theta) thetadot^2 / 2,
    M = I_A + m_rod (x_C'^2 + r^2)/4 + m_slider x_C'^2
          + J_e (x_C psi'/L)^2 + J_n (x_C'/rho)^2 + J_b (rho psi'/L)^2,
    I_A = Ixx_crank + m_crank d^2  (d = crank_com_offset),
    V = g [ m_rod B_z / 2 + m_crank (h + d c) ],

(J_e = 4e-4 axial, J_n = J_b = 4e-3 transverse; J_n, J_b may be set separately in a ``Model``
variant).  Lagrange's equation:  M theta'' + M'(theta) thetadot^2 / 2 + V'(theta) = 0, with M'
from the analytic x_C'', psi''.

Second route (cross-check of M): every body is placed from its joints with no use of the
formulas above — crank R = Rx(theta); slider at (x_C, 0, 0) with R = I; rod
R = Rx(alpha) Ry(beta), the universal joint written as the chain slider -> revolute about x
(alpha) -> cross -> revolute about the cross's y axis (beta) -> rod, whose local z axis is
the rod axis: sin beta = -x_C/L, alpha = atan2(-B_y, B_z).  Positions and rotation
matrices are differentiated with respect to theta by an 8th-order central difference
(h = 1e-3), omega = vee(R' R^T), and T = sum (m |v|^2 + omega.(R J R^T) omega)/2.

Tolerances
----------
solve_ivp DOP853, rtol 1e-12, atol 1e-14, dense output, integrated once per parameter set and
cached.  Observed: relative energy drift <= 6e-12 over 5 s (at the steps and on the dense
output); closed-form and second-route M agree to 3e-12 relative (finite-difference limited);
M'(theta) against the complex-step derivative of M to ~1e-15; closures |BC| = L, |AB| = r
and the universal-joint perpendicularities to ~2e-16.

Sources
-------
* Data as specified for this validation suite, cross-checked against two public
  implementations of the IFToMM problem:
  - MBDyn input file tests/benchmarks/srskm/srscm (P. Masarati; GitHub mirror
    zanoni-mbdyn/MBDyn): same A, lengths, masses; inertias diag(1e-4, 1e-5, 1e-4) for the
    crank (centre of mass at A) and diag(4e-3, 4e-4, 4e-3) for the rod with the rod axis as
    local axis 2; slider 2 kg; 6 rad/s; 5 s; gravity -z; "cardano hinge" at C between the
    slider's axis along x and the rod-node axis 1 = normal(e x x_hat), i.e. the cross axes
    used here;
  - Exudyn test model python/TestModels/sliderCrank3Dtest.py (jgerstmayr/EXUDYN): same
    data, crank centre of mass at A, initial rod-centre velocity (0.12, -0.24, 0) and slider
    velocity 0.24 m/s as here.  Its initial rod angular velocity (1.694, -0.847, 0.706) has
    the same component normal to the rod as ours, (1.0667, -0.5333, 1.3333), but a spin of
    -0.94 rad/s instead of -1.28: that model's joint frame is not the cross defined above.
* Published solution curves submitted to the IFToMM page (as stored in the Exudyn
  repository, docs/verification/Slidercrank3DiftommBenchmark/): Gonzalez (slider x, 0.01 s
  steps) and Masoudi (slider x and crank angle, 300 points; the page is credited to Masoudi
  elsewhere).  NEITHER matches the data above: both are reproduced by this model only with
  the crank's centre of mass at the crank's middle (``crank_com_offset`` = 0.04 m, Ixx = 1e-4
  about that centre), and Masoudi's further with the rod inertia 4e-3 about its axis and
  about n, 4e-4 about b (a rod-axis mix-up).  With those variants
  |x - x_Gonzalez| <= 4.2e-5 m over 0..5 s, |theta - theta_Masoudi| <= 2.4e-4 rad and
  |x - x_Masoudi| <= 1.1e-5 m; with the data as given the differences reach 5e-2 m and
  0.14 rad.  The match also confirms the universal-joint cross (a rod cross axis built from
  y or z instead of x gives ~2e-2 m against Gonzalez).  theta(5) = 51.369 rad with the data
  as given, 51.507 (Masoudi), 54.333 (centre-of-mass-at-middle variant, = Gonzalez).  The
  benchmark page itself was not reachable, so which crank centre of mass it intends is not
  settled here; the default follows the specification given, MBDyn and Exudyn (at A).

Sample values (default data): slider x(1) = 0.23376475, x(2) = 0.25830444, x(5) = 0.25465009 m;
theta(1) = 10.484074, theta(2) = 20.031286, theta(5) = 51.369440 rad;
thetadot(1) = 10.229888, thetadot(2) = 8.421894, thetadot(5) = 7.903680 rad/s;
E = 0.71589168 J; M(0) = 0.00467376 kg m^2.
"""
from functools import lru_cache

import numpy as np
from scipy.integrate import solve_ivp

DATA = {
    # geometry (m)
    "A": (0.0, 0.1, 0.12),          # crank pivot; crank axis = global x through A
    "crank_length": 0.08,           # |AB|
    "rod_length": 0.3,              # |BC|
    # inertia (kg, kg m^2)
    "crank_mass": 0.12,
    "crank_Ixx": 1e-4,              # about the x axis through the crank's centre of mass
    "crank_com_offset": 0.0,        # distance A -> crank centre of mass along AB (0: at A)
    "rod_mass": 0.5,                # centre of mass at the rod's middle
    "rod_I_axial": 4e-4,            # about the rod axis e
    "rod_I_transverse": 4e-3,       # about any transverse axis through the centre of mass
    "slider_mass": 2.0,             # prismatic along global x, does not rotate
    "g": 9.81,                      # along -z
    # initial state
    "theta0": 0.0,                  # crank along +z: B = (0, 0.1, 0.2)
    "omega0": 6.0,                  # rad/s about +x
    "B0": (0.0, 0.1, 0.2),
    "C0": (0.2, 0.0, 0.0),          # slider x0 = sqrt(0.3^2 - 0.1^2 - 0.2^2) = 0.2
    "slider_v0": 0.24,              # consistent slider velocity (m/s)
    "crank_tip_v0": (0.0, -0.48, 0.0),
    "rod_com_v0": (0.12, -0.24, 0.0),
    "rod_omega0": (1.92, -0.96, 0.48),   # spin about e: -1.28 rad/s
    "t_end": 5.0,
    # integration
    "rtol": 1e-12,
    "atol": 1e-14,
}


class Model:
    """Spatial slider-crank, 1 DOF theta.  Keyword overrides of DATA entries give variants;
    also ``rod_I_n`` and ``rod_I_b`` (inertia about the rod-fixed cross axis n and about
    b = e x n; both default to ``rod_I_transverse``)."""

    def __init__(self, **overrides):
        p = dict(DATA)
        extra = {k: overrides.pop(k) for k in ("rod_I_n", "rod_I_b") if k in overrides}
        unknown = set(overrides) - set(p)
        if unknown:
            raise KeyError(f"unknown parameters {sorted(unknown)}")
        p.update(overrides)
        self.p = p
        self.a = p["A"][1]
        self.h = p["A"][2]
        self.r = p["crank_length"]
        self.L = p["rod_length"]
        self.Je = p["rod_I_axial"]
        self.Jn = extra.get("rod_I_n", p["rod_I_transverse"])
        self.Jb = extra.get("rod_I_b", p["rod_I_transverse"])
        d = p["crank_com_offset"]
        self.IA = p["crank_Ixx"] + p["crank_mass"] * d * d
        self.key = tuple(sorted((k, v) for k, v in p.items())) + (self.Jn, self.Jb)

    # ----------------------------------------------------------------- closed form
    def _kin(self, th):
        a, h, r, L = self.a, self.h, self.r, self.L
        s, c = np.sin(th), np.cos(th)
        By, Bz = a - r * s, h + r * c
        rho2 = By * By + Bz * Bz
        rho = np.sqrt(rho2)
        xC = np.sqrt(L * L - rho2)
        P = a * c + h * s
        xp = r * P / xC
        xpp = (r * (h * c - a * s) - xp * xp) / xC
        psip = r * (r + h * c - a * s) / rho2
        psipp = (-r * P + 2.0 * psip * xC * xp) / rho2
        return dict(s=s, c=c, By=By, Bz=Bz, rho=rho, xC=xC, xp=xp, xpp=xpp,
                    psip=psip, psipp=psipp)

    def mass(self, th):
        """Generalised mass M(theta) (kg m^2), closed form."""
        k = self._kin(th)
        p, L = self.p, self.L
        we = k["xC"] * k["psip"] / L
        wn = k["xp"] / k["rho"]
        wb = k["rho"] * k["psip"] / L
        return (self.IA + p["rod_mass"] * (k["xp"] ** 2 + self.r ** 2) / 4.0
                + p["slider_mass"] * k["xp"] ** 2
                + self.Je * we ** 2 + self.Jn * wn ** 2 + self.Jb * wb ** 2)

    def dmass(self, th):
        """dM/dtheta, analytic."""
        k = self._kin(th)
        p, L = self.p, self.L
        xC, xp, xpp, rho = k["xC"], k["xp"], k["xpp"], k["rho"]
        psip, psipp = k["psip"], k["psipp"]
        rhop = -xC * xp / rho
        we, dwe = xC * psip / L, (xp * psip + xC * psipp) / L
        wn, dwn = xp / rho, xpp / rho - xp * rhop / rho ** 2
        wb, dwb = rho * psip / L, (rhop * psip + rho * psipp) / L
        return (p["rod_mass"] * xp * xpp / 2.0 + 2.0 * p["slider_mass"] * xp * xpp
                + 2.0 * (self.Je * we * dwe + self.Jn * wn * dwn + self.Jb * wb * dwb))

    def potential(self, th):
        p = self.p
        return p["g"] * (p["rod_mass"] * (self.h + self.r * np.cos(th)) / 2.0
                         + p["crank_mass"] * (self.h + p["crank_com_offset"] * np.cos(th)))

    def dpotential(self, th):
        p = self.p
        return -p["g"] * np.sin(th) * (p["rod_mass"] * self.r / 2.0
                                       + p["crank_mass"] * p["crank_com_offset"])

    def energy(self, th, thd):
        th = np.asarray(th, float)
        return 0.5 * self.mass(th) * np.asarray(thd, float) ** 2 + self.potential(th)

    def accel(self, th, thd):
        return -(0.5 * self.dmass(th) * thd * thd + self.dpotential(th)) / self.mass(th)

    def slider_x_of(self, th):
        return self._kin(np.asarray(th, float))["xC"]

    def slider_v_of(self, th, thd):
        return self._kin(np.asarray(th, float))["xp"] * thd

    # ----------------------------------------------------------------- second route
    def bodies(self, th):
        """Body placements from the joint definitions: list of (mass, centre, R, J_body)."""
        p, r, L = self.p, self.r, self.L
        A = np.array(p["A"], float)
        s, c = np.sin(th), np.cos(th)
        Rc = np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])          # crank, local z = AB
        B = A + Rc @ np.array([0.0, 0.0, r])
        xC = np.sqrt(L * L - B[1] ** 2 - B[2] ** 2)
        C = np.array([xC, 0.0, 0.0])
        beta = np.arcsin(-xC / L)
        alpha = np.arctan2(-B[1], B[2])
        ca, sa, cb, sb = np.cos(alpha), np.sin(alpha), np.cos(beta), np.sin(beta)
        Rx = np.array([[1.0, 0, 0], [0, ca, -sa], [0, sa, ca]])
        Ry = np.array([[cb, 0, sb], [0, 1.0, 0], [-sb, 0, cb]])
        Rr = Rx @ Ry                                                 # rod: local z = C->B
        d = p["crank_com_offset"]
        return [
            (p["crank_mass"], A + Rc @ np.array([0.0, 0.0, d]), Rc,
             np.diag([p["crank_Ixx"], 1e-5, 1e-4])),                 # Iyy, Izz play no role
            (p["rod_mass"], C + Rr @ np.array([0.0, 0.0, L / 2.0]), Rr,
             np.diag([self.Jb, self.Jn, self.Je])),
            (p["slider_mass"], C, np.eye(3), np.diag([1e-4, 1e-4, 1e-4])),
        ], B, C

    def mass_fd(self, th, h=1e-3):
        """M(theta) by the second route (8th-order central differences in theta)."""
        w = np.array([1 / 280, -4 / 105, 1 / 5, -4 / 5, 0.0, 4 / 5, -1 / 5, 4 / 105, -1 / 280])
        samples = [self.bodies(th + k * h)[0] for k in range(-4, 5)]
        base = self.bodies(th)[0]
        M = 0.0
        for i, (m, x, R, J) in enumerate(base):
            v = sum(wk * s[i][1] for wk, s in zip(w, samples)) / h
            Rd = sum(wk * s[i][2] for wk, s in zip(w, samples)) / h
            W = Rd @ R.T
            om = np.array([W[2, 1], W[0, 2], W[1, 0]])
            M += m * v @ v + om @ (R @ J @ R.T) @ om
        return M

    def closure(self, th):
        """Constraint residuals of the second-route placement: |BC| - L, tip on crank,
        slider-axis . rod-cross-axis, rod-axis . rod-cross-axis, rod end at C."""
        (crank, rod, slider), B, C = self.bodies(th)
        Rr = rod[2]
        e, n = Rr[:, 2], Rr[:, 1]
        return np.array([np.linalg.norm(B - C) - self.L,
                         np.linalg.norm(B - np.array(self.p["A"])) - self.r,
                         n[0], e @ n,
                         np.linalg.norm(rod[1] - self.L / 2 * e - C),
                         np.linalg.norm(rod[1] + self.L / 2 * e - B)])

    # ----------------------------------------------------------------- integration
    def solve(self):
        return _solve(self)


_MODELS = {}


def _solve(model):
    key = model.key
    if key not in _MODELS:
        p = model.p

        def rhs(t, y):
            return [y[1], model.accel(y[0], y[1])]

        sol = solve_ivp(rhs, (0.0, p["t_end"]), [p["theta0"], p["omega0"]], method="DOP853",
                        rtol=p["rtol"], atol=p["atol"], dense_output=True)
        if not sol.success:
            raise RuntimeError(sol.message)
        _MODELS[key] = sol
    return _MODELS[key]


@lru_cache(maxsize=1)
def default_model():
    return Model()


def solution():
    """The cached solve_ivp result (t, y = [theta, thetadot], dense .sol) of the data."""
    return default_model().solve()


def _eval(t):
    t = np.asarray(t, float)
    if np.any(t < 0) or np.any(t > DATA["t_end"] + 1e-12):
        raise ValueError("t outside [0, t_end]")
    return solution().sol(t)


def crank_angle(t):
    """theta(t) (rad), rotation of the crank about +x from its initial position, unwrapped."""
    return _eval(t)[0]


def crank_angular_velocity(t):
    """thetadot(t) (rad/s) about +x."""
    return _eval(t)[1]


def slider_x(t):
    """Slider (point C) x coordinate (m)."""
    return default_model().slider_x_of(crank_angle(t))


def slider_velocity(t):
    y = _eval(t)
    return default_model().slider_v_of(y[0], y[1])


def energy(theta, thetadot):
    """Total mechanical energy T + V (J), V = 0 at z = 0, for the data (crank centre of mass
    at A)."""
    return default_model().energy(theta, thetadot)


def mass(theta):
    return default_model().mass(np.asarray(theta, float))


def positions(theta):
    """Points A, B, C, rod centre G, rod axis e (C->B) and rod cross axis n at angle theta."""
    m = default_model()
    (crank, rod, slider), B, C = m.bodies(float(theta))
    return dict(A=np.array(DATA["A"], float), B=B, C=C, G=rod[1], e=rod[2][:, 2],
                n=rod[2][:, 1])
