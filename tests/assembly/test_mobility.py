"""Mobility analysis before the run: Grübler count, rank of the constraint Jacobian,
redundant rows named per loop (circuitsim/assembly/mobility.py)."""
import pytest

import circuitsim
from circuitsim import cli

from helpers import load_netlist

FOURBAR = "netlists/fourbar.cir"        # as typed in the repository (in_repo): the message shows it

BODY = "body B m=1 J=(0.1, 0.1, 0.1) pos=(0.5, 0, 0)\n"


def mobility(text):
    return circuitsim.parse(text).check().mobility


def test_fourbar_position_model_is_reported_over_constrained_before_the_run(capsys, in_repo):
    assert cli.main(["check", FOURBAR]) == 0
    out, err = capsys.readouterr()
    assert "Grübler count 6·3 − 20 = -2" in out
    assert "degrees of freedom: 1; redundant constraint rows: 3" in out
    warning = next(line for line in err.splitlines() if "over-constrained" in line)
    assert warning.startswith("warning: netlists/fourbar.cir:")
    for joint in ("JA", "JB", "JC", "JD"):
        assert joint in warning
    assert "model=elastic" in warning


def test_fourbar_elastic_variant_has_no_redundancy_and_runs():
    net = load_netlist("fourbar.cir")
    info = net.check(study="soft")
    assert info.mobility.redundant == [] and info.mobility.rows == 0
    assert not [m for m, _ in info.warnings if "over-constrained" in m]
    res = net.simulate(study="soft", t_end=0.05)
    assert res.success
    # one elastic joint already opens the loop: 15 rigid rows, all independent
    m = net.check(set={"JA.model": "elastic"}).mobility
    assert (m.rows, m.rank, m.dof, len(m.redundant)) == (15, 15, 3, 0)


def test_free_bodies_and_a_spherical_double_pendulum():
    m = mobility(BODY + "body C m=1 J=(0.1, 0.1, 0.1) pos=(2, 0, 0)\n.tran 1\n")
    assert (m.bodies, m.rows, m.dof) == (2, 0, 12)
    m = load_netlist("double_pendulum.cir").check().mobility
    assert (m.bodies, m.rows, m.rank, m.dof) == (2, 6, 6, 6)


def test_two_coaxial_revolutes_repeat_five_rows_of_each_other():
    m = mobility(BODY + "revolute R1 0 B at=(0, 0, 0) axis=(0, 0, 1)\n"
                 "revolute R2 0 B at=(0, 0, 1) axis=(0, 0, 1)\n.tran 1\n")
    assert (m.rows, m.rank, m.dof, m.grubler) == (10, 5, 1, -4)
    assert len(m.redundant) == 5
    for r in m.redundant:        # each repeats a row of the other joint
        assert set(r.implied_by) - {r.row.joint} == {"R1", "R2"} - {r.row.joint}


@pytest.mark.parametrize("axis,normal,rank", [("(0, 0, 1)", "(0, 1, 0)", 11),
                                              ("(0, 1, 0)", "(0, 1, 0)", 11),
                                              ("(0, 0, 1)", "(1, 0, 0)", 10)])
def test_mobility_is_the_rank_at_the_start_configuration(axis, normal, rank):
    """Ground -R1(z)- B -R2- C, and a point of C held in a plane: one dof remains, except
    in the dead-centre case (the point can only move along y, the plane's normal is x:
    its row vanishes, so the count says 1 dof but the mechanism has 2 here)."""
    text = (BODY + "body C m=1 J=(0.1, 0.1, 0.1) pos=(1.5, 0, 0)\n"
            "revolute R1 0 B at=(0, 0, 0) axis=(0, 0, 1)\n"
            f"revolute R2 B C at=(1, 0, 0) axis={axis}\n"
            f"pointplane P1 0 C at=(2, 0, 0) normal={normal}\n.tran 1\n")
    m = mobility(text)
    assert (m.rows, m.grubler, m.rank, m.dof) == (11, 1, rank, 12 - rank)
    assert len(m.redundant) == 11 - rank


def test_two_ball_joints_on_one_body_make_a_hinge_with_one_redundant_row():
    """Two spherical joints to ground constrain the translation along the line through
    them twice: one row is redundant and switched off like a closed loop's, and the
    body turns about that line as on a revolute joint along x (same motion)."""
    text = (BODY + ".gravity 0 0 -9.81\n"
            "spherical S1 0 B at=(0, 0, 0)\nspherical S2 0 B at=(1, 0, 0)\n"
            ".ic B.wx=2\n.tran 1\n")
    m = mobility(text)
    assert (m.rows, m.rank, m.dof) == (6, 5, 1)
    (red,) = m.redundant
    assert red.row.what == "translation along x"
    assert {red.row.joint, *red.implied_by} == {"S1", "S2"}
    hinge = circuitsim.parse(BODY + ".gravity 0 0 -9.81\n"
                             "revolute R 0 B at=(0, 0, 0) axis=(1, 0, 0)\n"
                             ".ic B.wx=2\n.tran 1\n")
    a = circuitsim.parse(text).simulate(rtol=1e-9, atol=1e-12, tstep=0.05)
    b = hinge.simulate(rtol=1e-9, atol=1e-12, tstep=0.05)
    assert max(abs(a["B.wx"] - b["B.wx"])) < 1e-7
    assert max(abs(a["B.wx"] - 2.0)) < 1e-9          # the centre of mass is on the axis
    assert max(abs(a["S1.Fz"] + a["S2.Fz"] - 9.81)) < 1e-6 * 9.81
