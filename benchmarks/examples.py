"""The shipped examples under an older version and this one: wall time, steps, results.

    python benchmarks/examples.py --base /path/to/older/checkout          # every example, 3 rounds
    python benchmarks/examples.py --base ../old --repeat 1 rlc pendulum   # chosen examples

Each ``netlists/X.cir`` runs as a user runs it, ``circuitsim run netlists/X.cir`` (with
``--all-studies`` where it has ``.study`` lines), as a whole process from the root of its
own tree: the older tree's netlist under its own package (``PYTHONPATH=--base``), this
tree's under this package, the two alternating per example (older, this, older, this, ...)
so that a drift of the shared machine's speed falls on both. Prints a markdown table: the
median wall time of each side, their ratio, the steps of all the example's runs (summed
over its studies) and the results check: the largest difference between the two versions'
recorded variables, in units of the run's tolerance (rtol·max|x| + atol of that
variable; 0 when the files are bitwise equal), from the last round's .npz files. Then the
ratio of the summed medians. The examples run 2 x ``--repeat`` times each: all of them
take several minutes a round on a 2-core machine.
"""
from __future__ import annotations

import argparse
import compileall
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
CURRENT = HERE.parent
STATS = re.compile(r"(\d+) steps \((\d+) rejected\)")
# one BLAS thread: both versions pay the same, and the machine is shared
SINGLE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def example_names(tree: Path) -> list:
    return sorted(p.stem for p in (tree / "netlists").glob("*.cir"))


def run_example(tree: Path, name: str, out_dir: Path, python: str) -> tuple:
    """(wall seconds, steps summed over the example's runs) of one whole ``circuitsim run``."""
    netlist = Path("netlists") / f"{name}.cir"
    studies = re.search(r"^\.study", (tree / netlist).read_text(), re.MULTILINE | re.IGNORECASE)
    cmd = [python, "-m", "circuitsim", "run", str(netlist), "--out", str(out_dir / f"{name}.npz")]
    cmd += ["--all-studies"] if studies else []
    # each tree's own component library first (a shared editable install points the
    # library search at one checkout's library/)
    env = dict(os.environ, PYTHONPATH=str(tree), CIRCUITSIM_PATH=str(tree / "library"),
               **SINGLE_THREAD)
    out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=tree, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{name} under {tree} failed:\n{proc.stdout}{proc.stderr}")
    steps = sum(int(m.group(1)) for m in STATS.finditer(proc.stdout + proc.stderr))
    return wall, steps


def tolerance(tree: Path, name: str) -> tuple:
    """(rtol, atol) of the example's transient, read by this tree's parser."""
    sys.path.insert(0, str(CURRENT))
    import circuitsim
    tran = circuitsim.parse((tree / "netlists" / f"{name}.cir").read_text(),
                            str(tree / "netlists" / f"{name}.cir")).prepare().circuit.tran
    return tran.rtol, tran.atol


def results_gap(old_dir: Path, new_dir: Path, name: str, rtol: float, atol: float) -> float:
    """Largest |new - old| of any variable recorded by both versions in the example's .npz
    files, in units of rtol·max|old| + atol of that variable (a newer version may record
    more); inf when a file is missing or the output times differ."""
    worst = 0.0
    for new_file in sorted(new_dir.glob(f"{name}*.npz")):
        old_file = old_dir / new_file.name
        if not old_file.exists():
            return float("inf")
        old, new = np.load(old_file), np.load(new_file)
        if not np.array_equal(old["time"], new["time"]):
            return float("inf")
        new_at = {n: i for i, n in enumerate(new["names"])}
        both = [(i, new_at[n]) for i, n in enumerate(old["names"]) if n in new_at]
        if not both:
            continue
        before = old["data"][:, [i for i, _ in both]]
        after = new["data"][:, [j for _, j in both]]
        scale = rtol * np.max(np.abs(before), axis=0) + atol
        gap = np.max(np.abs(after - before), axis=0) / scale
        worst = max(worst, float(np.nanmax(gap)) if gap.size else 0.0)
    return worst


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*", help="examples (default: every netlists/*.cir of both)")
    ap.add_argument("--base", type=Path, required=True, help="root of the older tree")
    ap.add_argument("--repeat", type=int, default=3, help="rounds per example (median)")
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args(argv)
    base = args.base.resolve()
    names = args.names or [n for n in example_names(CURRENT) if n in example_names(base)]
    for tree in (base, CURRENT):
        # each tree's bytecode compiled first, as an installed package's is: where Python
        # writes none (PYTHONDONTWRITEBYTECODE), a tree never compiled would compile its
        # sources in every process (about 0.1 s each, measured: a false 0.7-0.8 ratio)
        compileall.compile_dir(tree / "circuitsim", quiet=1)
    print(f"examples: {base} (before) against {CURRENT} (after), median of {args.repeat} "
          f"alternated whole-process runs\n", flush=True)
    print("| example | before s | after s | after / before | steps before | steps after "
          "| results gap (tolerances) |")
    print("|---|---|---|---|---|---|---|", flush=True)
    totals = [0.0, 0.0]
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for name in names:
            walls, steps = ([], []), [0, 0]
            try:
                for _ in range(args.repeat):
                    for side, tree in enumerate((base, CURRENT)):
                        wall, steps[side] = run_example(tree, name, tmp / str(side), args.python)
                        walls[side].append(wall)
            except RuntimeError as exc:
                print(f"| {name} | failed: {str(exc).splitlines()[0]} |||||", flush=True)
                continue
            before, after = (statistics.median(w) for w in walls)
            totals[0] += before
            totals[1] += after
            gap = results_gap(tmp / "0", tmp / "1", name, *tolerance(CURRENT, name))
            print(f"| {name} | {before:.2f} | {after:.2f} | {after / before:.2f} | {steps[0]} "
                  f"| {steps[1]} | {gap:.2g} |", flush=True)
    if totals[0]:
        print(f"\ntotal: {totals[0]:.1f} s before, {totals[1]:.1f} s after, "
              f"ratio {totals[1] / totals[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
