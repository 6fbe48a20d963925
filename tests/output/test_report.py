"""Run report (issue 5): power balance, Kirchhoff residuals, joint violations, checked
against independent computations from the recorded variables."""
import numpy as np
import pytest

from circuitsim import cli

from helpers import load_netlist, netlist_path

from scipy.integrate import simpson

trapezoid = getattr(np, "trapezoid", None) or np.trapz


def test_power_balance_of_the_dc_motor_matches_the_recorded_supply_power():
    """W_in = ∫ V·i dt from the recorded current (12 V step); the stored energy
    ½·L·i² + ½·J·ω² from the recorded states; dissipation = R·i² + b·ω² integrated
    (Simpson's rule over the 10 µs output points, independent of the report's own
    quadrature over the solver's steps)."""
    net = load_netlist("dcmotor.cir")
    # 0.05 s: the first part of the spin-up (mechanical time constant J*R/k^2 = 40 ms),
    # 5000 output points for Simpson's rule
    res = net.simulate(report=True, rtol=1e-8, atol=1e-10, tstep=1e-5, t_end=0.05)
    e = res.report.energy
    i, w, t = res["La.i"], res["shaft"], res.t
    assert e["W_in"] == pytest.approx(simpson(12.0 * i, x=t), rel=1e-8)     # measured 1.7e-11
    stored = 0.5 * 0.5e-3 * i[-1] ** 2 + 0.5 * 1e-4 * w[-1] ** 2
    assert e["dE"] == pytest.approx(stored, rel=1e-12)
    assert e["W_diss"] == pytest.approx(simpson(1.0 * i * i + 1e-5 * w * w, x=t), rel=1e-8)
    # the balance closes to the run's tolerance (measured 2.2e-9), whatever the output
    # interval: the work is summed over the solver's steps (cut at the recorded points)
    assert e["relative"] < 5e-8
    coarse = net.simulate(report=True, rtol=1e-8, atol=1e-10, tstep=1e-3,
                          t_end=0.05).report.energy
    assert coarse["W_in"] == pytest.approx(e["W_in"], rel=1e-9)
    tight = net.simulate(report=True, rtol=1e-10, atol=1e-12, t_end=0.05).report.energy
    assert tight["relative"] < 1e-9                                    # measured 2.4e-10


def test_free_mass_spring_damper_dissipates_its_stored_energy():
    res = load_netlist("msd.cir").simulate(report=True, rtol=1e-8, atol=1e-10)
    e = res.report.energy
    assert e["W_in"] == 0.0
    assert e["dE"] == pytest.approx(-0.5 * 100 * 0.1 ** 2, rel=1e-4)   # decayed in 5 s
    assert e["relative"] < 2e-6                                         # measured 2.8e-7


def gap(joint) -> float:
    """The largest gap of a report's joint entry (name, [(output, value, unit)])."""
    return next(value for name, value, _ in joint[1] if name == "gap")


