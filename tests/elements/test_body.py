"""The rigid body element (conventions.md §3): kernel rows, quaternion kinematics, and a
torque-free body integrated on its own residual (energy and angular momentum)."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import circuitsim
from circuitsim.elements import quaternion as quat
from circuitsim.elements.base import initialisation_params
from circuitsim.elements.body import Body
from circuitsim.elements.declarations import ElementInstance
from circuitsim.elements.frames import skew
from circuitsim.errors import ModelError


def group(**params):
    """Prepared parameters of one body instance (defaults for what is not given)."""
    inst = ElementInstance(Body, "B", [f"B.{p.name}" for p in Body.ports], params)
    Body.check(inst)
    return inst, Body.prepare([inst])


def test_free_body_rows_are_newton_with_gravity():
    rng = np.random.default_rng(0)
    g = np.array([0.0, 0.0, -9.81])
    _, p = group(m=2.5, J=np.array([1.0, 2.0, 3.0]), g=g)
    x, xp = rng.normal(size=(1, 16)), rng.normal(size=(1, 16))
    x[0, 13:16] = 0.0                                  # no angular velocity
    x[0, 9:13] = quat.normalise(x[0, 9:13])
    F = Body.residual(0.0, x, xp, p)[0]
    np.testing.assert_allclose(F[0:3], 2.5 * xp[0, 0:3] - 2.5 * g, rtol=0, atol=1e-14)
    A = quat.dcm(x[0, 9:13])
    # A·Jc·ω_b' = (A·Jc·Aᵀ)·(A·ω_b'): the global inertia times the global angular acceleration
    J = A @ np.diag([1.0, 2.0, 3.0]) @ A.T
    np.testing.assert_allclose(F[3:6], J @ (A @ xp[0, 13:16]), rtol=0, atol=1e-13)
    np.testing.assert_allclose(F[6:9], xp[0, 6:9] - x[0, 0:3], rtol=0, atol=1e-15)
    np.testing.assert_allclose(F[9:13], xp[0, 9:13], rtol=0, atol=1e-15)  # q' = 0 when ω = 0
    np.testing.assert_allclose(F[13:16], -A.T @ x[0, 3:6], rtol=0, atol=1e-15)   # ω_b − Aᵀω


def test_quaternion_rate_moves_the_dcm_by_the_body_rate():
    """Along q' of equation (4): dA/dt = A·skew(ω_l) = skew(ω)·A; A orthonormal."""
    rng = np.random.default_rng(1)
    _, p = group(m=1.0, J=np.ones(3))
    for _ in range(5):
        q, w = quat.normalise(rng.normal(size=4)), rng.normal(size=3)
        x = np.concatenate([np.zeros(3), w, np.zeros(3), q, quat.dcm(q).T @ w])[None]
        qdot = -Body.residual(0.0, x, np.zeros((1, 16)), p)[0, 9:13]
        h = 1e-6
        dA = (quat.dcm(q + h * qdot) - quat.dcm(q - h * qdot)) / (2 * h)
        A = quat.dcm(q)
        np.testing.assert_allclose(dA, A @ skew(A.T @ w), atol=1e-9)
        np.testing.assert_allclose(dA, skew(w) @ A, atol=1e-9)
        np.testing.assert_allclose(A.T @ A, np.eye(3), atol=1e-14)
        assert np.linalg.det(A) == pytest.approx(1.0, abs=1e-14)


def test_axis_angle_and_euler_conventions():
    qz = quat.from_axis_angle([0.0, 0.0, 2.0], np.pi / 2)
    np.testing.assert_allclose(quat.dcm(qz) @ [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], atol=1e-15)
    phi, theta, psi = 0.3, -0.7, 1.9
    c, s = np.cos, np.sin
    Rx = np.array([[1, 0, 0], [0, c(phi), -s(phi)], [0, s(phi), c(phi)]])
    Ry = np.array([[c(theta), 0, s(theta)], [0, 1, 0], [-s(theta), 0, c(theta)]])
    Rz = np.array([[c(psi), -s(psi), 0], [s(psi), c(psi), 0], [0, 0, 1]])
    np.testing.assert_allclose(quat.dcm(quat.from_euler(phi, theta, psi)), Rz @ Ry @ Rx,
                               atol=1e-15)
    # the pendulum netlist's rot=(0, 1, 0, 90deg) turns the local z axis onto global x
    inst, _ = group(m=1.0, J=np.ones(3), rot=np.array([0.0, 1.0, 0.0, np.pi / 2]))
    s0 = Body.initial_state(inst)
    A = quat.dcm([s0[f"q{i}"] for i in range(4)])
    np.testing.assert_allclose(A @ [0.0, 0.0, 1.0], [1.0, 0.0, 0.0], atol=1e-15)


