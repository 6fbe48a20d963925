"""Command line: ``circuitsim run`` and ``circuitsim check``.

The only module that prints or exits. Exit codes: 0 success, 2 bad input (nothing was
run), 3 solver failure or interrupt (results so far are written), 70 internal error.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from . import api
from . import studies as studies_mod
from .errors import (EXIT_INPUT, EXIT_OK, EXIT_SOLVER, CircuitsimError, Loc, NetlistError,
                     SolverError)

EXIT_INTERNAL = 70
MAX_WARNINGS = 10       # warnings printed per run; the rest are counted
PROGRESS_AFTER = 2.0     # seconds before a progress line appears (short runs stay quiet)
PROGRESS_EVERY = {True: 0.5, False: 10.0}   # seconds between updates: terminal, log file


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="circuitsim",
                                description="Simulate mechanisms and actuators as equivalent circuits.")
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the transient of a netlist")
    run.add_argument("file", help="netlist file (.cir)")
    run.add_argument("--out", help="results file (.csv or .npz); one file per case when "
                     "several studies or .step cases run")
    grp = run.add_mutually_exclusive_group()
    grp.add_argument("--study", help="run this .study")
    grp.add_argument("--all-studies", action="store_true", help="run every .study")
    run.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                     help="override a parameter (k=1e6) or an element parameter (R1.R=2k)")
    run.add_argument("--plot", nargs="+", metavar="VAR", help="write a PNG plot of these variables")
    run.add_argument("--plot-file", help="PNG path (default: next to --out or the netlist name)")
    run.add_argument("--stream", action="store_true",
                     help="write the CSV while the run goes (to --out, else <netlist>.csv): "
                     "a failed or interrupted long run leaves its results up to that time")
    run.add_argument("--report", action="store_true",
                     help="print a run report: solver statistics, joint constraint violations, "
                     "quaternion norms, Kirchhoff residuals, power balance")
    run.add_argument("--quiet", action="store_true", help="no summary or progress")
    check = sub.add_parser("check", help="parse and build the equations; report counts; no run")
    check.add_argument("file")
    check.add_argument("--study")
    check.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    return p


def _case_path(base: Path, case: str, several: bool) -> Path:
    if not several or not case:
        return base
    safe = "".join(ch if ch.isalnum() or ch in "-_.=" else "_" for ch in case)
    return base.with_name(f"{base.stem}_{safe}{base.suffix}")


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


def _run(args) -> int:
    net = api.load(args.file)
    stem = Path(args.file).stem
    if args.all_studies:
        if not net.studies:
            raise NetlistError(f"--all-studies: {args.file} defines no .study")
        studies = [None] + list(net.studies)          # the netlist as written comes first
    else:
        studies = [args.study]
    cases = [(name or ("base" if args.all_studies else ""), study, settings)
             for study in studies for name, settings in net.cases(study, args.set)]
    several = len(cases) > 1
    out_base = Path(args.out) if args.out else None
    if args.stream:
        out_base = out_base or Path(f"{stem}.csv")
        if out_base.suffix.lower() != ".csv":
            raise NetlistError(f"--stream writes CSV; got --out {out_base}",
                               Loc("<command line>", 1, 1, f"--out {out_base}"))
    # every case elaborated and assembled once, all before the first run: a bad later
    # case (or a misspelt --plot name) is said before any work
    prepared = [net.prepare(study, settings, name) for name, study, settings in cases]
    if args.plot:
        from .plotting import check_variables
        check_variables(args.plot, prepared[0].recorded)
    results, wall = {}, {}
    for case in prepared:
        name = case.name
        started = time.perf_counter()
        _print_warnings(case.warnings)
        progress = _Progress(case.t_end or 0.0, args.quiet)
        streamed = _case_path(out_base, name, several) if args.stream else None
        try:
            res = case.run(progress=progress,
                           on_start=lambda start: _print_start(start, args.quiet),
                           stream=streamed, report=args.report)
        except SolverError as exc:
            progress.done()
            if args.report and exc.partial is not None and exc.partial.report is not None:
                print(exc.partial.report.text())
            target = streamed or _case_path(out_base or Path(f"{stem}_partial.csv"), name,
                                            several)
            if exc.partial is not None and len(exc.partial):
                if not streamed:
                    exc.partial.save(target)
                where = (f"results up to t = {exc.partial.t[-1]:.6g} s "
                         f"({len(exc.partial)} points) written to {target}")
            else:
                where = "no results were computed"
            print(f"error: {args.file}{' [' + name + ']' if name else ''}: {exc}\n{where}",
                  file=sys.stderr)
            return EXIT_SOLVER
        progress.done()
        wall[name] = time.perf_counter() - started
        results[name] = res
        written = ""
        if out_base:
            written = f" -> {streamed or res.save(_case_path(out_base, name, several))}"
        if not args.quiet:
            s = res.stats
            print(f"{name or stem}: t = 0 .. {res.t[-1]:.6g} s, {len(res)} points, "
                  f"{s.get('nsteps', 0)} steps ({s.get('nfail_err', 0)} rejected), "
                  f"{s.get('njac', 0)} Jacobians, {s.get('nlu', 0)} LU{written}")
        if args.report:
            print(res.report.text())
    if args.all_studies:
        rows = studies_mod.compare(results, wall)
        target = (out_base.with_name(out_base.stem + "_studies.csv") if out_base
                  else Path(f"{stem}_studies.csv"))
        print(f"\nstudy comparison (reference: {next(iter(results))}):")
        print(studies_mod.table(rows))
        print(f"comparison -> {studies_mod.write_csv(rows, target)}")
    if args.plot:
        from .plotting import plot
        png = Path(args.plot_file) if args.plot_file else (
            out_base.with_suffix(".png") if out_base else Path(f"{stem}.png"))
        print(f"plot -> {plot(results, args.plot, png)}")
    return EXIT_OK


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
    report = api.load(args.file).check(args.study, args.set)
    print(report)
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    for message, loc in report.warnings:
        print(f"warning: {loc}: {message}" if loc else f"warning: {message}", file=sys.stderr)
    return EXIT_OK


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _run(args) if args.command == "run" else _check(args)
    except NetlistError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except SolverError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_SOLVER
    except CircuitsimError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_SOLVER
    except Exception as exc:   # a bug in circuitsim, not a user error: say so briefly
        import traceback
        print(f"internal error ({type(exc).__name__}: {exc}); please report it with the "
              "netlist. Details:", file=sys.stderr)
        traceback.print_exc(limit=3)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
