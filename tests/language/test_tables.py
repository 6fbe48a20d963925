"""Measured data from files: ``pwl(file=...)``, ``table(x, file=...)`` and
``table2(x, y, file=...)`` (netlist/datafiles.py), run through whole circuits against
independent computations: the same points written inline, closed forms, scipy's
integrators, and bounds on the interpolation error worked out below. The messages for
bad data are in tests/hostile/bad_netlists/ (data-*.cir, their files in data/)."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.interpolate import PchipInterpolator

import circuitsim
from circuitsim.netlist import datafiles

from helpers import tolerance_units

TIGHT = dict(rtol=1e-9, atol=1e-12)


def write_csv(path, header, *columns, fmt=repr):
    lines = [header] if header else []
    lines += [", ".join(fmt(float(v)) for v in row) for row in zip(*columns)]
    path.write_text("\n".join(lines) + "\n")
    return path


# --- a 10 000-row supply on an RC filter --------------------------------------------------
TAU, OFFSET, AMPLITUDE, FREQ, TSTOP = 1e-3, 1.0, 0.5, 50.0, 0.05
RC = f".tran {TSTOP} 0.1m\nR R1 in out R=1k\nC C1 out 0 C=1u\n"          # tau = 1 ms


def rc_exact(t):
    """The capacitor of RC from 0 V driven by OFFSET + AMPLITUDE sin(wt)."""
    w = 2 * np.pi * FREQ
    wt = w * TAU
    return (OFFSET * (1 - np.exp(-t / TAU)) + AMPLITUDE / (1 + wt ** 2)
            * (np.sin(w * t) - wt * np.cos(w * t) + wt * np.exp(-t / TAU)))


@pytest.fixture(scope="module")
def supply(tmp_path_factory):
    """(directory, times, values): 10 001 samples of the smooth supply in supply.csv."""
    d = tmp_path_factory.mktemp("supply")
    t = np.linspace(0.0, TSTOP, 10_001)
    v = OFFSET + AMPLITUDE * np.sin(2 * np.pi * FREQ * t)
    write_csv(d / "supply.csv", "time [s], supply [V]", t, v)
    return d, t, v


def test_a_csv_supply_is_the_same_pwl_as_its_points_written_inline(supply):
    d, t, v = supply
    (d / "file.cir").write_text('V V1 in 0 V=pwl(file="supply.csv")\n' + RC)
    points = ", ".join(f"{float(a)!r}, {float(b)!r}" for a, b in zip(t, v))
    (d / "inline.cir").write_text(f"V V1 in 0 V=pwl({points})\n" + RC)
    for options in ({}, TIGHT):
        from_file = circuitsim.load(d / "file.cir").simulate(**options)
        inline = circuitsim.load(d / "inline.cir").simulate(**options)
        # the same numbers (both parsers round each decimal correctly): the same run
        assert np.array_equal(from_file.t, inline.t)
        assert np.max(np.abs(from_file.data - inline.data)) <= 1e-15 * np.max(np.abs(inline.data))
        for counter in ("nsteps", "nrestart", "nfail_err", "nfail_conv"):
            assert from_file.stats[counter] == inline.stats[counter], counter


def test_a_csv_supply_does_not_restart_the_solver_at_its_samples(supply):
    """10 001 samples, no jump: no breakpoint, and about the steps of the sine they
    sample (184 against 180 at the default tolerances)."""
    d, _, _ = supply
    (d / "file.cir").write_text('V V1 in 0 V=pwl(file="supply.csv")\n' + RC)
    (d / "sine.cir").write_text(f"V V1 in 0 V=sin({OFFSET}, {AMPLITUDE}, {FREQ})\n" + RC)
    res = circuitsim.load(d / "file.cir").simulate()
    sine = circuitsim.load(d / "sine.cir").simulate()
    assert res.stats["nrestart"] == 0
    assert res.stats["nsteps"] < 1.2 * sine.stats["nsteps"]        # 184 vs 180
    assert res.stats["nsteps"] < 500                                 # not 10 000 stops


def test_a_csv_supply_gives_the_closed_form_rc_response(supply):
    """Against the RC's response to the sine the file samples. The samples are 5 us
    apart: the linear interpolation departs from the sine by at most
    h^2/8 * A w^2 = 1.5e-7 V, and the RC (a contraction of unit DC gain) passes at most
    that to its output, beside the solver's own error."""
    d, t, _ = supply
    (d / "file.cir").write_text('V V1 in 0 V=pwl(file="supply.csv")\n' + RC)
    net = circuitsim.load(d / "file.cir")
    h = t[1] - t[0]
    interpolation = h ** 2 / 8 * AMPLITUDE * (2 * np.pi * FREQ) ** 2
    res = net.simulate()
    exact = rc_exact(res.t)
    assert tolerance_units(res["out"] - exact, exact, 1e-6, 1e-9) < 5        # 2.7
    res = net.simulate(**TIGHT)
    exact = rc_exact(res.t)
    solver = 20 * (TIGHT["rtol"] * np.max(np.abs(exact)) + TIGHT["atol"])
    assert np.max(np.abs(res["out"] - exact)) < interpolation + solver       # 1.05e-7 < 1.8e-7


