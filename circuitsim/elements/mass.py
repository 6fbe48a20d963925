"""mass — translational mass to ground (the C-like element of the translational domain).

Ports
    a: translational node, its potential is the mass's velocity (m/s).
Parameters
    m: mass (kg); v0: initial velocity (m/s, default: the node's start value, 0).
Equations
    (1) f = m · dv_a/dt          (flow into the mass, i.e. the inertial force)
Sign convention
    a ──[m]── ground     v_a > 0 moving towards +x; with a force source F on a:
                         m·dv/dt − F = 0 (conventions.md §1)
Outputs
    M1.E: the kinetic energy ½·m·v² (J).
Example
    ``mass M1 v1 m=5kg v0=0``
"""
import numpy as np

from .base import ElementType
from .declarations import Output, Param, Port


class Mass(ElementType):
    keyword = "mass"
    description = "translational mass to ground: f = m·dv/dt"
    ports = (Port("a", ("translational",)),)
    params = (Param("m", "kg", description="mass", positive=True),
              Param("v0", "m/s", default=None, description="initial velocity of node a"))
    outputs = (Output("E", "J", "kinetic energy ½·m·v²", kind="energy"),)
    differential_vars = (0,)
    linear = True
    positional_param = "m"
    pattern = np.ones((1, 1), dtype=bool)
    _coef = "m"
    _init = "v0"

    @classmethod
    def initial_potentials(cls, inst):
        v0 = inst.params.get(cls._init)
        return [] if v0 is None else [(0, float(v0), None)]

    @classmethod
    def residual(cls, t, x, xp, p):
        return (getattr(p, cls._coef) * xp[:, 0])[:, None]      # (1)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        dfdxp = getattr(p, cls._coef)[:, None, None] * np.ones((x.shape[0], 1, 1))
        return np.zeros_like(dfdxp), dfdxp

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        return (0.5 * getattr(p, cls._coef) * x[..., 0] ** 2)[..., None]
