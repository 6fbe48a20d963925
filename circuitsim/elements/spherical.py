"""spherical — ball joint between two frames in three model variants (paper 001), with
optional ball friction and an optional cone-angle limit.

Ports
    frame1, frame2: bodies, or 0 (the fixed ground frame).
Parameters
    at: (x, y, z) joint point in global coordinates at t = 0 (m), or, with
        atframe=frame1|frame2, in that body's frame measured from its centre of mass.
    model: velocity | position | elastic (default position).
    k: stiffness of the elastic variant (N/m, default 1e8).
    c: damping of the elastic variant (N·s/m); default 2·sqrt(k·m_eff) with
       m_eff = m1·m2/(m1 + m2) (m of the body alone when the other frame is ground), so
       the joint's own vibration is critically damped and does not ring.
    Friction (5), off while mu = Tpre = 0 (the default):
    mu: friction coefficient of the ball in its socket (default 0).
    radius: ball radius (m, default 0.01), the lever arm of the friction force.
    weps: regularisation angular velocity of sign(ω_rel) (rad/s, default 1e-3).
    Tpre: preload friction torque (N·m, default 0), acting even without load.
    Cone limit (6), off unless cone is given:
    cone: half-angle of the cone (rad, ``30deg`` works), 0 < cone < π.
    axis: (x, y, z) the cone axis, global at t = 0 (default (0, 0, 1)); fixed in frame 1
        from then on, and the same initial direction is fixed in frame 2, so the tilt is
        zero at t = 0: the cone is centred on the initial relative orientation.
    kcone: stiffness of the limit (N·m/rad, default 1e5).
    ccone: damping of the limit (N·m·s/rad); default 2·sqrt(kcone·J_eff), critical for
        J_eff = m·|x|² + min(Jx, Jy, Jz) of the body (x its arm to the joint point: its
        smallest moment about an axis through the joint point perpendicular to the
        arm), reduced like m_eff over two bodies.
Internal variables
    Fx, Fy, Fz (algebraic): the force frame 1 exerts on frame 2 — in every variant.
    mux, muy, muz (algebraic): the stabilising multiplier of the position variant (zero
    in the exact solution; identically zero in the other variants).
Equations (physics.md §4), r_i = A(q_i)·x_i the arm of body i to the joint point, x_i
fixed in body i (computed once from ``at`` and the initial poses), gap = p1 + r1 − p2 − r2,
rel_v = V1 + ω1 × r1 − V2 − ω2 × r2, ω_rel = ω2 − ω1:
    rows of frame 2: −F (V rows), −r2 × F − M (ω rows)   (frame 2 receives F, torque
    rows of frame 1: +F,          +r1 × F + M            r2 × F, and the torque M of
                                                          (5) and (6); frame 1 −F, −M)
    (1) velocity:  rel_v = 0;                         μ = 0
    (2) position:  rel_v = 0 and gap = 0, with μ added to the kinematic equations of the
        bodies, dp1/dt = V1 − μ, dq1/dt = ½q1⊗ω1' − (∂r1/∂q1)ᵀμ (and + for frame 2):
        the stabilised index-2 form of Gear, Gupta and Leimkuhler. The joint points
        never drift apart, and the solver integrates it like any index-2 DAE.
    (3) elastic:   F − k·gap − c·rel_v = 0;          μ = 0
    (4) while initial values are computed, the rigid variants use the time derivative
        of rel_v, V1' + ω1'×r1 + ω1×(ω1×r1) − (frame 2) = 0, and μ = 0: this
        determines F (index 1).
    (5) friction: M_f = −(Tpre + mu·radius·|F|_s)·ω_rel / sqrt(|ω_rel|² + weps²),
        |F|_s = sqrt(F·F + Feps²), Feps = 1e-6 N (keeps the derivative defined at
        F = 0; it adds mu·radius·1e-6 N·m at most). F is the joint-force unknown: the
        constraint force of the rigid variants (and of their initialisation form (4),
        where the torque is the same function of F and ω), the elastic force in (3).
        Below |ω_rel| ≈ weps the joint acts as a stiff rotational damper of slope
        ≈ T_f/weps (like ``friction``'s veps): a stuck joint creeps at ≈ M·weps/T_f.
    (6) cone limit: a_i = A(q_i)·a_il, a_il = A_i(0)ᵀ·axis/|axis|;
        θ = atan2(|a1 × a2|, a1·a2) (the tilt), n = a1 × a2 / |a1 × a2|,
        dθ/dt = n·ω_rel;
        τ = max(kcone·(θ − cone) + ccone·dθ/dt, 0) while θ > cone, else 0;
        M_c = −τ·n (frame 2 is turned back towards a1, frame 1 towards a2; a limit
        only pushes, it never pulls, as ``stop``). The switch at θ = cone is not
        smoothed: like ``stop`` it relies on the error test to shorten the step that
        reaches the contact (the solver locates no state events, only the time
        breakpoints of inputs).
    M = M_f + M_c.
Outputs
    J.gap: |gap| (m), the position-level violation: the drift of the velocity variant
    (paper 001's warning), the stretch of the elastic one, ~0 for the position one.
    J.tilt: θ of (6) (rad), also without a cone limit. J.Tf: |M_f| (N·m).
    J.Tcone: τ of (6) (N·m).
Sign convention
    frame1 ──(−F, −M)── ● ──(F, M)── frame2      F, M: what frame 1 exerts on frame 2
References
    physics.md §4, §7; paper 001 (friction and rotation limits "added to the equivalent
    circuit"); the ball-joint friction torque mu·R·|F| + preload of multibody codes
    (e.g. Altair MotionSolve).
Example
    ``spherical J1 0 B1 at=(0, 0, 0) model=position mu=0.1 radius=15mm cone=30deg``
"""
import copy

