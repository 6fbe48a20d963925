"""inertia — rotational inertia to ground (the C-like element of the rotational domain).

Ports
    a: rotational node, its potential is the angular velocity (rad/s).
Parameters
    J: moment of inertia (kg·m²); w0: initial angular velocity (rad/s, also rpm).
Equations
    (1) τ = J · dω_a/dt          (flow into the inertia, the inertial torque)
Sign convention
    a ──[J]── ground     with a torque source τ on a: J·dω/dt − τ = 0 (conventions.md §1)
Outputs
    J1.E: the kinetic energy ½·J·ω² (J).
Example
    ``inertia J1 w J=1e-4 w0=300rpm``
"""
from .declarations import Output, Param, Port
from .mass import Mass


class Inertia(Mass):
    keyword = "inertia"
    description = "rotational inertia to ground: τ = J·dω/dt"
    ports = (Port("a", ("rotational",)),)
    params = (Param("J", "kg*m^2", description="moment of inertia", positive=True),
              Param("w0", "rad/s", default=None, description="initial angular velocity of node a"))
    outputs = (Output("E", "J", "kinetic energy ½·J·ω²", kind="energy"),)
    positional_param = "J"
    _coef = "J"
    _init = "w0"
