"""The tutorial's figures, computed: its landing-gear paragraphs are rewritten from a run
of the example, so that they never go stale.

    python docs/tutorial_figures.py            # rewrite the marked paragraphs of tutorial.md
    python docs/tutorial_figures.py --check    # exit 1 if a figure there is off by > 10 %

Each paragraph sits between ``<!-- figures: NAME -->`` and ``<!-- /figures -->`` in
docs/tutorial.md. The runs use the numpy kernels (the reference path); a figure written
there is compared with a fresh one within ``TOLERANCE`` (step counts and energies move a
little between machines and versions), which ``tests/project/test_docs.py`` checks.
"""
from __future__ import annotations

import argparse
import math
import os
import re
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "docs" / "tutorial.md"
NETLIST = ROOT / "netlists" / "landing_gear.cir"
SERVO = ROOT / "netlists" / "hydraulic_servo.cir"
TOLERANCE = 0.10            # relative, per number
BLOCK = re.compile(r"(<!-- figures: (\w+) -->\n)(.*?)(<!-- /figures -->)", re.S)
NUMBER = re.compile(r"-?\d[\d ]*(?:\.\d+)?(?:e[-+]?\d+)?")


def figures() -> dict:
    """{block name: its paragraph} from runs of the landing gear and the servo."""
    os.environ.setdefault("CIRCUITSIM_KERNELS", "numpy")
    sys.path.insert(0, str(ROOT))
    import numpy as np
    import circuitsim
    net = circuitsim.load(NETLIST)
    base = net.simulate(report=True)
    fast, soft = (net.simulate(study=study) for study in ("fast", "soft"))
    e = base.report.energy
    violation = max(value for _, rows in base.report.joints for kind, value, _ in rows
                    if kind == "gap")
    angle = base["TR.angle"][-1]
    gap = max(np.abs(soft[f"{j}.gap"]).max() for j in ("TR", "BH", "RE", "P"))
    power = _paragraph(
        "writes every variable at every 10 ms (`.tran 5 10m`) to `lg.csv`, the plot to "
        "`lg.png`, and a report: per-joint constraint violation (below "
        f"{_bound(violation)} m here), quaternion norms, Kirchhoff residuals and the power "
        f"balance — input {e['W_in'] / 1e3:.3g} kJ = dissipated {e['W_diss'] / 1e3:.3g} kJ + "
        f"stored {e['dE'] / 1e3:.3g} kJ, closing to within {_bound(e['relative'])} of the "
        "energy (the "
        "work summed over the solver's steps, so the rod's impact on its end stop between "
        "two output points counts), the orifices' throttling named among the losses. "
        "Variables are named by "
        "element: `TR.angle` (rad), `P.f` (the actuator force, N), `CY.stops.x` (the rod "
        "extension, m), `pa`, `pb` (Pa), `PV.Q.i` (valve flow, m³/s), `strut.T`/`strut.U` "
        "(energies).")
    final = ("    import circuitsim\n"
             "    net = circuitsim.load(\"netlists/landing_gear.cir\")\n"
             "    res = net.simulate()\n"
             f"    res[\"TR.angle\"][-1]          # {angle:.4f} rad: "
             f"{np.degrees(angle):.1f} deg, the rod pressed into its end stop")
    studies = _paragraph(
        "`circuitsim run netlists/landing_gear.cir --all-studies --plot TR.angle` runs the "
        "netlist as written and each study and prints a comparison (steps, time, largest "
        "joint gap, force differences). Measured: position "
        f"{_n(base.stats['nsteps'])} steps, velocity {_n(fast.stats['nsteps'])} steps "
        f"(angles within {_bound(np.abs(base['TR.angle'] - fast['TR.angle']).max())} rad), "
        f"elastic {_n(soft.stats['nsteps'])} steps (the joints deflect by up to "
        f"{gap * 1e3:.2g} mm under the actuator's load; use it when the loop must survive "
        "jamming, not for speed).")
    servo = circuitsim.load(SERVO).simulate(report=True)
    m, se, heat = servo.measures.values, servo.report.energy, servo.report.heat
    edges = sum(w for name, w in se["losses"] if name.startswith("D."))
    servo_text = _paragraph(
        f"The rod follows the reference to {abs(m['err1']) * 1e3:.2g} mm before the second "
        f"move; the oil warms from 40 °C to {m['Tmax'] - 273.15:.3g} °C. The supply delivers "
        f"{se['W_in'] / 1e3:.3g} kJ, of which the valve's metering edges burn "
        f"{edges / 1e3:.3g} kJ and the leak {dict(se['losses'])['Lk']:.3g} J (the power "
        f"balance closes to within {_bound(se['relative'])}); {heat['Q_in'] / 1e3:.3g} kJ of heat "
        f"enter "
        f"the oil, {heat['Q_out']:.3g} J leave it to the air, and the oil keeps "
        f"{heat['dH'] / 1e3:.3g} kJ.")
    return {"power": power, "final": final, "studies": studies, "servo": servo_text}


def _bound(value: float) -> str:
    """A small difference as the power of ten above it (1e-06 for 3e-07): such figures
    vary by their own size between machines, their order does not."""
    return f"{10.0 ** math.ceil(math.log10(value)):.0e}" if value > 0 else "0"


def _paragraph(text: str) -> str:
    return textwrap.fill(text, width=89, break_on_hyphens=False)


def _n(count: int) -> str:
    """A count as the docs write it: 39 499."""
    return f"{count:,}".replace(",", " ")


def _numbers(text: str) -> list:
    return [float(m.replace(" ", "")) for m in NUMBER.findall(text)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="compare instead of rewriting")
    args = ap.parse_args(argv)
    fresh = figures()
    text = TUTORIAL.read_text(encoding="utf-8")
    found = {m.group(2): m.group(3) for m in BLOCK.finditer(text)}
    if set(found) != set(fresh):
        print(f"tutorial.md's figure blocks {sorted(found)} are not {sorted(fresh)}")
        return 1
    if args.check:
        stale = []
        for name, paragraph in fresh.items():
            written, now = _numbers(found[name]), _numbers(paragraph)
            if len(written) != len(now) or any(
                    abs(a - b) > TOLERANCE * max(abs(a), abs(b)) for a, b in zip(written, now)):
                stale.append(f"{name}: written {found[name].strip()!r}, now {paragraph!r}")
        for line in stale:
            print(line)
        return 1 if stale else 0
    TUTORIAL.write_text(BLOCK.sub(lambda m: m.group(1) + fresh[m.group(2)] + "\n" + m.group(4),
                                  text), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
