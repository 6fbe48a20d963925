"""The flexible blade spin-up (docs/beam.md) run through the hub's spin-up and 5 s at
ωs, against the independent planar models of tests/elements/test_beam.py: the tip's peak and
largest difference, the blade after Ts, the hub angle against its closed form, and the
study 'linear' (stiffening=off) diverging with the reference model without tension.

    python benchmarks/beam_spinup.py [--n 16] [--rtol 1e-5] [--t-end 20]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from test_beam import TS, hub_angle, reference_tip, spin_up  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=16)
    ap.add_argument("--rtol", type=float, default=1e-5)
    ap.add_argument("--t-end", type=float, default=20.0)
    args = ap.parse_args()
    print(f"n = {args.n}, rtol = {args.rtol:g}, t = 0 .. {args.t_end:g} s")
    for ws in (4.0, 6.0):
        start = time.perf_counter()
        t, v, theta = spin_up(ws, args.n, args.t_end, rtol=args.rtol)
        seconds = time.perf_counter() - start
        ref = reference_tip(ws, t)
        peak, ref_peak = v[np.argmax(abs(v))], ref[np.argmax(abs(ref))]
        after = t >= TS
        print(f"ws = {ws:g} rad/s: peak {peak:.4f} m (reference {ref_peak:.4f} m, "
              f"{100 * (peak / ref_peak - 1):+.2f} %), largest difference "
              f"{100 * np.max(abs(v - ref)) / abs(ref_peak):.2f} % of the peak, after Ts "
              f"|v| <= {1e3 * np.max(abs(v[after]), initial=0):.1f} mm (reference "
              f"{1e3 * np.max(abs(ref[after]), initial=0):.1f} mm), hub angle error "
              f"{np.max(abs(theta - hub_angle(t, ws))):.1e} rad, {seconds:.0f} s")
    t, v, _ = spin_up(6.0, 8, 10.0, rtol=1e-4, study="linear")
    linear = reference_tip(6.0, t, stiffening=False)
    for at in (4.0, 6.0, 8.0, 9.0, 10.0):
        i = np.argmin(abs(t - at))
        print(f"stiffening=off, ws = 6, n = 8, t = {at:g} s: tip {v[i]:.4g} m "
              f"(linear reference {linear[i]:.4g} m)")


if __name__ == "__main__":
    main()