def test_header_units_are_converted_to_si(tmp_path):
    """The supply in ms and mV gives the run of the same supply in s and V, number for
    number (the decimal values are the same: each parser rounds them once)."""
    k = np.arange(0, 201)
    volts = np.round(np.sin(k / 13.0), 3)
    write_csv(tmp_path / "si.csv", "time [s], v [V]", k * 5e-4, volts, fmt=lambda x: f"{x:.4f}")
    write_csv(tmp_path / "ms.csv", "t [ms], v [mV]", k * 0.5, volts * 1000,
              fmt=lambda x: f"{x:.1f}")
    runs = []
    for name in ("si", "ms"):
        (tmp_path / f"{name}.cir").write_text(f'V V1 in 0 V=pwl(file="{name}.csv")\n'
                                              ".tran 0.1 1m\nR R1 in out R=1k\nC C1 out 0 C=10u\n")
        runs.append(circuitsim.load(tmp_path / f"{name}.cir").simulate())
    assert np.array_equal(runs[0].t, runs[1].t) and np.array_equal(runs[0].data, runs[1].data)


def test_a_speed_in_rpm_drives_a_shaft_in_rad_per_s(tmp_path):
    write_csv(tmp_path / "speed.csv", "time [s], speed [rpm]", [0.0, 1.0], [0.0, 600.0])
    (tmp_path / "shaft.cir").write_text('V Vw shaft 0 V=pwl(file="speed.csv")\n'
                                        "damper D1 shaft 0 b=0.1\n.tran 1 0.25\n")
    res = circuitsim.load(tmp_path / "shaft.cir").simulate()
    assert res["shaft"].tolist() == pytest.approx((600 * 2 * np.pi / 60 * res.t).tolist(),
                                                  rel=1e-12, abs=1e-12)


def test_a_table_in_a_parameter_converts_its_header_units(tmp_path):
    """x in mm, force in kN: table(1.5e-3) is halfway between 1 mm and 2 mm."""
    write_csv(tmp_path / "spring.csv", "x [mm], F [kN]", [0.0, 1.0, 2.0], [0.0, 2.0, 3.0])
    (tmp_path / "p.cir").write_text('.param f={table(1.5e-3, file="spring.csv")}\n'
                                    ".param g={table(5, file=\"spring.csv\")}\n"
                                    "V V1 a 0 V=1\nR R1 a 0 R={f}\n.tran 1\n")
    params = circuitsim.load(tmp_path / "p.cir").prepare().circuit.params
    assert params["f"] == pytest.approx(2500.0, rel=1e-15)
    assert params["g"] == 3000.0                                  # beyond the last x: held


# --- table(): a valve draining a tank ----------------------------------------------------------
A, B, CAP, P0, T_DRAIN = 0.1, 0.01, 1.0, 10.0, 5.0


def valve(p):
    """The valve's characteristic: flow q(p) = a p + b p^3, increasing and convex."""
    return A * p + B * p ** 3


@pytest.fixture(scope="module")
def tank(tmp_path_factory):
    """(directory, x, q): the characteristic sampled at 201 points over 0..10 in
    valve.csv, and the tank's netlists with it as a table (linear, spline) and inline."""
    d = tmp_path_factory.mktemp("valve")
    x = np.linspace(0.0, P0, 201)
    write_csv(d / "valve.csv", "p [V], q [A]", x, valve(x))
    tail = f"C C1 p 0 C={CAP} ic={P0}\n.tran {T_DRAIN} 0.05\n"
    for name, flow in (("linear", 'table(v(p), file="valve.csv")'),
                       ("spline", 'table(v(p), file="valve.csv", interp=spline)'),
                       ("inline", f"{A}*v(p) + {B}*v(p)^3")):
        (d / f"{name}.cir").write_text(f"B Bv p 0 I={{{flow}}}\n" + tail)
    return d, x, valve(x)


