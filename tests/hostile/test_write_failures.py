"""A write that fails after the run (a full or read-only file system) keeps the
results: written to the temporary directory instead, the place named, exit 3, and never
a truncated file under the name asked for. The file system is made full by making its
writes fail with ENOSPC, as a full disk does."""
import errno
import os
import tempfile
from pathlib import Path

import numpy as np
import pytest

from circuitsim import cli
from circuitsim.output import files as files_mod
from circuitsim.output.results import Result, StreamWriter

RC = """.title rc
V V1 in 0 V=sin(0, 1, 50)
R R1 in out R=1k
C C1 out 0 C=1u
.tran 0.02 0.1m
.study slow C1.C=2u
"""
FULL = OSError(errno.ENOSPC, "No space left on device")


@pytest.fixture
def disks(tmp_path, monkeypatch):
    """(netlist, a folder whose file system is full, the temporary directory)."""
    full, spare = tmp_path / "full", tmp_path / "spare"
    full.mkdir()
    spare.mkdir()
    netlist = tmp_path / "rc.cir"
    netlist.write_text(RC)
    monkeypatch.setattr(tempfile, "gettempdir", lambda: str(spare))
    real_replace = os.replace

    def replace(src, dst):
        if Path(dst).parent == full:
            raise FULL
        return real_replace(src, dst)
    monkeypatch.setattr(files_mod.os, "replace", replace)
    return netlist, full, spare


def _reference(netlist, tmp_path):
    assert cli.main(["run", str(netlist), "--out", str(tmp_path / "ok.csv"), "--quiet"]) == 0
    return Result.from_csv(tmp_path / "ok.csv")


def test_a_full_disk_at_the_end_keeps_the_results_elsewhere(disks, tmp_path, capsys):
    netlist, full, spare = disks
    reference = _reference(netlist, tmp_path)
    capsys.readouterr()
    assert cli.main(["run", str(netlist), "--out", str(full / "r.csv")]) == 3
    err = capsys.readouterr().err
    kept, = spare.glob("r.*.csv")
    assert "E_WRITE" in err and "No space left on device" in err and str(kept) in err
    assert "Traceback" not in err
    assert os.listdir(full) == []
    again = Result.from_csv(kept)
    assert again.names == reference.names
    np.testing.assert_array_equal(again.data, reference.data)


def test_a_stream_onto_a_full_disk_leaves_no_truncated_file(disks, tmp_path, capsys,
                                                           monkeypatch):
    """--stream: the disk fills after the first rows; the run goes on, the truncated
    part file is removed, nothing appears under the final name, every point is kept."""
    netlist, full, spare = disks
    reference = _reference(netlist, tmp_path)
    capsys.readouterr()
    real_init = StreamWriter.__init__

    def filling(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        self.fh = _FillsUp(self.fh, room=3000)
    monkeypatch.setattr(StreamWriter, "__init__", filling)
    monkeypatch.setattr(StreamWriter, "FLUSH_POINTS", 20)
    assert cli.main(["run", str(netlist), "--out", str(full / "r.csv"), "--stream"]) == 3
    err = capsys.readouterr().err
    kept, = spare.glob("r.*.csv")
    assert "E_WRITE" in err and ".part: No space left on device" in err and str(kept) in err
    assert os.listdir(full) == []
    np.testing.assert_array_equal(Result.from_csv(kept).data, reference.data)


def test_a_full_disk_stops_a_run_of_several_cases(disks, tmp_path, capsys):
    """The first case is kept elsewhere and the run stops: exit 3, the case not run
    named."""
    netlist, full, spare = disks
    assert cli.main(["run", str(netlist), "--all-studies", "--out",
                     str(full / "r.csv")]) == 3
    err = capsys.readouterr().err
    assert err.count("E_WRITE") == 1 and str(spare) in err and "not run: slow" in err
    assert sorted(p.name.split(".")[0] for p in spare.iterdir()) == ["r_base"]


class _FillsUp:
    """A text file on a disk with ``room`` characters left."""

    def __init__(self, fh, room: int):
        self.fh, self.room = fh, room

    def write(self, text: str) -> int:
        if len(text) > self.room:
            self.fh.write(text[:self.room])
            self.room = 0
            raise FULL
        self.room -= len(text)
        return self.fh.write(text)

    def __getattr__(self, name):
        return getattr(self.fh, name)


def test_the_comparison_table_is_kept_elsewhere_too(disks, tmp_path, capsys, monkeypatch):
    """The cases are written; the comparison CSV cannot be: kept in the temporary
    directory, exit 3."""
    netlist, full, spare = disks
    real = files_mod.replaced

    def comparison_fails(path):
        if Path(path).name.endswith("_studies.csv") and Path(path).parent == tmp_path:
            raise files_mod.CircuitsimError(f"cannot write {path}: No space left on device")
        return real(path)
    monkeypatch.setattr(files_mod, "replaced", comparison_fails)
    out = tmp_path / "r.csv"
    assert cli.main(["run", str(netlist), "--all-studies", "--out", str(out)]) == 3
    err = capsys.readouterr().err
    kept, = spare.glob("r_studies.*.csv")
    assert "E_WRITE" in err and str(kept) in err
    assert (tmp_path / "r_base.csv").exists() and (tmp_path / "r_slow.csv").exists()


@pytest.mark.parametrize("command, name, what", [("op", "op.csv", "values"),
                                                 ("linearize", "lin.npz", "matrices")])
def test_an_analysis_onto_a_full_disk_is_kept_elsewhere(disks, capsys, command, name, what):
    """op and linearize print their result, then write --out: kept in the temporary
    directory, exit 3 (not 2: the input was good)."""
    netlist, full, spare = disks
    assert cli.main([command, str(netlist), "--out", str(full / name)]) == 3
    err = capsys.readouterr().err
    kept, = spare.glob(name.replace(".", ".*."))
    assert f"E_WRITE: cannot write {full / name}: No space left on device" in err
    assert f"the {what} were written to {kept} instead" in err
    assert os.listdir(full) == []
