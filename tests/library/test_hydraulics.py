"""The hydraulics library (.lib hydraulics: chamber, orifice, valve, propvalve, relief,
check, pump, cylinder) against the static force balance and the laws stated in its
header."""
import numpy as np
import pytest
from scipy.optimize import brentq

import circuitsim
from helpers import relerr

TIGHT = dict(rtol=1e-9, atol=1e-12)

# Valve defaults (hydraulics.lib): A=1e-5 m^2, Cd=0.7, rho=850 kg/m^3, ptr=1e4 Pa, leak=1e-6.
A, CD, RHO, PTR, LEAK = 1e-5, 0.7, 850.0, 1e4, 1e-6


def opening(u, leak=LEAK):
    """Effective opening ue = leak + (1 - leak)*clip(u, 0, 1)."""
    return leak + (1 - leak) * np.clip(u, 0.0, 1.0)


def valve_flow(dp, u, leak=LEAK, area=A):
    """Q = ue*Cd*A*sqrt(2/rho)*dp/(dp^2 + ptr^2)^(1/4)."""
    return opening(u, leak) * CD * area * np.sqrt(2 / RHO) * dp / (dp ** 2 + PTR ** 2) ** 0.25


def test_cylinder_static_force_balance():
    """Rod held still: the holding force is pa*Aa - pb*Ab (F = p*A per chamber)."""
    res = circuitsim.parse("""
.lib hydraulics
V Pa a 0 V=20bar
V Pb b 0 V=5bar
cylinder C1 a b rod x0=0.1
V Hold rod 0 V=0
.tran 0.01 1m
""").simulate(rtol=1e-9, atol=1e-12)
    force_on_rod = 20e5 * 2e-3 - 5e5 * 1e-3
    np.testing.assert_allclose(res["Hold.i"], force_on_rod, rtol=1e-9)


@pytest.mark.slow
def test_cylinder_extends_at_pump_flow_over_area():
    """A pump feeding chamber A of a free rod: steady speed Q/Aa; B drains to tank.
    The oil column rings at ~4 kHz on the 1 kg rod and pressure a swings through zero
    (-4.6 bar .. +2.8 bar) before settling: with atol 1e-12 applied to pressures in Pa as
    it is, the error test near a zero crossing asked for 1e-15 s steps and the run
    collapsed at t = 0.038 s; scaled by the nominal 1e5 Pa (atol 1e-7 Pa) it runs."""
    res = circuitsim.parse("""
.lib hydraulics
pump P1 a Q=1e-4
cylinder C1 a b rod x0=0.01 Fc=10
orifice O1 b t A=2e-5
tank T1 t
.tran 0.12 1m
""").simulate(rtol=1e-8, atol=1e-12)
    # steady by 0.12 s: speed within 2.1e-6 of Q/Aa (1.5e-8 at 0.2 s), 38 500 steps of
    # the ringing (43 600 to 0.2 s)
    assert res["rod"][-1] == pytest.approx(1e-4 / 2e-3, rel=1e-4)
    # B drains through the orifice: Q = Ab*v at the orifice pressure drop
    q = 1e-3 * res["rod"][-1]
    dp = res["b"][-1]
    law = 0.7 * 2e-5 * np.sqrt(2 / 850) * dp / (dp ** 2 + 1e4 ** 2) ** 0.25
    assert law == pytest.approx(q, rel=1e-6)


def test_orifice_is_turbulent_well_above_the_transition():
    res = circuitsim.parse("""
.lib hydraulics
V Ps s 0 V=50bar
orifice O1 s 0 A=1e-5 Cd=0.7 rho=850
.tran 1m
""").simulate()
    q = -res["Ps.i"][-1]
    assert q == pytest.approx(0.7 * 1e-5 * np.sqrt(2 * 50e5 / 850), rel=1e-5)


def test_library_nodes_are_hydraulic_with_nominal_tolerances():
    """The library's R/C/B/I/V carry domain=hydraulic: its nodes are pressures in Pa,
    its flows m^3/s, and the solver's atol is scaled by their nominal magnitudes
    (1e5 Pa, 1e-4 m^3/s); the rod stays a translational node with scale 1."""
    net = circuitsim.parse("""
.lib hydraulics
pump P1 a Q=1e-4
cylinder C1 a b rod
orifice O1 b t A=2e-5
tank T1 t
.tran 0.01
""")
    system = net.prepare().system
    scale = dict(zip(system.names, system.atol_scale))
    assert system.units["a"] == "Pa" and system.units["O1.Q.i"] == "m^3/s"
    assert scale["a"] == 1e5 and scale["b"] == 1e5 and scale["O1.Q.i"] == 1e-4
    assert system.units["rod"] == "m/s" and scale["rod"] == 1.0
    res = net.simulate(t_end=1e-3)                 # the units only: 1 ms of the ringing
    assert res.units["a"] == "Pa" and res.units["O1.Q.i"] == "m^3/s"


