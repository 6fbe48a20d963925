"""RC ladder benchmark: cost per step against the number of sections.

    python benchmarks/ladder.py                 # N = 1k, 10k, 100k
    python benchmarks/ladder.py 1000 4000       # chosen sizes
    python benchmarks/ladder.py --ngspice 1000 10000 100000   # against ngspice, whole processes

A 1 V step drives N sections of R = 1 kΩ, C = 1 µF (RC = 1 ms) for 20 ms. Prints, per
N: parse and prepare (elaborate + assemble) times, steps, residual and Jacobian
evaluations, LU factorizations, solve time and time per step, the largest error of the
driven node n1 against the exact solution, then the scaling exponents of the time per
step and of the set-up (slope of log(time) against log N), which should be close to 1.

``--ngspice`` instead times whole processes side by side with ngspice (skipped when it is
not on PATH) at matched accuracy: ``circuitsim run`` at rtol 1e-4 (atol 1e-7) and
``ngspice -b`` at its default tolerances with the coarsest ``tmax`` of ``TMAX_LADDER``
whose driven-node error against the exact solution is at most circuitsim's; both write
the driven node's waveform. Each N: median of ``--repeat`` rounds, the two alternating;
prints a markdown table and the time ratio.
"""
from __future__ import annotations

import argparse
import compileall
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy.linalg import eigh_tridiagonal

import circuitsim

RC = 1e-3                # s: one section's time constant
REFERENCE_SECTIONS = 200  # the step reaches ~sqrt(20 ms / RC) sections: n1 of a longer
                          # ladder differs from this one's by far less than rounding


def ladder_netlist(n: int) -> str:
    lines = [f".title RC ladder, {n} sections", "V V1 n0 0 V=step(0, 0, 1)"]
    for k in range(1, n + 1):
        lines.append(f"R R{k} n{k - 1} n{k} R=1k")
        lines.append(f"C C{k} n{k} 0 C=1u")
    lines.append(".tran 20m")
    lines.append(".probe n1 n10")
    return "\n".join(lines) + "\n"


def exact_driven_node(n: int, t: np.ndarray) -> np.ndarray:
    """v_n1(t) of the ladder from rest under the 1 V step: RC v' = -T v + e_1 with T the
    tridiagonal (2, -1) matrix whose last diagonal entry is 1 (the open end), so
    v(t) = T^-1 (I - exp(-T t / RC)) e_1, through T = Q diag(lam) Q^T."""
    m = min(n, REFERENCE_SECTIONS)
    diagonal = np.full(m, 2.0)
    diagonal[-1] = 1.0
    lam, q = eigh_tridiagonal(diagonal, -np.ones(m - 1))
    decay = -np.expm1(-np.outer(t, lam) / RC)
    return decay @ (q[0] * q[0] / lam)


def measure(n: int, rtol: float = 1e-4) -> dict:
    text = ladder_netlist(n)
    t0 = time.perf_counter()
    net = circuitsim.parse(text, f"<ladder {n}>")
    t1 = time.perf_counter()
    case = net.prepare()
    t2 = time.perf_counter()
    res = case.run(rtol=rtol, atol=1e-7)
    t3 = time.perf_counter()
    s = res.stats
    error = np.max(np.abs(res["n1"] - exact_driven_node(n, res.t)))
    return {"N": n, "unknowns": case.system.n, "parse_s": t1 - t0, "prepare_s": t2 - t1,
            "setup_s": t2 - t0, "solve_s": t3 - t2, "nsteps": s["nsteps"], "nres": s["nres"],
            "njac": s["njac"], "nlu": s["nlu"], "per_step_ms": 1e3 * (t3 - t2) / s["nsteps"],
            "error_n1": error}


RTOL, ATOL = 1e-4, 1e-7  # the setting whose error ngspice is asked to match
T_END = 20e-3            # s
# ngspice's largest step, coarsest first: T_END / 25 ... T_END / 12 800, 2x apart
TMAX_LADDER = tuple(T_END / d for d in (25, 50, 100, 200, 400, 800, 1600, 3200, 6400, 12800))
STATS = re.compile(r"(\d+) steps \((\d+) rejected\)")
ROWS = re.compile(r"No\. of Data Rows\s*:\s*(\d+)")
SINGLE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def ngspice_netlist(n: int, tmax: float, out: Path) -> str:
    """The same ladder for ngspice: 1 V from t = 0 on capacitors at rest (uic)."""
    lines = [f"RC ladder, {n} sections", "V1 n0 0 DC 1"]
    for k in range(1, n + 1):
        lines.append(f"R{k} n{k - 1} n{k} 1k")
        lines.append(f"C{k} n{k} 0 1u")
    lines += [f".tran {tmax:g} {T_END:g} 0 {tmax:g} uic", ".control", "run",
              f"wrdata {out} v(n1)", "quit", ".endc", ".end"]
    return "\n".join(lines) + "\n"


def whole_process(cmd: list) -> tuple:
    """(wall seconds, printed text) of one command."""
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True,
                          env=dict(os.environ, **SINGLE_THREAD))
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stdout}{proc.stderr}")
    return wall, proc.stdout + proc.stderr


def driven_node_error(t: np.ndarray, v: np.ndarray, n: int) -> float:
    return float(np.max(np.abs(v - exact_driven_node(n, t))))


