"""The two O(N) acceleration recursions of benchmarks/seed000.py (Vereshchagin's sweep and
the block L^T D L) against a dense solve of the same system, against closed forms and an
independent world-frame Newton-Euler model, and the Stormer integrator's energy drift."""
import importlib.util
import sys

import numpy as np
import pytest

from helpers import REPO


def _load_benchmark():
    """Import benchmarks/seed000.py by path: putting benchmarks/ on sys.path would let its
    chain.py shadow netlists/chain.py for the other tests."""
    spec = importlib.util.spec_from_file_location("seed000", REPO / "benchmarks" / "seed000.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module          # dataclasses look their module up here
    spec.loader.exec_module(module)
    return module


s0 = _load_benchmark()

G0 = -s0.GRAVITY[2]


def rel(a, b):
    return np.abs(a - b).max() / np.abs(b).max()


@pytest.mark.parametrize("n", [1, 2, 5, 20])
@pytest.mark.parametrize("seed", [0, 1])
def test_recursions_equal_dense_solve(n, seed):
    rng = np.random.default_rng(100 * n + seed)
    ch = s0.random_tree(n, rng)
    bl = s0.blocks(ch, *s0.random_state(n, rng))
    dense = s0.solve(ch, bl, "dense")
    for method in ("sweep", "ltdl"):
        for got, ref, what in zip(s0.solve(ch, bl, method), dense, ("qdd", "w", "R")):
            assert rel(got, ref) < 1e-11, (method, what)


def test_branched_tree_equals_dense_solve():
    rng = np.random.default_rng(7)
    ch = s0.random_tree(7, rng, parent=[-1, 0, 1, 1, 0, 4, -1])   # two roots, branches
    bl = s0.blocks(ch, *s0.random_state(7, rng))
    dense = s0.solve(ch, bl, "dense")
    for method in ("sweep", "ltdl"):
        assert rel(s0.solve(ch, bl, method)[0], dense[0]) < 1e-11, method


def test_released_pendulum_closed_form():
    """One rod on a ball joint, tilted by a about x and released from rest:
    eps_x = -m g d sin(a) / (Jc_xx + m d^2), and the joint force is m (eps x rc - g_body)."""
    m, d, a = 1.3, 0.4, 0.6
    rc = np.array([0.0, 0.0, -d])
    J = s0.box_inertia(m, (0.1, 0.2, 0.8), rc)
    ch = s0.Chain(parent=np.array([-1]), m=np.array([m]), rc=rc[None], J=J[None],
                  rho=np.zeros((1, 3)))
    bl = s0.blocks(ch, np.array([[a, 0.0, 0.0]]), np.zeros((1, 3)))
    eps = -m * G0 * d * np.sin(a) / (m * (0.2**2 + 0.8**2) / 12 + m * d**2)
    g_body = np.array([0.0, -G0 * np.sin(a), -G0 * np.cos(a)])
    for method in ("sweep", "ltdl"):
        qdd, w, R = (x[0] for x in s0.solve(ch, bl, method))
        np.testing.assert_allclose(qdd, [eps, 0, 0], atol=1e-13)
        np.testing.assert_allclose(w, [eps, 0, 0, 0, 0, 0], atol=1e-13)
        np.testing.assert_allclose(R[3:], m * (np.cross([eps, 0, 0], rc) - g_body), atol=1e-12)
        np.testing.assert_allclose(R[:3], 0, atol=1e-12)        # a ball joint: no torque


# ---- an independent model: world frame, centres of mass, Cardan kinematics from scratch
def _rot(axis, t):
    c, s = np.cos(t), np.sin(t)
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    R = np.eye(3)
    R[i, i] = R[j, j] = c
    R[i, j], R[j, i] = -s, s
    return R


def _joint_rot(q):
    return _rot(0, q[0]) @ _rot(1, q[1]) @ _rot(2, q[2])


def _joint_omega(q, qd):
    """Relative angular velocity of x-y-z Cardan angles in the parent frame: the rates
    about the successively rotated axes."""
    Rx = _rot(0, q[0])
    return qd[0] * np.eye(3)[0] + qd[1] * Rx[:, 1] + qd[2] * (Rx @ _rot(1, q[1]))[:, 2]


def _world_omegas(q, qd):
    R1 = _joint_rot(q[0])
    w1 = _joint_omega(q[0], qd[0])
    return w1, w1 + R1 @ _joint_omega(q[1], qd[1])


def _newton_euler_2body(ch, q, qd):
    """Solve m a_c = m g + f_i - f_(i+1),  I_c alpha + w x I_c w = torques of the joint
    forces about the centre of mass, with a_c from alpha by rigid-body kinematics.
    Unknowns alpha_1, alpha_2, f_1, f_2 (world frame); returns alpha_1, alpha_2 and the
    two body rotations."""
    R1 = _joint_rot(q[0])
    R2 = R1 @ _joint_rot(q[1])
    w1, w2 = _world_omegas(q, qd)
    p1 = ch.rho[0]
    c1 = p1 + R1 @ ch.rc[0]
    p2 = p1 + R1 @ ch.rho[1]
    c2 = p2 + R2 @ ch.rc[1]
    Ic = [R @ (J - m * (rc @ rc * np.eye(3) - np.outer(rc, rc))) @ R.T
          for R, J, m, rc in zip((R1, R2), ch.J, ch.m, ch.rc)]
    m1, m2 = ch.m
    g = s0.GRAVITY
    S = s0.skew
    E, Z = np.eye(3), np.zeros((3, 3))
    # a_c1 = -(c1-p1)~ alpha1 + w1 x (w1 x (c1-p1)); a_p2 likewise; a_c2 = a_p2 + ...
    cen = lambda w, r: np.cross(w, np.cross(w, r))   # noqa: E731
    K = np.block([
        [-m1 * S(c1 - p1), Z, -E, E],                                   # body 1 force
        [Ic[0], Z, -S(p1 - c1), S(p2 - c1)],                            # body 1 moment
        [-m2 * S(p2 - p1), -m2 * S(c2 - p2), Z, -E],                    # body 2 force
        [Z, Ic[1], Z, -S(p2 - c2)],                                     # body 2 moment
    ])
    b = np.concatenate([
        m1 * g - m1 * cen(w1, c1 - p1),
        -np.cross(w1, Ic[0] @ w1),
        m2 * g - m2 * (cen(w1, p2 - p1) + cen(w2, c2 - p2)),
        -np.cross(w2, Ic[1] @ w2),
    ])
    x = np.linalg.solve(K, b)
    return x[:3], x[3:6], (R1, R2)


@pytest.mark.parametrize("seed", [3, 4])
def test_two_body_chain_against_newton_euler(seed):
    rng = np.random.default_rng(seed)
    ch = s0.random_tree(2, rng)
    q, qd = s0.random_state(2, rng)
    alpha1, alpha2, Rs = _newton_euler_2body(ch, q, qd)
    bl = s0.blocks(ch, q, qd)
    for i, w in enumerate(_world_omegas(q, qd)):              # velocities, eq. (1)
        np.testing.assert_allclose(bl.Rabs[i] @ bl.omega[i], w, atol=1e-13)
    for method in ("sweep", "ltdl"):
        qdd, wacc, _ = s0.solve(ch, bl, method)
        for R, eps, alpha in zip(Rs, wacc[:, :3], (alpha1, alpha2)):
            assert rel(R @ eps, alpha) < 1e-11, method
        # qdd carries the Cardan bias terms of w*: d/dt of the world angular velocities
        # along q + t qd + t^2/2 qdd must be the Newton-Euler alphas
        h = 1e-4
        wp = _world_omegas(q + h * qd + h * h / 2 * qdd, qd + h * qdd)
        wm = _world_omegas(q - h * qd + h * h / 2 * qdd, qd - h * qdd)
        for p, m_, alpha in zip(wp, wm, (alpha1, alpha2)):
            assert rel((p - m_) / (2 * h), alpha) < 1e-6, method


def test_stormer_coefficients():
    np.testing.assert_allclose(s0.STORMER6 * 240, [317, -266, 374, -276, 109, -18])
    np.testing.assert_allclose(s0.ADAMS6 * 1440, [4277, -7923, 9982, -7298, 2877, -475])


@pytest.mark.parametrize("method", ["sweep", "ltdl"])
def test_energy_conserved(method):
    rng = np.random.default_rng(11)
    ch = s0.random_tree(3, rng)
    q, qd = s0.random_state(3, rng, angle=0.5, rate=1.0)
    drift, beta = s0.energy_drift(ch, q, qd, method, h=2e-3, t_end=0.3)
    assert beta < 1.3                     # far from the Cardan singularity
    assert drift < 1e-8                   # observed ~1e-10


def test_flops_per_body_constant_and_sweep_dearer():
    """Per-body work is the same for every body but the root: flops are linear in N."""
    counts = {}
    for n in (4, 5, 9):
        ch, q, qd = s0.benchmark_state(n)
        bl = s0.blocks(ch, q, qd)
        counts[n] = {m: s0.count_flops(ch, bl, m) for m in ("sweep", "ltdl")}
    for m in ("sweep", "ltdl"):
        per_body = counts[5][m] - counts[4][m]
        assert counts[9][m] - counts[5][m] == 4 * per_body
    assert counts[9]["sweep"] > counts[9]["ltdl"]
