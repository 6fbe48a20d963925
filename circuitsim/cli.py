"""Command line: ``circuitsim run``, ``check``, ``equations``, ``op``, ``linearize`` and
``import-urdf``.

The only module that prints or exits. Exit codes: 0 success, 2 bad input (nothing was
run), 3 solver failure or interrupt (results so far are written), 70 internal error.
"""
from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

# One BLAS thread in this process and those it starts, unless the environment sets the
# number: set before numpy is first imported (it reads the variable once). circuitsim's
# matrices are small dense or sparse ones, where OpenBLAS's threads gain nothing, and
# between calls they spin: a small run took 1.7 times the CPU time with them.
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
if "numpy" not in sys.modules and not any(os.environ.get(v) for v in BLAS_THREAD_VARIABLES):
    os.environ["OPENBLAS_NUM_THREADS"] = "1"

from . import __version__, api
from .run import parallel
from .runtime.memory import freeze_built, keep_freed_memory
from .run import studies as studies_mod
from .output import matfile, regression
from .output.files import kept
from .output.scene import scene_of
from .errors import (EXIT_DIFFERENT, EXIT_INPUT, EXIT_OK, EXIT_SOLVER, CircuitsimError, Loc, NetlistError,
                     SolverError, Terminated, Interrupted, did_you_mean)

EXIT_INTERNAL = 70
# Ctrl-C, and what `timeout`, `kill` and batch schedulers send (no SIGHUP on Windows)
STOP_SIGNALS = tuple(s for s in (getattr(signal, name, None)
                                 for name in ("SIGINT", "SIGTERM", "SIGHUP")) if s is not None)
MAX_WARNINGS = 10       # warnings printed per run; the rest are counted
PROGRESS_AFTER = 2.0     # seconds before a progress line appears (short runs stay quiet)
PROGRESS_EVERY = {True: 0.5, False: 10.0}   # seconds between updates: terminal, log file


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="circuitsim",
                                description="Simulate mechanisms and actuators as equivalent circuits.")
    p.add_argument("--version", action="version", version=f"circuitsim {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    for add_command in (_run_parser, _check_parser, _equations_parser, _op_parser,
                        _linearize_parser, _compare_parser, _export_fmu_parser,
                        _import_urdf_parser, _import_mjcf_parser):
        add_command(sub)
    return p


def _run_parser(sub) -> None:
    run = sub.add_parser("run", help="run the transient of a netlist",
                         description="Run the transient of a netlist: each study or .step "
                         "case is elaborated and checked before the first one runs.")
    _common(run)
    run.add_argument("--out", metavar="FILE", help="results file (.csv, .npz or .mat); one "
                     "file per case when several studies or .step cases run; checked before "
                     "the run")
    run.add_argument("--mat-format", choices=matfile.FORMATS, default="matlab",
                     help="what a .mat --out holds: matlab (v5: legal names, the original "
                     "names and units beside) or modelica (the v4 result file that OMEdit, "
                     "Dymola and DyMat open)")
    run.add_argument("--csv-units", action="store_true",
                     help="CSV headers as 'name [unit]' (time [s]); circuitsim compare and "
                     "Result.read read both kinds")
    run.add_argument("--compare", metavar="GOLDEN",
                     help="compare each case with a golden run's results (.csv, .npz or "
                     ".mat; one per case as for --out): exit 1, naming the worst variables, "
                     "when one differs by more than the tolerance")
    run.add_argument("--update-golden", action="store_true",
                     help="with --compare: write the golden file(s) from this run instead "
                     "of comparing")
    _tolerance_options(run, "--compare-")
    grp = run.add_mutually_exclusive_group()
    grp.add_argument("--study", metavar="NAME", help="run this .study")
    grp.add_argument("--all-studies", action="store_true",
                     help="run the netlist as written and every .study, then compare them")
    run.add_argument("--plot", nargs="+", action="extend", metavar="VAR",
                     help="write a PNG plot of these variables")
    run.add_argument("--plot-file", metavar="PNG",
                     help="PNG path (default: next to --out or the netlist name)")
    run.add_argument("--animate", metavar="HTML",
                     help="write the motion as a 3D animation: one self-contained HTML file "
                     "(one per case when several run) that plays offline in a browser; "
                     "FILE.html#t=0.5 opens it paused at t = 0.5 s")
    run.add_argument("--stream", action="store_true",
                     help="write the CSV while the run goes (to --out, else <netlist>.csv; "
                     "while running the rows are in <that file>.<pid>.part, renamed when the "
                     "run ends): a failed or interrupted long run leaves its results up to "
                     "that time")
    run.add_argument("--report", action="store_true",
                     help="print a run report: solver statistics, joint constraint violations, "
                     "quaternion norms, Kirchhoff residuals, power balance")
    run.add_argument("--quiet", action="store_true", help="no summary or progress")
    run.add_argument("--jobs", type=int, default=1, metavar="N",
                     help="run the .step cases and studies on N processes (0: one per core); "
                     "the results are those of the serial run; a failed case is reported "
                     "and the others are kept")


def _export_fmu_parser(sub) -> None:
    fmu = sub.add_parser("export-fmu", help="write the netlist as an FMU (FMI 2.0 "
                         "co-simulation) for a system simulation tool",
                         description="Write an FMI 2.0 co-simulation FMU: inputs are the "
                         "netlist's .input ELEMENT.PARAM lines, outputs its recorded "
                         "variables, parameters its .param names. Needs pythonfmu "
                         "(pip install circuitsim[fmu]); the importing tool needs Python "
                         "with numpy, scipy, networkx and lark (docs/fmu.md).")
    _common(fmu)
    fmu.add_argument("-o", "--out", metavar="FMU",
                     help="the FMU to write (default: <netlist>.fmu in this directory)")
    fmu.add_argument("--study", metavar="NAME", help="export this .study")
    fmu.add_argument("--name", metavar="ID", help="the model identifier (default: from the "
                     "netlist's file name)")


