"""Regression against a golden run: ``run --compare`` and ``circuitsim compare``."""
import numpy as np
import pytest

from circuitsim import cli
from circuitsim.output import regression
from circuitsim.output.results import Result

from helpers import netlist_path

DCMOTOR = str(netlist_path("dcmotor"))


def run(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    assert "Traceback" not in out.err
    return code, out.out, out.err


def test_dcmotor_passes_its_own_golden_run_and_fails_on_one_percent_of_k(tmp_path, capsys):
    golden = tmp_path / "golden.csv"
    code, out, _ = run(["run", DCMOTOR, "--compare", golden, "--update-golden"], capsys)
    assert code == 0 and f"golden -> {golden}" in out
    code, out, _ = run(["run", DCMOTOR, "--compare", golden], capsys)
    assert code == 0 and "passed" in out
    code, _, err = run(["run", DCMOTOR, "--compare", golden, "--set", "k=0.0505"], capsys)
    assert code == 1
    assert "FAILED" in err and "differs from the golden run: dcmotor" in err
    # the speed is the first thing a 1 % torque constant changes by more than 0.1 % of
    # its range: it is named with its time and values
    table = err.split("x allowed", 1)[1]
    assert "shaft" in table and "La.i" in table


def test_compare_command_reads_each_format_and_exits_by_the_verdict(tmp_path, capsys):
    csv, mat, v4 = tmp_path / "a.csv", tmp_path / "a.mat", tmp_path / "m.mat"
    assert run(["run", DCMOTOR, "--out", csv, "--csv-units", "--quiet"], capsys)[0] == 0
    assert run(["run", DCMOTOR, "--out", mat, "--quiet"], capsys)[0] == 0
    assert run(["run", DCMOTOR, "--out", v4, "--mat-format", "modelica", "--quiet"],
               capsys)[0] == 0
    for a, b in ((csv, mat), (mat, v4), (v4, csv)):
        code, out, _ = run(["compare", a, b], capsys)
        assert code == 0 and "12 variables at 601 times" in out
    changed = tmp_path / "k.csv"
    assert run(["run", DCMOTOR, "--out", changed, "--set", "k=0.0505", "--quiet"],
               capsys)[0] == 0
    code, _, err = run(["compare", changed, csv], capsys)
    assert code == 1 and "shaft" in err
    # a looser tolerance lets the 1 % change pass: the largest deviation is a few
    # percent of a range
    assert run(["compare", changed, csv, "--rtol", "0.05"], capsys)[0] == 0


def test_bad_files_and_options_are_located_at_the_command_line(tmp_path, capsys):
    good = tmp_path / "g.csv"
    good.write_text("time,x\n0,1\n1,2\n")
    code, _, err = run(["compare", tmp_path / "none.csv", good], capsys)
    assert code == 2 and err.startswith("error: <command line>") and "none.csv" in err
    bad = tmp_path / "bad.csv"
    bad.write_text("time,x\n0,abc\n")
    code, _, err = run(["compare", bad, good], capsys)
    assert code == 2 and "bad.csv" in err
    code, _, err = run(["compare", good, good, "--rtol", "-1"], capsys)
    assert code == 2 and "--rtol" in err
    code, _, err = run(["run", DCMOTOR, "--compare", tmp_path / "missing.csv"], capsys)
    assert code == 2 and "--update-golden writes it" in err
    code, _, err = run(["run", DCMOTOR, "--update-golden"], capsys)
    assert code == 2 and "needs --compare" in err


def test_several_cases_compare_each_with_its_own_golden_file(tmp_path, capsys):
    netlist = tmp_path / "rc.cir"
    netlist.write_text(".title rc\n.param R=1k\nV V1 in 0 V={sin(2*pi*50*time)}\n"
                       "R R1 in out R={R}\nC C1 out 0 C=1u\n.step R 1k 2k\n.tran 20m 0.1m\n")
    golden = tmp_path / "g.csv"
    assert run(["run", netlist, "--compare", golden, "--update-golden"], capsys)[0] == 0
    written = sorted(p.name for p in tmp_path.glob("g_*.csv"))
    assert written == ["g_R=1k.csv", "g_R=2k.csv"]
    assert run(["run", netlist, "--compare", golden], capsys)[0] == 0


def result(t, **columns):
    return Result(np.asarray(t, float), list(columns),
                  np.column_stack([np.asarray(v, float) for v in columns.values()]))


def test_interpolated_comparison_error_is_the_linear_interpolants():
    """A quadratic sampled coarsely against the same quadratic sampled finely: the
    largest deviation is the linear interpolant's, h^2/8 |f''| (f = t^2: h^2/4)."""
    fine = np.linspace(0.0, 1.0, 1001)
    coarse = np.linspace(0.0, 1.0, 11)                    # h = 0.1
    found = regression.compare(result(coarse, x=coarse ** 2), result(fine, x=fine ** 2),
                               rtol=1e-6)
    worst = found.differences[0]
    assert worst.error == pytest.approx(0.1 ** 2 / 4, rel=1e-3)
    assert not found.passed
    found = regression.compare(result(coarse, x=coarse ** 2), result(fine, x=fine ** 2),
                               rtol=0.1 ** 2 / 4 * 1.001)  # range 1: just enough
    assert found.passed


def test_a_jump_at_the_same_time_is_compared_side_by_side():
    """Both hold a step at t = 0.5 (the time written twice, before and after): no
    difference, although an interpolation at t = 0.5 alone would see the whole step."""
    t = np.array([0.0, 0.25, 0.5, 0.5, 0.75, 1.0])
    x = np.array([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    t2 = np.array([0.0, 0.1, 0.5, 0.5, 0.9, 1.0])
    x2 = np.array([0.0, 0.0, 0.0, 1.0, 1.0, 1.0])
    assert regression.compare(result(t2, x=x2), result(t, x=x), rtol=1e-12).passed


def test_missing_variables_and_short_runs_fail_extra_ones_are_listed():
    t = np.linspace(0.0, 1.0, 5)
    golden = result(t, x=t, y=2 * t)
    found = regression.compare(result(t, x=t, z=t), golden)
    assert not found.passed and found.missing == ["y"] and found.extra == ["z"]
    assert "not in the run: y" in found.text()
    short = regression.compare(result(t[:3], x=t[:3], y=2 * t[:3]), golden)
    assert not short.passed and "covers t = 0 .. 0.5 s" in short.span
    nan = regression.compare(result(t, x=np.where(t > 0.5, np.nan, t), y=2 * t), golden)
    assert [d.name for d in nan.failed] == ["x"]
