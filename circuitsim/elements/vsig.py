"""vsig — signal-driven potential source (a voltage, speed or pressure set by a
controller): p_a − p_b = k·s.

Ports
    a, b: same physical domain (any).
    ctl: the controlling signal s (read, no flow drawn).
Parameters
    k: potential per unit of signal (V, m/s, rad/s or Pa; default 1).
    domain: the domain of a and b where no other element fixes it (default electrical).
Internal variables
    i (algebraic): the flow from a through the source to b.
Equations
    (1) p_a − p_b − k·s = 0
    rows: a: +i, b: −i, ctl: 0
Sign convention
    a ──(+ −)── b      as the potential source V: p_a − p_b = k·s, i from a through the
                       source to b (conventions.md §1, §7).
Outputs
    X.i: the flow i (the internal variable).
Example
    ``vsig VA arm 0 u k=1``
"""
import numpy as np

from .base import ElementType
from .capacitor import _P_UNITS
from .declarations import Param, Port, State, domain_param
from .resistor import _FLOW
from .signals import signal_in


class SignalPotentialSource(ElementType):
    keyword = "vsig"
    description = "signal-driven potential source: p_a − p_b = k·s"
    ports = (Port("a"), Port("b"), signal_in("ctl", "controlling signal s"))
    params = (Param("k", _P_UNITS, default=1.0, description="potential per unit signal"),
              domain_param())
    states = (State("i", _FLOW, False, "flow from a through the source to b"),)
    linear = True
    pattern = np.array([[0, 0, 0, 1], [0, 0, 0, 1], [0, 0, 0, 0], [1, 1, 1, 0]], dtype=bool)

    @classmethod
    def supplies_power(cls, p) -> bool:
        return True

    @classmethod
    def residual(cls, t, x, xp, p):
        i = x[:, 3]
        out = np.zeros((x.shape[0], 4))
        out[:, 0], out[:, 1] = i, -i
        out[:, 3] = x[:, 0] - x[:, 1] - p.k * x[:, 2]           # (1)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        dfdx = np.zeros((x.shape[0], 4, 4))
        dfdx[:, 0, 3], dfdx[:, 1, 3] = 1.0, -1.0
        dfdx[:, 3, 0], dfdx[:, 3, 1], dfdx[:, 3, 2] = 1.0, -1.0, -p.k
        return dfdx, np.zeros_like(dfdx)
