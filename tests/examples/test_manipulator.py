"""netlists/manipulator.cir: a three-joint arm (waist W about +z, shoulder S and elbow E
about -y, a tool welded at the forearm tip), each joint driven by a DC motor through a gear
on its axis flange under a proportional position loop. Checked against an independent
model written here (never against numbers taken from the simulator):

* the reference: generalised coordinates the joint angles q = (a, b, c) and the three
  armature currents i. The arm's inverse dynamics tau = ID(q, q', q'') is a recursive
  Newton-Euler pass (global components; each body's central inertia R*diag(Jc)*R^T with R
  its orientation, Jc the principal moments of the netlist given with the arm drawn
  straight along +x), its mass matrix the Jacobian form sum(m Jv^T Jv + Jw^T I Jw) (checked
  against the Newton-Euler columns in test_reference_self_check). Orientations: the waist
  turns everything by Rz(a); a rotation by b about -y is Ry(-b) (x -> (cos b, 0, sin b):
  a positive angle lifts the arm), so upper = Rz(a) Ry(-b), fore and tool = Rz(a) Ry(-(b+c)).
  The joint torque ID_j is the component along the joint axis n_j of the moment that the
  parent applies to the child: the flange torque tau_j, which conventions.md §5 applies
  as +tau n to frame 2 (the child) and -tau n to frame 1, so the flange torque enters with
  a plus sign (checked against the engine's W.tau etc. below).
* the drives, from library/dcmotor.lib and library/gear.lib: the gear is a transformer
  in:out with w_in = ratio*w_out and tau_out = ratio*(tau_in - b_g*w_in); the motor shaft
  (its rotor inertia J_m and bearing damper b_m to the stator) is the gear's input, the
  joint flange its output, so the motor shaft turns at N*q' (N the ratio) and with the
  motor torque k*i
      flange torque   tau = N*(k*i - J_m*N*q'' - (b_m + b_g)*N*q')
      armature        L di/dt = u - R*i - k*N*q'
      loop            u = Kp*(set-point(t) - q)
  i.e. the rotor adds J_m*N^2 to the joint's diagonal inertia (0.2, 0.512, 0.2 kg m^2) and
  (b_m + b_g)*N^2 of viscous loss; it turns with the joint's relative rate only (the
  simplified rotor model of the header: the rotor inertia is a 1D element on the flange).
  Equations of motion: (M(q) + diag(J_m N^2)) q'' = tau_drive - h(q, q'), with
  h = ID(q, q', 0) (Coriolis, centrifugal, gravity) and tau_drive = N k i - (b_m+b_g) N^2 q'.
* initial state: the .ic home pose (0, 60, -100) deg at rest. The currents start at 0:
  the armature inductor `L La` of dcmotor.lib has no ic= and an inductor's initial flow
  defaults to 0; the set-point equals the home pose until t0, so u(0) = 0 and nothing
  else forces them (the engine's first MS.La.i is ~1e-12 A). The arm therefore first sags
  under gravity until the currents build up.
* integration: scipy's LSODA at rtol 1e-11, atol 1e-13, restarted at t0 and t0 + T where
  the set-point's second derivative jumps. The motor's L/R = 1 ms makes the system mildly
  stiff; Radau at rtol 1e-10 and 1e-11 agrees with it to 3e-12 rad and 1.5e-10 A over the
  run (measured once, ~10x the run time), far below every tolerance here.

Run times on the 2-core test machine: the netlist as written (position model) 2 s at rtol
1e-8 ~10 s, study fast 2 s at rtol 1e-8 ~5 s, study soft 0.3 s at rtol 1e-6 ~2 s (twice:
default and 10x stiffer joints), the reference ~2 s; ~22 s in all.
"""
import math

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import circuitsim

from helpers import netlist_path

NETLIST = netlist_path("manipulator.cir")

