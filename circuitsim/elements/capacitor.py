"""C — capacitance in any domain (a mass or inertia between two nodes in mechanics).

Ports
    a, b: same domain.
Parameters
    C: capacitance (F; kg translational; kg·m² rotational; m³/Pa hydraulic; J/K thermal:
       a heat capacity m·c_p, normally to ground ``0``, which is 0 K).
    ic: initial potential difference p_a − p_b (optional; thermal to ground: the initial
       absolute temperature, ``ic=20degC``).
    domain: the domain of a and b where no other element fixes it (default electrical).
Equations
    (1) f = C · d(p_a − p_b)/dt
    rows: a: +f, b: −f
Sign convention
    a ──| |── b      f > 0 from a to b when p_a − p_b rises (conventions.md §1)
Outputs
    C1.i: the flow f; C1.E: the stored energy ½·C·(p_a − p_b)² (J); in the thermal
    domain the heat content C·(T_a − T_b) (J, from 0 K) instead, which the run report
    counts as heat, not as stored work.
Example
    ``C C1 n3 0 C=10u ic=0``
"""
import numpy as np

from .base import ElementType, branch_block, branch_rows
from .declarations import THERMAL, Output, Param, Port, domain_param
from .resistor import _FLOW

_C_UNITS = {"electrical": "F", "translational": "kg", "rotational": "kg*m^2",
            "hydraulic": "m^3/Pa", "thermal": "J/K"}
_P_UNITS = {"electrical": "V", "translational": "m/s", "rotational": "rad/s", "hydraulic": "Pa",
            "thermal": "K"}


class Capacitor(ElementType):
    keyword = "C"
    description = "capacitance: flow = C·d(p_a − p_b)/dt"
    ports = (Port("a"), Port("b"))
    params = (Param("C", _C_UNITS, description="capacitance", positive=True),
              Param("ic", _P_UNITS, default=None, description="initial p_a − p_b"),
              domain_param())
    outputs = (Output("i", _FLOW, "flow from a to b"),
               Output("E", "J", "stored energy ½·C·(p_a − p_b)² (thermal: heat content "
                      "C·(T_a − T_b))", kind="energy"))
    differential_vars = (0, 1)
    linear = True
    positional_param = "C"
    pattern = np.ones((2, 2), dtype=bool)

    @classmethod
    def initial_potentials(cls, inst):
        ic = inst.params.get("ic")
        return [] if ic is None else [(0, float(ic), 1)]

    @classmethod
    def prepare(cls, instances):
        p = super().prepare(instances)
        # a heat capacity's energy is its heat content C·T, not ½·C·T²
        p.thermal = np.array([THERMAL in inst.domains for inst in instances], dtype=bool)
        return p

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
        energy = np.where(p.thermal, p.C * dv, 0.5 * p.C * dv * dv)
        return np.stack([p.C * (xp[..., 0] - xp[..., 1]), energy], axis=-1)
