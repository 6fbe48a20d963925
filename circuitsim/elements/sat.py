"""sat — saturation: the input clipped to [lower, upper].

Ports
    in: input signal u (read, no flow drawn).
    out: output signal y (driven by this block).
Parameters
    lower, upper: the limits (at least one).
Equations
    (1) y − clip(u, lower, upper) = 0       row of out
    (2) switching functions (located events): u − upper, lower − u.
Sign convention
    u = value of in, y = value of out (conventions.md §7).
Outputs
    none (the output is the node out).
Example
    ``sat S1 u ul lower=-10 upper=10``
"""
import numpy as np

from ..errors import ModelError
from .base import ElementType
from .signals import check_limits, limit_params, signal_in, signal_out


class Saturation(ElementType):
    keyword = "sat"
    description = "saturation: y = clip(u, lower, upper)"
    ports = (signal_in("in"), signal_out())
    params = limit_params("output")
    pattern = np.array([[0, 0], [1, 1]], dtype=bool)

    @classmethod
    def check(cls, inst):
        check_limits(inst, "sat")
        if not (np.isfinite(inst.params["lower"]) or np.isfinite(inst.params["upper"])):
            raise ModelError(f"sat {inst.name} needs lower= and/or upper=", inst.loc)

    @classmethod
    def residual(cls, t, x, xp, p):
        out = np.zeros((x.shape[0], 2))
        out[:, 1] = x[:, 1] - np.clip(x[:, 0], p.lower, p.upper)   # (1)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        u = x[:, 0]
        dfdx = np.zeros((x.shape[0], 2, 2))
        dfdx[:, 1, 0] = -np.where((u > p.lower) & (u < p.upper), 1.0, 0.0)
        dfdx[:, 1, 1] = 1.0
        return dfdx, np.zeros_like(dfdx)

    @classmethod
    def switch_names(cls, group):
        return ("upper", "lower")

    @classmethod
    def switching_functions(cls, t, x, xp, p):
        u = x[:, 0]
        return np.stack([np.where(np.isfinite(p.upper), u - p.upper, -1.0),   # (2)
                         np.where(np.isfinite(p.lower), p.lower - u, -1.0)], axis=1)

    @classmethod
    def sample_params(cls, rng):
        return {"lower": -0.5, "upper": 0.4}
