"""What a notebook shows: a Result and a Netlist as HTML summaries (every text escaped),
and Result.plot's matplotlib Figure, built by the same function as the command line's
PNG."""
import sys
from html import escape

import numpy as np
import pytest

import circuitsim
from circuitsim import CircuitsimError
from circuitsim.output.results import Result

from helpers import load_netlist


@pytest.fixture(scope="module")
def motor():
    net = load_netlist("dcmotor.cir")
    return net, net.simulate(t_end=0.05)


def test_result_html_lists_every_variable_with_its_unit(motor):
    _, res = motor
    html = res._repr_html_()
    for name in res.names:
        unit = res.units[name]
        assert f"<tr><td>{name}</td><td>{unit}</td>" in html
    assert "<td>shaft</td><td>rad/s</td>" in html and "<td>La.i</td><td>A</td>" in html
    assert f"<td>{res['shaft'][-1]:.6g}</td>" in html        # the final value


def test_result_html_gives_status_span_and_solver_counters(motor):
    _, res = motor
    html = res._repr_html_()
    assert "status: <strong>success</strong>" in html
    assert res.message and res.message in html
    assert f"t = 0 … 0.05 s, {len(res.t)} points, {len(res.names)} variables" in html
    assert f"{res.stats['nsteps']} steps" in html
    assert f"{res.stats['nfail_err']} rejected steps" in html
    assert f"{res.stats['nlu']} LU factorisations" in html


def test_result_html_escapes_titles_names_and_messages():
    res = Result([0.0, 1.0], ["x<1"], [[1.0], [2.0]], {"nsteps": 3}, status="failed",
                 message="stopped at t < 1 & why", units={"x<1": "m"},
                 title="<script>alert(1)</script> gear")
    html = res._repr_html_()
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt; gear" in html
    assert "<td>x&lt;1</td><td>m</td><td>2</td>" in html
    assert "stopped at t &lt; 1 &amp; why" in html and "3 steps" in html
    assert "rejected steps" not in html          # a counter the run did not report


def test_swept_results_show_their_parameters():
    res = Result([0.0], ["x"], [[0.0]], case="k=2k", parameters={"k": 2000.0})
    html = res._repr_html_()
    assert "k=2k" in html and "parameters (SI): k = 2000" in html


def test_netlist_html_is_the_check_summary(motor):
    net, _ = motor
    html = net._repr_html_()
    lines = net.check().lines()
    assert f"<strong>{lines[0]}</strong>" in html
    for line in lines[1:]:
        assert line.strip() in html
    assert "unknowns: 7 (2 differential, 5 algebraic)" in html


def test_netlist_html_lists_warnings_escaped():
    net = load_netlist("fourbar.cir")
    report = net.check()
    assert report.warnings
    html = net._repr_html_()
    message, loc = report.warnings[0]
    assert f"<li>warning: {loc}: " in html
    assert "degrees of freedom: 1" in html


def test_a_netlist_that_does_not_check_shows_its_error():
    net = circuitsim.parse(".title <bad> & broken\nR R1 a 0 R={nope}\nV V1 a 0 V=1\n"
                           ".tran 1\n", "bad<1>.cir")
    with pytest.raises(CircuitsimError) as info:
        net.check()
    html = net._repr_html_()
    assert "<strong>bad&lt;1&gt;.cir</strong>: the netlist does not check" in html
    assert f"<pre>{escape(str(info.value))}</pre>" in html
    assert "unknown name &#x27;nope&#x27;" in html and "R={nope}" in html


def test_plot_has_one_panel_per_variable_with_the_results_data(motor):
    _, res = motor
    fig = res.plot("shaft", "La.i")
    assert len(fig.axes) == 2
    for ax, var in zip(fig.axes, ["shaft", "La.i"]):
        (line,) = ax.get_lines()
        assert np.array_equal(line.get_xdata(), res.t)
        assert np.array_equal(line.get_ydata(), res[var])
        assert ax.get_ylabel() == f"{var} [{res.units[var]}]"
    assert fig.axes[-1].get_xlabel() == "time [s]"
    assert fig.get_suptitle() == res.title


def test_plot_overlays_a_second_run_on_given_axes(motor):
    net, res = motor
    other = net.simulate(t_end=0.05, set={"k": 0.06}, case="k=0.06")
    fig = res.plot("shaft")
    same = other.plot("shaft", ax=fig.axes[0])
    assert same is fig and len(fig.axes) == 1
    lines = fig.axes[0].get_lines()
    assert len(lines) == 2 and np.array_equal(lines[1].get_ydata(), other["shaft"])
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["k=0.06"]
    with pytest.raises(CircuitsimError, match="2 variables need as many axes, got 1"):
        other.plot("shaft", "La.i", ax=fig.axes)


def test_a_sweep_plots_its_cases_on_the_same_panels():
    sweep = load_netlist("dcmotor.cir").sweep(step={"k": [0.04, 0.06]}, t_end=0.02)
    fig = sweep.plot("shaft", "La.i")
    assert len(fig.axes) == 2
    for ax, var in zip(fig.axes, ["shaft", "La.i"]):
        assert [line.get_label() for line in ax.get_lines()] == ["k=0.04", "k=0.06"]
        for line, res in zip(ax.get_lines(), sweep.values()):
            assert np.array_equal(line.get_ydata(), res[var])
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ["k=0.04", "k=0.06"]


def test_plot_names_a_missing_variable_and_needs_one(motor):
    _, res = motor
    with pytest.raises(CircuitsimError, match="Result.plot: no recorded variable 'shaf'; "
                                              "did you mean 'shaft'"):
        res.plot("shaf")
    with pytest.raises(CircuitsimError, match="name at least one variable"):
        res.plot()


def test_plot_leaves_pyplot_and_the_backend_alone(motor):
    """A notebook shows the returned figure once: it is not left open in pyplot (which
    would show it a second time and keep it alive), and the inline backend is not
    switched to Agg."""
    import matplotlib
    import matplotlib.pyplot as plt
    _, res = motor
    backend, figures = matplotlib.get_backend(), plt.get_fignums()
    res.plot("shaft")
    assert plt.get_fignums() == figures and matplotlib.get_backend() == backend


def test_the_command_line_png_comes_from_the_same_figure(motor, tmp_path, monkeypatch):
    from circuitsim.output import plotting
    _, res = motor
    built = []
    original = plotting.figure
    monkeypatch.setattr(plotting, "figure",
                        lambda *args, **kw: built.append(args) or original(*args, **kw))
    path = plotting.plot({"": res}, ["shaft"], tmp_path / "m.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and len(built) == 1


def test_plot_without_matplotlib_says_how_to_install_it(motor, monkeypatch):
    _, res = motor
    monkeypatch.setitem(sys.modules, "matplotlib", None)            # import fails
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(CircuitsimError, match=r"plotting needs matplotlib: pip install "
                                              r"'circuitsim\[plot\]'"):
        res.plot("shaft")
