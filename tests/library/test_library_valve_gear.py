"""The library's valves (.lib hydraulics: valve, propvalve) and gear pair (.lib gear)
against their closed forms (the laws stated in the .lib headers)."""
import numpy as np
import pytest

import circuitsim

# Valve defaults (hydraulics.lib): A=1e-5 m^2, Cd=0.7, rho=850 kg/m^3, ptr=1e4 Pa, leak=1e-6.
A, CD, RHO, PTR, LEAK = 1e-5, 0.7, 850.0, 1e4, 1e-6
TIGHT = dict(rtol=1e-9, atol=1e-12)


def opening(u, leak=LEAK):
    """Effective opening ue = leak + (1 - leak)*clip(u, 0, 1)."""
    return leak + (1 - leak) * np.clip(u, 0.0, 1.0)


def valve_flow(dp, u, leak=LEAK, area=A):
    """Q = ue*Cd*A*sqrt(2/rho)*dp/(dp^2 + ptr^2)^(1/4)."""
    return opening(u, leak) * CD * area * np.sqrt(2 / RHO) * dp / (dp ** 2 + PTR ** 2) ** 0.25


def relerr(got, want):
    return np.max(np.abs(np.asarray(got) / np.asarray(want) - 1.0))


# --- valve ------------------------------------------------------------------------------
@pytest.mark.parametrize("dp", [50e5, 5e3, -20e5])   # turbulent, laminar-like (< ptr), reverse
def test_valve_steady_flow_follows_the_orifice_law_scaled_by_the_opening(dp):
    """A pressure source across valves of opening 1, 0.5, 0.1: Q = ue * orifice law."""
    res = circuitsim.parse(f"""
.lib hydraulics
V Ps s 0 V={dp}
valve U1 s 0 u=1
valve U05 s 0 u=0.5
valve U01 s 0 u=0.1
.tran 1m
""").simulate(**TIGHT)
    total = 0.0
    for name, u in (("U1", 1.0), ("U05", 0.5), ("U01", 0.1)):
        q = res[f"{name}.Q.i"][-1]
        assert relerr(q, valve_flow(dp, u)) < 1e-6, name
        total += q
    assert relerr(-res["Ps.i"][-1], total) < 1e-9          # the source delivers their sum


def test_valve_flow_is_linear_in_the_opening_and_clipped_to_0_1():
    """leak = 0: Q(u) = u*Q(1) for 0 <= u <= 1; u > 1 acts as 1, u < 0 as closed."""
    us = [0.1, 0.25, 0.5, 0.9, 1.0, 1.5]
    lines = "\n".join(f"valve U{i} s 0 u={u} leak=0" for i, u in enumerate(us))
    res = circuitsim.parse(f"""
.lib hydraulics
V Ps s 0 V=30bar
{lines}
valve Uneg s 0 u=-0.2 leak=0
.tran 1m
""").simulate(**TIGHT)
    q_full = res["U4.Q.i"][-1]
    assert relerr(q_full, valve_flow(30e5, 1.0, leak=0)) < 1e-9
    for i, u in enumerate(us):
        assert relerr(res[f"U{i}.Q.i"][-1], min(u, 1.0) * q_full) < 1e-9, u
    assert res["Uneg.Q.i"][-1] == 0.0


def test_propvalve_follows_a_ramped_and_a_pwl_opening():
    """The opening from a signal node: a ramp 0 -> 1 over 0.1..0.5 s, and a pwl that
    leaves 0..1 (clipped); Q(t) = law at the commanded opening at every output time."""
    res = circuitsim.parse("""
.lib hydraulics
V Ps s 0 V=50bar
V Ur ur 0 V=ramp(0.1, 0.5, 0, 1)
V Up up 0 V=pwl(0, -0.5, 0.2, 0.3, 0.6, 1.4, 1, 0.2)
propvalve R1 s 0 ur
propvalve P1 s 0 up A=2e-5 leak=1e-3
.tran 1 10m
""").simulate(**TIGHT)
    t = res.t
    u_ramp = np.clip((t - 0.1) / 0.4, 0.0, 1.0)
    u_pwl = np.interp(t, [0, 0.2, 0.6, 1.0], [-0.5, 0.3, 1.4, 0.2])
    assert len(t) == 101
    assert relerr(res["R1.Q.i"], valve_flow(50e5, u_ramp)) < 1e-6
    assert relerr(res["P1.Q.i"], valve_flow(50e5, u_pwl, leak=1e-3, area=2e-5)) < 1e-6
    i = np.searchsorted(t, 0.3 - 1e-9)                   # mid-ramp: half open
    assert relerr(res["R1.Q.i"][i], valve_flow(50e5, 0.5)) < 1e-6


