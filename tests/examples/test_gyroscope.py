"""netlists/gyroscope.cir: a gyroscope in a two-axis gimbal (outer ring on a vertical
revolute, inner ring on a horizontal revolute, rotor on the spin revolute), checked
against an independent integration of the gimbal's equations of motion, the gyroscopic
precession and nutation formulas, spin-down under bearing friction, and the reactions.

The reference model (written here, not taken from the engine): generalised coordinates
psi (outer gimbal about the vertical z), theta (inner gimbal about the outer ring's x
axis) and phi (rotor about the inner ring's y axis). Angular velocities in the inner
ring's frame: inner (theta', psi' sin(theta), psi' cos(theta)), rotor the same plus phi'
on y. With the rotor axisymmetric about y (polar C, transverse A), the outer ring's moment
Coz about z and the inner ring's principal moments (Aix, Aiy, Aiz):

    T = 1/2 I_psi(theta) psi'^2 + 1/2 I_theta theta'^2 + 1/2 C w3^2,
    I_psi = Coz + Aiy sin^2(theta) + (Aiz + A) cos^2(theta),  I_theta = Aix + A,
    w3 = phi' + psi' sin(theta)  (the rotor's spin about its axis).

Lagrange's equations, with the generalised forces Q = the torques of the 1D elements on
the three axis nodes (all centres of mass at the pivot: gravity does no work):

    C w3'                                                  = Q_phi
    I_psi psi'' + I_psi'(theta) theta' psi' + C w3' sin(theta) + C w3 cos(theta) theta' = Q_psi
    I_theta theta'' - 1/2 I_psi'(theta) psi'^2 - C w3 cos(theta) psi'                   = Q_theta
"""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

import circuitsim

from helpers import netlist_path, zero_crossings

NETLIST = netlist_path("gyroscope.cir")
G = 9.81

# the netlist's bodies (header comment): outer ring, inner ring, rotor
M_OUTER, M_INNER, M_ROTOR = 0.5, 0.3, 2.0
COZ = 2.5e-3                                        # outer ring about z
AIX, AIY, AIZ = 0.96e-3, 0.96e-3, 1.92e-3           # inner ring
R_ROTOR, H_ROTOR = 0.06, 0.02
C = M_ROTOR * R_ROTOR ** 2 / 2                      # 3.6e-3 kg m^2, polar
A = M_ROTOR * (3 * R_ROTOR ** 2 + H_ROTOR ** 2) / 12  # 1.867e-3 kg m^2, transverse
I_THETA = AIX + A
# the netlist's .param defaults
PAR = dict(Om0=100.0, M=0.2, ton=0.1, Tcs=2e-3, bs=1e-5, Tcg=1e-3, bg=0.02, veps=1e-3)


# --- reference: the gimbal's equations of motion -------------------------------------
def _rhs(t, y, p, torque):
    psi, th, phi, dpsi, dth, w3 = y
    s, c = np.sin(th), np.cos(th)
    i_psi = COZ + AIY * s * s + (AIZ + A) * c * c
    di_psi = 2 * s * c * (AIY - AIZ - A)
    dphi = w3 - dpsi * s
    q_phi = -(p["Tcs"] * np.tanh(dphi / p["veps"]) + p["bs"] * dphi)     # friction Fs
    q_psi = -p["Tcg"] * np.tanh(dpsi / p["veps"])                        # friction Fo
    q_th = (torque - p["Tcg"] * np.tanh(dth / p["veps"])                 # Tq, Fi
            - p["bg"] * dth)                                             # damper Di
    dw3 = q_phi / C
    ddpsi = (q_psi - di_psi * dth * dpsi - C * dw3 * s - C * w3 * c * dth) / i_psi
    ddth = (q_th + 0.5 * di_psi * dpsi ** 2 + C * w3 * c * dpsi) / I_THETA
    return [dpsi, dth, dphi, ddpsi, ddth, dw3]


def gimbal_reference(t, **changes):
    """psi, theta, phi, psi', theta', w3 at the times t (the torque M steps on at ton:
    integrated in two pieces, so the step is exact)."""
    p = dict(PAR, **changes)
    y0 = np.array([0.0, 0.0, 0.0, 0.0, 0.0, p["Om0"]])
    out = np.empty((6, len(t)))
    for a, b, torque in ((0.0, p["ton"], 0.0), (p["ton"], t[-1], p["M"])):
        if b <= a:
            continue
        sol = solve_ivp(_rhs, (a, b), y0, args=(p, torque), method="DOP853",
                        rtol=1e-11, atol=1e-13, dense_output=True)
        assert sol.success
        mask = (t >= a) & (t <= b)
        out[:, mask] = sol.sol(t[mask])
        y0 = sol.y[:, -1]
    return dict(zip(("psi", "theta", "phi", "dpsi", "dtheta", "w3"), out))


