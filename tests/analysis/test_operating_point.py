"""The static operating point F(t, y, 0) = 0 (circuitsim.analysis.operating_point)
against statics written here by hand: a hanging pendulum in every joint model, the sag
of a loaded spring on a slider, a four-bar held by a torsion spring (virtual work), the
landing gear held by its trapped oil (virtual work), and the clear error when nothing
holds a body."""
import re

import numpy as np
import pytest

import circuitsim
from circuitsim import NoEquilibrium, cli

from helpers import netlist_path, netlist_text

G = 9.81


def _param(text, name):
    return float(re.search(rf"\b{name}=([0-9.eE+-]+)", text).group(1))


@pytest.mark.parametrize("study", [None, "fast", "soft"])
def test_pendulum_hangs_below_its_pivot(study):
    text = netlist_text("pendulum")
    m, L = _param(text, "m"), _param(text, "L")
    op = circuitsim.parse(text, "pendulum.cir").operating_point(study)
    # elastic pivot (soft: k = 1e7 N/m) stretched by m·g/k
    sag = m * G / 1e7 if study == "soft" else 0.0
    assert op["B1.z"] == pytest.approx(-L - sag, abs=1e-12)
    assert op["B1.x"] == pytest.approx(0.0, abs=1e-12)
    assert op["J1.Fz"] == pytest.approx(m * G, rel=1e-12)
    assert op["B1.wy"] == 0.0 or abs(op["B1.wy"]) < 1e-12
    assert op.residual < 1e-10


SLIDER = """.title mass on a vertical slider, held by a spring on the slider's axis
.gravity 0 0 -9.81
body B m=2 J=(0.1, 0.1, 0.1) pos=(0, 0, 0)
prismatic P 0 B at=(0, 0, 0) axis=(0, 0, 1) flange=s
spring K s 0 k=500 x0=0.01
.tran 1
"""


def test_sag_of_a_loaded_spring():
    """k·x = m·g: the deflection from its start value x0 is the slide P.s (the two
    integrate the same axis velocity and keep their difference)."""
    op = circuitsim.parse(SLIDER).operating_point()
    m, k, x0 = 2.0, 500.0, 0.01
    assert op["K.x"] == pytest.approx(-m * G / k, rel=1e-10)
    assert op["P.s"] - op["K.x"] == pytest.approx(0.0 - x0, abs=1e-12)
    assert op["B.z"] == pytest.approx(op["P.s"], abs=1e-12)
    assert op["K.f"] == pytest.approx(-m * G, rel=1e-10)


def _fourbar_point_c(theta, crank=0.1, coupler=0.35, rocker=0.3, ground=0.4):
    """Joint C of the four-bar (fourbar.cir) with the crank turned by theta from +y:
    the intersection of the circles about B and D on the branch of the netlist's start."""
    B = crank * np.array([-np.sin(theta), np.cos(theta)])
    D = np.array([ground, 0.0])
    dist = np.linalg.norm(D - B)
    a = (coupler ** 2 - rocker ** 2 + dist ** 2) / (2 * dist)
    h = np.sqrt(coupler ** 2 - a ** 2)
    e = (D - B) / dist
    normal = np.array([-e[1], e[0]])
    return B, B + a * e + h * normal       # + normal: C above the line B–D at the start


def test_fourbar_held_by_a_torsion_spring_obeys_virtual_work():
    """k·θ = −dU/dθ at the equilibrium crank angle θ, U = g·Σ m·y_cg from the loop
    geometry above (central difference)."""
    text = netlist_text("fourbar").replace(
        "revolute JA 0 crank at=(0, 0, 0) axis=(0, 0, 1)",
        "revolute JA 0 crank at=(0, 0, 0) axis=(0, 0, 1) flange=ja\nspring KA ja 0 k=2")
    op = circuitsim.parse(text, "fourbar_spring.cir").operating_point()
    theta = op["JA.angle"]

    def U(th):
        B, C = _fourbar_point_c(th)
        ys = [B[1] / 2, (B[1] + C[1]) / 2, C[1] / 2]     # crank, coupler, rocker centres
        return G * float(np.dot([0.5, 1.0, 0.8], ys))
    d = 1e-6
    dU = (U(theta + d) - U(theta - d)) / (2 * d)
    assert 2.0 * theta == pytest.approx(-dU, rel=1e-6)
    assert op["KA.x"] == pytest.approx(theta, abs=1e-12)
    B, C = _fourbar_point_c(theta)
    # (the netlist gives C to 7 digits)
    assert op["rocker.x"] == pytest.approx((0.4 + C[0]) / 2, abs=1e-7)


