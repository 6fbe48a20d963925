"""One joint framework: every joint type, the spherical one included, goes through the
same start-up (assembly from `.ic` joint coordinates and from bodies drawn off the
joints), mobility analysis and models. The joint types are taken from the registry, so
a new joint is covered without editing this file."""
import sys

import numpy as np
import pytest

import circuitsim
from circuitsim.elements import element_types, joint

from helpers import NETLISTS, netlist_text

sys.path.insert(0, str(NETLISTS))
from chain import chain_netlist  # noqa: E402

FOURBAR = netlist_text("fourbar.cir")
JB_LINE = "revolute JB crank coupler at=(0, 0.1, 0) axis=(0, 0, 1)"
JOINTS = sorted(k for k, t in element_types().items() if t.is_joint)
MODELS = ("position", "velocity", "elastic")
# geometry of the joint at B of the planar four-bar where the defaults do not fit
GEOMETRY = {"universal": "axis1=(0, 0, 1) axis2=(1, 0, 0)", "pointplane": "normal=(0, 0, 1)",
            "prismatic": "axis=({cx}, {cy - 0.1}, 0)", "fixed": "",
            # a rod from B on the crank to the coupler's centre of mass (its default at2)
            "rod": "at1=(0, 0.1, 0)"}
ANGLE = ".ic JA.angle=60deg\n"
# a prismatic joint along the coupler keeps the coupler parallel to the crank, whose
# loop then cannot reach 60°; a fixed joint leaves the loop no degree of freedom: these
# are tried on the open chain crank–coupler (the rocker and its joints taken out)
OPEN = {"prismatic", "fixed"}


def fourbar(joint_at_b: str, ic: str = ANGLE) -> str:
    return FOURBAR.replace(".tran 2 2m", ".tran 1 10m").replace(JB_LINE, joint_at_b) + ic


@pytest.mark.parametrize("model", ["position", "velocity"])
def test_fourbar_with_a_ball_joint_moves_as_with_a_hinge(model):
    """The planar four-bar moves the same with a ball joint at B (the revolutes at A, C,
    D keep it planar), from the same assembled start (crank at 60°): the crank angle
    agrees to 1e-6 rad over 0.5 s (the crank turns by 2.8 rad) at rtol 1e-10, atol
    1e-13 (at rtol 1e-9 the two runs' own integration errors differ by 0.2-1.2e-6 rad
    depending on the step pattern; measured here 9.3e-9 position, 1.2e-9 velocity)."""
    sets = {f"{j}.model": model for j in ("JA", "JB", "JC", "JD")}
    hinge = circuitsim.parse(fourbar(JB_LINE), "hinge.cir")
    ball = circuitsim.parse(fourbar("spherical JB crank coupler at=(0, 0.1, 0)"), "ball.cir")
    a = hinge.simulate(set=sets, rtol=1e-10, atol=1e-13, t_end=0.5)
    b = ball.simulate(set=sets, rtol=1e-10, atol=1e-13, t_end=0.5)
    assert a["JA.angle"][0] == b["JA.angle"][0] == pytest.approx(np.pi / 3, abs=1e-12)
    assert np.max(np.abs(a["JA.angle"] - b["JA.angle"])) < 1e-6
    assert b.mobility.dof == 1 and len(b.mobility.redundant) == 1


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("keyword", JOINTS)
def test_every_joint_assembles_in_a_loop_from_an_ic_coordinate(keyword, model):
    """The joint at B of the four-bar replaced by each joint type: `.ic JA.angle=60deg`
    moves every body off its drawn pose (for OPEN types, on the open chain); after the start-up every joint holds at
    position level (gap, twist below 1e-9) and the crank is at 60°."""
    point = "" if keyword in ("norotation", "rod") else "at=(0, 0.1, 0)"
    line = f"{keyword} JB crank coupler {point} {GEOMETRY.get(keyword, 'axis=(0, 0, 1)')}"
    text = fourbar(line)
    if keyword in OPEN:
        text = "\n".join(t for t in text.splitlines() if not t.startswith(
            ("revolute JC", "revolute JD", "body rocker", ".probe")))
    sets = {f"{j}.model": model for j in ("JA", "JB", "JC", "JD") if f"{j} " in text}
    res = circuitsim.parse(text, "loop.cir").simulate(set=sets, t_end=1e-3, tstep=1e-3)
    assert res["JA.angle"][0] == pytest.approx(np.pi / 3, abs=1e-9)
    assert any("moved the bodies" in note for note in res.notes)
    for joint in ("JA", "JB", "JC", "JD"):
        for out in ("gap", "twist"):
            if f"{joint}.{out}" in res:
                assert res[f"{joint}.{out}"][0] < 1e-9, (joint, out)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("keyword", [k for k in JOINTS if element_types()[k].coordinate_names()])
def test_every_joint_coordinate_is_a_start_up_target(keyword, model):
    """A body on one joint to ground, each joint coordinate set by `.ic` (an angle of
    0.7 rad, a displacement of 0.05 m): the start-up turns or moves the body there."""
    etype = element_types()[keyword]
    targets = {"angle": 0.7, "s": 0.05, "angle1": 0.7, "angle2": -0.4}
    ics = " ".join(f"J.{c}={targets[c]}" for c in etype.coordinate_names())
    geometry = GEOMETRY["universal"] if keyword == "universal" else "axis=(0, 0, 1)"
    net = circuitsim.parse(f"body B m=1 J=(0.1, 0.2, 0.3) pos=(0.2, 0.1, 0)\n"
                           f"{keyword} J 0 B at=(0, 0, 0) {geometry} model={model}\n"
                           f".ic {ics}\n.tran 1m\n", "one.cir")
    res = net.simulate(tstep=1e-3)
    for coord in etype.coordinate_names():
        assert res[f"J.{coord}"][0] == pytest.approx(targets[coord], abs=1e-9)
    assert res["J.gap"][0] < 1e-9 and res["J.twist"][0] < 1e-9