SIM_VS_REF = (("Jo.angle", "psi"), ("Ji.angle", "theta"), ("Js.angle", "phi"),
              ("psi", "dpsi"), ("theta", "dtheta"))


def errors(res, ref):
    return {name: np.max(np.abs(res[name] - ref[key])) for name, key in SIM_VS_REF}


@pytest.fixture(scope="module")
def net():
    return circuitsim.load(NETLIST)


@pytest.fixture(scope="module")
def base(net):
    """The netlist as written (position model), 1 s, at rtol 1e-9."""
    res = net.simulate(t_end=1.0, tstep=1e-3, rtol=1e-9, atol=1e-11)
    assert res.success
    return res, gimbal_reference(res.t)


# --- precession and nutation (the netlist as written) -----------------------------------
def test_gimbal_angles_match_the_equations_of_motion(base):
    """All five recorded coordinates and rates against the reference, over the whole run:
    the rotor still (t < 0.1 s), the nutation after the torque step, the precession.
    Measured at rtol 1e-9: psi 8.7e-8, theta 9.2e-8, phi 2.4e-9 rad; psi' 5.2e-6,
    theta' 8.3e-6 rad/s (the rates are the index-2 velocities, outside the error test)."""
    res, ref = base
    e = errors(res, ref)
    assert e["Jo.angle"] < 5e-7 and e["Ji.angle"] < 5e-7 and e["Js.angle"] < 5e-8
    assert e["psi"] < 3e-5 and e["theta"] < 3e-5
    # the rotor's spin about its own axis, w3 = phi' + psi' sin(theta): 5e-9 rad/s
    w3 = res["spin"] + res["psi"] * np.sin(res["Ji.angle"])
    assert np.max(np.abs(w3 - ref["w3"])) < 1e-7
    # still before the torque, then it moves a lot: the comparison is not vacuous
    before = res.t < PAR["ton"]
    assert np.max(np.abs(res["Jo.angle"][before])) < 1e-12
    assert res["Jo.angle"][-1] < -0.49                     # -0.501 rad at t = 1 s
    assert np.ptp(res["Ji.angle"]) > 0.015                 # nutation, up to 0.018 rad


def test_outer_gimbal_precesses_at_the_gyroscopic_rate(base):
    """After the nutation has decayed (t = 0.8 .. 1 s) the outer gimbal turns at
    psi' = -M_net/(C w3 cos theta), M_net = M minus the inner bearing's Coulomb friction
    (theta creeps at +2.8e-3 rad/s under the outer bearing's friction, so Fi = +Tcg) and
    its damper. Measured: -0.55713 rad/s (least squares on psi) vs -0.55695 from
    (M - Tcg)/(C w3): 3e-4 relative (residual nutation, ptp(psi') = 0.011 rad/s);
    -M/(C Om0) = -0.5556, 0.3 % off."""
    res, _ = base
    t = res.t
    late = t >= 0.8
    rate = np.polyfit(t[late], res["Jo.angle"][late], 1)[0]
    w3 = res["spin"] + res["psi"] * np.sin(res["Ji.angle"])
    theta = res["Ji.angle"][late]
    gyro = -(PAR["M"] - PAR["Tcg"]) / (C * np.mean(w3[late]) * np.mean(np.cos(theta)))
    assert rate < 0                                        # H = C w3 e_y turns toward +x
    assert rate == pytest.approx(gyro, rel=1e-3)
    assert rate == pytest.approx(-PAR["M"] / (C * PAR["Om0"]), rel=1e-2)
    # the torque hardly moves the inner gimbal: theta = I_psi psi'/(C w3) ~ 0.012 rad
    assert np.all(np.abs(theta - 0.012) < 1e-3)


