"""A case run in pieces, its inputs set between them: what a co-simulation master (an FMU's
``doStep``), a notebook or an optimiser drives.

    run = net.prepare().start_run(inputs=["Vsup.V"])
    run.set("Vsup.V", 10.0)         # held from now on
    run.advance(0.1)                # integrate to t = 0.1 s and land there
    run["shaft"]                    # a recorded variable at t = 0.1 s

An input is a source value named by ``ELEMENT.PARAM`` (a parameter that may be a function
of time: a source's V, I, F, T, a drive's value). Until it is first set it follows the
function the netlist writes; once set it holds the value until set again. A change is a
discontinuity at the current time: the next ``advance`` restarts the integration there as
at a breakpoint (differential unknowns kept, algebraic unknowns and rates made consistent
with the new value). Without a change the integration goes on through the communication
point with its order and step history.
"""
from __future__ import annotations

import numpy as np

from ..assembly.startup import kinematic_start
from ..errors import did_you_mean
from ..solver import bdf
from .inputs import hold


class ResumableRun:
    """A system integrated from t = 0 in pieces (made by ``Case.start_run``): ``names``
    the recorded variables, ``record(T, Y, YP)`` their values at points, ``inputs`` the
    ELEMENT.PARAM names set from outside; ``held``: {input: value} held from t = 0 (the
    start is consistent with them); ``horizon``: the time scale of the whole run, from
    which the first and the smallest step are set; ``rtol``, ``atol`` override the
    netlist's settings; ``max_step``: a number, or a function of the horizon."""

    def __init__(self, system, names: list, record, inputs, *, held=None, horizon=None,
                 rtol=None, atol=None, max_step=None):
        tr = system.circuit.tran
        locs = dict(system.circuit.inputs)
        self.inputs = {name: hold(system, name, locs.get(name)) for name in inputs}
        for name, value in (held or {}).items():        # set before the start
            self.set(name, value)
        self.names = list(names)
        self.units = {n: system.units[n] for n in self.names if n in system.units}
        self.horizon = float(horizon or tr.tstop or 1.0)
        start = kinematic_start(system, system.initial_values())
        system.classify(0.0, start.y0)
        system.recorded = system.recorded_rates = None
        self.start_up = start
        self._record = record
        self._solver = bdf.start(system, 0.0, start.y0, horizon=self.horizon,
                                 rtol=tr.rtol if rtol is None else rtol,
                                 atol=tr.atol if atol is None else atol,
                                 max_step=max_step(self.horizon) if callable(max_step)
                                 else max_step, first_step=tr.h0, max_order=tr.maxorder)
        self._changed = False
        self._values = None

    @property
    def t(self) -> float:
        """The time reached."""
        return float(self._solver.hist.t)

    @property
    def stats(self) -> dict:
        """The solver's counters so far (nsteps, nrestart, ...)."""
        return dict(self._solver.stats)

    def set(self, name: str, value: float) -> None:
        """Hold the input ``name`` at ``value`` from the current time on."""
        try:
            held = self.inputs[name].function
        except KeyError:
            raise KeyError(f"no input '{name}' (inputs: {', '.join(self.inputs) or 'none'})"
                           + (f"; {hint}" if (hint := did_you_mean(name, self.inputs))
                              else "")) from None
        value = float(value)
        if held.value != value:
            held.hold(value)
            self._changed = True

    def advance(self, t_next: float) -> None:
        """Integrate to ``t_next`` (> the time reached) and land there. A solver failure
        raises its SolverError; the run is then at the last point it reached."""
        if not t_next > self.t:
            raise ValueError(f"advance to t = {t_next!r}: not after the time reached, "
                             f"{self.t!r}")
        restart, self._changed = self._changed, False
        self._values = None
        self._solver.advance(float(t_next), restart)

    def values(self) -> dict:
        """{recorded variable: value} at the time reached."""
        if self._values is None:
            t, y, yp = self._solver.state()
            row = self._record(np.array([t]), y[None, :], yp[None, :])[0]
            self._values = dict(zip(self.names, map(float, row)))
        return self._values

    def __getitem__(self, name: str) -> float:
        values = self.values()
        if name not in values:
            hint = did_you_mean(name, self.names)
            raise KeyError(f"no recorded variable '{name}'" + (f"; {hint}" if hint else ""))
        return values[name]