def test_valve_opening_from_closed_at_t0_settles_at_the_orifice_divider_pressure():
    """A propvalve opened by a ramp from command 0 at t = 0 (the law's kink at the
    closed position) fills a chamber that drains through an orifice. The first step
    used to fail: the first Newton correction is ~0 (the matrix sees no opening), the
    second moves the valve flow by a tiny amount, and the ratio of the two was taken
    for divergence until the step collapsed at 4e-14 s. Steady state: valve flow =
    orifice flow with the library's regularised law, solved here by brentq
    (pa = 205.52 bar for 3000 psi); measured error 5e-14 relative (fully open: ue = 1)."""
    res = circuitsim.parse("""
.lib hydraulics
V Psup sup 0 V=3000psi
V Ucmd cmd 0 V=ramp(0, 0.1, 0, 1)
R Rcmd cmd 0 R=1k
propvalve PV sup pa cmd A=2e-5
chamber CA pa V=1e-3
orifice OB pa tk A=1.6e-6
tank T tk
.tran 0.5 10m
""").simulate(rtol=1e-8)
    assert res.success

    def law(area, dp, cd=0.7, rho=850.0, ptr=1e4):
        return cd * area * np.sqrt(2 / rho) * dp / (dp ** 2 + ptr ** 2) ** 0.25
    ps = 3000 * 6894.757293168
    pa = brentq(lambda p: law(2e-5, ps - p) - law(1.6e-6, p), 0.0, ps, xtol=1e-6)
    assert res["pa"][-1] == pytest.approx(pa, rel=1e-9)


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


def relief_flow(p, pcrack, override, area=A):
    """The relief valve's law (hydraulics.lib header): the orifice law scaled by
    ue = leak + (1 - leak)*clip((p - pcrack)/override, 0, 1)."""
    return valve_flow(p, (p - pcrack) / override, area=area)


@pytest.mark.parametrize("q", [2e-5, 1e-4, 5e-4])
def test_relief_valve_holds_the_pressure_within_its_override(q):
    """A pump of flow q into a chamber relieved to tank: the pressure settles where the
    valve passes q, between the cracking pressure and cracking + override (the root of
    the valve law, found here by brentq)."""
    pcrack, override = 100e5, 10e5
    net = circuitsim.parse(f"""
.lib hydraulics
pump P1 p Q={q}
chamber C1 p V=1e-5
relief RV p 0 pcrack=100bar override=10bar
.tran 1 10m
""")
    res = net.simulate(**TIGHT)
    steady = brentq(lambda p: relief_flow(p, pcrack, override) - q, pcrack,
                    pcrack + override, xtol=1e-6)
    assert relerr(net.simulate()["p"][-1], steady) < 1e-5      # default tolerances
    assert pcrack < res["p"][-1] < pcrack + override
    assert relerr(res["p"][-1], steady) < 1e-6
    assert relerr(res["RV.Q.i"][-1], q) < 1e-6
    # below the cracking pressure the valve passes only its leak: the chamber fills at
    # dp/dt = q*beta/V until it cracks, t = pcrack*V/(q*beta)
    t_crack = pcrack * 1e-5 / (q * 1.5e9)
    before = res.t < 0.9 * t_crack
    assert np.allclose(res["p"][before], q * 1.5e9 / 1e-5 * res.t[before], rtol=1e-4,
                       atol=1.0)


def test_check_valve_passes_forward_flow_and_blocks_reverse_flow():
    """Forward, beyond cracking + opening pressure: the full orifice law. Reverse: a
    charged chamber behind the valve holds its pressure, losing only the leak:
    (V/beta) dp/dt = -leak*k*sqrt(p) for p >> ptr, so sqrt(p) falls linearly,
    sqrt(p(t)) = sqrt(p0) - (beta/V)*leak*k*t/2, k = Cd*A*sqrt(2/rho)."""
    forward = circuitsim.parse("""
.lib hydraulics
V Vin a 0 V=2e5 domain=hydraulic
check CV a 0
.tran 1m
""").simulate(**TIGHT)
    assert relerr(forward["CV.Q.i"][-1], valve_flow(2e5, 1.0)) < 1e-9
    p0, volume, beta = 50e5, 1e-5, 1.5e9
    reverse = circuitsim.parse(f"""
.lib hydraulics
check CV 0 p
chamber C1 p V={volume}
.ic p={p0}
.tran 10 0.1
""").simulate(**TIGHT)
    k = CD * A * np.sqrt(2 / RHO)
    exact = (np.sqrt(p0) - beta / volume * LEAK * k * reverse.t / 2) ** 2
    assert relerr(reverse["p"], exact) < 1e-6
    # blocked: backwards it passes the leak's share of what it passes forwards
    assert relerr(-reverse["CV.Q.i"][0], LEAK / opening(1.0) * valve_flow(p0, 1.0)) < 1e-6
    assert np.all(reverse["CV.Q.i"] < 0)                   # the leak flows back, p -> 0