# --- the netlist's data (its header comment and .param lines) ---------------------------
G = 9.81
H0, L1, L2 = 0.3, 0.4, 0.35
M_BASE, M_UPPER, M_FORE, M_TOOL = 4.0, 2.0, 1.2, 0.5
JC_BASE, JC_UPPER = (0.03, 0.03, 0.02), (0.002, 0.028, 0.028)
JC_FORE, JC_TOOL = (0.0012, 0.0125, 0.0125), (2e-4, 2e-4, 2e-4)
R_M, L_M, K_M, J_M, B_M, B_G = 1.0, 1e-3, 0.05, 2e-5, 1e-5, 2e-5
RATIO = np.array([100.0, 160.0, 100.0])          # Nw, Ns, Ne
KP = np.array([100.0, 300.0, 200.0])             # Kw, Ks, Ke (V/rad)
T0, T_MOVE = 0.2, 1.0
Q_HOME = np.radians([0.0, 60.0, -100.0])
Q_END = np.radians([90.0, 20.0, -40.0])
LIMITS = np.radians([(-170.0, 170.0), (-30.0, 120.0), (-150.0, 10.0)])   # the stops

ANGLES = ("W.angle", "S.angle", "E.angle")
RATES = ("ww", "ws", "we")
CURRENTS = ("MW.La.i", "MS.La.i", "ME.La.i")
TORQUES = ("W.tau", "S.tau", "E.tau")
VOLTAGES = ("uw", "us", "ue")
TOOL = ("tool.x", "tool.y", "tool.z")

T_END = 2.0
T_SOFT = 0.3      # the elastic study: 0.1 s of the motion (see test_soft_study)
# Recorded points: 5 ms over the 2 s runs (each recorded point costs the engine about two
# steps' worth of work: at 1 ms the two 2 s runs took 30 s instead of 12 s, with the same
# errors to 2 digits), 1 ms over the soft runs (their largest error is at t ~ 2 ms).
TSTEP, TSTEP_SOFT = 5e-3, 1e-3


# --- reference: kinematics, recursive Newton-Euler, mass matrix --------------------------
def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _add(*vs):
    return (sum(v[0] for v in vs), sum(v[1] for v in vs), sum(v[2] for v in vs))


def _sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def _mul(s, a):
    return (s * a[0], s * a[1], s * a[2])


def _dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def _inertia_times(axes, jc, v):
    """(R diag(jc) R^T) v, with axes the columns of R (the body's local axes, global)."""
    return _add(*(_mul(j * _dot(e, v), e) for e, j in zip(axes, jc)))


def kinematics(q):
    """Joint points, joint axes (global) and, per link, its bodies as
    (mass, centre of mass, local axes in global components, principal moments)."""
    a, b, c = (float(v) for v in q)
    ca, sa = math.cos(a), math.sin(a)
    ex, ey, ez = (ca, sa, 0.0), (-sa, ca, 0.0), (0.0, 0.0, 1.0)      # base axes: Rz(a)

    def lifted(th):      # Rz(a) Ry(-th): local x, y, z in global components
        ct, st = math.cos(th), math.sin(th)
        return (_add(_mul(ct, ex), _mul(st, ez)), ey, _sub(_mul(ct, ez), _mul(st, ex)))

    upper, fore = lifted(b), lifted(b + c)
    p_w, p_s = (0.0, 0.0, 0.0), (0.0, 0.0, H0)
    p_e = _add(p_s, _mul(L1, upper[0]))
    axis_s = _mul(-1.0, ey)                   # -y of the base, carried by the waist
    bodies = ([(M_BASE, (0.0, 0.0, 0.15), (ex, ey, ez), JC_BASE)],
              [(M_UPPER, _add(p_s, _mul(L1 / 2, upper[0])), upper, JC_UPPER)],
              [(M_FORE, _add(p_e, _mul(L2 / 2, fore[0])), fore, JC_FORE),
               (M_TOOL, _add(p_e, _mul(L2, fore[0])), fore, JC_TOOL)])
    return (p_w, p_s, p_e), (ez, axis_s, axis_s), bodies


