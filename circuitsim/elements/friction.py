"""friction — regularised Coulomb friction with Stribeck peak and viscous part.

Ports
    a, b: translational or rotational, both the same.
Parameters
    Fc: Coulomb (sliding) friction force (N or N·m); may vary in time (a brake that
        engages at 1.5 s: ``Fc=step(1.5, 0, 40)`` or ``Fc={40*step(time - 1.5)}``).
    Fs: static (breakaway) friction, default Fc(t) (no Stribeck peak).
    vs: Stribeck velocity (m/s or rad/s), default 0.01.
    b: viscous coefficient (N·s/m or N·m·s/rad), default 0.
    veps: regularisation velocity of sign(v) (m/s or rad/s), default 1e-4.
Equations
    conventions.md §6, with v = p_a − p_b:
    (1) f = (Fc + (Fs − Fc)·exp(−(v/vs)²)) · tanh(v/veps) + b·v
    tanh(v/veps) stands for sign(v): below |v| ≈ veps the element acts as a stiff
    damper of slope ≈ Fs/veps, so a "stuck" contact creeps at v ≈ F_applied·veps/Fs.
    Smaller veps: closer to ideal stick (the error against the analytic stick-slip
    solution shrinks with veps) at the price of stiffer equations near v = 0.
Sign convention
    a ──[≋]── b      f > 0 from a through the contact to b when v > 0: the friction
                     holds back a sliding relative to b (conventions.md §1, §6)
Outputs
    F1.f: the friction force f.
Example
    ``friction F1 v1 0 Fc=1 Fs=1.2 vs=0.01 veps=1e-5``
"""
import numpy as np

from . import compiled
from .base import ElementType, branch_block, branch_rows
from .declarations import MECHANICAL, Output, Param, Port
from .spring import B_UNITS, F_UNITS, V_UNITS

NUMPY_CALL_SECONDS = 1e-5        # a numpy kernel's call on a few instances (the warm-up)


class Friction(ElementType):
    keyword = "friction"
    description = "Coulomb + Stribeck + viscous friction, sign regularised by tanh(v/veps)"
    ports = (Port("a", MECHANICAL), Port("b", MECHANICAL))
    params = (Param("Fc", F_UNITS, description="Coulomb friction (may vary in time)",
                    nonnegative=True, kind="time"),
              Param("Fs", F_UNITS, default=None, description="static friction (default Fc)",
                    nonnegative=True),
              Param("vs", V_UNITS, default=0.01, description="Stribeck velocity", positive=True),
              Param("b", B_UNITS, default=0.0, description="viscous coefficient", nonnegative=True),
              Param("veps", V_UNITS, default=1e-4, description="regularisation velocity",
                    positive=True))
    outputs = (Output("f", F_UNITS, "friction force (flow from a to b)"),)
    pattern = np.ones((2, 2), dtype=bool)

    @classmethod
    def prepare(cls, instances):
        p = super().prepare(instances)
        p.Fs_given = ~np.isnan(p.Fs)       # else Fs follows Fc(t): no Stribeck peak
        # a group without a given Fs has no peak ((Fs − Fc)·exp(…) = 0): not computed
        p.peaked = bool(p.Fs_given.any())
        p.warmup = compiled.Warmup(NUMPY_CALL_SECONDS)
        p.no_rate = np.broadcast_to(0.0, (len(instances), 2, 2))     # dF/dx' (made once)
        return p

    @staticmethod
    def _levels(t, p):
        """(Fc, Fs) at the time(s) t: (N,) for a scalar t, (T, N) for an array."""
        if np.ndim(t) == 0:
            Fc = p.Fc(t)
        else:
            # (T, N) also for T = 0 (a run that failed before its first output point)
            Fc = np.array([p.Fc(ti) for ti in np.ravel(t)]).reshape(np.shape(t)
                                                                     + np.shape(p.Fs))
        return Fc, np.where(p.Fs_given, p.Fs, Fc)

    @classmethod
    def _parts(cls, t, v, p):
        """The Stribeck peak (None where no Fs is given: it is 0), the level Fc + peak
        and tanh(v/veps) of equation (1)."""
        th = np.tanh(v / p.veps)
        if not p.peaked:
            return None, cls._levels(t, p)[0] if np.ndim(t) else p.Fc(t), th
        Fc, Fs = cls._levels(t, p)
        peak = (Fs - Fc) * np.exp(-(v / p.vs) ** 2)
        return peak, Fc + peak, th

    @classmethod
    def _law(cls, t, v, p):
        """f(v) and df/dv of equation (1)."""
        peak, level, th = cls._parts(t, v, p)
        f = level * th + p.b * v
        df = level * (1.0 - th ** 2) / p.veps
        if peak is not None:
            df = peak * (-2.0 * v / p.vs ** 2) * th + df       # d(level)/dv · tanh
        return f, df + p.b

    @classmethod
    def residual(cls, t, x, xp, p):
        fast = compiled.twin("friction", p.warmup)
        if fast is not None:          # Fc(t) evaluated here: a time function
            return fast.residual(x, p.Fc(t), p.Fs, p.Fs_given, p.vs, p.b, p.veps)
        v = x[:, 0] - x[:, 1]
        _, level, th = cls._parts(t, v, p)
        return branch_rows(level * th + p.b * v)                # (1)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        fast = compiled.twin("friction", p.warmup)
        if fast is not None:
            dfdx = fast.jacobian(x, p.Fc(t), p.Fs, p.Fs_given, p.vs, p.b, p.veps)
            return dfdx, p.no_rate
        _, g = cls._law(t, x[:, 0] - x[:, 1], p)
        return branch_block(g), p.no_rate

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        f, _ = cls._law(t, x[..., 0] - x[..., 1], p)
        return f[..., None]
