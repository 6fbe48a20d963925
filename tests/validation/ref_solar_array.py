r"""Independent reference: deployment of a solar array with a synchronising rod (closed loop).

The mechanism (planar, all hinge axes along +z, no gravity)
------------------------------------------------------------
The spacecraft is the ground.  Drawn DEPLOYED, everything in the plane z = 0 (m, kg, s):

* yoke Y: hinge A at (0, 0) on the spacecraft wall, to hinge B at (0.6, 0); uniform rod,
  m = 1 kg, Jz = m Ly^2/12 = 0.03 kg m^2 about its centre (0.3, 0).
* panels P1, P2, P3: 1 m x 0.5 m thin plates (length along x, width 0.5 m along the hinge
  axis z), m = 2 kg each, Jz = m L^2/12 = 1/6 kg m^2 about the centre; P1 from B (0.6, 0) to
  hinge C (1.6, 0), P2 from C to hinge D (2.6, 0), P3 from D to the tip (3.6, 0).
* the synchronising rod R: from a spacecraft-fixed pivot O = (-0.6, 0.6) (a bracket inside
  the spacecraft envelope) to a bracket point Q = (0.4, 0.4) of P1 (Q - B = (-0.2, 0.4): a
  lever 0.2 m behind hinge B and 0.4 m off the panel line); length Lr = sqrt(1.04) =
  1.019804 m, uniform, m = 0.2 kg, Jz = m Lr^2/12 = 0.017333 kg m^2 about its centre.  The
  massless bracket is part of P1.

Six hinges about +z: A (spacecraft-Y), B (Y-P1), C (P1-P2), D (P2-P3), O (spacecraft-R),
Q (P1-R).  Planar Gruebler: 3*5 - 2*6 = 3 degrees of freedom.  The open chain
spacecraft-Y-P1-P2-P3 has 4; the rod closes the four-bar A-B-Q-O (ground 0.849 m, yoke 0.6 m,
bracket 0.447 m, rod 1.020 m) and ties the panel-to-yoke hinge to the yoke: B turns by
-180 deg while A turns by -90 deg, as the synchronisation of a real array does.

Hinge angle = rotation of the second body relative to the first about +z, 0 as drawn:
    qA = th_y, qB = th_1 - th_y, qC = th_2 - th_1, qD = th_3 - th_2,
    qO = th_r,  qQ = th_r - th_1
(th_y, th_1, th_2, th_3, th_r: absolute rotations of Y, P1, P2, P3, R from the drawing).

Stowed (t = 0, at rest): qA = 90 deg (the yoke along the wall, +y), qC = 180 deg,
qD = -180 deg (panels stacked zig-zag); the loop then gives qB = -180 deg and
qO = 22.620 deg, qQ = 112.620 deg (P1 along -y).  The loop closure holds exactly there
(the rod length was chosen so that both the stowed and the deployed states close), and the
bracket and rod are never parallel in between: the sine of their angle is 0.789 deployed,
1 at qA = 37.5 deg and 0.263 stowed (the yoke's dead point, where they align, lies a few
degrees beyond the stowed angle), so the yoke angle is a good independent coordinate over
the whole deployment and 30 deg past it.  The loop's ratio dqB/dqA is -6 stowed and
-4/3 deployed (``loop_ratio``).

Hinge elements (each on the hinge angle, torque on the second body about +z):
* torsion springs on A, B, C, D: k = 1 N m/rad, rest angle 20 deg (``over``) beyond the
  deployed angle 0, on the side away from the stowed angle (rest -20, +20, -20, +20 deg for
  A, B, C, D), so they still push at the latch: tau = -k (q - rest).
* rotary dampers on A, C, D: b = 1.5 N m s/rad (tau = -b q').
* latches (one-sided penalty end stops) at the deployed angle on A (lower = 0),
  C (lower = 0), D (upper = 0): k_s = 500 N m/rad, c_s = 20 N m s/rad,
  tau = max(k_s d + c_s d', 0) pushing back, d the penetration (0 outside).  B needs no
  latch: the loop holds it once A is latched.

Latched end state (closed form): at rest with A, C, D latched, the stops balance the springs.
C and D: kspring (over - d) = k_s d,  d = k over/(k + k_s) = 6.9674e-4 rad.  A carries its own
spring and B's through the loop: virtual work with qB = qB(qA) gives
k_s dA = k (qA + over) + k (qB - over) dqB/dqA at qA = -dA, solved in ``latched_state``:
dA = 1.61964e-3 rad (about (1 + 4/3) k over / k_s), qB = 2.15914e-3 rad.

Formulation (exact, minimal coordinates)
----------------------------------------
z = (th_y, th_1, th_2, th_3, th_r); centres of mass r_i = sum_j R(th_j) l_ij e_x with the
levers l_ij along each body's x axis (rod: along its drawn direction), so
M_jk = sum_i m_i l_ij l_ik cos(th_j - th_k) + J_j delta_jk and the velocity terms
c_j = sum_k M'_jk sin(th_j - th_k) th_k'^2.  The loop closure
    Phi(z) = R(th_y) (Ly, 0) + R(th_1) s - O - R(th_r) w0 = 0,   s = Q - B, w0 = Q - O (drawn)
is solved in closed form (intersection of the circles |Q - B| = |s|, |Q - O| = Lr, on the
branch of the drawing) for th_1, th_r given th_y.  The independent coordinates
u = (th_y, th_2, th_3) are integrated: z' = B(z) u', z'' = B u'' + g with
Phi_d g_d = gamma (gamma = R(th_y)(Ly,0) th_y'^2 + R(th_1) s th_1'^2 - R(th_r) w0 th_r'^2),
and (B^T M B) u'' = B^T (Q_gen - c - M g), Q_gen = H^T tau (H: hinge angles from z).
The stop law switches (contact onset d = 0, release when the pushing force falls to 0);
the integration is restarted at every switch (terminal events), so each piece is smooth.
solve_ivp DOP853, rtol 1e-12, atol 1e-12, max_step 0.02 s (keeps the dense output at the
steps' accuracy), dense output.

The array unfolds in about 2 s (latch A is reached at 2.109 s; the yoke
rebounds 4.6 deg and is back at 2.840 s; D at 2.860 s, C at 4.097 s),
P2 and P3 rebound on their latches a few times and everything rests latched from about
13 s (rates below 1e-4 rad/s; 6e-7 rad/s at 15 s, 2e-11 rad/s at 20 s).  The springs store
20.12 J folded; the peak kinetic energy is 8.00 J at 1.83 s; 0.24 J stay in the springs.

Observed: the loop closure holds to 1e-15 m (closed form); without dampers and stops the
energy T + V (20.12 J) is constant to 2e-12 relative over 3 s; rtol = atol = 1e-13 with
max_step 0.01 s changes the hinge angles by 2.3e-12 rad over the 20 s.
"""
from functools import lru_cache

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

