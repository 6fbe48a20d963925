"""Every bad-input case gives one located message and exit code 2, no traceback; a
solver failure exits 3 and keeps the results computed so far."""
import re
from pathlib import Path

import pytest

from circuitsim import cli

# (case id, netlist text, extra CLI args, expected line:col, expected message fragments)
CASES = [
    ("syntax-missing-value", "R R1 a 0 R=\n.tran 1\n", [], "1:12", ["expected"]),
    ("unclosed-brace", "R R1 a 0 R={2*3\n.tran 1\n", [], "1:", ["{"]),
    ("unknown-type", "resistor R1 a 0 R=1\n.tran 1\n", [], "1:1",
     ["unknown element type 'resistor'"]),
    ("unknown-type-hint", "inertai J1 w J=1\n.tran 1\n", [], "1:1", ["did you mean 'inertia'"]),
    ("unknown-param", "R R1 a 0 Rr=1\n.tran 1\n", [], "1:10",
     ["no parameter 'Rr'", "did you mean 'R'"]),
    ("missing-param", "R R1 a 0\n.tran 1\n", [], "1:1", ["needs parameter R"]),
    ("duplicate-name", "R R1 a 0 R=1\nR R1 a 0 R=2\n.tran 1\n", [], "2:3",
     ["duplicate element name 'R1'"]),
    ("too-few-ports", "R R1 a R=1\n.tran 1\n", [], "1:3", ["needs 2 port(s)"]),
    ("too-many-ports", "R R1 a b 0 R=1\n.tran 1\n", [], "1:10", ["one too many"]),
    ("unit-mismatch", "mass M1 v m=2bar\n.tran 1\n", [], "1:", ["'bar'", "kg"]),
    ("ambiguous-m", ".param x=1m\nR R1 a 0 R={x}\n.tran 1\n", [], "1:", ["ambiguous"]),
    ("domain-mismatch", "mass M1 n m=1\ninertia J1 n J=1\n.tran 1\n", [], "2:1",
     ["domain mismatch at node 'n'", "M1"]),
    ("floating", "V V1 a 0 V=1\nR R1 a 0 R=1\nR R2 b c R=1\nC C2 b c C=1\n.tran 1\n", [],
     "3:1", ["floating"]),
    ("flow-cutset", "I I1 0 a I=1\nR R1 a b R=1\nR R2 b a R=1\n.tran 1\n", [], "1:1",
     ["only through the flow source", "I1"]),
    ("potential-loop", "V V1 a 0 V=1\nV V2 a 0 V=2\nR R1 a 0 R=1\n.tran 1\n", [], "2:1",
     ["loop", "V1", "V2"]),
    ("shorted-source", "V V1 a a V=1\nR R1 a 0 R=1\n.tran 1\n", [], "1:1", ["both ends"]),
    ("unknown-name-expr", ".param Rload=5\nR R1 a 0 R={Rlaod}\n.tran 1\n", [], "2:",
     ["Rlaod", "did you mean 'Rload'"]),
    ("negative-R", "R R1 a 0 R=-5\nV V1 a 0 V=1\n.tran 1\n", [], "1:10", ["must be positive"]),
    ("unknown-directive", "R R1 a 0 R=1\n.trans 1\n", [], "2:1", ["unknown directive", ".tran"]),
    ("unknown-option", "R R1 a 0 R=1\n.options rtl=1e-6\n.tran 1\n", [], "2:10",
     ["unknown option 'rtl'", "did you mean 'rtol'"]),
    ("ic-unknown", "R R1 a 0 R=1\n.ic b=1\n.tran 1\n", [], "2:5", ["'b'"]),
    ("probe-unknown", "R R1 a 0 R=1\nV V1 a 0 V=1\n.probe R1.f\n.tran 1\n", [], "3:8",
     ["no variable 'R1.f'", "did you mean 'R1.i'"]),
    ("lib-missing", ".lib nosuchlib\nR R1 a 0 R=1\n.tran 1\n", [], "1:6",
     ["library 'nosuchlib' not found"]),
    ("include-missing", '.include "nothere.cir"\nR R1 a 0 R=1\n.tran 1\n', [], "1:10",
     ["not found"]),
    ("subckt-ports", ".subckt rc in out\nR R1 in out R=1\n.ends\nrc X1 a\n.tran 1\n", [],
     "4:4", ["needs 2 port(s)"]),
    ("subckt-param", ".subckt rc in out params: R=1\nR R1 in out R={R}\n.ends\n"
     "rc X1 a 0 C=3\n.tran 1\n", [], "4:11", ["no parameter 'C'"]),
    ("unknown-study", "R R1 a 0 R=1\nV V1 a 0 V=1\n.study s1 R1.R=2\n.tran 1\n",
     ["--study", "s2"], "", ["unknown study 's2'", "s1"]),
    ("unknown-set-param", ".param k=1\nR R1 a 0 R={k}\nV V1 a 0 V=1\n.tran 1\n",
     ["--set", "kk=2"], "<command line>", ["unknown parameter 'kk'"]),
    ("set-unknown-element", "R R1 a 0 R=1\nV V1 a 0 V=1\n.tran 1\n",
     ["--set", "R9.R=2"], "<command line>", ["no element named 'R9'"]),
    ("no-tran", "R R1 a 0 R=1\nV V1 a 0 V=1\n", [], "", [".tran"]),
    ("bad-choice-or-vector", "R R1 a 0 R=(1, 2)\n.tran 1\n", [], "1:12", ["R"]),
    ("time-in-constant", "R R1 a 0 R={1+time}\nV V1 a 0 V=1\n.tran 1\n", [], "1:12",
     ["time"]),
    ("ends-mismatch", ".subckt rc in out\nR R1 in out R=1\n.ends other\n.tran 1\n", [], "3:",
     ["rc"]),
]


@pytest.mark.parametrize("case,text,args,where,fragments", CASES, ids=[c[0] for c in CASES])
def test_bad_input_is_located(tmp_path, capsys, case, text, args, where, fragments):
    path = tmp_path / "bad.cir"
    path.write_text(text)
    code = cli.main(["run", str(path)] + args)
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    assert err.count("error:") == 1
    if where and where != "<command line>":
        assert f"bad.cir:{where}" in err, err
    elif where:
        assert where in err
    for fragment in fragments:
        assert fragment in err, err


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