def _compare_parser(sub) -> None:
    cmp = sub.add_parser("compare", help="compare results with a golden run's",
                         description="Compare RESULTS with GOLDEN variable by variable: every "
                         "golden variable, at the golden's times (RESULTS interpolated "
                         "linearly), within RTOL of its range in the golden run plus ATOL. "
                         "Exit 0 when all pass, 1 on a difference (the worst variables are "
                         "listed), 2 when a file cannot be read.")
    cmp.add_argument("results", help="the results to check (.csv, .npz or .mat)")
    cmp.add_argument("golden", help="the reference results (.csv, .npz or .mat)")
    _tolerance_options(cmp, "--")


def _tolerance_options(p, prefix: str) -> None:
    p.add_argument(f"{prefix}rtol", type=float, default=regression.RTOL, metavar="RTOL",
                   help="allowed difference as a fraction of each variable's range in the "
                   f"golden run (default {regression.RTOL:g})")
    p.add_argument(f"{prefix}atol", type=float, default=regression.ATOL, metavar="ATOL",
                   help="added to it, in the variable's unit (default "
                   f"{regression.ATOL:g})")


def _check_parser(sub) -> None:
    check = sub.add_parser("check", help="parse and build the equations; report counts; no run",
                           description="Parse, elaborate and assemble every study and .step "
                           "case (or the one named) as run would, without running.")
    _common(check)
    check.add_argument("--study", metavar="NAME", help="check only this .study (default: the "
                       "netlist as written and every study)")


def _equations_parser(sub) -> None:
    eq = sub.add_parser("equations", help="derive the symbolic equations of motion (needs "
                        "sympy)", description="Derive the equations of motion "
                        "P = M(q) q'' + c(q, q') + g(q) of the netlist's tree of revolute, "
                        "prismatic, universal and spherical joints (fixed joints weld "
                        "bodies) by the method of connected graphs, q the joints' recorded "
                        "angle / s / angle1.. (0 as drawn), "
                        "and write them as a Python module, C or LaTeX (to stdout without "
                        "-o). Needs sympy: pip install 'circuitsim[symbolic]'.")
    _common(eq)
    eq.add_argument("--study", metavar="NAME", help="derive them for this .study")
    eq.add_argument("--format", choices=("python", "latex", "c"),
                    help="python: a module with inverse_dynamics(q, qd, qdd), "
                    "mass_matrix(q) and JOINTS (numpy only); latex: a document of M, the "
                    "velocity and the gravity terms; c: C functions (default: from the "
                    "suffix of -o, .py .tex .c, else python)")
    eq.add_argument("--count", action="store_true",
                    help="print the additions and multiplications to evaluate P before and "
                    "after common-subexpression elimination, against Lagrange's equations "
                    "(4x4 matrices) and recursive Newton-Euler built on the same chain; the "
                    "equations are then written only with -o")
    eq.add_argument("-o", "--out", metavar="FILE", help="write the equations to FILE")


def _op_parser(sub) -> None:
    op = sub.add_parser("op", help="static equilibrium (operating point): F(t, y, 0) = 0",
                        description="Find the static equilibrium: every derivative zero "
                        "(bodies at rest, capacitors without current), starting from the "
                        "netlist's initial configuration, and print what holds it: joint "
                        "angles and positions, forces, pressures, currents.")
    _common(op)
    op.add_argument("--study", metavar="NAME", help="use this .study")
    op.add_argument("--time", type=float, default=0.0, metavar="T",
                    help="take the sources' values at time T (default 0)")
    op.add_argument("--out", metavar="CSV", help="write every variable (name,value,unit)")
    op.add_argument("--all", action="store_true",
                    help="print every variable (reactions along the joints' own normals, "
                    "quaternions, multipliers, energies too)")


def _linearize_parser(sub) -> None:
    lin = sub.add_parser("linearize", help="state-space model and modes in minimal "
                         "coordinates", description="Linearise in minimal coordinates "
                         "(constraints eliminated): x' = A x + B u, y = C x + D u at the "
                         "operating point (default) or at time T of a run; print the modes "
                         "(natural frequency, damping ratio, dominant coordinates).")
    _common(lin)
    lin.add_argument("--study", metavar="NAME", help="use this .study")
    lin.add_argument("--at", type=float, metavar="T",
                     help="linearise at time T of a run (default: at the operating point)")
    lin.add_argument("--inputs", nargs="+", action="extend", default=[], metavar="SOURCE",
                     help="inputs u: sources' values by element name (Vsup, Tq, F1.Fz)")
    lin.add_argument("--outputs", nargs="+", action="extend", default=None, metavar="VAR",
                     help="outputs y: recorded variables (default: the states)")
    lin.add_argument("--out", metavar="NPZ", help="write A, B, C, D and the names (.npz)")
    lin.add_argument("--matrices", action="store_true", help="also print A, B, C, D")


def _import_urdf_parser(sub) -> None:
    imp = sub.add_parser("import-urdf", help="write a netlist from a URDF robot description",
                         description="Write the netlist of a URDF robot description: a body "
                         "per link (links joined by fixed joints merged), revolute and "
                         "prismatic joints on flanges named after the URDF joints, their "
                         "damping, friction and position limits as damper, friction and "
                         "stop elements, mimic joints as transformers (docs/urdf.md).")
    _import_options(imp, "URDF file (.urdf)", "0 0 -9.81", "URDF")
    imp.add_argument("--floating-base", action="store_true",
                     help="the root link is a free body (default: fixed to the ground)")


def _import_mjcf_parser(sub) -> None:
    imp = sub.add_parser("import-mjcf", help="write a netlist from a MuJoCo model (MJCF), "
                         "compiled by MuJoCo",
                         description="Write the netlist of a MuJoCo model (MJCF, or a URDF "
                         "as MuJoCo reads it), compiled by MuJoCo's own compiler (pip "
                         "install circuitsim[mjcf]): a body per body, hinge and slide joints "
                         "as revolute and prismatic joints, their damping, armature, "
                         "frictionloss and range as damper, inertia or mass, friction and "
                         "stop elements (docs/urdf.md, MJCF).")
    _import_options(imp, "MJCF file (.xml) or URDF file", "the file's own", "MuJoCo")


