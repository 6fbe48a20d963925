"""torque — a torque applied to a frame (global components).

Ports
    frame: a body (or 0, where it has no effect).
Parameters
    M: (mx, my, mz) torque, global components (N·m); each component may be a time
       function: ``M=(0, 0, step(1, 0, 5))``.
Equations
    (1) rows ω of the frame: −M   (an applied torque enters the balance negatively)
Sign convention
    M is the torque applied to the frame (with it alone a body at rest spins up about
    +M: J·dω/dt = M); as a flow into the body it enters the rows ω with a minus sign
    (conventions.md §1, §3)
Outputs
    none.
Example
    ``torque T1 B1 M=(0, 0, sin(0, 2, 1))``
"""
import numpy as np

from .base import ElementType
from .declarations import Param, Port
from .frames import NV, W


class Torque(ElementType):
    keyword = "torque"
    description = "torque on a frame, global components"
    ports = (Port("frame", frame=True),)
    params = (Param("M", "N*m", description="torque (mx, my, mz), global", kind="timevector",
                    size=3),)
    pattern = np.zeros((NV, NV), dtype=bool)

    @classmethod
    def supplies_power(cls, p) -> bool:
        return True

    @classmethod
    def residual(cls, t, x, xp, p):
        F = np.zeros((x.shape[0], NV))
        F[:, W] = -p.M(t)                                        # (1)
        return F

    @classmethod
    def jacobian(cls, t, x, xp, p):
        z = np.zeros((x.shape[0], NV, NV))
        return z, z.copy()
