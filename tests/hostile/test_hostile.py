"""Hostile input and faults: each class fails fast with one located message (exit 2) or
runs correctly where the input is valid; no traceback, hang or unbounded memory; nothing
is lost on SIGTERM or to a concurrent writer. The inputs are generated here (a 1 MB line,
2^40 elements, bytes that are not UTF-8) rather than stored."""
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import circuitsim
from circuitsim import cli
from circuitsim.output.results import Result

from helpers import REPO

FAST = 5.0      # s: "fails fast" (the refusals below take well under a second)


def run_cli(tmp_path, capsys, text, *args, name="h.cir", data=None):
    """(exit code, stderr with the netlist's path as {file}, seconds)."""
    path = tmp_path / name
    if data is not None:
        path.write_bytes(data)
    else:
        path.write_text(text, encoding="utf-8")
    start = time.monotonic()
    code = cli.main(["run", str(path), "--out", str(tmp_path / "out.csv"), *args])
    elapsed = time.monotonic() - start
    err = capsys.readouterr().err.replace(str(path), "{file}")
    assert "Traceback" not in err
    return code, err, elapsed


def first_error(err: str) -> str:
    return next(line for line in err.splitlines() if line.startswith("error:"))


# --- numbers --------------------------------------------------------------------------------
OVERFLOW = "the number overflows to infinity; values are limited to ±1e100"


@pytest.mark.parametrize("text, expected", [
    ("V V1 a 0 V=1\nR R1 a 0 R=1e999\n.tran 1\n", f"{{file}}:2:12: R R1: R: {OVERFLOW}"),
    ("body B m=1e999 J=(1,1,1)\n.tran 1\n", f"{{file}}:1:10: body B: m: {OVERFLOW}"),
    ("V V1 a 0 V=1\nR R1 a 0 R=1\n.tran 1e999\n", f"{{file}}:3:7: .tran tstop: {OVERFLOW}"),
    ("body B m=1 J=(1e-3, 1e999, 3e-3)\n.tran 1\n", f"{{file}}:1:21: body B: J: {OVERFLOW}"),
    ("V V1 a 0 V=1\nR R1 a 0 R=1\n.options rtol=1e999\n.tran 1\n",
     f"{{file}}:3:15: rtol: {OVERFLOW}"),
    (".param cx=1e300\nV V1 a 0 V=1\nR R1 a 0 R={cx}\n.tran 1\n",
     "{file}:1:11: parameter cx: 1e+300 is too large; values are limited to ±1e100"),
    ("V V1 a 0 V=1\nR R1 a 0 R={1e200*1e200}\n.tran 1\n",
     "{file}:2:13: 1e+200 is too large; values are limited to ±1e100"),
    ("V V1 a 0 V=1\nR R1 a 0 R={1e80*1e80}\n.tran 1\n",
     "{file}:2:12: R R1: R: the expression {1e80*1e80}: 1e+160 is too large; values are "
     "limited to ±1e100"),
    ("V V1 a 0 V=1\nR R1 a 0 R=1\n.options rtol=2\n.tran 1\n",
     "{file}:3:15: option rtol is a relative tolerance below 1 (1e-6 is the default); got 2"),
])
def test_numbers_are_checked_where_they_are_read(tmp_path, capsys, text, expected):
    code, err, elapsed = run_cli(tmp_path, capsys, text)
    assert code == 2 and first_error(err) == "error: " + expected
    assert elapsed < FAST


def test_absurd_coordinates_are_an_input_error_not_a_crash(tmp_path, capsys):
    text = (REPO / "netlists" / "fourbar.cir").read_text().replace("cx=0.2987219", "cx=1e50")
    code, err, _ = run_cli(tmp_path, capsys, text)
    assert code == 2
    assert "the mechanism cannot be assembled at t = 0" in first_error(err)


def test_subnormal_values_run():
    res = circuitsim.parse("V V1 a 0 V=1\nR R1 a 0 R=1\nC C1 a 0 C=1e-320\n.tran 1e-3\n"
                           ).simulate()
    assert res["a"][-1] == 1.0


