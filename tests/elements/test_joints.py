"""Joints built from constraint primitives (revolute, prismatic, cylindrical, universal,
fixed, pointplane, norotation): validation against closed forms, axis flanges, start-up
assembly of closed loops, redundant loop constraints, model swapping."""

import numpy as np
import pytest
from scipy.integrate import trapezoid
from scipy.special import ellipk

import circuitsim
from circuitsim.assembly.system import prepare_params
from circuitsim.elements import element_types
from circuitsim.elements.base import initialisation_params
from circuitsim.elements.declarations import ElementInstance
from circuitsim.errors import ModelError, NetlistError

from helpers import netlist_text, zero_crossings

MODELS = ("position", "velocity", "elastic")
JOINTS = ("revolute", "prismatic", "cylindrical", "universal", "fixed", "pointplane",
          "norotation")

SLIDER_CRANK = """
.param r=0.1 l=0.3
body crank  m=1   J=(1e-3, 2e-3, 3e-3) pos=({r/2}, 0, 0)
body rod    m=0.5 J=(4e-3, 4e-3, 4e-3) pos=({r + l/2}, 0, 0)
body slider m=2   J=(1e-3, 1e-3, 1e-3) pos=({r + l}, 0, 0)
revolute  J1 0 crank    at=(0, 0, 0)       axis=(0, 0, 1) flange=drive model=MODEL
revolute  J2 crank rod  at=({r}, 0, 0)     axis=(0, 0, 1) model=MODEL
revolute  J3 rod slider at=({r + l}, 0, 0) axis=(0, 0, 1) model=MODEL
prismatic P1 0 slider   at=({r + l}, 0, 0) axis=(1, 0, 0) model=MODEL
V Wd drive 0 V=10
.tran 0.63 1m rtol=1e-8 atol=1e-10
"""


def _slider_closed_form(theta, omega, r=0.1, l=0.3):
    root = np.sqrt(l ** 2 - r ** 2 * np.sin(theta) ** 2)
    x = r * np.cos(theta) + root
    v = -r * omega * np.sin(theta) - r ** 2 * omega * np.sin(theta) * np.cos(theta) / root
    return x, v


@pytest.mark.parametrize("model,tol,vtol", [("position", 1e-6, 1e-6),
                                            ("velocity", 1e-6, 1e-6),
                                            ("elastic", 1e-5, 2e-3)])
def test_slider_crank_matches_closed_form(model, tol, vtol):
    """Crank driven at 10 rad/s by a velocity source on the hinge's axis node: slider
    position and velocity vs x = r cos θ + sqrt(l² − r² sin² θ) (issue 4: 1e-6 m; the
    elastic joints deflect by ~F/k = 1e-6 m, so 1e-5 there, and their own vibration
    shows in the velocity: 6e-4 m/s measured)."""
    res = circuitsim.parse(SLIDER_CRANK.replace("MODEL", model)).simulate()
    theta = res["J1.angle"]
    np.testing.assert_allclose(theta, 10.0 * res.t, atol=1e-9)
    x, v = _slider_closed_form(theta, 10.0)
    assert np.abs(res["slider.x"] - x).max() < tol
    assert np.abs(res["slider.vx"] - v).max() < vtol
    assert np.abs(res["P1.s"] - (x - 0.4)).max() < tol
    # the drive torque needed: from the power balance, τω = d(kinetic energy)/dt
    kinetic = sum(res[f"{b}.T"] for b in ("crank", "rod", "slider"))
    power = res["J1.tau"] * 10.0
    dT = np.gradient(kinetic, res.t)
    assert np.abs(power - dT)[5:-5].max() < 1e-3 * np.abs(power).max()


def test_slider_crank_reports_redundant_rows_and_velocity_assembly():
    res = circuitsim.parse(SLIDER_CRANK.replace("MODEL", "position")).simulate(t_end=0.01)
    notes = " ".join(res.notes)
    assert "crank.wz 0 -> 10" in notes                 # the drive's speed, at t = 0
    warnings = [m for m, _ in res.warnings if "over-constrained" in m]
    assert len(warnings) == 1 and "3 redundant constraint row(s)" in warnings[0]
    assert res.mobility.rows == 20 and res.mobility.dof == 1   # 18 coordinates, 1 dof


