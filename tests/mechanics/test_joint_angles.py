"""Joint angles of the universal (Cardan) and spherical (ball) joints: `.ic` targets of
the start-up's assembly and recorded outputs, against closed forms and independent
computations (rotation matrices composed here, a Lagrangian ODE, a torque-free body
integrated with scipy)."""
import numpy as np
import pytest
import sympy as sp
from scipy.integrate import solve_ivp

import circuitsim
from circuitsim.errors import ModelError, NetlistError

TIGHT = "rtol=1e-9 atol=1e-12"


def rot(axis, angle):
    """Rodrigues: the rotation by ``angle`` about ``axis``."""
    n = np.asarray(axis, float) / np.linalg.norm(axis)
    K = np.array([[0, -n[2], n[1]], [n[2], 0, -n[0]], [-n[1], n[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def dcm(q):
    """Local → global rotation of the unit quaternion (q0 scalar)."""
    q0, q1, q2, q3 = np.asarray(q) / np.linalg.norm(q)
    return np.array([
        [q0 * q0 + q1 * q1 - q2 * q2 - q3 * q3, 2 * (q1 * q2 - q0 * q3), 2 * (q1 * q3 + q0 * q2)],
        [2 * (q1 * q2 + q0 * q3), q0 * q0 - q1 * q1 + q2 * q2 - q3 * q3, 2 * (q2 * q3 - q0 * q1)],
        [2 * (q1 * q3 - q0 * q2), 2 * (q2 * q3 + q0 * q1), q0 * q0 - q1 * q1 - q2 * q2 + q3 * q3]])


def pose(res, body, k=0):
    """(rotation matrix, centre of mass) of ``body`` at output sample k."""
    A = dcm([res[f"{body}.q{i}"][k] for i in range(4)])
    return A, np.array([res[f"{body}.{c}"][k] for c in "xyz"])


def wrapped(a):
    return np.angle(np.exp(1j * np.asarray(a)))


# --- universal joint: a Cardan shaft ------------------------------------------------------

BETA, W_IN = np.radians(30), 3.0
CB, SB = np.cos(BETA), np.sin(BETA)
SHAFT = f"""* Cardan shaft: input along x driven at {W_IN} rad/s, output at 30 deg in the xy plane;
* the cross: axis1 = y (in the shafts' plane as drawn) on the input, axis2 = z on the output
body S1 m=1 J=(1e-3, 1e-3, 1e-3) pos=(-0.2, 0, 0)
body S2 m=1 J=(1e-3, 1e-3, 1e-3) pos=({0.2 * CB}, {0.2 * SB}, 0)
revolute R1 0 S1 at=(-0.2, 0, 0) axis=(1, 0, 0) flange=input
revolute R2 0 S2 at=({0.2 * CB}, {0.2 * SB}, 0) axis=({CB}, {SB}, 0) flange=output
universal U S1 S2 at=(0, 0, 0) axis1=(0, 1, 0) axis2=(0, 0, 1)
V Win input 0 V={W_IN}
"""


@pytest.mark.parametrize("tol,opts", [(1e-5, ""), (3e-8, TIGHT)])
def test_cardan_shaft_speed_ratio_and_cross_angles(tol, opts):
    """θ the input angle (yoke in the shafts' plane at θ = 0), β = 30°:
    ω2/ω1 = cos β / (1 − sin²β cos²θ) (tan φ = tan θ / cos β); the cross turns relative
    to the input shaft by angle1 = atan(tan β sin θ) about axis1 and relative to it the
    output by angle2 = asin(sin β cos θ) − β about axis2 (the output axis, expressed in
    the input shaft's axes, is (cos β, sin β cos θ, −sin β sin θ) = Ry(angle1)·Rz(angle2)
    applied to its drawn direction); U.w1, U.w2 their time derivatives. Observed errors:
    3.2e-7 / 4.3e-10 (default / tight) relative on the ratio, 2.5e-6 / 7.4e-9 rad on
    the angles, 1.8e-6 / 2.5e-9 rad/s on the rates."""
    res = circuitsim.parse(SHAFT + f".tran 2 5m {opts}\n", "shaft.cir").simulate()
    th = res["R1.angle"]
    np.testing.assert_allclose(th, W_IN * res.t, atol=1e-12)
    ratio = CB / (1 - SB ** 2 * np.cos(th) ** 2)
    np.testing.assert_allclose(res["output"], W_IN * ratio, rtol=tol)
    np.testing.assert_allclose(res["R2.angle"], np.unwrap(np.arctan2(np.sin(th), CB * np.cos(th))),
                               atol=tol)
    np.testing.assert_allclose(res["U.angle1"], np.arctan(np.tan(BETA) * np.sin(th)), atol=tol)
    np.testing.assert_allclose(res["U.angle2"], np.arcsin(SB * np.cos(th)) - BETA, atol=tol)
    w1 = W_IN * np.tan(BETA) * np.cos(th) / (1 + np.tan(BETA) ** 2 * np.sin(th) ** 2)
    w2 = -W_IN * SB * np.sin(th) / np.sqrt(1 - SB ** 2 * np.cos(th) ** 2)
    np.testing.assert_allclose(res["U.w1"], w1, atol=tol)
    np.testing.assert_allclose(res["U.w2"], w2, atol=tol)


def test_cardan_cross_flange_drives_the_output():
    """The axis nodes carry torque: a torque source on U.w2 of a universal joint whose
    frame 1 is the ground (the cross's axis1 fixed in space, axis2 in the body) spins the
    body about axis2 alone at a rate M·t/J (the body's moment about axis2 through its
    centre, the joint at the centre)."""
    text = """
body B m=2 J=(0.1, 0.2, 0.3) pos=(0, 0, 0)
universal U 0 B at=(0, 0, 0) axis1=(1, 0, 0) axis2=(0, 1, 0) flange2=drive
I M 0 drive I=0.5
.tran 1 10m rtol=1e-9 atol=1e-12
"""
    res = circuitsim.parse(text, "drive.cir").simulate()
    np.testing.assert_allclose(res["drive"], 0.5 * res.t / 0.2, atol=1e-9)
    np.testing.assert_allclose(res["U.angle2"], 0.5 * res.t ** 2 / 0.4, atol=1e-9)
    assert np.abs(res["U.angle1"]).max() < 1e-12


# --- universal joint: tilted Cardan pendulums posed by their joint angles -------------------

A1, A2 = np.array([1.0, 1.0, 0.0]) / np.sqrt(2), np.array([-1.0, 1.0, 0.0]) / np.sqrt(2)
DOUBLE = f"""
.gravity 0 0 -9.81
body B1 m=1.5 J=(0.02, 0.03, 0.01) pos=(0, 0, -0.5)
body B2 m=0.8 J=(0.01, 0.02, 0.015) pos=(0, 0, -1.5) rot=(0, 0, 1, 30deg)
universal U1 0 B1 at=(0, 0, 0) axis1=({A1[0]}, {A1[1]}, 0) axis2=({A2[0]}, {A2[1]}, 0)
universal U2 B1 B2 at=(0, 0, -1) axis1=(1, 0, 0) axis2=(0, 1, 0)
.ic U1.angle1=0.4 U1.angle2=-0.3 U2.angle1=0.7 U2.angle2=0.5
.tran 0.5 10m
"""


def test_cardan_double_pendulum_posed_by_its_joint_angles():
    """R_rel = Rot(axis1, angle1)·Rot(axis2, angle2) relative to the drawn pose: B1 turns
    by R1 = Rot(a1, 0.4)·Rot(a2, −0.3); B2 (drawn turned 30° about z) by
    A2 = R1·Rot(x, 0.7)·Rot(y, 0.5)·A2(0); the centres follow the arms drawn from the
    joint points. Equal to 1e-12; the recorded angles start at the set values."""
    res = circuitsim.parse(DOUBLE, "double.cir").simulate()
    R1 = rot(A1, 0.4) @ rot(A2, -0.3)
    R2 = R1 @ rot([1, 0, 0], 0.7) @ rot([0, 1, 0], 0.5)
    A, c = pose(res, "B1")
    np.testing.assert_allclose(A, R1, atol=1e-12)
    np.testing.assert_allclose(c, R1 @ [0, 0, -0.5], atol=1e-12)
    A, c = pose(res, "B2")
    np.testing.assert_allclose(A, R2 @ rot([0, 0, 1], np.radians(30)), atol=1e-12)
    np.testing.assert_allclose(c, R1 @ [0, 0, -1] + R2 @ [0, 0, -0.5], atol=1e-12)
    for name, value in (("U1.angle1", 0.4), ("U1.angle2", -0.3), ("U2.angle1", 0.7),
                        ("U2.angle2", 0.5)):
        assert res[name][0] == pytest.approx(value, abs=1e-12), name
    assert res["U1.gap"][0] < 1e-12 and res["U2.twist"][0] < 1e-12


X_AXIS, Y_AXIS = np.eye(3)[0], np.eye(3)[1]
DOUBLE_MASS = ((1.5, np.diag([0.02, 0.03, 0.01])), (0.8, np.diag([0.01, 0.02, 0.015])))


def _double_rhs(t, y):
    """The Cardan double pendulum of DOUBLE by Kane's method: the generalized inertia
    and active forces Σ_i J_viᵀ·m_i·(a_i − g) + J_ωiᵀ·(I_i·ω̇_i + ω_i × I_i·ω_i) = 0 with
    the axes u_k of the four joint angles (u0 = a1 fixed, u1 = Rot(a1, q0)·a2 on the
    first cross, u2 = B1·x on B1, u3 = B1·Rot(x, q2)·y on the second cross), ω1 = u0·q0'
    + u1·q1', ω2 = ω1 + u2·q2' + u3·q3', u_k' = (rate of the frame carrying it) × u_k;
    linear in q'': the columns of its matrix by unit q''. (Checked once against the
    Lagrangian written with sympy: equal to rounding; that derivation takes 30 s.)"""
    q, qd = y[:4], y[4:]
    C1 = rot(A1, q[0])
    B1 = C1 @ rot(A2, q[1])
    Rrel = rot(X_AXIS, q[2]) @ rot(Y_AXIS, q[3])
    B2 = B1 @ Rrel @ rot([0, 0, 1], np.radians(30))
    u = [A1, C1 @ A2, B1 @ X_AXIS, B1 @ rot(X_AXIS, q[2]) @ Y_AXIS]
    w1 = u[0] * qd[0] + u[1] * qd[1]
    w2 = w1 + u[2] * qd[2] + u[3] * qd[3]
    du = [np.cross(u[0] * qd[0], u[1]), np.cross(w1, u[2]), np.cross(w1 + u[2] * qd[2], u[3])]
    c1, P2, r2 = B1 @ [0, 0, -0.5], B1 @ [0, 0, -1.0], B1 @ Rrel @ [0, 0, -0.5]
    Jw1 = np.column_stack([u[0], u[1], np.zeros(3), np.zeros(3)])
    Jw2 = np.column_stack(u)
    Jv1 = np.column_stack([np.cross(Jw1[:, k], c1) for k in range(4)])
    Jv2 = np.column_stack([np.cross(u[k], P2 + r2 if k < 2 else r2) for k in range(4)])
    (m1, J1), (m2, J2) = DOUBLE_MASS
    I1, I2, g = B1 @ J1 @ B1.T, B2 @ J2 @ B2.T, np.array([0, 0, -9.81])

    def generalized(qdd):
        dw1 = u[0] * qdd[0] + u[1] * qdd[1] + du[0] * qd[1]
        dw2 = dw1 + u[2] * qdd[2] + u[3] * qdd[3] + du[1] * qd[2] + du[2] * qd[3]
        a1 = np.cross(dw1, c1) + np.cross(w1, np.cross(w1, c1))
        a2 = (np.cross(dw1, P2) + np.cross(w1, np.cross(w1, P2)) + np.cross(dw2, r2)
              + np.cross(w2, np.cross(w2, r2)))
        return (Jv1.T @ (m1 * (a1 - g)) + Jw1.T @ (I1 @ dw1 + np.cross(w1, I1 @ w1))
                + Jv2.T @ (m2 * (a2 - g)) + Jw2.T @ (I2 @ dw2 + np.cross(w2, I2 @ w2)))
    bias = generalized(np.zeros(4))
    M = np.column_stack([generalized(e) - bias for e in np.eye(4)])
    return np.concatenate([qd, np.linalg.solve(M, -bias)])


@pytest.mark.long
@pytest.mark.parametrize("tol,opts", [(5e-5, ""), (2e-7, TIGHT)])
def test_cardan_double_pendulum_moves_as_kanes_equations(tol, opts):
    """The double pendulum of DOUBLE posed by its joint angles and started with
    `.ic U1.w1=0.3 U1.w2=-0.2 U2.w1=0.5 U2.w2=0.1`: its four joint angles over 2 s
    against Kane's equations integrated by solve_ivp (rtol 1e-12); the angles swing over
    0.9, 0.6, 1.6 and 0.8 rad. Observed (default / tight): 1.6e-5 / 5.6e-8 rad (U2.angle1;
    the double pendulum amplifies the local errors)."""
    text = DOUBLE.replace(".tran 0.5 10m", f".tran 2 10m {opts}") + (
        ".ic U1.w1=0.3 U1.w2=-0.2 U2.w1=0.5 U2.w2=0.1\n")
    res = circuitsim.parse(text, "double.cir").simulate()
    ref = solve_ivp(_double_rhs, (0, 2), [0.4, -0.3, 0.7, 0.5, 0.3, -0.2, 0.5, 0.1],
                    t_eval=res.t, rtol=1e-12, atol=1e-13, method="DOP853")
    for k, name in enumerate(("U1.angle1", "U1.angle2", "U2.angle1", "U2.angle2")):
        np.testing.assert_allclose(res[name], ref.y[k], atol=tol, err_msg=name)


def _cardan_pendulum_rhs(m, J, L, g):
    """The Lagrangian ODE of a body on a Cardan joint to ground: orientation
    Rx(θ1)·Ry(θ2), centre of mass at A·(0, 0, −L), body-axes rate
    ω_b = (θ1' cos θ2, θ2', θ1' sin θ2), V = m·g·z."""
    t1, t2, d1, d2 = sp.symbols("t1 t2 d1 d2")
    c1, s1, c2, s2 = sp.cos(t1), sp.sin(t1), sp.cos(t2), sp.sin(t2)
    r = sp.Matrix([-L * s2, L * c2 * s1, -L * c2 * c1])
    rdot = r.jacobian([t1, t2]) * sp.Matrix([d1, d2])
    wb = [d1 * c2, d2, d1 * s2]
    T = m * (rdot.T * rdot)[0] / 2 + sum(Ji * w ** 2 for Ji, w in zip(J, wb)) / 2
    Lag = T - m * g * r[2]
    q, qd = [t1, t2], [d1, d2]
    M = sp.Matrix(2, 2, lambda i, j: sp.diff(Lag, qd[i], qd[j]))
    f = sp.Matrix([sp.diff(Lag, q[i]) - sum(sp.diff(Lag, qd[i], q[j]) * qd[j]
                                             for j in range(2)) for i in range(2)])
    Mf, ff = sp.lambdify((t1, t2, d1, d2), M), sp.lambdify((t1, t2, d1, d2), f)

    def rhs(t, y):
        acc = np.linalg.solve(np.array(Mf(*y), float), np.array(ff(*y), float).ravel())
        return [y[2], y[3], acc[0], acc[1]]
    return rhs


@pytest.mark.parametrize("tol,opts", [(3e-6, ""), (1e-8, TIGHT)])
def test_tilted_cardan_pendulum_against_its_lagrangian(tol, opts):
    """A body on a universal joint to ground (axis1 = x fixed in the ground, axis2 = y in
    the body), posed by `.ic U.angle1=0.5 U.angle2=0.3` and started with `.ic U.w1=0.2
    U.w2=-0.4` (its axis nodes): U.angle1, U.angle2, U.w1, U.w2 over 2 s against the
    2-DOF Lagrangian ODE (solve_ivp, rtol 1e-12; the angles swing over 1.06 and 0.59
    rad). Observed (default / tight): 5.1e-7 / 1.1e-9 rad on the angles, 6.5e-6 /
    1.1e-8 rad/s on the rates (asserted to 10·tol)."""
    m, J, L, g = 1.5, (0.02, 0.03, 0.01), 0.4, 9.81
    text = f"""
.gravity 0 0 -{g}
body B m={m} J=({J[0]}, {J[1]}, {J[2]}) pos=(0, 0, -{L})
universal U 0 B at=(0, 0, 0) axis1=(1, 0, 0) axis2=(0, 1, 0)
.ic U.angle1=0.5 U.angle2=0.3 U.w1=0.2 U.w2=-0.4
.tran 2 10m {opts}
"""
    res = circuitsim.parse(text, "pendulum.cir").simulate()
    ref = solve_ivp(_cardan_pendulum_rhs(m, J, L, g), (0, 2), [0.5, 0.3, 0.2, -0.4],
                    t_eval=res.t, rtol=1e-12, atol=1e-13, method="DOP853")
    for k, name in enumerate(("U.angle1", "U.angle2", "U.w1", "U.w2")):
        np.testing.assert_allclose(res[name], ref.y[k], atol=tol * (10 if k > 1 else 1),
                                   err_msg=name)
    A, c = pose(res, "B")
    np.testing.assert_allclose(A, rot([1, 0, 0], 0.5) @ rot([0, 1, 0], 0.3), atol=1e-12)


# --- spherical joint ---------------------------------------------------------------------

def xyz(angles):
    return rot([1, 0, 0], angles[0]) @ rot([0, 1, 0], angles[1]) @ rot([0, 0, 1], angles[2])


def xyz_of(R):
    """x-y-z Cardan angles of R (away from the singular set)."""
    return np.array([np.arctan2(-R[1, 2], R[2, 2]), np.arcsin(R[0, 2]),
                     np.arctan2(-R[0, 1], R[0, 0])])


BALL = """
body B m=2 J=(0.1, 0.2, 0.3) pos=(0.1, 0.2, -0.5) rot=(1, 2, 3, 40deg)
spherical S 0 B at=(0, 0, 0)
.ic {ics}
.tran 0.01 1m
"""


@pytest.mark.parametrize("angles,recorded", [
    ((0.4, -0.7, 2.5), (0.4, -0.7, 2.5)),
    ((-3.0, 1.2, 3.1), (-3.0, 1.2, 3.1)),
    # on the singular set angle2 = 90°: only angle1 + angle3 is defined, recorded as
    # angle1 with angle3 = 0
    ((0.3, np.pi / 2, 0.2), (0.5, np.pi / 2, 0.0)),
    ((0.3, -np.pi / 2, 0.2), (0.1, -np.pi / 2, 0.0)),
])
def test_ball_joint_posed_by_its_three_angles(angles, recorded):
    """`.ic S.angle1..3`: the body's rotation is Rx·Ry·Rz of the angles applied to its
    drawn orientation (40° about (1, 2, 3)), its centre turned about the joint point by
    the same, to 1e-12; the recorded angles at t = 0 equal the set ones (on the singular
    set: the documented pair)."""
    ics = " ".join(f"S.angle{k + 1}={a!r}" for k, a in enumerate(angles))
    res = circuitsim.parse(BALL.format(ics=ics), "ball.cir").simulate()
    R = xyz(angles)
    A, c = pose(res, "B")
    np.testing.assert_allclose(A, R @ rot([1, 2, 3], np.radians(40)), atol=1e-12)
    np.testing.assert_allclose(c, R @ [0.1, 0.2, -0.5], atol=1e-12)
    got = np.array([res[f"S.angle{k}"][0] for k in (1, 2, 3)])
    np.testing.assert_allclose(got, recorded, atol=1e-12)
    assert not np.isnan(np.column_stack([res[f"S.angle{k}"] for k in (1, 2, 3)])).any()


def test_ball_joint_triple_beyond_the_principal_range_is_recorded_as_its_equivalent():
    """(0.1, 2.0, 0.2) composes the same rotation as (0.1 − π, π − 2.0, 0.2 − π), the
    principal triple (angle2 in [−π/2, π/2]) recorded; the pose to 1e-12."""
    res = circuitsim.parse(BALL.format(ics="S.angle1=0.1 S.angle2=2.0 S.angle3=0.2"),
                           "ball.cir").simulate()
    got = np.array([res[f"S.angle{k}"][0] for k in (1, 2, 3)])
    np.testing.assert_allclose(got, [0.1 - np.pi, np.pi - 2.0, 0.2 - np.pi], atol=1e-12)
    np.testing.assert_allclose(pose(res, "B")[0], xyz((0.1, 2.0, 0.2))
                               @ rot([1, 2, 3], np.radians(40)), atol=1e-12)


def test_ball_joint_one_angle_set_alone():
    """`.ic S.angle1` alone is a target too (the other angles free): met to 1e-10."""
    res = circuitsim.parse(BALL.format(ics="S.angle1=-1.1"), "ball.cir").simulate()
    assert res["S.angle1"][0] == pytest.approx(-1.1, abs=1e-10)


@pytest.mark.parametrize("tol,opts", [(1e-5, ""), (3e-8, TIGHT)])
def test_spinning_body_on_a_ball_joint_records_its_angles(tol, opts):
    """A body spinning about an axis near its z (ω(0) = (0.5, 0.3, 5) rad/s) on a ball
    joint at its centre (no gravity: torque-free), 3 s: the recorded x-y-z angles against
    the orientation integrated independently (Euler's equations and the quaternion
    kinematics with solve_ivp, rtol 1e-12), compared modulo a turn (angle3 passes ±π
    about once a turn: the outputs are wrapped into (−π, π]; angle2 stays below 0.11
    rad). Observed (default / tight): 1.0e-6 / 4.1e-9 rad."""
    J = np.array([0.1, 0.2, 0.3])
    text = f"""
body B m=1 J=({J[0]}, {J[1]}, {J[2]}) pos=(0, 0, 0) w=(0.5, 0.3, 5)
spherical S 0 B at=(0, 0, 0)
.tran 3 10m {opts}
"""
    res = circuitsim.parse(text, "spin.cir").simulate()

    def rhs(t, y):
        q, w = y[:4], y[4:]
        wdot = -np.cross(w, J * w) / J
        q0, q1, q2, q3 = q
        qdot = 0.5 * np.array([-q1 * w[0] - q2 * w[1] - q3 * w[2],
                               q0 * w[0] + q2 * w[2] - q3 * w[1],
                               q0 * w[1] + q3 * w[0] - q1 * w[2],
                               q0 * w[2] + q1 * w[1] - q2 * w[0]])
        return np.concatenate([qdot, wdot])
    ref = solve_ivp(rhs, (0, 3), [1, 0, 0, 0, 0.5, 0.3, 5], t_eval=res.t, rtol=1e-12,
                    atol=1e-13, method="DOP853")
    expected = np.array([xyz_of(dcm(q)) for q in ref.y[:4].T])
    got = np.column_stack([res[f"S.angle{k}"] for k in (1, 2, 3)])
    assert np.abs(wrapped(got - expected)).max() < tol
    assert np.abs(np.diff(got[:, 2])).max() > 6.0          # angle3 wrapped past ±π
    assert np.abs(got[:, 1]).max() < np.pi / 2 - 0.5        # far from the singular set


# --- bad input ---------------------------------------------------------------------------

def test_unreachable_lone_angle_target_is_a_located_error():
    """angle2 alone beyond 90° cannot be met: the start-up's error names the joint."""
    with pytest.raises(ModelError) as info:
        circuitsim.parse(BALL.format(ics="S.angle2=2.0"), "bad.cir").simulate()
    message = str(info.value)
    assert "cannot be assembled" in message and "joints S (" in message
    assert "bad.cir:3:" in message


@pytest.mark.parametrize("text,fragment", [
    (BALL.format(ics="S.angel2=1"), "did you mean 'S.angle2'?"),
    (SHAFT + ".ic U.angle=1\n.tran 1\n", "did you mean 'U.angle"),
])
def test_unknown_joint_coordinate_in_ic_is_located(text, fragment):
    with pytest.raises(NetlistError) as info:
        circuitsim.parse(text, "bad.cir").simulate()
    message = str(info.value)
    assert fragment in message and "bad.cir:" in message and "neither a node" in message


# --- gradients used by the start-up ------------------------------------------------------

def _random_group(keyword, n=6, seed=4):
    from circuitsim.assembly.system import prepare_params
    from circuitsim.elements import element_types
    from circuitsim.elements.declarations import ElementInstance
    etype = element_types()[keyword]
    rng = np.random.default_rng(seed)
    insts = [ElementInstance(etype, f"X{i}", [f"n{j}" for j in range(len(etype.ports))],
                             {**etype.sample_params(rng), "model": "position"}, None, {},
                             [None] * len(etype.ports)) for i in range(n)]
    return etype, prepare_params(etype, insts), rng.normal(size=(n, etype.nvars(0)))


def _fd(f, x, step=1e-6):
    """Central differences of f(x) (N, k) by the quaternions' entries (N, k, nvars)."""
    out = np.zeros(f(x).shape + (x.shape[1],))
    for col in list(range(9, 13)) + list(range(22, 26)):
        xp, xm = x.copy(), x.copy()
        xp[:, col] += step
        xm[:, col] -= step
        out[:, :, col] = wrapped(f(xp) - f(xm)) / (2 * step)
    return out


def test_angle_gradients_equal_finite_differences():
    """The analytic ∂angle/∂q of the universal joint's coordinates and of the ball
    joint's single-angle targets (random poses, random bases) against central
    differences, to 1e-7 relative; the full-orientation miss's gradient where it is
    exact, at the target (r = 0)."""
    etype, p, x = _random_group("universal")
    values, grads = etype.coordinates(x, p)
    fd = _fd(lambda z: etype.coordinates(z, p)[0], x)
    np.testing.assert_allclose(grads, fd, atol=1e-7 * np.abs(fd).max())
    etype, p, x = _random_group("spherical")
    p.basis1 = p.basis2 = np.broadcast_to(np.eye(3), (len(x), 3, 3))   # orthonormal
    for k in range(3):                         # one angle set: its own miss
        one = np.full((len(x), 3), np.nan)
        one[:, k] = 0.0
        _, grads = etype.target_misses(x, p, one)
        fd = _fd(lambda z: etype.target_misses(z, p, one)[0][:, k:k + 1], x)
        np.testing.assert_allclose(grads[:, k:k + 1], fd, atol=1e-7 * np.abs(fd).max())
    all_three = np.column_stack([etype.added_output_values(x, p)[k] for k in (3, 4, 5)])
    miss, grads = etype.target_misses(x, p, all_three)
    assert np.abs(miss).max() < 1e-12
    fd = _fd(lambda z: etype.target_misses(z, p, all_three)[0], x)
    np.testing.assert_allclose(grads, fd, atol=1e-7 * np.abs(fd).max())
