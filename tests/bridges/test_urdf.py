"""URDF import (circuitsim/bridges/urdf.py, docs/urdf.md): the netlist a URDF file gives,
run and checked against independent computations written here.

* pendulum: one link on a continuous joint with damping d, its centre of mass c below
  the axis; the reference is theta'' = -(m g c / I) sin theta - (d / I) theta',
  I = I_axis + m c^2, solved by scipy's DOP853 at rtol 1e-12.
* products of inertia: one link written twice, its principal axes turned by an
  inertial rpy with a diagonal tensor, and unturned with the full tensor R diag(J) R^T
  (URDF's ixy is the tensor entry, -integral of x y dm). Both must move alike, and the
  tensor with its products negated must not.
* merging: two massive links and a massless tool link joined by fixed joints move as
  one body; the reference is the same robot with the three links merged by hand here
  (masses added, parallel-axis theorem, the next joint's origin composed).
* mimic: a joint that mimics another by q2 = n q1 + offset (a transformer between the
  flanges) against the one-degree-of-freedom Lagrange equation of the pair.
* floating base: the whole robot's centre of mass falls freely, z = z0 - g t^2 / 2.
* limits, friction, damping: their elements and values; a limit stops the joint, a
  friction brakes a free spinning joint at a constant rate, omega = omega0 - Fc t / I.
* errors: every mistake in a URDF file is one located line, exit 2, no traceback.
* references: arm3 (3 revolute joints, full tensors, turned origins, a massless tool)
  and robot7 (a 7-joint arm, Franka Emika Panda, Apache-2.0; see data/robot7.SOURCE)
  computed with Pinocchio (ABA, damping as -d qd) and scipy's DOP853 at rtol 1e-12
  (data/*_reference.json, their "method" field says how).
"""
import json
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import circuitsim
from circuitsim import NetlistError, cli
from circuitsim.bridges import urdf_text_to_netlist, urdf_to_netlist
from circuitsim.bridges import xmlsafe

DATA = Path(__file__).parent / "data"
G = 9.81
TIGHT = dict(rtol=1e-9, atol=1e-12)


def rpy_matrix(roll, pitch, yaw):
    """Rz(yaw) Ry(pitch) Rx(roll), written out here (not the importer's)."""
    rx = np.array([[1, 0, 0], [0, math.cos(roll), -math.sin(roll)],
                   [0, math.sin(roll), math.cos(roll)]])
    ry = np.array([[math.cos(pitch), 0, math.sin(pitch)], [0, 1, 0],
                   [-math.sin(pitch), 0, math.cos(pitch)]])
    rz = np.array([[math.cos(yaw), -math.sin(yaw), 0], [math.sin(yaw), math.cos(yaw), 0],
                   [0, 0, 1]])
    return rz @ ry @ rx


def rpy_of(R):
    """The roll, pitch, yaw of a rotation matrix (pitch inside +-90 deg)."""
    return (math.atan2(R[2, 1], R[2, 2]), math.asin(-R[2, 0]), math.atan2(R[1, 0], R[0, 0]))


def inertial(mass, xyz=(0, 0, 0), rpy=(0, 0, 0), tensor=np.diag([0.01, 0.01, 0.01])):
    t = np.asarray(tensor, dtype=float).tolist()
    return (f'<inertial><mass value="{float(mass)!r}"/><origin xyz="{_words(xyz)}" '
            f'rpy="{_words(rpy)}"/><inertia ixx="{t[0][0]!r}" ixy="{t[0][1]!r}" '
            f'ixz="{t[0][2]!r}" iyy="{t[1][1]!r}" iyz="{t[1][2]!r}" izz="{t[2][2]!r}"/>'
            '</inertial>')


def link(name, mass=None, *args, **kwargs):
    """A link, massless without ``mass``, else with ``inertial(mass, *args, **kwargs)``."""
    if mass is None:
        return f'<link name="{name}"/>'
    return f'<link name="{name}">{inertial(mass, *args, **kwargs)}</link>'


def joint(name, kind, parent, child, xyz=(0, 0, 0), rpy=(0, 0, 0), axis=None, extra=""):
    axis_tag = f'<axis xyz="{_words(axis)}"/>' if axis is not None else ""
    return (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/>'
            f'<child link="{child}"/><origin xyz="{_words(xyz)}" rpy="{_words(rpy)}"/>'
            f'{axis_tag}{extra}</joint>')


def robot(*items, name="test"):
    return f'<?xml version="1.0"?>\n<robot name="{name}">\n' + "\n".join(items) + "\n</robot>\n"


def _words(values) -> str:
    return " ".join(repr(float(v)) for v in values)


def run(urdf_text, t_end=2.0, tolerances=TIGHT, **options):
    """The imported netlist parsed and run (tolerances None: the defaults)."""
    text = urdf_text_to_netlist(urdf_text, "test.urdf", t_end=t_end, **options)
    return circuitsim.parse(text, "test.cir").simulate(**(tolerances or {}))


