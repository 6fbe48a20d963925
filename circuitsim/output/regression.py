"""Regression against a golden run: two results compared variable by variable.

Every variable of the golden (reference) result is looked up in the tested one and
compared at the golden's times, the tested values interpolated linearly in time (at a
time the golden holds twice, a jump, the first is compared with the tested result's
value from the left and the second with its value from the right). A variable passes
when

    max_i |x_tested(t_i) - x_golden(t_i)| <= rtol * range + atol,

``range`` the golden's max - min of that variable (its largest magnitude if it is
constant). The result fails when a variable fails, when a golden variable is missing
from the tested result, or when the tested result does not cover the golden's time span.
Variables only the tested result holds are listed, not failed.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

RTOL = 1e-3          # of each variable's range: the default tolerance
ATOL = 1e-12         # in the variable's unit: what a variable that is 0 throughout allows
SPAN_SLACK = 1e-9    # relative: end times that differ by rounding cover each other
SHOWN = 10           # variables listed in the text, worst first


@dataclass
class Difference:
    """One variable's worst deviation: at ``time`` the tested ``value`` against the
    golden's ``golden``; ``allowed`` the variable's tolerance."""
    name: str
    time: float
    value: float
    golden: float
    allowed: float

    @property
    def error(self) -> float:
        return abs(self.value - self.golden)

    @property
    def ratio(self) -> float:
        """The deviation in tolerances (over 1: the variable fails)."""
        if not np.isfinite(self.error):
            return np.inf
        return self.error / self.allowed if self.allowed > 0 else (
            0.0 if self.error == 0 else np.inf)


@dataclass
class Comparison:
    """What ``compare`` found: ``differences`` (every common variable, worst first),
    ``missing`` (golden variables the tested result lacks), ``extra`` (tested variables
    the golden lacks), ``span`` (why the times do not cover each other, or "")."""
    rtol: float
    atol: float
    times: int
    differences: list = field(default_factory=list)
    missing: list = field(default_factory=list)
    extra: list = field(default_factory=list)
    span: str = ""

    @property
    def failed(self) -> list:
        return [d for d in self.differences if not d.ratio <= 1.0]

    @property
    def passed(self) -> bool:
        return not (self.failed or self.missing or self.span)

    def text(self, tested: str = "the run", golden: str = "the golden file") -> str:
        """The verdict, then the worst variables as a table."""
        head = (f"{tested} against {golden}: {len(self.differences)} variables at "
                f"{self.times} times, tolerance {self.rtol:g} of each variable's range"
                + (f" + {self.atol:g}" if self.atol != ATOL else ""))
        lines = [head]
        if self.span:
            lines.append(f"FAILED: {self.span}")
        if self.missing:
            lines.append(f"FAILED: not in {tested}: {', '.join(self.missing)}")
        if self.failed:
            lines.append(f"FAILED: {len(self.failed)} of {len(self.differences)} variables "
                         f"differ by more than their tolerance")
        elif self.passed:
            worst = self.differences[0] if self.differences else None
            lines.append("passed" + (f": the closest to its tolerance is {worst.name}, "
                                     f"{worst.ratio:.3g} of it at t = {worst.time:.6g} s"
                                     if worst else ""))
        shown = self.failed[:SHOWN] if self.failed else []
        if shown:
            lines.append(_table(shown))
            if len(self.failed) > SHOWN:
                lines.append(f"  ... and {len(self.failed) - SHOWN} more")
        if self.extra:
            lines.append(f"not in {golden} (not compared): {', '.join(self.extra[:SHOWN])}"
                         + (f" and {len(self.extra) - SHOWN} more"
                            if len(self.extra) > SHOWN else ""))
        return "\n".join(lines)


def compare(tested, golden, rtol: float = RTOL, atol: float = ATOL) -> Comparison:
    """Compare the Result ``tested`` with the Result ``golden`` (see the module)."""
    if not (rtol >= 0 and atol >= 0):
        raise ValueError(f"tolerances must be >= 0, got rtol={rtol}, atol={atol}")
    t_gold = np.asarray(golden.t, dtype=float)
    t_test = np.asarray(tested.t, dtype=float)
    result = Comparison(rtol, atol, len(t_gold))
    result.missing = [n for n in golden.names if n not in tested]
    result.extra = [n for n in tested.names if n not in golden]
    result.span = _span(t_test, t_gold)
    if result.span or not len(t_gold):
        return result
    sides = _sides(t_gold)
    for name in golden.names:
        if name not in tested:
            continue
        ref = np.asarray(golden[name], dtype=float)
        values = _interpolate(t_test, np.asarray(tested[name], dtype=float), t_gold, sides)
        error = np.abs(values - ref)
        error[np.isnan(error) & ~(np.isnan(values) & np.isnan(ref))] = np.inf
        error[np.isnan(error)] = 0.0                   # NaN in both: the same
        i = int(np.argmax(error))
        result.differences.append(Difference(name, float(t_gold[i]), float(values[i]),
                                             float(ref[i]), rtol * _scale(ref) + atol))
    result.differences.sort(key=lambda d: -d.ratio)
    return result


def _span(t_test, t_gold) -> str:
    """Why the tested times do not cover the golden's, or ""."""
    if not len(t_gold):
        return ""
    if not len(t_test):
        return "the tested result holds no points"
    slack = SPAN_SLACK * max(abs(t_gold[0]), abs(t_gold[-1]), t_gold[-1] - t_gold[0], 1e-300)
    if t_test[0] > t_gold[0] + slack or t_test[-1] < t_gold[-1] - slack:
        return (f"the tested result covers t = {t_test[0]:.6g} .. {t_test[-1]:.6g} s, the "
                f"golden t = {t_gold[0]:.6g} .. {t_gold[-1]:.6g} s")
    return ""


def _scale(ref) -> float:
    """The variable's range over the golden run (its largest magnitude if constant)."""
    finite = ref[np.isfinite(ref)]
    if not len(finite):
        return 0.0
    span = float(finite.max() - finite.min())
    return span if span > 0 else float(np.abs(finite).max())


def _sides(t) -> np.ndarray:
    """Per golden time, the side from which the tested result is read: "right" for the
    second of two equal times (the value after a jump), else "left"."""
    right = np.zeros(len(t), dtype=bool)
    right[1:] = t[1:] == t[:-1]
    return right


def _interpolate(t, x, tq, right) -> np.ndarray:
    """x(t) at the times ``tq`` (inside [t0, tn]): linear between the tested points,
    from the left at a repeated tested time unless ``right``."""
    if len(t) == 1:
        return np.full(len(tq), x[0])
    tq = np.clip(tq, t[0], t[-1])
    idx = np.where(right, np.searchsorted(t, tq, "right"), np.searchsorted(t, tq, "left"))
    idx = np.clip(idx, 1, len(t) - 1)
    lo, hi = idx - 1, idx
    width = t[hi] - t[lo]
    w = np.divide(tq - t[lo], width, out=np.ones_like(tq), where=width > 0)
    w = np.clip(w, 0.0, 1.0)
    return x[lo] + w * (x[hi] - x[lo])


def _table(rows) -> str:
    header = ("variable", "at t (s)", "value", "golden", "|difference|", "allowed",
              "x allowed")
    body = [(d.name, f"{d.time:.6g}", f"{d.value:.6g}", f"{d.golden:.6g}",
             f"{d.error:.3g}", f"{d.allowed:.3g}", f"{d.ratio:.3g}") for d in rows]
    widths = [max(len(r[k]) for r in [header] + body) for k in range(len(header))]
    return "\n".join("  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip()
                     for r in [header] + body)
