"""A prepared case: one study / parameter case elaborated and assembled once, between the
netlist and the run. The CLI and the Python API both go netlist -> Case -> Result:

    case = net.prepare(study="soft", set={"k": 1e6})
    case.recorded            # what a run records (checked before it runs)
    res = case.run(t_end=1.0)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

import numpy as np

from ..assembly.startup import kinematic_start
from ..assembly.system import System
from ..errors import Loc, NetlistError, did_you_mean
from ..output import measures
from ..output.scene import scene_of
from ..output.results import Result, StreamWriter
from .inputs import check_inputs
from .resumable import ResumableRun
from ..solver import solve

if TYPE_CHECKING:
    from ..analysis import operating_point as op_analysis
    from ..analysis.linearize import Linearization

STEPS_PER_PERIOD = 40    # smallest number of steps per period of a sine input
MIN_STEPS = 50           # a run takes at least this many steps (as SPICE's TMAX)
MAX_OUTPUT_POINTS = 10_000_000    # output times of one run (.tran tstep)
MAX_OUTPUT_BYTES = 4 * 2**30      # the recorded values (and y, y') of one run in memory
MANY_STEPS = 10_000_000  # an input that needs more steps than this gets a warning


@dataclass
class Case:
    """One elaborated case, ready to run (``Netlist.prepare``).

    ``name`` labels its results (study and ``.step`` values); ``system`` is the
    assembled DAE (its ``circuit`` the elaborated netlist); ``recorded`` the variables a
    run records (the ``.probe`` list, else every unknown and output); ``relocate`` maps
    an input error raised inside a library subcircuit to the user's instance line."""
    name: str
    system: System = field(repr=False)
    all_names: list = field(repr=False)
    recorded: list = field(repr=False)
    relocate: Callable = field(repr=False, default=lambda exc: exc)

    @classmethod
    def build(cls, name: str, system: System, relocate=None) -> "Case":
        """The case of an assembled system (checks ``.probe`` names)."""
        all_names, recorded = _recorded_names(system)
        _check_measures(system.circuit, all_names)
        check_inputs(system)
        return cls(name, system, all_names, recorded, relocate or (lambda exc: exc))

    @property
    def circuit(self):
        return self.system.circuit

    @property
    def warnings(self) -> list:
        """Warnings of the elaboration: (message, Loc or None)."""
        return list(self.circuit.warnings)

    @property
    def t_end(self) -> float | None:
        """The ``.tran`` end time (None if the netlist has none)."""
        return self.circuit.tran.tstop

    def start(self):
        """The start-up at t = 0 (consistent positions and velocities, the mobility
        analysis) and the other checks a run makes before it integrates (the size of the
        output grid): every input error a run would find, without running."""
        try:
            tr = self.circuit.tran
            if tr.tstop and tr.tstep:
                _check_output_size(tr.tstop / tr.tstep, tr.tstep, tr.tstop, self.system,
                                   len(self.all_names), tr.tstep_loc)
            return kinematic_start(self.system, self.system.initial_values())
        except NetlistError as exc:
            raise self.relocate(exc) from None

    def operating_point(self, t: float = 0.0) -> op_analysis.OperatingPoint:
        """The static equilibrium F(t, y, 0) = 0 from the start-up's configuration, the
        inputs taken at ``t`` (analysis/operating_point.py); NoEquilibrium when there
        is none."""
        try:
            start = self.start()
        except NetlistError as exc:
            raise self.relocate(exc) from None
        return _operating_point(self, start, t)

    def linearize(self, at: float | None = None, inputs=(), outputs=None
                  ) -> Linearization:
        """ẋ = A·x + B·u, y = C·x + D·u in minimal coordinates, and the modes
        (analysis/linearize.py), at the operating point (``at`` None) or at time ``at``
        of a run. ``inputs``: sources' values by element name (``Vsup``, ``F1.Fz``);
        ``outputs``: recorded variables (default: the states)."""
        from ..analysis import linearize as lin_analysis   # its study only: ~2 ms
        system = self.system
        if at is None:
            point = self.operating_point()
            t, y, yp = point.t, point.y, np.zeros(system.n)
        else:
            last: dict = {}

            def grab(t, y, yp):
                last.update(t=float(t), y=np.array(y, dtype=float),
                            yp=np.array(yp, dtype=float))
            self.run(t_end=at, on_output=grab)
            t, y, yp = last["t"], last["y"], last["yp"]
        try:
            chosen = lin_analysis.inputs_of(system, list(inputs or ()))
            out = lin_analysis.linearize(system, t, y, yp, chosen,
                                         None if outputs is None else list(outputs),
                                         _ElementOutputs(system), dict(system.units))
        except NetlistError as exc:
            raise self.relocate(exc) from None
        out.t, out.at = t, "equilibrium" if at is None else "run"
        out.title, out.case = self.circuit.title, self.name
        return out

    def start_run(self, inputs=None, **kwargs) -> ResumableRun:
        """A run advanced in pieces, its inputs set between them
        (circuitsim.run.resumable): ``run = case.start_run()``, ``run.set("Vsup.V", 10)``,
        ``run.advance(0.1)``, ``run["shaft"]``. ``inputs``: the ELEMENT.PARAM names set
        from outside (default: the ``.input`` lines); keyword arguments: ``held``
        ({input: value} from t = 0), ``horizon`` (default: the ``.tran`` end time),
        ``rtol``, ``atol``, ``max_step``. It changes this case's system: start from a
        case prepared for it."""
        system = self.system
        if inputs is None:
            inputs = [name for name, _ in self.circuit.inputs]
        kwargs.setdefault("max_step", lambda horizon: _default_max_step(system, horizon))
        try:
            return ResumableRun(system, self.recorded,
                                _recorder(system, _columns(self.all_names, self.recorded)),
                                inputs, **kwargs)
        except NetlistError as exc:
            raise self.relocate(exc) from None

    def run(self, **kwargs) -> Result:
        """Integrate the case and return its Result. Keyword arguments override the
        ``.tran`` settings: ``t_end``, ``tstep`` (output interval), ``rtol``, ``atol``,
        ``max_step``, ``first_step``; ``progress``, ``on_output(t, y, yp)`` and
        ``on_start(start_up)`` are called as the run goes; ``stream``: a CSV path written
        while it runs (``stream_units``: with units in its header); ``report``: also build ``result.report``; ``record_poses``: also
        record every body's pose where ``.probe`` leaves it out (``Result.animate``
        needs them). Input errors are
        located at the user's lines; a solver failure raises the SolverError with
        ``partial`` set to the Result so far."""
        try:
            return run(self, **kwargs)
        except NetlistError as exc:
            raise self.relocate(exc) from None