def element_line(text: str, keyword: str, name: str) -> dict:
    """The key=value parameters of the netlist line ``keyword name ...`` (with the lines
    that continue it)."""
    joined = text.replace("\n+ ", " ")
    line = next(l for l in joined.splitlines() if l.startswith(f"{keyword} {name} "))
    return dict(re.findall(r"(\w+)=(\([^)]*\)|[^\s;]+)", line.split(";")[0]))


# --- a pendulum against its equation ---------------------------------------------------
M, C, I_AXIS, D = 1.5, 0.4, 0.03, 0.08


def pendulum(extra="", kind="continuous"):
    return robot(link("world"),
                 link("rod", M, (0, 0, -C), tensor=np.diag([0.03, I_AXIS, 0.002])),
                 joint("hinge", kind, "world", "rod", xyz=(0, 0, 1.2), axis=(0, 1, 0),
                       extra=f'<dynamics damping="{D}"/>{extra}'))


def pendulum_reference(q0, qd0, t):
    """theta'' = -(m g c / I) sin theta - (d / I) theta' (theta about +y, the centre
    of mass hanging at -c z: gravity's moment about y is -m g c sin theta)."""
    inertia = I_AXIS + M * C * C
    sol = solve_ivp(lambda _, y: [y[1], -(M * G * C / inertia) * math.sin(y[0])
                                  - (D / inertia) * y[1]],
                    (0.0, t[-1]), [q0, qd0], method="DOP853", rtol=1e-12, atol=1e-12,
                    dense_output=True)
    return sol.sol(t)


def test_a_pendulum_swings_as_its_equation():
    """Measured: 6.6e-9 rad (rate 4.3e-8 rad/s) at rtol 1e-9, 4.7e-6 rad at the default
    tolerances (rtol 1e-6, atol 1e-9)."""
    res = run(pendulum(), q0={"hinge": 1.0}, qd0={"hinge": 0.5})
    angle, rate = pendulum_reference(1.0, 0.5, res.t)
    assert res.t[-1] == pytest.approx(2.0) and len(res.t) == 201
    assert np.abs(res["hinge.angle"] - angle).max() < 1e-7
    assert np.abs(res["hinge_w"] - rate).max() < 1e-6
    loose = run(pendulum(), tolerances=None, q0={"hinge": 1.0}, qd0={"hinge": 0.5})
    assert np.abs(loose["hinge.angle"] - pendulum_reference(1.0, 0.5, loose.t)[0]).max() < 5e-5


# --- products of inertia: the sign -------------------------------------------------------
ARM_RPY = (0.3, -0.2, 0.5)
ARM_MOMENTS = (0.010, 0.045, 0.040)


def turret_arm(arm_inertial):
    """A turret on a vertical continuous joint carrying an arm on a horizontal one: the
    arm's whole tensor enters the motion (the yaw inertia and the coupling)."""
    return robot(link("world"),
                 link("turret", 3.0, (0, 0, 0.1), tensor=np.diag([0.05, 0.05, 0.04])),
                 f'<link name="arm">{arm_inertial}</link>',
                 joint("yaw", "continuous", "world", "turret", xyz=(0, 0, 0.5), axis=(0, 0, 1)),
                 joint("pitch", "continuous", "turret", "arm", xyz=(0, 0, 0.2), axis=(0, 1, 0)))


def test_products_of_inertia_keep_the_urdf_sign():
    """The arm turned by its inertial rpy with a diagonal tensor, and unturned with the
    full tensor: the same motion (measured 4.7e-9 rad apart over 0.5 s at rtol 1e-9, the
    solver's own error); with the products negated 0.47 rad apart."""
    R = rpy_matrix(*ARM_RPY)
    full = R @ np.diag(ARM_MOMENTS) @ R.T
    assert full[0, 1] < -0.01                    # a product the motion cannot ignore
    variants = {"turned": inertial(1.2, (0.3, 0.05, 0.02), ARM_RPY, np.diag(ARM_MOMENTS)),
                "full": inertial(1.2, (0.3, 0.05, 0.02), tensor=full),
                "negated": inertial(1.2, (0.3, 0.05, 0.02),
                                    tensor=2 * np.diag(np.diag(full)) - full)}
    text = urdf_text_to_netlist(turret_arm(variants["full"]), "arm.urdf")
    written = element_line(text, "body", "arm")
    assert [float(v) for v in written["Jp"].strip("()").split(",")] == pytest.approx(
        [full[0, 1], full[0, 2], full[1, 2]], rel=1e-14)
    angles = {}
    for name, arm_inertial in variants.items():
        res = run(turret_arm(arm_inertial), t_end=0.5, q0={"pitch": 0.4}, qd0={"yaw": 2.0})
        angles[name] = np.column_stack([res["yaw.angle"], res["pitch.angle"]])
    assert np.abs(angles["turned"] - angles["full"]).max() < 1e-7
    assert np.abs(angles["negated"] - angles["full"]).max() > 0.1


