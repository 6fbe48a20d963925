"""N-link spherical chain: a netlist generator.

    python netlists/chain.py N [--model velocity|position|elastic] > chain_N.cir

prints a netlist of N slender rods (0.5 m, 1 kg each, Jc = diag(m L²/12, m L²/12, Ja)
with a small axial moment Ja, local z along the rod) hanging from one another by
spherical joints, the first from a ground joint at the origin. The chain is released at
rest, straight and horizontal along +x, under gravity -z, and run for 2 s (``.tran 2``).

    from chain import chain_netlist          # (with netlists/ on sys.path)
    text = chain_netlist(16, "velocity")

Bodies are B1..BN (B1 next to the ground), joints J1..JN (J1 to the ground, Jk between
B(k-1) and Bk at x = (k-1) L).
"""
from __future__ import annotations

import argparse
import sys

MODELS = ("velocity", "position", "elastic")
LINK_LENGTH = 0.5      # m
LINK_MASS = 1.0        # kg
AXIAL_J = 1e-4         # kg m², the rods' small moment about their own axis
ELASTIC_K = "1e7"          # N/m, stiffness of the elastic joints (netlist text)


def chain_netlist(n: int, model: str = "position", t_end: float = 2.0, tstep=None,
                  probes=None) -> str:
    """Netlist text of an ``n``-link chain with every joint in ``model``.

    ``t_end`` and ``tstep`` go to ``.tran``; ``probes`` (a list of names) to ``.probe``
    (default: everything is recorded)."""
    if n < 1:
        raise ValueError(f"the chain needs at least one link, got {n}")
    if model not in MODELS:
        raise ValueError(f"model must be one of {', '.join(MODELS)}, got {model!r}")
    lines = [
        f".title Spherical chain, {n} links, {model} joints",
        f"* {n} rods of {LINK_LENGTH:g} m and {LINK_MASS:g} kg, released straight and horizontal",
        f".param m={LINK_MASS:g} L={LINK_LENGTH:g} Ja={AXIAL_J:g}",
        ".gravity 0 0 -9.81",
    ]
    extra = f" k={ELASTIC_K}" if model == "elastic" else ""
    for k in range(1, n + 1):
        lines.append(f"body B{k} m={{m}} J=({{m*L^2/12}}, {{m*L^2/12}}, {{Ja}}) "
                     f"pos=({{{k - 0.5:g}*L}}, 0, 0) rot=(0, 1, 0, 90deg)")
    for k in range(1, n + 1):
        parent = "0" if k == 1 else f"B{k - 1}"
        lines.append(f"spherical J{k} {parent} B{k} at=({{{k - 1}*L}}, 0, 0) "
                     f"model={model}{extra}")
    lines.append(f".tran {t_end:g}" + (f" {tstep:g}" if tstep else ""))
    if probes:
        lines.append(".probe " + " ".join(probes))
    return "\n".join(lines) + "\n"


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="Print an N-link spherical chain netlist.")
    ap.add_argument("n", type=int, help="number of links")
    ap.add_argument("--model", choices=MODELS, default="position",
                    help="joint model (default position)")
    ap.add_argument("--tend", type=float, default=2.0, help="simulated time, s (default 2)")
    args = ap.parse_args(argv)
    if args.n < 1:
        ap.error("N must be at least 1")
    sys.stdout.write(chain_netlist(args.n, args.model, args.tend))


if __name__ == "__main__":
    main()
