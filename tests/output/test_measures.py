"""``.measure``: peaks, their times, crossings, integrals, values at an instant and
formulas of measures, against the closed form of an undamped oscillator
x = 0.1·sin(10 t) (mass 1 kg, spring 100 N/m, v0 = 1 m/s); bad lines located. Its peaks
are all equal, so the peak measures take a window holding the first one only."""
import math

import numpy as np
import pytest

import circuitsim
from circuitsim import cli
from circuitsim.errors import NetlistError

OSCILLATOR = """.title oscillator
mass M1 v m=1 v0=1
spring K1 v 0 k=100
.measure xmax max K1.x to=0.3
.measure tmax argmax K1.x to=0.3
.measure xmin min K1.x from=0.2 to=0.6
.measure tcross when K1.x cross=fall
.measure tcross2 when {K1.x} cross=either n=3
.measure work integ {v^2} to=tmax
.measure vat at v at={tmax/2}
.measure ratio param {xmax/tmax}
.tran 1 1m
"""


@pytest.mark.parametrize("rtol, atol, bound", [(1e-6, 1e-9, 2e-5), (1e-10, 1e-13, 1e-8)])
def test_measures_of_an_oscillator_match_its_closed_form(rtol, atol, bound):
    res = circuitsim.parse(OSCILLATOR).simulate(rtol=rtol, atol=atol)
    m = res.measures.values
    exact = {"xmax": 0.1, "tmax": math.pi / 20, "xmin": -0.1, "tcross": math.pi / 10,
             "tcross2": 3 * math.pi / 10, "work": math.pi / 40,
             "vat": math.cos(math.pi / 4), "ratio": 0.1 / (math.pi / 20)}
    for name, value in exact.items():
        # the integral by the trapezoid over 1 ms points: (hω)²/12 = 8e-6 of cos²'s
        # curvature, 1.4e-8 of the work measured at rtol 1e-10
        assert m[name] == pytest.approx(value, rel=max(bound, 3e-8 if name == "work"
                                                       else 0)), name
    assert res.measures.units["xmax"] == "m" and res.measures.units["tmax"] == "s"


def test_the_peak_is_refined_between_the_recorded_points():
    """A 10 ms output grid: the largest sample misses the peak by up to (hω)²/8 = 1.25e-3
    of it; the parabola through it and its neighbours by far less."""
    res = circuitsim.parse(OSCILLATOR.replace(".tran 1 1m", ".tran 1 10m")).simulate(
        rtol=1e-10, atol=1e-13)
    sampled = np.max(res["K1.x"])
    assert abs(sampled - 0.1) > 1e-5
    assert res.measures.values["xmax"] == pytest.approx(0.1, rel=2e-6)   # measured 1.0e-6
    assert res.measures.values["tmax"] == pytest.approx(math.pi / 20, rel=2e-5)


def test_a_measure_that_cannot_be_taken_is_nan_with_the_reason(capsys):
    text = OSCILLATOR.replace(".tran 1 1m", ".measure never when {K1.x - 1}\n"
                              ".measure late at v at=5\n.measure both param {never + 1}\n"
                              ".tran 1 1m")
    res = circuitsim.parse(text).simulate()
    m = res.measures
    assert math.isnan(m.values["never"]) and "0 time(s)" in m.why["never"]
    assert math.isnan(m.values["late"]) and "outside the run" in m.why["late"]
    assert math.isnan(m.values["both"])
    assert "never" in m.text() and "nan" in m.text()


def test_the_command_line_prints_the_measures(tmp_path, capsys):
    path = tmp_path / "osc.cir"
    path.write_text(OSCILLATOR)
    assert cli.main(["run", str(path), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "measures:" in out and "xmax" in out and " m\n" in out


@pytest.mark.parametrize("line, message", [
    (".measure xx max nothere", "no variable 'nothere'"),
    (".measure xx peak K1.x", "unknown kind 'peak'"),
    (".measure xx param {later}", "'later' is not a measure defined above"),
    (".measure xmax max K1.x to=0.3", "defined twice"),
    (".measure xx max K1.x at=1", "'at=' does not apply to max"),
    (".measure xx at K1.x", "give the instant"),
    (".measure xx when K1.x cross=up", "cross"),
    (".measure xx when K1.x n=0", "n counts crossings"),
    (".measure xx max", "KIND one of"),
    (".measure x.y max K1.x", "not a name for a measure"),
])
def test_bad_measure_lines_are_located(line, message):
    text = OSCILLATOR.replace(".tran 1 1m", line + "\n.tran 1 1m")
    row = len(text.splitlines()) - text.splitlines()[::-1].index(line)
    with pytest.raises(NetlistError) as info:
        circuitsim.parse(text, "osc.cir").prepare()
    assert message in str(info.value) and info.value.loc.line == row


def test_measures_follow_each_case_of_a_sweep():
    text = OSCILLATOR.replace("spring K1 v 0 k=100", ".param k=100\nspring K1 v 0 k={k}")
    net = circuitsim.parse(text + ".step k 100 400\n")
    table = net.sweep().measures()
    assert table["k"] == [100.0, 400.0]
    assert table["tmax"] == pytest.approx([math.pi / 20, math.pi / 40], rel=1e-4)


def test_the_command_line_tabulates_the_measures_of_a_sweep(tmp_path, capsys):
    path = tmp_path / "osc.cir"
    path.write_text(OSCILLATOR.replace("spring K1 v 0 k=100", ".param k=100\n"
                                       "spring K1 v 0 k={k}") + ".step k 100 400\n")
    assert cli.main(["run", str(path), "--quiet"]) == 0
    out = capsys.readouterr().out
    table = out[out.index("measures by case:"):].splitlines()
    assert table[1].split()[:3] == ["case", "xmax", "tmax"]
    assert table[3].split()[0] == "k=400"
    assert float(table[3].split()[2]) == pytest.approx(math.pi / 40, rel=1e-4)