def inverse_dynamics(q, qd, qdd, g=G, kin=None):
    """Recursive Newton-Euler: the three flange torques that give the joint accelerations
    qdd at (q, qd) under gravity g (the ground accelerated upwards by g)."""
    points, axes, bodies = kin if kin is not None else kinematics(q)
    w = alpha = (0.0, 0.0, 0.0)
    acc = (0.0, 0.0, g)                       # acceleration of the current joint point
    ws, alphas, accs = [], [], []
    for j in range(3):                        # outward: velocities and accelerations
        if j:
            d = _sub(points[j], points[j - 1])
            acc = _add(acc, _cross(alpha, d), _cross(w, _cross(w, d)))
        alpha = _add(alpha, _mul(qdd[j], axes[j]), _mul(qd[j], _cross(w, axes[j])))
        w = _add(w, _mul(qd[j], axes[j]))
        ws.append(w); alphas.append(alpha); accs.append(acc)
    force = moment = (0.0, 0.0, 0.0)          # what link j+1 needs from link j (at its joint)
    tau = np.zeros(3)
    for j in (2, 1, 0):                       # inward: forces and moments about joint j
        if j < 2:
            moment = _add(moment, _cross(_sub(points[j + 1], points[j]), force))
        for m, com, local, jc in bodies[j]:
            r = _sub(com, points[j])
            f = _mul(m, _add(accs[j], _cross(alphas[j], r), _cross(ws[j], _cross(ws[j], r))))
            moment = _add(moment, _inertia_times(local, jc, alphas[j]),
                          _cross(ws[j], _inertia_times(local, jc, ws[j])), _cross(r, f))
            force = _add(force, f)
        tau[j] = _dot(axes[j], moment)
    return tau


def mass_matrix(kin):
    """sum over bodies of m Jv^T Jv + Jw^T I Jw (joint j moves every body outboard of it)."""
    points, axes, bodies = kin
    mm = np.zeros((3, 3))
    for link in range(3):
        for m, com, local, jc in bodies[link]:
            jv = np.array([_cross(axes[j], _sub(com, points[j])) for j in range(link + 1)])
            jw = np.array([axes[j] for j in range(link + 1)])
            rot = np.array(local).T
            inertia = rot @ np.diag(jc) @ rot.T
            mm[:link + 1, :link + 1] += m * jv @ jv.T + jw @ inertia @ jw.T
    return mm


def setpoint(t):
    u = np.clip((t - T0) / T_MOVE, 0.0, 1.0)
    return Q_HOME + (Q_END - Q_HOME) * (1.0 - np.cos(np.pi * u)) / 2.0


def arm_rhs(t, y):
    """y = (q, q', i): the arm + rotors + gears + motors + loops."""
    q, qd, cur = y[:3], y[3:6], y[6:]
    kin = kinematics(q)
    mm = mass_matrix(kin) + np.diag(J_M * RATIO ** 2)
    bias = inverse_dynamics(q, qd, (0.0, 0.0, 0.0), kin=kin)
    drive = RATIO * K_M * cur - (B_M + B_G) * RATIO ** 2 * qd
    qdd = np.linalg.solve(mm, drive - bias)
    volts = KP * (setpoint(t) - q)
    didt = (volts - R_M * cur - K_M * RATIO * qd) / L_M
    return np.concatenate([qd, qdd, didt])


def gravity_torques(b, c):
    """Closed form: the flange torques that hold the arm still at shoulder b, elbow c
    (the waist axis is vertical: gravity has no moment about it)."""
    cb, cbc = np.cos(b), np.cos(b + c)
    t_s = G * (M_UPPER * L1 / 2 * cb + M_FORE * (L1 * cb + L2 / 2 * cbc)
               + M_TOOL * (L1 * cb + L2 * cbc))
    t_e = G * (M_FORE * L2 / 2 + M_TOOL * L2) * cbc
    return np.array([0.0 * b, t_s, t_e])


