"""psense — potential sensor: puts p_a − p_b (a voltage, speed, angular velocity or
pressure difference) on a signal node, drawing no flow.

Ports
    a, b: same physical domain (any), read without drawing flow.
    out: output signal (driven by this block).
Parameters
    k: scale factor of the reading (default 1).
    domain: the domain of a and b where no other element fixes it (default electrical).
Equations
    (1) y − k·(p_a − p_b) = 0       row of out; the rows of a and b are 0
Sign convention
    y > 0 when p_a > p_b (conventions.md §1, §7); with b = 0 it reads p_a.
Outputs
    none (the output is the node out).
Example
    ``psense W1 w 0 meas``
"""
import numpy as np

from .base import ElementType
from .declarations import Param, Port, domain_param
from .signals import signal_out


class PotentialSensor(ElementType):
    keyword = "psense"
    description = "potential sensor: y = k·(p_a − p_b), no flow drawn"
    ports = (Port("a"), Port("b"), signal_out())
    params = (Param("k", "1", default=1.0, description="scale factor"), domain_param())
    linear = True
    pattern = np.array([[0, 0, 0], [0, 0, 0], [1, 1, 1]], dtype=bool)

    @classmethod
    def residual(cls, t, x, xp, p):
        out = np.zeros((x.shape[0], 3))
        out[:, 2] = x[:, 2] - p.k * (x[:, 0] - x[:, 1])          # (1)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        dfdx = np.zeros((x.shape[0], 3, 3))
        dfdx[:, 2, 0], dfdx[:, 2, 1], dfdx[:, 2, 2] = -p.k, p.k, 1.0
        return dfdx, np.zeros_like(dfdx)