def _import_options(imp, source: str, gravity: str, names: str) -> None:
    """What the robot imports share: the file, -o, gravity, end time, initial joint
    values."""
    imp.add_argument("file", metavar="FILE", help=source)
    imp.add_argument("-o", "--out", metavar="FILE",
                     help="write the netlist to FILE (default: to stdout)")
    grav = imp.add_mutually_exclusive_group()
    grav.add_argument("--gravity", nargs=3, type=float, metavar=("GX", "GY", "GZ"),
                      default=None, help=f"the .gravity line, m/s^2 (default {gravity})")
    grav.add_argument("--no-gravity", action="store_true", help="write no .gravity line")
    imp.add_argument("--tend", type=float, default=2.0, metavar="T",
                     help="the .tran end time in seconds (default 2)")
    for option, what in (("--q0", "positions (rad or m)"), ("--qd0", "rates (rad/s or m/s)")):
        imp.add_argument(option, action="append", default=[], metavar="JOINT=VALUE,...",
                         help=f"initial joint {what} by {names} joint name (default 0; the "
                         "option may be repeated)")


def _common(p) -> None:
    """The netlist and the options that run and check share."""
    p.add_argument("file", nargs="?", help="netlist file (.cir)")
    p.add_argument("--set", nargs="+", action="extend", default=[], metavar="NAME=VALUE",
                   help="override a parameter (k=1e6), an element parameter (R1.R=2k) or a "
                   "solver option (rtol=1e-9, atol, maxstep, h0, maxorder); several may "
                   "follow one --set")
    p.add_argument("--include-path", action="append", default=[], metavar="DIR",
                   help="a directory .include and data files (pwl(file=...), table(...)) "
                   "may read from besides the netlist's own tree and the library (also: "
                   "CIRCUITSIM_INCLUDE_PATH)")
    p.add_argument("--max-elements", type=int, metavar="N",
                   help="refuse netlists that expand to more elements than this "
                   "(default 1000000, or CIRCUITSIM_MAX_ELEMENTS)")


def _netlist_file(args) -> None:
    """The netlist may also come after --plot/--set values (``--plot v out.cir``): nargs=+
    takes it along; give it back."""
    if args.file is not None:
        return
    for listed in (getattr(args, "plot", None), getattr(args, "inputs", None),
                   getattr(args, "outputs", None), args.set):
        if listed and "=" not in listed[-1] and (listed[-1].lower().endswith((".cir", ".net",
                                                                              ".sp"))
                                                  or Path(listed[-1]).is_file()):
            args.file = listed.pop()
            return
    raise NetlistError(f"{args.command}: no netlist file given (circuitsim {args.command} "
                       "FILE.cir ...)", Loc("<command line>", 1, 1))


def _check_options(args) -> None:
    """The options' values that argparse takes but no run can use, refused before the
    netlist is read: an empty file name, a cap of no elements, a time that is not a
    finite number (or before the run starts), a plot format that cannot be written."""
    for option in ("out", "animate", "plot_file"):
        if getattr(args, option, None) == "":
            _bad_option(f"--{option.replace('_', '-')}", "''", "an empty file name")
    if getattr(args, "max_elements", None) is not None and args.max_elements < 1:
        _bad_option("--max-elements", args.max_elements, "give a positive number of elements")
    time = getattr(args, "time", None)
    if time is not None and not math.isfinite(time):
        _bad_option("--time", time, "give a finite time in seconds")
    at = getattr(args, "at", None)
    if at is not None and not (math.isfinite(at) and at >= 0):
        _bad_option("--at", at, "give a finite time >= 0 in seconds")
    for option in ("compare_rtol", "compare_atol"):
        value = getattr(args, option, 0.0)
        if not (math.isfinite(value) and value >= 0):
            _bad_option(f"--{option.replace('_', '-')}", value, "give a finite tolerance >= 0")
    plot_file = getattr(args, "plot_file", None)
    formats = _image_formats() if plot_file else None
    if formats and Path(plot_file).suffix.lower().lstrip(".") not in formats:
        _bad_option("--plot-file", plot_file, "the suffix names the image format: one of "
                    + ", ".join(f".{f}" for f in formats))


def _image_formats() -> list:
    """The file suffixes matplotlib writes (empty without matplotlib: the plot says so)."""
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        return []
    return sorted(FigureCanvasBase.get_supported_filetypes())


def _bad_option(option: str, value, reason: str) -> None:
    raise NetlistError(f"{option} {value}: {reason}",
                       Loc("<command line>", 1, 1, f"{option} {value}"))


def _load(args):
    """The netlist named on the command line; a file that cannot be read (a directory,
    a missing file) is located at that argument."""
    try:
        return api.load(args.file, include_path=args.include_path,
                        max_elements=args.max_elements)
    except NetlistError as exc:
        if exc.loc is None:
            raise NetlistError(exc.message, Loc("<command line>", 1, 1, args.file),
                               exc.hint) from None
        raise


def _case_labels(names: list) -> dict:
    """Each case's part of its file names (``out_<label>.csv``): the case name with the
    characters a file name should not hold replaced by ``_``; names that come out equal
    (``.step k {1+2} {1*2}``) get ``_2``, ``_3`` .. so that no case's file replaces
    another's."""
    labels: dict = {}
    taken = set()
    for name in names:
        safe = "".join(ch if ch.isalnum() or ch in "-_.=" else "_" for ch in name)
        label, count = safe, 1
        while label.lower() in taken:            # case-insensitive file systems too
            count += 1
            label = f"{safe}_{count}"
        taken.add(label.lower())
        labels[name] = label
    return labels


def _check_case_names(cases) -> None:
    """Two cases of one name (a .step value repeated) would share their files and their
    line in the study comparison: refused at the .step line."""
    seen = set()
    for name, _, settings in cases:
        if name in seen:
            loc = next((getattr(s, "loc", None) for s in settings
                        if getattr(s, "loc", None) is not None), None)
            raise NetlistError(f"two cases are named '{name}' (a .step value given twice?)",
                               loc or Loc("<command line>", 1, 1, ""))
        seen.add(name)


def _case_path(base: Path, label: str | None) -> Path:
    """``base`` with the case's label after its stem (None: one case, ``base`` itself)."""
    if not label:
        return base
    return base.with_name(f"{base.stem}_{label}{base.suffix}")


