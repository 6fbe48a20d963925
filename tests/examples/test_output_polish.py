"""Output points polished only where it changes something (solver item (18), Newton.polish):
every shipped example and every study, with every interpolated point polished as the solver
did before (recording.POLISH_ALL) against the rule (only if a recorded unknown is algebraic
or a recorded output reads a differential one's y', and then, with no y' recorded, only
where the first update moves an algebraic unknown beyond the tolerance). Every recorded
variable, multipliers, joint forces and capacitor currents included, agrees within the
run's tolerance
rtol·|y| + atol·nominal (the error test's weights, a vector's components measured
against the vector).

The runs go over the first tenth of each netlist's .tran (the whole of every example
twice would take minutes); the points are the same kind."""
import numpy as np
import pytest

import circuitsim
from circuitsim.elements.declarations import NOMINAL
from circuitsim.solver import recording
from circuitsim.solver.bdf import solve

from helpers import NETLISTS

RUN_FRACTION = 0.1
BOUND = 1.0         # tolerance units; measured worst 0.29 (double_pendulum "velocity")

CASES = [(path.stem, study) for path in sorted(NETLISTS.glob("*.cir"))
         for study in [None] + list(circuitsim.load(path).studies)]


def _vector(name: str) -> str:
    """A vector's name for its components (B.Hx, B.Hy, B.Hz -> B.H)."""
    return name[:-1] if name[-1] in "xyz" else name


def _worst(case, polished_all, kept, names) -> float:
    """The largest difference in tolerance units, rtol·|y| + atol·nominal, where |y| of
    a vector's component is the vector's largest component at that time (as the error
    test's magnitude groups: a component through zero is measured against the vector)."""
    tr = case.system.circuit.tran
    size = {}
    for name in kept.names:
        both = np.maximum(np.abs(polished_all[name]), np.abs(kept[name]))
        size[_vector(name)] = np.maximum(size.get(_vector(name), 0.0), both)
    worst = 0.0
    for name in names:
        a, b = np.asarray(polished_all[name]), np.asarray(kept[name])
        weight = tr.rtol * size[_vector(name)] + \
            tr.atol * NOMINAL.get(case.system.units.get(name), 1.0)
        worst = max(worst, float(np.max(np.abs(a - b) / weight)))
    return worst


@pytest.mark.parametrize("netlist, study", CASES)
def test_polish_rule_keeps_results_within_tolerance(netlist, study, monkeypatch):
    case = circuitsim.load(NETLISTS / f"{netlist}.cir").prepare(study)
    t_end = case.system.circuit.tran.tstop * RUN_FRACTION
    monkeypatch.setattr(recording, "POLISH_ALL", True)
    polished_all = case.run(t_end=t_end)
    monkeypatch.setattr(recording, "POLISH_ALL", False)
    kept = case.run(t_end=t_end)
    assert list(kept.names) == list(polished_all.names)
    assert np.array_equal(kept.t, polished_all.t)
    assert _worst(case, polished_all, kept, kept.names) <= BOUND


RC = (".tran 1m 10u\nV V1 in 0 V=sin(0, 1, 1k)\nR R1 in out R=1k\nC C1 out 0 C=1u\n"
      ".probe out C1.i\n")


def test_a_recorded_rate_counts_its_differential_unknowns():
    """A capacitor's current C·dv/dt reads y' of its nodes: recording it makes them
    recorded rates (``System.recorded_unknowns``), the resistor's current does not."""
    system = circuitsim.parse(RC).prepare().system
    values, rates = system.recorded_unknowns(["C1.i"])
    assert {system.names[i] for i in np.flatnonzero(rates)} == {"out"}
    assert set(np.flatnonzero(values)) == set(np.flatnonzero(rates))
    assert not system.recorded_unknowns(["R1.i"])[1].any()


def test_a_recorded_rate_is_polished_at_every_point(monkeypatch):
    """With a y' recorded, every interpolated point is polished as before: the results are
    those of polishing all of them, bit for bit."""
    case = circuitsim.parse(RC).prepare()
    monkeypatch.setattr(recording, "POLISH_ALL", True)
    polished_all = case.run()
    monkeypatch.setattr(recording, "POLISH_ALL", False)
    kept = case.run()
    for name in kept.names:
        assert np.array_equal(kept[name], polished_all[name]), name


def _polishers(system, recorded) -> list:
    """The recorder's polish at every step of a solver run where ``recorded`` is what is
    written (solver item (18))."""
    system.recorded, system.recorded_rates = system.recorded_unknowns(recorded)
    calls = []
    original = recording.Recorder.step

    def step(self, *args, **kwargs):
        calls.append(self.polish)
        return original(self, *args, **kwargs)
    try:
        recording.Recorder.step = step
        solve(system, 0.0, 1e-3, system.initial_values(), t_out=np.linspace(0, 1e-3, 101))
    finally:
        recording.Recorder.step = original
    assert calls
    return calls


def test_polish_off_without_recorded_algebraic_unknowns_or_rates():
    """Differential unknowns recorded, no rate: no output point is polished; the
    capacitor's current recorded as well: every one is."""
    system = circuitsim.parse(RC).prepare().system
    assert all(polish is None for polish in _polishers(system, ["out"]))
    assert all(polish is not None for polish in _polishers(system, ["out", "C1.i"]))
