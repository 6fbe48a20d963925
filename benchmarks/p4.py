"""P4: a long spherical chain, whole-process time against accuracy (and against peers).

    python benchmarks/p4.py                     # N = 16, 64, 256, 1024
    python benchmarks/p4.py 16 64 256 1024 4096 # the full yardstick (N = 4096: ~1 h with its reference)
    python benchmarks/p4.py 64 256 --peers      # also Exudyn / MuJoCo when their venv exists
    python benchmarks/p4.py 256 --rtol 1e-5     # one fixed setting for circuitsim
    python benchmarks/p4.py 64 256 --search --peers   # each engine at its coarsest passing setting
    python benchmarks/p4.py 64 --search --models position,velocity   # both rigid joint models

The problem: N rods of 0.5 m and 1 kg (transverse inertia m·L²/12, axial 1e-4 kg·m²) on
spherical joints, the first to ground at the origin, released at rest, straight along +x,
under gravity -z, simulated 2 s (``netlists/chain.py``, position model). The accuracy
rule: every rod centre within 1e-4 m of a tight reference at t = 1 s and 2 s, each engine
at the coarsest setting that meets it.

Per N it prints the whole-process wall time of ``circuitsim run`` (start, import, parse,
build, solve, write the CSV; median of ``--repeat`` runs, the engines alternating), steps,
LU factorisations, ms per step, the largest centre error at 1 and 2 s against the
reference, and at the end the scaling exponent of the time per step. ``--search`` applies the accuracy rule as
stated: for each N and engine it tries the settings of ``RTOL_LADDER`` (circuitsim,
atol = rtol/100) or ``STEP_LADDER`` (peers' fixed steps) from the coarsest down and
times the first that passes. At the end a markdown table: per N each engine's median
time, and circuitsim's time over each peer's (median of the run-by-run ratios). The
reference is a circuitsim run at
``--ref-rtol`` (default 1e-9, atol 1e-11), computed once per N and cached in
``benchmarks/.p4cache/`` (``--refresh`` recomputes it), or where benchmarks/peers/ stores
a converged peer reference for that N (MuJoCo RK4 checked against Exudyn), that one, with
the distance between the two printed; ``--check-ref`` also runs it at
10x ``--ref-rtol`` and prints how far apart the two are, the reference's own error
bound. With ``--peers`` the peer scripts of ``benchmarks/peers/`` (Exudyn, MuJoCo) run
side by side under ``--peer-python`` (default ``$P4_PEER_PYTHON``, else
``/work/peers-venv/bin/python``, see benchmarks/peers/README.md; a peer that interpreter
does not import is skipped), each at its own step from ``PEER_STEPS``; their centres
are checked against the same reference. Peers are never a dependency of circuitsim.
"""
from __future__ import annotations

import argparse
import compileall
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "netlists"))
from chain import chain_netlist  # noqa: E402

SIZES = [16, 64, 256, 1024]
T_CHECK = (1.0, 2.0)
TOLERANCE = 1e-4                # m, the accuracy rule
RTOL, ATOL = 1e-6, 1e-8         # circuitsim's setting for the rule (coarsest that meets it)
CACHE = HERE / ".p4cache"
PEERS = {"exudyn": HERE / "peers" / "exudyn_p4.py", "mujoco": HERE / "peers" / "mujoco_p4.py"}
# each peer's fixed step without --search (benchmarks/peers/README.md)
PEER_STEPS = {"exudyn": 1e-3, "mujoco": 4e-3}
PEER_MAX_N = {"mujoco": 256}    # dense joint-space solve, O(N³) per step: 55 ms at N = 256
# rungs about 1.5x apart, as fine as the peers' steps: a variable-order BDF's step count
# moves with rtol^(1/(k+1)), about 1.07x a rung at order 5 (the peers' rungs: 1.25x)
RTOL_LADDER = (2e-4, 1.5e-4, 1e-4, 7e-5, 5e-5, 3e-5, 2e-5, 1.5e-5, 1e-5, 7e-6, 5e-6, 3e-6,
               2e-6, 1.5e-6, 1e-6, 7e-7, 5e-7, 3e-7, 2e-7, 1.5e-7, 1e-7)