class _ElementOutputs:
    """The element outputs of rows of unknowns (``names`` in order), for the
    linearisation's output rows."""

    def __init__(self, system: System):
        self.system = system
        self.names = system.output_names()

    def __call__(self, t, Y, YP):
        return self.system.compute_outputs(np.asarray(t), Y, YP)


def _operating_point(case: Case, start, t: float) -> op_analysis.OperatingPoint:
    from ..analysis import operating_point as op_analysis   # its study only: ~8 ms
    system = case.system
    system.classify(t, start.y0)
    y, stats = op_analysis.solve(system, start.y0, t)
    zero = np.zeros((1, system.n))
    values = np.concatenate([y, system.compute_outputs(np.array([t]), y[None, :], zero)[0]])
    probes = [name for name, _ in case.circuit.probes]
    # what the table leaves out unless asked: the joints' reactions along their own
    # normals (their global sums J.Fx .. J.Mz are shown), violations, energies
    detail = set(system.output_names("violation")) | set(system.output_names("energy"))
    for g in system.groups:
        if g.etype.is_joint:
            detail |= {f"{inst.name}.{c}" for inst in g.instances
                       for c in g.etype.constraint_names()}
    return op_analysis.OperatingPoint(
        t, list(case.all_names), values, dict(system.units), y, probes,
        stats.pop("residual", 0.0), stats, list(start.notes), case.circuit.title, case.name,
        detail)


