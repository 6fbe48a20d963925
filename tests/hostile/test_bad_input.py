"""Every bad-input case gives one located message and exit code 2, no traceback; a
solver failure exits 3 and keeps the results computed so far."""
import re
from pathlib import Path

import pytest

from circuitsim import cli

from helpers import LIBRARY

CORPUS = Path(__file__).parent / "bad_netlists"
PROGRESS = re.compile(r"  t = \S+ s \( *[0-9.]+ %\)")


def _expected(case: Path):
    """``NAME.err``: 'exit N', then the exact stderr with {file} {dir} {library} {out}
    placeholders; a line ending in ' ...' matches any line starting with what precedes it
    (solver failures: the numbers after the code depend on the platform)."""
    head, *lines = case.with_suffix(".err").read_text().splitlines()
    return int(head.split()[1]), lines


@pytest.mark.parametrize("case", sorted(CORPUS.glob("*.cir")), ids=lambda p: p.stem)
def test_bad_netlist_corpus_gives_the_exact_located_message(case, tmp_path, capsys):
    args = next((line[len("* args:"):].split() for line in case.read_text().splitlines()
                 if line.startswith("* args:")), [])
    out = tmp_path / "partial.csv"
    code = cli.main(["run", str(case), "--out", str(out)] + args)
    err = capsys.readouterr().err
    exit_code, expected = _expected(case)
    assert code == exit_code, err
    assert "Traceback" not in err
    assert sum(line.startswith("error:") for line in err.splitlines()) == 1, err
    library = str(LIBRARY.resolve())
    got = err.rstrip("\n").replace(str(case), "{file}").replace(library, "{library}")
    got = got.replace(str(case.parent), "{dir}").replace(str(out), "{out}").splitlines()
    # a long case on a busy machine shows the run's progress ("  t = 0.5 s ( 50.0 %)",
    # after 2 s): not part of the message
    got = [line for line in got if not PROGRESS.fullmatch(line)]
    assert len(got) == len(expected), err
    for line, want in zip(got, expected):
        if want.endswith(" ..."):
            assert line.startswith(want[:-4]), (line, want)
        else:
            assert line == want
    if exit_code == 3 and "written to" in err:     # nothing lost: the partial results
        rows = out.read_text().splitlines()
        assert rows[0].startswith("time,") and len(rows) > 2


def test_corpus_is_large_and_covers_every_kind_of_input():
    cases = sorted(CORPUS.glob("*.cir"))
    assert len(cases) >= 40
    codes = {_expected(case)[0] for case in cases}
    assert codes == {2, 3}


def test_caret_points_at_column(tmp_path, capsys):
    path = tmp_path / "c.cir"
    path.write_text("V V1 a 0 V=1\nR R1 a 0 Rr=1\n.tran 1\n")
    assert cli.main(["run", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    src = next(i for i, line in enumerate(lines) if "R R1 a 0 Rr=1" in line)
    assert lines[src + 1].index("^") == lines[src].index("Rr")


def test_solver_failure_keeps_results(tmp_path, capsys):
    path = tmp_path / "blowup.cir"
    # the flow 1/(0.5 - t)^2 drives the capacitor voltage to infinity at t = 0.5 s
    path.write_text("B B1 0 a I={1/(0.5-time)^2}\nC C1 a 0 C=1\nR R1 a 0 R=1k\n.tran 1 1m\n")
    out = tmp_path / "r.csv"
    code = cli.main(["run", str(path), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 3, err
    assert "Traceback" not in err
    assert "t = " in err and str(out) in err
    rows = out.read_text().splitlines()
    assert rows[0].startswith("time,")
    last_t = float(rows[-1].split(",")[0])
    assert 0.4 < last_t < 0.5
    assert re.search(r"written to", err)
