"""stop — one-sided penalty end stops on the relative displacement of a 1D pair.

Ports
    a, b: translational (m, N) or rotational (rad, N·m), both the same.
Parameters
    lower, upper: the travel limits of x (m or rad); give either or both (default ±∞).
    k: contact stiffness (N/m or N·m/rad, default 1e6).
    c: contact damping (N·s/m or N·m·s/rad, default 0: an elastic impact).
    x0: initial relative displacement x(0) (default 0).
Internal variables
    x (differential): relative displacement, the integral of p_a − p_b.
Equations
    v = p_a − p_b, δu = x − upper, δl = lower − x:
    (1) dx/dt − v = 0
    (2) f = max(k·δu + c·v, 0)·[δu > 0] − max(k·δl − c·v, 0)·[δl > 0]
        flow from a through the stop to b: beyond the upper limit it pushes a back,
        beyond the lower limit forward; a stop only pushes (it never pulls the contact
        closed, even while the damper term would).
    (3) switching functions (state events: the solver ends a step where one changes
        sign): upper: min(δu, δu + (c/k)·v), lower: min(δl, δl − (c/k)·v), positive
        exactly where that stop pushes in (2): contact onset at δ = 0, release where
        k·δ ± c·v crosses 0 (with c = 0 both at δ = 0); −1 for a limit not given.
Sign convention
    a ──[| |]── b     like a spring: x > upper compresses the upper stop and f > 0 (from
                      a to b) pushes a back; x < lower gives f < 0, pushing a forward
                      (conventions.md §1).
Outputs
    S.x: the relative displacement x (the internal variable); S.f: the contact force
    (N or N·m); S.E: the elastic energy of the contact, ½·k·δ² while it is compressed
    (δ = δu or δl > 0), 0 apart (J). The damping's work is dissipated; a contact that
    separates while still compressed (its force clipped at 0) loses the rest.
Example
    ``stop S1 v 0 lower=-0.05 upper=0.05 k=1e6 c=50``
"""
import numpy as np

from ..errors import ModelError
from . import compiled
from .base import ElementType
from .declarations import MECHANICAL, Output, Param, Port, State
from .protocols import BoundResidualProtocol
from .spring import B_UNITS, F_UNITS, K_UNITS, X_UNITS

NUMPY_CALL_SECONDS = 1e-5        # a numpy kernel's call on a few instances (the warm-up)