DEG = np.pi / 180.0

DATA = {
    "Ly": 0.6, "m_yoke": 1.0, "J_yoke": 1.0 * 0.6 ** 2 / 12.0,
    "L": 1.0, "m_panel": 2.0, "J_panel": 2.0 * 1.0 ** 2 / 12.0, "width": 0.5,
    "O": (-0.6, 0.6), "s": (-0.2, 0.4),          # rod pivot; bracket Q - B on P1
    "m_rod": 0.2,
    "kspring": 1.0, "over": 20.0 * DEG, "bdamp": 1.5,
    "kstop": 500.0, "cstop": 20.0,
    "fold": (90.0 * DEG, 180.0 * DEG, -180.0 * DEG),   # qA, qC, qD at t = 0
    "t_end": 20.0, "rtol": 1e-12, "atol": 1e-12, "max_step": 0.02,
}

_LY, _L = DATA["Ly"], DATA["L"]
_O = np.array(DATA["O"])
_S = np.array(DATA["s"])
_Q0 = np.array([_LY, 0.0]) + _S                  # bracket point, drawn: (0.3, 0.3)
_W0 = _Q0 - _O                                   # rod vector, drawn: (0.7, -0.3)
LR = float(np.hypot(*_W0))                        # sqrt(0.58)
J_ROD = DATA["m_rod"] * LR ** 2 / 12.0
_R1 = float(np.hypot(*_S))
_ANG_S = np.arctan2(_S[1], _S[0])
_ANG_W0 = np.arctan2(_W0[1], _W0[0])
# sign of the branch: which side of the line B-O the bracket point lies, as drawn
_BO, _BQ = _O - np.array([_LY, 0.0]), _Q0 - np.array([_LY, 0.0])
_BRANCH = np.sign(_BO[0] * _BQ[1] - _BO[1] * _BQ[0])

