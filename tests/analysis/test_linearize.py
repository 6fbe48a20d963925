"""Linearisation in minimal coordinates (circuitsim.analysis.linearize) against closed
forms: the compound pendulum's small oscillation, the mass–spring–damper, the DC motor's
state matrices, the landing gear's oil column, the gyroscope's nutation, and the CLI."""
import re

import numpy as np
import pytest

import circuitsim
from circuitsim import cli

from helpers import netlist_path, netlist_text
from test_operating_point import A_H, B_P, GAM0, held_gear_text

G = 9.81


def _param(text, name):
    return float(re.search(rf"\b{name}=([0-9.eE+-]+)", text).group(1))


def _oscillations(lin):
    return [m for m in lin.modes if m.oscillatory and not m.neutral]


@pytest.mark.parametrize("study", [None, "fast"])
def test_pendulum_small_oscillation(study):
    """ω = sqrt(m·g·L/J_pivot), J_pivot = J + m·L² (swing about the body's transverse
    axis, J = 0.02 kg·m²), twice (x and y); the spin about the vertical is neutral."""
    text = netlist_text("pendulum")
    m, L = _param(text, "m"), _param(text, "L")
    J = float(re.search(r"J=\(([0-9.]+),", text).group(1))
    omega = np.sqrt(m * G * L / (J + m * L ** 2))
    lin = circuitsim.parse(text, "pendulum.cir").linearize(study)
    assert len(lin.states) == 6                                # 3 rotations, their rates
    swings = _oscillations(lin)
    assert len(swings) == 2
    for mode in swings:
        assert abs(mode.eigenvalue) == pytest.approx(omega, rel=1e-8)
        assert abs(mode.damping_ratio) < 1e-8
    assert sum(m.neutral for m in lin.modes) >= 1


def test_mass_spring_damper():
    """ω = sqrt(k/m), ζ = b/(2·sqrt(k·m)) with msd.cir's m = 1, k = 100, b = 2."""
    lin = circuitsim.load(netlist_path("msd")).linearize()
    assert lin.states == ["v", "K1.x"]
    (mode,) = lin.modes
    assert mode.frequency == pytest.approx(10 / (2 * np.pi), rel=1e-10)
    assert mode.damping_ratio == pytest.approx(0.1, rel=1e-10)
    assert mode.damped_frequency == pytest.approx(np.sqrt(1 - 0.01) * 10 / (2 * np.pi),
                                                  rel=1e-10)


def test_dc_motor_state_matrices_and_time_constants():
    """x = (i, w): A = [[−R/L, −k/L], [k/J, −b/J]], B = [1/L, 0]; the electrical and
    mechanical time constants are −1/λ of A's real eigenvalues."""
    R, La, k, J, b = 1.0, 0.5e-3, 0.05, 1e-4, 1e-5
    lin = circuitsim.load(netlist_path("dcmotor")).linearize(
        inputs=["Vsup"], outputs=["shaft", "La.i", "Bb.f"])
    assert lin.states == ["La.i", "shaft"]
    A = np.array([[-R / La, -k / La], [k / J, -b / J]])
    assert np.allclose(lin.A, A, rtol=1e-9, atol=1e-9)
    assert np.allclose(lin.B, [[1 / La], [0.0]], rtol=1e-9, atol=1e-6)
    assert np.allclose(lin.C, [[0, 1], [1, 0], [0, b]], rtol=1e-6, atol=1e-12)
    assert np.allclose(lin.D, 0.0, atol=1e-12)
    taus = sorted(m.time_constant for m in lin.modes)
    expected = sorted(-1 / np.linalg.eigvals(A).real)
    assert taus == pytest.approx(expected, rel=1e-9)


