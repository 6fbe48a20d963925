"""The thermal domain's elements against closed forms: rtherm (a winding R(T) heating its
thermal port), heat (a loss expression into a thermal node), R/C/V/I with
domain=thermal, temperatures in degC; the run report's heat balance."""
import numpy as np
import pytest

import circuitsim

TIGHT = dict(rtol=1e-9, atol=1e-12)
# (solver options, error allowed) at the default tolerances and at tight ones
TOLERANCES = [pytest.param({}, 1e-4, id="default"), pytest.param(TIGHT, 1e-6, id="tight")]
DAMPER_TOLERANCES = [pytest.param({}, 2e-3, id="default"), pytest.param(TIGHT, 1e-6, id="tight")]

# a winding fed by a constant current, its heat capacity C, a conductance G to ambient Ta
I0, R0, C, G, TA, T0 = 3.0, 1.5, 40.0, 0.8, 300.0, 293.15


def _winding(alpha, options, t_end=200.0):
    return circuitsim.parse(f"""
I I1 0 a I={I0}
rtherm Rw a 0 tw R0={R0} alpha={alpha} T0=20degC
C Cw tw 0 C={C} ic={TA} domain=thermal
R Rg tw amb R={1 / G} domain=thermal
V Ta amb 0 V={TA} domain=thermal
.tran {t_end} 1
""").simulate(**options)


@pytest.mark.parametrize("options, tol", TOLERANCES)
def test_winding_constant_resistance_heats_to_the_closed_form(options, tol):
    """alpha = 0: C dT/dt = I^2 R0 - G (T - Ta), T(0) = Ta:
    T(t) = Ta + (I^2 R0/G)(1 - exp(-G t/C)); the error relative to the final rise
    I^2 R0/G (16.9 K) below tol (1e-4 at the default tolerances, 1e-6 at rtol 1e-9 /
    atol 1e-12: observed 1.6e-6 and 6e-8)."""
    res = _winding(0.0, options)
    rise = I0 ** 2 * R0 / G
    T = TA + rise * (1 - np.exp(-G * res.t / C))
    assert np.max(np.abs(res["tw"] - T)) / rise < tol
    np.testing.assert_allclose(res["Rw.R"], R0, rtol=1e-12)
    np.testing.assert_allclose(res["Rw.Q"], I0 ** 2 * R0, rtol=1e-9)


@pytest.mark.parametrize("options, tol", TOLERANCES)
def test_winding_temperature_dependent_resistance_follows_the_linear_ode(options, tol):
    """alpha = 3.93e-3 (copper): C dT/dt = I^2 R0 (1 + alpha (T - T0)) - G (T - Ta) is
    linear in T: C dT/dt = k - lam T with lam = G - I^2 R0 alpha (> 0: stable) and
    k = I^2 R0 (1 - alpha T0) + G Ta, so T(t) = Tinf + (Ta - Tinf) exp(-lam t/C),
    Tinf = k/lam; the error relative to the final rise Tinf - Ta below tol (observed
    1.2e-6 at the default tolerances, 6e-8 at tight ones). The recorded
    R(T) is R0 (1 + alpha (T - T0)) and the heat I^2 R(T)."""
    alpha = 3.93e-3
    res = _winding(alpha, options)
    lam = G - I0 ** 2 * R0 * alpha
    k = I0 ** 2 * R0 * (1 - alpha * T0) + G * TA
    t_inf = k / lam
    T = t_inf + (TA - t_inf) * np.exp(-lam * res.t / C)
    assert np.max(np.abs(res["tw"] - T)) / (t_inf - TA) < tol
    law = R0 * (1 + alpha * (res["tw"] - T0))
    np.testing.assert_allclose(res["Rw.R"], law, rtol=1e-12)
    np.testing.assert_allclose(res["Rw.Q"], I0 ** 2 * law, rtol=1e-9)
    np.testing.assert_allclose(res["a"], I0 * law, rtol=1e-9)       # v = i R(T)


@pytest.mark.parametrize("options, tol", DAMPER_TOLERANCES)
def test_damper_heat_is_its_dissipated_work(options, tol):
    """A damper b driven at v = V0 sin(w t), its power b v^2 into an adiabatic capacity C
    through the element heat: C (T - T(0)) = b V0^2 (t/2 - sin(2 w t)/(4 w)) (the
    integral of the dissipated power); error relative to that work at every point after
    the first period below tol (2e-3 at the default tolerances, observed 3.9e-4; 1e-6
    at tight ones, observed 2e-7)."""
    b, v0, w, cap = 3.0, 2.0, 5.0, 1.0
    res = circuitsim.parse(f"""
V Vs v 0 V=sin(0, {v0}, {w / (2 * np.pi)})
damper D1 v 0 b={b}
heat H1 tw P={{{b}*v(v)^2}}
C Cw tw 0 C={cap} ic=20degC
.tran 3 0.01
""").simulate(**options)
    t = res.t
    work = b * v0 ** 2 * (t / 2 - np.sin(2 * w * t) / (4 * w))
    heat = cap * (res["tw"] - 293.15)
    later = t > 2 * np.pi / w
    assert np.max(np.abs(heat[later] / work[later] - 1)) < tol
    np.testing.assert_allclose(res["H1.Q"], b * res["v"] ** 2, rtol=1e-12)


def test_thermal_network_units_and_celsius():
    """R C V I with domain=thermal: K/W, J/K, K (degC absolute), W. A heat source Q into
    C through R to a fixed temperature: steady state T = Ta + Q R; the units recorded."""
    res = circuitsim.parse("""
I Q1 0 tw I=5 domain=thermal
C Cw tw 0 C=2J/K ic=25degC domain=thermal
R Rth tw amb R=4K/W domain=thermal
V Ta amb 0 V=25degC domain=thermal
.tran 200 1
""").simulate(**TIGHT)
    assert res["tw"][-1] == pytest.approx(298.15 + 5 * 4 * (1 - np.exp(-200 / 8)), rel=1e-9)
    assert res.units["tw"] == "K" and res.units["Ta.i"] == "W"


def test_report_keeps_heat_out_of_the_power_balance():
    """The run report: the winding's Joule heat is dissipation named by the element; the
    thermal nodes and the heat capacity's C·T are not in the power balance (error 0 to
    the quadrature); the heat balance: Q_in (I^2 R0 t) = Q_out + ΔH."""
    res = _winding(0.0, dict(TIGHT, report=True), t_end=50.0)
    rep = res.report
    e, h = rep.energy, rep.heat
    assert e["dE"] == 0.0
    assert abs(e["W_in"] - I0 ** 2 * R0 * 50.0) < 1e-6 * e["W_in"]
    assert dict(e["losses"])["Rw"] == pytest.approx(I0 ** 2 * R0 * 50.0, rel=1e-9)
    assert dict(h["into"])["Rw"] == pytest.approx(I0 ** 2 * R0 * 50.0, rel=1e-9)
    assert h["dH"] == pytest.approx(C * (res["tw"][-1] - TA), rel=1e-12)
    assert abs(h["error"]) < 1e-3 * h["Q_in"]        # trapezoid over 1 s output steps
    text = rep.text()
    assert "heat balance over the run" in text and "heat in: Rw" in text