# --- fixed joints merge links ------------------------------------------------------------
A = dict(mass=2.0, xyz=(0.1, 0.0, 0.02), rpy=(0.1, 0.2, -0.3), tensor=[[0.02, 0.001, 0.0],
                                                                         [0.001, 0.03, -0.002],
                                                                         [0.0, -0.002, 0.025]])
B = dict(mass=0.8, xyz=(0.05, 0.01, -0.03), rpy=(-0.2, 0.1, 0.4),
         tensor=np.diag([0.004, 0.006, 0.005]))
A_TO_B = ((0.3, 0.02, 0.0), (0.0, 0.3, 0.1))          # fixed joint origins: xyz, rpy
B_TO_TOOL = ((0.1, 0.0, 0.05), (0.2, -0.1, 0.0))
TOOL_TO_C = ((0.05, -0.02, 0.0), (0.1, 0.0, 0.2))
C_INERTIAL = inertial(0.6, (0.15, 0.0, 0.0), (0.0, 0.1, 0.0), np.diag([0.001, 0.005, 0.0045]))


def _frame(xyz, rpy):
    return np.array(xyz, dtype=float), rpy_matrix(*rpy)


def _then(first, second):
    (p1, R1), (p2, R2) = first, second
    return p1 + R1 @ p2, R1 @ R2


def merged_by_hand():
    """Links A, B (and the tool) as one link in A's frame: m = mA + mB,
    c = (mA cA + mB cB)/m, I = sum R I R^T + m (|d|^2 E - d d^T), d = c_k - c."""
    parts = []
    for props, frame in ((A, (np.zeros(3), np.eye(3))), (B, _frame(*A_TO_B))):
        p, R = _then(frame, _frame(props["xyz"], props["rpy"]))
        parts.append((props["mass"], p, R @ np.asarray(props["tensor"]) @ R.T))
    mass = sum(m for m, _, _ in parts)
    com = sum(m * p for m, p, _ in parts) / mass
    tensor = sum(I + m * ((p - com) @ (p - com) * np.eye(3) - np.outer(p - com, p - com))
                 for m, p, I in parts)
    p, R = _then(_then(_frame(*A_TO_B), _frame(*B_TO_TOOL)), _frame(*TOOL_TO_C))
    return robot(link("world"), link("A", mass, com, tensor=tensor),
                 f'<link name="C">{C_INERTIAL}</link>',
                 joint("j1", "revolute", "world", "A", xyz=(0, 0, 1), rpy=(0.2, 0, 0),
                       axis=(0, 1, 0), extra='<limit lower="-3" upper="3"/>'),
                 joint("j2", "revolute", "A", "C", xyz=p, rpy=rpy_of(R), axis=(0, 0.6, 0.8)))


def merged_by_the_importer():
    return robot(link("world"), link("A", **A),
                 link("B", **B), link("tool"),
                 f'<link name="C">{C_INERTIAL}</link>',
                 joint("j1", "revolute", "world", "A", xyz=(0, 0, 1), rpy=(0.2, 0, 0),
                       axis=(0, 1, 0), extra='<limit lower="-3" upper="3"/>'),
                 joint("weld", "fixed", "A", "B", *A_TO_B),
                 joint("tool_joint", "fixed", "B", "tool", *B_TO_TOOL),
                 joint("j2", "revolute", "tool", "C", *TOOL_TO_C, axis=(0, 0.6, 0.8)))


def test_links_on_fixed_joints_are_one_body():
    """The body the importer writes for A + B + tool is the one merged by hand (to 1e-12
    relative), it carries j2 where the hand-composed origin puts it, and the two robots
    move alike (measured 5.7e-13 rad apart over 0.5 s: the two netlists differ in the
    15th digit of two products of inertia)."""
    mine, hand = (urdf_text_to_netlist(u, "m.urdf", q0={"j1": 0.5, "j2": -0.3})
                  for u in (merged_by_the_importer(), merged_by_hand()))
    assert "body B " not in mine and "body tool " not in mine
    assert "merged into A by fixed joint 'weld'" in mine
    assert "'tool' merged into A by fixed joint 'tool_joint' (no mass)" in mine
    for keyword, name, keys in (("body", "A", ("m", "J", "Jp", "pos", "q")),
                                ("revolute", "j2", ("at", "axis"))):
        got, want = element_line(mine, keyword, name), element_line(hand, keyword, name)
        for key in keys:
            g, w = (np.array([float(v) for v in d.get(key, "0").strip("()").split(",")])
                    for d in (got, want))
            assert g == pytest.approx(w, rel=1e-12, abs=1e-15), (name, key)
    runs = [circuitsim.parse(t, "m.cir").simulate(t_end=0.5, **TIGHT) for t in (mine, hand)]
    for name in ("j1.angle", "j2.angle"):
        assert np.abs(runs[0][name] - runs[1][name]).max() < 1e-9


