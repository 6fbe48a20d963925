"""Helpers shared by the tests: where the repository's files are (independent of the
working directory), loading a shipped netlist, zero crossings of a recorded signal and
errors in units of a tolerance. Imported as ``from helpers import ...`` (conftest.py
puts this directory on sys.path)."""
from __future__ import annotations

from pathlib import Path

import numpy as np

import circuitsim

REPO = Path(__file__).resolve().parent.parent      # the repository root
NETLISTS = REPO / "netlists"                        # the shipped example netlists
LIBRARY = REPO / "library"                          # the component library (.lib files)


def netlist_path(name: str) -> Path:
    """Absolute path of the shipped netlist ``name`` (``"fourbar.cir"`` or ``"fourbar"``)."""
    path = NETLISTS / name
    if not path.suffix:
        path = path.with_suffix(".cir")
    if not path.is_file():
        raise FileNotFoundError(f"no shipped netlist {path}")
    return path


def netlist_text(name: str) -> str:
    """The text of the shipped netlist ``name``."""
    return netlist_path(name).read_text()


def load_netlist(name: str) -> "circuitsim.Netlist":
    """``circuitsim.load`` of the shipped netlist ``name``."""
    return circuitsim.load(netlist_path(name))


def zero_crossings(t, x, direction: int = 0) -> np.ndarray:
    """Times where x(t) changes sign, by linear interpolation between the two samples on
    either side. ``direction`` +1: upward crossings only (x <= 0 then x > 0), -1: downward
    only, 0: both. A sample exactly at 0 is on the non-positive side."""
    t, x = np.asarray(t, dtype=float), np.asarray(x, dtype=float)
    pos = x > 0
    up, down = ~pos[:-1] & pos[1:], pos[:-1] & ~pos[1:]
    mask = up if direction > 0 else down if direction < 0 else up | down
    i = np.flatnonzero(mask)
    return t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])


def tolerance_units(err, ref, rtol, atol) -> float:
    """max |err| / (rtol·|ref| + atol): an error in units of the solver's tolerance
    (arrays broadcast: ``atol`` may be per component, ``ref`` a scalar scale)."""
    return float(np.max(np.abs(err) / (rtol * np.abs(ref) + atol)))


def relative_error(sim, exact) -> float:
    """max |sim − exact| / max |exact|: an error relative to the signal's amplitude."""
    return float(np.max(np.abs(sim - exact)) / np.max(np.abs(exact)))


def relerr(got, want) -> float:
    """The largest relative error of ``got`` against ``want`` (elementwise, want != 0)."""
    return float(np.max(np.abs(np.asarray(got) / np.asarray(want) - 1.0)))


def parse_by_tree_route(text, filename="f.cir"):
    """The netlist parser's tree route only (Lark for every line): with the fast route
    busy, parse() takes it. For comparing the two routes' ASTs."""
    from circuitsim.netlist import parser
    assert parser._FAST_LOCK.acquire(blocking=False)
    try:
        return parser.parse(text, filename)
    finally:
        parser._FAST_LOCK.release()
