r"""spring — linear spring between two translational (or two rotational) nodes.

Ports
    a, b: translational (N, m) or rotational (N·m, rad), both the same.
Parameters
    k: stiffness (N/m or N·m/rad); x0: initial deflection x(0) (m or rad, default 0).
Internal variables
    x (differential): deflection, the integral of p_a − p_b.
Equations
    (1) f = k · x                      flow from a through the spring to b
    (2) dx/dt − (p_a − p_b) = 0
Sign convention
    a ──/\/\/── b     x > 0 when a has moved towards +x relative to b; then f > 0 pulls
                      a back (node a's balance gets +k·x) and pushes b forward
                      (conventions.md §1).
Outputs
    K1.x: the deflection x (the internal variable); K1.f: the spring force f;
    K1.E: the stored energy ½·k·x² (J).
Example
    ``spring K1 v1 0 k=100 x0=0.1``
"""
import numpy as np

from .base import ElementType
from .declarations import MECHANICAL, Output, Param, Port, State

K_UNITS = {"translational": "N/m", "rotational": "N*m/rad"}
X_UNITS = {"translational": "m", "rotational": "rad"}
B_UNITS = {"translational": "N*s/m", "rotational": "N*m*s/rad"}
F_UNITS = {"translational": "N", "rotational": "N*m"}
V_UNITS = {"translational": "m/s", "rotational": "rad/s"}


class Spring(ElementType):
    keyword = "spring"
    description = "linear spring: f = k·x, dx/dt = p_a − p_b"
    ports = (Port("a", MECHANICAL), Port("b", MECHANICAL))
    params = (Param("k", K_UNITS, description="stiffness", nonnegative=True),
              Param("x0", X_UNITS, default=0.0, description="initial deflection"))
    states = (State("x", X_UNITS, True, "deflection", init_param="x0"),)
    outputs = (Output("f", F_UNITS, "spring force (flow from a to b)"),
               Output("E", "J", "stored energy ½·k·x²", kind="energy"))
    differential_vars = (2,)
    linear = True
    positional_param = "k"
    pattern = np.array([[0, 0, 1], [0, 0, 1], [1, 1, 1]], dtype=bool)

    @classmethod
    def residual(cls, t, x, xp, p):
        f = p.k * x[:, 2]                                         # (1)
        return np.stack([f, -f, xp[:, 2] - (x[:, 0] - x[:, 1])], axis=1)   # (2)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        n = x.shape[0]
        dfdx = np.zeros((n, 3, 3)); dfdxp = np.zeros((n, 3, 3))
        dfdx[:, 0, 2] = p.k; dfdx[:, 1, 2] = -p.k
        dfdx[:, 2, 0] = -1.0; dfdx[:, 2, 1] = 1.0
        dfdxp[:, 2, 2] = 1.0
        return dfdx, dfdxp

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        return np.stack([p.k * x[..., 2], 0.5 * p.k * x[..., 2] ** 2], axis=-1)
