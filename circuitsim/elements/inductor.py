"""L — inductance in any domain (a compliance 1/k in mechanics, an inertance in hydraulics).

Ports
    a, b: same domain.
Parameters
    L: inductance (H; m/N translational; rad/(N·m) rotational; Pa·s²/m³ hydraulic).
    ic: initial flow (optional, default 0).
    domain: the domain of a and b where no other element fixes it (default electrical;
       not thermal: heat has no inertia, there is no thermal inductance).
Internal variables
    i (differential): the flow from a through the element to b.
Equations
    (1) L · di/dt − (p_a − p_b) = 0
    rows: a: +i, b: −i
Sign convention
    a ──(LLL)── b      i > 0 from a to b; it grows while p_a > p_b (conventions.md §1)
Outputs
    L1.i: the flow i (the internal variable); L1.E: the stored energy ½·L·i² (J).
Example
    ``L L1 n2 n3 L=10mH``
"""
import numpy as np

from ..errors import ModelError
from .base import ElementType
from .declarations import Output, Param, Port, State, domain_param
from .resistor import _FLOW

_L_UNITS = {"electrical": "H", "translational": "m/N", "rotational": "rad/N/m",
            "hydraulic": "Pa*s^2/m^3"}


class Inductor(ElementType):
    keyword = "L"
    description = "inductance: L·di/dt = p_a − p_b"
    ports = (Port("a"), Port("b"))
    params = (Param("L", _L_UNITS, description="inductance", positive=True),
              Param("ic", _FLOW, default=0.0, description="initial flow i"),
              domain_param())
    states = (State("i", _FLOW, True, "flow from a to b", init_param="ic"),)
    outputs = (Output("E", "J", "stored energy ½·L·i²", kind="energy"),)
    differential_vars = (2,)
    linear = True
    positional_param = "L"
    pattern = np.array([[0, 0, 1], [0, 0, 1], [1, 1, 1]], dtype=bool)

    @classmethod
    def check(cls, inst):
        if "thermal" in inst.domains:
            raise ModelError(f"L {inst.name}: there is no thermal inductance (heat flow has "
                             "no inertia); use R (thermal resistance) and C (heat capacity)",
                             inst.loc)

    @classmethod
    def residual(cls, t, x, xp, p):
        i = x[:, 2]
        return np.stack([i, -i, p.L * xp[:, 2] - (x[:, 0] - x[:, 1])], axis=1)   # (1)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        n = x.shape[0]
        dfdx = np.zeros((n, 3, 3)); dfdxp = np.zeros((n, 3, 3))
        dfdx[:, 0, 2] = 1.0; dfdx[:, 1, 2] = -1.0
        dfdx[:, 2, 0] = -1.0; dfdx[:, 2, 1] = 1.0
        dfdxp[:, 2, 2] = p.L
        return dfdx, dfdxp

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        return (0.5 * p.L * x[..., 2] ** 2)[..., None]
