"""lookup2 — a 2-D lookup table (a map): y = f(u1, u2), from a grid written inline or
from a CSV map.

Ports
    in1, in2: input signals u1 (the map's rows) and u2 (its columns) (read, no flow).
    out: output signal y (driven by this block).
Parameters
    x1, x2: the breakpoints of u1 and u2 (each strictly increasing, at least two).
    z: the values, row by row: z[i·len(x2) + j] at (x1_i, x2_j).
    data: instead of x1, x2 and z, the expression function table2() on a CSV map:
        ``data={table2(u1, u2, file="map.csv")}`` (the first row the u2 breakpoints
        after a corner cell, each further row a u1 breakpoint and its values; read
        where the netlist is loaded, header units to SI); its arguments stand for the
        inputs and are written u1, u2.
Equations
    (1) y − f(u1, u2) = 0       row of out; the rows of in1 and in2 are 0
    f is bilinear in each cell, f(x1_i, x2_j) = z_ij, and holds its edge values outside
    the grid. Its Jacobian is the map's partial derivatives: in a cell's interior the
    bilinear form's, on a grid line the cell above (to the right), 0 outside the grid.
Sign convention
    u1, u2 = values of in1, in2; y = value of out (conventions.md §7).
Outputs
    none (the output is the node out).
Example
    ``lookup2 M1 w i tau x1=(0, 100) x2=(0, 10) z=(0, 0.5, 0, 0.4)``
"""
import numpy as np

from ..errors import ModelError
from ..runtime.tables import Table2D
from .base import ElementType
from .declarations import Param
from .signals import data_table, inline_or_data, signal_in, signal_out


class LookupMap(ElementType):
    keyword = "lookup2"
    description = "2-D lookup table (a map) y = f(u1, u2): inline grid or a CSV map"
    ports = (signal_in("in1"), signal_in("in2"), signal_out())
    params = (Param("x1", "1", default=None, description="breakpoints of u1 (rows)",
                    kind="vector", size=0),
              Param("x2", "1", default=None, description="breakpoints of u2 (columns)",
                    kind="vector", size=0),
              Param("z", "1", default=None, description="values, row by row",
                    kind="vector", size=0),
              Param("data", "1", default=None, kind="expr",
                    description="a map from a file: {table2(u1, u2, file=\"m.csv\")}"))
    pattern = np.array([[0, 0, 0], [0, 0, 0], [1, 1, 1]], dtype=bool)

    @classmethod
    def _table(cls, inst) -> Table2D:
        if not inline_or_data(inst, "lookup2", ("x1", "x2", "z")):
            return data_table(inst, "lookup2", "table2")
        x1, x2, z = (np.atleast_1d(inst.params[k]).astype(float) for k in ("x1", "x2", "z"))
        if (len(x1) < 2 or len(x2) < 2 or len(z) != len(x1) * len(x2)
                or not np.all(np.diff(x1) > 0) or not np.all(np.diff(x2) > 0)):
            raise ModelError(f"lookup2 {inst.name}: x1 and x2 need 2 or more strictly "
                             f"increasing values and z len(x1)·len(x2) = "
                             f"{len(x1) * len(x2)} values (got {len(z)})",
                             inst.param_locs.get("z", inst.loc))
        return Table2D(x1, x2, z.reshape(len(x1), len(x2)),
                       key=("lookup2", tuple(x1), tuple(x2), tuple(z)), text="lookup2")

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
        return SimpleNamespace(f=f, d1=f.partial(0), d2=f.partial(1))

    @classmethod
    def residual(cls, t, x, xp, p):
        out = np.zeros((x.shape[0], 3))
        out[:, 2] = x[:, 2] - p.f(x[:, 0], x[:, 1])                 # (1)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        dfdx = np.zeros((x.shape[0], 3, 3))
        dfdx[:, 2, 0] = -p.d1(x[:, 0], x[:, 1])
        dfdx[:, 2, 1] = -p.d2(x[:, 0], x[:, 1])
        dfdx[:, 2, 2] = 1.0
        return dfdx, np.zeros_like(dfdx)

    @classmethod
    def sample_params(cls, rng):
        return {"x1": np.array([-1.0, 0.5, 2.0]), "x2": np.array([-0.5, 1.5]),
                "z": np.array([0.0, 1.0, 2.0, -1.0, 0.5, 3.0])}