def _step_quadrature(system):
    """The run report's quadrature over the steps (output/report.py, imported only when
    a report is asked for: ~2 ms)."""
    from ..output import report as run_report
    return run_report.StepQuadrature(system)


def _report(system, out, Y, all_names, full, stats, warnings, quad):
    """The run report (``report=True`` gave a StepQuadrature ``quad``), else None."""
    if quad is None:
        return None
    from ..output import report as run_report
    return run_report.build(system, np.asarray(out.t), Y, all_names, full, stats, warnings,
                            quad)


def _diagnostic_names(system: System) -> list:
    """The outputs ``_diagnostics`` reads, whatever ``.probe`` keeps."""
    return (system.output_names("energy") + system.output_names("violation", unit="m")
            + system.output_names("force"))


def _diagnostics(system: System, names: list, data: np.ndarray) -> dict:
    """What a study comparison needs whatever ``.probe`` keeps: the circuit's stored
    energy over time, the largest joint gap, and every joint force."""
    col = {name: i for i, name in enumerate(names)}
    energy_cols = [col[n] for n in system.output_names("energy")]
    gaps = [col[n] for n in system.output_names("violation", unit="m")]
    forces = {n: data[:, col[n]] for n in system.output_names("force")}
    parts = data[:, energy_cols]
    return {"energy": parts.sum(axis=1) if energy_cols else None,
            # the energy that moves between stores: the scale of an energy error
            "energy_scale": float(np.max(np.abs(parts).sum(axis=1))) if energy_cols
            and len(data) else None,
            "gap_max": float(np.max(data[:, gaps])) if gaps and len(data) else None,
            # sources, behavioural sources or applied loads do work on the circuit
            "driven": any(g.etype.supplies_power(g.p) for g in system.groups),
            "forces": forces}


def _recorded_names(system: System) -> tuple:
    """(every variable, the recorded ones: the .probe list, else every variable)."""
    all_names = list(system.names) + system.output_names()
    known = set(all_names)                  # a list's `in` made this quadratic in N
    if len(known) < len(all_names):
        _two_named_alike(system.circuit, all_names)
    probed = set()
    for name, loc in system.circuit.probes:
        if name not in known:
            raise NetlistError(f".probe: no variable '{name}'", loc,
                               did_you_mean(name, all_names))
        if name in probed:
            raise NetlistError(f".probe: '{name}' is listed twice (a results file holds "
                               "one column of each name)", loc)
        probed.add(name)
    probes = [name for name, _ in system.circuit.probes]
    return all_names, (probes if probes else all_names)


def _check_measures(circuit, all_names: list) -> None:
    """Every variable a ``.measure`` reads is one the run computes."""
    known = set(all_names)
    for m in circuit.measures:
        for name in sorted(m.variables - known):
            raise NetlistError(f".measure {m.name}: no variable '{name}'", m.loc,
                               did_you_mean(name, all_names))


def _measure_names(circuit) -> list:
    """The variables the ``.measure`` lines read (corrected at the output points as the
    recorded ones are, whatever ``.probe`` keeps)."""
    return sorted({name for m in circuit.measures for name in m.variables})


def _two_named_alike(circuit, all_names: list) -> None:
    """Refuse two variables of one name (a node ``R1.i`` beside the resistor ``R1``'s
    current): their columns could not be told apart. Located at the first element that
    connects the node of that name, else at the element whose output it is."""
    seen = set()
    name = next(n for n in all_names if n in seen or seen.add(n))
    owner, _, _ = name.rpartition(".")
    loc = next((inst.loc for inst in circuit.elements if name in inst.nodes),
               next((inst.loc for inst in circuit.elements if inst.name == owner), None))
    raise NetlistError(f"two variables are named '{name}' (a node, and an element's "
                       "value); rename the node", loc)


