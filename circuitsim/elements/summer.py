"""sum — the weighted (signed) sum of two signals (a comparison point: e = r − y).

Ports
    in1, in2: input signals (read, no flow drawn).
    out: output signal (driven by this block).
Parameters
    k1, k2: the signs (or weights) of in1 and in2 (default +1 and −1: y = u1 − u2).
Equations
    (1) y − (k1·u1 + k2·u2) = 0        row of out; the rows of in1 and in2 are 0
Sign convention
    the default k1 = 1, k2 = −1 gives the error y = u1 − u2 (conventions.md §7).
Outputs
    none (the output is the node out).
Example
    ``sum E1 ref meas e``  (e = ref − meas; k2=1 adds them)
"""
import numpy as np

from .base import ElementType
from .declarations import Param
from .signals import signal_in, signal_out

class Sum(ElementType):
    keyword = "sum"
    description = "weighted sum of two signals: y = k1·u1 + k2·u2"
    ports = (signal_in("in1"), signal_in("in2"), signal_out())
    params = (Param("k1", "1", default=1.0, description="sign (weight) of in1"),
              Param("k2", "1", default=-1.0, description="sign (weight) of in2"))
    linear = True
    pattern = np.array([[0, 0, 0], [0, 0, 0], [1, 1, 1]], dtype=bool)

    @classmethod
    def residual(cls, t, x, xp, p):
        out = np.zeros((x.shape[0], 3))
        out[:, 2] = x[:, 2] - p.k1 * x[:, 0] - p.k2 * x[:, 1]    # (1)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        dfdx = np.zeros((x.shape[0], 3, 3))
        dfdx[:, 2, 0], dfdx[:, 2, 1], dfdx[:, 2, 2] = -p.k1, -p.k2, 1.0
        return dfdx, np.zeros_like(dfdx)
