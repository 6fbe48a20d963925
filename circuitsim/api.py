"""The Python API: ``circuitsim.load(path)`` / ``circuitsim.parse(text)`` -> Netlist.

    net = circuitsim.load("netlists/rlc.cir")
    res = net.simulate(t_end=5.0, study="elastic")      # = net.prepare(...).run(...)
    res.t, res["n3"], res.to_csv("out.csv")

A Netlist is parsed once; each study / parameter case is elaborated and assembled once
into a Case (case.py), which runs.
"""
from __future__ import annotations

import dataclasses
import functools
import itertools
from typing import TYPE_CHECKING

import numpy as np

from .assembly.system import System
from .run.case import Case
from .errors import CircuitsimError, Loc, NetlistError, did_you_mean
from .runtime.memory import gc_paused
from .run import parallel
from .netlist import ast, definitions, elaborate, loader, overrides
from .netlist.parser import parse as parse_text
from .netlist.relocation import relocate
from .output.results import Result, Sweep
from .netlist.stepargs import step_entries

if TYPE_CHECKING:
    from .output.checkreport import CheckReport


MAX_CASES = 10_000      # .step cases of one netlist (each is elaborated before any runs;
                        # parser.MAX_STEP_VALUES refuses a longer line before parsing it)


def load(path, include_path=(), max_elements: int | None = None) -> "Netlist":
    """Read and parse a netlist file (with its ``.include``/``.lib`` files).
    ``.include`` reads from the netlist's directory tree and the library; ``include_path``
    names further directories it may read from. ``max_elements``: the cap on elements
    after subcircuit expansion (default 1e6, or CIRCUITSIM_MAX_ELEMENTS)."""
    path = str(path)
    text = loader.read_file(path)
    definitions.check_element_lines(text, path, max_elements)
    return Netlist(loader.load_statements(text, path, include_path), path, max_elements)


def parse(text: str, filename: str = "<string>", include_path=(),
          max_elements: int | None = None) -> "Netlist":
    """Parse netlist text (``.include`` paths are relative to, and confined to, the working
    directory, plus ``include_path``)."""
    definitions.check_element_lines(text, filename, max_elements)
    return Netlist(loader.load_statements(text, filename, include_path), filename,
                   max_elements)


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
        if len(st.params) != 1 or _outside_braces(str(value), ";"):
            # ';' starts a comment in a netlist line: the rest would be dropped unread
            raise NetlistError(f"the setting '{key}={value}' has more than its value: ';' "
                               "would start a comment and a space would end the value; give "
                               "each setting apart (--set k=1 R1.R=2k)", loc)
        a = st.params[0]
        value = a.value
        if value.loc is not None:           # located in the setting as the user wrote it
            col = value.loc.col - len(".study __set ")
            value = dataclasses.replace(value, loc=Loc("<command line>", 1, col, loc.text))
        out.append(ast.Assign(a.key, value, loc))
    return out


def _outside_braces(text: str, char: str) -> bool:
    """Whether ``char`` occurs in ``text`` outside {...} expressions and quotes."""
    depth, quote = 0, None
    for c in text:
        if quote:
            quote = None if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c == "{":
            depth += 1
        elif c == "}":
            depth = max(0, depth - 1)
        elif c == char and depth == 0:
            return True
    return False


