"""The Python API: ``circuitsim.load(path)`` / ``circuitsim.parse(text)`` -> Netlist.

    net = circuitsim.load("netlists/rlc.cir")
    res = net.simulate(t_end=5.0, study="elastic")
    res.t, res["n3"], res.to_csv("out.csv")
"""
from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np

from .assembly.startup import kinematic_start
from .assembly.system import System
from .errors import Loc, NetlistError, did_you_mean
from .gcpause import gc_paused
from .netlist import ast, elaborate, loader
from .netlist.parser import parse as parse_text
from . import report as run_report
from .results import Result, StreamWriter
from .solver import solve

STEPS_PER_PERIOD = 40    # smallest number of steps per period of a sine input
MIN_STEPS = 50           # a run takes at least this many steps (as SPICE's TMAX)


def load(path) -> "Netlist":
    """Read and parse a netlist file (with its ``.include``/``.lib`` files)."""
    path = str(path)
    return Netlist(loader.load_statements(loader.read_file(path), path), path)


def parse(text: str, filename: str = "<string>") -> "Netlist":
    """Parse netlist text (``.include`` paths are relative to the working directory)."""
    return Netlist(loader.load_statements(text, filename), filename)


def _override_assigns(settings) -> list:
    """``{'k': 1e6, 'J1.model': 'elastic'}`` or ``['k=1e6', ...]`` -> [ast.Assign]."""
    if not settings:
        return []
    if isinstance(settings, dict):
        items = list(settings.items())
    else:
        items = []
        for text in settings:
            if isinstance(text, ast.Assign):
                items.append(text)
                continue
            if "=" not in text:
                raise NetlistError(f"--set expects name=value, got '{text}'",
                                   Loc("<command line>", 1, 1, text))
            key, _, value = text.partition("=")
            items.append((key.strip(), value.strip()))
    out = []
    for item in items:
        if isinstance(item, ast.Assign):        # a .step case: keeps the .step line's place
            out.append(item)
            continue
        key, value = item
        text = f".study __set {key}={value}"
        loc = Loc("<command line>", 1, 1, f"{key}={value}")
        try:
            st = parse_text(text, "<command line>").statements[0]
        except NetlistError as exc:
            raise NetlistError(f"cannot read the setting '{key}={value}': {exc.message}",
                               loc) from None
        a = st.params[0]
        out.append(ast.Assign(a.key, a.value, loc))
    return out


