"""Spherical-chain benchmark: cost per step against the number of links.

    python benchmarks/chain.py                       # N = 4 ... 512, all three joint models
    python benchmarks/chain.py --quick               # N = 4 ... 64
    python benchmarks/chain.py 16 64 256 --models position --tend 1

The chain of ``netlists/chain.py`` (N rods of 0.5 m and 1 kg on spherical joints, released
straight and horizontal under gravity) runs for ``--tend`` seconds (default 2, as its
``.tran``) at the ``.tran`` default tolerances unless ``--rtol``/``--atol`` are given. Per N
and joint model it prints the unknowns, set-up time (parse + elaborate + assemble), steps,
rejected steps, LU factorisations, solve time and time per step; then, per model, the
scaling exponent of the time per step (slope of log(time/step) against log N) fitted over
the sizes from 16 links up (should be <= 1.15: the engine assembles a sparse Jacobian
and factorises it with SuperLU, so one step costs O(N)), and between the two largest
sizes (fixed per-step overheads flatten the fit at small N). Exit status 1 if the fitted
exponent exceeds 1.15.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "netlists"))
import circuitsim  # noqa: E402
from chain import MODELS, chain_netlist  # noqa: E402

SIZES = [4, 8, 16, 32, 64, 128, 256, 512]
QUICK_MAX = 64
FIT_FROM = 16          # smaller chains are dominated by per-step overheads
EXPONENT_LIMIT = 1.15


def measure(n: int, model: str, t_end: float, rtol=None, atol=None) -> dict:
    # probe the tip only: recording every variable of a long chain at every step costs
    # memory and time that are not the solver's
    text = chain_netlist(n, model, t_end=t_end, probes=[f"B{n}.z", "J1.Fz"])
    t0 = time.perf_counter()
    case = circuitsim.parse(text, f"<chain {n} {model}>").prepare()
    t1 = time.perf_counter()
    res = case.run(rtol=rtol, atol=atol)
    t2 = time.perf_counter()
    s = res.stats
    return {"N": n, "model": model, "unknowns": case.system.n, "setup_s": t1 - t0,
            "solve_s": t2 - t1, "nsteps": s["nsteps"], "nfail": s["nfail_err"] + s["nfail_conv"],
            "nlu": s["nlu"], "per_step_ms": 1e3 * (t2 - t1) / s["nsteps"]}


def exponent(rows) -> float | None:
    rows = [r for r in rows if r["N"] >= FIT_FROM]
    if len(rows) < 2:
        return None
    return float(np.polyfit(np.log([r["N"] for r in rows]),
                            np.log([r["per_step_ms"] for r in rows]), 1)[0])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sizes", nargs="*", type=int, help=f"numbers of links (default {SIZES})")
    ap.add_argument("--quick", action="store_true", help=f"only sizes up to {QUICK_MAX}")
    ap.add_argument("--models", default=",".join(MODELS),
                    help="comma-separated joint models (default: all three)")
    ap.add_argument("--tend", type=float, default=2.0, help="simulated time, s (default 2)")
    ap.add_argument("--rtol", type=float, default=None, help="default: the .tran default")
    ap.add_argument("--atol", type=float, default=None, help="default: the .tran default")
    args = ap.parse_args(argv)
    sizes = args.sizes or SIZES
    if args.quick:
        sizes = [n for n in sizes if n <= QUICK_MAX]
    models = [m.strip() for m in args.models.split(",") if m.strip()]
    for m in models:
        if m not in MODELS:
            ap.error(f"unknown model {m!r} (choose from {', '.join(MODELS)})")

    print(f"{'model':>9} {'N':>5} {'unknowns':>9} {'setup s':>8} {'steps':>6} {'rejected':>8} "
          f"{'nlu':>5} {'solve s':>8} {'ms/step':>8}", flush=True)
    slopes, results = {}, {}
    for model in models:
        rows = []
        for n in sizes:
            try:
                r = measure(n, model, args.tend, args.rtol, args.atol)
            except circuitsim.errors.CircuitsimError as exc:
                print(f"{model:>9} {n:>5}  failed: {exc}", flush=True)
                continue
            rows.append(r)
            print(f"{model:>9} {r['N']:>5} {r['unknowns']:>9} {r['setup_s']:>8.2f} "
                  f"{r['nsteps']:>6} {r['nfail']:>8} {r['nlu']:>5} {r['solve_s']:>8.2f} "
                  f"{r['per_step_ms']:>8.3f}", flush=True)
        slopes[model] = exponent(rows)
        results[model] = rows
    status = 0
    for model, slope in slopes.items():
        if slope is None:
            print(f"{model}: fewer than two sizes >= {FIT_FROM}, no scaling exponent")
            continue
        verdict = "ok" if slope <= EXPONENT_LIMIT else f"ABOVE {EXPONENT_LIMIT}"
        rows = results[model]
        last = ""
        if len(rows) >= 2:
            a, b = rows[-2], rows[-1]
            local = np.log(b["per_step_ms"] / a["per_step_ms"]) / np.log(b["N"] / a["N"])
            last = f"; from N = {a['N']} to {b['N']}: {local:.2f}"
        print(f"{model}: scaling exponent of time per step (N >= {FIT_FROM}): {slope:.2f} "
              f"(1 = linear) {verdict}{last}")
        if slope > EXPONENT_LIMIT:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