def _check_output_size(points: float, tstep: float, t_end: float, system, columns: int,
                       loc) -> None:
    """Refuse an output grid that cannot be held (``.tran 1 1e-9``: 1e9 points) before
    anything runs."""
    size = points * (columns + 2 * system.n) * 8
    if points > MAX_OUTPUT_POINTS or size > MAX_OUTPUT_BYTES:
        raise NetlistError(
            f".tran: output every {tstep:.3g} s up to {t_end:.3g} s gives {points:.3g} points "
            f"of {columns} variables (~{size / 2**30:.3g} GB); at most "
            f"{MAX_OUTPUT_POINTS:.0e} points and {MAX_OUTPUT_BYTES / 2**30:.0f} GB are "
            "recorded: give a larger tstep, or .probe fewer variables", loc)


def _default_max_step(system: System, t_end: float) -> float:
    """Inputs drive algebraic unknowns that the error test does not watch: resolve a sine
    with STEPS_PER_PERIOD steps, and never cross more than 1/MIN_STEPS of the run."""
    return min(system.circuit.tran.maxstep, system.input_time_scale() / STEPS_PER_PERIOD,
               t_end / MIN_STEPS)


def _fast_inputs(circuit, t_end: float) -> list:
    """A warning (message, loc) for each input whose time scale (a sine's period) needs
    more than MANY_STEPS steps over the run: such a run would seem to hang."""
    out = []
    for inst in circuit.elements:
        for name, value in inst.params.items():
            scale = getattr(value, "time_scale", None)
            if scale is None:
                continue
            steps = t_end / scale() * STEPS_PER_PERIOD
            if steps > MANY_STEPS:
                out.append((f"{inst.type.keyword} {inst.name}: {name} varies on a time "
                            f"scale of {scale():.3g} s; resolving it up to {t_end:.3g} s "
                            f"takes at least {steps:.2g} steps (Ctrl-C keeps the results so "
                            "far)", inst.param_locs.get(name, inst.loc)))
    return out


def _both(writer, on_output):
    """An output callback that streams the point and then calls the user's callback."""
    def callback(t, y, yp):
        writer(t, y, yp)
        if on_output is not None:
            on_output(t, y, yp)
    return callback


def run(case: Case, t_end=None, tstep=None, rtol=None, atol=None, max_step=None,
        first_step=None, progress=None, on_output=None, on_start=None,
        stream=None, stream_units=False, report=False, record_poses=False,
        compared=False) -> Result:
    """Integrate a prepared case and package the Result (partial on failure).
    Keyword arguments override the ``.tran`` settings.
    ``on_start(StartUp)`` is called after the start-up, before the integration (the CLI
    prints the start-up notes and warnings there). ``stream``: a CSV path written while
    the run goes (StreamWriter), complete up to the last point on a failure or Ctrl-C;
    if writing it fails the run goes on, and ``result.unstreamed`` says why (else None);
    ``stream_units``: its header as ``name [unit]``.
    ``report``: also build ``result.report`` (circuitsim.output.report: constraint violations,
    Kirchhoff residuals, power balance; costs two residual evaluations per step).
    ``record_poses``: also record every body's pose where ``.probe`` leaves it out (what
    ``Result.animate`` needs).
    ``compared``: the result goes into a study comparison (``run.studies.compare``), so
    the reaction forces it compares are made consistent at every output point like a
    recorded variable, even where ``.probe`` leaves them out; otherwise those are taken
    as interpolated (a point is corrected only for what is written: the correction of
    a mechanism's unrecorded forces was half of its run)."""
    system = case.system
    c = system.circuit
    tr = c.tran
    t_end = t_end if t_end is not None else tr.tstop
    if t_end is None:
        raise NetlistError("no simulation time: add '.tran tstop [tstep]' or pass t_end",
                           Loc(c.source, 1, 1))
    t_out = _output_times(case, t_end, tstep if tstep is not None else tr.tstep)
    names = case.recorded
    scene = scene_of(c)
    if record_poses:
        names = names + scene.missing(names)
    start = kinematic_start(system, system.initial_values())
    y0 = start.y0
    system.classify(0.0, y0)
    if max_step is None:
        max_step = _default_max_step(system, t_end)
        start.warnings += _fast_inputs(c, t_end)
    if on_start is not None:
        on_start(start)
    cols = _columns(case.all_names, names)
    solver_options = dict(t_out=t_out,
                          rtol=rtol if rtol is not None else tr.rtol,
                          atol=atol if atol is not None else tr.atol,
                          max_step=max_step,
                          first_step=first_step if first_step is not None else tr.h0,
                          max_order=tr.maxorder, progress=progress,
                          on_step=_step_quadrature(system) if report else None)
    # the report (the equations at the points) and a caller's on_output read all of y
    system.recorded, system.recorded_rates = (None, None) if report or on_output is not None \
        else system.recorded_unknowns(names + (_diagnostic_names(system) if compared else [])
                                      + _measure_names(c))
    writer = StreamWriter(stream, names, _recorder(system, cols),
                          system.units if stream_units else None) if stream else None
    out = _integrate(system, t_end, y0, solver_options, on_output, writer)
    result = _result(case, out, names, cols, start, scene, solver_options["on_step"])
    result.unstreamed = None if writer is None else writer.error
    if out.error is not None:
        out.error.partial = result
        raise out.error
    return result