def drained(q, t_eval):
    """C p' = -q(p) from p0, by scipy at rtol 1e-13: the independent reference."""
    sol = solve_ivp(lambda t, p: -q(p) / CAP, (0.0, T_DRAIN), [P0], method="DOP853",
                    rtol=1e-13, atol=1e-14, t_eval=t_eval)
    return sol.y[0]


@pytest.mark.parametrize("options, bound", [({}, 10), (TIGHT, 100)])
def test_a_linear_table_valve_against_scipy_on_the_same_points(tank, options, bound):
    """The run with table() against scipy's integration of the same piecewise-linear
    characteristic (np.interp), in units of the run's tolerance. Measured: 6.3 at the
    defaults, 71 at rtol 1e-9 (the inline polynomial's own run: 2.3 and 12; the global
    error of 100 to 2000 steps exceeds the local tolerance)."""
    d, x, q = tank
    res = circuitsim.load(d / "linear.cir").simulate(**options)
    ref = drained(lambda p: np.interp(p, x, q), res.t)
    rtol, atol = options.get("rtol", 1e-6), options.get("atol", 1e-9)
    assert tolerance_units(res["p"] - ref, ref, rtol, atol) < bound
    assert res.stats["nfail_conv"] == 0


@pytest.mark.parametrize("options", [{}, TIGHT])
def test_a_linear_table_valve_against_the_inline_characteristic(tank, options):
    """The sampled characteristic departs from q by at most
    delta = h^2/8 max|q''| = 0.05^2/8 * 6 b p0 = 1.9e-4 A, and never below it (q is
    convex, the chords lie above it). The tank is a contraction with q' >= a, so its
    pressure departs by at most delta/a = 1.9e-3 V, and never above (more flow drains
    it sooner). Measured: 1.05e-4 V at the defaults, 9.0e-5 V at rtol 1e-9."""
    d, x, _ = tank
    table = circuitsim.load(d / "linear.cir").simulate(**options)
    inline = circuitsim.load(d / "inline.cir").simulate(**options)
    assert np.array_equal(table.t, inline.t)                     # the output grid
    h = x[1] - x[0]
    delta = h ** 2 / 8 * 6 * B * P0
    slack = 20 * (options.get("rtol", 1e-6) * P0 + options.get("atol", 1e-9))
    gap = table["p"] - inline["p"]
    assert np.max(np.abs(gap)) < delta / A + slack
    assert np.max(gap) < slack


@pytest.mark.parametrize("options, bound", [({}, 5), (TIGHT, 20)])
def test_a_spline_table_valve_against_scipys_pchip(tank, options, bound):
    """interp=spline is the monotone cubic (PCHIP): against scipy's integration of
    scipy's PchipInterpolator through the same points, in tolerance units (measured 2.2
    and 11.4). Its slope is continuous, so the error test and Newton see no corner: at
    rtol 1e-9 it takes 315 steps, the linear table 2106."""
    d, x, q = tank
    res = circuitsim.load(d / "spline.cir").simulate(**options)
    ref = drained(PchipInterpolator(x, q), res.t)
    rtol, atol = options.get("rtol", 1e-6), options.get("atol", 1e-9)
    assert tolerance_units(res["p"] - ref, ref, rtol, atol) < bound
    assert res.stats["nfail_conv"] == 0
    if options:
        linear = circuitsim.load(d / "linear.cir").simulate(**options)
        assert res.stats["nsteps"] < linear.stats["nsteps"] / 3      # 315 vs 2106
        inline = circuitsim.load(d / "inline.cir").simulate(**options)
        assert np.max(np.abs(res["p"] - inline["p"])) < 1e-6            # 6.8e-8


# --- table2(): a map ------------------------------------------------------------------------
def bilinear(x, y):
    return 1.5 - 2.0 * x + 0.75 * y + 0.4 * x * y


