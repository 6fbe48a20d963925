"""deadzone — dead zone: 0 inside [lower, upper], the excess beyond it outside.

Ports
    in: input signal u (read, no flow drawn).
    out: output signal y (driven by this block).
Parameters
    lower, upper: the edges of the dead band (both required, lower < upper).
Equations
    (1) y − (u − clip(u, lower, upper)) = 0      row of out: y = u − upper above the
        band, u − lower below it, 0 inside
    (2) switching functions (located events): u − upper, lower − u.
Sign convention
    u = value of in, y = value of out (conventions.md §7).
Outputs
    none (the output is the node out).
Example
    ``deadzone D1 e ed lower=-0.1 upper=0.1``
"""
import numpy as np

from .base import ElementType
from .declarations import Param
from .signals import check_limits, signal_in, signal_out


class DeadZone(ElementType):
    keyword = "deadzone"
    description = "dead zone: y = u − clip(u, lower, upper)"
    ports = (signal_in("in"), signal_out())
    params = (Param("lower", "1", description="lower edge of the dead band"),
              Param("upper", "1", description="upper edge of the dead band"))
    pattern = np.array([[0, 0], [1, 1]], dtype=bool)

    @classmethod
    def check(cls, inst):
        check_limits(inst, "deadzone")

    @classmethod
    def residual(cls, t, x, xp, p):
        u = x[:, 0]
        out = np.zeros((x.shape[0], 2))
        out[:, 1] = x[:, 1] - (u - np.clip(u, p.lower, p.upper))    # (1)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        u = x[:, 0]
        dfdx = np.zeros((x.shape[0], 2, 2))
        dfdx[:, 1, 0] = -np.where((u > p.lower) & (u < p.upper), 0.0, 1.0)
        dfdx[:, 1, 1] = 1.0
        return dfdx, np.zeros_like(dfdx)

    @classmethod
    def switch_names(cls, group):
        return ("upper", "lower")

    @classmethod
    def switching_functions(cls, t, x, xp, p):
        u = x[:, 0]
        return np.stack([u - p.upper, p.lower - u], axis=1)                    # (2)

    @classmethod
    def sample_params(cls, rng):
        return {"lower": -0.5, "upper": 0.4}