# fixed steps dividing 1 s exactly (both scripts require it)
STEP_LADDER = (1e-2, 8e-3, 6.25e-3, 5e-3, 4e-3, 3.125e-3, 2.5e-3, 2e-3, 1.6e-3, 1.25e-3,
               1e-3, 8e-4, 6.25e-4, 5e-4, 4e-4, 3.125e-4, 2.5e-4, 2e-4)
STATS = re.compile(r"(\d+) steps \((\d+) rejected\), (\d+) Jacobians, (\d+) LU")


def netlist(n: int, rtol: float, atol: float, model: str = "position") -> str:
    probes = [f"B{k}.{c}" for k in range(1, n + 1) for c in "xyz"]
    text = chain_netlist(n, model, t_end=2.0, tstep=0.5, probes=probes)
    return text + f".options rtol={rtol:g} atol={atol:g}\n"


def centres_from_csv(path: Path, n: int) -> np.ndarray:
    """Rod centres (len(T_CHECK), n, 3) read from a circuitsim CSV."""
    with open(path) as f:
        header = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    col = {name: i for i, name in enumerate(header)}
    out = np.empty((len(T_CHECK), n, 3))
    for i, t in enumerate(T_CHECK):
        row = data[np.argmin(abs(data[:, 0] - t))]
        assert abs(row[0] - t) < 1e-9, f"no output at t = {t}"
        for k in range(n):
            out[i, k] = [row[col[f"B{k + 1}.{c}"]] for c in "xyz"]
    return out


def peer_reference(n: int):
    """The converged peer reference stored in benchmarks/peers/ (None if there is none)."""
    path = HERE / "peers" / f"reference_N{n}.json"
    return np.asarray(json.loads(path.read_text())["centres"]) if path.exists() else None


def reference(n: int, rtol: float, refresh: bool = False) -> np.ndarray:
    """Tight circuitsim run (cached): centres (len(T_CHECK), n, 3)."""
    CACHE.mkdir(exist_ok=True)
    path = CACHE / f"ref_N{n}_rtol{rtol:g}.npy"
    if path.exists() and not refresh:
        return np.load(path)
    import circuitsim
    t0 = time.perf_counter()
    res = circuitsim.parse(netlist(n, rtol, rtol * 1e-2), f"<P4 {n} reference>").simulate()
    rows = [int(np.argmin(abs(res.t - t))) for t in T_CHECK]
    out = np.array([[[res[f"B{k + 1}.{c}"][i] for c in "xyz"] for k in range(n)]
                    for i in rows])
    np.save(path, out)
    print(f"  reference N = {n} at rtol {rtol:g}: {res.stats['nsteps']} steps, "
          f"{time.perf_counter() - t0:.0f} s", flush=True)
    return out


def timed(cmd: list, repeat: int) -> tuple:
    """(median wall seconds, stdout of the last run) of a whole command."""
    walls, out = [], ""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    for _ in range(repeat):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        walls.append(time.perf_counter() - t0)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(map(str, cmd))} failed:\n{proc.stdout}{proc.stderr}")
        out = proc.stdout + proc.stderr
    return statistics.median(walls), out


def run_circuitsim(n: int, rtol: float, atol: float, repeat: int, tmp: Path,
                   model: str = "position") -> dict:
    cir, csv = tmp / f"p4_{n}.cir", tmp / f"p4_{n}.csv"
    cir.write_text(netlist(n, rtol, atol, model))
    wall, out = timed([sys.executable, "-m", "circuitsim", "run", str(cir), "--out", str(csv)],
                      repeat)
    m = STATS.search(out)
    steps, lus = (int(m.group(1)), int(m.group(4))) if m else (0, 0)
    return {"engine": "circuitsim" if model == "position" else f"cs-{model[:3]}",
            "wall": wall, "steps": steps, "lu": lus,
            "centres": centres_from_csv(csv, n), "setting": f"rtol {rtol:g}"}


def installed(name: str, python: str) -> bool:
    """Whether ``python`` imports the peer ``name`` (said when it does not)."""
    ok = PEERS[name].exists() and subprocess.run(
        [python, "-c", f"import {name}"], capture_output=True).returncode == 0
    if not ok:
        print(f"{name} is not installed under {python}: skipped")
    return ok


