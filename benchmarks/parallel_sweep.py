"""Parallel sweeps: 8 `.step` cases of about 2 s each, run by the command line with
--jobs 1 and --jobs 2 (whole processes), the speed-up, and the CSVs compared byte for byte.

    python benchmarks/parallel_sweep.py [--jobs 2] [--cases 8]

The case is a driven RLC circuit swept over its capacitance:
each case takes about 2 s, so process start-up is small beside it.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NETLIST = """.title driven RLC, swept over the capacitance
.param k=1e4
V V1 in 0 V=sin(0, 1, 50)
R R1 in a R=10
L L1 a b L=1m
C C1 b 0 C={{1/k}}
.tran 2.4 1m
.step k {values}
"""


def timed_run(netlist: Path, out: Path, jobs: int) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "circuitsim", "run", str(netlist), "--out",
                    str(out), "--jobs", str(jobs), "--quiet"], check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--cases", type=int, default=8)
    args = parser.parse_args()
    values = " ".join(f"{1000 * (i + 1):g}" for i in range(args.cases))
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        netlist = tmp / "sweep.cir"
        netlist.write_text(NETLIST.format(values=values))
        serial = timed_run(netlist, tmp / "serial.csv", 1)
        parallel = timed_run(netlist, tmp / "parallel.csv", args.jobs)
        same = all((tmp / f"serial_k={1000 * (i + 1):g}.csv").read_bytes()
                   == (tmp / f"parallel_k={1000 * (i + 1):g}.csv").read_bytes()
                   for i in range(args.cases))
    print(f"{args.cases} cases: --jobs 1 {serial:.2f} s, --jobs {args.jobs} {parallel:.2f} s, "
          f"speed-up {serial / parallel:.2f}x; CSVs identical: {same}")


if __name__ == "__main__":
    main()