class _Progress:
    def __init__(self, t_end: float, quiet: bool):
        self.t_end, self.quiet = t_end, quiet
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False

    def __call__(self, t: float) -> None:
        now = time.monotonic()
        tty = sys.stderr.isatty()
        if (self.quiet or now - self.start < PROGRESS_AFTER
                or now - self.last < PROGRESS_EVERY[tty]):
            return
        self.last = now
        end = "\r" if tty else "\n"
        frac = t / self.t_end if self.t_end else 0.0
        print(f"  t = {t:.6g} s ({100 * frac:5.1f} %)", end=end, file=sys.stderr, flush=True)
        self.shown = True

    def done(self) -> None:
        if self.shown and sys.stderr.isatty():
            print(file=sys.stderr)


RESERVED_STUDIES = {"base": "the netlist as written",          # --all-studies' case names
                    "studies": "the comparison table"}          # and <out>_studies.csv


def _cases(net, args, all_studies: bool) -> list:
    """(case name, study, settings) of every case the command covers."""
    if all_studies:
        _check_study_names(net)
    study = getattr(args, "study", None)
    if study is not None and study not in net.studies:
        known = ", ".join(net.studies) or "none defined"
        raise NetlistError(f"--study {study}: {args.file} has no such study (studies: "
                           f"{known})", Loc("<command line>", 1, 1, f"--study {study}"),
                           did_you_mean(study, net.studies))
    studies = [None] + list(net.studies) if all_studies else [study]
    cases = [(name or ("base" if all_studies else ""), study, settings)
             for study in studies for name, settings in net.cases(study, args.set)]
    _check_case_names(cases)
    return cases


def _check_study_names(net) -> None:
    """A study may not take a name that the files of every study already use."""
    for name, (_, loc) in net.studies.items():
        if name.lower() in RESERVED_STUDIES:
            raise NetlistError(f".study {name}: the name is taken by "
                               f"{RESERVED_STUDIES[name.lower()]} when every study runs; "
                               "rename the study", loc)


def _input_files(net) -> list:
    """The files the netlist was read from: its own and every ``.include`` / ``.lib``."""
    files = {net.source}
    pending = list(net.statements)
    while pending:
        st = pending.pop()
        if getattr(st, "loc", None) is not None:
            files.add(st.loc.file)
        pending += getattr(st, "body", None) or []
    return sorted(f for f in files if not f.startswith("<"))


def _writable(path: Path, option: str, inputs=()) -> Path:
    """NetlistError at the command-line option unless ``path`` can be written: checked
    before the run, so that no run is lost to a missing directory. Only a regular file is
    replaced (a device, a pipe or a socket keeps its node), and never one of ``inputs``
    (the netlist and the files it reads)."""
    where = Loc("<command line>", 1, 1, f"{option} {path}")
    parent = path.parent
    if path.is_dir():
        raise NetlistError(f"{option} {path}: is a directory; give a file name", where)
    if path.exists() and not path.is_file():
        raise NetlistError(f"{option} {path}: not a regular file (a device, a pipe or a "
                           "socket); give a file name", where)
    if not parent.is_dir():
        raise NetlistError(f"{option} {path}: the directory {parent} does not exist", where)
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise NetlistError(f"{option} {path}: not writable", where)
    for source in inputs:
        if path.exists() and os.path.exists(source) and os.path.samefile(path, source):
            raise NetlistError(f"{option} {path}: is the input file {source}; give "
                               "another name", where)
    return path


@dataclass
class _RunFiles:
    """The files ``run`` writes, every one checked writable before the first case runs."""
    stem: str                   # the netlist's name: the default file names
    labels: dict                # case name -> its file-name label (several cases: one
                                # file each, named after the case); empty for one case
    out: Path | None            # --out (with --stream, <netlist>.csv by default)
    stream: bool                # the CSV is written while the case runs
    animate: Path | None        # --animate
    studies_csv: Path | None = None     # the study comparison (--all-studies)
    plot: Path | None = None            # --plot's PNG
    golden: Path | None = None          # --compare
    differed: list = field(default_factory=list)   # cases that failed their comparison

    def goldens(self, name: str) -> Path:
        return _case_path(self.golden, self.labels.get(name))

    def results(self, name: str) -> Path:
        return _case_path(self.out, self.labels.get(name))

    def streamed(self, name: str) -> Path | None:
        """The CSV a case writes while it runs (--stream), else None."""
        return self.results(name) if self.stream else None

    def partial(self, name: str) -> Path:
        """Where a failed case's results so far go (streamed: already there)."""
        if self.stream:
            return self.results(name)
        return _case_path(self.out or Path(f"{self.stem}_partial.csv"), self.labels.get(name))

    def animation(self, name: str) -> Path:
        return _case_path(self.animate, self.labels.get(name))

    @property
    def several(self) -> bool:
        return bool(self.labels)


def _run(args) -> int:
    """circuitsim run: every case and file checked and every case prepared first, then
    the cases run (one after the other or on --jobs processes), then the study comparison
    and the plot."""
    net = _load(args)
    cases = _run_cases(net, args)
    files = _run_files(args, cases, _input_files(net))
    prepared = _prepare(net, args, cases)
    results, wall = {}, {}
    if parallel.workers(args.jobs) > 1 and files.several:
        code = _run_parallel(args, files, net, cases, prepared, results, wall)
    else:
        code = _run_serial(args, files, prepared, results, wall)
    if code != EXIT_OK:
        return code
    if files.differed:
        print(f"error: {args.file}: differs from the golden run: "
              f"{', '.join(files.differed)}", file=sys.stderr)
    if len(results) > 1 and any(res.measures is not None for res in results.values()):
        from .output.measures import by_case, table_text
        print(table_text(by_case(results)))
    if args.all_studies and not _compare_studies(results, wall, files.studies_csv):
        return EXIT_SOLVER
    if args.plot:
        from .output.plotting import plot
        try:
            print(f"plot -> {plot(results, args.plot, files.plot)}")
        except CircuitsimError as exc:        # after the run: the results are written
            print(f"error: {args.file}: E_WRITE: {exc}; the results are written",
                  file=sys.stderr)
            return EXIT_SOLVER
    return EXIT_DIFFERENT if files.differed else EXIT_OK