def run_peer(name: str, n: int, python: str, repeat: int, tmp: Path, step: float) -> dict:
    out_json = tmp / f"{name}_{n}.json"
    wall, _ = timed([python, str(PEERS[name]), str(n), "--step", str(step),
                     "--out", str(out_json)], repeat)
    data = json.loads(out_json.read_text())
    return {"engine": name, "wall": wall, "steps": data.get("steps", 0), "lu": None,
            "centres": np.asarray(data["centres"]), "setting": f"h {step:g}"}


def error(run: dict, ref: np.ndarray) -> np.ndarray:
    """Largest centre error at each check time."""
    return np.linalg.norm(run["centres"] - ref, axis=2).max(axis=1)


def coarsest(attempt, ladder, ref):
    """(setting, run) of the first setting of ``ladder`` whose run meets the rule (tried
    once each; a run that stops with an error fails it); None if none does."""
    for setting in ladder:
        try:
            run = attempt(setting, 1)
        except RuntimeError:
            continue
        if error(run, ref).max() <= TOLERANCE:
            return setting, run
    return None


def alternated(chosen: list, repeat: int) -> None:
    """Rerun the chosen (engine, attempt, setting, run) in turn until each has ``repeat``
    whole-process times (its first run counts), so that a drift of the machine's speed
    falls on every engine; each run's "walls" gets them all and "wall" their median."""
    for *_, run in chosen:
        run["walls"] = [run["wall"]]
    for _ in range(repeat - 1):
        for _name, attempt, setting, run in chosen:
            run["walls"].append(attempt(setting, 1)["wall"])
    for *_, run in chosen:
        run["wall"] = statistics.median(run["walls"])


