"""V — potential source in any domain (voltage, velocity, angular velocity, pressure).

Ports
    a, b: same domain.
Parameters
    V: p_a − p_b, a constant or a time function (step, ramp, sin, pulse, pwl, {expr of time}).
    domain: the domain of a and b where no other element fixes it (default electrical).
Internal variables
    i (algebraic): the flow from a through the source to b.
Equations
    (1) p_a − p_b − V(t) = 0
    rows: a: +i, b: −i
Sign convention
    a ──(+ −)── b      p_a − p_b = V; i flows from a through the source to b, so it is
                       negative when the source delivers power into the a-side circuit
                       (as in SPICE; conventions.md §1)
Outputs
    V1.i: the flow i (the internal variable); V1.P: the power delivered by the source,
    −(p_a − p_b)·i (W).
Example
    ``V V1 n1 0 V=step(0, 0, 12)``
"""
import numpy as np

from .base import ElementType
from .declarations import Output, Param, Port, State, domain_param
from .capacitor import _P_UNITS
from .resistor import _FLOW


class PotentialSource(ElementType):
    keyword = "V"
    description = "potential source: p_a − p_b = V(t)"
    ports = (Port("a"), Port("b"))
    params = (Param("V", _P_UNITS, description="potential difference p_a − p_b", kind="time"),
              domain_param())
    states = (State("i", _FLOW, False, "flow from a through the source to b"),)
    outputs = (Output("P", "W", "power delivered by the source, −V·i"),)
    imposes = "potential"
    positional_param = "V"
    pattern = np.array([[0, 0, 1], [0, 0, 1], [1, 1, 0]], dtype=bool)

    @classmethod
    def supplies_power(cls, p) -> bool:
        return True

    @classmethod
    def imposed_potential(cls, t, p):
        return np.asarray(p.V(t), dtype=float)

    @classmethod
    def residual(cls, t, x, xp, p):
        i = x[:, 2]
        out = np.empty((x.shape[0], 3))                                  # (1)
        out[:, 0], out[:, 1], out[:, 2] = i, -i, x[:, 0] - x[:, 1] - p.V(t)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        n = x.shape[0]
        dfdx = np.zeros((n, 3, 3))
        dfdx[:, 0, 2] = 1.0; dfdx[:, 1, 2] = -1.0
        dfdx[:, 2, 0] = 1.0; dfdx[:, 2, 1] = -1.0
        return dfdx, np.zeros_like(dfdx)

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        return (-(x[..., 0] - x[..., 1]) * x[..., 2])[..., None]
