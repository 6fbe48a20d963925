"""Cost of the elastic joint model against the rigid one, per shipped netlist.

    python benchmarks/elastic_cost.py                    # every netlist with an elastic study
    python benchmarks/elastic_cost.py --quick            # without the slow ones
    python benchmarks/elastic_cost.py pendulum fourbar   # these netlists only

For each netlist in netlists/ that has a ``.study`` switching joints to ``model=elastic``,
runs the netlist as written (its joints rigid) and that study, both at the ``.tran``
settings (same rtol, atol), and prints accepted steps (rejected ones in brackets), wall
time, and the ratio soft / rigid of the steps. ``--limit R``: exit status 1 if a ratio
exceeds R.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import circuitsim  # noqa: E402

NETLISTS = Path(__file__).resolve().parent.parent / "netlists"
SLOW = ("landing_gear", "solar_panel")      # minutes each


def elastic_studies(net) -> list:
    """The studies that set some joint's model to elastic."""
    out = []
    for name, (assigns, _) in net.studies.items():
        if any(a.key.endswith(".model") and getattr(a.value, "name", None) == "elastic"
               for a in assigns):
            out.append(name)
    return out


def measure(net, study=None, **options) -> dict:
    start = time.perf_counter()
    res = net.simulate(study=study, **options)
    wall = time.perf_counter() - start
    return dict(steps=res.stats["nsteps"], rejected=res.stats["nfail_err"], wall=wall,
                status=res.status)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("netlists", nargs="*", help="netlist names (default: all with an "
                    "elastic study)")
    ap.add_argument("--quick", action="store_true", help=f"leave out {', '.join(SLOW)}")
    ap.add_argument("--rtol", type=float, default=None)
    ap.add_argument("--atol", type=float, default=None)
    ap.add_argument("--limit", type=float, default=None,
                    help="exit status 1 if a soft / rigid step ratio exceeds this")
    args = ap.parse_args(argv)
    names = args.netlists or sorted(p.stem for p in NETLISTS.glob("*.cir"))
    if args.quick:
        names = [n for n in names if n not in SLOW]
    options = {k: v for k, v in (("rtol", args.rtol), ("atol", args.atol)) if v is not None}
    print(f"{'netlist':16s} {'study':8s} {'rigid steps':>16s} {'soft steps':>16s} "
          f"{'ratio':>6s} {'rigid s':>8s} {'soft s':>8s}", flush=True)
    worst = 0.0
    for name in names:
        net = circuitsim.load(NETLISTS / f"{name}.cir")
        studies = elastic_studies(net)
        if not studies:
            continue
        rigid = measure(net, None, **options)
        for study in studies:
            soft = measure(net, study, **options)
            ratio = soft["steps"] / rigid["steps"]
            worst = max(worst, ratio)
            flag = "" if soft["status"] == "success" and rigid["status"] == "success" \
                else f"  ({rigid['status']} / {soft['status']})"
            print(f"{name:16s} {study:8s} "
                  f"{rigid['steps']:>9d} ({rigid['rejected']:>4d}) "
                  f"{soft['steps']:>9d} ({soft['rejected']:>4d}) {ratio:6.2f} "
                  f"{rigid['wall']:8.1f} {soft['wall']:8.1f}{flag}", flush=True)
    return 1 if args.limit is not None and worst > args.limit else 0


if __name__ == "__main__":
    sys.exit(main())
