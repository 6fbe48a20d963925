"""Rejected steps with and without state events (docs/solver.md, state events).

Runs each case twice: with the switching functions of the stops and of the spherical
joints' cone limits (the solver ends a step at contact onset and release) and without
them (their switch_names emptied: the step control finds the kinks by rejecting steps). Prints steps, rejected steps (error test,
Newton), events and wall time.

    python benchmarks/events.py [netlist ...]
"""
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import circuitsim  # noqa: E402
from circuitsim.elements.spherical import Spherical  # noqa: E402
from circuitsim.elements.stop import Stop  # noqa: E402
BOUNCE = """* a mass thrown at an elastic stop, k = 1e6, c = 0 (tests/elements/test_stop.py)
mass M1 v m=1 v0=1
stop S1 v 0 upper=0.1 k=1e6 c=0
.tran 0.3 0.1m
"""
BALL = """* a ball bouncing on an elastic stop under gravity (tests/solver/test_events.py)
mass M v m=1 v0=0
I G 0 v I=-9.81
stop S v 0 lower=-1 k=1e4 c=0
.tran 3 1m
"""
CONE = """* a rod swinging into its ball joint's undamped 30 deg cone limit (tests/solver/test_events.py)
.gravity 0 0 -9.81
body R m=1 J=(0.02, 0.02, 0.001) pos=(0, 0, -0.5) w=(0, 4, 0) v=(-2, 0, 0)
spherical J1 0 R at=(0, 0, 0) cone=30deg axis=(0, 0, 1) kcone=1000 ccone=0
.tran 1.5
"""
SWITCHED = (Stop, Spherical)       # the element types with switching functions


# the shipped netlists with end stops (stop lines, or the hydraulic cylinder's stops)
NETLISTS = ("manipulator.cir", "solar_panel.cir", "landing_gear.cir")


def run(text, events, **options):
    saved = [etype.__dict__["switch_names"] for etype in SWITCHED]
    if not events:
        for etype in SWITCHED:
            etype.switch_names = classmethod(lambda cls, group: ())
    try:
        t = time.perf_counter()
        res = circuitsim.parse(text).simulate(**options)
        return res, time.perf_counter() - t
    finally:
        for etype, method in zip(SWITCHED, saved):
            etype.switch_names = method


def main(paths):
    cases = [("bounce (rtol 1e-8)", BOUNCE, dict(rtol=1e-8, atol=1e-10)),
             ("ball (rtol 1e-8)", BALL, dict(rtol=1e-8, atol=1e-10)),
             ("rod into a cone limit", CONE, {}),
             ("double_pendulum.cir, J2.cone=0.3",
              (ROOT / "netlists" / "double_pendulum.cir").read_text(),
              dict(set={"J2.cone": 0.3}))]
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
