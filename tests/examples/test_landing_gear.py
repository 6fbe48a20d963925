"""netlists/landing_gear.cir: a main-gear strut retracted through 90 deg by a hydraulic
cylinder on the closed airframe-strut-rod-barrel loop. Checked against geometry and
statics written here, independently of the engine:

* geometry (x-z plane, hinges about +y, th = TR.angle, 0 = gear down): horn tip
  P(th) = b (sin th, cos th), barrel hinge H = a (cos 130 deg, sin 130 deg); actuator
  length L(th) = |P - H| (the triangle L^2 = a^2 + b^2 - 2ab cos(th + 40 deg)) and its
  axis u = (P - H)/L. Centres of mass: strut d below the trunnion turned by th,
  (-d sin th, -d cos th); barrel H + lb u; rod P - lr u. Potential energy
  U(th) = g (m_s z_s + m_b z_b + m_r z_r).
* statics (virtual work; the joints are workless): an actuator force F pushing rod and
  barrel apart holds the gear at th when F dL/dth = dU/dth.
* dynamics: the actuator's power F L' is the rate of the bodies' T + U, so
  T + U - U(0) = integral of P.f * ext dt while nothing else does work (until the end
  stop is struck).
* the cylinder (library/hydraulics.lib): F = pa Aa - pb Ab reaches the prismatic flange
  less the small rod mass's inertia and the end-stop force; against the upper stop at
  rest, pa = supply and pb = 0, so the stop carries psup Aa - F_static(th).
"""
import numpy as np
import pytest
from scipy.integrate import cumulative_trapezoid

import circuitsim

from helpers import netlist_path

NETLIST = netlist_path("landing_gear.cir")
# the netlist's data, restated
G = 9.81
A_H, B_P, D_G, LB, LR = 1.2, 0.5, 1.9, 0.4, 0.4
M_STRUT, M_BARREL, M_ROD = 150.0, 12.0, 5.0
AA, AB = np.pi * 0.063 ** 2 / 4, np.pi * (0.063 ** 2 - 0.040 ** 2) / 4
PSUP = 3000 * 6894.757293168                  # 3000 psi in Pa
KSTOP = 5e7
HINGE = A_H * np.array([np.cos(np.radians(130.0)), np.sin(np.radians(130.0))])[:, None]
JOINTS = ["TR", "BH", "RE", "P"]


def length_and_energy(th):
    """Actuator length L(th) (m) and the bodies' potential energy U(th) (J)."""
    th = np.atleast_1d(th)
    tip = B_P * np.array([np.sin(th), np.cos(th)])
    d = tip - HINGE
    length = np.hypot(d[0], d[1])
    axis_z = d[1] / length
    z_strut = -D_G * np.cos(th)
    z_barrel = HINGE[1] + LB * axis_z
    z_rod = tip[1] - LR * axis_z
    return length, G * (M_STRUT * z_strut + M_BARREL * z_barrel + M_ROD * z_rod)


def lever_and_static_force(th, h=1e-6):
    """dL/dth (m/rad) and the holding force F = (dU/dth)/(dL/dth) (N), central differences."""
    lp, up = length_and_energy(th + h)
    lm, um = length_and_energy(th - h)
    return (lp - lm) / (2 * h), (up - um) / (lp - lm)


STROKE = (length_and_energy(np.pi / 2)[0] - length_and_energy(0.0)[0])[0]


@pytest.fixture(scope="module")
def net():
    return circuitsim.load(NETLIST)


@pytest.fixture(scope="module")
def retraction(net):
    res = net.simulate()
    assert res.success
    return res


def test_stroke_is_the_triangle_difference(net):
    # the header's numbers: L = 0.8779 m gear down, 1.5689 m at 90 deg, stroke 0.6910 m
    assert length_and_energy(0.0)[0][0] == pytest.approx(0.8779, abs=1e-4)
    assert length_and_energy(np.pi / 2)[0][0] == pytest.approx(1.5689, abs=1e-4)
    assert STROKE == pytest.approx(0.6910, abs=1e-4)
    # and the netlist's .param expressions give the cylinder that stroke
    stops = net.circuit().element("CY.stops")
    assert stops.params["upper"] == pytest.approx(STROKE, rel=1e-12)
    assert stops.params["lower"] == 0.0


def test_actuator_length_follows_the_triangle_and_its_rate_is_the_flange_speed(retraction):
    r = retraction
    th = r["TR.angle"]
    length = length_and_energy(th)[0]
    # measured 4.2e-7 m: the joints' position residual (position model)
    assert np.max(np.abs(length - length_and_energy(0.0)[0] - r["CY.stops.x"])) < 2e-6
    lever, _ = lever_and_static_force(th)
    # measured 8.8e-7 m/s against a peak of 0.37 m/s
    assert np.max(np.abs(lever * r["TR.w"] - r["ext"])) < 5e-6