class Netlist:
    """A parsed netlist; elaborated afresh for each study / parameter case."""

    def __init__(self, statements: list, source: str = "<string>"):
        self.statements = statements
        self.source = source
        self._elaborator = elaborate.Elaborator(statements, source)
        self.studies = elaborate.studies(self._elaborator.top)
        self.steps = elaborate.steps(self._elaborator.top)

    # --- elaboration --------------------------------------------------------------------
    def _overrides(self, study, settings) -> list:
        over = []
        if study is not None:
            if study not in self.studies:
                known = ", ".join(self.studies) or "none defined"
                raise NetlistError(f"unknown study '{study}' (studies: {known})",
                                   Loc(self.source, 1, 1), did_you_mean(study, self.studies))
            over += self.studies[study][0]
        return over + _override_assigns(settings)

    def circuit(self, study=None, set=None):
        """The flat circuit for a study and/or overrides (no run)."""
        with gc_paused():
            return self._elaborator.build(self._overrides(study, set))

    def system(self, study=None, set=None) -> System:
        """The assembled equations (checked for structural singularity)."""
        circuit = self.circuit(study, set)
        try:
            with gc_paused():
                system = System(circuit)
            system.check_structure()
        except NetlistError as exc:
            raise self._elaborator.relocate(exc) from None
        return system

    def check(self, study=None, set=None) -> dict:
        """Counts of unknowns and equations per domain, without running."""
        system = self.system(study, set)
        c = system.circuit
        summary: dict = {}
        for name, node in c.nodes.items():
            d = summary.setdefault(node.domain or "untyped", {"nodes": 0, "states": 0})
            d["nodes"] += 1
        for inst in c.elements:
            frames_only = all(p.frame for p in inst.type.ports)
            dom = next((d for d in inst.domains if d), None) or (
                "3D joints/loads" if frames_only else "untyped")
            if inst.type.states:
                summary.setdefault(dom, {"nodes": 0, "states": 0})["states"] += len(
                    inst.type.states)
        try:
            start = kinematic_start(system, system.initial_values())
        except NetlistError as exc:
            raise self._elaborator.relocate(exc) from None
        return {"title": c.title, "unknowns": system.n, "equations": system.n,
                "subcircuits": self._subcircuit_counts(c),
                "mobility": start.mobility, "notes": start.notes,
                "differential": int(system.id.sum()), "algebraic": int(system.n - system.id.sum()),
                "elements": len(c.elements), "domains": summary, "nnz": system.nnz,
                "warnings": [(m, str(l) if l else "") for m, l in c.warnings]
                + [(m, str(l) if l else "") for m, l in start.warnings]}

    def recorded_names(self, study=None, set=None) -> list:
        """The variables a run of this study records (before running it)."""
        try:
            return _recorded_names(self.system(study, set))[1]
        except NetlistError as exc:
            raise self._elaborator.relocate(exc) from None

    def _subcircuit_counts(self, circuit) -> list:
        """Per subcircuit instance: what it adds to the system. Its unknowns are its
        internal nodes' potentials and its elements' own unknowns; its equations those
        nodes' flow balances and the elements' own equations (one per own unknown), so the
        two counts agree for every instance by construction; the ports' flows enter the
        parent's node balances."""
        instances = self._elaborator.instances
        counts = {name: {"elements": 0, "nodes": 0, "states": 0} for name in instances}

        def owners(dotted):                  # the instances a scoped name lies in: A, A.B
            parts = dotted.split(".")[:-1]
            return [n for n in (".".join(parts[:i]) for i in range(1, len(parts) + 1))
                    if n in counts]
        for e in circuit.elements:
            for owner in owners(e.name):
                counts[owner]["elements"] += 1
                counts[owner]["states"] += len(e.type.states)
        for node in circuit.nodes:
            for owner in owners(node):
                counts[owner]["nodes"] += 1
        return [{"name": name, "subckt": subckt, "loc": loc, **counts[name],
                 "unknowns": counts[name]["nodes"] + counts[name]["states"],
                 "equations": counts[name]["nodes"] + counts[name]["states"]}
                for name, (subckt, loc) in instances.items()]

    # --- runs ------------------------------------------------------------------------------
    def simulate(self, t_end=None, study=None, set=None, *, tstep=None, rtol=None, atol=None,
                 max_step=None, first_step=None, progress=None, on_output=None,
                 case: str = "", on_start=None, stream=None, report=False) -> Result:
        """Run one transient. Keyword arguments override the ``.tran`` settings.

        On a solver failure or interrupt raises the SolverError with ``.partial`` set to
        the Result up to the failure time."""
        try:
            system = self.system(study, set)
            return run(system, t_end=t_end, tstep=tstep, rtol=rtol, atol=atol, max_step=max_step,
                       first_step=first_step, progress=progress, on_output=on_output,
                       case=case or (study or ""), on_start=on_start, stream=stream,
                       report=report)
        except NetlistError as exc:
            raise self._elaborator.relocate(exc) from None

    def cases(self, study=None, set=None) -> list:
        """The ``.step`` sweep as a list of (case name, settings) (one case if no .step)."""
        base = list(set.items()) if isinstance(set, dict) else list(set or [])
        if not self.steps:
            return [(study or "", base)]
        axes = []
        for name, vals, loc in self.steps:
            axes.append([(name, v, loc) for v in vals])
        out = []
        for combo in itertools.product(*axes):
            label = "_".join(f"{name}={v.text}" for name, v, _ in combo)
            settings = [ast.Assign(name, v, loc) for name, v, loc in combo]
            settings = settings + [f"{k}={v}" for k, v in base] if isinstance(set, dict) \
                else settings + list(base)
            out.append(((study + "_" if study else "") + label, settings))
        return out

    def sweep(self, study=None, set=None, **kwargs) -> dict:
        """Every ``.step`` case: {case name: Result}."""
        return {name: self.simulate(study=study, set=settings, case=name, **kwargs)
                for name, settings in self.cases(study, set)}


def _diagnostics(system: System, names: list, data: np.ndarray) -> dict:
    """What a study comparison needs whatever ``.probe`` keeps: the circuit's stored
    energy over time, the largest joint gap, and every joint force."""
    col = {name: i for i, name in enumerate(names)}
    energy_cols = [col[n] for n in system.energy_names()]
    gaps = [col[n] for n in names if n.endswith(".gap")]
    forces = {n: data[:, col[n]] for n in names if n.rsplit(".", 1)[-1] in ("Fx", "Fy", "Fz")}
    parts = data[:, energy_cols]
    return {"energy": parts.sum(axis=1) if energy_cols else None,
            # the energy that moves between stores: the scale of an energy error
            "energy_scale": float(np.max(np.abs(parts).sum(axis=1))) if energy_cols
            and len(data) else None,
            "gap_max": float(np.max(data[:, gaps])) if gaps and len(data) else None,
            "forces": forces}


