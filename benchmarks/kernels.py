"""The compiled element kernels (circuitsim/elements/compiled/, the ``fast`` extra)
against their numpy references: the per-call cost of each kernel at N = 1, 3, 4, 16, 256
instances (alternated blocks of calls, median per call) and the whole-process time of
P4 (benchmarks/p4.py: the N-link spherical chain, position model, rtol=1e-6 atol=1e-8,
2 s) with CIRCUITSIM_KERNELS=numpy, auto and numba in alternated runs, as median ratios.
Also the cost of the first compiled call in a fresh process, with the disk cache warm.

    python benchmarks/kernels.py [--runs 3] [--links 16 64 256 1024] [--skip-process]
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

from circuitsim.assembly.system import prepare_params  # noqa: E402
from circuitsim.elements import compiled, element_types  # noqa: E402
from circuitsim.elements.declarations import ElementInstance  # noqa: E402
from p4 import ATOL, RTOL, netlist  # noqa: E402  (benchmarks/ is on the path as a script)

SIZES = (1, 3, 4, 16, 256)
BLOCKS = 7                  # alternated blocks per kernel and size; the median is kept
CALL_SECONDS = 0.02         # about this long a block


PLAIN_BALL = {"model": "position", "mu": 0.0, "Tpre": 0.0, "cone": None}
# (element keyword, kernel, the variant its twin computes)
KERNELS = (("body", "residual", {}), ("body", "jacobian", {}),
           ("spherical", "residual", PLAIN_BALL), ("spherical", "jacobian", PLAIN_BALL),
           ("spherical", "residual", {**PLAIN_BALL, "model": "velocity"}),
           ("spherical", "jacobian", {**PLAIN_BALL, "model": "velocity"}),
           ("revolute", "residual", {"model": "position"}),
           ("revolute", "jacobian", {"model": "position"}),
           ("prismatic", "residual", {"model": "velocity"}),
           ("prismatic", "jacobian", {"model": "velocity"}))


def _group(keyword: str, variant: dict, n: int):
    etype = element_types()[keyword]
    rng = np.random.default_rng(n)
    ports = len(etype.ports)
    insts = [ElementInstance(etype, f"X{i}", [f"n{j}" for j in range(ports)],
                             {**etype.sample_params(rng), **variant}, None, {}, [None] * ports)
             for i in range(n)]
    p = prepare_params(etype, insts)
    x, xp = rng.normal(size=(n, etype.nvars(0))), rng.normal(size=(n, etype.nvars(0)))
    return etype, p, x, xp


def _per_call(kernel, args, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        kernel(*args)
    return (time.perf_counter() - start) / calls


def _with_kernels(value: str, kernel, args, calls: int) -> float:
    os.environ[compiled.ENVIRONMENT] = value
    return _per_call(kernel, args, calls)


def kernel_table() -> None:
    print("per call (µs), numpy vs compiled, median of alternated blocks")
    print(f"{'kernel':<22}{'N':>5}{'numpy':>10}{'compiled':>10}{'ratio':>8}")
    for keyword, name, variant in KERNELS:
        for n in SIZES:
            etype, p, x, xp = _group(keyword, variant, n)
            kernel = getattr(etype, name)
            args = (0.0, x, xp, p)
            _with_kernels("numba", kernel, args, 1)            # compile or load first
            calls = max(1, int(CALL_SECONDS / max(_with_kernels("numpy", kernel, args, 3),
                                                  1e-7)))
            pairs = [(_with_kernels("numpy", kernel, args, calls),
                      _with_kernels("numba", kernel, args, calls)) for _ in range(BLOCKS)]
            slow, fast = np.median(pairs, axis=0)
            ratio = np.median([a / b for a, b in pairs])
            label = keyword + "." + name + ("/v" if variant.get("model") == "velocity" else "")
            print(f"{label:<22}{n:>5}{1e6 * slow:>10.1f}{1e6 * fast:>10.2f}"
                  f"{ratio:>7.1f}x")


def _chain(links: int, folder: Path) -> Path:
    path = folder / f"p4_{links}.cir"
    path.write_text(netlist(links, RTOL, ATOL))
    return path


def _process_seconds(path: Path, kernels: str) -> float:
    env = dict(os.environ, **{compiled.ENVIRONMENT: kernels})
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "circuitsim", "run", str(path), "--quiet", "--out",
                    str(path.with_suffix(f".{kernels}.csv"))], env=env, check=True,
                   capture_output=True)
    return time.perf_counter() - start


def process_table(links_list, runs: int) -> None:
    print(f"\nwhole process (s), {runs} alternated runs, medians; ratios to numpy, pair by "
          "pair (auto: numpy until the warm-up has paid for loading the twins)")
    paths = ("numpy", "auto", "numba")
    with tempfile.TemporaryDirectory() as tmp:
        for links in links_list:
            path = _chain(links, Path(tmp))
            _process_seconds(path, "numba")                    # the disk cache warm
            seconds = np.array([[_process_seconds(path, k) for k in paths]
                                for _ in range(runs)])
            medians = np.median(seconds, axis=0)
            ratios = np.median(seconds[:, 1:] / seconds[:, :1], axis=0)
            print(f"P4 N = {links:>4}: " + "  ".join(
                f"{k} {t:.2f}" for k, t in zip(paths, medians))
                + f"   auto/numpy {ratios[0]:.2f}  numba/numpy {ratios[1]:.2f}")


def first_call() -> None:
    """The warm-cache cost of the first compiled call of the body's kernels, in a fresh
    process."""
    code = ("import time, os; os.environ['CIRCUITSIM_KERNELS'] = 'numba'; "
            "import numpy as np; from circuitsim.elements import compiled; "
            "t = time.perf_counter(); import circuitsim.elements.compiled.body as b; "
            "t1 = time.perf_counter(); x = np.zeros((1, 16)); x[0, 9] = 1; "
            "a = (np.ones(1), np.eye(3)[None], np.ones(1), np.zeros((1, 3)), False); "
            "b.residual(x, x, *a); b.jacobian(x, x, *a); t2 = time.perf_counter(); "
            "print(f'{t1 - t:.3f} {t2 - t1:.3f}')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    print(f"\nfirst compiled call, warm disk cache: import numba {out[0]} s, "
          f"load body's kernels {out[1]} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--links", type=int, nargs="+", default=[16, 64, 256, 1024])
    ap.add_argument("--skip-process", action="store_true")
    args = ap.parse_args()
    if not compiled.available():
        sys.exit("numba is not installed: pip install circuitsim[fast]")
    kernel_table()
    first_call()
    if not args.skip_process:
        process_table(args.links, args.runs)


if __name__ == "__main__":
    main()