# --- sizes -------------------------------------------------------------------------------
def test_exponential_subcircuits_are_refused_before_expansion(tmp_path, capsys):
    """40 levels, each instantiating the next twice: 2 KB of text, 2^40 elements."""
    lines = []
    for i in range(40):
        lines += [f".subckt s{i} a b", f"s{i + 1} X1 a m", f"s{i + 1} X2 m b", ".ends"]
    lines += [".subckt s40 a b", "R R1 a b R=1", ".ends", "s0 X0 a 0", "V V1 a 0 V=1",
              ".tran 1"]
    code, err, elapsed = run_cli(tmp_path, capsys, "\n".join(lines) + "\n")
    assert code == 2 and elapsed < FAST
    assert first_error(err) == (
        "error: {file}:164:1: the netlist expands to 1.1e+12 elements; subcircuit instance "
        "X0 (s0) alone expands to 1.1e+12; the limit is 1,000,000 (raise it with --max-elements "
        "or CIRCUITSIM_MAX_ELEMENTS)")


def test_the_element_cap_is_configurable(tmp_path, capsys):
    text = "".join(f"R R{i} a 0 R=1\n" for i in range(20)) + "V V1 a 0 V=1\n.tran 1\n"
    code, err, _ = run_cli(tmp_path, capsys, text, "--max-elements", "10")
    assert code == 2 and first_error(err) == (
        "error: {file}:11:1: the netlist has more than 10 element lines, the limit on "
        "elements (raise it with --max-elements or CIRCUITSIM_MAX_ELEMENTS)")
    code, _, _ = run_cli(tmp_path, capsys, text, "--max-elements", "100")
    assert code == 0
    sub = ".subckt two a\nR R1 a 0 R=1\nR R2 a 0 R=1\n.ends\n"      # counted expanded
    code, err, _ = run_cli(tmp_path, capsys, sub + "".join(f"two X{i} a\n" for i in range(8))
                           + "V V1 a 0 V=1\n.tran 1\n", "--max-elements", "12")
    assert code == 2 and "the netlist expands to 17 elements; subcircuit instance" in err


def test_a_flat_netlist_over_the_cap_is_refused_before_it_is_parsed(tmp_path, capsys):
    """1,000,010 resistor lines (30 MB): refused at the line past the cap in about a
    second and 150 MB (parsed first, it took 40 s and 1.8 GB)."""
    text = "V V1 n0 0 V=1\n" + "".join(f"R R{i} n{i} n{i + 1} R=1\n"
                                        for i in range(1_000_010)) + ".tran 1\n"
    code, err, elapsed = run_cli(tmp_path, capsys, text)
    assert code == 2 and elapsed < FAST
    assert first_error(err).startswith("error: {file}:1000001:1: the netlist has more "
                                       "than 1,000,000 element lines")


def test_a_sweep_of_too_many_cases_is_refused(tmp_path, capsys):
    values = " ".join(str(v) for v in range(1, 101))
    text = (".param a=1 b=1 c=1\nV V1 x 0 V={a}\nR R1 x 0 R={b*c}\n.tran 1\n"
            f".step a {values}\n.step b {values}\n.step c {values}\n")
    code, err, elapsed = run_cli(tmp_path, capsys, text)
    assert code == 2 and elapsed < FAST
    assert first_error(err).startswith("error: {file}:5:7: the .step lines make 1e+06 cases")


def test_a_step_line_too_long_to_run_is_refused_before_it_is_parsed(tmp_path, capsys):
    """2e6 values (14 MB) on one line, half of them on '+' lines: refused in well under
    a second (parsed, the line took about 30 s)."""
    half = " ".join(str(v) for v in range(1_000_000))
    text = (".param a=1\nV V1 x 0 V={a}\nR R1 x 0 R=1\n.tran 1\n"
            f".step a {half}\n+ {half}\n")
    code, err, elapsed = run_cli(tmp_path, capsys, text)
    assert code == 2 and elapsed < FAST
    assert first_error(err) == ("error: {file}:5:1: this .step line lists 2000000 values; "
                                "at most 10000 cases run from one netlist (sweep in parts, "
                                "or drive the cases from Python with Netlist.simulate)")


def test_an_expression_too_long_to_parse_in_time_is_refused(tmp_path, capsys):
    """2.5e6 terms (5 MB): refused at its brace at once (parsed: about 75 s)."""
    terms = "+".join(["1"] * 2_500_000)
    code, err, elapsed = run_cli(tmp_path, capsys, ".param k={" + terms + "}\n"
                                 "V V1 x 0 V={k}\nR R1 x 0 R=1\n.tran 1\n")
    assert code == 2 and elapsed < FAST
    assert first_error(err) == ("error: {file}:1:10: this expression is 4999999 characters "
                                "long; the limit is 100000 (a table of values reads as a "
                                "pwl(...))")


