"""pid — PID controller with a filtered derivative, output limits and anti-windup.

Ports
    in: the control error e (read, no flow drawn), e.g. from ``sum`` (r − y).
    out: the controller output y (driven by this block).
Parameters
    kp, ki, kd: proportional, integral (1/s) and derivative (s) gains (default 1, 0, 0).
    tf: time constant of the derivative filter (s); required when kd ≠ 0.
    lower, upper: output limits (default none).
    aw: anti-windup, ``clamp`` (conditional integration, default) or ``backcalc``
        (back-calculation: the integral tracks the limited output).
    tt: tracking time constant of back-calculation (s; default kp/ki, or 1).
    xi0: initial integral part (default 0).
Internal variables
    xi (differential): the integral part. xf (differential): the derivative filter's
    state (initially 0).
Equations
    (1) tf·dxf/dt + xf − e = 0                     (the derivative part is
        d = kd·(e − xf)/tf = kd·s/(tf·s + 1)·e)
    v = kp·e + xi + kd·(e − xf)/tf                 (the unlimited output)
    (2) y − clip(v, lower, upper) = 0              row of out
    (3) clamp:    dxi/dt − r + max(r, 0)·w(v − upper) + min(r, 0)·w(lower − v) = 0,
                  r = ki·e, w(z) = clip(z/δ + 1, 0, 1), δ = 1e-9·max(1, |lower|, |upper|):
                  the integral stops while the output is limited and the error pushes
                  it further out.
    (3') backcalc: dxi/dt − ki·e − (y − v)/tt = 0
    (4) switching functions (located events): v − upper, lower − v, and in clamp
        mode v − upper + δ, lower + δ − v, r.
Sign convention
    e = value of in, y = value of out (conventions.md §7); y grows with e for positive
    gains.
Outputs
    none (the output is the node out; the states are recorded as X.xi, X.xf).
Example
    ``pid C1 e u kp=0.5 ki=10 kd=0.01 tf=1ms lower=-24 upper=24``
"""
import numpy as np

from ..errors import ModelError
from . import compiled
from .base import ElementType
from .declarations import Param, State
from .protocols import BoundResidualProtocol
from .signals import band, check_limits, limit_params, ramp, signal_in, signal_out

NUMPY_CALL_SECONDS = 4e-5        # a numpy kernel's call on one instance (the warm-up)


