"""Comparison of the studies of one netlist (joint-model variants, parameter changes).

Per study: steps, steps rejected by the error test (as the run line counts them) and
Newton failures, wall time, the largest joint gap (position-level violation), the
largest drift of the circuit's stored energy (for circuits that no source drives; for
driven ones the run report's power balance is the check), and the largest difference of
each joint force from the first study's, on the first study's time grid.
"""
from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from ..output.files import replaced_text

COLUMNS = ["study", "steps", "rejected", "newton_failures", "wall_s", "max_gap_m",
           "energy_drift", "max_force_diff_N"]


def energy_drift(result) -> float | None:
    """max |E(t) − E(0)| relative to the largest sum of |stored energies| seen (the
    energy that moves between kinetic and potential form); None without energy stores
    or when sources drive the circuit (then E changes by the work they do)."""
    E = result.diagnostics.get("energy")
    if E is None or len(E) == 0 or result.diagnostics.get("driven"):
        return None
    scale = max(result.diagnostics.get("energy_scale") or 0.0, 1e-300)
    return float(np.max(np.abs(E - E[0])) / scale)


def compare(results: dict, wall_times: dict) -> list[dict]:
    """One row per study (dicts keyed by COLUMNS); the first study is the reference."""
    names = list(results)
    ref = results[names[0]]
    rows = []
    for name in names:
        res = results[name]
        diffs = []
        for var, force in res.diagnostics["forces"].items():
            base = ref.diagnostics["forces"].get(var)
            if base is not None and len(res.t) and len(ref.t):
                diffs.append(np.max(np.abs(np.interp(ref.t, res.t, force) - base)))
        rows.append({"study": name, "steps": res.stats.get("nsteps", 0),
                     "rejected": res.stats.get("nfail_err", 0),
                     "newton_failures": res.stats.get("nfail_conv", 0),
                     "wall_s": wall_times.get(name, float("nan")),
                     "max_gap_m": res.diagnostics.get("gap_max"),
                     "energy_drift": energy_drift(res),
                     "max_force_diff_N": max(diffs) if diffs else None})
    return rows


def _cell(value) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


def table(rows: list[dict]) -> str:
    """The comparison as aligned text."""
    cells = [COLUMNS] + [[_cell(r[c]) for c in COLUMNS] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(COLUMNS))]
    return "\n".join("  ".join(v.rjust(w) for v, w in zip(row, widths)) for row in cells)


def write_csv(rows: list[dict], path) -> Path:
    with replaced_text(path) as (text, target):
        writer = csv.DictWriter(text, fieldnames=COLUMNS)
        writer.writeheader()
        for r in rows:
            writer.writerow({c: ("" if r[c] is None else r[c]) for c in COLUMNS})
    return target