PENDULUM = """
.gravity 0 0 -9.81
body B1 m=1 J=(0.02, 0.02, 0.001) pos=(0.5, 0, 0) rot=(0, 1, 0, 90deg)
revolute J1 0 B1 at=(0, 0, 0) axis=(0, 1, 0) model=MODEL
.tran 1.8 1m rtol=1e-8 atol=1e-10
"""


@pytest.mark.parametrize("model,tol", [("position", 1e-5), ("velocity", 1e-5),
                                       ("elastic", 1e-4)])
def test_revolute_pendulum_period(model, tol):
    """Compound pendulum released from horizontal: T = 4 K(sin 45°) sqrt(L_eq/g),
    L_eq = J_pivot/(m L) = 0.54 m. Measured between the first two zero crossings of ω."""
    res = circuitsim.parse(PENDULUM.replace("MODEL", model)).simulate()
    w, t = res["B1.wy"], res.t
    crossings = zero_crossings(t[1:], w[1:])        # not the release from rest at t = 0
    period = 2 * (crossings[1] - crossings[0])
    exact = 4 * ellipk(np.sin(np.pi / 4) ** 2) * np.sqrt(0.54 / 9.81)
    assert abs(period - exact) / exact < tol
    # hinge reaction at release: vertical m(g − αL), α = mgL/J_pivot (the elastic
    # hinge starts undeflected, without force)
    alpha = 9.81 * 0.5 / 0.27
    if model != "elastic":
        assert res["J1.Fz"][0] == pytest.approx(9.81 - alpha * 0.5, rel=1e-6)


PRISMATIC = """
.gravity 0 0 -9.81
body S m=2 J=(1e-2, 1e-2, 1e-2) pos=(0, 0, 0)
prismatic P1 0 S at=(0, 0, 0) axis=(1, 0, 0) flange=rail model=MODEL
spring K1 rail 0 k=200
.ic S.vx=0.5
.tran 1 1m rtol=1e-8 atol=1e-10
"""


@pytest.mark.parametrize("model", MODELS)
def test_prismatic_spring_mass_frequency(model):
    """A 2 kg slider on a spring of 200 N/m through the axis node: s = (v0/ω) sin ωt,
    ω = 10 rad/s; the joint carries the weight (F_z = m g) and nothing else."""
    res = circuitsim.parse(PRISMATIC.replace("MODEL", model)).simulate()
    expected = 0.05 * np.sin(10.0 * res.t)
    tol = 1e-6 if model != "elastic" else 1e-5
    assert np.abs(res["P1.s"] - expected).max() < tol
    assert np.abs(res["S.x"] - expected).max() < tol
    assert np.abs(res["P1.f"] + 200.0 * res["K1.x"]).max() < 1e-6     # spring force on axis
    np.testing.assert_allclose(res["P1.Fz"][5:], 2 * 9.81, rtol=1e-4)
    assert np.abs(res["P1.Fx"]).max() < 1e-6 * 20


MOTOR_1D = """
.lib dcmotor
V Vsup sup 0 V=step(0, 0, 12)
dcmotor M1 sup 0 shaft R=1 L=0.5mH k=0.05 J=1e-4 b=1e-5
inertia Jload shaft J=4e-4
.tran 0.3 1m rtol=1e-8 atol=1e-10
"""
MOTOR_3D = """
.lib dcmotor
V Vsup sup 0 V=step(0, 0, 12)
dcmotor M1 sup 0 shaft R=1 L=0.5mH k=0.05 J=1e-4 b=1e-5
body wheel m=3 J=(1e-3, 1e-3, 4e-4) pos=(0, 0, 0.2)
revolute J1 0 wheel at=(0, 0, 0.2) axis=(0, 0, 1) flange=shaft model=MODEL
.tran 0.3 1m rtol=1e-8 atol=1e-10
"""


@pytest.fixture(scope="module")
def motor_1d():
    return circuitsim.parse(MOTOR_1D).simulate()


