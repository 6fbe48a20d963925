"""The twins compiled ahead of time against numba's cache: whole processes, alternated.

    python benchmarks/ahead.py                     # every netlists/*.cir, 3 rounds
    python benchmarks/ahead.py --repeat 5 fourbar gyroscope

Each example runs as a user runs it (``circuitsim run``, ``--all-studies`` where it has
``.study`` lines, ``CIRCUITSIM_KERNELS`` unset: ``auto``), once with the extension built
ahead of time (circuitsim/elements/compiled/ahead.py) and once with it hidden (renamed
for that run, so the twins come from numba's disk cache), alternating, ``--repeat``
rounds. Prints the median wall and CPU seconds (user + system, the steadier figure on a
shared machine) of each side and their ratio, then the sums. Run ``python -m
circuitsim.warmup`` first: both the cache and the extension must be there.
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from circuitsim.elements.compiled import ahead  # noqa: E402


def run(name: str, out: Path) -> tuple:
    """(wall s, CPU s) of one whole ``circuitsim run`` of netlists/<name>.cir."""
    netlist = ROOT / "netlists" / f"{name}.cir"
    cmd = [sys.executable, "-m", "circuitsim", "run", str(netlist.relative_to(ROOT)),
           "--out", str(out)]
    if re.search(r"^\.study", netlist.read_text(), re.MULTILINE | re.IGNORECASE):
        cmd.append("--all-studies")
    env = {k: v for k, v in os.environ.items() if k != "CIRCUITSIM_KERNELS"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*", help="examples (default: every netlists/*.cir)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    built = ahead.path()
    if not built.exists():
        print(f"no extension at {built}: run python -m circuitsim.warmup first")
        return 2
    hidden = built.with_name(built.name + ".hidden")
    names = args.names or sorted(p.stem for p in (ROOT / "netlists").glob("*.cir"))
    out = Path(os.environ.get("TMPDIR", "/tmp")) / "circuitsim-ahead-bench.npz"
    print("| example | ahead wall s | numba wall s | ahead CPU s | numba CPU s | CPU ratio |")
    print("|---|---|---|---|---|---|")
    totals = [0.0, 0.0, 0.0, 0.0]
    for name in names:
        sides = {"ahead": [], "numba": []}
        for _ in range(args.repeat):
            sides["ahead"].append(run(name, out))
            built.rename(hidden)
            try:
                sides["numba"].append(run(name, out))
            finally:
                hidden.rename(built)
        med = [statistics.median(s[i] for s in sides[k]) for k in ("ahead", "numba")
               for i in (0, 1)]
        for i, value in enumerate((med[0], med[2], med[1], med[3])):
            totals[i] += value
        print(f"| {name} | {med[0]:.2f} | {med[2]:.2f} | {med[1]:.2f} | {med[3]:.2f} | "
              f"{med[1] / med[3]:.2f} |", flush=True)
    print(f"| all | {totals[0]:.2f} | {totals[1]:.2f} | {totals[2]:.2f} | {totals[3]:.2f} | "
          f"{totals[2] / totals[3]:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