def test_nutation_frequency(base):
    """The torque step starts a nutation of the gimbals at omega_n = C w3/sqrt(I_theta
    I_psi) (I_psi = Coz + Aiz + A at theta ~ 0), damped by the inner damper at
    sigma = bg/(2 I_theta): omega_d = sqrt(omega_n^2 - sigma^2) = 85.04 rad/s. Measured
    from the upward zero crossings of theta' in 0.1 .. 0.7 s: 85.13 rad/s (1e-3; the
    Coulomb friction is not in the linear formula)."""
    res, _ = base
    t = res.t
    win = (t > PAR["ton"]) & (t < 0.7)
    x, tw = res["theta"][win], t[win]
    crossings = zero_crossings(tw, x, direction=+1)
    assert len(crossings) >= 7
    omega = 2 * np.pi / np.mean(np.diff(crossings))
    w3 = res["spin"] + res["psi"] * np.sin(res["Ji.angle"])
    omega_n = C * np.mean(w3[win]) / np.sqrt(I_THETA * (COZ + AIZ + A))
    sigma = PAR["bg"] / (2 * I_THETA)
    assert omega == pytest.approx(np.sqrt(omega_n ** 2 - sigma ** 2), rel=3e-3)


def test_spin_bearings_carry_the_gyroscopic_moment(base):
    """The rotor's centre of mass stays at the joint point, so the spin joint's reaction
    moment plus the bearing friction (-Fs.f along the spin axis n) is d(H_rotor)/dt.
    n = Rz(psi) Rx(theta) e_y from the joint angles. Measured: 7e-4 N m against the
    numerical derivative of the 1 ms output (max |dH/dt| 0.26 N m). In steady precession
    the bearings pass the applied torque on to the rotor: the moment about the inner
    gimbal axis Rz(psi) e_x is M - Tcg = 0.199 N m (measured 0.1993)."""
    res, _ = base
    t, psi, th = res.t, res["Jo.angle"], res["Ji.angle"]
    n = np.stack([-np.sin(psi) * np.cos(th), np.cos(psi) * np.cos(th), np.sin(th)], axis=-1)
    H = np.stack([res["rotor.Hx"], res["rotor.Hy"], res["rotor.Hz"]], axis=-1)
    moment = (np.stack([res["Js.Mx"], res["Js.My"], res["Js.Mz"]], axis=-1)
              - res["Fs.f"][:, None] * n)
    dH = np.gradient(H, t, axis=0)
    smooth = (np.abs(t - PAR["ton"]) > 3e-3) & (t > 2e-3) & (t < t[-1] - 2e-3)
    assert np.max(np.abs(dH - moment)[smooth]) < 3e-3
    late = t >= 0.8
    e_x = np.stack([np.cos(psi), np.sin(psi), np.zeros_like(psi)], axis=-1)
    about_gimbal_axis = np.sum(moment * e_x, axis=1)[late]
    assert np.mean(about_gimbal_axis) == pytest.approx(PAR["M"] - PAR["Tcg"], rel=2e-3)


def test_reactions_carry_the_weights(base):
    """Balanced gyroscope: every centre of mass stays at the origin whatever the motion,
    so the base bearing carries the weight of all three bodies, the inner bearing that
    of inner ring and rotor, the spin bearing the rotor's (measured: to 1e-11 N)."""
    res, _ = base
    for joint, mass in (("Jo", M_OUTER + M_INNER + M_ROTOR), ("Ji", M_INNER + M_ROTOR),
                        ("Js", M_ROTOR)):
        np.testing.assert_allclose(res[f"{joint}.Fz"], mass * G, atol=1e-8)
    assert np.max(np.abs(res["Jo.Fx"])) < 1e-8 and np.max(np.abs(res["Jo.Fy"])) < 1e-8
    assert res["Jo.Fz"][0] == pytest.approx(27.468)


# --- the three joint models ---------------------------------------------------------------
@pytest.mark.parametrize("study,rtol,tol_angle,tol_rate,tol_force", [
    ("fast", 1e-9, 3e-7, 3e-5, 1e-8),        # measured 5.3e-8 rad, 4.6e-6 rad/s, 3e-14 N
    ("soft", 1e-7, 5e-6, 5e-4, 1e-4),        # measured 1.3e-6 rad, 7.7e-5 rad/s, 2.2e-5 N
])
def test_joint_models_agree(net, study, rtol, tol_angle, tol_rate, tol_force):
    """Study fast (velocity model) and soft (elastic, default k = 1e8 N/m, kr = 1e6
    N m/rad) against the same reference, torque on at 0.02 s, 0.15 s (1.7 nutation
    periods). The elastic joints start unloaded and sag under the weight within ~10 ms
    (the forces ring up to 41 N, 1.5x the weight, first), so their reactions are
    compared after 20 ms (their largest deviation is the ringing right after the torque
    step; the joints' vibration then dies out). The soft study takes 658 steps here."""
    res = net.simulate(study=study, t_end=0.15, tstep=1e-3, rtol=rtol, atol=rtol * 1e-2,
                       set={"ton": 0.02})
    assert res.success
    ref = gimbal_reference(res.t, ton=0.02)
    e = errors(res, ref)
    assert max(e["Jo.angle"], e["Ji.angle"], e["Js.angle"]) < tol_angle
    assert max(e["psi"], e["theta"]) < tol_rate
    assert res["Jo.angle"][-1] < -0.07                     # it does precess (-0.076 rad)
    settled = res.t > 0.02
    for joint, mass in (("Jo", 2.8), ("Ji", 2.3), ("Js", 2.0)):
        assert np.max(np.abs(res[f"{joint}.Fz"][settled] - mass * G)) < tol_force