@pytest.mark.parametrize("model", MODELS)
def test_dc_motor_through_revolute_flange_matches_1d(model, motor_1d):
    """The same motor on a flywheel in a revolute joint (Jz = 4e-4) and on a 1D inertia:
    speed and current agree."""
    ref = motor_1d
    res = circuitsim.parse(MOTOR_3D.replace("MODEL", model)).simulate()
    w_ref = np.interp(res.t, ref.t, ref["shaft"])
    assert np.abs(res["shaft"] - w_ref).max() < 1e-6 * np.abs(w_ref).max()
    assert np.abs(res["wheel.wz"] - w_ref).max() < 1e-6 * np.abs(w_ref).max()
    i_ref = np.interp(res.t, ref.t, ref["M1.La.i"])
    assert np.abs(res["M1.La.i"] - i_ref).max() < 1e-6 * np.abs(i_ref).max()
    np.testing.assert_allclose(res["J1.angle"][-1], trapezoid(w_ref, res.t), rtol=1e-5)


FOURBAR = netlist_text("fourbar.cir").replace(".probe", "* .probe")


@pytest.fixture(scope="module")
def fourbar():
    return circuitsim.parse(FOURBAR, "fourbar.cir")


def test_fourbar_conserves_energy(fourbar):
    """No friction: kinetic + gravity energy constant to 1e-6 relative at rtol 1e-9
    over 1 s, in which the crank turns round (past 2π at 0.42 s; measured 5.1e-8)."""
    res = fourbar.simulate(rtol=1e-9, atol=1e-11, t_end=1.0)
    energy = sum(res[f"{b}.T"] + res[f"{b}.U"] for b in ("crank", "coupler", "rocker"))
    assert np.abs(energy - energy[0]).max() < 1e-6 * np.abs(energy[0])
    assert res["JA.angle"][-1] > 2 * np.pi                  # the crank turns round
    assert res["JB.gap"].max() < 1e-9 and res["JC.gap"].max() < 1e-9


def test_fourbar_models_swap_without_other_changes(fourbar):
    """The same netlist in the three models (.study only changes model=): the crank angle
    agrees, and every model records the same variables."""
    runs = {s: fourbar.simulate(study=s, t_end=0.5, rtol=1e-8, atol=1e-10)
            for s in (None, "fast", "soft")}
    names = [sorted(r.names) for r in runs.values()]
    assert names[0] == names[1] == names[2]
    ref = runs[None]["JA.angle"]
    assert np.abs(runs["fast"]["JA.angle"] - ref).max() < 1e-5
    assert np.abs(runs["soft"]["JA.angle"] - ref).max() < 1e-4


def test_fourbar_assembles_to_an_ic_joint_angle(fourbar):
    """`.ic JA.angle=60deg`: the crank is turned by 60° from the drawing and the coupler and
    rocker follow; the rocker angle agrees with the circle-intersection construction."""
    net = circuitsim.parse(FOURBAR + "\n.ic JA.angle=60deg\n")
    res = net.simulate(t_end=1e-3)
    assert res["JA.angle"][0] == pytest.approx(np.pi / 3, abs=1e-9)
    assert any("moved the bodies" in n for n in res.notes)
    # crank tip B at 90° + 60° from x; C = intersection of |BC| = 0.35 and |DC| = 0.3
    C0 = np.array([0.2987219, 0.2823876])                  # as drawn (.param cx cy)
    D = np.array([0.4, 0.0])
    bc, dc = np.linalg.norm(C0 - (0.0, 0.1)), np.linalg.norm(C0 - D)
    B = 0.1 * np.array([np.cos(np.radians(150)), np.sin(np.radians(150))])
    d = np.linalg.norm(D - B)
    a = (bc ** 2 - dc ** 2 + d ** 2) / (2 * d)
    u = (D - B) / d
    C = B + a * u + np.sqrt(bc ** 2 - a ** 2) * np.array([-u[1], u[0]])
    rocker_centre = (C + D) / 2
    assert res["rocker.x"][0] == pytest.approx(rocker_centre[0], abs=1e-8)
    assert res["rocker.y"][0] == pytest.approx(rocker_centre[1], abs=1e-8)


def test_unreachable_ic_is_a_located_error_naming_the_joints():
    text = SLIDER_CRANK.replace("MODEL", "position") + ".ic P1.s=0.2\n"
    with pytest.raises(ModelError) as info:
        circuitsim.parse(text, "crank.cir").simulate()
    message = str(info.value)
    assert "cannot be assembled" in message and "crank.cir:" in message
    assert "P1" in message or "J3" in message


