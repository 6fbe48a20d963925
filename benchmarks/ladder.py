"""RC ladder benchmark: cost per step against the number of sections.

    python benchmarks/ladder.py                 # N = 1k, 10k, 100k
    python benchmarks/ladder.py 1000 4000       # chosen sizes

A 1 V step drives N sections of R = 1 kΩ, C = 1 µF (RC = 1 ms) for 20 ms. Prints, per
N: parse and prepare (elaborate + assemble) times, steps, residual and Jacobian
evaluations, LU factorizations, solve time and time per step, the largest error of the
driven node n1 against the exact solution, then the scaling exponents of the time per
step and of the set-up (slope of log(time) against log N), which should be close to 1.
"""
from __future__ import annotations

import sys
import time

import numpy as np
from scipy.linalg import eigh_tridiagonal

import circuitsim

RC = 1e-3                # s: one section's time constant
REFERENCE_SECTIONS = 200  # the step reaches ~sqrt(20 ms / RC) sections: n1 of a longer
                          # ladder differs from this one's by far less than rounding


def ladder_netlist(n: int) -> str:
    lines = [f".title RC ladder, {n} sections", "V V1 n0 0 V=step(0, 0, 1)"]
    for k in range(1, n + 1):
        lines.append(f"R R{k} n{k - 1} n{k} R=1k")
        lines.append(f"C C{k} n{k} 0 C=1u")
    lines.append(".tran 20m")
    lines.append(".probe n1 n10")
    return "\n".join(lines) + "\n"


def exact_driven_node(n: int, t: np.ndarray) -> np.ndarray:
    """v_n1(t) of the ladder from rest under the 1 V step: RC v' = -T v + e_1 with T the
    tridiagonal (2, -1) matrix whose last diagonal entry is 1 (the open end), so
    v(t) = T^-1 (I - exp(-T t / RC)) e_1, through T = Q diag(lam) Q^T."""
    m = min(n, REFERENCE_SECTIONS)
    diagonal = np.full(m, 2.0)
    diagonal[-1] = 1.0
    lam, q = eigh_tridiagonal(diagonal, -np.ones(m - 1))
    decay = -np.expm1(-np.outer(t, lam) / RC)
    return decay @ (q[0] * q[0] / lam)


def measure(n: int, rtol: float = 1e-4) -> dict:
    text = ladder_netlist(n)
    t0 = time.perf_counter()
    net = circuitsim.parse(text, f"<ladder {n}>")
    t1 = time.perf_counter()
    case = net.prepare()
    t2 = time.perf_counter()
    res = case.run(rtol=rtol, atol=1e-7)
    t3 = time.perf_counter()
    s = res.stats
    error = np.max(np.abs(res["n1"] - exact_driven_node(n, res.t)))
    return {"N": n, "unknowns": case.system.n, "parse_s": t1 - t0, "prepare_s": t2 - t1,
            "setup_s": t2 - t0, "solve_s": t3 - t2, "nsteps": s["nsteps"], "nres": s["nres"],
            "njac": s["njac"], "nlu": s["nlu"], "per_step_ms": 1e3 * (t3 - t2) / s["nsteps"],
            "error_n1": error}


def main(sizes) -> None:
    rows = [measure(n) for n in sizes]
    print(f"{'N':>7} {'unknowns':>9} {'parse s':>8} {'prep. s':>8} {'steps':>6} {'nres':>6} "
          f"{'njac':>5} {'nlu':>5} {'solve s':>8} {'ms/step':>8} {'error n1':>9}")
    for r in rows:
        print(f"{r['N']:>7} {r['unknowns']:>9} {r['parse_s']:>8.2f} {r['prepare_s']:>8.2f} "
              f"{r['nsteps']:>6} {r['nres']:>6} {r['njac']:>5} {r['nlu']:>5} "
              f"{r['solve_s']:>8.2f} {r['per_step_ms']:>8.3f} {r['error_n1']:>9.2e}")
    if len(rows) >= 2:
        n = np.log([r["N"] for r in rows])
        cost = np.log([r["per_step_ms"] for r in rows])
        slope = np.polyfit(n, cost, 1)[0]
        setup = np.polyfit(n, np.log([r["setup_s"] for r in rows]), 1)[0]
        print(f"scaling exponent of time per step: {slope:.2f} (1 = linear); "
              f"of set-up time: {setup:.2f}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [1000, 10000, 100000])