import numpy as np

from ..errors import ModelError
from . import quaternion
from .base import ElementType, Output, Param, Port, State
from .frames import NV, R, V, W, arm, cross, global_point, local_offset, reduced, skew

MODELS = ("velocity", "position", "elastic")
AT_FRAMES = ("global", "frame1", "frame2")
ACCELERATION = "acceleration"      # (4): the form used while initial values are computed
F_VAR = 2 * NV                     # local index of Fx (after the two frames' variables)
MU_VAR = F_VAR + 3                 # local index of mux
F_ROW = 2 * NV                     # rows: 13 per frame, then the F equations, then μ's
MU_ROW = F_ROW + 3
NVARS = NROWS = 2 * NV + 6
W1, W2 = slice(3, 6), slice(NV + 3, NV + 6)          # ω of frame 1, of frame 2
Q1, Q2 = slice(9, 13), slice(NV + 9, NV + 13)        # q of frame 1, of frame 2
FEPS = 1e-6                        # N: smooth floor of |F| in (5), so d|F|/dF exists at 0
Z_AXIS = (0.0, 0.0, 1.0)


def _friction_on(prm: dict) -> bool:
    return (prm.get("mu") or 0.0) > 0 or (prm.get("Tpre") or 0.0) > 0


def _cone_on(prm: dict) -> bool:
    return prm.get("cone") is not None


def _local_direction(frame_state: dict, direction: np.ndarray) -> np.ndarray:
    """A0ᵀ·d: a global direction at t = 0 in the frame's own axes."""
    q = np.array([frame_state[k] for k in ("q0", "q1", "q2", "q3")])
    return quaternion.dcm(q).T @ direction


def _outer(a, b):
    return np.einsum("...i,...j->...ij", a, b)


