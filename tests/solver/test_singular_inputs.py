"""A behavioural expression that becomes infinite or undefined stops the run at that
instant, the element named, instead of being stepped over (E_SINGULAR, exit 3, the
results up to the last step kept)."""
import math
import subprocess
import sys

import pytest

import circuitsim
from circuitsim.errors import SingularInput
from circuitsim.output.results import Result
from circuitsim.runtime import expressions as E
from circuitsim.runtime.singularities import singular_factors

from helpers import netlist_path

REPO = netlist_path("dcmotor.cir").parent.parent


def _stopped(text: str, **options) -> SingularInput:
    with pytest.raises(SingularInput) as info:
        circuitsim.parse(text).simulate(**options)
    return info.value


@pytest.mark.parametrize("rtol, atol", [(1e-6, 1e-9), (1e-9, 1e-12)])
def test_a_pole_of_time_stops_the_run_at_its_instant(rtol, atol):
    err = _stopped("B B1 a 0 V={1/(1-time)}\nR R1 a 0 1\n.tran 2 10m\n", rtol=rtol, atol=atol)
    assert err.code == "E_SINGULAR"
    assert err.t == pytest.approx(1.0, abs=1e-12)          # located to the event tolerance
    assert "B1 factor (1 - time)" in str(err)
    kept = err.partial
    assert 0.95 < kept.t[-1] < 1.0
    # what was kept is the expression's value, not an interpolation across the pole
    assert kept["a"][-1] == pytest.approx(1.0 / (1.0 - kept.t[-1]), rel=1e-6)


@pytest.mark.parametrize("expression, where", [
    ("tan(time)", math.pi / 2),               # tan's pole: cos crosses 0
    ("1/(1-time)^2", 1.0),                    # an even pole: watched through its base
    ("sqrt(1-time)", 1.0),                    # the edge of sqrt's domain
    ("log(2-time)", 2.0),
    ("3/(2*(1.25-time))", 1.25),
])
def test_poles_and_domain_edges_are_located(expression, where):
    err = _stopped(f"B B1 a 0 V={{{expression}}}\nR R1 a 0 1\n.tran 3 10m\n")
    assert err.t == pytest.approx(where, abs=1e-10)
    assert "B1" in str(err)


def test_a_pole_of_the_state_is_located():
    """v(c) = t (a 1 F capacitor charged by 1 A): 1/(v(c) - 0.5) has its pole at 0.5 s."""
    err = _stopped("I I1 0 c I=1\nC C1 c 0 C=1\nB B2 x 0 V={1/(v(c) - 0.5)}\nR R2 x 0 1\n"
                   ".tran 1 10m\n", rtol=1e-8, atol=1e-11)
    assert err.t == pytest.approx(0.5, abs=1e-9)
    assert "B2 factor (c - 0.5)" in str(err)


def test_a_sensed_expression_stops_too():
    err = _stopped("sense S1 y S={1/(0.3-time)}\nB B1 a 0 V={v(y)}\nR R1 a 0 1\n.tran 1 10m\n")
    assert err.t == pytest.approx(0.3, abs=1e-12)
    assert "S1" in str(err)


@pytest.mark.parametrize("expression", [
    "(time-0.5)/abs(time-0.5)",               # the sign function: defined on both sides
    "1/(1 + time^2)",
    "(time - 1)/(exp(time) + 1)",
    "sqrt(abs(time - 1) + 1e-3)",
    "(time - 1)/((time - 1)^2 + 0.01)^0.25",  # a regularised orifice law
])
def test_expressions_without_a_pole_run_to_the_end(expression):
    res = circuitsim.parse(f"B B1 a 0 V={{{expression}}}\nR R1 a 0 1\n.tran 2 10m\n").simulate()
    assert res.t[-1] == 2.0


def test_watched_factors():
    x, t = E.Name("x"), E.Name("time")
    assert singular_factors(E.div(x, E.sub(E.Num(1.0), t))) == [E.sub(E.Num(1.0), t)]
    assert singular_factors(E.div(x, E.mul(t, E.sub(t, x)))) == [t, E.sub(t, x)]
    assert singular_factors(E.power(E.sub(t, x), E.Num(-2.0))) == [E.sub(t, x)]
    assert singular_factors(E.div(x, E.func("abs", x))) == []
    assert singular_factors(E.div(E.Num(1.0), E.Num(3.0))) == []
    assert singular_factors(E.func("tan", t)) == [E.func("cos", t)]


def test_command_line_exit_3_names_the_element_and_keeps_the_results(tmp_path):
    netlist = tmp_path / "pole.cir"
    netlist.write_text("B B1 a 0 V={1/(1-time)}\nR R1 a 0 1\n.tran 2 10m\n")
    out = tmp_path / "pole.csv"
    proc = subprocess.run([sys.executable, "-m", "circuitsim.cli", "run", str(netlist),
                           "--out", str(out)], cwd=REPO, text=True, capture_output=True)
    assert proc.returncode == 3, proc.stderr
    assert "E_SINGULAR" in proc.stderr and "B1" in proc.stderr and "t = 1 s" in proc.stderr
    assert "Traceback" not in proc.stderr
    kept = Result.from_csv(out)
    assert 0.95 < kept.t[-1] < 1.0 and kept["a"][-1] == pytest.approx(1 / (1 - kept.t[-1]))
