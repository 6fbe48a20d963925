"""prismatic — slider: translation along one axis only (conventions.md §4: 2 point-on-plane +
3 rotation restrictions), in the three models of the spherical joint.

Ports
    frame1, frame2: bodies, or 0 (the fixed ground frame).
    v: the axis node (translational), named with flange=NAME (default <joint>.v).
Parameters
    at: joint point (m), global at t = 0 (or in frame1/frame2 with atframe=).
    axis: sliding direction, global at t = 0, fixed in frame 1 (default (0,0,1)).
    model: velocity | position (default) | elastic; k, c, kr, cr: elastic model.
    flange: name of the axis node.
Internal variables
    f1, f2 (N): reaction forces along e1, e2 (⊥ axis, fixed in frame 1); t1, t2, t3
    (N·m): reaction torques about e1, e2, n; mu1..mu5: stabilisation (position model);
    f (N): force applied by the axis node; s (m): displacement along the axis.
Equations
    conventions.md §4, §5; joint.py writes them in each model (frame rows, velocity,
    position, elastic and initialisation forms):
    (1) two point-on-plane constraints: the point of frame 2 stays on the axis line
    (2) three rotation restrictions: no relative rotation
    (3) axis node: v = d/dt[(P2 − P1)·n]; f acts along n on frame 2 at the joint point,
        −f on frame 1
    (4) ds/dt = v, s(0) = geometric displacement (0 as drawn, or .ic J.s=...)
Sign convention
    frame1 ──(−F, −M)── ● ──(F, M)── frame2: the reaction F, M is what frame 1 exerts
    on frame 2 (conventions.md §4). v > 0 and s grows when frame 2 moves along +n
    relative to frame 1; f, the flow into the joint at its axis node (what a force
    source on the node pushes in), drives that motion (conventions.md §5).
Outputs
    J.Fx, J.Fy, J.Fz, J.Mx, J.My, J.Mz: reaction of frame 1 on frame 2 (global, moment
    about the point of frame 2; the axis force not included); J.gap (m), J.twist (rad):
    the position-level violations of (1) and (2).
Example
    ``prismatic P1 0 slider at=(0.4,0,0) axis=(1,0,0) flange=rail``
"""
from .joint import AXIS, TRANS, Joint


class Prismatic(Joint):
    keyword = "prismatic"
    description = "slider: translation along one axis (velocity, position or elastic model)"
    n_points, n_rotations = 2, 3
    axis_motion = "translation"
    drawn_as = "slider"
    flanges = (TRANS,)
    geometry = (AXIS,)

    @classmethod
    def layout(cls, prm, e1, e2, n):
        return [e1, e2], [(n, e2), (e1, n), (e2, e1)]   # (1); (2) about e1, e2, n
