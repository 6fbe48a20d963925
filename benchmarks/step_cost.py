"""Cost of one BDF step on a small mechanism: where the driver's time goes.

    python benchmarks/step_cost.py 4 16                # ms/step of the solve at N = 4 and 16
    python benchmarks/step_cost.py 4 --profile 25      # plus cProfile's 25 costliest functions
    python benchmarks/step_cost.py 16 --repeat 5       # the median of 5 solves (wall and CPU)

The N-link spherical chain of ``netlists/chain.py`` (position joints) runs to ``--tend``
(default 0.5 s) at rtol = 1e-5, atol = 1e-7. Set-up (parse, elaborate, assemble) is left out
of the time: the solve alone is timed, and divided by the accepted steps. On a chain of a
few links the residual and the Jacobian are about half a step; the rest is the driver
(Newton's iteration, its LU solves, the prediction, the error test, the history update),
which this benchmark watches. To compare two versions of the package, run it with each on
PYTHONPATH alternately and compare medians (whole-process ratios, e.g. ``/usr/bin/time``
in an alternating loop).
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "netlists"))
import circuitsim  # noqa: E402
from chain import chain_netlist  # noqa: E402

RTOL, ATOL = 1e-5, 1e-7       # tight enough for several Newton iterations per step


def prepared(n: int, t_end: float):
    text = chain_netlist(n, "position", t_end=t_end, probes=[f"B{n}.z"])
    return circuitsim.parse(text, f"<chain {n}>").prepare()


def solve_once(case) -> tuple[float, float, dict]:
    """(wall s, CPU s, stats) of one solve: on a busy machine the CPU time is the steadier."""
    t0, c0 = time.perf_counter(), time.process_time()
    res = case.run(rtol=RTOL, atol=ATOL)
    return time.perf_counter() - t0, time.process_time() - c0, res.stats


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sizes", nargs="*", type=int, default=[4, 16], help="numbers of links")
    ap.add_argument("--tend", type=float, default=0.5, help="simulated time, s (default 0.5)")
    ap.add_argument("--repeat", type=int, default=3, help="solves per size; the median is shown")
    ap.add_argument("--profile", type=int, default=0, metavar="K",
                    help="print cProfile's K costliest functions (by own time) of one solve")
    args = ap.parse_args(argv)
    print(f"{'N':>4} {'unknowns':>8} {'steps':>6} {'nniter':>6} {'njac':>5} {'nres':>5} "
          f"{'solve s':>8} {'ms/step':>8} {'cpu ms/step':>11}", flush=True)
    for n in args.sizes:
        case = prepared(n, args.tend)
        times, cpu, stats = zip(*(solve_once(case) for _ in range(max(1, args.repeat))))
        s, solve, cpu = stats[0], float(np.median(times)), float(np.median(cpu))
        print(f"{n:>4} {case.system.n:>8} {s['nsteps']:>6} {s['nniter']:>6} {s['njac']:>5} "
              f"{s['nres']:>5} {solve:>8.3f} {1e3 * solve / s['nsteps']:>8.3f} "
              f"{1e3 * cpu / s['nsteps']:>11.3f}", flush=True)
        if args.profile:
            profiler = cProfile.Profile()
            profiler.runcall(case.run, rtol=RTOL, atol=ATOL)
            pstats.Stats(profiler).sort_stats("tottime").print_stats(args.profile)
    return 0


if __name__ == "__main__":
    sys.exit(main())
