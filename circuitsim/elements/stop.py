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
from .base import ElementType
from .declarations import MECHANICAL, Output, Param, Port, State
from .spring import B_UNITS, F_UNITS, K_UNITS, X_UNITS


class Stop(ElementType):
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

    @staticmethod
    def _contacts(x, v, p):
        """The upper and lower contact forces of equation (2) and where each acts."""
        du, dl = x - p.upper, p.lower - x
        fu = p.k * du + p.c * v
        fl = p.k * dl - p.c * v
        return fu, fl, (du > 0) & (fu > 0), (dl > 0) & (fl > 0)

    @classmethod
    def _force(cls, x, v, p):
        """f of equation (2)."""
        fu, fl, on_u, on_l = cls._contacts(x, v, p)
        return np.where(on_u, fu, 0.0) - np.where(on_l, fl, 0.0)

    @classmethod
    def _law(cls, x, v, p):
        """f and its derivatives df/dx, df/dv of equation (2)."""
        fu, fl, on_u, on_l = cls._contacts(x, v, p)
        f = np.where(on_u, fu, 0.0) - np.where(on_l, fl, 0.0)
        on = on_u | on_l                 # the two contacts never act together (lower < upper)
        return f, np.where(on, p.k, 0.0), np.where(on, p.c, 0.0)

    @classmethod
    def switch_names(cls, group):
        return ("upper", "lower")

    @classmethod
    def switching_functions(cls, t, x, xp, p):
        v = x[:, 0] - x[:, 1]
        du, dl = x[:, 2] - p.upper, p.lower - x[:, 2]
        ratio = p.c / p.k
        gu = np.where(np.isfinite(p.upper), np.minimum(du, du + ratio * v), -1.0)   # (3)
        gl = np.where(np.isfinite(p.lower), np.minimum(dl, dl - ratio * v), -1.0)   # (3)
        return np.stack([gu, gl], axis=1)

    @classmethod
    def residual(cls, t, x, xp, p):
        v = x[:, 0] - x[:, 1]
        f = cls._force(x[:, 2], v, p)                               # (2)
        out = np.empty((x.shape[0], 3))                             # (1)
        out[:, 0], out[:, 1], out[:, 2] = f, -f, xp[:, 2] - v
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        n = x.shape[0]
        _, gx, gv = cls._law(x[:, 2], x[:, 0] - x[:, 1], p)
        dfdx = np.zeros((n, 3, 3)); dfdxp = np.zeros((n, 3, 3))
        for row, sign in ((0, 1.0), (1, -1.0)):
            dfdx[:, row, 0] = sign * gv
            dfdx[:, row, 1] = -sign * gv
            dfdx[:, row, 2] = sign * gx
        dfdx[:, 2, 0] = -1.0
        dfdx[:, 2, 1] = 1.0
        dfdxp[:, 2, 2] = 1.0
        return dfdx, dfdxp

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