def markdown_table(rows: list, sizes: list, engines: list) -> str:
    """Per N, each engine's median wall time with its setting, steps and error, and the
    median of circuitsim's run-by-run time ratios to each peer."""
    peers = [e for e in engines if e in PEERS]
    lines = ["| N | " + " | ".join(engines) + "".join(f" | circuitsim / {p}" for p in peers)
             + " |", "|---" * (1 + len(engines) + len(peers)) + "|"]
    for n in sizes:
        here = {r["engine"]: r for r in rows if r["N"] == n}
        cells = [f"{here[e]['wall']:.2f} s ({here[e]['setting']}, {here[e]['steps']} steps, "
                 f"{here[e]['err']:.1e} m)" if e in here else "not run" for e in engines]
        for p in peers:
            ours, theirs = here.get("circuitsim"), here.get(p)
            pairs = zip(ours["walls"], theirs["walls"]) if ours and theirs else ()
            ratios = [a / b for a, b in pairs]
            cells.append(f"{statistics.median(ratios):.2f}" if ratios else "")
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sizes", nargs="*", type=int, help=f"chain lengths (default {SIZES})")
    ap.add_argument("--rtol", type=float, default=RTOL)
    ap.add_argument("--atol", type=float, default=ATOL)
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs per timing, the engines alternating (median)")
    ap.add_argument("--ref-rtol", type=float, default=1e-9)
    ap.add_argument("--refresh", action="store_true", help="recompute the references")
    ap.add_argument("--check-ref", action="store_true",
                    help="also run the reference at 10x --ref-rtol and print the difference")
    ap.add_argument("--models", default="position",
                    help="circuitsim joint models, comma-separated (position, velocity; "
                    "rows 'circuitsim' and 'cs-vel')")
    ap.add_argument("--search", action="store_true",
                    help="each engine at the coarsest setting of its ladder that passes")
    ap.add_argument("--peers", action="store_true", help="run Exudyn / MuJoCo side by side")
    ap.add_argument("--peer-python", default=os.environ.get("P4_PEER_PYTHON",
                                                            "/work/peers-venv/bin/python"))
    args = ap.parse_args(argv)
    sizes = args.sizes or SIZES
    # the package's bytecode compiled first, as an installed package's is (where Python
    # writes none, PYTHONDONTWRITEBYTECODE, every process would compile the sources)
    compileall.compile_dir(importlib.util.find_spec("circuitsim").submodule_search_locations[0],
                           quiet=1)
    peers = []
    if args.peers:
        if not Path(args.peer_python).exists():
            print(f"no peer interpreter at {args.peer_python}: peers skipped")
        else:
            peers = [p for p in PEERS if installed(p, args.peer_python)]

    print(f"P4 spherical chain, 2 s; rule: centres within {TOLERANCE:g} m at t = 1, 2 s; "
          f"circuitsim at rtol {args.rtol:g} atol {args.atol:g}")
    print(f"{'engine':>10} {'N':>5} {'setting':>11} {'wall s':>8} {'steps':>6} {'LU':>5} "
          f"{'ms/step':>8} {'err 1 s':>9} {'err 2 s':>9}  rule", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmpdir:
        tmp = Path(tmpdir)
        for n in sizes:
            ref = reference(n, args.ref_rtol, args.refresh)
            independent = peer_reference(n)
            if independent is not None:
                print(f"  reference N = {n}: the stored peer reference (circuitsim at rtol "
                      f"{args.ref_rtol:g} differs from it by "
                      f"{np.max(np.linalg.norm(ref - independent, axis=2)):.2e} m)")
                ref = independent
            if args.check_ref:
                loose = reference(n, args.ref_rtol * 10, args.refresh)
                print(f"  reference N = {n}: rtol {args.ref_rtol:g} vs {args.ref_rtol * 10:g} "
                      f"differ by {np.max(np.linalg.norm(ref - loose, axis=2)):.2e} m")
            attempts = []
            for model in args.models.split(","):
                def ours(rtol, repeat, n=n, model=model):
                    atol = rtol * 1e-2 if args.search else args.atol
                    return run_circuitsim(n, rtol, atol, repeat, tmp, model)
                attempts.append((model, ours, RTOL_LADDER, args.rtol))
            for p in peers:
                if n > PEER_MAX_N.get(p, n):
                    print(f"{p:>10} {n:>5}  skipped above N = {PEER_MAX_N[p]} (PEER_MAX_N)")
                    continue
                attempts.append((p, lambda h, repeat, p=p, n=n: run_peer(
                    p, n, args.peer_python, repeat, tmp, h), STEP_LADDER, PEER_STEPS[p]))
            chosen = []
            for name, attempt, ladder, fixed in attempts:
                try:
                    found = (coarsest(attempt, ladder, ref) if args.search
                             else (fixed, attempt(fixed, 1)))
                except (RuntimeError, OSError, ValueError) as exc:
                    print(f"{name:>10} {n:>5}  failed: {exc}")
                    continue
                if found is None:
                    print(f"{name:>10} {n:>5}  no setting of its ladder meets the rule")
                    continue
                chosen.append((name, attempt, *found))
            alternated(chosen, args.repeat)
            for *_, r in chosen:
                err = error(r, ref)
                ms = 1e3 * r["wall"] / r["steps"] if r["steps"] else float("nan")
                ok = "ok" if err.max() <= TOLERANCE else "FAILS"
                lu = "" if r["lu"] is None else r["lu"]
                print(f"{r['engine']:>10} {n:>5} {r['setting']:>11} {r['wall']:>8.2f} "
                      f"{r['steps']:>6} {lu:>5} {ms:>8.2f} {err[0]:>9.2e} {err[1]:>9.2e}  {ok}",
                      flush=True)
                rows.append(dict(r, N=n, ms=ms, err=err.max()))
    cs = [r for r in rows if r["engine"] == "circuitsim" and r["N"] >= 256]
    if len(cs) >= 2:
        slope = np.polyfit(np.log([r["N"] for r in cs]), np.log([r["ms"] for r in cs]), 1)[0]
        print(f"circuitsim: exponent of whole-process ms/step from N = {cs[0]['N']} to "
              f"{cs[-1]['N']}: {slope:.2f}")
    engines = list(dict.fromkeys(r["engine"] for r in rows))
    if engines:
        print(f"\nwhole processes, median of {args.repeat} alternated runs\n")
        print(markdown_table(rows, sizes, engines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
