"""Prescribed joint motion (``.drive J.angle={x(time)}``): the coordinate held at x(t),
the drive's torque or force against closed forms and an independent model, at the
default tolerances and at rtol 1e-9 / atol 1e-12."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import circuitsim

TIGHT = dict(rtol=1e-9, atol=1e-12)
DEFAULT = dict(rtol=1e-6, atol=1e-9)
G = 9.81

# pendulum: a body hanging from a hinge at the origin (axis z), driven θ = A sin(ωt)
M, L, JZ, A, W = 2.0, 0.4, 0.03, 0.5, 3.0
PENDULUM = f""".title driven pendulum
.param A={A} w={W}
body B m={M} J=(0.01, 0.02, {JZ}) pos=(0, -{L}, 0)
revolute R1 0 B at=(0, 0, 0) axis=(0, 0, 1)
.drive R1.angle={{A*sin(w*time)}}
.gravity 0 -{G} 0
.tran TSTOP 0.01 TOLERANCES
"""


def _pendulum(tstop, tol):
    return _run(PENDULUM.replace("TSTOP", str(tstop)), tol)


def _run(text, tol):
    return circuitsim.parse(text.replace("TOLERANCES", " ".join(
        f"{k}={v}" for k, v in tol.items()))).simulate()


@pytest.mark.parametrize("tol, torque, held, rate",
                         [(DEFAULT, 5e-4, 5e-6, 3e-8), (TIGHT, 2e-6, 5e-9, 3e-11)],
                         ids=["default", "tight"])
def test_driven_pendulum_torque_is_the_inverse_dynamics(tol, torque, held, rate):
    """τ = I θ'' + m g l sin θ (I = J_z + m l² about the pivot) at every output point
    over 5 s, 2.4 periods of the drive (measured: 1.1e-4 N·m at the default tolerances,
    2.3e-7 at tight, of 2.2 N·m); the angle measured on the body (its centre's direction
    from the pivot: 4.6e-7 rad, 2.7e-10 rad) and on the frames (J.drive.miss: 2.2e-6,
    2.1e-9 rad, at the interpolated output points) equals x(t) to the tolerance, the rate
    x'(t) closer (below 1e-12 rad/s at both); the joint's coordinate R1.angle, the
    integral of that rate, to 2.8e-6, 7.0e-9 rad."""
    res = _pendulum(5.0, tol)
    t = res.t
    theta, w, acc = A * np.sin(W * t), A * W * np.cos(W * t), -A * W * W * np.sin(W * t)
    tau = (JZ + M * L * L) * acc + M * G * L * np.sin(theta)
    assert np.abs(res["R1.drive.f"] - tau).max() < torque
    assert np.abs(np.arctan2(res["B.x"], -res["B.y"]) - theta).max() < held
    assert np.abs(res["R1.drive.miss"]).max() < held
    assert np.abs(res["R1.w"] - w).max() < rate
    assert np.abs(res["R1.angle"] - theta).max() < 3.0 * held
    np.testing.assert_array_equal(res["R1.drive.x"], theta)
    assert res.t[0] == 0.0 and res["R1.angle"][0] == 0.0 and res["R1.drive.f"][0] == \
        pytest.approx(0.0, abs=1e-9)


@pytest.mark.long
def test_driven_pendulum_does_not_drift():
    """The position is held, not only its rate: over 40 s (19 periods) at tight
    tolerances the angle on the frames (J.drive.miss) and on the body stay at the level
    of the first periods (measured over 100 s: 1.5e-9 rad in the first 10 s, 1.2e-9 in
    the last; 200 s at the default tolerances: 1.73e-6, 1.77e-6)."""
    res = _pendulum(40.0, TIGHT)
    t = res.t
    for error in (res["R1.drive.miss"],
                  np.arctan2(res["B.x"], -res["B.y"]) - A * np.sin(W * t)):
        first, last = np.abs(error[t < 5.0]).max(), np.abs(error[t > 35.0]).max()
        assert last < 5e-9 and last < 4.0 * first


def test_driven_slider_force_is_mass_times_acceleration():
    """A body on a prismatic joint driven s = s0 + a(1 − cos ωt): it starts at s0 (the
    start-up moves it there, as .ic does), and the force is m s'' = m a ω² cos ωt
    (measured at the default and the tight tolerances: the body's position 2.6e-8 m,
    2.2e-11 m; the joint's coordinate P1.s, the integral of its axis rate, 2.1e-6 m,
    3.9e-9 m; the force 8.8e-4 N, 1.0e-6 N of 2.4 N, largest in the first steps)."""
    m, s0, a, w = 3.0, 0.1, 0.05, 4.0
    text = f""".title driven slider
