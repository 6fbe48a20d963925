"""Energy drift of a conservative mechanism over many periods, against rtol and the order.

    python benchmarks/energy_drift.py            # rtol 1e-6, 1e-7, 1e-8; ~2 min
    python benchmarks/energy_drift.py --maxorder 2 --rtol 1e-6

The compound pendulum of netlists/pendulum.cir (position model, released from
horizontal, no friction: its energy E = ½·J_pivot·ω² + m·g·z is exactly 0 for all time)
runs for 200 s (115 periods) at atol = rtol/1000; the change of E at 20, 100 and 200 s
is printed. BDF of orders 1, 2 and 5 damp an undamped oscillation; orders 3 and 4 let it
grow a little at small h·ω (|growth| − 1 = 2.5e-5 per step at h·ω = 0.1 for BDF3), so
the sign of the drift depends on which orders the run used.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import circuitsim  # noqa: E402

NETLIST = Path(__file__).resolve().parent.parent / "netlists" / "pendulum.cir"
J_PIVOT, M, G = 0.02 + 1.0 * 0.5 ** 2, 1.0, 9.81   # pendulum.cir: Jc about y + m L²


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rtol", type=float, nargs="+", default=[1e-6, 1e-7, 1e-8])
    ap.add_argument("--maxorder", type=int, default=5)
    ap.add_argument("--t-end", type=float, default=200.0)
    args = ap.parse_args(argv)
    net = circuitsim.load(NETLIST)
    print(f"{'rtol':>8s} {'maxorder':>8s} {'steps':>7s} {'dE(20 s) J':>12s} "
          f"{'dE(100 s) J':>12s} {'dE(end) J':>12s}", flush=True)
    for rtol in args.rtol:
        res = net.simulate(t_end=args.t_end, tstep=0.05, rtol=rtol, atol=rtol / 1000,
                           set={"maxorder": args.maxorder})
        energy = 0.5 * J_PIVOT * res["B1.wy"] ** 2 + M * G * res["B1.z"]
        at = [min(int(round(t / 0.05)), len(energy) - 1) for t in (20.0, 100.0)]
        print(f"{rtol:8.0e} {args.maxorder:8d} {res.stats['nsteps']:7d} "
              f"{energy[at[0]] - energy[0]:12.3e} {energy[at[1]] - energy[0]:12.3e} "
              f"{energy[-1] - energy[0]:12.3e}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