def _export_fmu(args) -> int:
    """circuitsim export-fmu FILE -o model.fmu."""
    from .bridges.fmu import export_fmu
    net = _load(args)                       # located errors before any packaging
    settings = args.set
    target = _writable(Path(args.out or Path(args.file).with_suffix(".fmu").name), "--out",
                       _input_files(net))
    inputs = [name for name, _ in net.prepare(args.study, settings).circuit.inputs]
    written = export_fmu(args.file, target, study=args.study, settings=settings,
                         include_path=args.include_path, name=args.name)
    print(f"FMU -> {written} (inputs: {', '.join(inputs) or 'none'})")
    return EXIT_OK


def _compare(args) -> int:
    """circuitsim compare RESULTS GOLDEN."""
    for option in ("rtol", "atol"):
        value = getattr(args, option)
        if not (math.isfinite(value) and value >= 0):
            _bad_option(f"--{option}", value, "give a finite tolerance >= 0")
    tested, golden = (_read_results(path, what) for path, what in
                      ((args.results, "RESULTS"), (args.golden, "GOLDEN")))
    found = regression.compare(tested, golden, args.rtol, args.atol)
    print(found.text(args.results, args.golden),
          file=sys.stdout if found.passed else sys.stderr)
    return EXIT_OK if found.passed else EXIT_DIFFERENT


def _read_results(path: str, what: str):
    """A results file named on the command line, read; a file that cannot be read is
    located at that argument."""
    try:
        return api.Result.read(path)
    except CircuitsimError as exc:
        raise NetlistError(str(exc), Loc("<command line>", 1, 1, path)) from None


def _run_cases(net, args) -> list:
    """The cases ``run`` covers; --all-studies needs a .study to compare."""
    if args.all_studies and not net.studies:
        raise NetlistError(f"--all-studies: {args.file} defines no .study",
                           Loc("<command line>", 1, 1, "--all-studies"))
    return _cases(net, args, args.all_studies)


def _run_files(args, cases, inputs) -> _RunFiles:
    """The files of the run's options, the options checked together and every file
    checked writable (and none of ``inputs``): before the run, so that no run is lost
    to a bad option."""
    several = len(cases) > 1
    if args.jobs < 0:
        raise NetlistError(f"--jobs must be 0 (one per core) or positive, got {args.jobs}",
                           Loc("<command line>", 1, 1, f"--jobs {args.jobs}"))
    if args.stream and parallel.workers(args.jobs) > 1 and several:
        raise NetlistError("--stream writes one case at a time; drop --jobs or --stream",
                           Loc("<command line>", 1, 1, "--stream"))
    stem = Path(args.file).stem
    out = Path(args.out) if args.out else None
    if args.stream:
        out = out or Path(f"{stem}.csv")
        if out.suffix.lower() != ".csv":
            raise NetlistError(f"--stream writes CSV; got --out {out}",
                               Loc("<command line>", 1, 1, f"--out {out}"))
    files = _RunFiles(stem, _case_labels([name for name, _, _ in cases]) if several else {},
                      out, args.stream, Path(args.animate) if args.animate else None)
    if out is not None:
        for name, _, _ in cases:
            _writable(files.results(name), "--out", inputs)
    if args.all_studies:
        files.studies_csv = _writable(out.with_name(out.stem + "_studies.csv")
                                      if out else Path(f"{stem}_studies.csv"), "--out", inputs)
    if args.update_golden and not args.compare:
        raise NetlistError("--update-golden needs --compare GOLDEN (the file to write)",
                           Loc("<command line>", 1, 1, "--update-golden"))
    if args.compare:
        files.golden = Path(args.compare)
        for name, _, _ in cases:
            _golden_ready(files.goldens(name), args.update_golden, inputs)
    if args.plot:
        files.plot = _writable(Path(args.plot_file) if args.plot_file else (
            out.with_suffix(".png") if out else Path(f"{stem}.png")), "--plot-file", inputs)
    if args.animate:
        for name, _, _ in cases:
            _writable(files.animation(name), "--animate", inputs)
    return files


def _golden_ready(golden: Path, update: bool, inputs) -> None:
    """A golden file to compare with exists (or, to be written, is writable)."""
    if update:
        _writable(golden, "--compare", inputs)
    elif not golden.is_file():
        raise NetlistError(f"--compare {golden}: no such file (--update-golden writes it "
                           "from this run)", Loc("<command line>", 1, 1, f"--compare {golden}"))


def _prepare(net, args, cases) -> list:
    """Every case elaborated and assembled once, all before the first run: a bad later
    case (or a misspelt --plot name) is said before any work."""
    prepared = [net.prepare(study, settings, name) for name, study, settings in cases]
    if len(prepared) > 1:          # the load of the compiled kernels is shared by all
        for case in prepared:
            case.system.compiled_from_start()
    # what is built lives until the process ends: out of the cyclic collector's scans
    # (its first pass over a model of 1e3 bodies took 0.2 s)
    freeze_built()
    if args.animate and not scene_of(prepared[0].circuit).bodies:
        raise NetlistError(f"--animate: {args.file} has no bodies to draw",
                           Loc("<command line>", 1, 1, f"--animate {args.animate}"))
    if args.plot:
        from .output.plotting import check_variables
        check_variables(args.plot, prepared[0].recorded)
    return prepared


def _run_serial(args, files, prepared, results, wall) -> int:
    """The cases one after the other (results and wall filled in); the first that fails,
    or a signal while one is written, stops the run."""
    for case in prepared:
        started = time.perf_counter()
        res = _run_case(args, files, case)
        if res is None:
            return EXIT_SOLVER
        wall[case.name] = time.perf_counter() - started
        results[case.name] = res
        rest = [later.name for later in prepared[prepared.index(case) + 1:]]
        if not _report_success(args, files, case.name, res, rest):
            return EXIT_SOLVER
    return EXIT_OK


def _run_case(args, files, case):
    """One case run with its warnings, notes and progress; None if the solver failed
    (reported, its results so far written)."""
    _print_warnings(case.warnings)
    progress = _Progress(case.t_end or 0.0, args.quiet)
    try:
        res = case.run(progress=progress,
                       on_start=lambda start: _print_start(start, args.quiet),
                       stream=files.streamed(case.name), stream_units=args.csv_units,
                       report=args.report,
                       record_poses=bool(args.animate), compared=args.all_studies)
    except SolverError as exc:
        progress.done()
        _report_failure(args, files, case.name, exc, exc.partial)
        return None
    progress.done()
    return res