def test_pump_into_chamber_settles_where_the_valve_passes_the_pump_flow():
    """pump Q -> chamber -> propvalve to tank, the opening stepped 0.5 -> 1 at 0.25 s:
    steady p solves Q = k*p/(p^2 + ptr^2)^(1/4), k = ue*Cd*A*sqrt(2/rho), i.e.
    p^2 = (Q^4 + sqrt(Q^8 + 4 k^4 Q^4 ptr^2)) / (2 k^4)."""
    q, area = 1e-4, 2e-6
    res = circuitsim.parse(f"""
.lib hydraulics
pump P1 p Q={q}
chamber C1 p V=1e-5
propvalve PV p 0 cmd A={area}
V Uc cmd 0 V=step(0.25, 0.5, 1)
.tran 0.5 5m
""").simulate(**TIGHT)

    def steady(u):
        k = opening(u) * CD * area * np.sqrt(2 / RHO)
        return np.sqrt((q ** 4 + np.sqrt(q ** 8 + 4 * k ** 4 * q ** 4 * PTR ** 2)) / (2 * k ** 4))

    before = np.searchsorted(res.t, 0.25) - 1            # last output before the step
    assert res.t[before] == pytest.approx(0.245)
    assert relerr(res["p"][before], steady(0.5)) < 1e-6
    assert relerr(res["p"][-1], steady(1.0)) < 1e-6
    assert relerr(res["PV.Q.i"][-1], q) < 1e-6


def test_closed_valves_isolating_a_node_leak_or_are_rejected():
    """Two closed valves in series (no chamber between): the default leak keeps the
    middle node solvable (p_m = p_s/2 by symmetry, Q = leak * law); leak = 0 leaves it
    with no equation, an input error."""
    net = """
.lib hydraulics
V Ps s 0 V=50bar
valve V1 s m u=0 {leak}
valve V2 m 0 u=0 {leak}
.tran 0.1 10m
"""
    res = circuitsim.parse(net.format(leak="")).simulate(**TIGHT)
    assert relerr(res["m"][-1], 25e5) < 1e-6
    assert relerr(res["V1.Q.i"][-1], valve_flow(25e5, 0.0)) < 1e-6
    with pytest.raises(circuitsim.CircuitsimError, match="structurally singular"):
        circuitsim.parse(net.format(leak="leak=0")).simulate()


def test_commanded_propvalves_closed_without_leak_fail_at_the_start():
    """The propvalve's opening is only known at run time: with leak = 0 and a closed
    command the middle node makes the Newton matrix singular (as its header says)."""
    with pytest.raises(circuitsim.InconsistentInitialConditions, match="singular"):
        circuitsim.parse("""
.lib hydraulics
V Ps s 0 V=50bar
V Uc cmd 0 V=0
propvalve V1 s m cmd leak=0
propvalve V2 m 0 cmd leak=0
.tran 0.1 10m
""").simulate()


@pytest.mark.parametrize("u", ["ramp(0, 1, 0, 1)", "{time}"])
def test_valve_opening_parameter_is_a_constant(u):
    """Subcircuit parameters are numbers: a time function for u is an input error
    naming it (the header points to propvalve for a varying opening)."""
    with pytest.raises(circuitsim.NetlistError, match="U1: parameter u"):
        circuitsim.parse(f"""
.lib hydraulics
V Ps s 0 V=50bar
valve U1 s 0 u={u}
.tran 0.1
""").simulate()


# --- gear ------------------------------------------------------------------------------
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


def test_dc_motor_through_a_gear_reaches_the_reflected_steady_speed():
    """dcmotor (defaults R=1, k=0.05, b=1e-5) at 12 V through a 5:1 gear onto a load
    damper bL: w_motor = V*k / (R*(b + bL/ratio^2) + k^2), w_load = w_motor/ratio."""
    V, R, k, b, bL, ratio = 12.0, 1.0, 0.05, 1e-5, 1e-3, 5.0
    res = circuitsim.parse(f"""
.lib dcmotor
.lib gear
V Vs sup 0 V={V}
dcmotor M1 sup 0 shaft
gear G1 shaft load ratio={ratio}
damper BL load 0 b={bL}
.tran 1 10m
""").simulate(**TIGHT)
    w_motor = V * k / (R * (b + bL / ratio ** 2) + k ** 2)
    assert relerr(res["shaft"][-1], w_motor) < 1e-6
    assert relerr(res["load"][-1], w_motor / ratio) < 1e-6
