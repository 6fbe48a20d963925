"""ratelim — a rate limiter: the output follows the input with its rate of change
limited to rising (up) and falling (down).

Ports
    in: input signal u (read, no flow drawn).
    out: output signal y (driven by this block; a differential unknown).
Parameters
    rising: the largest rate of rise of y (1/s, > 0).
    falling: the largest rate of fall of y (1/s, > 0, default: rising).
    tau: the tracking time constant (s, default 1e-6): where the input is within
        reach, y follows it as a lag of tau, so a slow input is followed with a lag of
        tau·du/dt. Small against the signal's time scales, it makes the law continuous
        (every step has a solution) without a discrete mode.
    y0: initial output (default 0).
Equations
    (1) dy/dt − clip((u − y)/tau, −falling, rising) = 0       row of out
    A step of the input by Δ > 0 gives a ramp at the rate rising until
    y = u − rising·tau, at t = (Δ − rising·tau)/rising after the step, then the
    exponential approach u − rising·tau·exp(−t'/tau).
    (2) switching functions (located events): (u − y)/tau − rising and
        −falling − (u − y)/tau, where the limits begin and end to act.
Sign convention
    u = value of in, y = value of out (conventions.md §7).
Outputs
    none (the output is the node out).
Example
    ``ratelim R1 ref rref rising=100 falling=50``
"""
import numpy as np

from .base import ElementType
from .declarations import Param
from .signals import signal_in, signal_out

TAU = 1e-6   # s: the default tracking time constant, far below a controller's time scales


class RateLimiter(ElementType):
    keyword = "ratelim"
    description = "rate limiter: dy/dt = clip((u − y)/tau, −falling, rising)"
    ports = (signal_in("in"), signal_out())
    params = (Param("rising", "1/s", description="largest rate of rise", positive=True),
              Param("falling", "1/s", default=None,
                    description="largest rate of fall (default: rising)", positive=True),
              Param("tau", "s", default=TAU, description="tracking time constant",
                    positive=True),
              Param("y0", "1", default=0.0, description="initial output"))
    differential_vars = (1,)
    pattern = np.array([[0, 0], [1, 1]], dtype=bool)

    @classmethod
    def initial_potentials(cls, inst):
        return [(1, inst.params["y0"], None)]

    @classmethod
    def prepare(cls, instances):
        p = super().prepare(instances)
        p.falling = np.where(np.isnan(p.falling), p.rising, p.falling)
        return p

    @classmethod
    def residual(cls, t, x, xp, p):
        out = np.zeros((x.shape[0], 2))
        rate = np.clip((x[:, 0] - x[:, 1]) / p.tau, -p.falling, p.rising)
        out[:, 1] = xp[:, 1] - rate                                    # (1)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        n = x.shape[0]
        z = (x[:, 0] - x[:, 1]) / p.tau
        g = np.where((z > -p.falling) & (z < p.rising), 1.0 / p.tau, 0.0)   # d clip/du
        dfdx = np.zeros((n, 2, 2)); dfdxp = np.zeros((n, 2, 2))
        dfdx[:, 1, 0], dfdx[:, 1, 1] = -g, g
        dfdxp[:, 1, 1] = 1.0
        return dfdx, dfdxp

    @classmethod
    def switch_names(cls, group):
        return ("rising", "falling")

    @classmethod
    def switching_functions(cls, t, x, xp, p):
        z = (x[:, 0] - x[:, 1]) / p.tau
        return np.stack([z - p.rising, -p.falling - z], axis=1)       # (2)

    @classmethod
    def sample_params(cls, rng):
        return {"rising": 2.0, "falling": 1.5, "tau": 0.5, "y0": 0.0}
