"""Nothing lost, failures named (issue 5): streamed results, Ctrl-C, elements named on
evaluation failures, singular Newton matrices named as unknowns and equations."""
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import circuitsim
from circuitsim import cli
from circuitsim.errors import ConvergenceError, InconsistentInitialConditions, SingularInput
from circuitsim.output.results import Result

from helpers import REPO, netlist_path

FOURBAR, RLC = str(netlist_path("fourbar.cir")), str(netlist_path("rlc.cir"))


def test_streamed_csv_equals_the_csv_written_at_the_end(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    assert cli.main(["run", FOURBAR, "--quiet", "--out", str(a)]) == 0
    assert cli.main(["run", FOURBAR, "--quiet", "--stream",
                     "--out", str(b)]) == 0
    assert a.read_text() == b.read_text()


def test_stream_needs_csv(tmp_path, capsys):
    code = cli.main(["run", RLC, "--stream", "--out", str(tmp_path / "r.npz")])
    assert code == 2
    assert "--stream writes CSV" in capsys.readouterr().err


def test_solver_failure_while_streaming_keeps_the_rows_up_to_the_failure(tmp_path, capsys):
    path = tmp_path / "blowup.cir"
    path.write_text("B B1 0 a I={1/(0.5-time)^2}\nC C1 a 0 C=1\nR R1 a 0 R=1k\n.tran 1 1m\n")
    out = tmp_path / "r.csv"
    assert cli.main(["run", str(path), "--stream", "--out", str(out)]) == 3
    err = capsys.readouterr().err
    assert f"written to {out}" in err
    res = Result.from_csv(out)
    assert 0.49 < res.t[-1] < 0.5 and len(res) == int(round(res.t[-1] / 1e-3)) + 1


def _no_sigint_ignore():
    signal.signal(signal.SIGINT, signal.SIG_DFL)     # a background shell ignores SIGINT


def test_ctrl_c_leaves_a_readable_results_file(tmp_path):
    netlist = tmp_path / "long.cir"
    # a 1 kHz sine for 1000 s: some 4e7 steps, far longer than the test waits
    netlist.write_text("V V1 in 0 V=sin(0, 1, 1k)\nR R1 in a R=10\nC C1 a 0 C=10u\n.tran 1000\n")
    out = tmp_path / "long.csv"
    proc = subprocess.Popen([sys.executable, "-m", "circuitsim.cli", "run", str(netlist),
                             "--stream", "--out", str(out)], cwd=REPO, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            preexec_fn=_no_sigint_ignore)
    # while the run goes the rows are in long.csv.<pid>.part, renamed at the end
    part = tmp_path / f"long.csv.{proc.pid}.part"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not part.exists() or part.stat().st_size < 20000):
        time.sleep(0.2)
    assert not out.exists()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, err
    assert "E_INTERRUPTED" in err and f"written to {out}" in err
    assert "Traceback" not in err
    assert not part.exists()
    res = Result.from_csv(out)
    assert len(res) > 100 and 0 < res.t[-1] < 1000
    t_stop = float(err.split("results up to t = ")[1].split()[0])
    assert res.t[-1] == pytest.approx(t_stop, rel=1e-5)
    # the streamed capacitor voltage is the RC response to the sine (a sanity check of
    # the content, not only the format): |v| stays below the source amplitude
    assert np.all(np.abs(res["a"]) <= 1.0)


def test_an_element_evaluated_outside_its_domain_is_named():
    """(v(a) + 0.5)^time with v(a) ramped from 1 to -1: at t = 0.75 s the element leaves
    its domain (a negative base to a power that is not an integer; a power of time is
    not watched as sqrt is, test_singular_inputs.py); the step is cut, then the failure
    names B1 and its line."""
    net = circuitsim.parse("V V1 a 0 V=pwl(0, 1, 1, -1)\nB B1 a 0 I={(v(a) + 0.5)^time}\n"
                           "R R1 a 0 R=1\n.tran 2 10m\n", "sq.cir")
    with pytest.raises(ConvergenceError) as err:
        net.simulate()
    assert "evaluating B B1 at sq.cir:2:1" in str(err.value)
    partial = err.value.partial
    assert 0.7 <= partial.t[-1] <= 0.76                   # nothing lost up to there
    assert partial["a"][-1] == pytest.approx(1 - 2 * partial.t[-1], abs=1e-9)


def test_a_watched_domain_edge_stops_at_its_instant():
    """sqrt(v(a) + 0.5): the edge of sqrt's domain is located (E_SINGULAR at 0.75 s)."""
    net = circuitsim.parse("V V1 a 0 V=pwl(0, 1, 1, -1)\nB B1 a 0 I={sqrt(v(a) + 0.5)}\n"
                           "R R1 a 0 R=1\n.tran 2 10m\n", "sq.cir")
    with pytest.raises(SingularInput) as err:
        net.simulate()
    assert err.value.t == pytest.approx(0.75, abs=1e-9)
    assert "B1 factor (a + 0.5)" in str(err.value)
    partial = err.value.partial
    assert 0.7 <= partial.t[-1] < 0.75
    assert partial["a"][-1] == pytest.approx(1 - 2 * partial.t[-1], abs=1e-9)


def test_a_singular_newton_matrix_names_unknowns_and_equations():
    """A negative conductance cancelling R1 leaves node a undetermined (numerically, not
    structurally: the structural check passes)."""
    net = circuitsim.parse("I I1 0 a I=1\nR R1 a 0 R=1\nB B1 a 0 I={-v(a)}\n.tran 1\n")
    with pytest.raises(InconsistentInitialConditions) as err:
        net.simulate()
    message = str(err.value)
    assert message.startswith("E_INIT: no consistent initial values: the Newton matrix is "
                              "singular: 1 direction(s) undetermined")
    assert "unknowns a, B1.i" in message
    assert "equations flow balance of node a, equation of B B1 (i)" in message


def test_an_unattached_body_is_a_warning(capsys, tmp_path):
    path = tmp_path / "free.cir"
    path.write_text(".gravity 0 0 -9.81\nbody B m=1 J=(1, 1, 1)\n"
                    "body S m=1 J=(1, 1, 1) w=(0, 0, 5)\n.tran 0.1\n")
    assert cli.main(["run", str(path), "--quiet"]) == 0
    err = capsys.readouterr().err
    assert f"warning: {path}:2:1: body B is attached to nothing" in err
    assert "body S" not in err                  # given an initial motion: on purpose


def test_error_inside_a_library_model_points_at_the_users_instance(tmp_path, capsys):
    path = tmp_path / "cyl.cir"
    path.write_text(".lib hydraulics\npump P1 pa Q=1e-4\ntank T1 pb\n"
                    "cylinder C1 pa pb rod stroke=-0.1\n.tran 1\n")
    assert cli.main(["run", str(path)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == f"error: {path}:4:1: stop C1.stops: lower (0) must be below upper (-0.1)"
    assert err[1].strip() == "cylinder C1 pa pb rod stroke=-0.1"
    assert err[3].startswith("in cylinder C1; the definition's line is ")
    assert re.search(r"hydraulics\.lib:\d+:1: stop stops rod 0 lower=0", err[3])