def _run_parallel(args, files, net, cases, prepared, results, wall) -> int:
    """The cases on --jobs processes; each is written and summarised as it finishes
    (results and wall filled in the cases' order). A failed case is reported and the
    others kept; an interrupt stops the running cases, writes what they computed and
    names the cases finished, stopped and not started."""
    failed, stopped = [], []

    def finished(outcome):
        if outcome.error is not None:
            (stopped if isinstance(outcome.error, Interrupted) else failed).append(outcome.name)
            _report_failure(args, files, outcome.name, outcome.error, outcome.result)
            return
        wall[outcome.name] = outcome.wall
        results[outcome.name] = outcome.result
        if not _report_success(args, files, outcome.name, outcome.result):
            failed.append(outcome.name)             # its results kept elsewhere, named
    for case in prepared:
        _print_warnings(case.warnings)
    try:
        parallel.run_cases(net, cases, args.jobs, on_case=finished, report=args.report,
                           record_poses=bool(args.animate), compared=args.all_studies,
                           prepared={case.name: case for case in prepared})
    except KeyboardInterrupt as exc:
        ended = set(results) | set(stopped) | set(failed)
        groups = {"finished and written": list(results),
                  "stopped, their results so far written": stopped, "failed": failed,
                  "not started": [name for name, _, _ in cases if name not in ended]}
        print(f"error: {args.file}: {_stopped(exc)}; cases " + "; ".join(
            f"{group}: {', '.join(names) or 'none'}" for group, names in groups.items()
            if names or group != "failed"), file=sys.stderr)
        return EXIT_SOLVER
    if failed:
        print(f"error: {len(failed)} of {len(cases)} cases failed: {', '.join(failed)}; "
              "the others are written", file=sys.stderr)
        return EXIT_SOLVER
    ordered = {name: results[name] for name, _, _ in cases}
    results.clear()
    results.update(ordered)
    return EXIT_OK


def _stopped(exc: KeyboardInterrupt) -> str:
    """What stopped the run: Ctrl-C, or the signal SIGTERM / SIGHUP raised as Terminated."""
    return f"stopped by {exc.signal_name}" if isinstance(exc, Terminated) else "interrupted"


def _report_failure(args, files, name, exc, partial) -> None:
    """A failed case: its report (if asked), its partial results written, the message."""
    if args.report and partial is not None and partial.report is not None:
        print(partial.report.text())
    where = _write_partial(args, files, name, partial)
    if args.animate and partial is not None and len(partial):
        where += "; " + _animate(files, name, partial)
    print(f"error: {args.file}{' [' + name + ']' if name else ''}: {exc}\n{where}",
          file=sys.stderr)


def _write_partial(args, files, name, partial) -> str:
    """Write a failed case's results so far (a streamed CSV is already complete); what
    to tell the user."""
    if partial is None or not len(partial):
        return "no results were computed"
    target = files.partial(name)
    if files.stream and partial.unstreamed is None:
        place = target
    else:
        with _HeldSignals(target):
            place, failure = kept(_saver(args, partial), target)
        if failure is not None:               # the diagnosis comes first
            return f"{partial.unstreamed or failure}; {_kept_where(partial, place)}"
    return (f"results up to t = {partial.t[-1]:.6g} s "
            f"({len(partial)} points) written to {place}")


def _kept_where(res, place) -> str:
    """Where results that could not be written as asked were kept, said to the user."""
    what = f"the results ({len(res)} points, t = 0 .. {res.t[-1]:.6g} s)"
    if place is None:
        return (f"{what} could not be written anywhere (also tried the temporary and the "
                "home directory)")
    return f"{what} were written to {place} instead"


def _animate(files, name, res) -> str:
    """Write the case's animation (--animate); what to tell the user."""
    target = files.animation(name)
    try:
        with _HeldSignals(target):
            res.animate(target)
    except CircuitsimError as exc:
        return f"the animation could not be written: {exc}"
    return f"animation -> {target}"


def _report_success(args, files, name, res, rest=()) -> bool:
    """A finished case: written, its summary line and report printed. False if it could
    not be written where asked (kept elsewhere, said) or a signal arrived while it was
    written: the run stops there, and ``rest``, the cases after it, are named as not run."""
    written = ""
    if files.out:
        target = files.results(name)
        with _HeldSignals(target) as held:
            place, failure = ((target, None) if files.stream and res.unstreamed is None
                              else kept(_saver(args, res), target))
        if failure is not None:
            print(f"error: {args.file}{' [' + name + ']' if name else ''}: E_WRITE: "
                  f"{res.unstreamed or failure}; {_kept_where(res, place)}"
                  + (f"; not run: {', '.join(rest)}" if rest else ""), file=sys.stderr)
            return False
        written = f" -> {target}"
        if held.received:
            print(f"stopped by {held.received} after {target} was written; the cases "
                  "after it were not run", file=sys.stderr)
            return False
    if not args.quiet:
        print(_summary(name or files.stem, res) + written, flush=True)
    if res.measures is not None:
        print(res.measures.text(), flush=True)
    if args.report:
        print(res.report.text())
    if args.animate:
        print(_animate(files, name, res))
    if files.golden is not None:
        return _against_golden(args, files, name, res)
    return True


def _saver(args, res):
    """``res.save`` with the run's format options."""
    return lambda path: res.save(path, mat_format=args.mat_format, csv_units=args.csv_units)


def _against_golden(args, files, name, res) -> bool:
    """--compare: the case against its golden file (or, --update-golden, written as
    it); a difference is printed and counted in ``files.differed``. False if the golden
    file could not be written."""
    golden = files.goldens(name)
    if args.update_golden:
        with _HeldSignals(golden):
            place, failure = kept(_saver(args, res), golden)
        if failure is not None:
            print(f"error: E_WRITE: {failure}; {_kept_where(res, place)}", file=sys.stderr)
            return False
        print(f"golden -> {golden}")
        return True
    found = regression.compare(res, api.Result.read(golden), args.compare_rtol,
                               args.compare_atol)
    print(found.text(f"{args.file}{' [' + name + ']' if name else ''}", str(golden)),
          file=sys.stdout if found.passed else sys.stderr, flush=True)
    if not found.passed:
        files.differed.append(name or files.stem)
    return True


