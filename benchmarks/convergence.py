"""Convergence tables of the validation mechanisms (tests/validation/) against their
independent references: error, steps and wall time per tolerance.

    python benchmarks/convergence.py            # spatial slider-crank, Andrews, driven four-bar
    python benchmarks/convergence.py --quick    # rtol 1e-6 and 1e-8 only

The tests run one or two tolerances of each; this prints the whole table (about two
minutes). docs/validation.md quotes it.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import circuitsim

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from validation import ref_driven_fourbar, ref_spatial_slider_crank  # noqa: E402
from validation.test_andrews import REF, joint_angles  # noqa: E402
from validation.test_driven_mechanisms import driven_fourbar  # noqa: E402

HERE = ROOT / "tests" / "validation"


def spatial_slider_crank(rtol):
    res = circuitsim.load(HERE / "spatial_slider_crank.cir").simulate(rtol=rtol,
                                                                       atol=rtol * 1e-3)
    return np.max(np.abs(res["slider.x"] - ref_spatial_slider_crank.slider_x(res.t))), res


def andrews(rtol):
    res = circuitsim.load(HERE / "andrews.cir").simulate(rtol=rtol, atol=rtol * 1e-3)
    return np.max(np.abs(joint_angles(res) - REF)), res


def fourbar_torque(rtol):
    res = circuitsim.parse(driven_fourbar(), "driven_fourbar.cir").simulate(
        rtol=rtol, atol=rtol * 1e-3)
    return np.max(np.abs(res["JA.tau"] - ref_driven_fourbar.drive_torque(res.t))), res


CASES = [("spatial slider-crank: slider x over 5 s (m)", spatial_slider_crank),
         ("Andrews' mechanism: 7 angles at 0.03 s (rad)", andrews),
         ("driven four-bar: drive torque over 1 s (N m)", fourbar_torque)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="rtol 1e-6 and 1e-8 only")
    args = ap.parse_args(argv)
    tolerances = (1e-6, 1e-8) if args.quick else (1e-6, 1e-7, 1e-8, 1e-9, 1e-10)
    for title, case in CASES:
        print(title)
        print(f"  {'rtol':>7} {'atol':>7} {'error':>9} {'ratio':>6} {'steps':>6} {'wall s':>7}")
        previous = None
        for rtol in tolerances:
            t0 = time.perf_counter()
            error, res = case(rtol)
            wall = time.perf_counter() - t0
            ratio = f"{previous / error:6.1f}" if previous else "     -"
            print(f"  {rtol:7.0e} {rtol * 1e-3:7.0e} {error:9.2e} {ratio} "
                  f"{res.stats['nsteps']:6d} {wall:7.1f}", flush=True)
            previous = error
    return 0


if __name__ == "__main__":
    sys.exit(main())
