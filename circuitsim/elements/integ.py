"""integ — integrator with optional output limits and anti-windup by clamping.

Ports
    in: input signal u (read, no flow drawn).
    out: output signal y, the integral (driven by this block; a differential unknown).
Parameters
    k: integral gain (1/s, default 1).
    y0: initial output (default 0).
    lower, upper: limits of y (default none). At a limit the integration stops while
        the input pushes outward and resumes as soon as it pulls back (conditional
        integration: the integral never winds up beyond the limit).
Equations
    with r = k·u and the clamp ramps w_u = w(y − upper), w_l = w(lower − y),
    w(z) = clip(z/δ + 1, 0, 1), δ = 1e-9·max(1, |lower|, |upper|):
    (1) dy/dt − r + max(r, 0)·w_u + min(r, 0)·w_l = 0      row of out
    Without limits: dy/dt = k·u. Approaching upper with r > 0, y reaches
    upper − δ and then upper exponentially within a few δ/r seconds (the ramp keeps
    the equations continuous, so that every step has a solution); it leaves when r < 0.
    (2) switching functions (located events): y − upper + δ, lower + δ − y, and r.
Sign convention
    u = value of in, y = value of out (conventions.md §7).
Outputs
    none (the output is the node out).
Example
    ``integ I1 e ui k=20 lower=-1 upper=1``
"""
import numpy as np

from . import compiled
from .base import ElementType
from .declarations import Param
from .protocols import BoundResidualProtocol
from .signals import band, check_limits, limit_params, ramp, signal_in, signal_out


NUMPY_CALL_SECONDS = 3e-5        # a numpy kernel's call on one instance (the warm-up)


class Integrator(BoundResidualProtocol, ElementType):
    keyword = "integ"
    description = "integrator with output limits (anti-windup by clamping)"
    ports = (signal_in("in"), signal_out())
    params = (Param("k", "1/s", default=1.0, description="integral gain"),
              Param("y0", "1", default=0.0, description="initial output"),
              *limit_params("output"))
    differential_vars = (1,)
    pattern = np.array([[0, 0], [1, 1]], dtype=bool)

    @classmethod
    def check(cls, inst):
        check_limits(inst, "integ")

    @classmethod
    def initial_potentials(cls, inst):
        return [(1, inst.params["y0"], None)]

    @classmethod
    def prepare(cls, instances):
        p = super().prepare(instances)
        p.delta = band(p)                  # the clamp ramps' width, made once
        p.warmup = compiled.Warmup(NUMPY_CALL_SECONDS)
        return p

    @staticmethod
    def _twin_args(p) -> tuple:
        """The group's arrays as the compiled kernels take them after x and x'."""
        return p.k, p.lower, p.upper, p.delta

    @classmethod
    def residual_kernel(cls, p):
        fast = compiled.settled("integ", p.warmup)
        return None if fast is None else compiled.bound(fast.residual, *cls._twin_args(p))

    @classmethod
    def _law(cls, u, y, p):
        """The rate dy/dt and its derivatives d/du, d/dy."""
        d = p.delta
        r = p.k * u
        wu, dwu = ramp(y - p.upper, d)
        wl, dwl = ramp(p.lower - y, d)
        up, dn = r > 0, r < 0
        rate = r - np.where(up, r * wu, 0.0) - np.where(dn, r * wl, 0.0)
        drate_du = p.k * (1.0 - np.where(up, wu, 0.0) - np.where(dn, wl, 0.0))
        drate_dy = -np.where(up, r * dwu, 0.0) + np.where(dn, r * dwl, 0.0)
        return rate, drate_du, drate_dy

    @classmethod
    def residual(cls, t, x, xp, p):
        fast = compiled.twin("integ", p.warmup)
        if fast is not None:
            return fast.residual(x, xp, *cls._twin_args(p))
        rate, _, _ = cls._law(x[:, 0], x[:, 1], p)
        out = np.zeros((x.shape[0], 2))
        out[:, 1] = xp[:, 1] - rate                              # (1)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        fast = compiled.twin("integ", p.warmup)
        if fast is not None:
            return fast.jacobian(x, xp, *cls._twin_args(p))
        n = x.shape[0]
        _, du, dy = cls._law(x[:, 0], x[:, 1], p)
        dfdx = np.zeros((n, 2, 2)); dfdxp = np.zeros((n, 2, 2))
        dfdx[:, 1, 0], dfdx[:, 1, 1] = -du, -dy
        dfdxp[:, 1, 1] = 1.0
        return dfdx, dfdxp

    @classmethod
    def switch_names(cls, group):
        return ("upper", "lower", "input")

    @classmethod
    def switching_functions(cls, t, x, xp, p):
        d = p.delta
        y = x[:, 1]
        gu = np.where(np.isfinite(p.upper), y - p.upper + d, -1.0)        # (2)
        gl = np.where(np.isfinite(p.lower), p.lower + d - y, -1.0)        # (2)
        limited = np.isfinite(p.upper) | np.isfinite(p.lower)
        gr = np.where(limited, p.k * x[:, 0], -1.0)                       # (2)
        return np.stack([gu, gl, gr], axis=1)

    @classmethod
    def sample_params(cls, rng):
        # limits inside the sampled range, a wide band so that the ramps are exercised
        return {"k": float(rng.uniform(0.5, 2.0)), "y0": 0.0, "lower": -0.5, "upper": 0.4}
