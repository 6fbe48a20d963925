"""pointplane — constraint primitive: a point of frame 2 stays in a plane of frame 1
(conventions.md §4), in the three models of the spherical joint.

Ports
    frame1, frame2: bodies, or 0 (the fixed ground frame).
Parameters
    at: the point (m), global at t = 0 (default: frame 2's centre of mass), or in
    frame1/frame2 with atframe=; the plane passes through it at t = 0.
    normal: the plane's normal, global at t = 0, fixed in frame 1 (default (0,0,1)).
    model: velocity | position (default) | elastic; k, c: elastic model.
Internal variables
    f1 (N): the normal reaction (force of frame 1 on frame 2 along the normal);
    mu1: stabilisation (position model).
Equations
    conventions.md §4; joint.py writes them in each model (frame rows, velocity,
    position, elastic and initialisation forms):
    (1) g = n·(P2 − P1) = 0, P_i the point as fixed in frame i, n = A1·n_l
    (2) dg/dt = n·(V2 + ω2×r2 − V1) − ω1·((P2 − p1)×n): the velocity model's equation
Sign convention
    frame1 ──(−F)── ● ──(F)── frame2: F = f1·n is the force frame 1 exerts on frame 2
    at the point, f1 > 0 pushing frame 2 along +n (conventions.md §4).
Outputs
    J.Fx, J.Fy, J.Fz, J.Mx, J.My, J.Mz: reaction of frame 1 on frame 2 (global; no
    moment about the point); J.gap (m): |g|.
Example
    ``pointplane PP1 0 B1 at=(0,0,0) normal=(0,0,1)``
"""
from .declarations import Param
from .joint import Joint


class PointPlane(Joint):
    keyword = "pointplane"
    description = "a point of frame 2 stays in a plane of frame 1 (three models)"
    n_points, n_rotations = 1, 0
    geometry = (Param("normal", "1", default=(0.0, 0.0, 1.0), description="normal of the "
                      "plane, global at t = 0, fixed in frame 1", kind="vector", size=3),)

    @classmethod
    def joint_axis(cls, prm):
        return prm.get("normal", (0.0, 0.0, 1.0))

    @classmethod
    def layout(cls, prm, e1, e2, n):
        return [n], []                                        # (1)