class Stop(BoundResidualProtocol, ElementType):
    keyword = "stop"
    description = "one-sided penalty end stops (lower/upper) on a relative displacement"
    ports = (Port("a", MECHANICAL), Port("b", MECHANICAL))
    params = (Param("lower", X_UNITS, default=-np.inf, description="lower limit of x"),
              Param("upper", X_UNITS, default=np.inf, description="upper limit of x"),
              Param("k", K_UNITS, default=1e6, description="contact stiffness", positive=True),
              Param("c", B_UNITS, default=0.0, description="contact damping", nonnegative=True),
              Param("x0", X_UNITS, default=0.0, description="initial displacement"))
    states = (State("x", X_UNITS, True, "relative displacement", init_param="x0"),)
    outputs = (Output("f", F_UNITS, "contact force (flow from a to b)"),
               Output("E", "J", "elastic energy of the compressed contact ½·k·δ²",
                      kind="energy"))
    dissipating_store = True        # c·v, and the energy of a contact that separates
    differential_vars = (2,)
    pattern = np.array([[1, 1, 1], [1, 1, 1], [1, 1, 1]], dtype=bool)

    @classmethod
    def check(cls, inst):
        lo, hi = inst.params["lower"], inst.params["upper"]
        if not np.isfinite(lo) and not np.isfinite(hi):
            raise ModelError(f"stop {inst.name} needs lower= and/or upper=", inst.loc)
        if lo >= hi:
            raise ModelError(f"stop {inst.name}: lower ({lo:g}) must be below upper ({hi:g})",
                             inst.loc)

    @classmethod
    def prepare(cls, instances):
        p = super().prepare(instances)
        # the two contacts side by side, (N, 2): column 0 the upper, 1 the lower, each
        # δ = sign·(x − limit) and k·δ + sign·c·v, so that one numpy call serves both
        p.limits = np.stack([p.upper, p.lower], axis=1)
        p.sign = np.array([1.0, -1.0])
        p.k2, p.c2 = p.k[:, None], p.c[:, None] * p.sign
        p.ratio2 = (p.c / p.k)[:, None] * p.sign
        p.given = np.isfinite(p.limits)
        p.zero = np.zeros_like(p.limits)
        # dF/dx of a group in contact (rows a, b: ±(c, −c, k)) and apart, by instance;
        # row (1) and dF/dx' are constant
        apart = np.zeros((len(instances), 3, 3))
        apart[:, 2, :2] = (-1.0, 1.0)
        on = apart.copy()
        for row, sign in ((0, 1.0), (1, -1.0)):
            on[:, row] = sign * np.stack([p.c, -p.c, p.k], axis=1)
        p.dfdx_on, p.dfdx_apart = on, apart
        p.dfdxp = np.zeros((len(instances), 3, 3))
        p.dfdxp[:, 2, 2] = 1.0
        p.warmup = compiled.Warmup(NUMPY_CALL_SECONDS)
        return p

    @staticmethod
    def _contacts(x, v, p):
        """δ = (δu, δl) and the contact forces (fu, fl) of equation (2) (both (N, 2))
        where each acts, else 0: max(k·δ ± c·v, 0)·[δ > 0] (a limit not given: δ = −∞,
        force 0); the step [δ > 0] as heaviside(δ, 0) and 0 as an array, as numpy's
        calls on a few floats cost their conversions more than their arithmetic."""
        delta = (x[..., None] - p.limits) * p.sign
        force = np.maximum(p.k2 * delta + p.c2 * v[..., None], p.zero)
        return delta, force * np.heaviside(delta, p.zero)

    @classmethod
    def _force(cls, x, v, p):
        """f of equation (2) (x, v: (N,) or (T, N))."""
        _, contact = cls._contacts(x, v, p)
        return contact[..., 0] - contact[..., 1]

    @classmethod
    def switch_names(cls, group):
        return ("upper", "lower")

    @classmethod
    def switching_functions(cls, t, x, xp, p):
        fast = compiled.twin("stop", p.warmup)
        if fast is not None:
            return fast.switching_functions(x, *cls._twin_args(p))
        delta = (x[:, 2, None] - p.limits) * p.sign
        g = np.minimum(delta, delta + p.ratio2 * (x[:, 0] - x[:, 1])[:, None])   # (3)
        return np.where(p.given, g, -1.0)

    @staticmethod
    def _twin_args(p) -> tuple:
        """The group's arrays as the compiled kernels take them after x (and x')."""
        return p.lower, p.upper, p.k, p.c

    @classmethod
    def residual_kernel(cls, p):
        fast = compiled.settled("stop", p.warmup)
        return None if fast is None else compiled.bound(fast.residual, *cls._twin_args(p))

    @classmethod
    def residual(cls, t, x, xp, p):
        fast = compiled.twin("stop", p.warmup)
        if fast is not None:
            return fast.residual(x, xp, *cls._twin_args(p))
        v = x[:, 0] - x[:, 1]
        f = cls._force(x[:, 2], v, p)                               # (2)
        out = np.empty((x.shape[0], 3))                             # (1)
        out[:, 0], out[:, 1], out[:, 2] = f, -f, xp[:, 2] - v
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        fast = compiled.twin("stop", p.warmup)
        if fast is not None:
            return fast.jacobian(x, xp, *cls._twin_args(p))
        # df/dx = k, df/dv = c where a contact pushes (the two never act together, as
        # lower < upper), else 0
        _, contact = cls._contacts(x[:, 2], x[:, 0] - x[:, 1], p)
        on = (contact[:, 0] + contact[:, 1]) > 0.0      # each force is ≥ 0
        return np.where(on[:, None, None], p.dfdx_on, p.dfdx_apart), p.dfdxp

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        s = x[..., 2]
        depth = np.maximum(s - p.upper, 0.0) + np.maximum(p.lower - s, 0.0)
        return np.stack([cls._force(s, x[..., 0] - x[..., 1], p), 0.5 * p.k * depth ** 2],
                        axis=-1)

    @classmethod
    def sample_params(cls, rng):
        # limits inside the sampled state range so that both contacts are exercised
        return {"lower": -0.3, "upper": 0.2, "k": float(rng.uniform(1, 2)),
                "c": float(rng.uniform(0.1, 1)), "x0": 0.0}