def test_second_derivative_of_a_rotated_vector_matches_the_quaternion_hessian():
    """Frames.D2 (closed form through the quadratic numerator) against the full
    d²A/dq² tensor of quaternion.dcm_d2q, off the unit sphere as Newton iterates are."""
    from circuitsim.elements import quaternion
    from circuitsim.elements.constraints import Frames
    rng = np.random.default_rng(3)
    x = rng.normal(size=(5, 26))
    fr = Frames(x)
    c, w = rng.normal(size=(5, 2, 3)), rng.normal(size=(5, 2, 3))
    for i, q in enumerate(fr.q):
        expected = np.einsum("nijkl,nmj,nmi->nmkl", quaternion.dcm_d2q(q), c, w)
        assert np.allclose(fr.D2(i, c, w), expected, rtol=1e-12, atol=1e-12)


def test_rotation_numerator_as_one_matrix_product_matches_its_entries():
    """quaternion._numerator (outer products times a coefficient matrix) against the
    entry-by-entry formula, for any leading shape and off the unit sphere."""
    from circuitsim.elements import quaternion
    rng = np.random.default_rng(5)
    for shape in ((4,), (7, 4), (3, 5, 4)):
        q = rng.normal(size=shape)
        assert np.allclose(quaternion._numerator(q), quaternion._numerator_entries(q),
                           rtol=1e-14, atol=1e-14)


@pytest.mark.parametrize("model", ["position", "velocity"])
@pytest.mark.parametrize("folds", [(90, 180), (180, -180), (270, -200), (450, -540)])
def test_ic_angles_of_half_a_turn_and_more_are_met_modulo_a_turn(folds, model):
    """A hinge angle is measured in (−π, π]; an `.ic` target of ±180° (a panel folded flat
    onto its neighbour) or beyond half a turn is met modulo 2π, and the coordinate starts
    at the value given. (The residual used to be taken without the modulo: 180° failed or
    passed by the rounding of the branch cut, 270° could never be met.)"""
    a, b = folds
    text = ("body A m=1 J=(0.01, 0.1, 0.1) pos=(0.5, 0, 0)\n"
            "body B m=1 J=(0.01, 0.1, 0.1) pos=(1.5, 0, 0)\n"
            f"revolute J1 0 A at=(0, 0, 0) axis=(0, 0, 1) model={model}\n"
            f"revolute J2 A B at=(1, 0, 0) axis=(0, 0, 1) model={model}\n"
            f".ic J1.angle={a}deg J2.angle={b}deg\n.tran 1m\n")
    res = circuitsim.parse(text, "fold.cir").simulate(tstep=1e-3)
    ra, rb = np.radians(a), np.radians(b)
    assert res["J1.angle"][0] == pytest.approx(ra, abs=1e-12)
    assert res["J2.angle"][0] == pytest.approx(rb, abs=1e-12)
    end = np.array([np.cos(ra), np.sin(ra)])
    centre = end + 0.5 * np.array([np.cos(ra + rb), np.sin(ra + rb)])
    assert res["B.x"][0] == pytest.approx(centre[0], abs=1e-9)
    assert res["B.y"][0] == pytest.approx(centre[1], abs=1e-9)
    assert max(res["J1.gap"][0], res["J2.gap"][0]) < 1e-9


def test_ball_joint_pattern_holds_only_its_structural_entries():
    """A joint's Jacobian pattern is narrowed to the entries that are not identically
    zero for its parameters (joint.py, ``_probed_pattern``; the contract tests check it
    still covers every finite-difference derivative, both forms). A ball joint's
    constraint rows have the global axes as normals: row k reads only component k of
    each frame's velocity, and the joint's block keeps under a third of the generic
    declaration's entries (191 of 640 here)."""
    system = circuitsim.parse(BALL_CHAIN, "chain.cir").prepare().system
    group = next(g for g in system.groups if g.etype.keyword == "spherical")
    etype = group.etype
    for k in range(3):
        row = group.mask[etype._L0 + k]
        for first in (0, 13):                                 # V of frame 1, of frame 2
            assert row[first:first + 3].tolist() == [j == k for j in range(3)]
    assert group.mask.sum() < etype._declared_pattern().sum() / 3


BALL_CHAIN = """.gravity 0 0 -9.81
body B1 m=1 J=(0.02, 0.02, 1e-4) pos=(0.25, 0, 0) rot=(0, 1, 0, 90deg)
body B2 m=1 J=(0.02, 0.02, 1e-4) pos=(0.75, 0, 0) rot=(0, 1, 0, 90deg)
spherical S1 0 B1 at=(0, 0, 0)
spherical S2 B1 B2 at=(0.5, 0, 0)
.tran 0.1 10m
"""


def test_a_large_group_is_probed_in_parts_with_the_same_pattern(monkeypatch):
    """More instances than PROBE_CHUNK are probed a part at a time, each with its rows of
    the same random states: the pattern is the one probed all at once."""
    text = chain_netlist(joint.PROBE_CHUNK + 40, "position", probes=["B1.x"])
    group = next(g for g in circuitsim.parse(text, "<chain>").prepare().system.groups
                 if g.etype.keyword == "spherical")
    in_parts = group.etype._probed_pattern(group.p)
    monkeypatch.setattr(joint, "PROBE_CHUNK", 10**9)
    assert np.array_equal(in_parts, group.etype._probed_pattern(group.p))
