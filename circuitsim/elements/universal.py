"""universal — Cardan (Hooke) joint: rotation about axis1 (fixed in frame 1) and axis2
(fixed in frame 2), perpendicular (conventions.md §4: spherical + 1 rotation restriction), in
the three models of the spherical joint.

Ports
    frame1, frame2: bodies, or 0 (the fixed ground frame).
Parameters
    at: joint point (m), global at t = 0 (or in frame1/frame2 with atframe=).
    axis1, axis2: the two perpendicular axes, global at t = 0; axis1 is fixed in frame 1,
    axis2 in frame 2. Defaults (1,0,0) and (0,1,0).
    model: velocity | position (default) | elastic; k, c, kr, cr: elastic model.
Internal variables
    f1, f2, f3 (N): reaction forces along three axes fixed in frame 1; t1 (N·m):
    reaction torque about axis2 × axis1; mu1..mu4: stabilisation (position model).
Equations
    conventions.md §4; joint.py writes them in each model (frame rows, velocity,
    position, elastic and initialisation forms):
    (1) three point-on-plane constraints: the joint points coincide
    (2) one rotation restriction: (A1·axis1)·(A2·axis2) = 0
Sign convention
    frame1 ──(−F, −M)── ● ──(F, M)── frame2: the reaction F, M is what frame 1 exerts
    on frame 2, frame 1 receives −F, −M (conventions.md §4).
Outputs
    J.Fx, J.Fy, J.Fz, J.Mx, J.My, J.Mz: reaction of frame 1 on frame 2 (global, about
    the joint point); J.gap (m), J.twist (rad): the position-level violations of (1)
    and (2).
Example
    ``universal U1 shaft1 shaft2 at=(0,0,0) axis1=(1,0,0) axis2=(0,1,0)``
"""
import numpy as np

from .declarations import Param
from .joint import Joint, check_perpendicular, triad


class Universal(Joint):
    keyword = "universal"
    description = "Cardan joint: rotation about two perpendicular axes (three models)"
    n_points, n_rotations = 3, 1
    geometry = (Param("axis1", "1", default=(1.0, 0.0, 0.0), description="axis fixed in "
                      "frame 1 (global at t = 0)", kind="vector", size=3),
                Param("axis2", "1", default=(0.0, 1.0, 0.0), description="axis fixed in "
                      "frame 2 (global at t = 0), perpendicular to axis1", kind="vector",
                      size=3))

    @classmethod
    def check(cls, inst):
        super().check(inst)
        check_perpendicular(inst, inst.params["axis1"], inst.params["axis2"], "axis1 and axis2")

    @classmethod
    def joint_axis(cls, prm):
        return prm.get("axis1", (1.0, 0.0, 0.0))

    @classmethod
    def layout(cls, prm, e1, e2, n):
        a = np.asarray(prm["axis1"], float)
        b = np.asarray(prm["axis2"], float)
        return list(triad(a)), [(a / np.linalg.norm(a), b / np.linalg.norm(b))]
