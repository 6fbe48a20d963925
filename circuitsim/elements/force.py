"""force — a force applied at a point of a frame (global components).

Ports
    frame: a body (or 0, where it has no effect).
Parameters
    F: (fx, fy, fz) force, global components (N); each may be a time function.
    at: (x, y, z) point of application in global coordinates at t = 0 (m); it moves with
        the body. Default: the body's centre of mass.
Equations
    with r = A(q)·x_l the arm from the centre of mass (x_l fixed in the body):
    (1) rows V of the frame: −F
    (2) rows ω of the frame: −r × F
Sign convention
    F is the force applied to the frame: alone on a body at rest it accelerates the body
    along +F (m·dV/dt = F); as a flow into the body it enters the frame's rows with a
    minus sign (conventions.md §1, §3)
Outputs
    none.
Example
    ``force F1 B1 F=(0, 0, -10) at=(1, 0, 0)``
"""
import numpy as np

from .base import ElementType
from .declarations import Param, Port
from .frames import NV, Q, V, W, arm, cross, local_offset, skew


class Force(ElementType):
    keyword = "force"
    description = "force at a point of a frame, global components"
    ports = (Port("frame", frame=True),)
    params = (Param("F", "N", description="force (fx, fy, fz), global", kind="timevector",
                    size=3),
              Param("at", "m", default=None, description="point of application at t = 0 "
                    "(default: centre of mass)", kind="vector", size=3))
    pattern = np.zeros((NV, NV), dtype=bool)
    pattern[3:6, 9:13] = True

    @classmethod
    def supplies_power(cls, p) -> bool:
        return True

    @classmethod
    def link(cls, inst, frames):
        at = inst.params.get("at")
        state = frames[inst.nodes[0]]
        inst.params["x_local"] = (np.zeros(3) if at is None
                                  else local_offset(state, at))

    @classmethod
    def prepare(cls, instances):
        p = super().prepare(instances)
        p.x_local = np.array([i.params.get("x_local", np.zeros(3)) for i in instances])
        return p

    @classmethod
    def residual(cls, t, x, xp, p):
        f = p.F(t)
        r, _ = arm(x, 0, p.x_local)
        out = np.zeros((x.shape[0], NV))
        out[:, V] = -f                                           # (1)
        out[:, W] = -cross(r, f)                              # (2)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        f = p.F(t)
        _, dr = arm(x, 0, p.x_local)
        dfdx = np.zeros((x.shape[0], NV, NV))
        dfdx[:, W, Q] = np.einsum("nij,njk->nik", skew(f), dr)  # −(dr × F) = F × dr
        return dfdx, np.zeros_like(dfdx)