class Netlist:
    """A parsed netlist; elaborated afresh for each study / parameter case."""

    def __init__(self, statements: list, source: str = "<string>",
                 max_elements: int | None = None):
        self.statements = statements
        self.source = source
        self._definitions = definitions.collect(statements, source, max_elements)
        self.studies = overrides.studies(self._definitions.top)
        self.steps = overrides.steps(self._definitions.top)

    def __repr__(self) -> str:
        studies = f", studies {', '.join(self.studies)}" if self.studies else ""
        steps = f", {len(self.cases())} .step cases" if self.steps else ""
        return f"<Netlist {self.source}: {len(self.statements)} statements{studies}{steps}>"

    def _repr_html_(self) -> str:
        """A notebook's view: the check summary (``check()``), or the input error that
        stops it, shown rather than raised."""
        try:
            report = self.check()
        except CircuitsimError as exc:
            from .output.htmlview import error_html     # a notebook's only
            return error_html(self.source, exc)
        return report._repr_html_()

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
            return elaborate.elaborate(self._definitions, self._overrides(study, set))

    def prepare(self, study=None, set=None, case: str = "") -> Case:
        """Elaborate and assemble one case (checked for structural singularity and for
        its ``.probe`` names): what a run needs, built once."""
        circuit = self.circuit(study, set)
        located = functools.partial(relocate, instances=circuit.instances)
        try:
            with gc_paused():
                system = System(circuit)
            system.check_structure()
            return Case.build(case or (study or ""), system, located)
        except NetlistError as exc:
            raise located(exc) from None

    def equations(self, study=None, set=None):
        """The symbolic equations of motion of the netlist's tree of revolute, prismatic,
        universal and spherical joints (circuitsim.symbolic.Equations; needs sympy): M(q),
        the velocity and gravity terms in the joints' coordinates, from the drawing
        (q = 0) by the method of connected graphs. Anything else (a loop, another joint, a load on a
        body) is a located error naming the element."""
        from .symbolic import equations_of       # sympy is optional: imported on use
        circuit = self.circuit(study, set)
        try:
            return equations_of(circuit)
        except NetlistError as exc:
            raise relocate(exc, circuit.instances) from None

    def check(self, study=None, set=None) -> CheckReport:
        """Counts of unknowns and equations per domain and subcircuit instance, the
        mobility and what the start-up would change, without running."""
        from .output.checkreport import CheckReport, DomainCount   # check's only: ~3 ms
        case = self.prepare(study, set)
        system, c = case.system, case.circuit
        domains: dict = {}
        for node in c.nodes.values():
            domains.setdefault(node.domain or "untyped", DomainCount()).nodes += 1
        for inst in c.elements:
            frames_only = all(p.frame for p in inst.type.ports)
            dom = next((d for d in inst.domains if d), None) or (
                "3D joints/loads" if frames_only else "untyped")
            if inst.type.states:
                domains.setdefault(dom, DomainCount()).states += len(inst.type.states)
        start = case.start()
        return CheckReport(
            source=self.source, title=c.title, elements=len(c.elements), unknowns=system.n,
            differential=int(system.id.sum()), nnz=system.nnz, domains=domains,
            subcircuits=self._subcircuit_counts(c), mobility=start.mobility,
            notes=start.notes,
            warnings=[(m, str(l) if l else "") for m, l in c.warnings + start.warnings])

    def _subcircuit_counts(self, circuit) -> list:
        """Per subcircuit instance: what it adds to the system. Its unknowns are its
        internal nodes' potentials and its elements' own unknowns; its equations those
        nodes' flow balances and the elements' own equations (one per own unknown), so the
        two counts agree for every instance by construction; the ports' flows enter the
        parent's node balances."""
        from .output.checkreport import SubcircuitCount
        instances = circuit.instances
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
        return [SubcircuitCount(name, subckt, loc, **counts[name])
                for name, (subckt, loc) in instances.items()]

    # --- analyses --------------------------------------------------------------------------
    def operating_point(self, study=None, set=None, t: float = 0.0):
        """The static equilibrium F(t, y, 0) = 0 (circuitsim.analysis.operating_point):
        ``op = net.operating_point(); op["J1.Fz"]``. Raises NoEquilibrium (a SolverError)
        when there is none."""
        return self.prepare(study, set).operating_point(t)

    def linearize(self, study=None, set=None, at: float | None = None, inputs=(),
                  outputs=None):
        """ẋ = A·x + B·u, y = C·x + D·u in minimal coordinates and the modes
        (circuitsim.analysis.linearize), at the operating point or at time ``at`` of a
        run; ``inputs``: sources by element name; ``outputs``: recorded variables."""
        return self.prepare(study, set).linearize(at, inputs, outputs)

    # --- runs ------------------------------------------------------------------------------
    def simulate(self, t_end=None, study=None, set=None, *, case: str = "",
                 **run_options) -> Result:
        """Run one transient: ``prepare(study, set)`` then ``Case.run``. Keyword
        arguments (t_end, tstep, rtol, atol, max_step, first_step, progress, on_output,
        on_start, stream, report, record_poses) override the ``.tran`` settings or add to
        what is recorded; see ``Case.run``.

        On a solver failure or interrupt raises the SolverError with ``.partial`` set to
        the Result up to the failure time."""
        return self.prepare(study, set, case).run(t_end=t_end, **run_options)

    def cases(self, study=None, set=None, step=None) -> list:
        """The ``.step`` sweep as a list of (case name, settings) (one case if no .step).
        ``step``: {parameter: values} swept as further ``.step`` lines (see ``sweep``)."""
        base = list(set.items()) if isinstance(set, dict) else list(set or [])
        steps = self._swept(step)
        if not steps:
            return [(study or "", base)]
        axes = []
        for name, vals, loc in steps:
            axes.append([(name, v, loc) for v in vals])
        count = float(np.prod([len(axis) for axis in axes]))
        if count > MAX_CASES:
            raise NetlistError(f"the .step lines make {count:.3g} cases; at most {MAX_CASES} "
                               "run from one netlist (sweep in parts, or drive the cases from "
                               "Python with Netlist.simulate)", steps[0][2])
        out = []
        for combo in itertools.product(*axes):
            label = "_".join(f"{name}={v.text}" for name, v, _ in combo)
            settings = [ast.Assign(name, v, loc) for name, v, loc in combo]
            settings = settings + [f"{k}={v}" for k, v in base] if isinstance(set, dict) \
                else settings + list(base)
            out.append(((study + "_" if study else "") + label, settings))
        return out

    def _swept(self, step=None) -> list:
        """The ``.step`` lines of the netlist, [(name, [Value], Loc)], with those of
        ``step`` {parameter: values} in place of the netlist's line for the same
        parameter, and after them for the others."""
        if not step:
            return list(self.steps)
        extra = {entry[0]: entry for entry in step_entries(step)}
        out = [extra.pop(entry[0], entry) for entry in self.steps]
        return out + list(extra.values())

    def sweep(self, study=None, set=None, jobs: int = 1, executor=None, on_case=None,
              step=None, **run_options) -> Sweep:
        """Every ``.step`` case: {case name: Result}. Every case is prepared before the
        first one runs, so that a bad later case stops the sweep before any work.

        ``step``: {parameter: values} swept as if the netlist had the line
        ``.step parameter values...`` (replacing its own line for that parameter); a value
        is a number in SI or a text with its unit:
        ``net.sweep(step={"psup": ["2000psi", "2500psi", "3000psi"]}, jobs=2)``.

        ``jobs``: processes to run the cases on (1: one after another; 0: one per core);
        ``executor``: any ``concurrent.futures.Executor`` instead (a Dask cluster:
        ``client.get_executor()``). The results are those of the serial run. A case that
        fails gives its partial Result (``status`` 'failed' or 'interrupted', ``message``
        saying where and why); the other cases are kept. ``on_case(outcome)`` is called
        as each case finishes (``parallel.Outcome``: name, result, error, wall)."""
        cases = [(name, study, settings)
                 for name, settings in self.cases(study, set, step)]
        prepared = {name: self.prepare(case_study, settings, name)
                    for name, case_study, settings in cases}
        swept = [name for name, _, _ in self._swept(step)]
        outcomes = parallel.run_cases(self, cases, jobs, executor, on_case, prepared,
                                      swept=swept, **run_options)
        return Sweep((outcome.name, outcome.result) for outcome in outcomes)