def static_pose():
    """The rest pose at the end set-point: q = q_end - R*tau_g(q)/(k*N*Kp) (the loop's
    u = Kp*(q_end - q) equals R*i at rest, and k*N*i = tau_g), by fixed-point iteration
    (it contracts by ~0.005 per pass)."""
    q = Q_END.copy()
    for _ in range(50):
        q = Q_END - R_M * gravity_torques(q[1], q[2]) / (K_M * RATIO * KP)
    return q


def forward_kinematics(a, b, c):
    """The header's formula for the tool centre."""
    r = L1 * np.cos(b) + L2 * np.cos(b + c)
    return np.array([r * np.cos(a), r * np.sin(a), H0 + L1 * np.sin(b) + L2 * np.sin(b + c)])


class Reference:
    """The reference solution, integrated once over [0, T_END] in three pieces."""

    def __init__(self):
        y = np.concatenate([Q_HOME, np.zeros(3), np.zeros(3)])
        self.pieces = []
        for a, b in ((0.0, T0), (T0, T0 + T_MOVE), (T0 + T_MOVE, T_END)):
            sol = solve_ivp(arm_rhs, (a, b), y, method="LSODA", rtol=1e-11, atol=1e-13,
                            dense_output=True)
            assert sol.success, sol.message
            self.pieces.append((a, b, sol.sol))
            y = sol.y[:, -1]

    def __call__(self, t):
        """rows: a, b, c, a', b', c', i_w, i_s, i_e at the times t."""
        t = np.asarray(t, dtype=float)
        out = np.full((9, t.size), np.nan)
        for a, b, sol in self.pieces:
            mask = (t >= a) & (t <= b)
            if mask.any():
                out[:, mask] = sol(t[mask])
        assert np.isfinite(out).all(), "times outside the reference's span"
        return out

    def flange_torques(self, t):
        """ID(q, q', q'') along the reference: the torques the flanges must carry."""
        y = self(t)
        tau = np.empty((3, y.shape[1]))
        for j in range(y.shape[1]):
            qdd = arm_rhs(t[j], y[:, j])[3:6]
            tau[:, j] = inverse_dynamics(y[:3, j], y[3:6, j], qdd)
        return tau


# --- fixtures: each simulation once ------------------------------------------------------
@pytest.fixture(scope="module")
def net():
    return circuitsim.load(NETLIST)


@pytest.fixture(scope="module")
def ref():
    return Reference()


@pytest.fixture(scope="module")
def base(net):
    """The netlist as written (position model), the whole run, rtol 1e-8."""
    return net.simulate(t_end=T_END, tstep=TSTEP, rtol=1e-8, atol=1e-10)


@pytest.fixture(scope="module")
def fast(net):
    """Study fast (velocity model), the whole run, at the base run's tolerances."""
    return net.simulate(t_end=T_END, tstep=TSTEP, rtol=1e-8, atol=1e-10, study="fast")


@pytest.fixture(scope="module")
def soft(net):
    """Study soft (elastic joints, defaults k = 1e8 N/m, kr = 1e6 N m/rad)."""
    return net.simulate(t_end=T_SOFT, tstep=TSTEP_SOFT, rtol=1e-6, atol=1e-8, study="soft")


@pytest.fixture(scope="module")
def soft_stiff(net):
    """Study soft with every joint 10x stiffer (k = 1e9 N/m, kr = 1e7 N m/rad)."""
    stiffer = [f"{j}.{p}={v:g}" for j in "WSEF" for p, v in (("k", 1e9), ("kr", 1e7))]
    return net.simulate(t_end=T_SOFT, tstep=TSTEP_SOFT, rtol=1e-6, atol=1e-8, study="soft",
                        set=stiffer)


def _rows(res, names):
    return np.array([res[n] for n in names])


def _maxerr(res, names, expected, mask=None):
    """max |simulated - expected| per row (over the times in mask)."""
    diff = np.abs(_rows(res, names) - expected)
    if mask is not None:
        diff = diff[:, mask]
    return diff.max(axis=1)


