"""Output points between steps (Newton.polish) against the values consistent with the
interpolated positions and velocities, solved independently: the joints' acceleration-
level form (the one the start-up uses) solved to 1e-10 at each output point with every
differential unknown kept. The polish leaves out the invariant rows (position and
velocity constraints): their residual at an interpolated point is the interpolant's
error in the positions and velocities, and solving it for the multipliers moved the
four-bar's reaction forces up to 448 tolerance units off those values (now 149)."""
import numpy as np

import circuitsim
from circuitsim.solver import newton, recording
from circuitsim.solver.initial import consistent_initial_conditions

from helpers import NETLISTS

BOUND = 250.0        # tolerance units (rtol·|F| + atol); measured worst 149 (JD.Fx)


def test_polished_reactions_are_near_the_consistent_ones(monkeypatch):
    case = circuitsim.load(NETLISTS / "fourbar.cir").prepare(None)
    tran = case.system.circuit.tran
    monkeypatch.setattr(recording, "POLISH_ALL", True)
    polish = newton.Newton.polish

    def exactly(self, t, y, yp, algebraic, ewt, fit=None):
        init = self.problem.for_initialisation or self.problem
        y1, yp1, _ = consistent_initial_conditions(init, t, y, yp, rtol=1e-10, atol=1e-13)
        return y1, yp1

    monkeypatch.setattr(newton.Newton, "polish", exactly)
    exact = case.run(t_end=tran.tstop * 0.1)
    monkeypatch.setattr(newton.Newton, "polish", polish)
    polished = case.run(t_end=tran.tstop * 0.1)
    assert np.array_equal(exact.t, polished.t)
    worst = 0.0
    for joint in ("JA", "JD"):                  # the probed ones
        F = np.stack([np.asarray(exact[f"{joint}.F{a}"]) for a in "xy"])
        G = np.stack([np.asarray(polished[f"{joint}.F{a}"]) for a in "xy"])
        weight = tran.rtol * np.max(np.abs(F), axis=0) + tran.atol
        worst = max(worst, float(np.max(np.abs(G - F) / weight)))
    assert 0.0 < worst < BOUND, worst
