"""Operation counts of the equations of motion of chains of n = 1..6 revolute links, by
the method of connected graphs (circuitsim's ``equations``), by Lagrange's equations with
homogeneous matrices and by recursive Newton–Euler, all three built symbolically by
circuitsim.symbolic on the same geometry (docs/symbolic.md explains the counts).

    python benchmarks/symbolic_counts.py [N_MAX]

The chain: n rods drawn along +x, 0.3 m and 1 kg each, joint k at x = 0.3 (k − 1), its
axis the k-th of z, y, y, x, y, x (waist, shoulder, elbow, wrist roll, pitch, roll of a
six-axis arm), gravity −z.
"""
from __future__ import annotations

import sys
import time

import circuitsim

AXES = ("(0, 0, 1)", "(0, 1, 0)", "(0, 1, 0)", "(1, 0, 0)", "(0, 1, 0)", "(1, 0, 0)")
LENGTH = 0.3


def chain_netlist(n: int) -> str:
    lines = [f".title {n}-link revolute chain", ".gravity 0 0 -9.81"]
    for k in range(1, n + 1):
        x0 = LENGTH * (k - 1)
        lines.append(f"body B{k} m=1 J=(0.001, 0.0075, 0.0075) pos=({x0 + LENGTH / 2}, 0, 0)")
        parent = "0" if k == 1 else f"B{k - 1}"
        lines.append(f"revolute J{k} {parent} B{k} at=({x0}, 0, 0) axis={AXES[(k - 1) % 6]}")
    return "\n".join(lines) + "\n"


def share(*tallies) -> float:
    """Differentiations as a percentage of all operations of the derivation."""
    diffs = sum(t.diffs for t in tallies)
    return 100.0 * diffs / (diffs + sum(t.adds + t.mults for t in tallies))


def main(n_max: int = 6) -> None:
    print("Operations to evaluate P(q, q', q''): additions + multiplications as built "
          "(tree) -> after sympy.cse;\nsin/cos not counted. Derivation by connected "
          "graphs: additions + multiplications on matrix entries and differentiations,\n"
          "formulas (10)-(12) for point masses, and with the rotational terms added.")
    head = (f"{'n':>2} | {'connected graphs':>20} | {'Lagrange (4x4)':>20} | "
            f"{'Newton-Euler':>20} | {'L/CG':>4} | {'derivation: ops, diff.':>22} | "
            f"{'+rotation':>9} | {'s':>4}")
    print(head)
    print("-" * len(head))
    for n in range(1, n_max + 1):
        t0 = time.perf_counter()
        counts = circuitsim.parse(chain_netlist(n)).equations().counts()
        cells = [f"{c['tree'].total:>8,} -> {c['cse'].total:>6,}"
                 for c in (counts["graphs"], counts["lagrange"], counts["newton_euler"])]
        ratio = counts["lagrange"]["cse"].total / counts["graphs"]["cse"].total
        t, tr = counts["tally"], counts["tally_rotation"]
        derivation = f"{t.adds + t.mults:>5}, {t.diffs:>4} = {share(t):5.2f}%"
        print(f"{n:>2} | " + " | ".join(f"{c:>20}" for c in cells)
              + f" | {ratio:4.1f} | {derivation:>22} | {share(t, tr):8.2f}% | "
              f"{time.perf_counter() - t0:4.1f}", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 6)