body S m={m} J=(0.01, 0.01, 0.01) pos=(0, 0, 0)
prismatic P1 0 S at=(0, 0, 0) axis=(1, 0, 0)
.drive P1.s={{{s0} + {a}*(1 - cos({w}*time))}}
.gravity 0 -{G} 0
.tran 2 0.01 TOLERANCES
"""
    for tol, force, held, integral in ((DEFAULT, 3e-3, 1e-7, 1e-5),
                                       (TIGHT, 3e-6, 1e-10, 2e-8)):
        res = _run(text, tol)
        t = res.t
        s = s0 + a * (1 - np.cos(w * t))
        assert np.abs(res["S.x"] - s).max() < held
        assert np.abs(res["P1.s"] - s).max() < integral     # the joint's integral of v
        assert np.abs(res["P1.drive.f"] - m * a * w * w * np.cos(w * t)).max() < force


# two-link arm in the plane z = 0, gravity -y: the shoulder S driven, the elbow E free
M1, M2, L1, C1, C2, I1, I2 = 1.5, 1.0, 0.5, 0.25, 0.2, 0.05, 0.03
A2, W2 = 0.8, 2.5
ARM = f""".title two-link arm, shoulder driven
body L1 m={M1} J=(0.01, {I1}, {I1}) pos=({C1}, 0, 0)
body L2 m={M2} J=(0.01, {I2}, {I2}) pos=({L1 + C2}, 0, 0)
revolute S 0 L1 at=(0, 0, 0) axis=(0, 0, 1)
revolute E L1 L2 at=({L1}, 0, 0) axis=(0, 0, 1)
.drive S.angle={{{A2}*(1 - cos({W2}*time))}}
.gravity 0 -{G} 0
.tran 3 0.01 TOLERANCES
"""


def _shoulder(t):
    c = A2 * (1 - np.cos(W2 * t))
    return c, A2 * W2 * np.sin(W2 * t), A2 * W2 * W2 * np.cos(W2 * t)


def _elbow_acceleration(t, q1, d1, dd1, q2):
    """From the Lagrangian of the two links (the angles from the x axis: link 1 at q1,
    link 2 at q1 + q2): (I2 + m2 c2²)(q1'' + q2'') + m2 L1 c2 (cos q2 q1'' + sin q2 q1'²)
    + m2 g c2 cos(q1 + q2) = 0."""
    M22 = I2 + M2 * C2 * C2
    M21 = M22 + M2 * L1 * C2 * np.cos(q2)
    return -(M21 * dd1 + M2 * L1 * C2 * np.sin(q2) * d1 * d1
             + M2 * G * C2 * np.cos(q1 + q2)) / M22


def _arm_reference(t_out):
    def rhs(t, y):
        q1, d1, dd1 = _shoulder(t)
        return [y[1], _elbow_acceleration(t, q1, d1, dd1, y[0])]
    sol = solve_ivp(rhs, (0.0, t_out[-1]), [0.0, 0.0], t_eval=t_out, method="DOP853",
                    rtol=1e-12, atol=1e-13)
    q2, d2 = sol.y
    q1, d1, dd1 = _shoulder(t_out)
    dd2 = _elbow_acceleration(t_out, q1, d1, dd1, q2)
    # the shoulder's torque: the first Lagrange equation
    M11 = I1 + I2 + M1 * C1 ** 2 + M2 * (L1 ** 2 + C2 ** 2 + 2 * L1 * C2 * np.cos(q2))
    M12 = I2 + M2 * C2 * C2 + M2 * L1 * C2 * np.cos(q2)
    tau = (M11 * dd1 + M12 * dd2 - M2 * L1 * C2 * np.sin(q2) * (2 * d1 * d2 + d2 * d2)
           + (M1 * C1 + M2 * L1) * G * np.cos(q1) + M2 * G * C2 * np.cos(q1 + q2))
    return q2, tau


@pytest.mark.parametrize("tol, elbow, torque", [(DEFAULT, 5e-5, 1e-3), (TIGHT, 1e-7, 2e-6)],
                         ids=["default", "tight"])
def test_two_link_arm_with_driven_shoulder_matches_the_lagrangian(tol, elbow, torque):
    """The free elbow's angle against solve_ivp of its equation with the shoulder's
    prescribed motion (DOP853, rtol 1e-12), and the shoulder's torque against the first
    Lagrange equation (measured at the default and the tight tolerances: elbow 1.8e-5
    rad, 2.2e-8 rad; torque 2.7e-4 N·m, 3.8e-7 N·m of 11 N·m)."""
    res = _run(ARM, tol)
    q2, tau = _arm_reference(res.t)
    assert np.abs(res["E.angle"] - q2).max() < elbow
    assert np.abs(res["S.drive.f"] - tau).max() < torque
    assert np.abs(res["S.angle"] - _shoulder(res.t)[0]).max() < elbow
