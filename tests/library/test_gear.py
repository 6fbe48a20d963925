"""The library's gear pair (.lib gear) against its closed forms (the laws stated in
the .lib header)."""
import numpy as np
import pytest

import circuitsim
from helpers import relerr

TIGHT = dict(rtol=1e-9, atol=1e-12)


def test_gear_speed_and_torque_ratio_and_power_balance():
    """Speed-driven input (a ramp to 100 rad/s), damper load on the output:
    w_out = w_in/ratio, tau_out = ratio*tau_in, tau_in*w_in = tau_out*w_out."""
    ratio, b_load = 4.0, 0.02
    res = circuitsim.parse(f"""
.lib gear
V Win in 0 V=ramp(0, 0.5, 0, 100)
gear G1 in out ratio={ratio}
damper Do out 0 b={b_load}
.tran 1 10m
""").simulate(**TIGHT)
    w_in, w_out = res["in"], res["out"]
    tau_in = -res["Win.i"]                 # the source's flow is negative when it delivers
    tau_out = res["Do.f"]
    assert w_in[-1] == pytest.approx(100.0, rel=1e-12)
    assert np.allclose(w_out, w_in / ratio, rtol=1e-9, atol=1e-12)
    assert np.allclose(tau_out, b_load * w_in / ratio, rtol=1e-9, atol=1e-12)
    assert np.allclose(tau_out, ratio * tau_in, rtol=1e-9, atol=1e-12)
    assert np.allclose(res["Win.P"], tau_out * w_out, rtol=1e-9, atol=1e-12)
    assert np.allclose(res["G1.Tg.i"], tau_in, rtol=1e-9, atol=1e-12)


def test_gear_reflects_the_load_inertia_as_J_over_ratio_squared():
    """Torque tau on the input, inertia J on the output: w_in = tau*ratio^2/J * t."""
    tau, ratio, J = 2.0, 3.0, 0.5
    res = circuitsim.parse(f"""
.lib gear
I Tin 0 in I={tau}
gear G1 in out ratio={ratio}
inertia Jo out J={J}
.tran 1 10m
""").simulate(**TIGHT)
    t = res.t[1:]
    assert relerr(res["in"][1:], tau * ratio ** 2 / J * t) < 1e-6
    assert relerr(res["out"][1:], tau * ratio / J * t) < 1e-6


def test_gear_input_loss_and_reversing_ratio():
    """With input loss b and ratio -2 (the output turns backwards):
    w_in(t) = tau/b*(1 - exp(-b*ratio^2*t/J)), w_out = w_in/ratio, loss torque b*w_in."""
    tau, ratio, J, b = 1.0, -2.0, 0.04, 0.01
    res = circuitsim.parse(f"""
.lib gear
I Tin 0 in I={tau}
gear G1 in out ratio={ratio} b={b}
inertia Jo out J={J}
.tran 2 10m
""").simulate(**TIGHT)
    t = res.t[1:]
    w_in = tau / b * -np.expm1(-b * ratio ** 2 * t / J)
    assert relerr(res["in"][1:], w_in) < 1e-6
    assert relerr(res["out"][1:], w_in / ratio) < 1e-6
    assert np.all(res["out"][1:] < 0)
    assert relerr(res["G1.Bl.f"][1:], b * w_in) < 1e-6