def test_a_massless_link_on_a_moving_joint_is_refused():
    text = robot(link("world"), link("hub"),
                 link("arm", 1.0),
                 joint("j1", "revolute", "world", "hub", axis=(0, 0, 1)),
                 joint("j2", "revolute", "hub", "arm", axis=(0, 1, 0)))
    with pytest.raises(NetlistError, match=r"test.urdf:4:1: link 'hub' has no mass .* moved "
                       r"by joint 'j1' \(revolute\) and carries joint 'j2' \(revolute\)"):
        urdf_text_to_netlist(text, "test.urdf")


# --- mimic joints -----------------------------------------------------------------------
def test_a_mimic_joint_follows_through_a_transformer():
    """Two rods hanging from parallel hinges, the second mimicking the first by
    q2 = n q1 + off. With q1 = theta the Lagrange equation of the pair is
    (I1 + n^2 I2) theta'' = -m1 g c1 sin theta - n m2 g c2 sin(n theta + off).
    Measured 6.4e-9 rad (q1) and 3.2e-9 rad (q2) at rtol 1e-9."""
    n, off = -0.5, 0.2
    rods = [(1.0, 0.3, 0.01), (2.0, 0.5, 0.02)]                 # m, c, I about the c.o.m.
    text = robot(link("world"),
                 *(link(f"rod{i}", m, (0, 0, -c), tensor=np.diag([j, j, j / 4]))
                   for i, (m, c, j) in enumerate(rods, 1)),
                 joint("j1", "continuous", "world", "rod1", xyz=(0, 0, 1), axis=(0, 1, 0)),
                 joint("j2", "continuous", "world", "rod2", xyz=(0, 1, 1), axis=(0, 1, 0),
                       extra=f'<mimic joint="j1" multiplier="{n}" offset="{off}"/>'))
    netlist = urdf_text_to_netlist(text, "m.urdf", q0={"j1": 0.6})
    assert element_line(netlist, "transformer", "j2_mimic")["n"] == "-0.5"
    res = circuitsim.parse(netlist, "m.cir").simulate(**TIGHT)
    (m1, c1, j1), (m2, c2, j2) = rods
    inertia = j1 + m1 * c1 ** 2 + n * n * (j2 + m2 * c2 ** 2)
    sol = solve_ivp(lambda _, y: [y[1], -(m1 * G * c1 * math.sin(y[0]) + n * m2 * G * c2
                                          * math.sin(n * y[0] + off)) / inertia],
                    (0, 2), [0.6, 0.0], method="DOP853", rtol=1e-12, atol=1e-12,
                    dense_output=True)
    theta = sol.sol(res.t)[0]
    assert np.abs(res["j1.angle"] - theta).max() < 1e-7
    assert np.abs(res["j2.angle"] - (n * theta + off)).max() < 1e-7


# --- a free robot -------------------------------------------------------------------------
def test_a_floating_base_robot_falls_freely():
    """--floating-base: the root is a free body; whatever the pendulum on it does, the
    robot's centre of mass falls as z0 - g t^2 / 2 (the rod set turning at 2 rad/s:
    measured 1.2e-10 m at rtol 1e-9)."""
    text = robot(link("base", 3.0, (0, 0, 0.1)),
                 link("rod", 1.0, (0.2, 0, 0)),
                 joint("hinge", "continuous", "base", "rod", xyz=(0, 0, 0.3), axis=(0, 1, 0)))
    netlist = urdf_text_to_netlist(text, "f.urdf", floating_base=True, t_end=1.0,
                                   qd0={"hinge": 2.0})
    assert element_line(netlist, "revolute", "hinge")["at"] == "(0.0, 0.0, 0.3)"
    res = circuitsim.parse(netlist, "f.cir").simulate(record_poses=True, **TIGHT)
    z = (3.0 * res["base.z"] + 1.0 * res["rod.z"]) / 4.0
    z0 = (3.0 * 0.1 + 1.0 * 0.3) / 4.0
    assert np.abs(z - (z0 - G * res.t ** 2 / 2)).max() < 1e-8
    assert np.ptp(res["hinge.angle"]) > 0.1                      # the rod swung


