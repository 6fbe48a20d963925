"""gyrator — ideal power-conserving gyrator between two port pairs.

Ports
    a, b: first side; c, d: second side (domains may differ).
Parameters
    k: ratio in SI units of f_ab/(p_c − p_d); a hydraulic piston of area A couples
       pressure to force and velocity to volume flow with k = A (m²).
Equations
    conventions.md §2:
    (1) f_ab = k·(p_c − p_d)
    (2) f_cd = −k·(p_a − p_b)       so (p_a − p_b)·f_ab + (p_c − p_d)·f_cd = 0
    rows: a: +f_ab, b: −f_ab, c: +f_cd, d: −f_cd
Sign convention
    a ──┐   ┌── c      f_ab flows from a through the element to b, f_cd from c through
    b ──┘   └── d      it to d; a potential difference on one side drives the flow of
                       the other (conventions.md §2)
Outputs
    none.
Example
    ``gyrator P1 p 0 v 0 k=2e-3``
"""
import numpy as np

from .base import ElementType
from .declarations import Param, Port, RatioUnit


class Gyrator(ElementType):
    keyword = "gyrator"
    description = "ideal gyrator: f_ab = k·(p_c − p_d), f_cd = −k·(p_a − p_b)"
    ports = (Port("a", group="a"), Port("b", group="a"), Port("c", group="c"),
             Port("d", group="c"))
    params = (Param("k", RatioUnit(("flow", "a"), ("potential", "c")),
                    description="ratio f_ab/(p_c − p_d), SI units"),)
    linear = True
    positional_param = "k"
    pattern = np.array([[0, 0, 1, 1], [0, 0, 1, 1], [1, 1, 0, 0], [1, 1, 0, 0]], dtype=bool)

    @classmethod
    def residual(cls, t, x, xp, p):
        fab = p.k * (x[:, 2] - x[:, 3])                          # (1)
        fcd = -p.k * (x[:, 0] - x[:, 1])                         # (2)
        return np.stack([fab, -fab, fcd, -fcd], axis=1)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        dfdx = np.zeros((x.shape[0], 4, 4))
        dfdx[:, 0, 2] = p.k; dfdx[:, 0, 3] = -p.k
        dfdx[:, 1, 2] = -p.k; dfdx[:, 1, 3] = p.k
        dfdx[:, 2, 0] = -p.k; dfdx[:, 2, 1] = p.k
        dfdx[:, 3, 0] = p.k; dfdx[:, 3, 1] = -p.k
        return dfdx, np.zeros_like(dfdx)