@pytest.mark.parametrize("tstep", ["1e-9", "1e-8"])
def test_output_grids_that_cannot_be_held_are_refused(tmp_path, capsys, tstep):
    code, err, elapsed = run_cli(tmp_path, capsys,
                                 f"V V1 a 0 V=1\nR R1 a 0 R=1\n.tran 1 {tstep}\n")
    assert code == 2 and elapsed < FAST
    assert first_error(err).startswith(
        f"error: {{file}}:3:9: .tran: output every {float(tstep):.3g} s")
    assert "give a larger tstep, or .probe fewer variables" in err


def test_check_refuses_what_run_refuses(tmp_path, capsys):
    path = tmp_path / "grid.cir"
    path.write_text("V V1 a 0 V=1\nR R1 a 0 R=1\n.tran 1 1e-9\n")
    assert cli.main(["check", str(path)]) == 2
    assert ".tran: output every" in capsys.readouterr().err


class _Stop(Exception):
    pass


def test_an_input_too_fast_for_the_run_is_warned(tmp_path):
    path = tmp_path / "fast.cir"
    path.write_text("V V1 a 0 V=sin(0, 1, 1e12)\nR R1 a b R=1\nC C1 b 0 C=1u\n.tran 1\n")
    warned = []

    def stop_before_the_run(start):
        warned.extend(start.warnings)
        raise _Stop
    with pytest.raises(_Stop):
        circuitsim.load(path).simulate(on_start=stop_before_the_run)
    assert [message for message, _ in warned] == [
        "V V1: V varies on a time scale of 1e-12 s; resolving it up to 1 s takes at least "
        "4e+13 steps (Ctrl-C keeps the results so far)"]
    assert str(warned[0][1]) == f"{path}:1:10"


def test_a_run_recording_every_step_stops_before_memory_runs_out(monkeypatch):
    """Without output times every step is recorded: the count is bounded, and the
    points recorded so far are kept."""
    from circuitsim.solver import recording
    monkeypatch.setattr(recording, "MAX_POINTS", 500)
    net = circuitsim.parse("V V1 a 0 V=sin(0, 1, 1k)\nR R1 a b R=1\nC C1 b 0 C=1m\n.tran 10\n")
    with pytest.raises(circuitsim.SolverError) as err:
        net.simulate()
    assert "500 points recorded, as many as memory allows" in str(err.value)
    assert len(err.value.partial) == 500 and err.value.partial.t[-1] < 10


def test_long_expressions_run_and_deep_ones_are_refused(tmp_path, capsys):
    poly = "+".join(f"{i}*time^{i % 5}" for i in range(250))
    res = circuitsim.parse(f"B B1 a 0 V={{{poly}}}\nR R1 a 0 R=1\n.tran 1 0.25\n").simulate()
    t = res.t
    exact = sum(i * t ** (i % 5) for i in range(250))
    assert np.max(np.abs(res["a"] - exact) / exact) < 1e-13
    total = circuitsim.parse("R R1 a 0 R={" + "+".join(["1"] * 1000) + "}\nV V1 a 0 V=1\n"
                             ".tran 1\n").simulate()
    assert total["R1.i"][-1] == pytest.approx(1e-3, rel=1e-15)
    code, err, elapsed = run_cli(tmp_path, capsys,
                                 "R R1 a 0 R={" + "-" * 5000 + "1}\nV V1 a 0 V=1\n.tran 1\n")
    assert code == 2 and elapsed < FAST
    assert first_error(err) == ("error: {file}:1:12: expression nested 5001 levels deep "
                                "(brackets, unary minus or powers inside each other); at most "
                                "150 are accepted")


# --- files ------------------------------------------------------------------------------
@pytest.mark.parametrize("target", ["/etc/passwd", "../../../../../../etc/hostname"])
def test_includes_outside_the_netlist_tree_are_refused_unread(tmp_path, capsys, target):
    code, err, _ = run_cli(tmp_path, capsys, f'.include "{target}"\nR R1 a 0 R=1\n.tran 1\n')
    assert code == 2
    assert first_error(err) == (
        f'error: {{file}}:1:10: .include "{target}" is outside the netlist\'s directory and '
        "the library; allow its directory with --include-path DIR (Python: "
        "include_path=[DIR]) or the environment variable CIRCUITSIM_INCLUDE_PATH")
    assert "root:" not in err