def _integrate(system: System, t_end: float, y0, solver_options: dict, on_output, writer):
    """The solver's run from 0 to ``t_end``; each output point also streamed to
    ``writer`` (if any), which is closed however the run ends."""
    callback = on_output if writer is None else _both(writer, on_output)
    try:
        return solve(system, 0.0, t_end, y0, on_output=callback, **solver_options)
    finally:
        if writer is not None:
            writer.close()


def _output_times(case: Case, t_end: float, tstep) -> np.ndarray | None:
    """The output times 0, tstep, 2 tstep, .. and t_end (None without tstep: the solver's
    own steps); an output grid too large to hold is refused first."""
    if not tstep:
        return None
    tr = case.circuit.tran
    _check_output_size(t_end / tstep, tstep, t_end, case.system, len(case.all_names),
                       tr.tstep_loc if tstep == tr.tstep else None)
    count = int(np.floor(t_end / tstep + 1e-9))
    t_out = np.linspace(0.0, count * tstep, count + 1)
    if t_out[-1] < t_end * (1 - 1e-12):
        t_out = np.append(t_out, t_end)
    return t_out


def _columns(all_names: list, names: list) -> list | None:
    """The columns of ``names`` among every variable (None: all of them, in order)."""
    if names == all_names:
        return None
    column = {name: i for i, name in enumerate(all_names)}
    return [column[p] for p in names]


def _recorder(system: System, cols):
    """The recorded values of points (T, Y, YP): unknowns and outputs, the ``cols`` kept."""
    def recorded(T, Y, YP):
        data = np.concatenate([Y, system.compute_outputs(np.asarray(T), Y, YP)], axis=1)
        return data if cols is None else data[:, cols]
    return recorded


def _result(case: Case, out, names: list, cols, start, scene, quad) -> Result:
    """The Result of the solver's output ``out`` (complete or up to a failure): the
    recorded columns, the statistics, the start-up's notes, the diagnostics a study
    comparison needs and the run report if asked (``quad``: its StepQuadrature)."""
    system = case.system
    c = system.circuit
    all_names = case.all_names
    Y = np.asarray(out.y).reshape(len(out.t), system.n)
    YP = np.asarray(out.yp).reshape(len(out.t), system.n)
    full = np.concatenate([Y, system.compute_outputs(np.asarray(out.t), Y, YP)], axis=1)
    diagnostics = _diagnostics(system, all_names, full)
    data = full if cols is None else full[:, cols]
    stats = dict(out.stats)
    stats["nres_total"] = system.nres
    warnings = list(c.warnings) + list(start.warnings)
    column = {name: i for i, name in enumerate(all_names)}
    taken = (measures.evaluate(c.measures, np.asarray(out.t), lambda n: full[:, column[n]],
                               system.units) if c.measures and len(out.t) else None)
    return Result(out.t, names, data, stats, out.status, out.message,
                  {n: system.units[n] for n in names if n in system.units}, c.title,
                  case.name, warnings=warnings, notes=start.notes,
                  mobility=start.mobility, diagnostics=diagnostics,
                  scene=scene, measures=taken,
                  report=_report(system, out, Y, all_names, full, stats, warnings, quad))
