"""netlists/solar_panel.cir: three hinged panels opened by preloaded torsion springs
against end stops, checked against an independent model written here.

* the reference: the planar chain in the x-z plane (hinges about +y, no gravity), with
  the panels' absolute angles phi = (phi1, phi2, phi3) as coordinates. A rotation by phi
  about +y takes the drawn panel direction +x to e(phi) = (cos phi, -sin phi) in (x, z).
  The hinge angles are theta1 = phi1, theta2 = phi2 - phi1, theta3 = phi3 - phi2
  (theta = T phi). Centre of mass of panel i: sum_{j<i} L e_j + a e_i (a = L/2), so the
  Lagrange equations of the chain are
      sum_k A_jk (cos(phi_j - phi_k) phi_k'' + sin(phi_j - phi_k) phi_k'^2) = Q_j
  with A_jk = m sum_i l_ij l_ik + Jy delta_jk (l_ij = L for j < i, a for j = i, 0 else)
  and Q = T^T tau, tau_i the torque of hinge i's flange elements on its angle:
      tau = -(k (theta - rest) + b theta' + Fc tanh(theta'/veps) + f_stop(theta, theta'))
  f_stop the one-sided law of docs/elements.md (stop): max(k_s d + c_s v, 0) beyond a
  limit. LSODA at rtol 1e-11.
* the latched end state: at rest each hinge's flange torque is zero (no external load),
  spring and stop balance: kspring (over - delta) = kstop delta, so
  delta = kspring over / (kspring + kstop).
* energy: the kinetic energy of the three bodies (P*.T, from body velocities) equals the
  work of the hinge elements on the flanges (torque x flange rate, integrated); with the
  dampers and friction switched off the energy T + sum k x^2 / 2 is conserved until the
  first stop contact (t = 0.67 s), in every joint model.
"""
import numpy as np
import pytest
from scipy.integrate import cumulative_trapezoid, solve_ivp

import circuitsim

from helpers import netlist_path

NETLIST = netlist_path("solar_panel.cir")
# the netlist's parameters, restated for the independent model
M, L, A_CG, JY = 2.0, 1.0, 0.5, 0.167
K, OVER, B, FC, VEPS, KSTOP, CSTOP = 2.0, np.radians(20.0), 5.0, 0.02, 1e-3, 500.0, 50.0
FOLD = np.radians([90.0, -170.0, 170.0])
REST = np.array([-OVER, OVER, -OVER])                 # springs push past the latch at 0
LOWER = np.array([0.0, -np.inf, 0.0])
UPPER = np.array([np.inf, 0.0, np.inf])
T_OF_PHI = np.array([[1.0, 0, 0], [-1, 1, 0], [0, -1, 1]])
DELTA = K * OVER / (K + KSTOP)                        # latched stop penetration, rad
ANGLES = ["H1.angle", "H2.angle", "H3.angle"]


def _stop_torque(x, v):
    du, dl = x - UPPER, LOWER - x
    fu, fl = KSTOP * du + CSTOP * v, KSTOP * dl - CSTOP * v
    return np.where((du > 0) & (fu > 0), fu, 0.0) - np.where((dl > 0) & (fl > 0), fl, 0.0)


def _chain_rhs(t, y):
    levers = np.array([[A_CG, 0, 0], [L, A_CG, 0], [L, L, A_CG]])
    a = M * levers.T @ levers + JY * np.eye(3)
    phi, w = y[:3], y[3:]
    theta, rate = T_OF_PHI @ phi, T_OF_PHI @ w
    tau = -(K * (theta - REST) + B * rate + FC * np.tanh(rate / VEPS)
            + _stop_torque(theta, rate))
    d = phi[:, None] - phi[None, :]
    acc = np.linalg.solve(a * np.cos(d), T_OF_PHI.T @ tau - (a * np.sin(d)) @ w ** 2)
    return np.concatenate([w, acc])


@pytest.fixture(scope="module")
def reference():
    phi0 = np.linalg.solve(T_OF_PHI, FOLD)
    sol = solve_ivp(_chain_rhs, (0.0, 20.0), np.concatenate([phi0, np.zeros(3)]),
                    method="LSODA", rtol=1e-11, atol=1e-12, dense_output=True)
    assert sol.success
    return sol.sol


@pytest.fixture(scope="module")
def net():
    return circuitsim.load(NETLIST)


@pytest.fixture(scope="module")
def deployed(net):
    res = net.simulate()
    assert res.success
    return res


