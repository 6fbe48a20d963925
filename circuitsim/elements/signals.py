"""Shared pieces of the control blocks (gain, sum, lag, tf, integ, pid, sat, deadzone,
the sensors and the signal sources): signal ports and the limit ramp.

A signal port is in the ``signal`` domain and alone in its port group (a block joins no
two nodes: each signal node is tied to its one driving output, conventions.md §7). The
row of an input port is 0 (a block reads its inputs without drawing flow); the row of
an output port is the block's equation for its output value.
"""
from __future__ import annotations

import numpy as np

from .declarations import SIGNAL, Param, Port


def signal_in(name: str, description: str = "input signal") -> Port:
    return Port(name, (SIGNAL,), group=name, description=description)


def signal_out(name: str = "out", description: str = "output signal") -> Port:
    return Port(name, (SIGNAL,), group=name, description=description, output=True)


def limit_params(what: str = "output") -> tuple:
    return (Param("lower", "1", default=-np.inf, description=f"lower limit of the {what}"),
            Param("upper", "1", default=np.inf, description=f"upper limit of the {what}"))


def check_limits(inst, keyword: str) -> None:
    from ..errors import ModelError
    lo, hi = inst.params.get("lower", -np.inf), inst.params.get("upper", np.inf)
    if not lo < hi:
        raise ModelError(f"{keyword} {inst.name}: lower ({lo:g}) must be below upper "
                         f"({hi:g})", inst.loc)


def band(p) -> np.ndarray:
    """The width δ of the clamp ramps of the integrators (integ, pid): 1e-9 of the
    larger finite limit, at least 1e-9."""
    lo = np.where(np.isfinite(p.lower), np.abs(p.lower), 0.0)
    hi = np.where(np.isfinite(p.upper), np.abs(p.upper), 0.0)
    return 1e-9 * np.maximum(1.0, np.maximum(lo, hi))


def ramp(z: np.ndarray, delta: np.ndarray) -> tuple:
    """w = clip(z/δ + 1, 0, 1) and dw/dz: 0 for z ≤ −δ, 1 for z ≥ 0, linear between.
    With z = s − upper it switches a clamped integrator off just below its limit,
    continuously (so that a step across the limit has a solution)."""
    u = z / delta + 1.0
    inside = (u > 0.0) & (u < 1.0)
    return np.clip(u, 0.0, 1.0), np.where(inside, 1.0 / delta, 0.0)


def data_table(inst, keyword: str, function: str):
    """The table of a lookup block's ``data={table(u, file=...)}`` (``function``
    'table' or 'table2'): the expression must be that one call, its file read where
    the netlist was loaded (runtime/tables.py). Raises ModelError at the parameter."""
    from ..errors import ModelError
    from ..runtime.expressions import Func
    from ..runtime.tables import Table1D, Table2D
    tree = inst.params["data"]
    kind = Table1D if function == "table" else Table2D
    if not (isinstance(tree, Func) and tree.name == function
            and isinstance(tree.table, kind)):
        args = "u" if function == "table" else "u1, u2"
        raise ModelError(f'{keyword} {inst.name}: data= takes one {function}() call, like '
                         f'data={{{function}({args}, file="data.csv")}}',
                         inst.param_locs.get("data", inst.loc))
    return tree.table


def inline_or_data(inst, keyword: str, inline: tuple):
    """Whether a lookup block is given by its inline points (the parameters ``inline``)
    or by ``data=`` (exactly one of the two); raises ModelError naming the block."""
    from ..errors import ModelError
    given = [name for name in inline if inst.params.get(name) is not None]
    if inst.params.get("data") is not None:
        if given:
            raise ModelError(f"{keyword} {inst.name}: give the points "
                             f"({', '.join(inline)}) or data=, not both",
                             inst.param_locs.get("data", inst.loc))
        return False
    if len(given) != len(inline):
        raise ModelError(f"{keyword} {inst.name} needs {'=, '.join(inline)}= (the points) "
                         "or data={...} (a table from a file)", inst.loc)
    return True
