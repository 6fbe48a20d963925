"""fsense — flow sensor: in series between a and b (zero potential drop), it puts the
flow through it (a current, force, torque or volume flow) on a signal node.

Ports
    a, b: same physical domain (any); the flow goes from a through the sensor to b.
    out: output signal (driven by this block): the flow.
Parameters
    domain: the domain of a and b where no other element fixes it (default electrical).
Equations
    (1) p_a − p_b = 0         row of out: the sensor is a short circuit
    rows: a: +y, b: −y        the value y of out is the flow from a to b
Sign convention
    a ──(→)── b      y > 0 for a flow from a through the sensor to b, as a potential
                     source's i (conventions.md §1, §7).
Outputs
    none (the output is the node out).
Example
    ``fsense A1 n1 n2 cur``
"""
import numpy as np

from .base import ElementType
from .declarations import Port, domain_param
from .signals import signal_out


class FlowSensor(ElementType):
    keyword = "fsense"
    description = "flow sensor in series: y = flow from a to b, p_a = p_b"
    ports = (Port("a"), Port("b"), signal_out())
    params = (domain_param(),)
    linear = True
    pattern = np.array([[0, 0, 1], [0, 0, 1], [1, 1, 0]], dtype=bool)

    @classmethod
    def residual(cls, t, x, xp, p):
        y = x[:, 2]
        out = np.empty((x.shape[0], 3))
        out[:, 0], out[:, 1], out[:, 2] = y, -y, x[:, 0] - x[:, 1]   # (1)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        dfdx = np.zeros((x.shape[0], 3, 3))
        dfdx[:, 0, 2], dfdx[:, 1, 2] = 1.0, -1.0
        dfdx[:, 2, 0], dfdx[:, 2, 1] = 1.0, -1.0
        return dfdx, np.zeros_like(dfdx)
