"""universal — Cardan (Hooke) joint: rotation about axis1 (fixed in frame 1) and axis2
(fixed in frame 2), perpendicular (conventions.md §4: spherical + 1 rotation restriction), in
the three models of the spherical joint, with an axis node and a joint angle per axis.

Ports
    frame1, frame2: bodies, or 0 (the fixed ground frame).
    w1, w2: the axis nodes (rotational) of axis1 and axis2, named with flange1=NAME,
    flange2=NAME (default <joint>.w1, <joint>.w2).
Parameters
    at: joint point (m), global at t = 0 (or in frame1/frame2 with atframe=).
    axis1, axis2: the two perpendicular axes, global at t = 0; axis1 is fixed in frame 1,
    axis2 in frame 2. Defaults (1,0,0) and (0,1,0).
    model: velocity | position (default) | elastic; k, c, kr, cr: elastic model.
    flange1, flange2: names of the axis nodes.
Internal variables
    f1, f2, f3 (N): reaction forces along three axes fixed in frame 1; t1 (N·m):
    reaction torque about axis2 × axis1; mu1..mu4: stabilisation (position model);
    tau1, tau2 (N·m): torques applied by the axis nodes; angle1, angle2 (rad): the
    Cardan angles (5).
Equations
    conventions.md §4, §5; joint.py writes them in each model (frame rows, velocity,
    position, elastic and initialisation forms). a1 = A1·axis1_l, a2 = A2·axis2_l (unit,
    global now), ω_rel = ω2 − ω1:
    (1) three point-on-plane constraints: the joint points coincide
    (2) one rotation restriction: a1·a2 = 0
    (3) axis nodes: w1 = ω_rel·a1, w2 = ω_rel·a2; τ_k acts as torque τ_k·a_k on
        frame 2, −τ_k·a_k on frame 1 (a motor, damper or spring across the cross)
    (4) d angle1/dt = w1, d angle2/dt = w2
    (5) the Cardan angles: the rotation of frame 2 relative to frame 1 with respect to
        the drawn pose, in the basis (axis1, axis2, axis1 × axis2) as drawn,
        R_rel = Rot(axis1, angle1)·Rot(axis2, angle2) (first about axis1, then about
        axis2 as turned by angle1). At t = 0 they are read from the bodies,
        angle1 = atan2(R32, R22), angle2 = atan2(R13, R11) (0 as drawn), or set by
        ``.ic U.angle1=... U.angle2=...`` (the start-up poses the bodies; each met
        modulo a turn); defined at every pose (no singular set). Since (2) holds,
        ω_rel = w1·a1 + w2·a2 with a1 ⊥ a2, which is (3)-(4): the angles integrate
        the axis rates, so they run on continuously past ±π (not wrapped).
Sign convention
    frame1 ──(−F, −M)── ● ──(F, M)── frame2: the reaction F, M is what frame 1 exerts
    on frame 2, frame 1 receives −F, −M (conventions.md §4). w_k > 0 and angle_k grows
    when frame 2 turns positively about a_k relative to frame 1; τ_k, the flow into
    the joint at its axis node, drives that turn (conventions.md §5).
Outputs
    J.Fx, J.Fy, J.Fz, J.Mx, J.My, J.Mz: reaction of frame 1 on frame 2 (global, about
    the joint point, the axis torques not included); J.gap (m), J.twist (rad): the
    position-level violations of (1) and (2). The angles J.angle1, J.angle2 and the
    rates J.w1, J.w2 (the axis nodes, unless renamed) are recorded as unknowns.
Example
    ``universal U1 shaft1 shaft2 at=(0,0,0) axis1=(1,0,0) axis2=(0,1,0) flange2=yoke``
"""
import numpy as np

from . import cardan
from .constraints import NV2, Frames
from .declarations import Param
from .joint import Flange, Joint, check_perpendicular, triad

# the angle about axis1 (fixed in frame 1) and about axis2, column 1 of the basis as
# fixed in frame 2
AXIS1 = Flange("w1", "flange1", "rot", "tau1", "angle1")
AXIS2 = Flange("w2", "flange2", "rot", "tau2", "angle2", frame=1, column=1)


class Universal(Joint):
    keyword = "universal"
    description = "Cardan joint: rotation about two perpendicular axes (three models)"
    n_points, n_rotations = 3, 1
    flanges = (AXIS1, AXIS2)
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

    @classmethod
    def coordinate_basis(cls, prm, e1, e2, n):
        a = n                                             # axis1, unit (joint_axis)
        b = np.asarray(prm["axis2"], float)
        b = b - (b @ a) * a                               # ⊥ to 1e-6 (check): exactly
        b /= np.linalg.norm(b)
        return np.column_stack([a, b, np.cross(a, b)])

    @classmethod
    def coordinates(cls, x, p):
        fr = Frames(x[:, :NV2])                                               # (5)
        R, u, v = cardan.relative_rotation(fr, p.basis1, p.basis2)
        angles, dR = cardan.cardan_angles(R)
        grads = np.zeros(angles.shape + (cls.nvars(),))
        grads[:, :, :NV2] = cardan.gradients(fr, u, v, dR)
        return angles, grads
