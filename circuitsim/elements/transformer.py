"""transformer — ideal power-conserving transformer between two port pairs.

Ports
    a, b: first side (any domain); c, d: second side (any domain, may differ).
Parameters
    n: ratio, in SI units of (p_a − p_b)/(p_c − p_d): 1 for a gear of equal sides,
       V·s/rad for a DC motor's torque/back-EMF constant. A gear ω1 = 3·ω2 is
       ``transformer G1 w1 0 w2 0 n=3``.
Internal variables
    i (algebraic): flow from a through the element to b.
Equations
    conventions.md §2:
    (1) (p_a − p_b) − n·(p_c − p_d) = 0
    (2) f_cd = −n·i           so (p_a − p_b)·i + (p_c − p_d)·f_cd = 0
    rows: a: +i, b: −i, c: −n·i, d: +n·i
Sign convention
    a ──┐   ┌── c      i flows from a through the element to b, f_cd from c through it
    b ──┘   └── d      to d: the power (p_a − p_b)·i taken in at a–b is delivered at
                       c–d, where n·i flows out of the element into node c
                       (conventions.md §2)
Outputs
    TM.i: the flow i (the internal variable).
Example
    ``transformer TM arm 0 shaft 0 n=0.05``  (DC motor coupling, e = k·ω, τ = k·i)
"""
import numpy as np

from .base import ElementType
from .declarations import Param, Port, RatioUnit, State
from .resistor import _FLOW


class Transformer(ElementType):
    keyword = "transformer"
    description = "ideal transformer: p_a − p_b = n·(p_c − p_d), f_cd = −n·f_ab"
    ports = (Port("a", group="a"), Port("b", group="a"), Port("c", group="c"),
             Port("d", group="c"))
    params = (Param("n", RatioUnit(("potential", "a"), ("potential", "c")),
                    description="ratio (p_a − p_b)/(p_c − p_d), SI units"),)
    states = (State("i", _FLOW, False, "flow from a through the element to b"),)
    linear = True
    positional_param = "n"
    pattern = np.array([[0, 0, 0, 0, 1], [0, 0, 0, 0, 1], [0, 0, 0, 0, 1],
                        [0, 0, 0, 0, 1], [1, 1, 1, 1, 0]], dtype=bool)

    @classmethod
    def residual(cls, t, x, xp, p):
        i = x[:, 4]
        return np.stack([i, -i, -p.n * i, p.n * i,                             # (2)
                         x[:, 0] - x[:, 1] - p.n * (x[:, 2] - x[:, 3])], axis=1)   # (1)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        dfdx = np.zeros((x.shape[0], 5, 5))
        dfdx[:, 0, 4] = 1.0; dfdx[:, 1, 4] = -1.0
        dfdx[:, 2, 4] = -p.n; dfdx[:, 3, 4] = p.n
        dfdx[:, 4, 0] = 1.0; dfdx[:, 4, 1] = -1.0
        dfdx[:, 4, 2] = -p.n; dfdx[:, 4, 3] = p.n
        return dfdx, np.zeros_like(dfdx)