# hinge angles q = H z, z = (th_y, th_1, th_2, th_3, th_r); order A, B, C, D, O, Q
HINGES = ("A", "B", "C", "D", "O", "Q")
H = np.array([[1, 0, 0, 0, 0],
              [-1, 1, 0, 0, 0],
              [0, -1, 1, 0, 0],
              [0, 0, -1, 1, 0],
              [0, 0, 0, 0, 1],
              [0, -1, 0, 0, 1]], float)
IND, DEP = [0, 2, 3], [1, 4]


def _rot(t):
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s], [s, c]])


def _perp(v):
    return np.array([-v[1], v[0]])


def _params(**over):
    p = dict(DATA)
    p.update(over)
    return p


def _levers(p):
    a = p["L"] / 2.0
    lev = np.array([[_LY / 2, 0, 0, 0, 0],
                    [_LY, a, 0, 0, 0],
                    [_LY, p["L"], a, 0, 0],
                    [_LY, p["L"], p["L"], a, 0],
                    [0, 0, 0, 0, LR / 2]])
    mass = np.array([p["m_yoke"], p["m_panel"], p["m_panel"], p["m_panel"], p["m_rod"]])
    jz = np.array([p["J_yoke"], p["J_panel"], p["J_panel"], p["J_panel"], J_ROD])
    # rod lever is along its drawn direction, so its angle offset enters only its own row,
    # which has no cross terms: the cos/sin formula stays exact.
    return (lev.T * mass) @ lev, jz


def dependent(th_y):
    """(th_1, th_r) closing the loop for the yoke rotation th_y (closed form)."""
    b = _LY * np.array([np.cos(th_y), np.sin(th_y)])
    dvec = _O - b
    d = float(np.hypot(*dvec))
    a = (_R1 ** 2 - LR ** 2 + d ** 2) / (2 * d)
    h2 = _R1 ** 2 - a ** 2
    if h2 < 0:
        raise ValueError("loop cannot close at th_y = %g rad" % th_y)
    e = dvec / d
    q = b + a * e + _BRANCH * np.sqrt(h2) * _perp(e)
    th1 = np.arctan2(*(q - b)[::-1]) - _ANG_S
    thr = np.arctan2(*(q - _O)[::-1]) - _ANG_W0
    th1 = (th1 + np.pi) % (2 * np.pi) - np.pi
    thr = (thr + np.pi) % (2 * np.pi) - np.pi
    return th1, thr


def _phi_z(z):
    cols = [_perp(_rot(z[0]) @ [_LY, 0.0]), _perp(_rot(z[1]) @ _S),
            np.zeros(2), np.zeros(2), -_perp(_rot(z[4]) @ _W0)]
    return np.column_stack(cols)


def full_state(u, ud):
    """z, z' from the independent (th_y, th_2, th_3) and their rates."""
    th1, thr = dependent(u[0])
    z = np.array([u[0], th1, u[1], u[2], thr])
    pz = _phi_z(z)
    bmat = np.zeros((5, 3))
    bmat[IND, [0, 1, 2]] = 1.0
    bmat[DEP, :] = -np.linalg.solve(pz[:, DEP], pz[:, IND])
    return z, bmat @ ud, bmat, pz


