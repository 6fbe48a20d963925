"""Sweeps on several processes or any executor give the serial results exactly; results
as pandas tables; a failed case is reported by name and the others are kept."""
import pickle
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import circuitsim
from circuitsim import cli
from circuitsim.output.results import Result, Sweep

from helpers import load_netlist

# an RLC driven at 50 Hz, swept over C: four cases of a fraction of a second each
SWEPT = """.title driven RLC
.param k=1e4 Rv=10
V V1 in 0 V=sin(0, 1, 50)
R R1 in a R={Rv}
L L1 a b L=1m
C C1 b 0 C={1/k}
.study damped Rv=40
.tran 0.2 1m
.step k 1e3 2e3 4e3 8e3
"""


@pytest.fixture(scope="module")
def serial():
    return circuitsim.parse(SWEPT, "rlc.cir").sweep()


def test_processes_give_the_serial_results_exactly(serial):
    parallel = circuitsim.parse(SWEPT, "rlc.cir").sweep(jobs=2)
    assert isinstance(parallel, Sweep) and list(parallel) == list(serial)
    for name in serial:
        assert np.array_equal(parallel[name].data, serial[name].data)
        assert np.array_equal(parallel[name].t, serial[name].t)
        assert parallel[name].stats["nsteps"] == serial[name].stats["nsteps"]
    assert serial["k=2e3"].parameters == {"k": 2000.0}


def test_any_executor_gives_the_serial_results(serial):
    finished = []
    with ThreadPoolExecutor(max_workers=2) as executor:
        threaded = circuitsim.parse(SWEPT, "rlc.cir").sweep(
            executor=executor, on_case=lambda outcome: finished.append(outcome.name))
    assert sorted(finished) == sorted(serial)
    assert all(np.array_equal(threaded[name].data, serial[name].data) for name in serial)


def test_a_dask_cluster_runs_the_sweep_through_its_executor(serial):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = circuitsim.parse(SWEPT, "rlc.cir").sweep(executor=client.get_executor())
    assert all(np.array_equal(remote[name].data, serial[name].data) for name in serial)


def test_command_line_jobs_write_the_serial_files_byte_for_byte(tmp_path, capsys):
    netlist = tmp_path / "rlc.cir"
    netlist.write_text(SWEPT)
    for jobs in ("1", "2"):
        assert cli.main(["run", str(netlist), "--out", str(tmp_path / f"j{jobs}.csv"),
                         "--jobs", jobs]) == 0
    out = capsys.readouterr().out
    assert sum(line.startswith("k=") for line in out.splitlines()) == 8    # one per case
    for k in ("1e3", "2e3", "4e3", "8e3"):
        assert (tmp_path / f"j1_k={k}.csv").read_bytes() == \
            (tmp_path / f"j2_k={k}.csv").read_bytes()


def test_all_studies_run_in_parallel_and_are_compared(tmp_path, capsys):
    netlist = tmp_path / "rlc.cir"
    netlist.write_text(SWEPT.replace(".step k 1e3 2e3 4e3 8e3\n", ""))
    assert cli.main(["run", str(netlist), "--all-studies", "--jobs", "0", "--out",
                     str(tmp_path / "s.csv"), "--quiet"]) == 0
    rows = (tmp_path / "s_studies.csv").read_text().splitlines()
    assert [row.split(",")[0] for row in rows[1:]] == ["base", "damped"]


def test_a_failed_case_is_named_and_the_others_are_kept(tmp_path, capsys):
    """sqrt(v(a) + 0.5) leaves its domain when the source 1 - amp·t falls below -0.5 V,
    at t = 1.5/amp: within the 2 s run only for amp = 0.9 (t = 1.67 s)."""
    text = (".param amp=1\nV V1 a 0 V={1 - amp*time}\nB B1 a 0 I={sqrt(v(a) + 0.5)}\n"
            "R R1 a 0 R=1\n.tran 2 10m\n.step amp 0.2 0.9 0.3\n")
    sweep = circuitsim.parse(text, "sq.cir").sweep(jobs=2)
    assert [res.status for res in sweep.values()] == ["success", "failed", "success"]
    failed = sweep["amp=0.9"]
    assert "E_SINGULAR: B1 factor (a + 0.5)" in failed.message and 1.6 < failed.t[-1] < 1.67
    netlist = tmp_path / "sq.cir"
    netlist.write_text(text)
    code = cli.main(["run", str(netlist), "--jobs", "2", "--out", str(tmp_path / "r.csv")])
    err = capsys.readouterr().err
    assert code == 3
    assert "error: 1 of 3 cases failed: amp=0.9; the others are written" in err
    assert (tmp_path / "r_amp=0.2.csv").is_file() and (tmp_path / "r_amp=0.3.csv").is_file()
    assert len(Result.from_csv(tmp_path / "r_amp=0.9.csv")) > 10      # partial results


def test_bad_jobs_values_and_stream_are_said(tmp_path, capsys):
    netlist = tmp_path / "rlc.cir"
    netlist.write_text(SWEPT)
    assert cli.main(["run", str(netlist), "--jobs", "-1"]) == 2
    assert cli.main(["run", str(netlist), "--jobs", "2", "--stream"]) == 2
    err = capsys.readouterr().err
    assert "--jobs must be 0 (one per core) or positive, got -1" in err
    assert "--stream writes one case at a time; drop --jobs or --stream" in err


# --- tables ------------------------------------------------------------------------------
def test_a_result_as_a_dataframe_is_its_data(serial):
    pytest.importorskip("pandas")
    res = serial["k=4e3"]
    frame = res.to_pandas()
    assert frame.index.name == "time" and np.array_equal(frame.index.to_numpy(), res.t)
    assert list(frame.columns) == res.names
    assert np.array_equal(frame.to_numpy(), res.data)
    assert frame.attrs["units"]["C1.E"] == "J" and frame.attrs["units"]["a"] == "V"


def test_a_sweep_as_one_long_table(serial):
    pytest.importorskip("pandas")
    table = serial.to_pandas()
    assert list(table.columns[:3]) == ["case", "k", "time"]
    assert len(table) == sum(len(res) for res in serial.values())
    part = table[table["case"] == "k=8e3"]
    assert (part["k"] == 8000.0).all()
    assert np.array_equal(part["b"].to_numpy(), serial["k=8e3"]["b"])
    studies = circuitsim.parse(SWEPT, "rlc.cir").sweep(study="damped").to_pandas()
    assert list(studies.columns[:4]) == ["case", "study", "k", "time"]
    assert (studies["study"] == "damped").all()


def test_results_of_a_mechanism_with_redundant_rows_pickle():
    """The mobility analysis travels with the Result (a parallel sweep sends it back):
    its redundant rows keep their names and warnings, not the run's element groups."""
    res = load_netlist("fourbar.cir").simulate(t_end=0.01)
    assert res.mobility.redundant
    again = pickle.loads(pickle.dumps(res))
    assert again.mobility.summary() == res.mobility.summary()
    assert again.mobility.redundancy_warnings() == res.mobility.redundancy_warnings()


def test_results_pickle():
    res = circuitsim.parse(SWEPT.replace(".step k 1e3 2e3 4e3 8e3\n", ""), "r.cir").simulate(
        report=True)
    again = pickle.loads(pickle.dumps(res))
    assert np.array_equal(again.data, res.data) and again.names == res.names
    assert again.report.text() == res.report.text() and again.units == res.units
