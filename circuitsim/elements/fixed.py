"""fixed — rigid connection: no relative motion (conventions.md §4: spherical + 3 rotation
restrictions), in the three models of the spherical joint.

Ports
    frame1, frame2: bodies, or 0 (the fixed ground frame).
Parameters
    at: joint point (m), global at t = 0 (default: frame 2's centre of mass), or in
    frame1/frame2 with atframe=; the reported moment is taken about it.
    model: velocity | position (default) | elastic; k, c, kr, cr: elastic model.
Internal variables
    f1, f2, f3 (N): reaction forces along the global axes at t = 0 (fixed in frame 1);
    t1, t2, t3 (N·m): reaction torques about them; mu1..mu6: stabilisation.
Equations
    conventions.md §4; joint.py writes them in each model (frame rows, velocity,
    position, elastic and initialisation forms):
    (1) three point-on-plane constraints: the joint points coincide
    (2) three rotation restrictions: no relative rotation
Sign convention
    frame1 ──(−F, −M)── ● ──(F, M)── frame2: the reaction F, M is what frame 1 exerts
    on frame 2, frame 1 receives −F, −M (conventions.md §4).
Outputs
    J.Fx, J.Fy, J.Fz, J.Mx, J.My, J.Mz: reaction of frame 1 on frame 2 (global, about
    the joint point); J.gap (m), J.twist (rad): the position-level violations of (1)
    and (2).
Example
    ``fixed W1 beam1 beam2 at=(1,0,0)``
"""
from .joint import Joint


class Fixed(Joint):
    keyword = "fixed"
    description = "rigid connection of two frames (velocity, position or elastic model)"
    n_points, n_rotations = 3, 3
    axis_motion = "none"

    @classmethod
    def joint_axis(cls, prm):
        return (1.0, 0.0, 0.0)

    @classmethod
    def layout(cls, prm, e1, e2, n):
        # with axis x: e1 = y, e2 = z, n = x
        return [n, e1, e2], [(e2, e1), (n, e2), (e1, n)]    # (1); (2) about n(x), e1(y), e2(z)
