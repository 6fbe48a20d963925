"""What a newcomer hits first: the command line's conveniences, tolerances from the
command line or a study, expressions that say what they mean (comparisons, step, if),
friction that varies in time, the body-frame angular velocity, angles in degrees."""
import math

import numpy as np
import pytest

import circuitsim
from circuitsim import cli
from circuitsim.run import studies
from circuitsim.runtime import expressions

from helpers import netlist_path


def test_version(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"circuitsim {circuitsim.__version__}"


def test_several_settings_after_one_set_and_the_netlist_after_plot_values(tmp_path, capsys):
    out = tmp_path / "m.csv"
    code = cli.main(["run", "--out", str(out), "--set", "R=2", "V=6",
                     "--plot", "shaft", "La.i", str(netlist_path("dcmotor.cir"))])
    assert code == 0, capsys.readouterr().err
    res = circuitsim.load(netlist_path("dcmotor.cir")).simulate(set={"R": 2, "V": 6})
    assert np.array_equal(circuitsim.Result.from_csv(out)["shaft"], res["shaft"])
    assert (tmp_path / "m.png").is_file()


def test_solver_options_from_the_command_line_and_a_study(tmp_path, capsys):
    path = tmp_path / "rc.cir"
    path.write_text("V V1 a 0 V=1\nR R1 a b R=1k\nC C1 b 0 C=1u\n"
                    ".study tight rtol=1e-10 atol=1e-13\n.tran 5m\n")
    net = circuitsim.load(path)
    steps = {name: net.simulate(**kw).stats["nsteps"] for name, kw in
             [("default", {}), ("set", {"set": {"rtol": 1e-10, "atol": 1e-13}}),
              ("study", {"study": "tight"})]}
    assert steps["set"] == steps["study"] > 2 * steps["default"]
    exact = 1 - math.exp(-5e-3 / 1e-3)
    assert net.simulate(study="tight")["b"][-1] == pytest.approx(exact, rel=1e-8)
    assert cli.main(["run", str(path), "--set", "rtol=1e-9", "--quiet"]) == 0


def test_check_elaborates_every_study(tmp_path, capsys):
    path = tmp_path / "s.cir"
    path.write_text("V V1 a 0 V=1\nR R1 a 0 R=1\n.study ok R1.R=2\n.study bad R1.R=-1\n"
                    ".tran 1\n")
    assert cli.main(["check", str(path)]) == 2
    assert "R R1: R must be positive, got -1" in capsys.readouterr().err
    assert cli.main(["check", str(path), "--study", "ok"]) == 0


def test_study_comparison_counts_as_the_run_line(tmp_path, capsys):
    out = tmp_path / "p.csv"
    assert cli.main(["run", str(netlist_path("pendulum.cir")), "--all-studies", "--out",
                     str(out), "--quiet"]) == 0
    table = (tmp_path / "p_studies.csv").read_text().splitlines()
    assert table[0] == ("study,steps,rejected,newton_failures,wall_s,max_gap_m,energy_drift,"
                        "max_force_diff_N")
    net = circuitsim.load(netlist_path("pendulum.cir"))
    base = net.simulate()
    cells = dict(zip(table[0].split(","), table[1].split(",")))
    assert int(cells["steps"]) == base.stats["nsteps"]
    assert int(cells["rejected"]) == base.stats["nfail_err"]
    assert int(cells["newton_failures"]) == base.stats["nfail_conv"]
    assert float(cells["energy_drift"]) < 1e-4          # a conservative pendulum


def test_energy_drift_is_not_shown_for_a_driven_circuit():
    res = circuitsim.load(netlist_path("dcmotor.cir")).simulate()
    assert res.diagnostics["driven"] and studies.energy_drift(res) is None


@pytest.mark.parametrize("text, value", [
    ("{2 < 3}", 1.0), ("{2 > 3}", 0.0), ("{3 <= 3}", 1.0), ("{2 >= 3}", 0.0),
    ("{3 == 3}", 1.0), ("{3 != 3}", 0.0), ("{1 + 2 < 2 * 2}", 1.0),
    ("{step(0)}", 1.0), ("{step(-1e-300)}", 0.0), ("{if(0, 5, 7)}", 7.0),
    ("{if(2 > 1, 5, 7)}", 5.0), ("{tanh(0.5)}", math.tanh(0.5)),
    ("{sinh(0.5)}", math.sinh(0.5)), ("{cosh(0.5)}", math.cosh(0.5)),
])
def test_comparisons_and_new_functions_in_expressions(text, value):
    res = circuitsim.parse(f".param x={text}\nV V1 a 0 V={{x}}\nR R1 a 0 R=1\n.tran 1\n"
                           ).simulate()
    assert res["a"][-1] == pytest.approx(value, rel=1e-15)


@pytest.mark.parametrize("text", ["tanh(2*x)", "sinh(x)*cosh(x)", "if(x > 0.3, x^2, -x)",
                                  "step(x - 0.3)*x", "(x < 0.3)*sin(x)"])
def test_derivatives_of_the_new_functions(text):
    from circuitsim.netlist.parser import parse_expression
    tree = parse_expression(text)
    f = expressions.compile_(tree, ["x"])
    df = expressions.compile_(expressions.diff(tree, "x"), ["x"])
    x = np.array([0.1, 0.2, 0.45, 0.7])          # away from the jumps
    h = 1e-6
    assert np.allclose(df(x), (f(x + h) - f(x - h)) / (2 * h), rtol=1e-7, atol=1e-9)


def test_a_brake_that_engages_in_time():
    """A 0.1 kg·m² flywheel at 10 rad/s; Fc = 2 N·m from t = 1 s: it decelerates at
    20 rad/s² and stops at 1.5 s, then stays (stuck, up to the regularisation's creep)."""
    for fc in ("{2*step(time - 1)}", "step(1, 0, 2)"):
        res = circuitsim.parse(f"inertia J1 w J=0.1\nfriction FB w 0 Fc={fc} veps=1e-6\n"
                               ".ic w=10\n.tran 2 0.01\n").simulate(rtol=1e-8, atol=1e-10)
        t = res.t
        exact = np.where(t < 1, 10.0, np.maximum(10 - 20 * (t - 1), 0.0))
        assert np.max(np.abs(res["w"] - exact)) < 1e-6
        assert res["FB.f"][np.searchsorted(t, 1.2)] == pytest.approx(2.0, rel=1e-9)


def test_body_frame_angular_velocity():
    """Rotated 90° about z and spinning about global x: in its own axes the body turns
    about −y; with a spin about its own z axis, ω_body stays (0, 0, 5) as it tumbles."""
    res = circuitsim.parse("body B m=1 J=(1, 2, 3) rot=(0, 0, 1, 90deg) w=(1, 0, 0)\n"
                           ".tran 0.001\n").simulate()
    assert (res["B.wbx"][0], res["B.wby"][0], res["B.wbz"][0]) == pytest.approx((0, -1, 0),
                                                                               abs=1e-15)
    # body z along global -y (rot 90° about x); spinning at 5 rad/s about it: a symmetric
    # top about its axis, ω_body = (0, 0, 5) throughout
    res = circuitsim.parse("body B m=1 J=(1.5, 1.5, 3) rot=(1, 0, 0, 90deg) w=(0, -5, 0)\n"
                           ".tran 1 0.1\n").simulate(rtol=1e-10, atol=1e-12)
    assert np.allclose(res["B.wbz"], 5.0, rtol=1e-12)
    assert np.max(np.abs(res["B.wbx"])) < 1e-12 and np.max(np.abs(res["B.wby"])) < 1e-12


def test_an_angle_in_radians_beyond_a_turn_is_warned():
    case = circuitsim.parse("body B m=1 J=(1, 1, 1) rot=(0, 1, 0, 90) w=(0, 0, 1)\n"
                            ".tran 0.1\n", "r.cir").prepare()
    assert [(m, str(loc)) for m, loc in case.warnings] == [
        ("body B: rot: 90 is 14.3 turns in radians; write 90deg for degrees", "r.cir:1:38")]
    quiet = circuitsim.parse("body B m=1 J=(1, 1, 1) rot=(0, 1, 0, 90deg) w=(0, 0, 1)\n"
                             ".tran 0.1\n").prepare()
    assert quiet.warnings == []


def test_an_output_step_longer_than_the_run_is_a_located_warning(tmp_path, capsys):
    path = tmp_path / "t.cir"
    path.write_text("V V1 a 0 V=1\nR R1 a 0 R=1\n.tran 1 5\n")
    assert cli.main(["check", str(path)]) == 0
    err = capsys.readouterr().err
    assert f"{path}:3:9:" in err
    assert "the output step 5 s is longer than the end time 1 s" in err
    path.write_text("V V1 a 0 V=1\nR R1 a 0 R=1\n.tran 5 1\n")
    assert cli.main(["check", str(path)]) == 0
    assert "output step" not in capsys.readouterr().err


def test_messages_show_numbers_not_numpy_reprs(tmp_path, capsys):
    path = tmp_path / "b.cir"
    path.write_text("body B m=1 J=(0.02, -1, 0.02)\n.tran 1\n")
    assert cli.main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "got (0.02, -1, 0.02)" in err and "np." not in err