# --- damping, friction, limits ------------------------------------------------------------
def test_dynamics_and_limits_become_flange_elements():
    text = urdf_text_to_netlist(pendulum('<limit lower="-0.5" upper="0.7" effort="12" '
                                         'velocity="3"/>', kind="revolute")
                                .replace(f'damping="{D}"', f'damping="{D}" friction="0.2"'),
                                "p.urdf", q0={"hinge": 0.25})
    assert element_line(text, "revolute", "hinge")["flange"] == "hinge_w"
    assert element_line(text, "damper", "hinge_damper") == {"b": repr(D)}
    assert element_line(text, "friction", "hinge_friction") == {"Fc": "0.2", "veps": "0.0001"}
    stop = element_line(text, "stop", "hinge_limit")
    inertia = I_AXIS + M * C * C                  # what the stop pushes against at q = 0
    assert {k: float(v) for k, v in stop.items()} == pytest.approx(
        {"lower": -0.5, "upper": 0.7, "k": 1e5, "c": 2 * math.sqrt(1e5 * inertia),
         "x0": 0.25}, rel=1e-14)
    assert "* hinge: limits on effort 12.0 N*m and velocity 3.0 rad/s (not modelled)" in text
    continuous = pendulum('<limit lower="-0.5" upper="0.7"/>')     # continuous: no limits
    assert "stop hinge_limit" not in urdf_text_to_netlist(continuous, "p.urdf")


def test_a_limit_stops_the_joint():
    """Released at its upper limit 1.0 rad, the rod swings down onto the lower limit
    -0.5 rad at the rate v0 of the pendulum's equation there. The stop, critically damped
    for the rod's inertia I about the hinge (omega_n = sqrt(k / I)), lets it in by
    v0 / (e omega_n) = 2.05e-3 rad and sends it back (measured 0.983 of that on the
    5 ms output grid, 0.996 at every step); it never passes the upper limit."""
    res = run(pendulum('<limit lower="-0.5" upper="1.0"/>', kind="revolute"), t_end=1.0,
              tolerances=None, q0={"hinge": 1.0})
    inertia = I_AXIS + M * C * C

    def contact(_, y):
        return y[0] + 0.5
    contact.terminal = True
    free = solve_ivp(lambda _, y: [y[1], -(M * G * C / inertia) * math.sin(y[0])
                                   - (D / inertia) * y[1]], (0, 1), [1.0, 0.0],
                     method="DOP853", rtol=1e-12, atol=1e-12, events=contact)
    v0 = abs(free.y_events[0][0][1])
    predicted = v0 / (math.e * math.sqrt(1e5 / inertia))
    angle = res["hinge.angle"]
    assert angle.max() <= 1.0 + 1e-9
    assert 0.97 < (-0.5 - angle.min()) / predicted < 1.01
    assert angle[-1] > -0.5                                      # back off the stop


def test_friction_brakes_a_spinning_joint_at_a_constant_rate():
    """A rotor on a vertical axis (gravity has no moment about it) spinning at 3 rad/s
    with Coulomb friction Fc: omega = omega0 - Fc t / I until it stops at omega0 I / Fc.
    Measured 3.6e-15 rad/s while it slides, 7e-21 rad/s once stopped (nothing drives
    it: the regularised friction holds it at 0)."""
    text = robot(link("world"),
                 link("rotor", 2.0, tensor=np.diag([0.05, 0.05, 0.08])),
                 joint("spin", "continuous", "world", "rotor", axis=(0, 0, 1),
                       extra='<dynamics friction="0.2"/>'))
    res = run(text, t_end=1.5, qd0={"spin": 3.0})
    stop_time = 3.0 * 0.08 / 0.2
    sliding = res.t < stop_time - 0.01
    assert np.abs(res["spin_w"][sliding] - (3.0 - 0.2 * res.t[sliding] / 0.08)).max() < 1e-9
    assert np.abs(res["spin_w"][res.t > stop_time + 0.05]).max() < 1e-9


# --- names -----------------------------------------------------------------------------------
def test_names_are_made_legal_and_unique_and_the_originals_kept():
    text = robot(link("world"), link("1st link", 1.0),
                 link("time", 1.0),
                 joint("1st link", "continuous", "world", "1st link", axis=(0, 0, 1)),
                 joint("gnd", "continuous", "1st link", "time", axis=(1, 0, 0)))
    netlist = urdf_text_to_netlist(text, "n.urdf")
    assert "body _1st_link " in netlist and "* body _1st_link: link '1st link'" in netlist
    assert "body time_ " in netlist
    assert "revolute _1st_link_2 0 _1st_link " in netlist
    assert "revolute gnd_ _1st_link time_ " in netlist and "flange=gnd__w" in netlist
    circuitsim.parse(netlist, "n.cir").check()