# --- tests --------------------------------------------------------------------------------
def test_reference_self_check():
    """The reference's two derivations agree: the Jacobian mass matrix equals the Newton-
    Euler columns ID(q, 0, e_j) - ID(q, 0, 0) at g = 0 (to 1e-15), and ID(q, 0, 0) equals
    the closed-form gravity torques (to 1e-13 N m), at random poses. Also the rotor
    inertias J_m N^2 of the header, (0.2, 0.512, 0.2) kg m^2."""
    rng = np.random.default_rng(7)
    zero = np.zeros(3)
    for _ in range(5):
        q = rng.uniform(-np.pi, np.pi, 3)
        kin = kinematics(q)
        by_columns = np.column_stack([inverse_dynamics(q, zero, e, g=0.0)
                                      for e in np.eye(3)])
        mm = mass_matrix(kin)
        assert np.abs(by_columns - mm).max() < 1e-14
        assert np.abs(mm - mm.T).max() < 1e-15
        assert np.all(np.linalg.eigvalsh(mm) > 0)
        assert np.abs(inverse_dynamics(q, zero, zero) - gravity_torques(q[1], q[2])).max() \
            < 1e-13
    np.testing.assert_allclose(J_M * RATIO ** 2, [0.2, 0.512, 0.2], rtol=1e-12)


def test_start_state(base, ref):
    """The run starts from the .ic home pose with the currents at 0 (the reference's start),
    and the initial flange torques are the rotors' reaction to the gravity sag,
    -J_m N^2 q''(0) = ID(q0, 0, q''(0)) (S.tau(0) = 4.09 N m, E.tau(0) = 1.43 N m;
    measured to 2e-8 N m).
    Measured: the recorded t = 0 row holds the flange rates the arm has 6.0e-9 s later
    (ws(0) = q''(0)*6e-9 = -4.8e-8 rad/s): the start-up's backward-Euler fallback
    (3 steps of 1e-9*t_end) leaves those index-2 rates where the steps put them; the
    tolerance on the rates below admits that (2e-7 rad/s)."""
    assert base.t[0] == 0.0
    np.testing.assert_allclose(_rows(base, ANGLES)[:, 0], Q_HOME, atol=1e-12)
    assert np.abs(_rows(base, CURRENTS)[:, 0]).max() < 1e-10
    assert np.abs(_rows(base, RATES)[:, 0]).max() < 2e-7
    y0 = ref(np.array([0.0]))[:, 0]
    qdd0 = arm_rhs(0.0, y0)[3:6]
    assert qdd0[1] < -7.0 and qdd0[2] < -7.0          # the arm sags before the motors act
    expected = inverse_dynamics(Q_HOME, np.zeros(3), qdd0)
    np.testing.assert_allclose(expected, -J_M * RATIO ** 2 * qdd0, atol=1e-12)
    assert np.abs(_rows(base, TORQUES)[:, 0] - expected).max() < 2e-7


