"""lag — first-order lag (a low-pass filter): Y(s)/U(s) = k/(tau·s + 1).

Ports
    in: input signal u (read, no flow drawn).
    out: output signal y (driven by this block; a differential unknown).
Parameters
    tau: time constant (s).
    k: static gain (default 1).
    y0: initial output (default 0).
Equations
    (1) tau·dy/dt + y − k·u = 0      row of out; the row of in is 0
Sign convention
    u = value of in, y = value of out (conventions.md §7).
Outputs
    none (the output is the node out).
Example
    ``lag F1 u uf tau=5ms``
"""
import numpy as np

from .base import ElementType
from .declarations import Param
from .signals import signal_in, signal_out


class Lag(ElementType):
    keyword = "lag"
    description = "first-order lag: tau·y' + y = k·u"
    ports = (signal_in("in"), signal_out())
    params = (Param("tau", "s", description="time constant", positive=True),
              Param("k", "1", default=1.0, description="static gain"),
              Param("y0", "1", default=0.0, description="initial output"))
    differential_vars = (1,)
    linear = True
    pattern = np.array([[0, 0], [1, 1]], dtype=bool)

    @classmethod
    def initial_potentials(cls, inst):
        return [(1, inst.params["y0"], None)]

    @classmethod
    def residual(cls, t, x, xp, p):
        out = np.zeros((x.shape[0], 2))
        out[:, 1] = p.tau * xp[:, 1] + x[:, 1] - p.k * x[:, 0]   # (1)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        n = x.shape[0]
        dfdx = np.zeros((n, 2, 2)); dfdxp = np.zeros((n, 2, 2))
        dfdx[:, 1, 0], dfdx[:, 1, 1] = -p.k, 1.0
        dfdxp[:, 1, 1] = p.tau
        return dfdx, dfdxp