def test_initial_state_projection_and_checks():
    inst, _ = group(m=1.0, J=np.ones(3), pos=np.array([1.0, 2, 3]), v=np.array([4.0, 5, 6]),
                    w=np.array([7.0, 8, 9]), q=np.array([2.0, 0, 0, 0]))
    s0 = Body.initial_state(inst)
    assert list(s0) == ["vx", "vy", "vz", "wx", "wy", "wz", "x", "y", "z",
                        "q0", "q1", "q2", "q3", "wbx", "wby", "wbz"]
    assert list(s0.values()) == [4, 5, 6, 7, 8, 9, 1, 2, 3, 1, 0, 0, 0, 7, 8, 9]
    xs = np.array([[1.0, 2, 3, -0.6, 0, 0.8, 0.2, 7, 8, 9]])
    out = Body.project(xs)
    assert np.linalg.norm(out[0, 3:7]) == pytest.approx(1.0, abs=1e-15)
    assert out[0, 3] < 0 and np.all(out[0, :3] == xs[0, :3])       # sign and r kept
    assert np.all(out[0, 7:] == xs[0, 7:])                          # ω_b kept
    with pytest.raises(ModelError, match="at most one orientation"):
        group(m=1.0, J=np.ones(3), q=np.array([1.0, 0, 0, 0]), euler=np.zeros(3))
    with pytest.raises(ModelError, match="positive definite"):
        group(m=1.0, J=np.ones(3), Jp=np.array([2.0, 0, 0]))


def torque_free(gyro: float):
    """Jc = diag(1, 2, 3), ω0 = (0.01, 1, 0) in the body frame (near the unstable middle
    axis), a tilted initial pose; 20 s with solve_ivp on the element's own residual in
    its initialisation form, where ω_b − Aᵀω = 0 is differentiated: an ODE."""
    q0 = quat.from_axis_angle([1.0, 2.0, -0.5], 0.8)
    w0_body = np.array([0.01, 1.0, 0.0])
    w0 = quat.dcm(q0) @ w0_body                          # global components
    _, p = group(m=1.5, J=np.array([1.0, 2.0, 3.0]), gyro=gyro, v=np.array([0.3, 0, 0]))
    p = initialisation_params(Body, p)
    x0 = np.concatenate([[0.3, 0.0, 0.0], w0, np.zeros(3), q0, w0_body])

    def rhs(t, y):    # F = M(x)·x' + F(x, 0) is linear in x': solve it for x'
        x = y[None]
        f0 = Body.residual(t, x, np.zeros_like(x), p)[0]
        return np.linalg.solve(Body.jacobian(t, x, np.zeros_like(x), p)[1][0], -f0)

    t = np.linspace(0.0, 20.0, 401)
    sol = solve_ivp(rhs, (0.0, 20.0), x0, method="DOP853", t_eval=t, rtol=1e-10, atol=1e-12)
    assert sol.success
    out = Body.compute_outputs(t, sol.y.T[:, None, :], None, p)[:, 0]
    return sol, out[:, 0], out[:, 1:4]                 # T, (Hx, Hy, Hz)


def test_torque_free_body_conserves_energy_and_momentum():
    sol, T, H = torque_free(gyro=1.0)
    energy_drift = np.abs(T / T[0] - 1).max()
    momentum_drift = np.linalg.norm(H - H[0], axis=1).max() / np.linalg.norm(H[0])
    assert energy_drift < 1e-8 and momentum_drift < 1e-8     # observed: 3.1e-10, 1.1e-9
    # it is not a trivial steady spin: ω in the body frame flips (tennis-racket effect)
    w_body = np.einsum("tji,tj->ti", quat.dcm(sol.y[9:13].T), sol.y[3:6].T)
    assert w_body[:, 1].min() < -0.9
    np.testing.assert_allclose(w_body, sol.y[13:16].T, atol=1e-8)       # ω_b = Aᵀω holds
    np.testing.assert_allclose(np.linalg.norm(sol.y[9:13], axis=0), 1.0, atol=1e-9)


def test_without_gyroscopic_term_momentum_is_not_conserved():
    _, _, H = torque_free(gyro=0.0)
    momentum_drift = np.linalg.norm(H - H[0], axis=1).max() / np.linalg.norm(H[0])
    assert momentum_drift > 1e-3                               # observed: 1.0e-2


def test_an_initial_value_on_the_body_axes_rate_is_a_located_error():
    # ω_b follows from the body's ω and q (ω_b = Aᵀ·ω): an .ic on it would be overwritten
    with pytest.raises(ModelError, match=r"B\.wbx follows from the other unknowns") as info:
        circuitsim.parse("body B m=1 J=(1, 2, 3) w=(0, 0, 1)\n.ic B.wbx=0.5\n.tran 0.1\n",
                         "x.cir").simulate()
    assert (info.value.loc.line, info.value.loc.col) == (2, 5)
    # the initial ω_b is Aᵀ·ω: a body turned 90° about z spinning about global x
    res = circuitsim.parse("body B m=1 J=(1, 2, 3) rot=(0, 0, 1, 90deg) w=(2, 0, 0)\n"
                           ".tran 0.01\n").simulate()
    np.testing.assert_allclose([res["B.wbx"][0], res["B.wby"][0], res["B.wbz"][0]],
                               [0.0, -2.0, 0.0], atol=1e-12)
