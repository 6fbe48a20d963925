"""drive — position source on a joint's axis node: the joint coordinate follows x(t).

Written by the directive ``.drive J.angle={x(time)}`` (``.drive J.s={...}`` for a
prismatic joint), which places it between the joint's axis node and ground, names it
``J.drive`` and makes the start-up assemble the mechanism at J.angle = x(0)
(docs/mechanics.md, prescribed joint motion). Written as an element line, it prescribes
the node's rate alone.

Ports
    a: the axis node of a joint (rotational or translational); b: the reference (0).
Parameters
    x: {expression} of time (and .param constants): the prescribed joint coordinate,
       rad (rotational) or m (translational).
Internal variables
    f (algebraic): the torque (N·m) or force (N) the drive applies, the flow it pushes
    into node a.
Equations
    (1) p_a − p_b − x'(t) = 0      x' = dx/dt, differentiated symbolically at set-up
    rows: a: −f, b: +f
    The position itself is not an equation: the start-up sets the joint coordinate to
    x(0), and (1) makes it follow x(t) up to the integration error (docs/mechanics.md
    gives the measured drift).
Sign convention
    a ──(f →)── the joint: f > 0 turns (moves) the joint's frame 2 positively about
    (along) its axis relative to frame 1, as a torque source on the node would
    (conventions.md §5). The drive's power is f·(p_a − p_b).
Outputs
    J.drive.x: the prescribed coordinate x(t); J.drive.P: the power the drive delivers
    into the joint, f·(p_a − p_b) (W).
Example
    ``.drive J1.angle={0.3*sin(2*pi*time)}``  (writes ``drive J1.drive J1.w 0 x={...}``)
"""
from types import SimpleNamespace

import numpy as np

from ..runtime import expressions
from ..runtime.expressions import Name, Num, func, mul
from .base import ElementType
from .declarations import MECHANICAL, Output, Param, Port, State
from .resistor import _FLOW

POSITION = {"rotational": "rad", "translational": "m"}


class PositionDrive(ElementType):
    keyword = "drive"
    description = "position source on a joint's axis node: rate x'(t), coordinate x(t)"
    ports = (Port("a", MECHANICAL, description="the joint's axis node"),
             Port("b", MECHANICAL, description="reference node (0)"))
    params = (Param("x", POSITION, kind="expr",
                    description="prescribed joint coordinate, an expression of time"),)
    states = (State("f", _FLOW, False, "torque or force the drive applies: the flow it "
                    "pushes into node a"),)
    outputs = (Output("x", POSITION, "the prescribed joint coordinate x(t)"),
               Output("P", "W", "power delivered into the joint, f·(p_a − p_b)"))
    imposes = "potential"
    pattern = np.array([[0, 0, 1], [0, 0, 1], [1, 1, 0]], dtype=bool)

    @classmethod
    def supplies_power(cls, p) -> bool:
        return True

    @classmethod
    def group_key(cls, inst):
        return expressions.to_text(inst.params["x"])

    @classmethod
    def prepare(cls, instances):
        tree = instances[0].params["x"]
        rate = expressions.diff(tree, "time")
        return SimpleNamespace(n=len(instances), x=expressions.compile_(tree, ["time"]),
                               rate=expressions.compile_(rate, ["time"]))

    @classmethod
    def imposed_potential(cls, t, p):
        return np.broadcast_to(np.asarray(p.rate(t), dtype=float), (p.n,))

    @classmethod
    def residual(cls, t, x, xp, p):
        f = x[:, 2]
        out = np.empty((x.shape[0], 3))
        out[:, 0], out[:, 1] = -f, f
        out[:, 2] = x[:, 0] - x[:, 1] - p.rate(t)                       # (1)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        dfdx = np.zeros((x.shape[0], 3, 3))
        dfdx[:, 0, 2], dfdx[:, 1, 2] = -1.0, 1.0
        dfdx[:, 2, 0], dfdx[:, 2, 1] = 1.0, -1.0
        return dfdx, np.zeros_like(dfdx)

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        shape = x.shape[:2]
        position = np.broadcast_to(np.asarray(p.x(np.asarray(t)[:, None]), float), shape)
        return np.stack([position, x[..., 2] * (x[..., 0] - x[..., 1])], axis=-1)

    @classmethod
    def sample_params(cls, rng):
        time = Name("time")                                  # 0.4·sin(3·time)
        return {"x": mul(Num(0.4), func("sin", mul(Num(3.0), time)))}
