"""Energy drift of a conservative mechanism over many periods, against rtol and the order.

    python benchmarks/energy_drift.py            # rtol 1e-6, 1e-7, 1e-8; ~2 min
    python benchmarks/energy_drift.py --maxorder 2 --rtol 1e-6

The compound pendulum of netlists/pendulum.cir (position model, released from
horizontal, no friction: its energy E = ½·J_pivot·ω² + m·g·z is exactly 0 for all time)
runs for 200 s (115 periods) at atol = rtol/1000; the change of E at 20, 100 and 200 s
is printed. BDF of orders 1, 2 and 5 damp an undamped oscillation; orders 3 and 4 let it
grow a little at small h·ω (|growth| − 1 = 2.5e-5 per step at h·ω = 0.1 for BDF3), so
the sign of the drift depends on which orders the run used.

``--peers`` also integrates the pendulum's exact equation in its one coordinate,
J·θ'' = −m·g·L·sin θ, with SciPy's BDF and LSODA at the same tolerances (their function
evaluations in the steps column): what standard variable-order codes give on the same
motion in minimal coordinates.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import circuitsim  # noqa: E402

NETLIST = Path(__file__).resolve().parent.parent / "netlists" / "pendulum.cir"
M, G, L = 1.0, 9.81, 0.5                           # pendulum.cir
J_PIVOT = 0.02 + M * L ** 2                        # Jc about y + m L²


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rtol", type=float, nargs="+", default=[1e-6, 1e-7, 1e-8])
    ap.add_argument("--maxorder", type=int, default=5)
    ap.add_argument("--t-end", type=float, default=200.0)
    ap.add_argument("--peers", action="store_true",
                    help="also SciPy's BDF and LSODA on the exact 1-DOF equation")
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
        if args.peers:
            for method in ("BDF", "LSODA"):
                print(_minimal_ode_drift(method, rtol, args.t_end), flush=True)
    return 0


def _minimal_ode_drift(method: str, rtol: float, t_end: float) -> str:
    """One line of the table for SciPy's ``method`` on J·θ'' = −m·g·L·sin θ from
    θ = π/2 at rest (the pendulum's angle from the downward vertical)."""
    from scipy.integrate import solve_ivp
    stiffness = M * G * L / J_PIVOT

    def energy(y):
        return 0.5 * J_PIVOT * y[1] ** 2 - M * G * L * np.cos(y[0])
    y0 = np.array([np.pi / 2, 0.0])
    marks = [min(20.0, t_end), min(100.0, t_end), t_end]
    t_eval = np.unique(marks)
    sol = solve_ivp(lambda _, y: [y[1], -stiffness * np.sin(y[0])], (0.0, t_end), y0,
                    method=method, rtol=rtol, atol=rtol / 1000, t_eval=t_eval)
    drift = [energy(sol.y[:, i]) - energy(y0) for i in np.searchsorted(t_eval, marks)]
    return (f"{'SciPy':>8s} {method:>8s} {sol.nfev:7d} "
            + " ".join(f"{d:12.3e}" for d in drift))


if __name__ == "__main__":
    sys.exit(main())
