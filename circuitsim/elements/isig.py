"""isig — signal-driven flow source (a current, force, torque or volume flow set by a
controller): the flow k·s from a through the source to b.

Ports
    a, b: same physical domain (any).
    ctl: the controlling signal s (read, no flow drawn).
Parameters
    k: flow per unit of signal (A, N, N·m or m³/s; default 1).
    domain: the domain of a and b where no other element fixes it (default electrical).
Equations
    (1) f = k·s               rows: a: +f, b: −f, ctl: 0
Sign convention
    a ──(→)── b      as the flow source I: with a = 0 it pushes f into b (a force or
                     torque on b; conventions.md §1, §7).
Outputs
    none.
Example
    ``isig T1 0 w u k=0.5 domain=rotational``  (a torque of 0.5 N·m per unit of u on w)
"""
import numpy as np

from .base import ElementType
from .declarations import Param, Port, domain_param
from .resistor import _FLOW
from .signals import signal_in


class SignalFlowSource(ElementType):
    keyword = "isig"
    description = "signal-driven flow source: f = k·s from a to b"
    ports = (Port("a"), Port("b"), signal_in("ctl", "controlling signal s"))
    params = (Param("k", _FLOW, default=1.0, description="flow per unit signal"),
              domain_param())
    imposes = "flow"
    linear = True
    pattern = np.array([[0, 0, 1], [0, 0, 1], [0, 0, 0]], dtype=bool)

    @classmethod
    def supplies_power(cls, p) -> bool:
        return True

    @classmethod
    def residual(cls, t, x, xp, p):
        f = p.k * x[:, 2]                                        # (1)
        out = np.zeros((x.shape[0], 3))
        out[:, 0], out[:, 1] = f, -f
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        dfdx = np.zeros((x.shape[0], 3, 3))
        dfdx[:, 0, 2], dfdx[:, 1, 2] = p.k, -p.k
        return dfdx, np.zeros_like(dfdx)