def loop_ratio(th_y=0.0):
    """dqB/dqA of the loop at yoke rotation th_y."""
    z, zd, bmat, _ = full_state(np.array([th_y, 0, 0]), np.array([1.0, 0, 0]))
    return float((H @ zd)[1])


def _rest(p):
    o = p["over"]
    return np.array([-o, o, -o, o])


_LOWER = np.array([0.0, 0.0, -np.inf])        # stops on A, C (lower = 0), D (upper = 0)
_UPPER = np.array([np.inf, np.inf, 0.0])
_STOP_HINGE = [0, 2, 3]


def _stop_parts(q, qd, p):
    """Per stop: penetration d, pushing force f (>0 pushes back), sign (+1 lower, -1 upper)."""
    qs, vs = q[_STOP_HINGE], qd[_STOP_HINGE]
    low = np.isfinite(_LOWER)
    d = np.where(low, _LOWER - qs, qs - _UPPER)
    dd = np.where(low, -vs, vs)
    f = p["kstop"] * d + p["cstop"] * dd
    return d, f, np.where(low, 1.0, -1.0)


def _torques(q, qd, p, active):
    tau = np.zeros(6)
    tau[:4] = -p["kspring"] * (q[:4] - _rest(p))
    bd = p["bdamp"]
    tau[[0, 2, 3]] -= bd * qd[[0, 2, 3]]
    if p["stops"]:
        d, f, sg = _stop_parts(q, qd, p)
        tau[_STOP_HINGE] += np.where(active, sg * f, 0.0)
    return tau


def _rhs(y, p, active):
    u, ud = y[:3], y[3:]
    z, zd, bmat, pz = full_state(u, ud)
    mbar, jz = _levers(p)
    dth = z[:, None] - z[None, :]
    mm = mbar * np.cos(dth) + np.diag(jz)
    c = (mbar * np.sin(dth)) @ zd ** 2
    gamma = (_rot(z[0]) @ [_LY, 0.0]) * zd[0] ** 2 + (_rot(z[1]) @ _S) * zd[1] ** 2 \
        - (_rot(z[4]) @ _W0) * zd[4] ** 2
    g = np.zeros(5)
    g[DEP] = np.linalg.solve(pz[:, DEP], gamma)
    q, qd = H @ z, H @ zd
    qgen = H.T @ _torques(q, qd, p, active)
    udd = np.linalg.solve(bmat.T @ mm @ bmat, bmat.T @ (qgen - c - mm @ g))
    return np.concatenate([ud, udd])


def initial_state(p=None):
    p = p or DATA
    fa, fc, fd = p["fold"]
    th_y = fa
    th1, _ = dependent(th_y)
    th2 = th1 + fc
    th3 = th2 + fd
    return np.array([th_y, th2, th3, 0.0, 0.0, 0.0])


class Solution:
    def __init__(self, pieces):
        self.pieces = pieces                 # list of (t0, t1, dense)

    def y(self, t):
        t = np.atleast_1d(np.asarray(t, float))
        out = np.empty((6, t.size))
        for i, ti in enumerate(t):
            for t0, t1, dense in self.pieces:
                if ti <= t1 + 1e-14:
                    out[:, i] = dense(ti)
                    break
            else:
                raise ValueError("t = %g beyond the integrated interval" % ti)
        return out


