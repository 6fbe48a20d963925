"""damper — linear viscous damper between two mechanical nodes.

Ports
    a, b: translational or rotational, both the same.
Parameters
    b: damping coefficient (N·s/m or N·m·s/rad).
Equations
    (1) f = b · (p_a − p_b)           flow from a through the damper to b
Sign convention
    a ──[=]── b      f > 0 when p_a > p_b: the damper holds a back and drags b along
                     (conventions.md §1)
Outputs
    D1.f: the damping force f.
Example
    ``damper D1 v1 0 b=0.5``
"""
import numpy as np

from .base import ElementType, branch_block, branch_rows
from .declarations import MECHANICAL, Output, Param, Port
from .spring import B_UNITS, F_UNITS


class Damper(ElementType):
    keyword = "damper"
    description = "viscous damper: f = b·(p_a − p_b)"
    ports = (Port("a", MECHANICAL), Port("b", MECHANICAL))
    params = (Param("b", B_UNITS, description="damping coefficient", nonnegative=True),)
    outputs = (Output("f", F_UNITS, "damping force (flow from a to b)"),)
    linear = True
    positional_param = "b"
    pattern = np.ones((2, 2), dtype=bool)

    @classmethod
    def residual(cls, t, x, xp, p):
        return branch_rows(p.b * (x[:, 0] - x[:, 1]))            # (1)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        dfdx = branch_block(p.b)
        return dfdx, np.zeros_like(dfdx)

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        return (p.b * (x[..., 0] - x[..., 1]))[..., None]
