"""lookup — a 1-D lookup table: y = f(u), from points written inline or from a CSV
table.

Ports
    in: input signal u (read, no flow drawn).
    out: output signal y (driven by this block).
Parameters
    x, y: the breakpoints (strictly increasing, at least two) and the values at them.
    interp: ``linear`` (default: straight lines between points) or ``spline`` (the
        monotone cubic, PCHIP: continuous slope, no overshoot).
    extrap: ``clamp`` (default: the end values held outside the points) or ``linear``
        (the end segments continued; the cubic's end slopes with spline).
    data: instead of x and y, the expression function table() on a CSV file:
        ``data={table(u, file="valve.csv", column=flow, interp=spline)}``, read where
        the netlist is loaded (header units to SI, errors at the file's line); its
        argument stands for the input and is written u; interp and extrap are then
        the call's.
Equations
    (1) y − f(u) = 0        row of out; the row of in is 0
    f is piecewise linear (or cubic) through the points; its Jacobian is the table's
    slope, at a breakpoint the slope of the segment to its right (at the last point
    the extrapolation's: 0 with clamp).
Sign convention
    u = value of in, y = value of out (conventions.md §7).
Outputs
    none (the output is the node out).
Example
    ``lookup L1 u y x=(0, 1, 2) y=(0, 0.5, 2)``
"""
import numpy as np

from ..errors import ModelError
from ..runtime.tables import EXTRAPOLATIONS, INTERPOLATIONS, Table1D
from .base import ElementType
from .declarations import Param
from .signals import data_table, inline_or_data, signal_in, signal_out


class LookupTable(ElementType):
    keyword = "lookup"
    description = "1-D lookup table y = f(u): inline points or a CSV table"
    ports = (signal_in("in"), signal_out())
    params = (Param("x", "1", default=None, description="breakpoints of the input",
                    kind="vector", size=0),
              Param("y", "1", default=None, description="values at the breakpoints",
                    kind="vector", size=0),
              Param("interp", "1", default="linear", kind="choice", choices=INTERPOLATIONS,
                    description="between points: linear, or spline (monotone cubic)"),
              Param("extrap", "1", default="clamp", kind="choice", choices=EXTRAPOLATIONS,
                    description="outside the points: clamp (end values) or linear"),
              Param("data", "1", default=None, kind="expr",
                    description="a table from a file: {table(u, file=\"f.csv\")}"))
    pattern = np.array([[0, 0], [1, 1]], dtype=bool)

    @classmethod
    def _table(cls, inst) -> Table1D:
        if not inline_or_data(inst, "lookup", ("x", "y")):
            return data_table(inst, "lookup", "table")
        x, y = (np.atleast_1d(inst.params[k]).astype(float) for k in ("x", "y"))
        if len(x) != len(y) or len(x) < 2 or not np.all(np.diff(x) > 0):
            raise ModelError(f"lookup {inst.name}: x and y need the same number (2 or more) "
                             f"of values, x strictly increasing (got {len(x)} and {len(y)})",
                             inst.param_locs.get("x", inst.loc))
        return Table1D(x, y, inst.params.get("interp", "linear"),
                       inst.params.get("extrap", "clamp"),
                       key=("lookup", tuple(x), tuple(y)), text="lookup")

    @classmethod
    def check(cls, inst):
        cls._table(inst)

    @classmethod
    def group_key(cls, inst):
        return (cls._table(inst),)

    @classmethod
    def prepare(cls, instances):
        from types import SimpleNamespace
        f = cls._table(instances[0])
        return SimpleNamespace(f=f, df=f.derivative())

    @classmethod
    def residual(cls, t, x, xp, p):
        out = np.zeros((x.shape[0], 2))
        out[:, 1] = x[:, 1] - p.f(x[:, 0])                         # (1)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        dfdx = np.zeros((x.shape[0], 2, 2))
        dfdx[:, 1, 0] = 0.0 if p.df is None else -p.df(x[:, 0])
        dfdx[:, 1, 1] = 1.0
        return dfdx, np.zeros_like(dfdx)

    @classmethod
    def sample_params(cls, rng):
        return {"x": np.array([-1.0, 0.0, 0.5, 2.0]), "y": np.array([0.5, 0.0, 1.0, 0.7])}

    @classmethod
    def sample_variants(cls):
        return [{}, {"interp": "spline", "extrap": "linear"}]