@lru_cache(maxsize=8)
def _solve(key):
    p = _params(**dict(key))
    t, y = 0.0, initial_state(p)
    t_end = p["t_end"]
    active = np.zeros(3, bool)
    pieces = []
    while t < t_end - 1e-15:
        act = active.copy()
        events = []
        if p["stops"]:
            for j in range(3):
                def ev_f(tt, yy, j=j):
                    z, zd, _, _ = full_state(yy[:3], yy[3:])
                    d, f, _ = _stop_parts(H @ z, H @ zd, p)
                    return f[j] if d[j] > -1e-9 else -1.0
                def ev_d(tt, yy, j=j):
                    z, zd, _, _ = full_state(yy[:3], yy[3:])
                    return _stop_parts(H @ z, H @ zd, p)[0][j]
                if act[j]:
                    ev_f.terminal, ev_f.direction = True, -1
                    events.append((j, "off", ev_f))
                else:
                    ev_f.terminal, ev_f.direction = True, 1
                    ev_d.terminal, ev_d.direction = True, 1
                    events.append((j, "on", ev_f))
                    events.append((j, "on", ev_d))
        sol = solve_ivp(lambda tt, yy: _rhs(yy, p, act), (t, t_end), y, method="DOP853",
                        rtol=p["rtol"], atol=p["atol"], max_step=p["max_step"],
                        dense_output=True, events=[e[2] for e in events] or None)
        if not sol.success:
            raise RuntimeError(sol.message)
        pieces.append((t, sol.t[-1], sol.sol))
        t, y = sol.t[-1], sol.y[:, -1]
        if sol.status == 1:
            for k, (j, kind, _) in enumerate(events):
                if len(sol.t_events[k]):
                    active[j] = kind == "on"
    return Solution(pieces)


def solution(**over):
    """Integrate (cached).  Overrides: bdamp, stops (bool), t_end, rtol, kspring, ..."""
    over.setdefault("stops", True)
    return _solve(tuple(sorted(over.items())))


def _hinges(t, part, over):
    """H @ (part of full_state) at the times t: (6, n), hinges A, B, C, D, O, Q."""
    ys = solution(**over).y(t)
    return np.stack([H @ full_state(ys[:3, i], ys[3:, i])[part]
                     for i in range(ys.shape[1])], axis=1)


def hinge_angles(t, **over):
    """Hinge angles (6, n) in the order A, B, C, D, O, Q (rad)."""
    return _hinges(t, 0, over)


def hinge_rates(t, **over):
    """Hinge rates (6, n), same order (rad/s)."""
    return _hinges(t, 1, over)


def energy(t, **over):
    """(kinetic, spring potential) energies (J) at the times t (stop energy excluded)."""
    p = _params(**over)
    ys = solution(**over).y(t)
    mbar, jz = _levers(p)
    kin, pot = [], []
    for i in range(ys.shape[1]):
        z, zd, _, _ = full_state(ys[:3, i], ys[3:, i])
        dth = z[:, None] - z[None, :]
        mm = mbar * np.cos(dth) + np.diag(jz)
        kin.append(0.5 * zd @ mm @ zd)
        q = H @ z
        pot.append(0.5 * p["kspring"] * np.sum((q[:4] - _rest(p)) ** 2))
    return np.array(kin), np.array(pot)


def latched_state(**over):
    """Closed-form rest state on the latches: hinge angles A..Q (rad) and stop torques."""
    p = _params(**over)
    k, ks, o = p["kspring"], p["kstop"], p["over"]
    d_cd = k * o / (k + ks)

    def qb_of(qa):
        th1, _ = dependent(qa)
        return th1 - qa

    # A pressed in by dA (qA = -dA): ks dA = k (qA - restA) + k (qB - restB) dqB/dqA,
    # the loop's virtual work (B's spring acts on A through the loop)
    def resid(da):
        qa = -da
        qb = qb_of(qa)
        ratio = loop_ratio(qa)
        return ks * da - (k * (qa + o) + k * (qb - o) * ratio)

    da = brentq(resid, 0.0, 0.1, xtol=1e-16)
    qa = -da
    th1, thr = dependent(qa)
    th_y = qa
    th2 = th1 - d_cd                             # qC = -d (lower stop at 0 pressed in)
    th3 = th2 + d_cd                             # qD = +d (upper stop at 0 pressed in)
    z = np.array([th_y, th1, th2, th3, thr])
    return H @ z, {"A": ks * da, "C": ks * d_cd, "D": ks * d_cd}