def test_report_lists_joint_violations_quaternions_and_kirchhoff(tmp_path, capsys):
    res = load_netlist("fourbar.cir").simulate(report=True, t_end=0.5)
    rep = res.report
    assert [j[0] for j in rep.joints] == ["JA", "JB", "JC", "JD"]
    for _, items in rep.joints:                 # gap (m) and twist (rad) of each joint
        assert [(name, unit) for name, _, unit in items] == [("gap", "m"), ("twist", "rad")]
    assert all(gap(j) < 1e-6 for j in rep.joints)            # position model: ~rtol
    assert {b[0] for b in rep.bodies} == {"crank", "coupler", "rocker"}
    assert max(b[1] for b in rep.bodies) < 1e-5
    nodes = {node for node, _, _ in rep.kirchhoff}
    assert "crank.vx" in nodes and rep.kirchhoff[0][1] < 1e-2   # N, forces ~ 10 N
    # the velocity model drifts further than the position model
    fast = load_netlist("fourbar.cir").simulate(study="fast", report=True,
                                                t_end=0.5).report
    assert max(map(gap, fast.joints)) > max(map(gap, rep.joints))
    # the command line prints it: the netlist run for the same 0.5 s (a copy, .tran 0.5)
    text = netlist_path("fourbar.cir").read_text()
    assert ".tran 2 2m" in text
    short = tmp_path / "fourbar.cir"
    short.write_text(text.replace(".tran 2 2m", ".tran 0.5 2m"))
    assert cli.main(["run", str(short), "--report", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "run report" in out and "power balance over the run" in out


def test_warnings_are_capped_and_counted(tmp_path, capsys):
    lines = [f"body B{k} m=1 J=(1, 1, 1) pos=({k}, 0, 0)" for k in range(25)] + [
        "V V1 a 0 V=1", "R Ra a 0 R=1", ".tran 1m"]
    # every body is attached to nothing and has no initial motion: 25 warnings
    path = tmp_path / "many.cir"
    path.write_text("\n".join(lines) + "\n")
    assert cli.main(["run", str(path), "--quiet"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len([line for line in err if line.startswith("warning:")]) == 11
    assert err[-1] == "warning: ... and 15 more warnings (`circuitsim check` lists them all)"


# --- the power balance classifies each kind of element -----------------------------------
def test_a_behavioural_source_is_an_input():
    """B driving a resistor: the work it supplies is dissipated (it was counted as
    dissipation, leaving "input 0 J")."""
    import circuitsim
    res = circuitsim.parse("B B1 a 0 V={2*sin(10*time)}\nR R1 a 0 R=4\n.tran 1 1m\n").simulate(
        report=True)
    e = res.report.energy
    supplied = 0.5 - np.sin(20.0) / 40.0           # ∫ (2 sin 10t)²/4 dt over 1 s
    assert e["W_in"] == pytest.approx(supplied, rel=1e-6)           # measured 9.7e-8
    assert e["W_diss"] == pytest.approx(e["W_in"], rel=1e-12) and e["dE"] == 0


def test_an_applied_force_is_an_input():
    """A constant 3 N along x on a free 2 kg body from rest: the input work F·x equals the
    kinetic energy gained, nothing is dissipated."""
    import circuitsim
    res = circuitsim.parse("body B m=2 J=(1, 1, 1)\nforce F1 B F=(3, 0, 0)\n.tran 1 10m\n"
                           ).simulate(report=True, rtol=1e-9, atol=1e-12)
    e = res.report.energy
    work = 3 * res["B.x"][-1]                      # x = ½ (F/m) t² = 0.75 m
    assert res["B.x"][-1] == pytest.approx(0.75, rel=1e-9)
    assert e["W_in"] == pytest.approx(work, rel=1e-6)
    assert e["dE"] == pytest.approx(work, rel=1e-9)
    assert abs(e["W_diss"]) < 1e-6 * work


def test_a_damped_3d_spring_dissipates_rather_than_stores():
    """A body on a damped spring3d, released stretched, no gravity: what is dissipated is
    the energy lost, ∫ c·(dL/dt)² dt, not "stored" (as it was counted before)."""
    import circuitsim
    res = circuitsim.parse(
        "body B m=1 J=(1, 1, 1) pos=(1.2, 0, 0)\n"
        "spring3d S 0 B k=100 c=2 L0=1 at1=(0, 0, 0) at2=(1.2, 0, 0)\n"
        ".tran 2 2m\n").simulate(report=True, rtol=1e-9, atol=1e-12)
    e, t = res.report.energy, res.t
    vx = res["B.vx"]
    # dL/dt = vx along the x axis; Simpson over the 2 ms points (~30 a period of 0.63 s):
    # measured 3.6e-8 from the report's sum over the solver's steps
    lost = simpson(2 * vx ** 2, x=t)
    stored_at_start = 0.5 * 100 * 0.2 ** 2
    assert e["W_in"] == 0
    assert e["W_diss"] == pytest.approx(lost, rel=1e-5)
    assert e["dE"] == pytest.approx(-lost, rel=1e-5)
    assert 0.5 * stored_at_start < lost < stored_at_start
    assert e["relative"] < 1e-7


def test_a_behavioural_source_declared_a_loss_dissipates_and_is_named():
    """A pump (flow source) into a library orifice to tank: the orifice's B source is
    power=loss, so its throttling is dissipation, named in the report, and equals the
    pump's input p·Q; the same B source without the declaration is an input."""
    import circuitsim
    text = ".lib hydraulics\npump P1 p Q=1e-4\norifice OR p 0 A=1e-5\n.tran 0.1 1m\n"
    res = circuitsim.parse(text).simulate(report=True, rtol=1e-9, atol=1e-12)
    e = res.report.energy
    supplied = res["p"][-1] * 1e-4 * 0.1           # the pressure is constant: p·Q·t
    assert e["W_in"] == pytest.approx(supplied, rel=1e-9)
    assert e["W_diss"] == pytest.approx(supplied, rel=1e-9) and e["dE"] == 0
    assert e["losses"][0][0] == "OR.Q" and e["losses"][0][1] == pytest.approx(supplied,
                                                                               rel=1e-9)
    assert "dissipated by: OR.Q" in res.report.text()
    plain = circuitsim.parse(".param A=1e-5 k={0.7*A*sqrt(2/850)}\n"
                             "I P1 0 p I=1e-4 domain=hydraulic\n"
                             "B Q p 0 I={k*v(p)/(v(p)^2 + 1e8)^0.25} domain=hydraulic\n"
                             ".tran 0.1 1m\n").simulate(report=True).report.energy
    assert plain["W_diss"] == 0 and plain["W_in"] == pytest.approx(0.0, abs=1e-9 * supplied)


def test_landing_gear_report_names_the_orifice_losses(capsys):
    """As a user runs it: the meter-out orifice burns most of the pump's work (it was
    counted as a negative input) and the balance closes within the run's tolerance (the
    work is summed over the solver's steps, so the cylinder's impact on its end stop
    between two 10 ms output points counts)."""
    assert cli.main(["run", str(netlist_path("landing_gear.cir")), "--report",
                     "--quiet"]) == 0
    text = capsys.readouterr().out
    line = next(l for l in text.splitlines() if "dissipated by:" in l)
    assert line.split("dissipated by: ")[1].startswith("OB.Q ")
    balance = next(l for l in text.splitlines() if "power balance" in l)
    relative = float(balance.split(", ")[-1].split(" of the")[0])
    assert relative < 1e-6                # measured 1.95e-8 (1.41e-3 over the output points)


def test_signal_nodes_carry_no_power_and_no_flow_balance():
    """The speed loop: a PID on signal nodes drives the motor's voltage. Signal rows are
    block equations, not flow balances: the report leaves them out of both, and the
    motor's balance closes (input = the driven voltage's work)."""
    res = load_netlist("speed_loop.cir").simulate(report=True, rtol=1e-8, atol=1e-10)
    rep = res.report
    signal_nodes = {name for name, node in load_netlist("speed_loop.cir").prepare()
                    .circuit.nodes.items() if node.domain == "signal"}
    assert signal_nodes and not signal_nodes & {node for node, _, _ in rep.kirchhoff}
    assert rep.energy["relative"] < 1e-7                  # measured 1.1e-8
    assert [name for name, _ in rep.energy["losses"]][:2] == ["Ra", "Bb"]