def _recorded_names(system: System) -> tuple:
    """(every variable, the recorded ones: the .probe list, else every variable)."""
    all_names = list(system.names) + system.output_names()
    for name, loc in system.circuit.probes:
        if name not in all_names:
            raise NetlistError(f".probe: no variable '{name}'", loc,
                               did_you_mean(name, all_names))
    probes = [name for name, _ in system.circuit.probes]
    return all_names, (probes if probes else all_names)


def run(system: System, t_end=None, tstep=None, rtol=None, atol=None, max_step=None,
        first_step=None, progress=None, on_output=None, case="", on_start=None,
        stream=None, report=False) -> Result:
    """Integrate an assembled system and package the Result (partial on failure).
    ``on_start(StartUp)`` is called after the start-up, before the integration (the CLI
    prints the start-up notes and warnings there). ``stream``: a CSV path written while
    the run goes (StreamWriter), complete up to the last point on a failure or Ctrl-C.
    ``report``: also build ``result.report`` (circuitsim.report: constraint violations,
    Kirchhoff residuals, power balance; costs one residual evaluation per point)."""
    c = system.circuit
    tr = c.tran
    t_end = t_end if t_end is not None else tr.tstop
    if t_end is None:
        raise NetlistError("no simulation time: add '.tran tstop [tstep]' or pass t_end",
                           Loc(c.source, 1, 1))
    tstep = tstep if tstep is not None else tr.tstep
    t_out = None
    if tstep:
        count = int(np.floor(t_end / tstep + 1e-9))
        t_out = np.linspace(0.0, count * tstep, count + 1)
        if t_out[-1] < t_end * (1 - 1e-12):
            t_out = np.append(t_out, t_end)
    all_names, names = _recorded_names(system)
    start = kinematic_start(system, system.initial_values())
    y0 = start.y0
    if on_start is not None:
        on_start(start)
    if max_step is None:
        # Inputs drive algebraic unknowns that the error test does not watch: resolve a
        # sine with STEPS_PER_PERIOD steps, and never cross more than 1/MIN_STEPS of the run.
        max_step = min(tr.maxstep, system.input_time_scale() / STEPS_PER_PERIOD,
                       t_end / MIN_STEPS)
    cols = [all_names.index(p) for p in names] if c.probes else None

    def recorded(T, Y, YP):
        data = np.concatenate([Y, system.compute_outputs(np.asarray(T), Y, YP)], axis=1)
        return data if cols is None else data[:, cols]
    writer = StreamWriter(stream, names, recorded) if stream else None
    callback = on_output
    if writer is not None:
        def callback(t, y, yp):
            writer(t, y, yp)
            if on_output is not None:
                on_output(t, y, yp)
    try:
        out = solve(system, 0.0, t_end, y0, t_out=t_out,
                    rtol=rtol if rtol is not None else tr.rtol,
                    atol=atol if atol is not None else tr.atol,
                    max_step=max_step,
                    first_step=first_step if first_step is not None else tr.h0,
                    max_order=tr.maxorder, on_output=callback, progress=progress)
    finally:
        if writer is not None:
            writer.close()
    Y = np.asarray(out.y).reshape(len(out.t), system.n)
    YP = np.asarray(out.yp).reshape(len(out.t), system.n)
    full = np.concatenate([Y, system.compute_outputs(np.asarray(out.t), Y, YP)], axis=1)
    diagnostics = _diagnostics(system, all_names, full)
    data = full if cols is None else full[:, cols]
    stats = dict(out.stats)
    stats["nres_total"] = system.nres
    result = Result(out.t, names, data, stats, out.status, out.message,
                    {n: system.units[n] for n in names if n in system.units}, c.title, case)
    result.warnings = [(m, l) for m, l in c.warnings] + list(start.warnings)
    result.notes = start.notes
    result.mobility = start.mobility
    result.diagnostics = diagnostics
    result.report = (run_report.build(system, np.asarray(out.t), Y, YP, all_names, full,
                                      stats, result.warnings) if report else None)
    if out.error is not None:
        out.error.partial = result
        raise out.error
    return result