def test_an_include_path_widens_the_confinement(tmp_path, capsys, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "load.inc").write_text("R R1 a 0 R=2\n")
    work = tmp_path / "work"
    work.mkdir()
    text = '.include "../shared/load.inc"\nV V1 a 0 V=1\n.tran 1\n'
    code, _, _ = run_cli(work, capsys, text)
    assert code == 2
    code, _, _ = run_cli(work, capsys, text, "--include-path", str(shared))
    assert code == 0
    monkeypatch.setenv("CIRCUITSIM_INCLUDE_PATH", str(shared))
    assert circuitsim.load(work / "h.cir").simulate()["R1.i"][-1] == pytest.approx(0.5)


def test_control_characters_are_escaped_and_long_lines_cut(tmp_path, capsys):
    code, err, _ = run_cli(tmp_path, capsys, "R R1 a 0 R=\x1b[2J1\nV V1 a 0 V=1\n.tran 1\n")
    assert code == 2 and "\x1b" not in err
    assert err.splitlines()[:2] == ["error: {file}:1:12: unexpected character '\\x1b'; "
                                    "expected a value", "    R R1 a 0 R=\\x1b[2J1"]
    code, err, _ = run_cli(tmp_path, capsys, "R R1 a 0 R=1 " + "x" * 1_000_000 + "\n.tran 1\n")
    assert code == 2 and len(err) < 1000
    assert "(1000000 characters)" in err


def test_a_byte_order_mark_is_accepted(tmp_path, capsys):
    code, _, _ = run_cli(tmp_path, capsys, None,
                         data=b"\xef\xbb\xbfR R1 a 0 R=1\nV V1 a 0 V=1\n.tran 1\n")
    assert code == 0


def test_a_byte_that_is_not_utf8_is_located(tmp_path, capsys):
    code, err, _ = run_cli(tmp_path, capsys, None,
                           data=b"R R1 a 0 R=1\nV V1 a 0 V=1 \xff\n.tran 1\n")
    assert code == 2
    assert first_error(err) == ("error: {file}:2:14: byte 0xff is not UTF-8 text; netlists "
                                "are UTF-8 (save the file as UTF-8, or write the character "
                                "in ASCII)")


# --- subcircuits and names ------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    (".subckt foo a a\nR R1 a 0 R=1\n.ends\nfoo X1 n1 n2\nV V1 n1 0 V=1\n.tran 1\n",
     "{file}:1:15: .subckt foo: port 'a' is listed twice (first at column 13)"),
    (".subckt foo 0 b\nR R1 0 b R=1\n.ends\nfoo X1 n1 n2\nV V1 n1 0 V=1\n.tran 1\n",
     "{file}:1:13: .subckt foo: the ground '0' cannot be a port (inside a subcircuit 0 is "
     "already the ground)"),
    ("R R1 time 0 R=1\nV V1 time 0 V=1\n.tran 1\n",
     "{file}:1:6: 'time' is reserved (the time column of the results, and the time in "
     "expressions); choose another node name"),
    (".param L=2V\nV V1 a 0 V=1\nR R1 a 0 R={L}\n.tran 1\n",
     "{file}:3:12: R R1: R expects a value in Ohm, but {L} is in V (from the units its "
     "parameters were written with)"),
    # the same brace converted first where it fits (each brace is converted once per unit)
    (".param L=2V\nV V1 a 0 V={L}\nR R1 a 0 R={L}\n.tran 1\n",
     "{file}:3:12: R R1: R expects a value in Ohm, but {L} is in V (from the units its "
     "parameters were written with)"),
    (".subckt rdiv in out params: Rt=1k\nR R1 in out R={Rt}\n.ends\n"
     "V V1 a 0 V=1\nrdiv X1 a 0 Rt=5V\n.tran 1\n",
     "{file}:5:1: R X1.R1: R expects a value in Ohm, but {Rt} is in V (from the units its "
     "parameters were written with)"),
])
def test_ports_names_and_parameter_units(tmp_path, capsys, text, expected):
    code, err, _ = run_cli(tmp_path, capsys, text)
    assert code == 2 and first_error(err) == "error: " + expected


def test_parameters_with_units_are_accepted_where_they_fit():
    res = circuitsim.parse(".param Rs=2kOhm half={Rs/2} th=30deg\nV V1 a 0 V=1\n"
                           "R R1 a 0 R={half}\nR R2 a 0 R={Rs*sin(th)}\n.tran 1\n").simulate()
    assert res["R1.i"][-1] == pytest.approx(1e-3) and res["R2.i"][-1] == pytest.approx(1e-3)


