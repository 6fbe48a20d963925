"""The ``.measure`` values of a run, taken from its recorded points (circuitsim.netlist.
measures reads the lines).

Between recorded points a value is interpolated: an extremum inside the window by the
parabola through the largest (smallest) point and its two neighbours (its error falls
as the cube of the output interval, where the sampled maximum's falls as its square),
a value at an instant and a crossing by the cubic through the four nearest points, an
integral by the trapezoid rule (error ~ interval²/12·|y''|). A
measure that cannot be taken (a crossing that does not happen, a window outside the
run) is NaN, with the reason in ``why``.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..runtime import expressions

_trapezoid = getattr(np, "trapezoid", None) or np.trapz   # numpy < 2 has only trapz
CROSSING_ITERATIONS = 4   # regula falsi steps on the cubic: its root to rounding at ms grids


@dataclass
class Measures:
    """Values by measure name, in the netlist's order; ``why`` names the reason of each
    NaN; ``units`` the SI unit where one follows from a plain variable (or a time)."""
    values: dict = field(default_factory=dict)
    units: dict = field(default_factory=dict)
    why: dict = field(default_factory=dict)

    def text(self) -> str:
        width = max((len(n) for n in self.values), default=0)
        lines = []
        for name, value in self.values.items():
            unit = f" {self.units[name]}" if self.units.get(name) else ""
            reason = f"  ({self.why[name]})" if name in self.why else ""
            lines.append(f"  {name:<{width}} = {value:.10g}{unit}{reason}")
        return "measures:\n" + "\n".join(lines)


def by_case(results: dict) -> dict:
    """The measures of several runs as columns: ``case``, the swept parameters (SI),
    then each measure (NaN where a case lacks it): {column: list}."""
    runs = {name: res for name, res in results.items() if res.measures is not None}
    swept = list(dict.fromkeys(p for res in runs.values() for p in res.parameters))
    names = list(dict.fromkeys(n for res in runs.values() for n in res.measures.values))
    table = {"case": list(runs)}
    table.update({p: [res.parameters.get(p, float("nan")) for res in runs.values()]
                  for p in swept})
    table.update({n: [res.measures.values.get(n, float("nan")) for res in runs.values()]
                  for n in names})
    return table


def table_text(table: dict) -> str:
    """``by_case``'s columns as an aligned text table."""
    header = list(table)
    rows = [[str(v) if isinstance(v, str) else f"{v:.8g}" for v in row]
            for row in zip(*table.values())]
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(header, widths))]
    lines += ["  ".join(v.rjust(w) for v, w in zip(r, widths)) for r in rows]
    return "measures by case:\n" + "\n".join(lines)


def evaluate(specs: list, t: np.ndarray, column, units: dict) -> Measures:
    """The measures ``specs`` of the points ``t`` (s); ``column(name)``: a recorded
    variable's values at them; ``units``: SI units by variable name."""
    out = Measures()
    for m in specs:
        try:
            value, unit = _one(m, t, column, units, out.values)
        except _NotTaken as exc:
            value, unit = float("nan"), None
            out.why[m.name] = str(exc)
        out.values[m.name] = float(value)
        if unit:
            out.units[m.name] = unit
    return out


class _NotTaken(Exception):
    """Why a measure has no value."""


def _one(m, t, column, units: dict, done: dict) -> tuple:
    if m.kind == "param":
        return _known(m.tree, done), None
    env = {name: column(name) for name in m.variables}
    env["time"] = t
    y = np.broadcast_to(np.asarray(expressions.evaluate(m.tree, env), dtype=float), t.shape)
    unit = units.get(m.tree.name) if isinstance(m.tree, expressions.Name) else None
    unit = None if unit == "1" else unit                 # a signal's value: no unit shown
    if m.kind == "at":
        return _cubic(t, y, _instant(m.times["at"], done, t)), unit
    lo, hi = (_instant(m.times.get(key, default), done, t)
              for key, default in (("from", t[0]), ("to", t[-1])))
    if not lo < hi:
        raise _NotTaken(f"an empty window, from {lo:g} to {hi:g} s")
    if m.kind == "integ":
        tw, yw = _window(t, y, lo, hi)
        return float(_trapezoid(yw, tw)), (f"{unit}*s" if unit else None)
    if m.kind == "when":
        return _crossing(t, y, lo, hi, m.cross, m.n), "s"
    sign = 1.0 if m.kind in ("max", "argmax") else -1.0
    t_peak, peak = _extremum(t, sign * y, lo, hi)
    return (t_peak, "s") if m.kind.startswith("arg") else (sign * peak, unit)