def test_position_model_vs_reference(base, ref):
    """The netlist as written (position model), the whole 2 s at rtol 1e-8, against the
    reference at every recorded point (5 ms; the same maxima to 2 digits at 1 ms).
    Measured (max over the run) and asserted:
      angles W, S, E        1.5e-9, 2.8e-10, 3.0e-10 rad      < 5e-9, 1.5e-9, 1.5e-9
      currents W, S, E      2.9e-7, 6.7e-8, 7.2e-8 A          < 1e-6, 3e-7, 3e-7
                            (peaks 1.41, 2.07, 0.85 A)
      flange rates          4.3e-8, 4.8e-8 (t = 0), 4.3e-8    < 2e-7 rad/s
      flange torques vs ID(q, q', q'')  2.3e-6, 8.7e-7, 6.5e-7 N m  < 1e-5
                            (this fixes the sign of conventions.md §5)
      loop voltages uw, us, ue 1.5e-7, 8.3e-8, 6.1e-8 V       < 6e-7
    The errors follow rtol (at 1e-7: 6.4e-8 rad and 8.2e-6 A on the waist; at 1e-9:
    2.9e-10 rad, 4.3e-8 A), i.e. they are the engine's integration error. The loop
    voltages peak at 12.9 V (waist), 7.4 V, 8.8 V in the reference."""
    t = base.t
    assert t[-1] == pytest.approx(T_END)
    y = ref(t)
    err = _maxerr(base, ANGLES, y[:3])
    assert np.all(err < [5e-9, 1.5e-9, 1.5e-9]), err
    err = _maxerr(base, CURRENTS, y[6:])
    assert np.all(err < [1e-6, 3e-7, 3e-7]), err
    err = _maxerr(base, RATES, y[3:6])
    assert np.all(err < 2e-7), err
    err = _maxerr(base, TORQUES, ref.flange_torques(t))
    assert np.all(err < 1e-5), err
    volts = KP[:, None] * (np.array([setpoint(tt) for tt in t]).T - y[:3])
    err = _maxerr(base, VOLTAGES, volts)
    assert np.all(err < 6e-7), err
    # the motion is the planned one: the arm travels from home to the end pose
    assert np.abs(y[:3, -1] - Q_END).max() < 0.01
    assert np.ptp(base["W.angle"]) > 1.5


def test_travel_inside_the_end_stops(ref):
    """The header's "end stops do not touch": the reference's angles stay > 25 deg inside
    every stop (the closest: the elbow's lower stop, 50 deg away; the waist overshoots
    90 deg by 0.33 deg)."""
    y = ref(np.linspace(0.0, T_END, 4001))
    lo, hi = LIMITS[:, 0], LIMITS[:, 1]
    assert np.all(y[:3].min(axis=1) - lo > np.radians(25))
    assert np.all(hi - y[:3].max(axis=1) > np.radians(25))


def test_holding_currents_and_static_pose(base, ref):
    """At t = 2 s the arm rests at the end set-point (90, 20, -40) deg. From the closed-form
    gravity torques tau_g (masses and geometry only):
      shoulder and elbow currents = tau_g(b, c)/(k*ratio) at the simulated angles
          (1.6891 A, 0.7074 A): measured 3.5e-9, 2.2e-9 A, asserted < 2e-8 A
      set-point error = R*i/Kp (the loop's u = R*i at rest): measured 1.3e-11 rad,
          asserted < 1e-10 rad; it is 5.6e-3 rad (0.32 deg) on the shoulder and
          3.5e-3 rad on the elbow
      pose = the fixed point q = q_end - R*tau_g(q)/(k*ratio*Kp): measured 1.1e-12 rad,
          asserted < 1e-10 rad
      flange torques S.tau, E.tau = tau_g (13.51, 3.54 N m): measured 2.0e-8 N m,
          asserted < 1e-6 N m
      waist (no gravity torque): current 1.4e-5 A -> 0 and angle 2.0e-7 rad from the
          set-point, the loop's last swing still decaying (the reference has the same
          1.3952e-5 A, 2.014e-7 rad at t = 2 s): asserted < 5e-5 A, < 1e-6 rad.
    The transient left at t = 2 s (reference minus static solution) is 3e-12 rad and
    3e-9 A on the shoulder and elbow."""
    a, b, c = _rows(base, ANGLES)[:, -1]
    cur = _rows(base, CURRENTS)[:, -1]
    tau_g = gravity_torques(b, c)
    hold = tau_g / (K_M * RATIO)
    assert hold[1] > 1.5 and hold[2] > 0.5
    assert np.abs(cur[1:] - hold[1:]).max() < 2e-8
    error = Q_END - np.array([a, b, c])
    assert np.abs(error[1:] - R_M * cur[1:] / KP[1:]).max() < 1e-10
    assert error[1] > 5e-3 and error[2] > 3e-3        # the proportional loop's droop
    q_static = static_pose()
    assert np.abs(np.array([a, b, c])[1:] - q_static[1:]).max() < 1e-10
    assert np.abs(_rows(base, TORQUES)[1:, -1] - tau_g[1:]).max() < 1e-6
    assert np.abs(_rows(base, RATES)[1:, -1]).max() < 1e-8
    # waist
    assert tau_g[0] == 0.0
    assert abs(cur[0]) < 5e-5
    assert abs(a - Q_END[0]) < 1e-6
    # the reference is settled too (so the closed forms are the right comparison)
    y_end = ref(np.array([T_END]))[:, 0]
    assert np.abs(y_end[1:3] - q_static[1:]).max() < 1e-10
    assert np.abs(y_end[7:9] - gravity_torques(*q_static[1:])[1:] / (K_M * RATIO[1:])).max() \
        < 2e-8


