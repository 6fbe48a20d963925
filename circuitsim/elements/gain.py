"""gain — a signal times a constant.

Ports
    in: input signal (read, no flow drawn).
    out: output signal (driven by this block).
Parameters
    k: the gain (dimensionless unless the signals carry units).
Equations
    (1) y − k·u = 0          row of out; the row of in is 0
Sign convention
    u = value of in, y = value of out (conventions.md §7).
Outputs
    none (the output is the node out).
Example
    ``gain G1 e u k=2.5``
"""
import numpy as np

from .base import ElementType
from .declarations import Param
from .signals import signal_in, signal_out


class Gain(ElementType):
    keyword = "gain"
    description = "signal gain: y = k·u"
    ports = (signal_in("in"), signal_out())
    params = (Param("k", "1", default=1.0, description="gain"),)
    positional_param = "k"
    linear = True
    pattern = np.array([[0, 0], [1, 1]], dtype=bool)

    @classmethod
    def residual(cls, t, x, xp, p):
        out = np.zeros((x.shape[0], 2))
        out[:, 1] = x[:, 1] - p.k * x[:, 0]                      # (1)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        dfdx = np.zeros((x.shape[0], 2, 2))
        dfdx[:, 1, 0], dfdx[:, 1, 1] = -p.k, 1.0
        return dfdx, np.zeros_like(dfdx)