def test_table2_reproduces_a_bilinear_map_and_holds_its_edges(tmp_path):
    """A bilinear z(x, y) on an uneven 5 x 4 grid is what bilinear interpolation gives
    back exactly; x = 3 sin(4 pi t) swings beyond the grid's -2..2 and the time beyond
    its 0..0.8, where the edge values hold. The map's value is an algebraic unknown:
    equal to the exact one within Newton's tolerance (measured 7e-11)."""
    xg = np.array([-2.0, -0.5, 0.0, 1.2, 2.0])
    yg = np.array([0.0, 0.1, 0.45, 0.8])
    rows = ["x \\ y, " + ", ".join(map(repr, yg.tolist()))]
    rows += [f"{x!r}, " + ", ".join(repr(bilinear(x, y)) for y in yg.tolist()) for x in xg.tolist()]
    (tmp_path / "map.csv").write_text("\n".join(rows) + "\n")
    (tmp_path / "map.cir").write_text("V V1 a 0 V=sin(0, 3, 2)\n"
                                      'B B1 0 b I={table2(v(a), time, file="map.csv")}\n'
                                      "R R1 b 0 R=1\n"
                                      '.param z0={table2(0.3, 0.2, file="map.csv")}\n'
                                      ".tran 1 1m\n")
    net = circuitsim.load(tmp_path / "map.cir")
    res = net.simulate()
    x = 3 * np.sin(4 * np.pi * res.t)
    exact = bilinear(np.clip(x, -2.0, 2.0), np.clip(res.t, 0.0, 0.8))
    assert np.max(np.abs(res["b"] - exact)) < 1e-9
    assert net.prepare().circuit.params["z0"] == pytest.approx(bilinear(0.3, 0.2), rel=1e-14)


def test_table2_header_gives_the_units_of_x_y_and_the_value(tmp_path):
    """speed [rpm], current [A], torque [N*m]: 500 rpm is 52.36 rad/s, halfway between
    the x rows 0 and 1000 rpm; 5 A halfway between 0 and 10 A."""
    (tmp_path / "motor.csv").write_text("speed [rpm], current [A], torque [N*m]\n"
                                        "rpm \\ A, 0, 10\n0, 0, 1\n1000, 1, 3\n")
    (tmp_path / "m.cir").write_text(f'.param z={{table2({500 * 2 * np.pi / 60!r}, 5, '
                                    'file="motor.csv")}\nV V1 a 0 V=1\nR R1 a 0 R=1\n.tran 1\n')
    z = circuitsim.load(tmp_path / "m.cir").prepare().circuit.params["z"]
    assert z == pytest.approx((0 + 1 + 1 + 3) / 4, rel=1e-14)


# --- files: where they are found, how often they are read -----------------------------------
def test_a_data_file_is_read_once_for_all_its_uses_and_cases(tmp_path, monkeypatch):
    x = np.linspace(0.0, 10.0, 11)
    write_csv(tmp_path / "valve.csv", "p, q", x, valve(x))
    write_csv(tmp_path / "supply.csv", "t, v, w", [0.0, 1.0], [1.0, 2.0], [3.0, 4.0])
    (tmp_path / "n.cir").write_text(
        'V V1 a 0 V=pwl(file="supply.csv")\nV V2 c 0 V=pwl(file="supply.csv", column=w)\n'
        'B B1 0 b I={table(v(a), file="valve.csv")}\n'
        'B B2 0 b I={k*table(v(c), file="valve.csv")}\n'
        'B B3 0 b I={table(v(a), file="valve.csv", interp=spline)}\n'
        "R R1 b 0 R=1\nR R2 c 0 R=1\n.param k=1\n.step k 1 2 3\n.tran 0.5\n")
    made = []

    class Counted(datafiles.DataFile):
        def __init__(self, path, *args):
            made.append(path)
            super().__init__(path, *args)

    monkeypatch.setattr(datafiles, "DataFile", Counted)
    sweep = circuitsim.load(tmp_path / "n.cir").sweep()
    assert sorted(p.name for p in made) == ["supply.csv", "valve.csv"]
    assert len(sweep) == 3
    last = list(sweep.values())[-1]
    # B2 = 3 q(v(c)) with v(c) = 3.5 V at t = 0.5 s: between the points 3 and 4
    assert last["B2.i"][-1] == pytest.approx(3 * np.interp(3.5, x, valve(x)), rel=1e-12)


