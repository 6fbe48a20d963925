"""The library's DC motor (.lib dcmotor) against its closed forms (the equations stated
in the .lib header): the spin-up of the two-state linear model and the steady speed
through a gear."""
import numpy as np
from scipy.linalg import expm

import circuitsim

TIGHT = dict(rtol=1e-9, atol=1e-12)


def test_dc_motor_spin_up_solves_its_two_linear_equations():
    """Without Coulomb friction (Tc = 0) the header's equations L·i' = V − R·i − k·ω,
    J·ω' = k·i − b·ω are x' = M·x + u with x = (i, ω), M = [[−R/L, −k/L], [k/J, −b/J]],
    u = (V/L, 0); from rest x(t) = M⁻¹·(exp(M·t) − I)·u, to 1e-6 of the peaks. The
    current into p and the speed are positive (the header's sign convention), and after
    25 mechanical time constants R·J/k² the speed is V·k/(R·b + k²).
    """
    V, R, L, k, J, b = 12.0, 1.0, 0.5e-3, 0.05, 1e-4, 1e-5
    res = circuitsim.parse(f"""
.lib dcmotor
V Vs sup 0 V={V}
dcmotor M1 sup 0 shaft R={R} L={L} k={k} J={J} b={b}
.tran 1 1m
""").simulate(**TIGHT)
    M = np.array([[-R / L, -k / L], [k / J, -b / J]])
    u = np.array([V / L, 0.0])
    x = np.array([np.linalg.solve(M, (expm(M * t) - np.eye(2)) @ u) for t in res.t])
    for name, exact in (("M1.La.i", x[:, 0]), ("shaft", x[:, 1])):
        err = np.max(np.abs(res[name] - exact)) / np.max(np.abs(exact))
        assert err < 1e-6, name
    assert np.all(res["M1.La.i"][1:] > 0) and np.all(res["shaft"][1:] > 0)
    np.testing.assert_allclose(res["shaft"][-1], V * k / (R * b + k ** 2), rtol=1e-6)


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
    np.testing.assert_allclose(res["shaft"][-1], w_motor, rtol=1e-6)
    np.testing.assert_allclose(res["load"][-1], w_motor / ratio, rtol=1e-6)