def _chain_kinetic_energy(y):
    levers = np.array([[A_CG, 0, 0], [L, A_CG, 0], [L, L, A_CG]])
    a = M * levers.T @ levers + JY * np.eye(3)
    phi, w = y[:3], y[3:]
    mass = a[:, :, None] * np.cos(phi[:, None] - phi[None, :])      # (3, 3, n)
    return 0.5 * np.einsum("jn,jkn,kn->n", w, mass, w)


def _max_angle_error(res, reference):
    theta = T_OF_PHI @ reference(res.t)[:3]
    return max(np.max(np.abs(res[name] - theta[i])) for i, name in enumerate(ANGLES))


def test_position_model_follows_the_planar_lagrange_chain(deployed, reference):
    # measured 5.2e-6 rad over 20 s (default rtol), through the stop impacts
    assert deployed.t[-1] == pytest.approx(20.0)
    assert _max_angle_error(deployed, reference) < 2e-5


def test_velocity_model_follows_the_planar_lagrange_chain(net, reference):
    res = net.simulate(study="fast")
    assert _max_angle_error(res, reference) < 2e-5            # measured 5.1e-6 rad


def test_elastic_model_follows_the_planar_lagrange_chain(net, reference):
    # elastic hinges take ~3000 steps per second here: the first 1.5 s of the unfolding
    # keep the test short (the stops are covered by the other two models)
    res = net.simulate(t_end=1.5, study="soft")
    assert _max_angle_error(res, reference) < 2e-5            # measured 7.5e-6 rad


def test_array_ends_latched_with_each_stop_balancing_its_spring(deployed):
    # measured: angles within 3e-7 rad of -/+delta, rates below 1e-6 rad/s at t = 20 s
    sign = np.array([-1.0, 1.0, -1.0])
    for i in range(3):
        assert deployed[ANGLES[i]][-1] == pytest.approx(sign[i] * DELTA, abs=2e-6)
        assert abs(deployed[f"h{i + 1}"][-1]) < 1e-4
        # the stop's flow runs a -> b: a lower stop pushes with negative f
        assert deployed[f"S{i + 1}.f"][-1] == pytest.approx(sign[i] * KSTOP * DELTA, rel=2e-3)
        assert deployed[f"K{i + 1}.f"][-1] == pytest.approx(-sign[i] * K * (OVER - DELTA),
                                                            rel=2e-3)


def test_kinetic_energy_equals_the_work_of_the_hinge_elements(deployed, reference):
    r = deployed
    kinetic = sum(r[f"P{i}.T"] for i in (1, 2, 3))
    power = sum(-(r[f"K{i}.f"] + r[f"D{i}.f"] + r[f"F{i}.f"] + r[f"S{i}.f"]) * r[f"h{i}"]
                for i in (1, 2, 3))
    work = cumulative_trapezoid(power, r.t, initial=0.0)
    # trapezoid on the 10 ms output grid across the stop impacts: measured 2.0e-3 of the
    # peak kinetic energy (2.14 J); 3.6e-4 on a 1 ms grid
    assert np.max(np.abs(kinetic - work)) < 5e-3 * kinetic.max()
    # and the bodies' kinetic energy is the reference chain's (measured 4e-6 of the peak)
    exact = _chain_kinetic_energy(reference(r.t))
    assert np.max(np.abs(kinetic - exact)) < 1e-4 * exact.max()


@pytest.mark.parametrize("study", [None, "fast", "soft"])
def test_undamped_unfolding_conserves_energy_in_every_joint_model(net, study):
    res = net.simulate(t_end=0.6, study=study, set={"bdamp": 0, "fc": 0})
    kinetic = sum(res[f"P{i}.T"] for i in (1, 2, 3))
    spring = sum(0.5 * K * res[f"K{i}.x"] ** 2 for i in (1, 2, 3))
    assert np.all(np.stack([res[f"S{i}.f"] for i in (1, 2, 3)]) == 0.0)  # before contact
    energy = kinetic + spring
    assert energy[0] == pytest.approx(0.5 * K * ((FOLD - REST) ** 2).sum(), rel=1e-12)
    assert kinetic.max() > 0.4 * energy[0]                    # a real exchange happened
    # measured 5.4e-6 (position), 1.0e-5 (velocity, elastic) at the default rtol
    assert np.max(np.abs(energy - energy[0])) < 3e-5 * energy[0]
