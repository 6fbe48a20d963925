"""Input errors that come from the command line are located there (``<command
line>:1:1`` and the argument), exit 2; text after ``.end`` is never read."""
import pytest

from circuitsim import cli

RC = """.title rc
V V1 in 0 V=1
R R1 in out R=1k
C C1 out 0 C=1u
.study slow C1.C=2u
.tran 1m
"""


@pytest.fixture
def rc(tmp_path):
    path = tmp_path / "rc.cir"
    path.write_text(RC)
    return path


def _located(argv, capsys, shown, *words):
    assert cli.main([str(a) for a in argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: <command line>:1:1: "), err
    assert f"\n    {shown}\n    ^" in err, err
    for word in words:
        assert word in err, err
    return err


def test_a_directory_as_the_netlist(tmp_path, capsys):
    (tmp_path / "dir.cir").mkdir()
    _located(["check", tmp_path / "dir.cir"], capsys, str(tmp_path / "dir.cir"),
             "Is a directory")


def test_a_variable_to_plot_that_is_not_recorded(rc, capsys):
    _located(["run", rc, "--plot", "nope0"], capsys, "--plot nope0",
             "no recorded variable 'nope0'")


def test_an_unknown_study(rc, capsys):
    err = _located(["run", rc, "--study", "slwo"], capsys, "--study slwo",
                   "has no such study (studies: slow)")
    assert err.rstrip().endswith("did you mean 'slow'?")


def test_bytes_after_end_are_not_read(tmp_path, capsys):
    net = tmp_path / "end.cir"
    net.write_bytes(RC.encode() + b".end\n\xff\xfe not text\n")
    assert cli.main(["check", str(net)]) == 0
    net.write_bytes(RC.encode() + b"\xff\n.end\n")
    assert cli.main(["check", str(net)]) == 2
    assert "end.cir:7:1: byte 0xff is not UTF-8" in capsys.readouterr().err