# --- the other joint types --------------------------------------------------------------

def test_fixed_joint_carries_weight_and_moment():
    """A 2 kg body welded to ground 0.5 m from its centre: F = m g up, M = r × F."""
    text = """
.gravity 0 0 -9.81
body B m=2 J=(0.1, 0.1, 0.1) pos=(0.5, 0, 0)
fixed W 0 B at=(0, 0, 0)
.tran 0.1 10m
"""
    res = circuitsim.parse(text).simulate()
    assert res["W.Fz"][-1] == pytest.approx(2 * 9.81, rel=1e-6)
    # moment of frame 1 on frame 2 about the joint point holds the weight's moment
    # (weight −19.62 z at x = 0.5: moment +9.81 about y; the joint supplies −9.81)
    assert res["W.My"][-1] == pytest.approx(-2 * 9.81 * 0.5, rel=1e-6)
    assert abs(res["B.z"][-1]) < 1e-9


def test_pointplane_holds_weight_and_lets_the_body_slide():
    text = """
.gravity 0 0 -9.81
body B m=3 J=(0.1, 0.1, 0.1) pos=(0, 0, 0)
pointplane PP 0 B normal=(0, 0, 1)
norotation N1 0 B axis=(1, 0, 0)
norotation N2 0 B axis=(0, 1, 0)
.ic B.vx=0.2 B.vy=-0.1
.tran 1 10m
"""
    res = circuitsim.parse(text).simulate()
    np.testing.assert_allclose(res["B.x"], 0.2 * res.t, atol=1e-9)
    np.testing.assert_allclose(res["B.y"], -0.1 * res.t, atol=1e-9)
    assert np.abs(res["B.z"]).max() < 1e-9
    np.testing.assert_allclose(res["PP.Fz"], 3 * 9.81, rtol=1e-6)


def test_norotation_stops_spin_about_its_axis_only():
    """The body starts (soft start value w=) spinning about z and x; norotation about z
    removes the z part at t = 0 (reported) and the x spin goes on. An .ic (hard) spin
    about z contradicts the joint: a located error."""
    text = """
body B m=1 J=(0.1, 0.1, 0.1) pos=(0, 0, 0) w=(2, 0, 3)
norotation N 0 B axis=(0, 0, 1)
.tran 0.5 10m
"""
    res = circuitsim.parse(text).simulate()
    np.testing.assert_allclose(res["B.wx"], 2.0, rtol=1e-6)
    assert np.abs(res["B.wz"]).max() < 1e-9
    assert any("B.wz 3 -> 0" in note for note in res.notes)
    with pytest.raises(ModelError, match="cannot be assembled"):
        circuitsim.parse(text + ".ic B.wz=3\n", "nr.cir").simulate()


def test_universal_joint_speed_ratio():
    """Cardan joint, shafts at β = 30°: ω2/ω1 = cos β / (1 − sin² β cos² θ), θ the input
    angle measured from the plane of the two shafts (θ = 0 drawn with axis1 in it)."""
    beta = np.radians(30)
    text = f"""
body S1 m=1 J=(1e-3, 1e-3, 1e-3) pos=(-0.2, 0, 0)
body S2 m=1 J=(1e-3, 1e-3, 1e-3) pos=({0.2 * np.cos(beta)}, {0.2 * np.sin(beta)}, 0)
revolute R1 0 S1 at=(-0.2, 0, 0) axis=(1, 0, 0) flange=input
revolute R2 0 S2 at=({0.2 * np.cos(beta)}, {0.2 * np.sin(beta)}, 0)
+ axis=({np.cos(beta)}, {np.sin(beta)}, 0) flange=output
universal U S1 S2 at=(0, 0, 0) axis1=(0, 0, 1) axis2=({-np.sin(beta)}, {np.cos(beta)}, 0)
V Win input 0 V=3
.tran 2 5m rtol=1e-8 atol=1e-10
"""
    res = circuitsim.parse(text).simulate()
    theta = res["R1.angle"]
    # axis1 (yoke of shaft 1) drawn along z, perpendicular to the shafts' plane (xy):
    # the ratio is then cos β / (1 − sin² β sin² θ)
    ratio = np.cos(beta) / (1 - np.sin(beta) ** 2 * np.sin(theta) ** 2)
    np.testing.assert_allclose(res["output"], 3 * ratio, rtol=1e-6, atol=1e-8)


