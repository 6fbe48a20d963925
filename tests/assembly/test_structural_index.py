"""The multipliers are told from the assembled system's structure (Dulmage–Mendelsohn on
the algebraic part, circuitsim/assembly/index.py), not from flags of the elements; and
the start-up keeps initial data that are already consistent."""
import numpy as np
import pytest

import circuitsim
from circuitsim.assembly.startup import kinematic_start
from helpers import netlist_text

PENDULUM = """.gravity 0 -9.81 0
body B m=1 J=(0.01, 0.01, 0.01) pos=(0.5, 0, 0)
revolute J 0 B at=(0, 0, 0) axis=(0, 0, 1) model={model} {flange}
{drive}
.tran 0.5
"""


def multipliers(text: str) -> set:
    case = circuitsim.parse(text, "t.cir").prepare()
    system = case.system
    start = kinematic_start(system, system.initial_values())
    system.classify(0.0, start.y0)
    return {system.names[i] for i in np.flatnonzero(system.multipliers)}


@pytest.mark.parametrize("model", ["position", "velocity"])
def test_rigid_joint_reactions_are_multipliers(model):
    found = multipliers(PENDULUM.format(model=model, flange="", drive=""))
    reactions = {"J.f1", "J.f2", "J.f3", "J.t1", "J.t2"}
    if model == "position":
        assert found == reactions | {f"J.mu{k}" for k in range(1, 6)}
    else:                     # μ = 0 rows determine μ (index 1)
        assert found == reactions
    # the free flange: its node w = (ω2 − ω1)·n and torque τ = 0 are index 1
    assert "J.tau" not in found and "J.w" not in found


def test_elastic_joint_has_no_multipliers():
    assert multipliers(PENDULUM.format(model="elastic", flange="", drive="")) == set()


def test_a_potential_source_on_a_flange_is_a_multiplier_with_the_flange_torque():
    """`V Vd drive 0` prescribes the hinge's speed: JA.tau + Vd.i = 0 and neither is
    determined by an algebraic equation alone; both leave Newton's test."""
    found = multipliers(PENDULUM.format(model="position", flange="flange=drive",
                                        drive="V Vd drive 0 V=2"))
    assert {"J.tau", "Vd.i"} <= found
    assert "drive" not in found


@pytest.mark.parametrize("tol", [(1e-6, 1e-9), (1e-9, 1e-12)])
def test_driven_fourbar_runs_at_tight_tolerances(tol):
    """A four-bar whose crank a velocity source drives at 10 rad/s failed at t = 0 at rtol
    1e-9, atol 1e-12 (E_NEWTON on Vd.i) while Vd.i was in Newton's test; the crank turns
    exactly 10 rad in 1 s."""
    text = (netlist_text("fourbar").replace(".ic crank.wz=8", "")
            .replace(".tran 2 2m", ".tran 1 10m")
            .replace("revolute JA 0 crank at=(0, 0, 0) axis=(0, 0, 1)",
                     "revolute JA 0 crank at=(0, 0, 0) axis=(0, 0, 1) flange=drive\n"
                     "V Vd drive 0 V=10")
            .replace(".probe", ".probe Vd.i JA.tau"))
    res = circuitsim.parse(text, "driven.cir").simulate(rtol=tol[0], atol=tol[1])
    assert res.success
    assert res["JA.angle"][-1] == pytest.approx(10.0, abs=1e-9)
    np.testing.assert_allclose(res["Vd.i"], -res["JA.tau"], atol=1e-9)


def test_consistent_initial_velocities_are_kept_exactly():
    """A slider–crank started with exactly consistent velocities (the crank's 6 rad/s and
    the slider's matching speed): the start-up moves nothing, the flange node follows
    its joint (it is not a least-squares unknown) and no note is printed."""
    text = """.title slider-crank at 90 degrees, exactly consistent start
body crank m=1 J=(0.001, 0.001, 0.001) pos=(0, 0.05, 0) w=(0, 0, 6) v=(-0.3, 0, 0)
body rod m=2 J=(0.015, 0.015, 0.015) pos=({sqrt(0.08)/2}, 0.05, 0) v=(-0.6, 0, 0)
body slider m=0.5 J=(0.001, 0.001, 0.001) pos=({sqrt(0.08)}, 0, 0) v=(-0.6, 0, 0)
revolute J1 0 crank at=(0, 0, 0) axis=(0, 0, 1)
revolute J2 crank rod at=(0, 0.1, 0) axis=(0, 0, 1)
revolute J3 rod slider at=({sqrt(0.08)}, 0, 0) axis=(0, 0, 1)
prismatic P 0 slider at=({sqrt(0.08)}, 0, 0) axis=(1, 0, 0)
.tran 0.01
"""
    # the crank (6 rad/s about z) moves its centre at (-0.3, 0) and its tip B = (0, 0.1)
    # at (-0.6, 0); the rod (B to C = (sqrt(0.08), 0)) translates at (-0.6, 0) with
    # ω = 0 and C moves along x: every body velocity is consistent
    report = circuitsim.parse(text, "sc.cir").check()
    assert not [n for n in report.notes if "velocities" in n], report.notes
    res = circuitsim.parse(text, "sc.cir").simulate(t_end=1e-3, tstep=1e-3)
    assert res["slider.vx"][0] == -0.6 and res["crank.wz"][0] == 6.0
    assert res["rod.vx"][0] == -0.6 and res["crank.vx"][0] == -0.3
    assert res["J1.w"][0] == pytest.approx(6.0, abs=1e-12)       # followed its joint


def test_start_up_notes_show_the_change_and_the_energy():
    text = netlist_text("fourbar") + ".ic JA.angle=60deg\n"
    notes = circuitsim.parse(text, "x.cir").check().notes
    velocity = next(n for n in notes if "velocities" in n)
    assert "rocker.wz 0 -> 2.36501" in velocity and "stored energy +0.386 J" in velocity
