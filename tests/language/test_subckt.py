"""Subcircuits (scoping, parameters, nesting), .include and the component library."""
import numpy as np
import pytest

import circuitsim
from circuitsim.errors import NetlistError

RC = """
.subckt rc in out params: R=1k C=1u
R R1 in mid R={R/2}
R R2 mid out R={R/2}
C C1 out 0 C={C}
.ends rc
"""


def test_instance_names_and_parameters():
    net = circuitsim.parse(RC + "V V1 a 0 V=1\nrc X1 a b R=2k\nrc X2 b c\n.tran 10m\n")
    c = net.circuit()
    names = [e.name for e in c.elements]
    assert names == ["V1", "X1.R1", "X1.R2", "X1.C1", "X2.R1", "X2.R2", "X2.C1"]
    assert c.element("X1.R1").params["R"] == pytest.approx(1000.0)
    assert c.element("X2.R1").params["R"] == pytest.approx(500.0)
    assert set(c.nodes) == {"a", "X1.mid", "b", "X2.mid", "c"}


def test_nested_subcircuits_and_local_params():
    text = RC + """
.subckt two in out params: R=1k
.param Rh={R/10}
rc A in m R={Rh}
rc B m out R={Rh}
.ends
V V1 a 0 V=1
two T1 a b R=20k
.tran 1m
"""
    c = circuitsim.parse(text).circuit()
    assert c.element("T1.A.R1").params["R"] == pytest.approx(1000.0)
    assert "T1.m" in c.nodes and "T1.A.mid" in c.nodes


def test_rc_subcircuit_time_constant():
    """Single RC section: v_out = 1 - exp(-t/RC)."""
    res = circuitsim.parse(RC + "V V1 a 0 V=1\nrc X1 a b R=1k C=1u\n.tran 5m 0.1m\n").simulate(
        rtol=1e-9, atol=1e-12)
    exact = 1 - np.exp(-res.t / 1e-3)
    assert np.max(np.abs(res["b"] - exact)) < 1e-6


def test_study_overrides_instance_parameter():
    net = circuitsim.parse(RC + "V V1 a 0 V=1\nrc X1 a b\n.study slow X1.R=10k\n.tran 1m\n")
    assert net.circuit("slow").element("X1.R1").params["R"] == pytest.approx(5000.0)
    assert net.circuit().element("X1.R1").params["R"] == pytest.approx(500.0)


def test_include_is_relative_to_the_including_file(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "parts.cir").write_text(RC)
    (tmp_path / "top.cir").write_text('.include "sub/parts.cir"\nV V1 a 0 V=1\n'
                                      'rc X1 a b\n.tran 1m\n')
    res = circuitsim.load(tmp_path / "top.cir").simulate()
    assert "X1.C1.i" in res.names


def test_include_error_is_located_in_the_included_file(tmp_path):
    (tmp_path / "bad.cir").write_text("R R1 a 0 Rx=1\n")
    (tmp_path / "top.cir").write_text('.include "bad.cir"\n.tran 1\n')
    with pytest.raises(NetlistError) as exc:
        circuitsim.load(tmp_path / "top.cir").circuit()
    assert str(exc.value).startswith(f"{tmp_path / 'bad.cir'}:1:10:")


def test_library_dcmotor_matches_flat_model():
    lib = circuitsim.parse(".lib dcmotor\nV V1 sup 0 V=12\ndcmotor M1 sup 0 w\n.tran 0.2 1m\n")
    flat = circuitsim.parse("""V V1 sup 0 V=12
R Ra sup a R=1
L La a emf L=0.5mH
transformer Km emf 0 w 0 n=0.05
inertia J1 w J=1e-4
damper B1 w 0 b=1e-5
.tran 0.2 1m
""")
    a, b = lib.simulate(rtol=1e-9, atol=1e-12), flat.simulate(rtol=1e-9, atol=1e-12)
    assert np.max(np.abs(a["w"] - b["w"])) < 1e-6 * np.max(np.abs(b["w"]))
    assert np.max(np.abs(a["M1.La.i"] - b["La.i"])) < 1e-6 * np.max(np.abs(b["La.i"]))


def test_circuitsim_path(tmp_path, monkeypatch):
    (tmp_path / "mine.lib").write_text(".subckt load a params: J=1\ninertia J1 a J={J}\n.ends\n")
    monkeypatch.setenv("CIRCUITSIM_PATH", str(tmp_path))
    c = circuitsim.parse(".lib mine\nI T1 0 w I=2\nload L1 w J=4\n.tran 1\n").circuit()
    assert c.element("L1.J1").params["J"] == 4.0


def test_subckt_named_like_builtin_is_an_error():
    with pytest.raises(NetlistError, match="built-in"):
        circuitsim.parse(".subckt mass a\nR R1 a 0 R=1\n.ends\n").circuit()


def test_recursive_subckt_is_an_error():
    with pytest.raises(NetlistError, match="instantiates itself"):
        circuitsim.parse(".subckt loop a\nloop X a\n.ends\nloop Y n\n.tran 1\n").circuit()


def test_a_misspelt_node_at_a_library_instance_is_located_at_the_instance_line():
    # a misspelt supply node leaves the valve's inlet (inside library/hydraulics.lib)
    # connected to one terminal only: the user is pointed at their own line 3
    net = circuitsim.parse(".lib hydraulics\nV Psup sup 0 V=100bar\n"
                           "propvalve PV supp pa cmd A=1e-5\nV U cmd 0 V=1\n"
                           "chamber C1 pa V=1e-4\n.tran 0.01\n")
    with pytest.raises(NetlistError) as info:
        net.circuit()
    exc = info.value
    assert exc.message.startswith("node 'supp' is connected to one terminal only (PV.Q.a)")
    assert "did you mean 'sup'?" in str(exc)
    assert (exc.loc.line, exc.loc.col) == (3, 1)
    assert "library" not in str(exc.loc.file)


def test_deep_nesting_is_not_called_recursion():
    """50 levels of distinct subcircuits are fine; 60 pass the limit, which says so;
    a real recursion through another subcircuit names the chain."""
    def nested(n):
        lines = []
        for k in range(n):
            lines += [f".subckt s{k} a", f"s{k + 1} X a" if k < n - 1 else "R R1 a 0 R=1",
                      ".ends"]
        return "\n".join(lines + ["V V1 n 0 V=1", "s0 Y n", ".tran 1"]) + "\n"
    assert len(circuitsim.parse(nested(50)).circuit().elements) == 2
    with pytest.raises(NetlistError, match=r"nested more than 50 deep \(the limit\)"):
        circuitsim.parse(nested(60)).circuit()
    with pytest.raises(NetlistError, match=r"subcircuit ping instantiates itself "
                                           r"\(ping -> pong -> ping\)"):
        circuitsim.parse(".subckt ping a\npong X a\n.ends\n.subckt pong a\nping X a\n.ends\n"
                         "V V1 n 0 V=1\nping Y n\n.tran 1\n").circuit()
