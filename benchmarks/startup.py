"""Start-up cost of a small run: whole processes of `circuitsim run` and `circuitsim check`
on a small netlist against a bare `python -c "import numpy, scipy.sparse"`, and where the
time of the run goes.

    python benchmarks/startup.py                     # netlists/dcmotor.cir, 11 pairs
    python benchmarks/startup.py -n 21 netlists/rlc.cir
    python benchmarks/startup.py --phases            # where one run's time goes

Each command and the yardstick run in turn (A B A B ...), and the ratio A/B is taken pair
by pair, so that a machine whose speed drifts (a shared one) moves both sides of a ratio
alike; the medians are printed, with the spread of the ratios. CPU time (user + system,
the children's own accounting; POSIX only) is steadier than wall time on a loaded
machine. The first run of each command is a warm-up, not counted: it writes the
grammar's tables to the per-user cache, as a user's first run does. The package's
bytecode is compiled first, as an installed package's is.

--phases runs `circuitsim run` once in this process and prints the CPU time of each
phase, measured by timers around the functions that do it (no profiler, which would slow
Python code more than compiled code and distort the shares): the interpreter's start,
the imports (numpy; SciPy's LAPACK wrappers, whose getrf/getrs the dense LU of a small
system calls, loaded without scipy's packages; lark; circuitsim's own modules; a small run
imports no scipy package), parse, prepare (elaborate and assemble), the run's
start-up, its integration steps and the polishing of its output points, CSV writing.
"""
from __future__ import annotations

import argparse
import compileall
import importlib.util
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
YARDSTICK = [sys.executable, "-c", "import numpy, scipy.sparse"]


def timed(command: list) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def compare(command: list, pairs: int) -> dict:
    """Medians of the command's and the yardstick's times, and of their ratios."""
    timed(command), timed(YARDSTICK)                     # warm-up: caches, disk
    rows = [(timed(command), timed(YARDSTICK)) for _ in range(pairs)]
    cpu_ratio = [a[0] / b[0] for a, b in rows]
    wall_ratio = [a[1] / b[1] for a, b in rows]
    return {"cpu": statistics.median(a[0] for a, _ in rows),
            "cpu_yardstick": statistics.median(b[0] for _, b in rows),
            "wall": statistics.median(a[1] for a, _ in rows),
            "wall_yardstick": statistics.median(b[1] for _, b in rows),
            "cpu_ratio": statistics.median(cpu_ratio),
            "cpu_spread": (min(cpu_ratio), max(cpu_ratio)),
            "wall_ratio": statistics.median(wall_ratio)}


def _timers(patches) -> dict:
    """Wrap each (label, owner, attribute) function in a timer; label -> CPU seconds."""
    spent = {label: 0.0 for label, _, _ in patches}

    def timer(label, function):
        def timed_call(*args, **kwargs):
            start = time.process_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[label] += time.process_time() - start
        return timed_call
    for label, owner, name in patches:
        if getattr(owner, name, None) is None:
            spent[label] = None            # renamed since this was written
        else:
            setattr(owner, name, timer(label, getattr(owner, name)))
    return spent


def phases(netlist: Path, out: Path, started: float) -> None:
    """CPU time of each phase of one `circuitsim run` in this process (see above)."""
    rows = [("interpreter start, this script's imports", started)]
    for label, modules in (("import numpy", ("numpy",)),
                           ("import lark", ("lark",)),
                           ("import circuitsim (its own modules)", ("circuitsim.cli",))):
        start = time.process_time()
        for module in modules:
            importlib.import_module(module)
        rows.append((label, time.process_time() - start))
    from circuitsim.solver import lapack
    start = time.process_time()
    lapack.getrf_getrs()
    rows.append(("load LAPACK's getrf/getrs (the dense LU)", time.process_time() - start))
    from circuitsim import api, cli
    from circuitsim.output.results import Result
    from circuitsim.run import case
    from circuitsim.solver import bdf, newton
    spent = _timers([("parse", api, "load"), ("prepare", api.Netlist, "prepare"),
                     ("run", case.Case, "run"), ("start-up", case, "kinematic_start"),
                     ("start-up", bdf, "consistent_initial_conditions"),
                     ("polish", newton.Newton, "polish"), ("csv", Result, "to_csv")])
    start = time.process_time()
    cli.main(["run", str(netlist), "--out", str(out), "--quiet"])
    command = time.process_time() - start
    inner = sum(spent[k] or 0.0 for k in ("start-up", "polish"))
    outer = sum(spent[k] or 0.0 for k in ("parse", "prepare", "run", "csv"))
    rows += [("parse (load)", spent["parse"]), ("prepare: elaborate, assemble", spent["prepare"]),
             ("run (Case.run)", spent["run"]),
             ("  start-up: kinematic start, initial values", spent["start-up"]),
             ("  output polishing (Newton.polish)", spent["polish"]),
             ("  the rest: integration steps, recording",
              None if spent["run"] is None else spent["run"] - inner),
             ("CSV writing", spent["csv"]),
             ("the rest of the command (arguments, summary)", command - outer)]
    total = time.process_time()
    print(f"{'phase':<46} {'cpu ms':>7} {'share':>6}")
    for label, seconds in rows:
        if seconds is None:
            print(f"{label:<46} {'(not found)':>14}")
        else:
            print(f"{label:<46} {1e3 * seconds:>7.1f} {100 * seconds / total:>5.1f}%")
    print(f"{'whole process':<46} {1e3 * total:>7.1f}")


def main() -> None:
    started = time.process_time()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("netlist", nargs="?", default=str(REPO / "netlists" / "dcmotor.cir"))
    parser.add_argument("-n", type=int, default=11, help="pairs of runs (default 11)")
    parser.add_argument("--phases", action="store_true",
                        help="where one run's CPU time goes, instead of the comparison")
    args = parser.parse_args()
    package = importlib.util.find_spec("circuitsim").submodule_search_locations[0]
    compileall.compile_dir(package, quiet=1)       # the package the commands import
    netlist = Path(args.netlist).resolve()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / f"{netlist.stem}.csv"
        if args.phases:
            phases(netlist, out, started)
            return
        commands = {
            "run": [sys.executable, "-m", "circuitsim", "run", str(netlist), "--out",
                    str(out), "--quiet"],
            "check": [sys.executable, "-m", "circuitsim", "check", str(netlist)],
        }
        print(f"{netlist.name}: medians of {args.n} alternated pairs; yardstick: "
              f"python -c \"import numpy, scipy.sparse\"")
        print(f"{'command':<8} {'cpu s':>7} {'yardstick':>10} {'ratio':>6} {'spread':>13} "
              f"{'wall s':>7} {'wall ratio':>11}")
        for name, command in commands.items():
            r = compare(command, args.n)
            spread = f"{r['cpu_spread'][0]:.2f}-{r['cpu_spread'][1]:.2f}"
            print(f"{name:<8} {r['cpu']:>7.3f} {r['cpu_yardstick']:>10.3f} "
                  f"{r['cpu_ratio']:>6.2f} {spread:>13} {r['wall']:>7.3f} "
                  f"{r['wall_ratio']:>11.2f}")


if __name__ == "__main__":
    main()
