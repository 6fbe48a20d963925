"""A DC motor driven by a sampled waveform: pwl breakpoints at every corner or at jumps only.

The motor of netlists/dcmotor.cir runs 1 s from rest on V = 12 V + 1 V sin(2π 5 Hz t),
written (a) as sin(12, 1, 5), (b) as a 500-point pwl sampling it over the run, with
breakpoints at every corner (breakpoints=corners: the rule before a long pwl stopped only
at its jumps) and with the default for a long pwl (breakpoints=jumps), and (c) as (b) at
rtol 1e-10, atol 1e-14 with every corner hit: the reference. Prints steps, restarts,
rejected steps and wall time, and the largest error of the shaft speed and the armature
current against (c), relative to their largest value, at the default tolerances; and (b) joined by a cubic spline (interp=spline). Then
pwl of more points over the same run (parse and run timed apart: the netlist parser
reads every number), the same points read from a CSV file (pwl(file=...): the load and
the run), and the cost of evaluating a pwl at one time against its length.

Side by side: where the peers' Python (``$P4_PEER_PYTHON``, else /work/peers-venv/bin/python)
has scikit-sundae, SUNDIALS' IDA runs the sine and the 500-point pwl at the same
tolerances (benchmarks/peers/ida_pwl_motor.py) and its table follows the first one.

    python benchmarks/pwl_drive.py [points ...]      (default 500 2000 10000 50000 200000)
"""
import os
import subprocess
import sys
import tempfile
import time
import timeit
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
import circuitsim  # noqa: E402
from circuitsim.runtime.timefunctions import Pwl  # noqa: E402

TSTOP, TSTEP = 1.0, 1e-3
OFFSET, AMPLITUDE, FREQ = 12.0, 1.0, 5.0
SINE = f"sin({OFFSET}, {AMPLITUDE}, {FREQ})"
REFERENCE = dict(rtol=1e-10, atol=1e-14)


def motor(drive: str) -> str:
    """dcmotor.cir with the supply V=drive, run 1 s with output every 1 ms."""
    lines = [line for line in (ROOT / "netlists" / "dcmotor.cir").read_text().splitlines()
             if not line.startswith((".tran", "V Vsup"))]
    return "\n".join(lines + [f"V Vsup sup 0 V={drive}", f".tran {TSTOP} {TSTEP}", ""])


def ripple_pwl(points: int, keyword: str = "") -> str:
    times = np.linspace(0.0, TSTOP, points)
    values = OFFSET + AMPLITUDE * np.sin(2 * np.pi * FREQ * times)
    pairs = ", ".join(f"{float(t)!r}, {float(v)!r}" for t, v in zip(times, values))
    return f"pwl({pairs}{', ' + keyword if keyword else ''})"


def run(drive: str, **options):
    """(results, parse seconds, run seconds)."""
    start = time.perf_counter()
    net = circuitsim.parse(motor(drive))
    parsed = time.perf_counter()
    res = net.simulate(**options)
    return res, parsed - start, time.perf_counter() - parsed


def error(res, ref, name: str) -> float:
    return float(np.max(np.abs(res[name] - ref[name])) / np.max(np.abs(ref[name])))


def accuracy_table() -> None:
    ref, _, ref_wall = run(ripple_pwl(500, "breakpoints=corners"), **REFERENCE)
    print(f"reference (c): 500-point pwl, corners hit, rtol 1e-10: {ref.stats['nsteps']} "
          f"steps, {ref_wall:.1f} s\n")
    print("| drive | steps | restarts | rejected (error) | wall | speed error | "
          "current error |")
    print("|---|---|---|---|---|---|---|")
    for label, drive in (("(a) sin", SINE),
                         ("(b) 500-point pwl, breakpoints=corners",
                          ripple_pwl(500, "breakpoints=corners")),
                         ("(b) 500-point pwl, default (jumps)", ripple_pwl(500)),
                         ("(b) 500-point pwl, interp=spline", ripple_pwl(500, "interp=spline"))):
        res, parse, wall = run(drive)
        s = res.stats
        print(f"| {label} | {s['nsteps']} | {s['nrestart']} | {s['nfail_err']} | "
              f"{parse + wall:.2f} s | {error(res, ref, 'shaft'):.2e} | "
              f"{error(res, ref, 'La.i'):.2e} |", flush=True)
    print("\n(a)'s error is the pwl's own departure from the sine it samples.\n")


def ida_table() -> None:
    """SUNDIALS IDA on the same problem, where the peers' Python has it."""
    python = os.environ.get("P4_PEER_PYTHON", "/work/peers-venv/bin/python")
    if not Path(python).exists() or subprocess.run(
            [python, "-c", "import sksundae"], capture_output=True).returncode != 0:
        print(f"(no scikit-sundae under {python}: the IDA side by side is skipped)\n")
        return
    script = ROOT / "benchmarks" / "peers" / "ida_pwl_motor.py"
    print(subprocess.run([python, str(script)], capture_output=True, text=True,
                         check=True).stdout)


def length_table(counts) -> None:
    print("| pwl points | steps | restarts | rejected (error) | parse | run |")
    print("|---|---|---|---|---|---|")
    for n in counts:
        res, parse, wall = run(ripple_pwl(n))
        s = res.stats
        print(f"| {n} | {s['nsteps']} | {s['nrestart']} | {s['nfail_err']} | {parse:.2f} s | "
              f"{wall:.2f} s |", flush=True)
    print()


def file_table(counts) -> None:
    """The same ripple read from a CSV file (pwl(file=...)): the load (reading the file
    and parsing the netlist) and the run, against the points written inline."""
    print("| rows | read from the file | inline: parse | steps | restarts | run |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in counts:
            times = np.linspace(0.0, TSTOP, n)
            values = OFFSET + AMPLITUDE * np.sin(2 * np.pi * FREQ * times)
            csv = Path(tmp) / f"supply{n}.csv"
            csv.write_text("time [s], supply [V]\n" + "".join(
                f"{float(t)!r}, {float(v)!r}\n" for t, v in zip(times, values)))
            cir = Path(tmp) / f"motor{n}.cir"
            cir.write_text(motor(f'pwl(file="{csv.name}")'))
            start = time.perf_counter()
            net = circuitsim.load(cir)
            loaded = time.perf_counter()
            res = net.simulate()
            ran = time.perf_counter()
            start_inline = time.perf_counter()
            circuitsim.parse(motor(ripple_pwl(n)))
            inline = time.perf_counter() - start_inline
            s = res.stats
            print(f"| {n} | {loaded - start:.3f} s | {inline:.3f} s | {s['nsteps']} | "
                  f"{s['nrestart']} | {ran - loaded:.2f} s |", flush=True)
    print()


def evaluation_table() -> None:
    print("| pwl points | build | one evaluation |")
    print("|---|---|---|")
    for n in (10, 1_000, 200_000):
        times = np.linspace(0.0, TSTOP, n)
        values = np.sin(times)
        start = time.perf_counter()
        f = Pwl(times, values)
        build = time.perf_counter() - start
        calls = 20_000
        each = timeit.timeit(lambda: f(0.123456), number=calls) / calls
        print(f"| {n} | {build * 1e3:.2f} ms | {each * 1e6:.2f} us |")


def main(counts):
    accuracy_table()
    ida_table()
    length_table(counts or (500, 2000, 10_000, 50_000, 200_000))
    file_table(counts or (10_000, 200_000))
    evaluation_table()


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]])
