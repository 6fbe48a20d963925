"""Output points polished only where it changes something (solver item (18), Newton.polish):
every shipped example and every study, with every interpolated point polished as the solver
did before (recording.POLISH_ALL) against the rule (only if a recorded unknown is algebraic,
only where the first update moves an algebraic unknown beyond the tolerance). Every recorded
variable, multipliers and joint forces included, agrees within the run's tolerance
rtol·|y| + atol·nominal (the error test's weights, a vector's components measured
against the vector).

The runs go over the first tenth of each netlist's .tran (the whole of every example
twice would take minutes); the points are the same kind."""
import numpy as np
import pytest

import circuitsim
from circuitsim.elements.declarations import NOMINAL
from circuitsim.solver import recording

from helpers import NETLISTS

RUN_FRACTION = 0.1
BOUND = 1.0         # tolerance units; measured worst 0.29 (double_pendulum "velocity")
# Outputs computed from y' (a capacitor's current) keep the interpolant's y' at a point
# kept, as every output point of a problem without algebraic unknowns does.
RATE_BOUND = 50.0   # measured worst 0.31 here (landing_gear "soft"); 35.5 over rlc's whole run (C1.i)

CASES = [(path.stem, study) for path in sorted(NETLISTS.glob("*.cir"))
         for study in [None] + list(circuitsim.load(path).studies)]


def _rate_outputs(system) -> set:
    """The outputs that change with y' (read at a random point)."""
    rng = np.random.default_rng(0)
    t, y, yp = np.array([0.1]), rng.random((1, system.n)), rng.random((1, system.n))
    before = system.compute_outputs(t, y, yp)[0]
    after = system.compute_outputs(t, y, yp + 1.0)[0]
    return {name for name, a, b in zip(system.output_names(), before, after) if a != b}


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
    rates = _rate_outputs(case.system)
    assert _worst(case, polished_all, kept, [n for n in kept.names if n not in rates]) <= BOUND
    assert _worst(case, polished_all, kept, [n for n in kept.names if n in rates]) <= RATE_BOUND


def test_polish_off_without_recorded_algebraic_unknowns():
    """A .probe of differential unknowns only: no output point is polished (the problem's
    ``recorded`` leaves every algebraic unknown out)."""
    net = circuitsim.parse(".tran 1m 10u\nV V1 in 0 V=sin(0, 1, 1k)\nR R1 in out R=1k\n"
                           "C C1 out 0 C=1u\n.probe out\n")
    case = net.prepare()
    calls = []
    original = recording.Recorder.step

    def step(self, *args, **kwargs):
        calls.append(self.polish)
        return original(self, *args, **kwargs)
    try:
        recording.Recorder.step = step
        case.run()
    finally:
        recording.Recorder.step = original
    assert calls and all(polish is None for polish in calls)
