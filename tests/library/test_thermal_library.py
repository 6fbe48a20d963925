"""The thermal library (.lib thermal) and the thermal ports of .lib hydraulics
(orifice_th) and .lib dcmotor (dcmotor_th): against closed forms and against
scipy's solve_ivp written from the equations stated in the libraries' headers."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

import circuitsim

TIGHT = dict(rtol=1e-9, atol=1e-12)
SIGMA = 5.670374419e-8


@pytest.mark.parametrize("options, tol", [({}, 1e-4), (TIGHT, 1e-7)],
                         ids=["default", "tight"])
def test_radiation_between_two_capacities_matches_solve_ivp(options, tol):
    """C1 dT1/dt = -eps sigma A (T1^4 - T2^4) = -C2 dT2/dt, T1(0) = 600 K,
    T2(0) = 300 K; the error relative to the initial difference 300 K below tol
    (observed 3.2e-6 at the default tolerances, 6e-9 at rtol 1e-9 / atol 1e-12). The two
    temperatures keep C1 T1 + C2 T2 (the heat is only exchanged) to 1e-9."""
    c1, c2, eps, area = 50.0, 80.0, 0.7, 0.2
    res = circuitsim.parse(f"""
.lib thermal
capacity K1 t1 C={c1} T0=600
capacity K2 t2 C={c2} T0=300
radiation Rad t1 t2 eps={eps} A={area}
.tran 200 1
""").simulate(**options)

    def rhs(t, T):
        q = eps * SIGMA * area * (T[0] ** 4 - T[1] ** 4)
        return [-q / c1, q / c2]

    ref = solve_ivp(rhs, (0, 200), [600.0, 300.0], t_eval=res.t, method="LSODA",
                    rtol=1e-12, atol=1e-12)
    assert np.max(np.abs(res["t1"] - ref.y[0])) / 300 < tol
    assert np.max(np.abs(res["t2"] - ref.y[1])) / 300 < tol
    heat = c1 * res["t1"] + c2 * res["t2"]
    np.testing.assert_allclose(heat, c1 * 600 + c2 * 300, rtol=1e-9)
    q = eps * SIGMA * area * (res["t1"] ** 4 - res["t2"] ** 4)   # recorded Q: the law
    assert np.max(np.abs(res["Rad.Q.i"] - q)) / q[0] < tol       # (between steps each
    #                                                  unknown is interpolated on its own)


@pytest.mark.parametrize("options, tol", [({}, 1e-5), (TIGHT, 1e-6)],
                         ids=["default", "tight"])
def test_orifice_heat_conserves_energy(options, tol):
    """A constant flow Q through orifice_th into the tank: its pressure drop dp solves
    the orifice law, the throttling power Q*dp is constant and heats an adiabatic
    capacity: C (T - T0) = Q dp t. Relative error of C ΔT below tol (observed 1e-10 at
    both tolerances: the heat equation is linear in t); the run report names the orifice
    as dissipating the same work and the heat balance closes."""
    q, cap, t_end = 2e-4, 500.0, 10.0
    res = circuitsim.parse(f"""
.lib thermal
.lib hydraulics
I Qp 0 p I={q} domain=hydraulic
orifice_th O1 p 0 tw A=1e-5
capacity Cw tw C={cap} T0=20degC
.tran {t_end} 0.5
""").simulate(**dict(options, report=True))
    k = 0.7 * 1e-5 * np.sqrt(2 / 850)
    dp = brentq(lambda d: k * d / (d * d + 1e8) ** 0.25 - q, 1.0, 1e9, xtol=1e-6, rtol=1e-15)
    assert res["p"][-1] == pytest.approx(dp, rel=1e-6)
    work = q * dp * res.t
    heat = cap * (res["tw"] - 293.15)
    assert np.max(np.abs(heat[1:] / work[1:] - 1)) < tol
    np.testing.assert_allclose(res["O1.H.Q"], q * res["p"], rtol=1e-12)
    losses = dict(res.report.energy["losses"])
    assert losses["O1.O.Q"] == pytest.approx(q * dp * t_end, rel=1e-6)
    assert dict(res.report.heat["into"])["O1.H"] == pytest.approx(losses["O1.O.Q"], rel=1e-9)


def test_friction_heat_at_constant_sliding_speed():
    """friction_th driven at a constant relative speed v: its power
    f(v) v = (Fc tanh(v/veps) + b v) v (Fs = Fc) heats an adiabatic capacity:
    C ΔT = f(v) v t to 1e-7."""
    v, fc, b, cap = 0.3, 20.0, 4.0, 100.0
    res = circuitsim.parse(f"""
