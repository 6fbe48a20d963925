"""RC ladder benchmark: cost per step against the number of sections.

    python benchmarks/ladder.py                 # N = 1k, 10k, 100k
    python benchmarks/ladder.py 1000 4000       # chosen sizes

A 1 V step drives N sections of R = 1 kΩ, C = 1 µF (RC = 1 ms) for 20 ms. Prints, per
N: set-up time (parse + elaborate + assemble), steps, residual and Jacobian evaluations,
LU factorizations, solve time and time per step, then the scaling exponent of the time
per step (slope of log(time/step) against log N), which should be close to 1.
"""
from __future__ import annotations

import sys
import time

import numpy as np

import circuitsim


def ladder_netlist(n: int) -> str:
    lines = [f".title RC ladder, {n} sections", "V V1 n0 0 V=step(0, 0, 1)"]
    for k in range(1, n + 1):
        lines.append(f"R R{k} n{k - 1} n{k} R=1k")
        lines.append(f"C C{k} n{k} 0 C=1u")
    lines.append(".tran 20m")
    lines.append(".probe n1 n10")
    return "\n".join(lines) + "\n"


def measure(n: int) -> dict:
    text = ladder_netlist(n)
    t0 = time.perf_counter()
    net = circuitsim.parse(text, f"<ladder {n}>")
    case = net.prepare()
    t1 = time.perf_counter()
    res = case.run(rtol=1e-4, atol=1e-7)
    t2 = time.perf_counter()
    s = res.stats
    return {"N": n, "unknowns": case.system.n, "setup_s": t1 - t0, "solve_s": t2 - t1,
            "nsteps": s["nsteps"], "nres": s["nres"], "njac": s["njac"], "nlu": s["nlu"],
            "per_step_ms": 1e3 * (t2 - t1) / s["nsteps"]}


def main(sizes) -> None:
    rows = [measure(n) for n in sizes]
    print(f"{'N':>7} {'unknowns':>9} {'setup s':>8} {'steps':>6} {'nres':>6} {'njac':>5} "
          f"{'nlu':>5} {'solve s':>8} {'ms/step':>8}")
    for r in rows:
        print(f"{r['N']:>7} {r['unknowns']:>9} {r['setup_s']:>8.2f} {r['nsteps']:>6} "
              f"{r['nres']:>6} {r['njac']:>5} {r['nlu']:>5} {r['solve_s']:>8.2f} "
              f"{r['per_step_ms']:>8.3f}")
    if len(rows) >= 2:
        n = np.log([r["N"] for r in rows])
        cost = np.log([r["per_step_ms"] for r in rows])
        slope = np.polyfit(n, cost, 1)[0]
        setup = np.polyfit(n, np.log([r["setup_s"] for r in rows]), 1)[0]
        print(f"scaling exponent of time per step: {slope:.2f} (1 = linear); "
              f"of set-up time: {setup:.2f}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1000, 10000, 100000])