def test_cylindrical_spins_and_slides_independently():
    text = """
body P m=2 J=(1e-2, 1e-2, 4e-3) pos=(0, 0, 0)
cylindrical C 0 P at=(0, 0, 0) axis=(0, 0, 1) flange=spin flange2=stroke
spring K stroke 0 k=50
.ic P.wz=7 P.vz=0.5
.tran 1 5m rtol=1e-8 atol=1e-10
"""
    res = circuitsim.parse(text).simulate()
    np.testing.assert_allclose(res["spin"], 7.0, rtol=1e-9)
    np.testing.assert_allclose(res["C.angle"], 7.0 * res.t, rtol=1e-7, atol=1e-9)
    omega = 5.0
    np.testing.assert_allclose(res["C.s"], 0.5 / omega * np.sin(omega * res.t), atol=1e-6)


# --- element contract details not covered by the generic contract tests ------------------

@pytest.mark.parametrize("keyword", ["revolute", "prismatic", "cylindrical"])
def test_initialisation_form_derivatives(keyword):
    """While initial values are computed the rigid rows are at acceleration level; their
    derivatives with respect to x' (what that Newton solves for) and to the velocities
    and multipliers are exact."""
    etype = element_types()[keyword]
    rng = np.random.default_rng(3)
    insts = [ElementInstance(etype, f"J{i}", ["a", "b", "c", "d"][:len(etype.ports)],
                             etype.sample_params(np.random.default_rng(7)), None, {},
                             [None] * len(etype.ports)) for i in range(3)]
    p = initialisation_params(etype, prepare_params(etype, insts))
    p.flange_differential = np.ones((3, etype._nf), dtype=bool)
    x = rng.uniform(-1, 1, (3, etype.nvars()))
    xp = rng.uniform(-1, 1, (3, etype.nvars()))
    J, Jp = etype.jacobian(0.0, x, xp, p)
    cols = list(range(0, 6)) + list(range(13, 19)) + list(range(etype._F0, etype.nvars()))
    h = 1e-6
    for j in range(etype.nvars()):
        d = np.zeros_like(x)
        d[:, j] = h
        fd_xp = (etype.residual(0, x, xp + d, p) - etype.residual(0, x, xp - d, p)) / (2 * h)
        np.testing.assert_allclose(Jp[:, :, j], fd_xp, atol=1e-6)
        if j in cols:
            fd_x = (etype.residual(0, x + d, xp, p) - etype.residual(0, x - d, xp, p)) / (2 * h)
            np.testing.assert_allclose(J[:, :, j], fd_x, atol=1e-6)


def test_joint_reactions_have_the_same_meaning_in_every_model():
    """Frame 1 on frame 2 in every model: a pendulum hanging still under gravity gets
    F_z = +m g from its hinge."""
    base = """
.gravity 0 0 -9.81
body B m=1.5 J=(0.01, 0.01, 0.01) pos=(0, 0, -0.4)
revolute J 0 B at=(0, 0, 0) axis=(0, 1, 0) model=MODEL
.tran 0.2 10m
"""
    for model in MODELS:
        res = circuitsim.parse(base.replace("MODEL", model)).simulate()
        assert res["J.Fz"][-1] == pytest.approx(1.5 * 9.81, rel=1e-4), model


@pytest.mark.parametrize("text,fragment", [
    ("body B m=1 J=(1,1,1)\nrevolute J 0 B axis=(0, 0, 0)\n.tran 1", "axis"),
    ("body B m=1 J=(1,1,1)\nuniversal U 0 B axis1=(1, 0, 0) axis2=(1, 1, 0)\n.tran 1",
     "perpendicular"),
    ("body B m=1 J=(1,1,1)\nuniversal U 0 B flange=x\n.tran 1", "no parameter 'flange'"),
    ("body B m=1 J=(1,1,1)\nrevolute J 0 B flange=x\nmass M x m=1\n.tran 1", "domain"),
])
def test_bad_joint_input_is_located(text, fragment):
    with pytest.raises(NetlistError) as info:
        circuitsim.parse(text, "j.cir").simulate()
    assert fragment in str(info.value) and "j.cir:" in str(info.value)
