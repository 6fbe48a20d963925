"""sigsrc — a signal given as a function of time (a set-point, a reference).

Ports
    out: output signal (driven by this block).
Parameters
    v: the value, a constant or a time function (step, ramp, sin, pulse, pwl, {expr}).
Equations
    (1) y − v(t) = 0          row of out
Sign convention
    y = value of out (conventions.md §7).
Outputs
    none (the output is the node out).
Example
    ``sigsrc R1 ref v=step(0.01, 0, 100)``
"""
import numpy as np

from .base import ElementType
from .declarations import Param
from .signals import signal_out


class SignalSource(ElementType):
    keyword = "sigsrc"
    description = "signal source: y = v(t)"
    ports = (signal_out(),)
    params = (Param("v", "1", description="value", kind="time"),)
    positional_param = "v"
    pattern = np.ones((1, 1), dtype=bool)

    @classmethod
    def residual(cls, t, x, xp, p):
        return (x[:, 0] - p.v(t))[:, None]                      # (1)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        dfdx = np.ones((x.shape[0], 1, 1))
        return dfdx, np.zeros_like(dfdx)