def test_a_data_file_is_found_beside_the_file_that_names_it(tmp_path):
    """A table in an included file reads from the included file's directory; a file
    outside the netlist's tree is refused, unless its directory is allowed."""
    (tmp_path / "parts").mkdir()
    write_csv(tmp_path / "parts" / "valve.csv", "", [0.0, 1.0], [0.0, 2.0])
    (tmp_path / "parts" / "valve.inc").write_text(
        '.subckt valve a b\nB B1 a b I={table(v(a, b), file="valve.csv")}\n.ends\n')
    (tmp_path / "top").mkdir()
    (tmp_path / "top" / "n.cir").write_text(
        '.include "../parts/valve.inc"\nV V1 a 0 V=0.25\nvalve X1 a 0\n.tran 1\n')
    with pytest.raises(circuitsim.NetlistError, match='is outside the netlist'):
        circuitsim.load(tmp_path / "top" / "n.cir")
    net = circuitsim.load(tmp_path / "top" / "n.cir", include_path=[tmp_path / "parts"])
    assert net.simulate()["X1.B1.i"][-1] == pytest.approx(0.5, rel=1e-12)


def test_a_file_too_large_is_refused_before_it_is_parsed(tmp_path, monkeypatch):
    write_csv(tmp_path / "big.csv", "t, v", np.arange(100.0), np.arange(100.0))
    (tmp_path / "n.cir").write_text('V V1 a 0 V=pwl(file="big.csv")\nR R1 a 0 1\n.tran 1\n')
    monkeypatch.setattr(datafiles, "MAX_ROWS", 50)
    monkeypatch.setattr(np, "loadtxt", None)          # never reached
    with pytest.raises(circuitsim.NetlistError) as exc:
        circuitsim.load(tmp_path / "n.cir")
    assert str(exc.value).startswith(f"{tmp_path / 'n.cir'}:1:21: pwl(): ")
    assert "has 101 lines; a data file may hold at most 50 rows" in str(exc.value)
    monkeypatch.setattr(datafiles, "MAX_BYTES", 1000)
    with pytest.raises(circuitsim.NetlistError, match=r"big.csv is 1.06 kB; a data file may "
                                                      r"hold at most 1000 bytes"):
        circuitsim.load(tmp_path / "n.cir")


def test_a_table_written_on_the_command_line_is_refused_with_a_located_message(tmp_path):
    write_csv(tmp_path / "q.csv", "", [0.0, 1.0], [0.0, 2.0])
    (tmp_path / "n.cir").write_text(".param k=1\nV V1 a 0 V={k}\nR R1 a 0 1\n.tran 1\n")
    net = circuitsim.load(tmp_path / "n.cir")
    with pytest.raises(circuitsim.NetlistError, match=r"its file is read where a netlist is "
                                                      r"loaded"):
        net.prepare(set={"k": '{table(0.5, file="q.csv")}'})


@pytest.mark.parametrize("expression, message, col", [
    ("table(x)", 'table() needs the file it reads: table(x, file="data.csv")', 2),
    ('table(x, y, file="a.csv")', 'table() takes 1 argument (x) and file="...", got 2', 2),
    ("table(x, file=a.csv)", 'table(): file= takes a quoted file name, e.g. file="data.csv"', 11),
    ('table(x, fil="a.csv")', "table(): unknown keyword 'fil' (known: file, column, interp, "
                              "extrap)", 11),
    ('table(x, file="a.csv", file="b.csv")', "table(): file is given twice", 25),
    ('table(file="a.csv", x)', "table(): x comes before the keywords", 2),
    ('table(x, file="a.csv", column=0)', "table(): column= takes a column's name in the header "
                                         "or its number counted from 1 (column=2 is the first "
                                         "after x)", 25),
    ('table2(x, file="m.csv")', 'table2() takes 2 arguments (x, y) and file="...", got 1', 2),
    ('table2(x, y, file="m.csv", interp=spline)', "table2(): unknown keyword 'interp' (known: "
                                                  "file)", 29),
    ("sin(x, n=2)", "sin() takes no keyword arguments", 9)])
def test_a_bad_table_call_is_located_in_the_expression(expression, message, col):
    with pytest.raises(circuitsim.NetlistError) as exc:
        circuitsim.parse(f"B B1 a 0 I={{{expression}}}\nR R1 a 0 1\n.tran 1\n")
    assert exc.value.message == message
    assert (exc.value.loc.line, exc.value.loc.col) == (1, 12 + col - 1)
