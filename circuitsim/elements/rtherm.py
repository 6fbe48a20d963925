"""rtherm — electrical resistor with a thermal port: its resistance follows the port's
temperature and its Joule heat flows into the port (a winding, a heating resistor).

Ports
    a, b: electrical.
    th: thermal, the resistor's temperature T (K); its heat flow returns to ground.
Parameters
    R0: resistance at the reference temperature T0 (Ω).
    alpha: temperature coefficient of the resistance (1/K), default 3.93e-3 (copper
       referred to 20 °C); 0 gives a constant resistance.
    T0: reference temperature (K), default 293.15 K (20 °C; ``T0=20degC``).
Equations
    With u = p_a − p_b and T = p_th:
    (1) R(T) = R0 · max(1 + alpha·(T − T0), RMIN)     resistance law, RMIN = 0.01
    (2) i = u / R(T)                                   flow from a through the resistor to b
    (3) Q = u · i = i²·R(T)                            Joule heat into the thermal node
    rows: a: +i, b: −i, th: −Q
    The floor RMIN keeps R(T) positive while a thermal node is still far from its
    temperature (a node without an initial temperature starts at 0 K): it is met only
    below T0 − 0.99/alpha (39 K for copper), never in a physical run.
Sign convention
    a ──[ R(T) ]── b      i > 0 when p_a > p_b (conventions.md §1)
                ╧ th      the heat Q ≥ 0 leaves the element into th: the electrical power
                          absorbed, u·i, equals the heat delivered, exactly
Outputs
    X.i: the current i (A); X.R: the resistance R(T) (Ω); X.Q: the Joule heat Q (W).
Example
    ``rtherm Rw a b tw R0=1.2 alpha=3.93e-3 T0=20degC``
"""
import numpy as np

from . import compiled
from .base import ElementType
from .declarations import THERMAL, Output, Param, Port
from .protocols import BoundResidualProtocol

RMIN = 0.01     # floor of R(T)/R0: R stays positive at any temperature a Newton step tries
NUMPY_CALL_SECONDS = 2e-5        # a numpy kernel's call on one instance (the warm-up)


class HeatingResistor(BoundResidualProtocol, ElementType):
    keyword = "rtherm"
    description = "resistor R(T) = R0·(1 + alpha·(T − T0)) heating its thermal port by i²R"
    ports = (Port("a", ("electrical",)), Port("b", ("electrical",)),
             Port("th", (THERMAL,), group="th", description="temperature of the resistor"))
    params = (Param("R0", "Ohm", description="resistance at T0", positive=True),
              Param("alpha", "1/K", default=3.93e-3,
                    description="temperature coefficient (copper: 3.93e-3 at 20 °C)"),
              Param("T0", "K", default=293.15, description="reference temperature",
                    positive=True))
    outputs = (Output("i", "A", "current from a to b"),
               Output("R", "Ohm", "resistance R(T)"),
               Output("Q", "W", "Joule heat into the thermal port"))
    positional_param = "R0"
    pattern = np.ones((3, 3), dtype=bool)

    @classmethod
    def prepare(cls, instances):
        p = super().prepare(instances)
        p.warmup = compiled.Warmup(NUMPY_CALL_SECONDS)
        return p

    @staticmethod
    def _twin_args(p) -> tuple:
        """The group's arrays as the compiled kernels take them after x and x'."""
        return p.R0, p.alpha, p.T0

    @classmethod
    def residual_kernel(cls, p):
        fast = compiled.settled("rtherm", p.warmup)
        return None if fast is None else compiled.bound(fast.residual, *cls._twin_args(p))

    @staticmethod
    def _law(T, p):
        """R(T) of equation (1) and dR/dT (0 on the floor)."""
        r = 1.0 + p.alpha * (T - p.T0)
        above = r > RMIN
        return p.R0 * np.where(above, r, RMIN), np.where(above, p.R0 * p.alpha, 0.0)

    @classmethod
    def residual(cls, t, x, xp, p):
        fast = compiled.twin("rtherm", p.warmup)
        if fast is not None:
            return fast.residual(x, xp, *cls._twin_args(p))
        u = x[:, 0] - x[:, 1]
        R, _ = cls._law(x[:, 2], p)
        i = u / R                                                   # (2)
        return np.stack([i, -i, -u * i], axis=1)                    # (3)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        fast = compiled.twin("rtherm", p.warmup)
        if fast is not None:
            return fast.jacobian(x, xp, *cls._twin_args(p))
        # di/du = 1/R, di/dT = −u·R'/R²; dQ/du = 2u/R, dQ/dT = −u²·R'/R²
        u = x[:, 0] - x[:, 1]
        R, dR = cls._law(x[:, 2], p)
        di_du, di_dT = 1.0 / R, -u * dR / R ** 2
        dfdx = np.empty((x.shape[0], 3, 3))
        for row, sign in ((0, 1.0), (1, -1.0)):
            dfdx[:, row, 0], dfdx[:, row, 1] = sign * di_du, -sign * di_du
            dfdx[:, row, 2] = sign * di_dT
        dfdx[:, 2, 0], dfdx[:, 2, 1] = -2.0 * u / R, 2.0 * u / R
        dfdx[:, 2, 2] = -u * di_dT
        return dfdx, np.zeros_like(dfdx)

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        u = x[..., 0] - x[..., 1]
        R, _ = cls._law(x[..., 2], p)
        return np.stack([u / R, R, u * u / R], axis=-1)

    @classmethod
    def sample_params(cls, rng):
        # T near T0 (the contract tests' states are in −1..1): away from the floor
        return {"R0": float(rng.uniform(0.5, 2.0)), "alpha": float(rng.uniform(0.05, 0.2)),
                "T0": float(rng.uniform(0.0, 0.5))}
