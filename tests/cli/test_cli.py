"""The command line as a user runs it: run/check, outputs, overrides, studies, sweeps."""
import numpy as np
import pytest

from circuitsim import Result, cli

from helpers import netlist_path

DCMOTOR = """.title motor
.param k=0.05 b=1e-5
V V1 sup 0 V=12
R Ra sup a R=1
L La a emf L=0.5mH
transformer Km emf 0 w 0 n={k}
inertia J1 w J=1e-4
damper B1 w 0 b={b}
.tran 0.5 1m
"""


def steady_speed(k=0.05, b=1e-5, V=12.0, R=1.0):
    return k * V / (R * b + k * k)


@pytest.fixture
def motor(tmp_path):
    path = tmp_path / "motor.cir"
    path.write_text(DCMOTOR)
    return path


def test_run_writes_csv_and_plot(motor, tmp_path, capsys):
    out = tmp_path / "r.csv"
    assert cli.main(["run", str(motor), "--out", str(out), "--plot", "w", "La.i"]) == 0
    res = Result.from_csv(out)
    assert res.names[:2] == ["sup", "V1.i"]
    assert res.t[-1] == pytest.approx(0.5)
    assert len(res.t) == 501
    assert res["w"][-1] == pytest.approx(steady_speed(), rel=1e-4)
    png = tmp_path / "r.png"
    assert png.exists() and png.read_bytes()[:4] == b"\x89PNG"
    assert "steps" in capsys.readouterr().out


def test_npz_output(motor, tmp_path):
    out = tmp_path / "r.npz"
    assert cli.main(["run", str(motor), "--out", str(out), "--quiet"]) == 0
    data = np.load(out)
    assert list(data["names"][:2]) == ["sup", "V1.i"]
    assert data["data"].shape == (501, len(data["names"]))


def test_set_overrides_parameter(motor, tmp_path):
    out = tmp_path / "r.csv"
    assert cli.main(["run", str(motor), "--out", str(out), "--set", "k=0.08", "--quiet"]) == 0
    assert Result.from_csv(out)["w"][-1] == pytest.approx(steady_speed(k=0.08), rel=1e-4)
    assert cli.main(["run", str(motor), "--out", str(out), "--set", "B1.b=2e-5",
                     "--quiet"]) == 0
    assert Result.from_csv(out)["w"][-1] == pytest.approx(steady_speed(b=2e-5), rel=1e-4)


def test_step_sweep_writes_one_file_per_case(motor, tmp_path):
    motor.write_text(DCMOTOR + ".step b 1e-5 4e-5\n")
    out = tmp_path / "s.csv"
    assert cli.main(["run", str(motor), "--out", str(out), "--quiet"]) == 0
    for b in ("1e-5", "4e-5"):
        res = Result.from_csv(tmp_path / f"s_b={b}.csv")
        assert res["w"][-1] == pytest.approx(steady_speed(b=float(b)), rel=1e-4)


def test_all_studies(motor, tmp_path, capsys):
    motor.write_text(DCMOTOR + ".study weak k=0.04\n.study lossy B1.b=1e-4\n")
    out = tmp_path / "st.csv"
    assert cli.main(["run", str(motor), "--out", str(out), "--all-studies"]) == 0
    weak = Result.from_csv(tmp_path / "st_weak.csv")
    lossy = Result.from_csv(tmp_path / "st_lossy.csv")
    assert weak["w"][-1] == pytest.approx(steady_speed(k=0.04), rel=1e-3)   # 8 time constants
    assert lossy["w"][-1] == pytest.approx(steady_speed(b=1e-4), rel=1e-4)
    text = capsys.readouterr().out
    assert "weak" in text and "lossy" in text


def test_check_reports_counts(motor, capsys):
    assert cli.main(["check", str(motor)]) == 0
    out = capsys.readouterr().out
    # nodes sup, a, emf, w; states La.i, V1.i, Km.i
    assert "unknowns: 7 (2 differential, 5 algebraic); equations: 7" in out
    assert "electrical: 3 node potentials" in out
    assert "rotational: 1 node potentials" in out


def test_plot_unknown_variable_is_reported_before_the_run(motor, tmp_path, capsys):
    out = tmp_path / "r.csv"
    assert cli.main(["run", str(motor), "--plot", "omega", "--plot-file",
                     str(tmp_path / "p.png"), "--out", str(out)]) == 2
    captured = capsys.readouterr()
    assert "no recorded variable 'omega'" in captured.err and "Traceback" not in captured.err
    assert not out.exists() and "steps" not in captured.out        # nothing was run


def test_missing_file(tmp_path, capsys):
    assert cli.main(["run", str(tmp_path / "none.cir")]) == 2
    assert "file not found" in capsys.readouterr().err


def test_check_counts_each_subcircuit_instance(capsys):
    # library/dcmotor.lib: R, L, transformer, inertia, damper, friction; internal nodes
    # a and emf; own unknowns La.i (inductor flow) and Km.i (transformer flow)
    netlist = netlist_path("dcmotor_lib.cir")
    assert cli.main(["check", str(netlist)]) == 0
    out = capsys.readouterr().out
    assert "subcircuit instances: 1" in out
    assert ("M1 (dcmotor, line 7): 6 elements, 2 internal nodes + 2 element unknowns = "
            "4 unknowns, 4 equations") in out
