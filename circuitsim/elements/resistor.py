"""R — linear resistance in any domain.

Ports
    a, b: same domain (electrical, translational, rotational, hydraulic or thermal).
Parameters
    R: resistance (Ω; s/kg translational; rad/(N·m·s) rotational; Pa·s/m³ hydraulic;
       K/W thermal: a thermal resistance, heat flow = ΔT/R).
    domain: the domain of a and b where no other element fixes it (default electrical).
Equations
    (1) f = (p_a − p_b) / R            flow from a through the element to b
    rows: a: +f, b: −f
Sign convention
    a ──[ R ]── b      f > 0 when p_a > p_b (conventions.md §1)
Outputs
    R1.i: the flow f.
Example
    ``R R1 n1 n2 R=100``
"""
import numpy as np

from .base import ElementType, branch_block, branch_rows
from .declarations import Output, Param, Port, domain_param

_R_UNITS = {"electrical": "Ohm", "translational": "s/kg", "rotational": "rad/N/m/s",
            "hydraulic": "Pa*s/m^3", "thermal": "K/W"}
_FLOW = {"electrical": "A", "translational": "N", "rotational": "N*m", "hydraulic": "m^3/s",
         "thermal": "W"}


class Resistor(ElementType):
    keyword = "R"
    description = "linear resistance: flow = (p_a − p_b)/R"
    ports = (Port("a"), Port("b"))
    params = (Param("R", _R_UNITS, description="resistance", positive=True),
              domain_param())
    outputs = (Output("i", _FLOW, "flow from a to b"),)
    linear = True
    positional_param = "R"
    pattern = np.ones((2, 2), dtype=bool)

    @classmethod
    def residual(cls, t, x, xp, p):
        return branch_rows((x[:, 0] - x[:, 1]) / p.R)     # (1)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        dfdx = branch_block(1.0 / p.R)
        return dfdx, np.zeros_like(dfdx)

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        return ((x[..., 0] - x[..., 1]) / p.R)[..., None]
