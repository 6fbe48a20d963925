"""The 1D mechanical elements mass, inertia, spring, damper and friction, each against
a closed form: a damper's decay, a mass-spring period, an inertia spun up by a torque,
Coulomb friction stopping a sliding mass, a stuck contact's creep, the viscous part."""
import numpy as np
import pytest

import circuitsim

from helpers import relative_error, zero_crossings

TIGHT = dict(rtol=1e-9, atol=1e-12)


def test_damper_decay_of_a_moving_mass():
    """mass v0 = 3 m/s on a damper b = 4 N·s/m: v = v0·exp(−b·t/m), the damper's force
    b·v and the kinetic energy ½·m·v²."""
    res = circuitsim.parse("""
mass M1 v m=2 v0=3
damper D1 v 0 b=4
.tran 0.5 5m
""").simulate(**TIGHT)
    v = 3 * np.exp(-2 * res.t)
    np.testing.assert_allclose(res["v"], v, rtol=1e-7)
    np.testing.assert_allclose(res["D1.f"], 4 * res["v"], rtol=1e-9)
    np.testing.assert_allclose(res["M1.E"], 0.5 * 2 * res["v"] ** 2, rtol=1e-9)


@pytest.mark.parametrize("inertial", ["mass M1 a m=0.5", "inertia M1 a J=0.5"],
                         ids=["translational", "rotational"])
def test_mass_spring_period_and_amplitude(inertial):
    """Released from the deflection x0 at rest: x = x0·cos(ω·t), v = −x0·ω·sin(ω·t),
    ω = sqrt(k/m) (k/J for the rotational pair); the period between upward zero
    crossings of v is 2π/ω to 1e-6, the trajectory to 1e-6 of its amplitude."""
    res = circuitsim.parse(f"{inertial}\nspring K1 a 0 k=20 x0=0.1\n.tran 5 1m\n"
                           ).simulate(**TIGHT)
    x0, omega = 0.1, np.sqrt(20 / 0.5)
    crossings = zero_crossings(res.t, res["a"], direction=1)
    assert len(crossings) >= 4
    np.testing.assert_allclose(np.diff(crossings), 2 * np.pi / omega, rtol=1e-6)
    assert relative_error(res["K1.x"], x0 * np.cos(omega * res.t)) < 1e-6
    assert relative_error(res["a"], -x0 * omega * np.sin(omega * res.t)) < 1e-6
    np.testing.assert_allclose(res["K1.E"] + res["M1.E"], 0.5 * 20 * x0 ** 2, rtol=1e-6)


def test_inertia_spun_up_by_a_torque():
    """τ = 0.3 N·m on J = 0.02 kg·m² from w0 = 60 rpm: ω = ω0 + τ·t/J, E = ½·J·ω²."""
    res = circuitsim.parse("""
inertia J1 w J=0.02 w0=60rpm
I T1 0 w I=0.3
.tran 1 10m
""").simulate(**TIGHT)
    omega = 2 * np.pi + 0.3 * res.t / 0.02
    np.testing.assert_allclose(res["w"], omega, rtol=1e-9)
    np.testing.assert_allclose(res["J1.E"], 0.5 * 0.02 * omega ** 2, rtol=1e-9)


def test_coulomb_friction_stops_a_sliding_mass_at_v0_over_mu_g():
    """A mass sliding at v0 with Coulomb friction Fc = μ·m·g decelerates at μ·g:
    v = v0 − μ·g·t, and stops at t = v0/(μ·g). Above v ≈ 10·veps tanh(v/veps) is 1 to
    rounding, so the line holds to 1e-7 m/s until 0.1 ms before the stop, and from
    0.1 ms after it the mass is at rest (|v| < veps)."""
    mu, g, m, v0 = 0.3, 9.81, 2.0, 1.0
    res = circuitsim.parse(f"""
mass M1 v m={m} v0={v0}
friction F1 v 0 Fc={mu * m * g} veps=1e-5
.tran 0.6 0.1m
""").simulate(**TIGHT)
    t_stop = v0 / (mu * g)
    sliding, stopped = res.t < t_stop - 1e-4, res.t > t_stop + 1e-4
    np.testing.assert_allclose(res["v"][sliding], v0 - mu * g * res.t[sliding], atol=1e-7)
    np.testing.assert_allclose(res["F1.f"][sliding], mu * m * g, rtol=1e-9)
    assert np.all(np.abs(res["v"][stopped]) < 1e-5)


def test_stuck_contact_creeps_below_breakaway_and_slides_above_it():
    """A force F below the static friction Fs: the contact creeps at the steady
    v = veps·atanh(F/Fs) (equation (1) at v ≪ vs; the Stribeck term changes it by
    (v/vs)² ≈ 1e-4). Above Fs it slides, and at v ≫ vs the mass accelerates at
    (F − Fc)/m."""
    line = "friction F1 v 0 Fc=1 Fs=1.5 vs=0.01 veps=1e-4"
    res = circuitsim.parse(f"mass M1 v m=1\n{line}\nI P 0 v I=0.9\n.tran 0.2 1m\n"
                           ).simulate(**TIGHT)
    np.testing.assert_allclose(res["v"][-1], 1e-4 * np.arctanh(0.9 / 1.5), rtol=1e-3)
    res = circuitsim.parse(f"mass M1 v m=1\n{line}\nI P 0 v I=1.6\n.tran 2 10m\n"
                           ).simulate(**TIGHT)
    late = res.t > 1.0
    slope = np.polyfit(res.t[late], res["v"][late], 1)[0]
    np.testing.assert_allclose(slope, 1.6 - 1.0, rtol=1e-6)


def test_friction_viscous_part_sets_the_terminal_velocity():
    """F = 5 N on a mass with Fc = 1 N and b = 2 N·s/m: once v ≫ veps the friction is
    Fc + b·v and m·v' = F − Fc − b·v, so v(t) = (F − Fc)/b·(1 − exp(−b·t/m)) up to the
    few microseconds the contact takes to break away (1e-5 of the amplitude)."""
    res = circuitsim.parse("""
mass M1 v m=0.5
friction F1 v 0 Fc=1 b=2 veps=1e-6
I P 0 v I=5
.tran 2 5m
""").simulate(**TIGHT)
    v = 2 * (1 - np.exp(-4 * res.t))
    assert relative_error(res["v"], v) < 1e-5
    moving = res.t > 0.01
    np.testing.assert_allclose(res["F1.f"][moving], 1 + 2 * res["v"][moving], rtol=1e-9)
