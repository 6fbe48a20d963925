"""The model inside an exported FMU (FMI 2.0 co-simulation, run by pythonfmu's binary).

The exporter writes this file's text, followed by the model's class, as the FMU's model
script: the class pythonfmu instantiates must be defined in that script's own module
(with a base class imported from another module, pythonfmu 0.7 failed to instantiate the
model a second time in one process, then crashed).

It reads the interface the exporter wrote (``circuitsim_fmu.json`` in the FMU's resources:
the netlist, its inputs, outputs and parameters with their FMI names) and runs the netlist
with the circuitsim copy packaged beside it: parameters are applied when initialisation
ends, each ``doStep`` advances a resumable run (circuitsim.run.resumable) to the next
communication point, the inputs set by the master held over the step.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from pythonfmu import Fmi2Causality, Fmi2Slave, Fmi2Variability, Real
from pythonfmu.default_experiment import DefaultExperiment
from pythonfmu.enums import Fmi2Initial, Fmi2Status

INTERFACE = "circuitsim_fmu.json"      # written by circuitsim.bridges.fmu


class CircuitsimSlave(Fmi2Slave):
    """A netlist as an FMI 2.0 co-simulation slave."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.folder = Path(self.resources)
        self.spec = json.loads((self.folder / INTERFACE).read_text(encoding="utf-8"))
        self.description = self.spec["description"]
        self.author = "circuitsim"
        experiment = self.spec["experiment"]
        self.default_experiment = DefaultExperiment(0.0, experiment["stop"],
                                                    experiment["step"], experiment["rtol"])
        self.values: dict = {}          # FMI name -> value
        self.inputs_set: set = set()    # inputs the master set since the last step
        for p in self.spec["parameters"]:
            self._variable(p, Fmi2Causality.parameter, Fmi2Variability.fixed,
                           Fmi2Initial.exact)
        for i in self.spec["inputs"]:
            self._variable(i, Fmi2Causality.input, Fmi2Variability.continuous, None,
                           on_set=self.inputs_set.add)
        for o in self.spec["outputs"]:
            self._variable(o, Fmi2Causality.output, Fmi2Variability.continuous,
                           Fmi2Initial.exact)
        self.run = None
        self.tolerance = None

    def _variable(self, item: dict, causality, variability, initial, on_set=None) -> None:
        name = item["fmi"]
        self.values[name] = item["start"]

        def setter(value, name=name):
            self.values[name] = float(value)
            if on_set is not None:
                on_set(name)
        description = item["name"] + (f" [{item['unit']}]" if item.get("unit") else "")
        self.register_variable(
            Real(name, start=item["start"], causality=causality, variability=variability,
                 initial=initial, description=description,
                 getter=lambda name=name: self.values[name],
                 setter=None if causality == Fmi2Causality.output else setter))

    def setup_experiment(self, start_time, stop_time, tolerance):
        if start_time not in (None, 0, 0.0):
            self.log(f"the model's time starts at 0 s; startTime {start_time} is not "
                     "supported", Fmi2Status.error)
        self.tolerance = tolerance

    def exit_initialization_mode(self):
        os.environ.setdefault("CIRCUITSIM_KERNELS", "numpy")   # no compile in a host
        from circuitsim.errors import CircuitsimError
        try:
            self._start()
        except CircuitsimError as exc:        # a parameter value the netlist refuses, ...
            self.log(f"the model could not start: {exc}", Fmi2Status.error)
            raise

    def _start(self) -> None:
        """The case with the master's parameters, its run started with the inputs set so
        far."""
        import circuitsim
        spec = self.spec
        net = circuitsim.load(self.folder / spec["netlist"])
        settings = dict(spec["set"])
        for p in spec["parameters"]:
            if self.values[p["fmi"]] != p["start"]:
                settings[p["name"]] = self.values[p["fmi"]]
        case = net.prepare(spec["study"], settings)
        held = {i["name"]: self.values[i["fmi"]] for i in spec["inputs"]
                if i["fmi"] in self.inputs_set}
        self.inputs_set.clear()
        options = {} if not self.tolerance else {"rtol": float(self.tolerance)}
        self.run = case.start_run([i["name"] for i in spec["inputs"]], held=held,
                                  horizon=spec["experiment"]["stop"], **options)
        self._outputs()

    def do_step(self, current_time, step_size):
        from circuitsim.errors import SolverError
        run = self.run
        for i in self.spec["inputs"]:
            if i["fmi"] in self.inputs_set:
                run.set(i["name"], self.values[i["fmi"]])
        self.inputs_set.clear()
        try:
            run.advance(current_time + step_size)
        except SolverError as exc:
            self.log(f"the run stopped at t = {run.t:.9g} s: {exc}", Fmi2Status.error)
            return False
        self._outputs()
        return True

    def _outputs(self) -> None:
        values = self.run.values()
        for o in self.spec["outputs"]:
            self.values[o["fmi"]] = values[o["name"]]
