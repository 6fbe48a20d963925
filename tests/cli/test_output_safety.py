"""The command line writes only its outputs: never a device, a pipe, a directory or an
input file; every case its own file; option values that no run can use refused (exit 2,
located at the command line) before anything runs."""
import os
import stat

import pytest

from circuitsim import cli
from circuitsim.errors import CircuitsimError
from circuitsim.output.files import replaced

RC = """.title rc
.param k=1
V V1 in 0 V={k}
R R1 in out R=1k
C C1 out 0 C=1u
.tran 0.01 1m
"""


@pytest.fixture
def rc(tmp_path):
    path = tmp_path / "rc.cir"
    path.write_text(RC)
    return path


def refused(argv, capsys, *words):
    """The command exits 2 with one located message naming ``words``."""
    assert cli.main([str(a) for a in argv]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.startswith("error: "), err
    for word in words:
        assert word in err, err
    return err


def test_dev_null_is_refused_and_left_alone(rc, capsys):
    before = os.stat("/dev/null")
    for option in ("--out", "--animate"):
        refused(["run", rc, option, "/dev/null"], capsys, "<command line>", option,
                "not a regular file")
    refused(["op", rc, "--out", "/dev/null"], capsys, "not a regular file")
    refused(["run", rc, "--plot", "out", "--plot-file", "/dev/null"], capsys, "--plot-file")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="a character device is made only as root")
def test_a_character_device_keeps_its_node(rc, tmp_path, capsys):
    device = tmp_path / "null"
    os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    refused(["run", rc, "--out", device], capsys, "not a regular file")
    assert stat.S_ISCHR(os.stat(device).st_mode)


def test_a_fifo_and_a_directory_are_refused(rc, tmp_path, capsys):
    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    refused(["run", rc, "--out", fifo], capsys, "not a regular file")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    refused(["op", rc, "--out", tmp_path], capsys, "is a directory")
    png = tmp_path / "pipe.png"
    os.mkfifo(png)
    refused(["run", rc, "--plot", "out", "--plot-file", png], capsys, "--plot-file",
            "not a regular file")


def test_replaced_refuses_what_is_not_a_regular_file(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(CircuitsimError, match="not a regular file"):
        with replaced(fifo):
            pass
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert os.listdir(tmp_path) == ["pipe"]


def test_the_netlist_and_its_includes_are_never_overwritten(tmp_path, capsys):
    (tmp_path / "parts.inc").write_text("R R2 out 0 R=1k\n")
    top = tmp_path / "top.cir"
    top.write_text(RC + ".include parts.inc\n")
    text = top.read_text()
    for argv in (["run", top, "--out", top], ["run", top, "--animate", top],
                 ["op", top, "--out", top], ["run", top, "--out", tmp_path / "parts.inc"],
                 ["linearize", top, "--out", top]):
        refused(argv, capsys, "is the input file")
    assert top.read_text() == text
    assert (tmp_path / "parts.inc").read_text() == "R R2 out 0 R=1k\n"
    link = tmp_path / "link.cir"
    link.symlink_to(top)
    refused(["run", top, "--out", link], capsys, "is the input file")


def test_step_cases_named_alike_get_their_own_files(tmp_path, capsys):
    net = tmp_path / "st.cir"
    net.write_text(RC + ".step k {1+2} {1*2}\n")
    assert cli.main(["run", str(net), "--out", str(tmp_path / "r.csv")]) == 0
    written = sorted(p.name for p in tmp_path.glob("r_*.csv"))
    assert written == ["r_k=_1_2_.csv", "r_k=_1_2__2.csv"]
    assert "r_k=_1_2__2.csv" in capsys.readouterr().out     # the summary names it


@pytest.mark.parametrize("name", ["base", "studies"])
def test_reserved_study_names_are_refused(tmp_path, capsys, name):
    net = tmp_path / "sb.cir"
    net.write_text(RC + f".study {name} k=2\n")
    err = refused(["run", net, "--all-studies", "--out", tmp_path / "r.csv"], capsys,
                  f"sb.cir:7:1: .study {name}", "rename the study")
    assert "^" in err
    refused(["check", net], capsys, f".study {name}")
    assert not list(tmp_path.glob("r*.csv"))


def test_a_repeated_probe_is_a_located_error(tmp_path, capsys):
    net = tmp_path / "pb.cir"
    net.write_text(RC + ".probe in out in\n")
    refused(["run", net, "--out", tmp_path / "p.csv"], capsys, "pb.cir:7:15",
            "'in' is listed twice")


def test_a_node_named_like_an_element_value_is_a_located_error(tmp_path, capsys):
    net = tmp_path / "nd.cir"
    net.write_text(RC.replace("out", "R1.i"))
    refused(["run", net, "--out", tmp_path / "p.csv"], capsys, "nd.cir:4:1",
            "two variables are named 'R1.i'")
    assert not (tmp_path / "p.csv").exists()


@pytest.mark.parametrize("argv, option", [
    (["run", "--plot", "out", "--plot-file", "s.txt"], "--plot-file s.txt"),
    (["linearize", "--at", "-1"], "--at -1"),
    (["linearize", "--at", "nan"], "--at nan"),
    (["op", "--time", "nan"], "--time nan"),
    (["op", "--time", "inf"], "--time inf"),
    (["run", "--max-elements", "0"], "--max-elements 0"),
    (["run", "--out", ""], "--out ''"),
    (["op", "--out", ""], "--out ''"),
    (["run", "--animate", ""], "--animate ''"),
    (["run", "--set", "k=1;touch x"], "k=1;touch x"),     # ';' would start a comment
    (["run", "--set", "k=1 R1.R=2"], "has more than its value"),
    (["check", "--set", "k={1;2}"], "unclosed '{'"),
])
def test_unusable_option_values_are_refused_before_the_run(rc, tmp_path, capsys,
                                                           monkeypatch, argv, option):
    monkeypatch.chdir(tmp_path)
    refused([argv[0], rc, *argv[1:]], capsys, "<command line>:1:1", option)
    assert sorted(os.listdir(tmp_path)) == ["rc.cir"]


def test_a_repeated_step_value_is_a_located_error(tmp_path, capsys):
    net = tmp_path / "st.cir"
    net.write_text(RC + ".step k 1 1\n")
    for argv in (["run", net, "--out", tmp_path / "r.csv"], ["check", net]):
        refused(argv, capsys, "st.cir:7:7", "two cases are named 'k=1'")
    assert not list(tmp_path.glob("r*.csv"))