class PID(BoundResidualProtocol, ElementType):
    keyword = "pid"
    description = "PID controller: filtered derivative, output limits, anti-windup"
    ports = (signal_in("in", "control error e"), signal_out("out", "controller output"))
    params = (Param("kp", "1", default=1.0, description="proportional gain"),
              Param("ki", "1/s", default=0.0, description="integral gain"),
              Param("kd", "s", default=0.0, description="derivative gain"),
              Param("tf", "s", default=0.0, description="derivative filter time constant",
                    nonnegative=True),
              *limit_params("output"),
              Param("aw", "1", default="clamp", kind="choice", choices=("clamp", "backcalc"),
                    description="anti-windup"),
              Param("tt", "s", default=None, description="back-calculation tracking time",
                    positive=True),
              Param("xi0", "1", default=0.0, description="initial integral part"))
    states = (State("xi", "1", True, "integral part", init_param="xi0"),
              State("xf", "1", True, "derivative filter state"))
    differential_vars = (2, 3)
    pattern = np.array([[0, 0, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1], [1, 0, 0, 1]], dtype=bool)

    @classmethod
    def check(cls, inst):
        check_limits(inst, "pid")
        if inst.params["kd"] != 0.0 and not inst.params["tf"] > 0.0:
            raise ModelError(f"pid {inst.name}: a derivative gain kd needs a filter time "
                             "constant tf > 0", inst.loc)

    @classmethod
    def group_key(cls, inst):
        return (inst.params["aw"],)

    @classmethod
    def prepare(cls, instances):
        p = super().prepare(instances)
        p.backcalc = p.aw[0] == "backcalc"
        p.tf = np.where(p.tf > 0.0, p.tf, 1.0)
        default_tt = np.where((p.ki > 0) & (p.kp > 0), p.kp / np.where(p.ki > 0, p.ki, 1.0),
                              1.0)
        p.tt = np.where(np.isnan(p.tt), default_tt, p.tt)
        p.delta = band(p)                  # the clamp ramps' width, made once
        p.warmup = compiled.Warmup(NUMPY_CALL_SECONDS)
        return p

    @staticmethod
    def _twin_args(p) -> tuple:
        """The group's arrays as the compiled kernels take them after x and x'."""
        n = len(p.kp)
        return (p.kp, p.ki, p.kd, p.tf, p.lower, p.upper, p.tt, p.delta,
                np.full(n, p.backcalc))

    @classmethod
    def residual_kernel(cls, p):
        fast = compiled.settled("pid", p.warmup)
        return None if fast is None else compiled.bound(fast.residual, *cls._twin_args(p))

    @staticmethod
    def _v(x, p):
        e, xi, xf = x[:, 0], x[:, 2], x[:, 3]
        return p.kp * e + xi + p.kd * (e - xf) / p.tf

    @classmethod
    def residual(cls, t, x, xp, p):
        fast = compiled.twin("pid", p.warmup)
        if fast is not None:
            return fast.residual(x, xp, *cls._twin_args(p))
        e, y, xf = x[:, 0], x[:, 1], x[:, 3]
        v = cls._v(x, p)
        out = np.zeros((x.shape[0], 4))
        out[:, 1] = y - np.clip(v, p.lower, p.upper)              # (2)
        if p.backcalc:
            out[:, 2] = xp[:, 2] - p.ki * e - (y - v) / p.tt        # (3')
        else:
            r = p.ki * e
            d = p.delta
            wu, _ = ramp(v - p.upper, d)
            wl, _ = ramp(p.lower - v, d)
            out[:, 2] = (xp[:, 2] - r + np.maximum(r, 0.0) * wu     # (3)
                         + np.minimum(r, 0.0) * wl)
        out[:, 3] = p.tf * xp[:, 3] + xf - e                      # (1)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        fast = compiled.twin("pid", p.warmup)
        if fast is not None:
            return fast.jacobian(x, xp, *cls._twin_args(p))
        n = x.shape[0]
        e = x[:, 0]
        v = cls._v(x, p)
        dv = np.stack([p.kp + p.kd / p.tf, np.zeros(n), np.ones(n), -p.kd / p.tf], axis=1)
        dfdx = np.zeros((n, 4, 4)); dfdxp = np.zeros((n, 4, 4))
        inside = (v > p.lower) & (v < p.upper)
        dfdx[:, 1] = -np.where(inside, 1.0, 0.0)[:, None] * dv
        dfdx[:, 1, 1] = 1.0
        if p.backcalc:
            dfdx[:, 2] = dv / p.tt[:, None]
            dfdx[:, 2, 0] -= p.ki
            dfdx[:, 2, 1] = -1.0 / p.tt
        else:
            r = p.ki * e
            d = p.delta
            wu, dwu = ramp(v - p.upper, d)
            wl, dwl = ramp(p.lower - v, d)
            up, dn = r > 0, r < 0
            coef = np.where(up, r * dwu, 0.0) - np.where(dn, r * dwl, 0.0)  # d/dv
            dfdx[:, 2] = coef[:, None] * dv
            dfdx[:, 2, 0] += -p.ki + p.ki * (np.where(up, wu, 0.0) + np.where(dn, wl, 0.0))
        dfdxp[:, 2, 2] = 1.0
        dfdx[:, 3, 0], dfdx[:, 3, 3] = -1.0, 1.0
        dfdxp[:, 3, 3] = p.tf
        return dfdx, dfdxp

    @classmethod
    def switch_names(cls, group):
        return ("upper", "lower", "clamp upper", "clamp lower", "error")

    @classmethod
    def switching_functions(cls, t, x, xp, p):
        v = cls._v(x, p)
        hi, lo = np.isfinite(p.upper), np.isfinite(p.lower)
        d = p.delta
        clamp = not p.backcalc
        g = [np.where(hi, v - p.upper, -1.0), np.where(lo, p.lower - v, -1.0),    # (4)
             np.where(hi & clamp, v - p.upper + d, -1.0),
             np.where(lo & clamp, p.lower + d - v, -1.0),
             np.where((hi | lo) & clamp, p.ki * x[:, 0], -1.0)]
        return np.stack(g, axis=1)

    @classmethod
    def sample_params(cls, rng):
        return {"kp": 0.7, "ki": 1.3, "kd": 0.2, "tf": 0.5, "lower": -0.8, "upper": 0.9,
                "aw": "clamp", "tt": None, "xi0": 0.0}

    @classmethod
    def sample_variants(cls):
        return [{}, {"aw": "backcalc", "tt": 0.4}]