class CircuitsimRun:
    """``circuitsim run`` of the ladder at RTOL, writing the driven node to a CSV."""

    def __init__(self, n: int, tmp: Path):
        self.n, self.cir, self.csv = n, tmp / f"ladder_{n}.cir", tmp / f"ladder_{n}.csv"
        self.cir.write_text(ladder_netlist(n) + f".options rtol={RTOL:g} atol={ATOL:g}\n")
        self.setting = f"rtol {RTOL:g}"

    def __call__(self) -> tuple:
        """(wall seconds, steps, driven-node error)."""
        wall, out = whole_process([sys.executable, "-m", "circuitsim", "run", str(self.cir),
                                   "--out", str(self.csv)])
        with open(self.csv) as f:
            header = f.readline().strip().split(",")
        data = np.loadtxt(self.csv, delimiter=",", skiprows=1, ndmin=2)
        m = STATS.search(out)
        return (wall, int(m.group(1)) if m else 0,
                driven_node_error(data[:, 0], data[:, header.index("n1")], self.n))


class NgspiceRun:
    """``ngspice -b`` of the ladder at one tmax, writing v(n1) with wrdata."""

    def __init__(self, n: int, tmax: float, tmp: Path):
        self.n, self.out = n, tmp / f"ngspice_{n}.txt"
        self.cir = tmp / f"ngspice_{n}.cir"
        self.cir.write_text(ngspice_netlist(n, tmax, self.out))
        self.setting = f"tmax {tmax:.3g}"

    def __call__(self) -> tuple:
        """(wall seconds, time points, driven-node error)."""
        wall, out = whole_process(["ngspice", "-b", str(self.cir)])
        data = np.loadtxt(self.out, ndmin=2)
        m = ROWS.search(out)
        return (wall, int(m.group(1)) if m else len(data),
                driven_node_error(data[:, 0], data[:, 1], self.n))


def matched_ngspice(n: int, target: float, tmp: Path):
    """The coarsest tmax of TMAX_LADDER whose driven-node error is at most ``target``."""
    for tmax in TMAX_LADDER:
        run = NgspiceRun(n, tmax, tmp)
        if run()[2] <= target:
            return run
    return None


def side_by_side(sizes, repeat: int) -> None:
    """Markdown table of circuitsim against ngspice at matched driven-node error."""
    print(f"RC ladder, 20 ms, whole processes, median of {repeat} alternated runs; ngspice at "
          f"the coarsest tmax matching circuitsim's driven-node error at rtol {RTOL:g}\n")
    print("| N | circuitsim s | steps | error n1 | ngspice s | tmax | points | error n1 "
          "| circuitsim / ngspice |")
    print("|---|---|---|---|---|---|---|---|---|", flush=True)
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for n in sizes:
            ours = CircuitsimRun(n, tmp)
            target = ours()[2]
            theirs = matched_ngspice(n, target, tmp)
            if theirs is None:
                print(f"| {n} | no tmax of TMAX_LADDER reaches {target:.2e} |||||||||")
                continue
            runs = ([], [])
            for _ in range(repeat):
                runs[0].append(ours())
                runs[1].append(theirs())
            (a, sa, ea), (b, sb, eb) = ([statistics.median(c) for c in zip(*r)] for r in runs)
            print(f"| {n} | {a:.2f} | {sa:.0f} | {ea:.1e} | {b:.2f} | {theirs.setting[5:]} "
                  f"| {sb:.0f} | {eb:.1e} | {a / b:.2f} |", flush=True)


def main(sizes) -> None:
    rows = [measure(n) for n in sizes]
    print(f"{'N':>7} {'unknowns':>9} {'parse s':>8} {'prep. s':>8} {'steps':>6} {'nres':>6} "
          f"{'njac':>5} {'nlu':>5} {'solve s':>8} {'ms/step':>8} {'error n1':>9}")
    for r in rows:
        print(f"{r['N']:>7} {r['unknowns']:>9} {r['parse_s']:>8.2f} {r['prepare_s']:>8.2f} "
              f"{r['nsteps']:>6} {r['nres']:>6} {r['njac']:>5} {r['nlu']:>5} "
              f"{r['solve_s']:>8.2f} {r['per_step_ms']:>8.3f} {r['error_n1']:>9.2e}")
    if len(rows) >= 2:
        n = np.log([r["N"] for r in rows])
        cost = np.log([r["per_step_ms"] for r in rows])
        slope = np.polyfit(n, cost, 1)[0]
        setup = np.polyfit(n, np.log([r["setup_s"] for r in rows]), 1)[0]
        print(f"scaling exponent of time per step: {slope:.2f} (1 = linear); "
              f"of set-up time: {setup:.2f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sizes", nargs="*", type=int, help="sections (default 1k, 10k, 100k)")
    ap.add_argument("--ngspice", action="store_true", help="whole processes against ngspice")
    ap.add_argument("--repeat", type=int, default=3, help="rounds per size with --ngspice")
    args = ap.parse_args()
    sizes = args.sizes or [1000, 10000, 100000]
    if not args.ngspice:
        main(sizes)
    elif shutil.which("ngspice") is None:
        print("ngspice is not on PATH: the comparison is skipped")
    else:
        # bytecode compiled first, as an installed package's is (PYTHONDONTWRITEBYTECODE)
        compileall.compile_dir(Path(circuitsim.__file__).parent, quiet=1)
        side_by_side(sizes, args.repeat)