class Spherical(ElementType):
    keyword = "spherical"
    description = "ball joint: the two frames share a point (velocity, position or elastic model)"
    ports = (Port("frame1", frame=True), Port("frame2", frame=True))
    params = (Param("at", "m", description="joint point, global coordinates at t = 0",
                    kind="vector", size=3),
              Param("atframe", "1", default="global", description="coordinates of at: "
                    "global at t = 0, or frame1/frame2 = that body's frame (from its centre "
                    "of mass)", kind="choice", choices=AT_FRAMES),
              Param("model", "1", default="position", description="constraint model",
                    kind="choice", choices=MODELS),
              Param("k", "N/m", default=1e8, description="stiffness (elastic model)",
                    positive=True),
              Param("c", "N*s/m", default=None, description="damping (elastic model; "
                    "default critical: 2·sqrt(k·m_eff))", nonnegative=True),
              Param("mu", "1", default=0.0, description="friction coefficient of the ball "
                    "(0: no friction)", nonnegative=True),
              Param("radius", "m", default=0.01, description="ball radius: lever arm of the "
                    "friction torque mu·radius·(joint force)", positive=True),
              Param("weps", "rad/s", default=1e-3, description="regularisation angular "
                    "velocity of the friction's sign(ω_rel)", positive=True),
              Param("Tpre", "N*m", default=0.0, description="preload friction torque",
                    nonnegative=True),
              Param("cone", "rad", default=None, description="half-angle of the cone limit "
                    "(default: no limit)", positive=True),
              Param("axis", "1", default=Z_AXIS, description="cone axis, global at t = 0, "
                    "then fixed in both frames", kind="vector", size=3),
              Param("kcone", "N*m/rad", default=1e5, description="stiffness of the cone "
                    "limit", positive=True),
              Param("ccone", "N*m*s/rad", default=None, description="damping of the cone "
                    "limit (default critical: 2·sqrt(kcone·J_eff))", nonnegative=True))
    states = (tuple(State(f"F{a}", "N", False, f"{a} force of frame 1 on frame 2", index=2)
                    for a in "xyz")
              + tuple(State(f"mu{a}", "m", False, "stabilising multiplier (position model)",
                            index=2) for a in "xyz"))
    outputs = (Output("gap", "m", "distance between the joint points of the two frames"),
               Output("tilt", "rad", "angle between the axis fixed in frame 1 and in frame 2"),
               Output("Tf", "N*m", "magnitude of the friction torque"),
               Output("Tcone", "N*m", "torque of the cone limit"))

    @classmethod
    def group_key(cls, inst):
        prm = inst.params
        return prm["model"], _friction_on(prm), _cone_on(prm)

    @classmethod
    def check(cls, inst):
        prm = inst.params
        axis = np.asarray(prm.get("axis", Z_AXIS), dtype=float)
        if not np.linalg.norm(axis) > 0:
            raise ModelError(f"spherical {inst.name}: the cone axis must not be zero",
                             inst.param_locs.get("axis", inst.loc))
        cone = prm.get("cone")
        if cone is not None and not cone < np.pi:
            raise ModelError(f"spherical {inst.name}: cone is a half-angle below 180deg, "
                             f"got {np.degrees(cone):g} deg",
                             inst.param_locs.get("cone", inst.loc))

    @classmethod
    def link(cls, inst, frames):
        f1, f2 = frames[inst.nodes[0]], frames[inst.nodes[1]]
        at = global_point(frames, inst.nodes, inst.params.get("atframe", "global"),
                          inst.params["at"])
        inst.params["x1"] = local_offset(f1, at)
        inst.params["x2"] = local_offset(f2, at)
        if inst.params.get("c") is None:
            masses = [f.get("m") for f in (f1, f2) if f.get("m")]
            inst.params["c"] = 2.0 * np.sqrt(inst.params["k"] * reduced(masses))
        axis = np.asarray(inst.params.get("axis", Z_AXIS), dtype=float)
        axis = axis / np.linalg.norm(axis)
        inst.params["a1"] = _local_direction(f1, axis)
        inst.params["a2"] = _local_direction(f2, axis)
        if _cone_on(inst.params) and inst.params.get("ccone") is None:
            # J_eff per body: m·|x|² + min(J), its smallest moment about an axis through
            # the joint point perpendicular to its arm; reduced like m_eff over two bodies
            inertias = [f["m"] * float(np.sum(xl * xl))
                        + (float(np.min(f["J"])) if f.get("J") is not None else 0.0)
                        for f, xl in ((f1, inst.params["x1"]), (f2, inst.params["x2"]))
                        if f.get("m")]
            inst.params["ccone"] = 2.0 * np.sqrt(inst.params["kcone"]
                                                 * reduced(inertias, empty=0.0))

    @classmethod
    def prepare(cls, instances):
        p = super().prepare(instances)
        p.model = instances[0].params["model"]
        p.friction = _friction_on(instances[0].params)       # one group: same flags
        p.cone_on = _cone_on(instances[0].params)
        p.x1 = np.array([i.params.get("x1", np.zeros(3)) for i in instances])
        p.x2 = np.array([i.params.get("x2", np.zeros(3)) for i in instances])
        p.c = np.array([i.params["c"] if i.params.get("c") is not None else 0.0
                        for i in instances])
        unit = np.array(Z_AXIS)
        p.a1 = np.array([i.params.get("a1", unit) for i in instances], dtype=float)
        p.a2 = np.array([i.params.get("a2", unit) for i in instances], dtype=float)
        p.ccone = np.where(np.isnan(p.ccone), 0.0, p.ccone)
        return p

    @classmethod
    def constrained_vars(cls, n_extra=0, group=None):
        mask = np.zeros(NVARS, dtype=bool)
        if group is not None and group.model in ("position", "velocity"):
            mask[0:6] = mask[NV:NV + 6] = True          # V, ω of both frames
        return mask

    @classmethod
    def constraint_rows(cls, x, p):
        """d rel_v/du (N, 3, nvars), rel_v = V1 + ω1×r1 − V2 − ω2×r2 (mobility analysis)."""
        r1, _ = arm(x, 0, p.x1)
        r2, _ = arm(x, NV, p.x2)
        N = x.shape[0]
        eye = np.broadcast_to(np.eye(3), (N, 3, 3))
        out = np.zeros((N, 3, x.shape[1]))
        out[:, :, 0:3], out[:, :, 3:6] = eye, -skew(r1)
        out[:, :, NV:NV + 3], out[:, :, NV + 3:NV + 6] = -eye, skew(r2)
        return out

    @classmethod
    def initialisation_params(cls, p):
        if p.model == "elastic":
            return None
        init = copy.copy(p)
        init.model = ACCELERATION
        return init

    @classmethod
    def local_pattern(cls, n_extra=0, group=None):
        mask = np.zeros((NROWS, NVARS), dtype=bool)
        for o in (0, NV):
            mask[o:o + 6, F_VAR:F_VAR + 3] = True                 # ±F, ±r × F
            mask[o + 3:o + 6, o + 9:o + 13] = True
            mask[F_ROW:F_ROW + 3, o:o + 13] = True                # rel_v, gap, acceleration
            mask[MU_ROW:MU_ROW + 3, o + 6:o + 13] = True          # gap (position model)
            mask[o + 6:o + 13, MU_VAR:MU_VAR + 3] = True          # Gᵀμ in the kinematics
            mask[o + 9:o + 13, o + 9:o + 13] = True
        mask[F_ROW:F_ROW + 3, F_VAR:F_VAR + 3] = True             # elastic
        mask[MU_ROW:MU_ROW + 3, MU_VAR:MU_VAR + 3] = True         # μ = 0
        friction = group is None or group.friction
        cone = group is None or group.cone_on
        for rows in (W1, W2):
            if friction or cone:                                  # (5), (6): M(ω_rel)
                mask[rows, W1] = mask[rows, W2] = True
            if cone:                                              # (6): M(q1, q2)
                mask[rows, Q1] = mask[rows, Q2] = True
        return mask

    @staticmethod
    def _kinematics(x, p):
        r1, dr1 = arm(x, 0, p.x1)
        r2, dr2 = arm(x, NV, p.x2)
        gap = x[..., R] + r1 - x[..., NV + 6:NV + 9] - r2
        rel_v = (x[..., V] + cross(x[..., W], r1)
                 - x[..., NV:NV + 3] - cross(x[..., NV + 3:NV + 6], r2))
        return r1, dr1, r2, dr2, gap, rel_v

    @staticmethod
    def _friction(x, p):
        """(5): F, |F|_s, T_f = Tpre + mu·radius·|F|_s, s = sqrt(|ω_rel|² + weps²) and
        u = ω_rel/s; the friction torque on frame 2 is −T_f·u."""
        F = x[..., F_VAR:F_VAR + 3]
        w = x[..., W2] - x[..., W1]
        Fs = np.sqrt(np.sum(F * F, axis=-1) + FEPS * FEPS)
        T = p.Tpre + p.mu * p.radius * Fs
        s = np.sqrt(np.sum(w * w, axis=-1) + p.weps * p.weps)
        return F, Fs, T, s, w / s[..., None]

    @staticmethod
    def _cone(x, p, deriv=False):
        """(6): the axes a1, a2 with ∂a_i/∂q_i (if ``deriv``, else None), sin θ, cos θ, θ,
        n, ω_rel and the limit torque τ (the torque on frame 2 is −τ·n) with the mask
        where it acts."""
        if deriv:
            a1, da1 = arm(x, 0, p.a1)
            a2, da2 = arm(x, NV, p.a2)
        else:
            a1 = np.einsum("...ij,...j->...i", quaternion.dcm(x[..., Q1]), p.a1)
            a2 = np.einsum("...ij,...j->...i", quaternion.dcm(x[..., Q2]), p.a2)
            da1 = da2 = None
        s = cross(a1, a2)
        S = np.sqrt(np.sum(s * s, axis=-1))
        C = np.sum(a1 * a2, axis=-1)
        theta = np.arctan2(S, C)
        n = s / np.where(S > 0, S, 1.0)[..., None]         # θ = 0 or π: no direction
        w = x[..., W2] - x[..., W1]
        with np.errstate(invalid="ignore"):                 # cone = nan: no limit
            raw = p.kcone * (theta - p.cone) + p.ccone * np.sum(n * w, axis=-1)
            on = (theta > p.cone) & (raw > 0)
        tau = np.where(on, raw, 0.0)
        return a1, da1, a2, da2, S, C, theta, n, w, tau, on

    @classmethod
    def _torque(cls, x, p):
        """M = M_f + M_c, the torque frame 1 exerts on frame 2 by (5) and (6)."""
        M = np.zeros(x.shape[:-1] + (3,))
        if p.friction:
            _, _, T, _, u = cls._friction(x, p)
            M -= T[..., None] * u                                               # (5)
        if p.cone_on:
            *_, n, _, tau, _ = cls._cone(x, p)
            M -= tau[..., None] * n                                             # (6)
        return M

    @classmethod
    def residual(cls, t, x, xp, p):
        r1, dr1, r2, dr2, gap, rel_v = cls._kinematics(x, p)
        F, mu = x[:, F_VAR:F_VAR + 3], x[:, MU_VAR:MU_VAR + 3]
        out = np.zeros((x.shape[0], NROWS))
        out[:, 0:3] = F
        out[:, 3:6] = cross(r1, F)
        out[:, NV:NV + 3] = -F
        out[:, NV + 3:NV + 6] = -cross(r2, F)
        if p.friction or p.cone_on:                   # the same in every model and in (4)
            M = cls._torque(x, p)
            out[:, W1] += M
            out[:, W2] -= M
        if p.model == "position":                                  # (2)
            out[:, F_ROW:F_ROW + 3] = rel_v
            out[:, MU_ROW:MU_ROW + 3] = gap
            out[:, 6:9] = mu                                       # Gᵀμ, G = ∂gap/∂(p, q)
            out[:, 9:13] = np.einsum("nik,ni->nk", dr1, mu)
            out[:, NV + 6:NV + 9] = -mu
            out[:, NV + 9:NV + 13] = -np.einsum("nik,ni->nk", dr2, mu)
            return out
        if p.model == ACCELERATION:
            out[:, F_ROW:F_ROW + 3] = cls._relative_acceleration(x, xp, r1, r2)   # (4)
        elif p.model == "velocity":
            out[:, F_ROW:F_ROW + 3] = rel_v                                       # (1)
        else:
            out[:, F_ROW:F_ROW + 3] = F - p.k[:, None] * gap - p.c[:, None] * rel_v   # (3)
        out[:, MU_ROW:MU_ROW + 3] = mu
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        n = x.shape[0]
        r1, dr1, r2, dr2, _, _ = cls._kinematics(x, p)
        F, mu = x[:, F_VAR:F_VAR + 3], x[:, MU_VAR:MU_VAR + 3]
        eye = np.broadcast_to(np.eye(3), (n, 3, 3))
        J = np.zeros((n, NROWS, NVARS))
        Jp = np.zeros((n, NROWS, NVARS))
        fv = slice(F_VAR, F_VAR + 3)
        J[:, 0:3, fv] = eye
        J[:, 3:6, fv] = skew(r1)
        J[:, 3:6, 9:13] = -np.einsum("nij,njk->nik", skew(F), dr1)       # d(r1×F)/dq1
        J[:, NV:NV + 3, fv] = -eye
        J[:, NV + 3:NV + 6, fv] = -skew(r2)
        J[:, NV + 3:NV + 6, NV + 9:NV + 13] = np.einsum("nij,njk->nik", skew(F), dr2)
        if p.friction:
            cls._friction_jacobian(x, p, J)
        if p.cone_on:
            cls._cone_jacobian(x, p, J)
        dv = np.zeros((n, 3, NVARS))                                      # d rel_v
        dv[:, :, 0:3] = eye
        dv[:, :, 3:6] = -skew(r1)
        dv[:, :, 9:13] = np.einsum("nij,njk->nik", skew(x[:, W]), dr1)
        dv[:, :, NV:NV + 3] = -eye
        dv[:, :, NV + 3:NV + 6] = skew(r2)
        dv[:, :, NV + 9:NV + 13] = -np.einsum("nij,njk->nik", skew(x[:, NV + 3:NV + 6]), dr2)
        dg = np.zeros((n, 3, NVARS))                                      # d gap
        dg[:, :, 6:9] = eye
        dg[:, :, 9:13] = dr1
        dg[:, :, NV + 6:NV + 9] = -eye
        dg[:, :, NV + 9:NV + 13] = -dr2
        fr, mr = slice(F_ROW, F_ROW + 3), slice(MU_ROW, MU_ROW + 3)
        mv = slice(MU_VAR, MU_VAR + 3)
        if p.model == "position":
            J[:, fr] = dv
            J[:, mr] = dg
            J[:, 6:9, mv] = eye
            J[:, 9:13, mv] = np.swapaxes(dr1, 1, 2)
            J[:, NV + 6:NV + 9, mv] = -eye
            J[:, NV + 9:NV + 13, mv] = -np.swapaxes(dr2, 1, 2)
            # d/dq of (∂r/∂q)ᵀμ
            J[:, 9:13, 9:13] = np.einsum("nijkl,nj,ni->nkl",
                                         quaternion.dcm_d2q(x[:, 9:13]), p.x1, mu)
            J[:, NV + 9:NV + 13, NV + 9:NV + 13] = -np.einsum(
                "nijkl,nj,ni->nkl", quaternion.dcm_d2q(x[:, NV + 9:NV + 13]), p.x2, mu)
            return J, Jp
        J[:, mr, mv] = eye
        if p.model == ACCELERATION:
            cls._acceleration_jacobian(x, xp, r1, dr1, r2, dr2, J, Jp)
        elif p.model == "velocity":
            J[:, fr] = dv
        else:
            J[:, fr] = -p.k[:, None, None] * dg - p.c[:, None, None] * dv
            J[:, fr, fv] += eye
        return J, Jp

    @classmethod
    def _friction_jacobian(cls, x, p, J):
        """(5): rows ω of frame 2 hold +T_f·u (frame 1: −T_f·u);
        d(T_f·u)/dω_rel = (T_f/s)(I − u uᵀ), d(T_f·u)/dF = mu·radius·u Fᵀ/|F|_s."""
        F, Fs, T, s, u = cls._friction(x, p)
        D = (T / s)[:, None, None] * (np.eye(3) - _outer(u, u))
        dF = (p.mu * p.radius / Fs)[:, None, None] * _outer(u, F)
        fv = slice(F_VAR, F_VAR + 3)
        for rows, sign in ((W2, 1.0), (W1, -1.0)):
            J[:, rows, W2] += sign * D
            J[:, rows, W1] -= sign * D
            J[:, rows, fv] += sign * dF

    @classmethod
    def _cone_jacobian(cls, x, p, J):
        """(6): rows ω of frame 2 hold +τ·n (frame 1: −τ·n), where the limit acts.
        θ = atan2(S, C) with S = |a1 × a2|, C = a1·a2:
          ∂θ/∂a1 = (C·(a2 × n) − S·a2)/(S² + C²),  ∂θ/∂a2 = (C·(n × a1) − S·a1)/(S² + C²);
        n = (a1 × a2)/S: dn = (I − n nᵀ)/S · (−skew(a2)·da1 + skew(a1)·da2);
        τ = kcone·(θ − cone) + ccone·n·ω_rel."""
        a1, da1, a2, da2, S, C, _, n, w, tau, on = cls._cone(x, p, deriv=True)
        act = on.astype(float)[:, None, None]
        norm2 = (S * S + C * C)[:, None]
        g1 = (C[:, None] * cross(a2, n) - S[:, None] * a2) / norm2
        g2 = (C[:, None] * cross(n, a1) - S[:, None] * a1) / norm2
        P = (np.eye(3) - _outer(n, n)) / np.where(S > 0, S, 1.0)[:, None, None]
        dn1 = -np.einsum("nij,njk->nik", np.einsum("nij,njk->nik", P, skew(a2)), da1)
        dn2 = np.einsum("nij,njk->nik", np.einsum("nij,njk->nik", P, skew(a1)), da2)
        k, c = p.kcone[:, None], p.ccone[:, None]
        blocks = []
        for g, da, dn in ((g1, da1, dn1), (g2, da2, dn2)):
            dtau = k * np.einsum("ni,nik->nk", g, da) + c * np.einsum("ni,nik->nk", w, dn)
            blocks.append(act * (_outer(n, dtau) + tau[:, None, None] * dn))
        cnn = act * p.ccone[:, None, None] * _outer(n, n)              # d(τ n)/dω_rel
        for rows, sign in ((W2, 1.0), (W1, -1.0)):
            J[:, rows, Q1] += sign * blocks[0]
            J[:, rows, Q2] += sign * blocks[1]
            J[:, rows, W2] += sign * cnn
            J[:, rows, W1] -= sign * cnn

    @staticmethod
    def _relative_acceleration(x, xp, r1, r2):
        """(4) d/dt of rel_v: V1' + ω1'×r1 + ω1×(ω1×r1) − (the same for frame 2)."""
        w1, w2 = x[:, W], x[:, NV + 3:NV + 6]
        return (xp[:, V] + cross(xp[:, W], r1) + cross(w1, cross(w1, r1))
                - xp[:, NV:NV + 3] - cross(xp[:, NV + 3:NV + 6], r2)
                - cross(w2, cross(w2, r2)))

    @staticmethod
    def _acceleration_jacobian(x, xp, r1, dr1, r2, dr2, J, Jp):
        n = x.shape[0]
        eye = np.broadcast_to(np.eye(3), (n, 3, 3))
        fr = slice(F_ROW, F_ROW + 3)
        for o, r, dr, sign in ((0, r1, dr1, 1.0), (NV, r2, dr2, -1.0)):
            w, wp = x[:, o + 3:o + 6], xp[:, o + 3:o + 6]
            wr = np.einsum("ni,ni->n", w, r)[:, None, None]
            # d/dω of ω×(ω×r) = ω(ω·r) − r|ω|²:  (ω·r)I + ω rᵀ − 2 r ωᵀ
            d_w = wr * eye + np.einsum("ni,nj->nij", w, r) - 2 * np.einsum("ni,nj->nij", r, w)
            d_q = np.einsum("nij,njk->nik", skew(wp) + skew(w) @ skew(w), dr)
            J[:, fr, o + 3:o + 6] = sign * d_w
            J[:, fr, o + 9:o + 13] = sign * d_q
            Jp[:, fr, o:o + 3] = sign * eye
            Jp[:, fr, o + 3:o + 6] = -sign * skew(r)

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        *_, gap, _ = cls._kinematics(x, p)
        _, _, _, _, _, _, tilt, _, _, tau, _ = cls._cone(x, p)
        if p.friction:
            _, _, T, _, u = cls._friction(x, p)
            Tf = T * np.sqrt(np.sum(u * u, axis=-1))
        else:
            Tf = np.zeros_like(tilt)
        return np.stack([np.linalg.norm(gap, axis=-1), tilt, Tf, tau], axis=-1)

    @classmethod
    def sample_variants(cls):
        plain = {"mu": 0.0, "Tpre": 0.0, "cone": None}
        return ([{"model": m} for m in MODELS + (ACCELERATION,)]      # friction and cone
                + [{"model": "position", "cone": None},                # friction only
                   {"model": "velocity", "mu": 0.0, "Tpre": 0.0},      # cone only
                   {"model": "position", **plain}, {"model": "elastic", **plain}])

    @classmethod
    def sample_params(cls, rng):
        def unit():
            d = rng.normal(size=3)
            return d / np.linalg.norm(d)
        # weps of the size of the sampled ω_rel, so that both the saturated and the
        # linear part of (5) are seen; kcone, ccone and cone so that the limit of (6)
        # acts at some of the sampled (random) orientations and not at others
        return {"at": rng.uniform(-1, 1, 3), "model": "position", "k": 1e3,
                "c": 5.0, "x1": rng.uniform(-1, 1, 3), "x2": rng.uniform(-1, 1, 3),
                "mu": 0.3, "radius": 0.5, "weps": 0.4, "Tpre": 0.2,
                "cone": 1.0, "axis": unit(), "a1": unit(), "a2": unit(),
                "kcone": 2.0, "ccone": 0.3}
