"""cylindrical — rotation about and translation along one axis (conventions.md §4: 2
point-on-plane + 2 rotation restrictions), in the three models of the spherical joint.

Ports
    frame1, frame2: bodies, or 0 (the fixed ground frame).
    w: rotational axis node (flange=NAME, default <joint>.w);
    v: translational axis node (flange2=NAME, default <joint>.v).
Parameters
    at: joint point (m), global at t = 0 (or in frame1/frame2 with atframe=).
    axis: the axis, global at t = 0, fixed in frame 1 (default (0,0,1)).
    model: velocity | position (default) | elastic; k, c, kr, cr: elastic model.
    flange, flange2: names of the rotational and translational axis nodes.
Internal variables
    f1, f2 (N): reaction forces along e1, e2; t1, t2 (N·m): reaction torques about e1,
    e2; mu1..mu4: stabilisation (position model); tau (N·m), f (N): flows of the axis
    nodes; angle (rad), s (m): joint coordinates.
Equations
    conventions.md §4, §5; joint.py writes them in each model (frame rows, velocity,
    position, elastic and initialisation forms):
    (1) two point-on-plane constraints: the point of frame 2 stays on the axis line
    (2) two rotation restrictions: no relative rotation about e1, e2
    (3) w = (ω2 − ω1)·n with torque τn; v = d/dt[(P2 − P1)·n] with force f·n
    (4) d angle/dt = w, ds/dt = v
Sign convention
    frame1 ──(−F, −M)── ● ──(F, M)── frame2: the reaction F, M is what frame 1 exerts
    on frame 2 (conventions.md §4). w > 0 (v > 0) when frame 2 turns positively about
    (moves along) n relative to frame 1; τ and f, the flows into the joint at its axis
    nodes, act as τn and f·n on frame 2 and the opposite on frame 1 (conventions.md §5).
Outputs
    J.Fx, J.Fy, J.Fz, J.Mx, J.My, J.Mz: reaction of frame 1 on frame 2 (global, about
    the point of frame 2); J.gap (m), J.twist (rad): the position-level violations of
    (1) and (2).
Example
    ``cylindrical C1 0 piston at=(0,0,0) axis=(1,0,0) flange=spin flange2=stroke``
"""
from dataclasses import replace

from .joint import AXIS, ROT, TRANS, Joint


class Cylindrical(Joint):
    keyword = "cylindrical"
    description = "rotation about and translation along one axis (three models)"
    n_points, n_rotations = 2, 2
    drawn_as = "slider"
    flanges = (ROT, replace(TRANS, param="flange2"))
    geometry = (AXIS,)

    @classmethod
    def layout(cls, prm, e1, e2, n):
        return [e1, e2], [(e1, n), (e2, n)]               # (1), (2) as revolute.py
