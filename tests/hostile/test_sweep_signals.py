"""A sweep on worker processes stopped by a signal keeps what it computed: the running
cases stop at their next step and are written as partial results, the finished ones are
kept, the queued ones are named as not started, and no process is left behind. A worker
that dies is named as failed; workers whose parent dies exit."""
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from circuitsim.output.results import Result

from helpers import REPO

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="reads the process table from /proc (Linux)")

WAIT = 120          # seconds: generous bounds on conditions, never a fixed sleep
STOPPED_WITHIN = 20
# a 50 Hz RLC swept over f: the input's frequency sets the steps (a fixed number per
# period), so a case takes f times as long; 1000 s at 50 Hz is far longer than any test
SWEEP = """.param k=1e4 f=50
V V1 in 0 V=sin(0, 1, {f})
R R1 in a R=10
L L1 a b L=1m
C C1 b 0 C={1/k}
.tran 1000 1m
.step k 1e3 2e3 4e3 8e3
"""


def _stat(pid: int) -> list[str] | None:
    """/proc/<pid>/stat fields from the state on (field 3), or None if it has gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()


def _processes(where) -> list[int]:
    """The live processes whose stat fields satisfy ``where`` (zombies left out)."""
    found = []
    for entry in os.listdir("/proc"):
        fields = _stat(int(entry)) if entry.isdigit() else None
        if fields and fields[0] != "Z" and where(fields):
            found.append(int(entry))
    return found


def _workers(parent: int) -> list[int]:
    """The parent's children, oldest first (field 4: parent; 22: start time)."""
    children = _processes(lambda f: int(f[1]) == parent)
    return sorted(children, key=lambda pid: int((_stat(pid) or ["0"] * 20)[19]))


def _cpu_seconds(pid: int) -> float:
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") if fields else 0.0


def _until(condition, what: str, bound: float = WAIT):
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"not within {bound} s: {what}")


def _start(tmp_path, netlist: str):
    path = tmp_path / "sweep.cir"
    path.write_text(netlist)
    proc = subprocess.Popen([sys.executable, "-m", "circuitsim.cli", "run", str(path),
                             "--jobs", "2", "--out", str(tmp_path / "r.csv")], cwd=REPO,
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True,     # its own process group, to check
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    return proc


def _integrating(proc, count: int = 2) -> list[int]:
    """The parent's workers once ``count`` of them have computed for a while (the
    preparation of a case takes a small fraction of a second)."""
    def busy():
        pids = [pid for pid in _workers(proc.pid) if _cpu_seconds(pid) > 1.0]
        return pids if len(pids) >= count else None
    return _until(busy, f"{count} workers integrating")


def _group_is_gone(pgid: int) -> None:
    _until(lambda: not _processes(lambda f: int(f[2]) == pgid),
           "every process of the sweep ended", STOPPED_WITHIN)


def _finish(proc, act, timeout):
    """Do ``act()`` to the running sweep, then wait for it: (stdout, stderr); the process
    group is killed if it is still alive (the test failed), so nothing outlives it."""
    try:
        act()
        return proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.mark.parametrize("signum, to_group", [(signal.SIGTERM, False),
                                              (signal.SIGINT, True)])   # Ctrl-C: the group
def test_a_stopped_sweep_writes_the_running_cases_and_names_every_case(tmp_path, signum,
                                                                      to_group):
    proc = _start(tmp_path, SWEEP)
    signalled = []

    def stop():
        _integrating(proc)
        signalled.append(time.monotonic())
        (os.killpg if to_group else os.kill)(proc.pid, signum)

    _, err = _finish(proc, stop, STOPPED_WITHIN)
    assert proc.returncode == 3, err
    assert time.monotonic() - signalled[0] < STOPPED_WITHIN
    assert "Traceback" not in err
    assert ("cases finished and written: none; stopped, their results so far written: "
            "k=1e3, k=2e3; not started: k=4e3, k=8e3") in err.replace("k=2e3, k=1e3",
                                                                      "k=1e3, k=2e3")
    for k in ("1e3", "2e3"):
        res = Result.from_csv(tmp_path / f"r_k={k}.csv")
        assert len(res) > 10 and 0 < res.t[-1] < 1000
    assert not list(tmp_path.glob("r_k=[48]e3*"))
    _group_is_gone(proc.pid)


def test_a_killed_worker_fails_its_case_and_the_others_are_kept(tmp_path):
    # the first case is long (f = 500 kHz), the three others short (0.2 s at 50 Hz)
    proc = _start(tmp_path, SWEEP.replace(".tran 1000 1m", ".tran 0.2 1m")
                  .replace(".step k 1e3 2e3 4e3 8e3", ".step f 5e5 50 60 70"))

    def kill_the_first_worker():
        first = _until(lambda: [pid for pid in _workers(proc.pid)[:1]
                                if _cpu_seconds(pid) > 1.0], "the first case integrating")[0]
        os.kill(first, signal.SIGKILL)

    out, err = _finish(proc, kill_the_first_worker, WAIT)
    assert proc.returncode == 3, err
    assert "Traceback" not in err
    assert "E_WORKER_DIED" in err and "1 of 4 cases failed: f=5e5" in err
    assert sorted(line.split(":")[0] for line in out.splitlines()) == ["f=50", "f=60", "f=70"]
    assert sorted(p.name for p in tmp_path.glob("r_*.csv")) == [
        "r_f=50.csv", "r_f=60.csv", "r_f=70.csv"]
    _group_is_gone(proc.pid)


def test_workers_exit_when_their_parent_is_killed(tmp_path):
    proc = _start(tmp_path, SWEEP)
    try:
        _integrating(proc)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=WAIT)
        _group_is_gone(proc.pid)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
