"""Each case is elaborated once: the CLI and the API go netlist -> Case -> Result, and
the objects a user prints say something short and readable."""
import pytest

import circuitsim
from circuitsim import cli
from circuitsim.netlist import elaborate

from helpers import load_netlist

SWEPT = """.title Mass-spring-damper, swept
.param k=100 b=2
mass M v m=1 v0=1
spring K v 0 k={k}
damper D v 0 b={b}
.step b 1 2 3
.study stiff k=400
.tran 0.05 0.01
"""


@pytest.fixture
def builds(monkeypatch):
    """Counts the elaborations (elaborate.elaborate calls)."""
    count = {"n": 0}
    original = elaborate.elaborate

    def counted(*args, **kwargs):
        count["n"] += 1
        return original(*args, **kwargs)
    monkeypatch.setattr(elaborate, "elaborate", counted)
    return count


def test_cli_run_elaborates_each_case_once(tmp_path, builds, capsys):
    path = tmp_path / "swept.cir"
    path.write_text(SWEPT)
    code = cli.main(["run", str(path), "--all-studies", "--out", str(tmp_path / "r.csv"),
                     "--plot", "v", "--plot-file", str(tmp_path / "r.png"), "--quiet"])
    assert code == 0, capsys.readouterr().err
    assert builds["n"] == 6                     # 2 studies (base, stiff) x 3 .step cases
    assert len(list(tmp_path.glob("r_*b=*.csv"))) == 6


def test_api_simulate_sweep_and_check_elaborate_once_per_case(builds):
    net = circuitsim.parse(SWEPT.replace(".step b 1 2 3\n", ""))
    net.simulate()
    assert builds["n"] == 1
    net.check()
    assert builds["n"] == 2
    builds["n"] = 0
    results = circuitsim.parse(SWEPT).sweep(study="stiff")
    assert builds["n"] == 3 and len(results) == 3


def test_a_bad_later_case_stops_the_run_before_any_case_runs(tmp_path, capsys):
    """Every case is prepared before the first runs: the error of the third .step case
    comes before any result is written."""
    path = tmp_path / "bad.cir"
    path.write_text(SWEPT.replace(".step b 1 2 3", ".step b 1 2 -3"))
    assert cli.main(["run", str(path), "--out", str(tmp_path / "r.csv")]) == 2
    assert "must not be negative" in capsys.readouterr().err
    assert not list(tmp_path.glob("r*.csv"))


def test_printed_objects_are_short_summaries():
    net = load_netlist("fourbar.cir")
    report = net.check()
    res = net.simulate(t_end=0.01)
    for obj in (net, report, report.mobility, res):
        assert len(repr(obj)) < 200, repr(obj)
    assert "degrees of freedom: 1" in str(report)
    assert str(report).startswith(f"{net.source}: Four-bar linkage")
    assert repr(report.mobility) == ("<Mobility 3 bodies, 4 rigid joints, 20 rows, rank 17: "
                                     "1 degrees of freedom, 3 redundant rows>")
    assert res.mobility.dof == 1 and res.report is None and res.warnings
    assert set(res.diagnostics) >= {"energy", "gap_max", "forces"}