def test_tool_position_vs_forward_kinematics(base, fast, soft, ref):
    """tool.x/y/z (the welded tool body's centre) against the header's formula.
    Position model, whole run, rtol 1e-8: vs FK(simulated angles) 1.3e-8 m, vs
    FK(reference angles) 1.3e-8 m (asserted < 5e-8 m). The difference is the bodies'
    azimuth about the waist lagging the integrated W.angle by ~2e-8 rad from t ~ 0.7 s on;
    it follows rtol (1.6e-7 m at 1e-7, 2.4e-9 m at 1e-9): integration error of the body
    positions, which the revolute's angle coordinate (a separate integral of the flange
    rate) does not share.
    Velocity model (fast, rtol 1e-8): 1.6e-8 m (< 5e-8). Elastic (soft, 0.3 s): 5.8e-6 m
    (< 2e-5 m; the joints' elastic deflections, see test_soft_study).
    End pose: the tool at FK(static pose, with the simulated waist angle, whose last
    swing is 2e-7 rad = 1.5e-7 m at the tool): measured 4e-10 m (< 5e-8 m)."""
    for label, res, tol in (("base", base, 5e-8), ("fast", fast, 5e-8), ("soft", soft, 2e-5)):
        fk = forward_kinematics(*_rows(res, ANGLES))
        err = _maxerr(res, TOOL, fk)
        assert np.all(err < tol), (label, err)
    err = _maxerr(base, TOOL, forward_kinematics(*ref(base.t)[:3]))
    assert np.all(err < 5e-8), err
    # the home pose and the end pose are the header's
    np.testing.assert_allclose(_rows(base, TOOL)[:, 0], forward_kinematics(*Q_HOME),
                               atol=1e-12)
    end = static_pose()
    end[0] = base["W.angle"][-1]
    np.testing.assert_allclose(_rows(base, TOOL)[:, -1], forward_kinematics(*end), atol=5e-8)


def test_fast_study(fast, base, ref):
    """Study fast (velocity model: the joints hold velocities only, positions free to
    drift), the whole run at rtol 1e-8, against the reference and against the position
    model (the base run), with the base run's tolerances.
    Measured vs reference: angles 1.4e-9, 2.8e-10, 2.8e-10 rad (asserted < 5e-9, 1.5e-9,
    1.5e-9); currents 2.6e-7, 5.0e-8, 6.1e-8 A (< 1e-6, 3e-7, 3e-7).
    Measured vs the base run: angles 9.6e-10, 1.5e-10, 2.2e-10 rad; currents 2.1e-7,
    6.4e-8, 6.3e-8 A (same bounds). The velocity model's drift does not show at this
    level (at rtol 1e-7 its errors are 1.1e-8 rad, 1.1e-6 A: integration error)."""
    assert np.allclose(fast.t, base.t)
    y = ref(fast.t)
    for expected_angles, expected_currents in ((y[:3], y[6:]),
                                               (_rows(base, ANGLES), _rows(base, CURRENTS))):
        err = _maxerr(fast, ANGLES, expected_angles)
        assert np.all(err < [5e-9, 1.5e-9, 1.5e-9]), err
        err = _maxerr(fast, CURRENTS, expected_currents)
        assert np.all(err < [1e-6, 3e-7, 3e-7]), err