def _summary(label: str, res) -> str:
    """A finished case in one line: its span, points and the solver's work."""
    s = res.stats
    return (f"{label}: t = 0 .. {res.t[-1]:.6g} s, {len(res)} points, "
            f"{s.get('nsteps', 0)} steps ({s.get('nfail_err', 0)} rejected), "
            f"{s.get('njac', 0)} Jacobians, {s.get('nlu', 0)} LU")


def _compare_studies(results, wall, target: Path) -> bool:
    """--all-studies: the studies against the first one, as a table and a CSV; False
    if the CSV could not be written where asked (said, with where it went instead)."""
    rows = studies_mod.compare(results, wall)
    print(f"\nstudy comparison (reference: {next(iter(results))}):")
    print(studies_mod.table(rows))
    with _HeldSignals(target):
        place, failure = kept(lambda path: studies_mod.write_csv(rows, path), target)
    if failure is None:
        print(f"comparison -> {place}")
        return True
    instead = f"written to {place} instead" if place else "printed above only"
    print(f"error: E_WRITE: {failure}; the comparison is {instead}", file=sys.stderr)
    return False


class _HeldSignals:
    """While results are written, Ctrl-C, SIGTERM and SIGHUP are held until the file is
    complete (a second Ctrl-C must not leave half a file); a note says so."""

    def __init__(self, target):
        self.target = target
        self.received = ""
        self.previous = {}

    def _hold(self, signum, frame) -> None:
        self.received = self.received or signal.Signals(signum).name

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for signum in STOP_SIGNALS:
                self.previous[signum] = signal.signal(signum, self._hold)
        return self

    def __exit__(self, *exc) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        if self.received:
            print(f"note: {self.received} arrived while {self.target} was written; the "
                  "file was completed first", file=sys.stderr)


def _print_warnings(warnings) -> None:
    """Each warning once, at most MAX_WARNINGS of them, then a count of the rest."""
    for message, loc in warnings[:MAX_WARNINGS]:
        print(f"warning: {loc}: {message}" if loc else f"warning: {message}", file=sys.stderr)
    if len(warnings) > MAX_WARNINGS:
        print(f"warning: ... and {len(warnings) - MAX_WARNINGS} more warnings "
              "(`circuitsim check` lists them all)", file=sys.stderr)


def _print_start(start, quiet: bool) -> None:
    """The start-up's warnings (always) and notes (unless quiet), before the run."""
    _print_warnings(start.warnings)
    if not quiet:
        for note in start.notes:
            print(f"note: {note}", file=sys.stderr)


def _check(args) -> int:
    net = _load(args)
    report = net.check(args.study, args.set)
    # the other cases a run could take (studies, .step values) are elaborated and
    # assembled as run would, so that check passes only what run accepts
    others = [case for case in _cases(net, args, args.study is None and bool(net.studies))
              if case[1] is not None or case[0] not in ("", "base")]
    for name, study, settings in others:
        net.prepare(study, settings, name).start()
    print(report)
    if others:
        print(f"  also checked: {', '.join(name for name, _, _ in others)}")
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    for message, loc in report.warnings:
        print(f"warning: {loc}: {message}" if loc else f"warning: {message}", file=sys.stderr)
    return EXIT_OK


def _equations(args) -> int:
    net = _load(args)
    target = _writable(Path(args.out), "--out", _input_files(net)) if args.out else None
    eqs = net.equations(args.study, args.set)
    if args.count:
        print(_count_table(eqs))
    if target is not None:
        fmt = eqs.save(target, args.format)
        print(f"{len(eqs.joints)} joints ({', '.join(eqs.coordinates)}): {fmt} -> {target}",
              file=sys.stderr)
    elif not args.count:
        sys.stdout.write(eqs.text(args.format or "python"))
    return EXIT_OK


def _count_table(eqs) -> str:
    """The operation counts of ``Equations.counts`` as a table."""
    counts = eqs.counts()
    lines = [f"{len(eqs.joints)} joints ({', '.join(eqs.coordinates)})",
             "operations to evaluate P(q, q', q'') (circuitsim.symbolic.opcount: + and - are "
             "additions, * and / multiplications, sin/cos apart)",
             f"  {'method':<28}{'as built (tree)':>30}{'after sympy.cse':>30}"]
    names = {"graphs": "connected graphs", "lagrange": "Lagrange (4x4 matrices)",
             "newton_euler": "Newton-Euler (recursive)"}
    for key, label in names.items():
        cells = [f"{o.adds:>7} add {o.mults:>7} mul {o.funcs:>5} fn"
                 for o in (counts[key]["tree"], counts[key]["cse"])]
        lines.append(f"  {label:<28}{cells[0]:>30}{cells[1]:>30}")
    t, tr = counts["tally"], counts["tally_rotation"]
    lines.append(f"derivation by connected graphs: {t.adds} additions, {t.mults} "
                 f"multiplications, {t.diffs} differentiations (formulas for point masses); "
                 f"rotational terms: {tr.adds}, {tr.mults}, {tr.diffs}")
    return "\n".join(lines)


def _op(args) -> int:
    net = _load(args)
    if args.out:
        _writable(Path(args.out), "--out", _input_files(net))
    point = net.operating_point(args.study, args.set, t=args.time)
    for note in point.notes:
        print(f"note: {note}", file=sys.stderr)
    print(point.text(everything=args.all))
    return _saved(args, point.save, "values") if args.out else EXIT_OK


def _linearize(args) -> int:
    net = _load(args)
    if args.out:
        _writable(Path(args.out), "--out", _input_files(net))
    result = net.linearize(args.study, args.set, at=args.at, inputs=args.inputs,
                           outputs=args.outputs)
    print(result.text())
    if args.matrices:
        import numpy as np
        with np.printoptions(precision=5, linewidth=120, suppress=False):
            for name in "ABCD":
                print(f"{name} =\n{getattr(result, name)}")
    return _saved(args, result.save, "matrices") if args.out else EXIT_OK