# --- errors -------------------------------------------------------------------------------
BAD = {
    "parent_missing": (robot(link("a"), link("b", 1.0),
                             joint("j", "revolute", "x", "b")),
                       "5:1: joint 'j': parent link 'x' does not exist"),
    "cycle": (robot(link("a", 1.0), link("b", 1.0),
                    joint("j1", "revolute", "a", "b"), joint("j2", "revolute", "b", "a")),
              "5:1: joints 'j2', 'j1' form a cycle (links b -> a -> b); a URDF is a tree"),
    "two_parents": (robot(link("r"), link("a", 1.0),
                          link("b", 1.0), joint("j1", "fixed", "r", "b"),
                          joint("j2", "revolute", "a", "b")),
                    "7:1: joint 'j2': link 'b' has two parents, 'a' here and 'r' by joint 'j1'"),
    "planar": (robot(link("r"), link("a", 1.0),
                     joint("j", "planar", "r", "a")), "5:1: joint 'j': type 'planar' is not "
               "supported"),
    "screw": (robot(link("r"), link("a", 1.0),
                    joint("j", "screw", "r", "a")), "5:1: joint 'j': unsupported joint type"),
    "negative_mass": (robot(link("r"), link("a", -1.0),
                            joint("j", "revolute", "r", "a")),
                      "4:26: link 'a': the mass -1 kg is negative"),
    "massless": (robot(link("r"), link("a"), joint("j", "prismatic", "r", "a")),
                 "4:1: link 'a' has no mass (no <inertial> or mass 0) but is moved by joint "
                 "'j' (prismatic)"),
    "not_positive_definite": (
        robot(link("r"), link("a", 1.0, tensor=[[0.1, 0.2, 0], [0.2, 0.1, 0], [0, 0, 0.1]]),
              joint("j", "revolute", "r", "a")),
        "4:90: link 'a': the inertia tensor is not positive definite (principal moments "
        "-0.1, 0.1, 0.3 kg*m^2)"),
    "mimic_missing": (robot(link("r"), link("a", 1.0),
                            joint("j", "revolute", "r", "a", extra='<mimic joint="k"/>')),
                      "5:113: joint 'j' <mimic>: joint 'k' does not exist"),
    "doctype": ('<?xml version="1.0"?>\n<!DOCTYPE r [<!ENTITY big "aaaa">]>\n<robot name="x"/>',
                "2:13: a <!DOCTYPE> declaration: refused"),
    "huge": (robot(link("r"), link("a", 1.0, (1e101, 0, 0))),
             "4:45: link 'a': <origin xyz=\"1e+101 0.0 0.0\">: a number beyond +-1e+100"),
    "malformed": (robot('<link name="a">'), "4:3: not well-formed XML: mismatched tag"),
    "xacro": (robot(link("r"), link("a", 1.0),
                    joint("j", "revolute", "r", "a").replace('xyz="0.0 0.0 0.0"',
                                                             'xyz="${l} 0 0"', 1)),
              "joint 'j': <origin xyz=\"${l} 0 0\">: expected 3 numbers; a xacro expression"),
}


def import_fails(tmp_path, capsys, text, *args):
    """circuitsim import-urdf on ``text``: exit 2 and one line on stderr, no traceback;
    that line with the file's path written {file}."""
    path = tmp_path / "bad.urdf"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    code = cli.main(["import-urdf", str(path), "-o", str(tmp_path / "out.cir"), *args])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    assert not (tmp_path / "out.cir").exists()
    return err.strip().replace(str(path), "{file}")


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_urdf_gets_one_located_line(case, tmp_path, capsys):
    text, expected = BAD[case]
    err = import_fails(tmp_path, capsys, text)
    assert err.startswith("error: {file}:"), err
    assert expected in err, err


def test_a_file_over_the_caps_is_refused(tmp_path, capsys, monkeypatch):
    """Over the size cap: refused before it is read; over the element cap: refused at
    the element that passes it."""
    links = robot(*[f'<link name="l{i}"/>' for i in range(100)])
    monkeypatch.setattr(xmlsafe, "MAX_BYTES", 1000)
    err = import_fails(tmp_path, capsys, links)
    assert err.startswith("error: {file}:1:1: {file}: ") and "more than the 1000" in err
    monkeypatch.setattr(xmlsafe, "MAX_BYTES", 10_000)
    monkeypatch.setattr(xmlsafe, "MAX_ELEMENTS", 50)
    assert import_fails(tmp_path, capsys, links) == ("error: {file}:52:1: more than 50 XML "
                                                     "elements")


def test_entities_are_never_expanded(tmp_path, capsys):
    """The 'billion laughs' document is refused at its DOCTYPE, before any expansion."""
    laughs = ['<!ENTITY lol "lol">'] + ['<!ENTITY lol%d "%s">' % (i, ("&lol%s;" % (i - 1 or ""))
                                                                 * 10) for i in range(1, 10)]
    text = ('<?xml version="1.0"?>\n<!DOCTYPE robot [\n' + "\n".join(laughs)
            + '\n]>\n<robot name="&lol9;"><link name="a"/></robot>\n')
    assert "DOCTYPE> declaration: refused" in import_fails(tmp_path, capsys, text)
    external = '<?xml version="1.0"?>\n<!DOCTYPE robot SYSTEM "file:///etc/passwd">\n<robot/>'
    assert "DOCTYPE> declaration: refused" in import_fails(tmp_path, capsys, external)


