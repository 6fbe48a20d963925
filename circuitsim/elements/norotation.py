"""norotation — constraint primitive: no relative rotation of frame 2 about a direction
fixed in frame 1 (conventions.md §4), in the three models of the spherical joint.

Ports
    frame1, frame2: bodies, or 0 (the fixed ground frame).
Parameters
    axis: the direction, global at t = 0, fixed in frame 1 (default (0,0,1)).
    model: velocity | position (default) | elastic; kr, cr: elastic model.
Internal variables
    t1 (N·m): the reaction torque of frame 1 on frame 2 about the axis;
    mu1: stabilisation (position model).
Equations
    conventions.md §4; joint.py writes them in each model (frame rows, velocity,
    position, elastic and initialisation forms):
    (1) position: a·b = 0 with a = e2 fixed in frame 1, b = e1 fixed in frame 2
        (e1, e2 ⊥ axis, perpendicular at t = 0)
    (2) velocity: d(a·b)/dt = (ω2 − ω1)·(b × a) = 0, b × a = axis at t = 0
Sign convention
    frame1 ──(−M)── ● ──(M)── frame2: M = t1·(b × a) is the torque frame 1 exerts on
    frame 2 (conventions.md §4).
Outputs
    J.Fx, J.Fy, J.Fz: zero (no force); J.Mx, J.My, J.Mz: reaction torque (global);
    J.gap: zero (no point constraint); J.twist (rad): |a·b|.
Example
    ``norotation NR1 0 B1 axis=(0,0,1)``
"""
from .joint import AXIS, Joint


class NoRotation(Joint):
    keyword = "norotation"
    description = "no relative rotation about a direction of frame 1 (three models)"
    n_points, n_rotations = 0, 1
    geometry = (AXIS,)
    uses_point = False

    @classmethod
    def layout(cls, prm, e1, e2, n):
        return [], [(e2, e1)]                         # (1): a = e2, b = e1
