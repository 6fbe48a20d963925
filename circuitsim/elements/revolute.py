"""revolute — hinge: rotation about one axis only (conventions.md §4: spherical + 2 rotation
restrictions), in the three models of the spherical joint.

Ports
    frame1, frame2: bodies, or 0 (the fixed ground frame).
    w: the axis node (rotational), named with flange=NAME (default <joint>.w).
Parameters
    at: joint point (m), global at t = 0 (or in frame1/frame2 with atframe=).
    axis: hinge axis, global at t = 0, fixed in frame 1 from then on (default (0,0,1)).
    model: velocity | position (default) | elastic; k, c, kr, cr: elastic model.
    flange: name of the axis node.
Internal variables
    f1, f2, f3 (N): reaction forces along e1, e2, n (e1, e2 ⊥ axis, fixed in frame 1);
    t1, t2 (N·m): reaction torques about n × e1 = e2 and n × e2 = −e1; mu1..mu5:
    stabilisation (position model); tau (N·m): torque applied by the axis node;
    angle (rad): joint angle.
Equations
    conventions.md §4, §5; joint.py writes them in each model (frame rows, velocity,
    position, elastic and initialisation forms):
    (1) three point-on-plane constraints: the joint points of the frames coincide
    (2) two rotation restrictions: frame 2's axis stays ⊥ e1 and e2 of frame 1 (no
        relative rotation about e2, e1; independent at every hinge angle)
    (3) axis node: w = (ω2 − ω1)·n; τ acts as torque τn on frame 2, −τn on frame 1
    (4) d angle/dt = w, angle(0) = geometric angle (0 as drawn, or .ic J.angle=...)
Sign convention
    frame1 ──(−F, −M)── ● ──(F, M)── frame2: the reaction F, M is what frame 1 exerts
    on frame 2 (conventions.md §4). w > 0 and the angle grows when frame 2 turns
    positively about n relative to frame 1; τ, the flow into the joint at its axis node
    (what a torque source on the node pushes in), drives that turn (conventions.md §5).
Outputs
    J.Fx, J.Fy, J.Fz, J.Mx, J.My, J.Mz: reaction of frame 1 on frame 2 (global, moment
    about the joint point, the axis torque τ not included); J.gap (m), J.twist (rad):
    the position-level violations of (1) and (2).
Example
    ``revolute J1 0 crank at=(0,0,0) axis=(0,0,1) flange=drive``
"""
from .joint import AXIS, ROT, Joint


class Revolute(Joint):
    keyword = "revolute"
    description = "hinge: rotation about one axis (velocity, position or elastic model)"
    n_points, n_rotations = 3, 2
    axis_motion = "rotation"
    flanges = (ROT,)
    geometry = (AXIS,)

    @classmethod
    def layout(cls, prm, e1, e2, n):
        # frame 2's axis stays ⊥ e1 and e2 of frame 1: the restricted directions n × e1,
        # n × e2 turn with frame 1 only, never with the hinge angle (they stay independent)
        return [e1, e2, n], [(e1, n), (e2, n)]              # (1) normals, (2) pairs