def test_landing_gear_oil_column():
    """The strut held at 45° by the trapped oil rings at
    f = sqrt(k_θ/J)/2π, k_θ = β·Aa²/Va·(dL/dθ)² (the oil column of chamber A seen at the
    trunnion), J = Jy + m·d² of the strut. Left out, each below 0.3 %: the barrel's and
    rod's inertia, chamber B (vented through the orifice), gravity and the actuator's
    geometric stiffness; hence 1 %."""
    beta, Va, Aa = 1.5e9, 1e-3, np.pi * 0.063 ** 2 / 4
    th = np.radians(45)
    dL = A_H * B_P * np.sin(th + GAM0) / np.sqrt(A_H ** 2 + B_P ** 2
                                                 - 2 * A_H * B_P * np.cos(th + GAM0))
    k_theta = beta * Aa ** 2 / Va * dL ** 2
    J = 135.1 + 150 * 1.9 ** 2
    f = np.sqrt(k_theta / J) / (2 * np.pi)
    lin = circuitsim.parse(held_gear_text(), "gear.cir").linearize()
    assert lin.states[:2] == ["TR.angle", "TR.w"]
    (ring,) = _oscillations(lin)
    assert ring.frequency == pytest.approx(f, rel=1e-2)
    assert 0 < ring.damping_ratio < 0.05                 # lightly damped (the orifice)


def test_gyroscope_nutation_at_a_time_of_a_run():
    """Spinning at Ω (gyroscope.cir, bearings without friction, before the torque step):
    the gimbals nutate at ω_n = C·Ω/sqrt(I_θ·I_ψ), I_θ = J_inner,x + A,
    I_ψ = J_outer,z + J_inner,z + A."""
    text = netlist_text("gyroscope")
    Om, mr, rr, hr = (_param(text, n) for n in ("Om0", "mr", "rr", "hr"))
    C, A = mr * rr ** 2 / 2, mr * (3 * rr ** 2 + hr ** 2) / 12
    omega = C * Om / np.sqrt((0.96e-3 + A) * (2.5e-3 + 1.92e-3 + A))
    lin = circuitsim.parse(text, "gyroscope.cir").linearize(
        set=["Tcg=0", "bg=0", "Tcs=0", "bs=0"], at=0.05, inputs=["Tq"])
    assert lin.states[:3] == ["Jo.angle", "Ji.angle", "Js.angle"]
    (nutation,) = _oscillations(lin)
    assert abs(nutation.eigenvalue) == pytest.approx(omega, rel=1e-6)
    assert abs(nutation.damping_ratio) < 1e-6


def test_fourbar_one_degree_of_freedom():
    lin = circuitsim.load(netlist_path("fourbar")).linearize()
    assert lin.states == ["JA.angle", "JA.w"]
    assert lin.A[0, 1] == pytest.approx(1.0, rel=1e-9)     # angle' = w


def test_cli_linearize_prints_modes_and_writes_matrices(tmp_path, capsys):
    out = tmp_path / "motor.npz"
    assert cli.main(["linearize", str(netlist_path("dcmotor")), "--inputs", "Vsup",
                     "--outputs", "shaft", "--out", str(out), "--matrices"]) == 0
    printed = capsys.readouterr().out
    assert "modes:" in printed and "La.i" in printed and "A =" in printed
    data = np.load(out)
    assert data["A"].shape == (2, 2) and list(data["inputs"]) == ["Vsup"]


def test_cli_linearize_unknown_input_is_an_input_error(capsys):
    assert cli.main(["linearize", str(netlist_path("dcmotor")), "--inputs", "Vsupp"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'Vsup'" in err and "Traceback" not in err


def test_a_mechanism_without_freedom_is_refused_in_one_line(tmp_path, capsys):
    """A body welded to the ground has no state to linearise: one message, no
    traceback (was a LAPACK error from a least-squares solve with no columns)."""
    netlist = tmp_path / "welded.cir"
    netlist.write_text("body B m=1 J=(1, 1, 1)\nfixed F 0 B\n.tran 1\n")
    assert cli.main(["linearize", str(netlist)]) == 2
    err = capsys.readouterr().err
    assert "nothing to linearise: the system has no free state here" in err
    assert "Traceback" not in err