def _saved(args, save, what: str) -> int:
    """Write an analysis's ``--out`` (already printed above); if it cannot be written
    where asked, elsewhere, said with E_WRITE and exit 3."""
    place, failure = kept(save, Path(args.out))
    if failure is None:
        print(f"{what} -> {place}")
        return EXIT_OK
    instead = (f"the {what} were written to {place} instead" if place else
               f"the {what} are printed above only (they could not be written anywhere)")
    print(f"error: {args.file}: E_WRITE: {failure}; {instead}", file=sys.stderr)
    return EXIT_SOLVER


def _import_urdf(args) -> int:
    """circuitsim import-urdf: the netlist of a URDF file, to -o or to stdout."""
    from .bridges import urdf_to_netlist
    return _imported(args, lambda **options: urdf_to_netlist(
        args.file, floating_base=args.floating_base, **options), [0.0, 0.0, -9.81])


def _import_mjcf(args) -> int:
    """circuitsim import-mjcf: the netlist of a MuJoCo model, to -o or to stdout."""
    from .bridges.mjcf import AS_WRITTEN, mjcf_to_netlist
    return _imported(args, lambda **options: mjcf_to_netlist(args.file, **options),
                     AS_WRITTEN)


def _imported(args, convert, default_gravity) -> int:
    """The netlist ``convert(gravity=, t_end=, q0=, qd0=)`` gives for the import
    options, written to -o or to stdout."""
    if not (math.isfinite(args.tend) and args.tend > 0):
        _bad_option("--tend", args.tend, "give a positive number of seconds")
    if args.gravity is not None and not all(math.isfinite(g) for g in args.gravity):
        _bad_option("--gravity", " ".join(map(str, args.gravity)), "give three finite numbers")
    gravity = None if args.no_gravity else (args.gravity if args.gravity is not None
                                            else default_gravity)
    starts = {option: _joint_values(args, option) for option in ("--q0", "--qd0")}
    target = _writable(Path(args.out), "--out", [args.file]) if args.out else None
    try:
        text = convert(gravity=gravity, t_end=args.tend, q0=starts["--q0"],
                       qd0=starts["--qd0"])
    except NetlistError as exc:
        if exc.loc is not None:
            raise
        option = next((o for o in ("--qd0", "--q0") if exc.message.startswith(o[2:] + ":")),
                      None)
        shown = f"{option} {' '.join(getattr(args, option[2:]))}" if option else args.file
        raise NetlistError(exc.message, Loc("<command line>", 1, 1, shown), exc.hint) from None
    if target is None:
        sys.stdout.write(text)
        return EXIT_OK
    return _saved(args, lambda path: _write_text(path, text), "netlist")


def _joint_values(args, option: str) -> dict:
    """--q0 / --qd0: JOINT=VALUE items (comma-separated, the option repeated) as
    {joint: number}."""
    values = {}
    for item in (part for word in getattr(args, option[2:]) for part in word.split(",")
                 if part.strip()):
        name, eq, value = item.partition("=")
        try:
            number = float(value) if eq and name.strip() else math.nan
        except ValueError:
            number = math.nan
        if not math.isfinite(number):
            _bad_option(option, item, "give JOINT=VALUE with a finite number (SI: rad, m)")
        values[name.strip()] = number
    return values


def _write_text(path: Path, text: str) -> None:
    from .output.files import replaced_text
    with replaced_text(path) as (fh, _):
        fh.write(text)


COMMANDS = {"run": _run, "check": _check, "equations": _equations, "op": _op,
            "linearize": _linearize, "export-fmu": _export_fmu, "import-urdf": _import_urdf,
            "import-mjcf": _import_mjcf}


def _on_signal(signum, frame) -> None:
    raise Terminated(signal.Signals(signum).name)


def _handle_termination() -> None:
    """SIGTERM and SIGHUP stop a run as Ctrl-C does: the results so far are written."""
    for signum in STOP_SIGNALS:
        if signum != signal.SIGINT:
            signal.signal(signum, _on_signal)


# characters that would steer the terminal rather than be shown (ESC sequences, the other
# C0 and C1 controls, bidirectional overrides), as a netlist's title, a file's name or a
# value can carry them: everything the command line prints shows them escaped
_CONTROLS = {c: f"\\x{c:02x}" for c in [*range(0x09), 0x0b, 0x0c, *range(0x0e, 0x20), 0x7f,
                                        *range(0x80, 0xa0)]}
_CONTROLS.update({c: f"\\u{c:04x}" for c in [0x061c, 0x200e, 0x200f, *range(0x202a, 0x202f),
                                             *range(0x2066, 0x206a)]})


class _Escaped:
    """A text stream that writes terminal controls as escapes (tab, newline and carriage
    return, which the output uses, pass)."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(text.translate(_CONTROLS))

    def __getattr__(self, name):
        return getattr(self._stream, name)


def main(argv=None) -> int:
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Escaped(sys.stdout), _Escaped(sys.stderr)
    try:
        return _main(argv)
    finally:
        sys.stdout, sys.stderr = streams


def _main(argv) -> int:
    args = _parser().parse_args(argv)
    keep_freed_memory()
    if threading.current_thread() is threading.main_thread():
        _handle_termination()
    try:
        if args.command == "compare":            # results files, no netlist
            return _compare(args)
        _netlist_file(args)
        _check_options(args)
        return COMMANDS[args.command](args)
    except NetlistError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except SolverError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_SOLVER
    except CircuitsimError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt as exc:
        print(f"{_stopped(exc)} before the run started; nothing was computed",
              file=sys.stderr)
        return EXIT_SOLVER
    except MemoryError:        # a netlist too large for this machine, not a bug
        print(f"error: {args.file}: E_MEMORY: the memory ran out in `circuitsim "
              f"{args.command}` (a million-element netlist takes about 5 GB to build); "
              "nothing was written. Run it on a machine with more memory, or set "
              "--max-elements (CIRCUITSIM_MAX_ELEMENTS) to what this one holds, so that "
              "such netlists are refused before any work", file=sys.stderr)
        return EXIT_SOLVER if args.command == "run" else EXIT_INPUT
    except Exception as exc:   # a bug in circuitsim, not a user error: say so briefly
        import traceback
        print(f"internal error ({type(exc).__name__}: {exc}); please report it with the "
              "netlist. Details:", file=sys.stderr)
        traceback.print_exc(limit=3)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