# --- faults ------------------------------------------------------------------------------------
def test_an_output_directory_that_does_not_exist_is_said_before_the_run(tmp_path, capsys):
    path = tmp_path / "r.cir"
    path.write_text("V V1 a 0 V=1\nR R1 a 0 R=1\n.tran 1\n")
    start = time.monotonic()
    code = cli.main(["run", str(path), "--out", str(tmp_path / "missing" / "x.csv")])
    assert code == 2 and time.monotonic() - start < FAST
    assert capsys.readouterr().err.splitlines()[0] == (
        f"error: <command line>:1:1: --out {tmp_path / 'missing' / 'x.csv'}: the directory "
        f"{tmp_path / 'missing'} does not exist")


def _cli(*args, **kw):
    return subprocess.Popen([sys.executable, "-m", "circuitsim.cli", *args], cwd=REPO,
                            text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


LONG_RUN = "V V1 in 0 V=sin(0, 1, 1k)\nR R1 in a R=10\nC C1 a 0 C=10u\n.tran 1000\n"


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_keep_the_results_so_far(tmp_path, signum):
    netlist = tmp_path / "long.cir"
    netlist.write_text(LONG_RUN)
    out = tmp_path / "long.csv"
    proc = _cli("run", str(netlist), "--out", str(out))
    time.sleep(3.0)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, err
    assert f"E_INTERRUPTED: stopped by {signal.Signals(signum).name}" in err
    assert "Traceback" not in err
    res = Result.from_csv(out)
    assert len(res) > 10 and 0 < res.t[-1] < 1000
    assert not list(tmp_path.glob("*.part"))


def test_two_runs_writing_the_same_file_leave_one_complete_result(tmp_path):
    """Both write long.csv; the survivor is one run's output, row for row, not a mix."""
    netlist = tmp_path / "rc.cir"
    netlist.write_text(".param Rv=10\nV V1 in 0 V=sin(0, 1, 50)\nR R1 in a R={Rv}\n"
                       "C C1 a 0 C=1m\n.tran 0.5 0.1m\n")
    out = tmp_path / "rc.csv"
    runs = [_cli("run", str(netlist), "--out", str(out), "--set", f"Rv={r}")
            for r in (10, 20)]
    for proc in runs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    res = Result.from_csv(out)
    assert len(res) == 5001
    alone = {r: circuitsim.load(netlist).simulate(set={"Rv": r}) for r in (10, 20)}
    assert any(np.array_equal(res["a"], alone[r]["a"]) for r in (10, 20))
    assert not list(tmp_path.glob("*.part")) and not list(tmp_path.glob(".*"))


def test_a_signal_during_the_save_is_held_until_the_file_is_complete(tmp_path, capsys,
                                                                    monkeypatch):
    """A second Ctrl-C while the CSV is written: the file is finished, then the note."""
    path = tmp_path / "r.cir"
    path.write_text("V V1 a 0 V=1\nR R1 a 0 R=1\n.tran 1 1m\n")
    out = tmp_path / "r.csv"
    real_save = Result.save

    def save_with_a_signal(self, target, **options):
        os.kill(os.getpid(), signal.SIGINT)          # arrives while the file is written
        return real_save(self, target, **options)
    monkeypatch.setattr(Result, "save", save_with_a_signal)
    code = cli.main(["run", str(path), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 3
    assert f"note: SIGINT arrived while {out} was written; the file was completed first" in err
    assert len(Result.from_csv(out)) == 1001


@pytest.mark.parametrize("command, code", [("check", 2), ("run", 3)])
def test_running_out_of_memory_is_said_without_a_traceback(tmp_path, capsys, monkeypatch,
                                                           command, code):
    """A netlist under the element cap can still need more memory than the machine has
    (a million resistors: about 5 GB); the MemoryError is said, not a traceback."""
    def exhausted(*args, **kwargs):
        raise MemoryError
    monkeypatch.setattr(circuitsim.Netlist, "prepare", exhausted)
    monkeypatch.setattr(circuitsim.Netlist, "check", exhausted)
    path = tmp_path / "big.cir"
    path.write_text("V V1 a 0 V=1\nR R1 a 0 R=1\n.tran 1m\n")
    assert cli.main([command, str(path)]) == code
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}: E_MEMORY: the memory ran out in `circuitsim "
                          f"{command}`")
    assert "Traceback" not in err and "--max-elements" in err