def _known(tree, done: dict) -> float:
    """A formula of measures taken: NaN if one of them is."""
    value = expressions.evaluate(tree, done)
    if not np.isfinite(value):
        raise _NotTaken("it needs a measure that was not taken")
    return float(value)


def _instant(value, done: dict, t) -> float:
    if not isinstance(value, float):
        value = _known(value, done)
    if not t[0] <= value <= t[-1]:
        raise _NotTaken(f"t = {value:g} s is outside the run, {t[0]:g} .. {t[-1]:g} s")
    return value


def _window(t, y, lo: float, hi: float) -> tuple:
    """The points in [lo, hi], the ends interpolated in."""
    inside = (t > lo) & (t < hi)
    tw = np.concatenate([[lo], t[inside], [hi]])
    return tw, np.interp(tw, t, y)


def _crossing(t, y, lo: float, hi: float, cross: str, n: int) -> float:
    """The n-th time y crosses 0 within [lo, hi] in the direction ``cross``."""
    tw, yw = _window(t, y, lo, hi)
    a, b = yw[:-1], yw[1:]
    rising = (a < 0) & (b >= 0)
    falling = (a > 0) & (b <= 0)
    hits = {"rise": rising, "fall": falling, "either": rising | falling}[cross]
    found = np.flatnonzero(hits)
    if len(found) < n:
        raise _NotTaken(f"crosses 0 ({cross}) {len(found)} time(s) in {lo:g} .. {hi:g} s, "
                        f"not {n}")
    k = found[n - 1]
    t0, t1 = tw[k], tw[k + 1]
    tc = t0 + (t1 - t0) * a[k] / (a[k] - b[k])          # linear, then the cubic's root
    for _ in range(CROSSING_ITERATIONS):
        y0, y1 = _cubic(t, y, t0), _cubic(t, y, t1)
        yc = _cubic(t, y, tc)
        if yc == 0 or y0 == y1:
            break
        t0, t1 = (t0, tc) if (yc > 0) == (y1 > y0) else (tc, t1)   # keep the bracket
        tc = t0 + (t1 - t0) * _cubic(t, y, t0) / (_cubic(t, y, t0) - _cubic(t, y, t1))
    return float(tc)


def _cubic(t, y, tq: float) -> float:
    """y at tq by the cubic (Lagrange) through the four recorded points nearest it."""
    if len(t) < 4:
        return float(np.interp(tq, t, y))
    k = int(np.clip(np.searchsorted(t, tq) - 2, 0, len(t) - 4))
    ts, ys = t[k:k + 4], y[k:k + 4]
    if len(np.unique(ts)) < 4:               # a jump recorded twice: linear across it
        return float(np.interp(tq, t, y))
    value = 0.0
    for i in range(4):
        others = np.delete(ts, i)
        value += ys[i] * np.prod((tq - others) / (ts[i] - others))
    return float(value)


def _extremum(t, y, lo: float, hi: float) -> tuple:
    """(time, value) of the largest y in [lo, hi]: at a window end as interpolated,
    inside it the vertex of the parabola through the largest point and its neighbours."""
    tw, yw = _window(t, y, lo, hi)
    k = int(np.argmax(yw))
    if 0 < k < len(tw) - 1:
        vertex = _vertex(tw[k - 1:k + 2], yw[k - 1:k + 2])
        if vertex is not None:
            return vertex
    return float(tw[k]), float(yw[k])


def _vertex(ts, ys):
    """The vertex of the parabola through three points (None if they are collinear or it
    lies outside them)."""
    (t0, t1, t2), (y0, y1, y2) = ts, ys
    d01, d12 = (y1 - y0) / (t1 - t0), (y2 - y1) / (t2 - t1)
    curvature = (d12 - d01) / (t2 - t0)          # half the second derivative
    if not curvature < 0:
        return None
    tv = 0.5 * (t0 + t1) - d01 / (2 * curvature)
    if not t0 <= tv <= t2:
        return None
    return float(tv), float(y1 + d01 * (tv - t1) + curvature * (tv - t0) * (tv - t1))
