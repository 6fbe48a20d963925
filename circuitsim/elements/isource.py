"""I — flow source in any domain (current, force, torque, volume flow).

Ports
    a, b: same domain.
Parameters
    I: the flow from a through the source to b; a constant or a time function.
    domain: the domain of a and b where no other element fixes it (default electrical).
Equations
    (1) f = I(t)
    rows: a: +f, b: −f
Sign convention
    a ──(→)── b      f flows from a through the source to b: ``I F1 0 n I=F`` pushes F
                     into node n (a force on n; conventions.md §1)
Outputs
    I1.v: p_a − p_b across the source.
Example
    ``I F1 0 v1 I=sin(0, 10, 2)``
"""
import numpy as np

from .base import ElementType
from .declarations import Output, Param, Port, domain_param
from .capacitor import _P_UNITS
from .resistor import _FLOW


class FlowSource(ElementType):
    keyword = "I"
    description = "flow source: flow I(t) from a through the source to b"
    ports = (Port("a"), Port("b"))
    params = (Param("I", _FLOW, description="flow from a to b", kind="time"),
              domain_param())
    outputs = (Output("v", _P_UNITS, "potential difference p_a − p_b"),)
    imposes = "flow"
    positional_param = "I"
    pattern = np.zeros((2, 2), dtype=bool)

    @classmethod
    def supplies_power(cls, p) -> bool:
        return True

    @classmethod
    def residual(cls, t, x, xp, p):
        f = p.I(t) * np.ones(x.shape[0])                      # (1)
        return np.stack([f, -f], axis=1)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        z = np.zeros((x.shape[0], 2, 2))
        return z, z.copy()

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        return (x[..., 0] - x[..., 1])[..., None]