def test_soft_study(soft, soft_stiff, base, ref):
    """Study soft (elastic joints, k = 1e8 N/m, kr = 1e6 N m/rad), 0.3 s at rtol 1e-6: the
    sag after release and the first 0.1 s of the motion (beyond ~0.32 s its step falls to
    ~7e-5 s with many rejections: 0.6 s costs ~40 s, so the test stops at 0.3 s).
    Its difference from the rigid reference is the joints' compliance, not integration
    error: identical at rtol 1e-5, and 10x smaller with 10x stiffer joints (at rtol 1e-5
    the 10x stiffer run's elbow, 1.8e-7 rad, is integration error: rtol 1e-6 here).
    Measured vs reference, and asserted:
      angles W, S, E                 8.9e-7, 3.5e-6, 8.3e-7 rad   < 3e-6, 1e-5, 3e-6
      currents, whole window         2.1e-4, 9.7e-3, 2.4e-3 A     < 1e-3, 3e-2, 1e-2
          (the largest at t ~ 2 ms: the elastic joints take up the load with a
           vibration at the start)
      currents, t >= 0.05 s          2.1e-4, 7.8e-4, 1.1e-4 A     < 1e-3, 3e-3, 5e-4
      the same, k and kr x10: angles 8.7e-8, 3.5e-7, 4.2e-8 rad; currents (t >= 0.05 s)
          2.1e-5, 7.5e-5, 1.1e-5 A; ratio to the default stiffness 0.05-0.10 (angles),
          0.10 (currents): asserted < 0.2 (the x10 and x100 runs give 3.5e-7 and 2.9e-8
          rad on the shoulder: the difference goes as 1/k)
      soft vs the position model at the base run's 5 ms points: angles 8.9e-7, 3.0e-6,
          3.2e-7 rad, currents (t >= 0.05 s) 2.1e-4, 7.8e-4, 1.1e-4 A (same bounds)."""
    t = soft.t
    assert t[-1] == pytest.approx(T_SOFT)
    y = ref(t)
    late = t >= 0.05
    e_ang = _maxerr(soft, ANGLES, y[:3])
    e_cur = _maxerr(soft, CURRENTS, y[6:])
    e_cur_late = _maxerr(soft, CURRENTS, y[6:], late)
    assert np.all(e_ang < [3e-6, 1e-5, 3e-6]), e_ang
    assert np.all(e_cur < [1e-3, 3e-2, 1e-2]), e_cur
    assert np.all(e_cur_late < [1e-3, 3e-3, 5e-4]), e_cur_late
    # the compliance: 10x stiffer joints, 10x smaller difference
    assert np.allclose(soft_stiff.t, t)
    s_ang = _maxerr(soft_stiff, ANGLES, y[:3])
    s_cur_late = _maxerr(soft_stiff, CURRENTS, y[6:], late)
    assert np.all(s_ang < 0.2 * e_ang), (s_ang, e_ang)
    assert np.all(s_cur_late < 0.2 * e_cur_late), (s_cur_late, e_cur_late)
    # against the position model at its recorded times in the window
    idx = np.searchsorted(t, base.t[base.t <= T_SOFT + 1e-12])
    assert np.allclose(t[idx], base.t[:len(idx)])
    n = len(idx)
    b_ang = _rows(base, ANGLES)[:, :n]
    b_cur = _rows(base, CURRENTS)[:, :n]
    d_ang = np.abs(_rows(soft, ANGLES)[:, idx] - b_ang).max(axis=1)
    d_cur = np.abs(_rows(soft, CURRENTS)[:, idx] - b_cur)[:, t[idx] >= 0.05].max(axis=1)
    assert np.all(d_ang < [3e-6, 1e-5, 3e-6]), d_ang
    assert np.all(d_cur < [1e-3, 3e-3, 5e-4]), d_cur