.lib thermal
V Vs x 0 V={v} domain=translational
friction_th F1 x 0 tw Fc={fc} b={b} veps=1e-3
capacity Cw tw C={cap} T0=300
.tran 5 0.5
""").simulate(**TIGHT)
    power = (fc * np.tanh(v / 1e-3) + b * v) * v
    np.testing.assert_allclose(cap * (res["tw"][1:] - 300), power * res.t[1:], rtol=1e-7)


def test_conductor_convection_fixedtemp_heatsource_steady_state():
    """A heat source Q into a node joined to a fixed ambient by a conductor G and a
    convection h A in parallel: T = Ta + Q/(G + h A) after 40 time constants."""
    res = circuitsim.parse("""
.lib thermal
heatsource Q1 tw Q=12
capacity Cw tw C=4 T0=25degC
conductor G1 tw amb G=0.5
convection H1 tw amb h=20 A=0.05
fixedtemp Ta amb T=25degC
.tran 160 1
""").simulate(**TIGHT)
    assert res["tw"][-1] == pytest.approx(298.15 + 12 / 1.5, rel=1e-9)
    assert res["Ta.Tf.i"][-1] == pytest.approx(12, rel=1e-6)     # the heat into ambient


@pytest.mark.parametrize("options, tol", [({}, 1e-4), (TIGHT, 1e-7)],
                         ids=["default", "tight"])
def test_dcmotor_th_locked_rotor_heats_its_winding(options, tol):
    """Rotor held (shaft at 0 rad/s), supply U: L di/dt = U - R(T) i,
    Cw dT/dt = i^2 R(T) - (T - Ta)/Rth, R(T) = R (1 + alpha (T - T0)), against
    solve_ivp; winding temperature error relative to its rise (49.3 K) below tol
    (observed 7.4e-7 at the default tolerances, 1e-8 at tight ones); the recorded
    resistance is the law."""
    u, r, ind, cw, rth, ta, alpha, t0 = 6.0, 1.2, 0.5e-3, 30.0, 2.0, 298.15, 3.93e-3, 293.15
    res = circuitsim.parse(f"""
.lib dcmotor
.lib thermal
V Vs sup 0 V={u}
dcmotor_th M1 sup 0 shaft tw R={r} L={ind} Cw={cw} Tw0=25degC
V Hold shaft 0 V=0 domain=rotational
R Rth tw amb R={rth} domain=thermal
fixedtemp Ta amb T=25degC
.tran 300 1
""").simulate(**options)

    def rhs(t, y):
        i, T = y
        R = r * (1 + alpha * (T - t0))
        return [(u - R * i) / ind, (i * i * R - (T - ta) / rth) / cw]

    ref = solve_ivp(rhs, (0, 300), [0.0, ta], t_eval=res.t, method="Radau",
                    rtol=1e-12, atol=1e-12)
    rise = ref.y[1][-1] - ta
    assert np.max(np.abs(res["tw"] - ref.y[1])) / rise < tol
    np.testing.assert_allclose(res["M1.Ra.R"], r * (1 + alpha * (res["tw"] - t0)), rtol=1e-12)
    np.testing.assert_allclose(res["M1.La.i"][-1], ref.y[0][-1], rtol=10 * tol)