def test_retracts_through_90_deg_and_rests_on_the_end_stop(retraction):
    r = retraction
    th = r["TR.angle"]
    t90 = r.t[np.argmax(th > np.radians(89.0))]
    assert 3.5 < t90 < 4.5                                  # "about 4 s"; measured 4.17 s
    # at rest on the stop: pa = supply, pb = 0, the stop carries psup*Aa - F_static
    _, holding = lever_and_static_force(th[-1])
    assert r["pa"][-1] == pytest.approx(PSUP, rel=1e-8)
    assert abs(r["pb"][-1]) < 1.0
    assert r["CY.stops.f"][-1] == pytest.approx(PSUP * AA - holding[0], rel=1e-6)
    # the stop's compression is its force over kstop, which sets the final angle > 90 deg
    overshoot = r["CY.stops.f"][-1] / KSTOP
    assert r["CY.stops.x"][-1] == pytest.approx(STROKE + overshoot, abs=1e-6)
    assert np.degrees(th[-1]) == pytest.approx(90.2156, abs=1e-3)


def test_flange_force_is_the_piston_force_balance(retraction):
    r = retraction
    piston = r["pa"] * AA - r["pb"] * AB
    free = r["CY.stops.f"] == 0.0
    assert free.sum() > 100
    # mid-stroke the only difference is the 0.1 kg rod mass's inertia: measured 0.94 N
    # of a 64 kN peak (the pressure spike as the valve opens)
    assert np.max(np.abs(piston - r["P.f"])[free]) < 5.0
    assert np.max(np.abs(piston)) > 5e4


def test_actuator_work_is_the_gain_of_kinetic_and_potential_energy(retraction):
    r = retraction
    _, potential = length_and_energy(r["TR.angle"])
    kinetic = r["strut.T"] + r["barrel.T"] + r["rod.T"]
    work = cumulative_trapezoid(r["P.f"] * r["ext"], r.t, initial=0.0)
    # from 0.5 s (the 10 ms output grid does not resolve the ~10 Hz ringing as the valve
    # opens: the trapezoid's error there, up to 3 J, stays as a 0.08 J offset) up to the
    # end-stop impact: measured 0.077 J of 2860 J
    before_stop = (r["CY.stops.x"] < STROKE) & (r.t >= 0.5)
    gained = kinetic + potential - potential[0]
    assert np.max(np.abs(gained - work)[before_stop]) < 1e-4 * work[before_stop].max()
    assert work[before_stop].max() > 2500.0
    # the engine's own potential energies agree with U(th) (measured 2.8e-3 J)
    engine = r["strut.U"] + r["barrel.U"] + r["rod.U"]
    assert np.max(np.abs(engine - potential)) < 0.02


def test_closed_valve_holds_the_gear_in_static_moment_balance(net):
    # valve shut at 1 s (th ~ 22.6 deg): the trapped oil column rings at ~10 Hz, lightly
    # damped by the meter-out orifice; over the last second its mean force is the
    # holding force F = (dU/dth)/(dL/dth) (measured 1.1e-4 relative, ringing +-9%)
    r = net.simulate(t_end=4.0, set={"tclose": 1.0})
    window = r.t >= 3.0
    th = r["TR.angle"][window]
    assert np.ptp(np.degrees(th)) < 0.05
    assert np.degrees(th.mean()) == pytest.approx(22.6, abs=0.1)
    _, holding = lever_and_static_force(th)
    assert r["P.f"][window].mean() == pytest.approx(holding.mean(), rel=2e-3)
    piston = (r["pa"] * AA - r["pb"] * AB)[window]
    assert piston.mean() == pytest.approx(holding.mean(), rel=2e-3)


def test_velocity_model_follows_the_position_model(net, retraction):
    fast = net.simulate(study="fast")
    th = np.interp(retraction.t, fast.t, fast["TR.angle"])
    assert np.max(np.abs(th - retraction["TR.angle"])) < 5e-5      # measured 6.8e-6 rad


def test_elastic_model_approaches_the_rigid_one_as_its_stiffness_grows(net, retraction):
    # first 0.5 s (elastic joints are stiff: the whole run takes ~40k steps); the joints
    # deflect by F/k under the 64 kN actuator load, so the angle error goes as 1/k; the
    # rigid model's first 0.5 s are the retraction's
    first = retraction.t <= 0.5 + 1e-9
    t, rigid = retraction.t[first], retraction["TR.angle"][first]
    errors = []
    for k in (1e8, 1e9):
        soft = net.simulate(t_end=0.5, study="soft", set={f"{j}.k": k for j in JOINTS})
        th = np.interp(t, soft.t, soft["TR.angle"])
        errors.append(np.max(np.abs(th - rigid)))
    # measured 3.8e-3 and 3.6e-4 rad
    assert errors[1] < 1e-3
    assert 7.0 < errors[0] / errors[1] < 14.0
