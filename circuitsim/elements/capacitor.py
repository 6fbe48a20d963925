"""C — capacitance in any domain (a mass or inertia between two nodes in mechanics).

Ports
    a, b: same domain.
Parameters
    C: capacitance (F; kg translational; kg·m² rotational; m³/Pa hydraulic).
    ic: initial potential difference p_a − p_b (optional).
    domain: the domain of a and b where no other element fixes it (default electrical).
Equations
    (1) f = C · d(p_a − p_b)/dt
    rows: a: +f, b: −f
Sign convention
    a ──| |── b      f > 0 from a to b when p_a − p_b rises (conventions.md §1)
Outputs
    C1.i: the flow f; C1.E: the stored energy ½·C·(p_a − p_b)² (J).
Example
    ``C C1 n3 0 C=10u ic=0``
"""
import numpy as np

from .base import ElementType, branch_block, branch_rows
from .declarations import Output, Param, Port, domain_param
from .resistor import _FLOW

_C_UNITS = {"electrical": "F", "translational": "kg", "rotational": "kg*m^2",
            "hydraulic": "m^3/Pa"}
_P_UNITS = {"electrical": "V", "translational": "m/s", "rotational": "rad/s", "hydraulic": "Pa"}


class Capacitor(ElementType):
    keyword = "C"
    description = "capacitance: flow = C·d(p_a − p_b)/dt"
    ports = (Port("a"), Port("b"))
    params = (Param("C", _C_UNITS, description="capacitance", positive=True),
              Param("ic", _P_UNITS, default=None, description="initial p_a − p_b"),
              domain_param())
    outputs = (Output("i", _FLOW, "flow from a to b"),
               Output("E", "J", "stored energy ½·C·(p_a − p_b)²", kind="energy"))
    differential_vars = (0, 1)
    linear = True
    positional_param = "C"
    pattern = np.ones((2, 2), dtype=bool)

    @classmethod
    def initial_potentials(cls, inst):
        ic = inst.params.get("ic")
        return [] if ic is None else [(0, float(ic), 1)]

    @classmethod
    def residual(cls, t, x, xp, p):
        return branch_rows(p.C * (xp[:, 0] - xp[:, 1]))    # (1)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        dfdxp = branch_block(p.C)
        return np.zeros_like(dfdxp), dfdxp

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        dv = x[..., 0] - x[..., 1]
        return np.stack([p.C * (xp[..., 0] - xp[..., 1]), 0.5 * p.C * dv * dv], axis=-1)