def test_command_line_options_are_checked(tmp_path, capsys):
    path = tmp_path / "p.urdf"
    path.write_text(pendulum())
    for args, expected in ((["--q0", "hinge"], "--q0 hinge: give JOINT=VALUE"),
                           (["--q0", "hing=1"], "q0: 'hing' is not a moving joint of the "
                                                "robot (did you mean 'hinge'?)"),
                           (["--tend", "0"], "--tend 0.0: give a positive number")):
        assert cli.main(["import-urdf", str(path), *args]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: <command line>:1:1: ") and expected in err, err


def test_a_prismatic_joint_slides_with_its_damping():
    """A slider on a vertical prismatic joint (axis +z) with damping d falls from rest:
    s' = -(m g / d) (1 - exp(-d t / m)), s = -(m g / d) (t - (m / d)(1 - exp(-d t / m))).
    Measured 3.1e-9 m over the 2.5 m fallen at rtol 1e-9."""
    m, d = 2.0, 5.0
    text = robot(link("world"), link("slider", m, (0.1, 0, 0)),
                 joint("rail", "prismatic", "world", "slider", xyz=(0, 0, 1), axis=(0, 0, 1),
                       extra=f'<dynamics damping="{d}"/><limit lower="-5" upper="5"/>'))
    netlist = urdf_text_to_netlist(text, "s.urdf", t_end=1.0)
    assert "prismatic rail 0 slider flange=rail_v" in netlist
    assert element_line(netlist, "damper", "rail_damper") == {"b": "5.0"}
    assert element_line(netlist, "stop", "rail_limit")["k"] == "1000000.0"
    res = circuitsim.parse(netlist, "s.cir").simulate(**TIGHT)
    tau = m / d
    s = -(m * G / d) * (res.t - tau * (1 - np.exp(-res.t / tau)))
    assert np.abs(res["rail.s"] - s).max() < 1e-8
    assert np.abs(res["rail_v"] + (m * G / d) * (1 - np.exp(-res.t / tau))).max() < 1e-8


def test_orientations_are_written_as_the_bodies_read_them():
    """The quaternion written for a rotation matrix is the one whose direction-cosine
    matrix (the body's own, elements/quaternion.py) gives it back, to 1e-15, for turns
    near 0, near 180 degrees about each axis, and at random."""
    from circuitsim.bridges.urdf_netlist import quaternion
    from circuitsim.elements.quaternion import dcm
    rng = np.random.default_rng(7)
    turns = [(0, 0, 0), (1e-9, 0, 0), (math.pi, 0, 0), (0, math.pi - 1e-9, 0), (0, 0, math.pi),
             (math.pi, math.pi / 2, 0)] + [tuple(rng.uniform(-math.pi, math.pi, 3))
                                            for _ in range(50)]
    for rpy in turns:
        R = rpy_matrix(*rpy)
        q = quaternion(R)
        assert np.linalg.norm(q) == pytest.approx(1.0, abs=1e-15) and q[0] >= 0
        assert np.abs(dcm(q) - R).max() < 1e-15, rpy


# --- the command line ---------------------------------------------------------------------
def test_import_urdf_writes_a_netlist_that_runs(tmp_path, capsys):
    path, out = tmp_path / "p.urdf", tmp_path / "p.cir"
    path.write_text(pendulum())
    assert cli.main(["import-urdf", str(path), "-o", str(out), "--tend", "0.5",
                     "--q0", "hinge=0.3", "--gravity", "0", "0", "-1.62"]) == 0
    assert f"netlist -> {out}" in capsys.readouterr().out
    text = out.read_text()
    assert text.startswith(".title test (from p.urdf)\n")
    assert ".gravity 0.0 0.0 -1.62" in text and ".ic hinge.angle=0.3" in text
    assert ".tran 0.5 0.0025" in text and ".probe hinge.angle hinge_w" in text
    assert cli.main(["run", str(out), "--quiet", "--out", str(tmp_path / "p.csv")]) == 0
    assert cli.main(["import-urdf", str(path), "--no-gravity"]) == 0
    assert ".gravity" not in capsys.readouterr().out


# --- references computed with Pinocchio ----------------------------------------------------
def reference(name, what="reference"):
    return json.loads((DATA / f"{name}_{what}.json").read_text())


def reference_run(name, t_end=None, **run_options):
    """The reference's robot imported with its q0 and qd0 and run: (reference, netlist
    text, result, the reference's times up to the run's end, the joint angles there)."""
    ref = reference(name)
    start = {what: dict(zip(ref["joints"], ref[what])) for what in ("q0", "qd0")}
    text = urdf_to_netlist(DATA / ref["urdf"], gravity=ref["gravity"],
                           t_end=t_end or ref["t"][-1], **start)
    res = circuitsim.parse(text, f"{name}.cir").simulate(**run_options)
    t = np.asarray(ref["t"])
    t = t[t <= res.t[-1] + 1e-12]
    q = np.column_stack([np.interp(t, res.t, res[f"{j}.angle"]) for j in ref["joints"]])
    return ref, text, res, t, q


def frame_at_zero(urdf: Path, link: str) -> tuple:
    """A link's frame in the world at q = 0 (origin, rotation), by its joints' origins
    from the root down, read here with ElementTree."""
    joints = {j.find("child").get("link"): j for j in ET.parse(urdf).getroot().iter("joint")}
    chain = []
    while link in joints:
        chain.append(joints[link].find("origin"))
        link = joints[link].find("parent").get("link")
    frame = (np.zeros(3), np.eye(3))
    for origin in reversed(chain):
        xyz, rpy = ([float(v) for v in (origin.get(key) or "0 0 0").split()]
                    for key in ("xyz", "rpy"))
        frame = _then(frame, _frame(xyz, rpy))
    return frame


def tip_path(text, res, t, body, urdf, link):
    """Where ``link``'s origin goes when it rides on ``body``: its place in the body's
    frame from the drawing at q = 0 (the body's pos and q as written, the link's origin
    by the URDF's joint origins), then carried by the body's recorded pose."""
    written = element_line(text, "body", body)
    pos = np.array([float(v) for v in written["pos"].strip("()").split(",")])
    quat = np.array([float(v) for v in written.get("q", "(1, 0, 0, 0)").strip("()").split(",")])
    offset = rotation(quat).T @ (frame_at_zero(urdf, link)[0] - pos)
    centre = np.column_stack([np.interp(t, res.t, res[f"{body}.{x}"]) for x in "xyz"])
    turns = np.column_stack([np.interp(t, res.t, res[f"{body}.q{i}"]) for i in range(4)])
    return centre + np.array([rotation(q) @ offset for q in turns])


def rotation(q):
    """The rotation of the quaternion q (scalar first), normalised."""
    w, x, y, z = np.asarray(q) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


@pytest.mark.slow
def test_arm3_follows_pinocchio():
    """Measured max |q - q_ref| over 2 s: 7.4e-7 rad at rtol 1e-8 / atol 1e-11, 2.2e-4 rad
    at rtol 1e-5 / atol 1e-8 (the error follows the tolerance). The massless tool frame,
    merged into link3: at t = 0 (the arm assembled at q0) 2.2e-16 m from Pinocchio's,
    over the run 2.3e-7 m at rtol 1e-8."""
    ref, text, res, t, q = reference_run("arm3", rtol=1e-8, atol=1e-11, record_poses=True)
    q_ref = np.asarray(ref["q"])
    tight = np.abs(q - q_ref).max()
    assert tight <= 1e-5
    *_, q_loose = reference_run("arm3", rtol=1e-5, atol=1e-8)
    assert np.abs(q_loose - q_ref).max() > 10 * tight
    tip = tip_path(text, res, t, "link3", DATA / "arm3.urdf", "tool") - ref["tip"]
    assert np.abs(tip[0]).max() < 1e-12 and np.abs(tip).max() <= 2e-6


@pytest.mark.slow
def test_robot7_runs_a_second_and_follows_pinocchio():
    """The Franka Emika Panda (7 revolute joints, the hand merged into link7) falls from
    the reference's posture for 1 s. Over the reference's 0.5 s (measured at rtol 1e-8 /
    atol 1e-11): joint angles 1.9e-7 rad from Pinocchio's (1.2e-4 rad at rtol 1e-5), the
    hand's tool frame 1.1e-16 m away at t = 0 and 2.1e-8 m over the run. Then
    panda_joint2 swings into its upper limit 1.7628 rad: first beyond it at 0.585 s on
    the 5 ms grid, where the reference's free motion crosses it at 0.5839 s, and let in
    by 7.8e-3 rad."""
    ref, text, res, t, q = reference_run("robot7", t_end=1.0, rtol=1e-8, atol=1e-11,
                                         record_poses=True)
    assert res.t[-1] == pytest.approx(1.0) and t[-1] == pytest.approx(0.5)
    assert np.abs(q - np.asarray(ref["q"])).max() <= 1e-5
    tip = tip_path(text, res, t, "panda_link7", DATA / "robot7.urdf", "panda_hand_tcp")
    tip -= ref["tip"]
    assert np.abs(tip[0]).max() < 1e-12 and np.abs(tip).max() <= 1e-6
    shoulder = res["panda_joint2.angle"]
    contact = reference("robot7", "checks")["first_limit_contact_from_q0"]
    assert contact["joints"] == ["panda_joint2"]
    assert res.t[np.argmax(shoulder > 1.7628)] == pytest.approx(contact["t"], abs=0.006)
    assert 0 < shoulder.max() - 1.7628 < 0.02