A_H, B_P, GAM0 = 1.2, 0.5, np.radians(40)


def _actuator_length(th):
    return np.sqrt(A_H ** 2 + B_P ** 2 - 2 * A_H * B_P * np.cos(th + GAM0))


def held_gear_text(angle_deg=45.0):
    """landing_gear.cir with the valve sealed (leak = 0), the strut at angle_deg and the
    cylinder's extension matching the geometry there."""
    th = np.radians(angle_deg)
    text = netlist_text("landing_gear")
    text = text.replace("propvalve PV sup pa cmd A=2e-5",
                        "propvalve PV sup pa cmd A=2e-5 leak=0")
    text = text.replace("x0=0 mrod", f"x0={float(_actuator_length(th) - _actuator_length(0))!r}"
                        " mrod")
    return text.replace(".tran 5 10m", f".ic TR.angle={angle_deg}deg\n.tran 5 10m")


def _gear_potential(th):
    """U(θ) = g·Σ m·z of strut (CG 1.9 m below the trunnion), barrel (CG 0.4 m from its
    hinge H towards the horn tip P) and rod (CG 0.4 m from P towards H)."""
    H = A_H * np.array([np.cos(np.radians(130)), np.sin(np.radians(130))])   # (x, z)
    P = B_P * np.array([np.sin(th), np.cos(th)])
    u = (P - H) / np.linalg.norm(P - H)
    z = {"strut": -1.9 * np.cos(th), "barrel": (H + 0.4 * u)[1], "rod": (P - 0.4 * u)[1]}
    return G * (150 * z["strut"] + 12 * z["barrel"] + 5 * z["rod"])


def test_landing_gear_held_at_pressure_by_virtual_work():
    """The trapped oil holds the strut: pa·Aa·dL/dθ = dU/dθ (chamber B vented, pb = 0)."""
    op = circuitsim.parse(held_gear_text(), "gear.cir").operating_point()
    th = op["TR.angle"]
    assert th == pytest.approx(np.radians(45), abs=1e-3)       # the oil column hardly gives
    d = 1e-6
    dU = (_gear_potential(th + d) - _gear_potential(th - d)) / (2 * d)
    dL = (_actuator_length(th + d) - _actuator_length(th - d)) / (2 * d)
    Aa = np.pi * 0.063 ** 2 / 4
    assert op["pb"] == pytest.approx(0.0, abs=1e-3)
    assert op["pa"] * Aa * dL == pytest.approx(dU, rel=1e-6)
    assert op["P.f"] == pytest.approx(dU / dL, rel=1e-6)
    assert op["CY.stops.x"] == pytest.approx(op["P.s"], abs=1e-12)


def test_landing_gear_leaking_valve_rests_on_the_end_stop():
    """As shipped the closed valve leaks (1e-6 of its opening): the only equilibrium is
    on the upper end stop with the supply pressure in chamber A, the stop taking
    psup·Aa less the holding force."""
    op = circuitsim.load(netlist_path("landing_gear")) \
        .operating_point()
    Aa = np.pi * 0.063 ** 2 / 4
    psup = 3000 * 6894.757293168
    assert op["pa"] == pytest.approx(psup, rel=1e-9)
    assert op["CY.stops.f"] == pytest.approx(psup * Aa - op["P.f"], rel=1e-9)
    assert op["TR.angle"] == pytest.approx(np.pi / 2, abs=5e-3)


FREE = """.title a body nothing holds
.gravity 0 0 -9.81
body B m=2 J=(1, 1, 1)
.tran 1
"""


def test_a_free_body_has_no_equilibrium():
    with pytest.raises(NoEquilibrium) as info:
        circuitsim.parse(FREE, "free.cir").operating_point()
    message = str(info.value)
    assert "B.vz" in message and "19.62 N" in message and "free.cir:3:1" in message


def test_cli_op_prints_the_table_and_writes_values(tmp_path, capsys):
    path = tmp_path / "slider.cir"
    path.write_text(SLIDER)
    out = tmp_path / "op.csv"
    assert cli.main(["op", str(path), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "positions and angles" in printed and "P.s" in printed and "velocities: all zero" \
        in printed
    assert "P.f1" not in printed                      # reactions along own normals: --all
    rows = out.read_text().splitlines()
    assert rows[0] == "name,value,unit" and any(r.startswith("K.x,") for r in rows)


def test_cli_op_without_equilibrium_exits_3_without_traceback(tmp_path, capsys):
    path = tmp_path / "free.cir"
    path.write_text(FREE)
    assert cli.main(["op", str(path)]) == 3
    err = capsys.readouterr().err
    assert "E_NO_EQUILIBRIUM" in err and "Traceback" not in err