# --- spin-down under spin-bearing friction ---------------------------------------------
def test_spin_down_under_coulomb_friction(net):
    """No torque, Om0 = 20 rad/s, Tcs = 0.05 N m, no viscous part: the gimbals stay still
    and the rotor decelerates at Tcs/C = 13.9 rad/s^2, Om = Om0 - Tcs t/C, stopping at
    t_stop = C Om0/Tcs = 1.44 s after turning C Om0^2/(2 Tcs) = 14.4 rad. Measured:
    spin 4e-14 rad/s, angle 3e-10 rad while sliding; 1.2e-10 rad/s after the stop. The
    friction torque goes to ground through the gimbal bearings: the base reaction moment
    about y is -Tcs."""
    om0, tcs = 20.0, 0.05
    res = net.simulate(t_end=2.0, tstep=1e-3, rtol=1e-8, atol=1e-10,
                       set={"M": 0, "Om0": om0, "Tcs": tcs, "bs": 0})
    t = res.t
    t_stop = C * om0 / tcs
    sliding = t < t_stop - 0.01
    np.testing.assert_allclose(res["spin"][sliding], om0 - tcs * t[sliding] / C, atol=1e-9)
    np.testing.assert_allclose(res["Js.angle"][sliding],
                               om0 * t[sliding] - 0.5 * tcs / C * t[sliding] ** 2, atol=1e-8)
    assert np.max(np.abs(res["spin"][t > t_stop + 0.01])) < 1e-8
    assert res["Js.angle"][-1] == pytest.approx(C * om0 ** 2 / (2 * tcs), abs=1e-6)
    assert np.max(np.abs(res["Jo.angle"])) < 1e-12 and np.max(np.abs(res["Ji.angle"])) < 1e-12
    np.testing.assert_allclose(res["Fs.f"][sliding], tcs, rtol=1e-9)
    np.testing.assert_allclose(res["Jo.My"][sliding], -tcs, atol=1e-9)


def test_spin_down_under_viscous_friction(net):
    """Viscous bearing b = C/(1 s) = 3.6e-3 N m s/rad only: Om = Om0 exp(-b t/C).
    Measured: 1.1e-9 rad/s over 1 s at rtol 1e-8."""
    om0, b = 20.0, C / 1.0
    res = net.simulate(t_end=1.0, tstep=1e-3, rtol=1e-8, atol=1e-10,
                       set={"M": 0, "Om0": om0, "Tcs": 0, "bs": b})
    np.testing.assert_allclose(res["spin"], om0 * np.exp(-b * res.t / C), atol=2e-8)
    assert res["spin"][-1] == pytest.approx(om0 / np.e, rel=1e-8)
    assert np.max(np.abs(res["Jo.angle"])) < 1e-12 and np.max(np.abs(res["Ji.angle"])) < 1e-12


def test_soft_study_too_large_for_the_mode_search_keeps_order_3(net, monkeypatch):
    """Above LIGHT_MODES_MAX_SIZE unknowns the lightly damped modes are not searched: the
    order stays at most 3 (no growth of such a mode at any step), and the soft study
    still meets the joint-model comparison's bounds."""
    from circuitsim.solver import stability
    monkeypatch.setattr(stability, "LIGHT_MODES_MAX_SIZE", 0)
    res = net.simulate(study="soft", t_end=0.15, tstep=1e-3, rtol=1e-7, atol=1e-9,
                       set={"ton": 0.02})
    assert res.success and res.stats["max_order_used"] <= stability.UNWATCHED_MAX_ORDER
    e = errors(res, gimbal_reference(res.t, ton=0.02))
    assert max(e["Jo.angle"], e["Ji.angle"], e["Js.angle"]) < 5e-6
    settled = res.t > 0.02
    assert np.max(np.abs(res["Js.Fz"][settled] - 2.0 * G)) < 1e-4

