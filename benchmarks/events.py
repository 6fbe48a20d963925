"""Rejected steps with and without state events (docs/solver.md, state events).

Runs each case twice: with the stops' switching functions (the solver ends a step at
contact onset and release) and without them (Stop.switch_names emptied: the step
control finds the kinks by rejecting steps). Prints steps, rejected steps (error test,
Newton), events and wall time.

    python benchmarks/events.py [netlist ...]
"""
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import circuitsim  # noqa: E402
from circuitsim.elements.stop import Stop  # noqa: E402
BOUNCE = """* a mass thrown at an elastic stop, k = 1e6, c = 0 (tests/test_stop.py)
mass M1 v m=1 v0=1
stop S1 v 0 upper=0.1 k=1e6 c=0
.tran 0.3 0.1m
"""
BALL = """* a ball bouncing on an elastic stop under gravity (tests/test_events.py)
mass M v m=1 v0=0
I G 0 v I=-9.81
stop S v 0 lower=-1 k=1e4 c=0
.tran 3 1m
"""


# the shipped netlists with end stops (stop lines, or the hydraulic cylinder's stops)
NETLISTS = ("manipulator.cir", "solar_panel.cir", "landing_gear.cir")


def run(text, events, **options):
    saved = Stop.switch_names
    if not events:
        Stop.switch_names = ()
    try:
        t = time.perf_counter()
        res = circuitsim.parse(text).simulate(**options)
        return res, time.perf_counter() - t
    finally:
        Stop.switch_names = saved


def main(paths):
    cases = [("bounce (rtol 1e-8)", BOUNCE, dict(rtol=1e-8, atol=1e-10)),
             ("ball (rtol 1e-8)", BALL, dict(rtol=1e-8, atol=1e-10))]
    for p in paths or [ROOT / "netlists" / name for name in NETLISTS]:
        cases.append((Path(p).name, Path(p).read_text(), {}))
    print("| case | events | steps | rejected (error) | rejected (Newton) | events found | wall |")
    print("|---|---|---|---|---|---|---|")
    for name, text, options in cases:
        for events in (False, True):
            res, wall = run(text, events, **options)
            s = res.stats
            print(f"| {name} | {'on' if events else 'off'} | {s['nsteps']} | {s['nfail_err']} | "
                  f"{s['nfail_conv']} | {s.get('nevents', 0)} | {wall:.2f} s |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
