"""spherical — ball joint between two frames in three model variants (paper 001).

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
Internal variables
    Fx, Fy, Fz (algebraic): the force frame 1 exerts on frame 2 — in every variant.
    mux, muy, muz (algebraic): the stabilising multiplier of the position variant (zero
    in the exact solution; identically zero in the other variants).
Equations (physics.md §4), r_i = A(q_i)·x_i the arm of body i to the joint point, x_i
fixed in body i (computed once from ``at`` and the initial poses), gap = p1 + r1 − p2 − r2,
rel_v = V1 + ω1 × r1 − V2 − ω2 × r2:
    rows of frame 2: −F (V rows), −r2 × F (ω rows)   (frame 2 receives F, torque r2 × F)
    rows of frame 1: +F,          +r1 × F            (frame 1 receives −F)
    (1) velocity:  rel_v = 0;                         μ = 0
    (2) position:  rel_v = 0 and gap = 0, with μ added to the kinematic equations of the
        bodies, dp1/dt = V1 − μ, dq1/dt = ½q1⊗ω1' − (∂r1/∂q1)ᵀμ (and + for frame 2):
        the stabilised index-2 form of Gear, Gupta and Leimkuhler. The joint points
        never drift apart, and the solver integrates it like any index-2 DAE.
    (3) elastic:   F − k·gap − c·rel_v = 0;          μ = 0
    (4) while initial values are computed, the rigid variants use the time derivative
        of rel_v, V1' + ω1'×r1 + ω1×(ω1×r1) − (frame 2) = 0, and μ = 0: this
        determines F (index 1).
Outputs
    J.gap: |gap| (m), the position-level violation: the drift of the velocity variant
    (paper 001's warning), the stretch of the elastic one, ~0 for the position one.
Example
    ``spherical J1 0 B1 at=(0, 0, 0) model=position``
"""
import copy

import numpy as np

from . import quaternion
from .base import ElementType, Output, Param, Port, State
from .frames import NV, R, V, W, arm, cross, global_point, local_offset, skew

MODELS = ("velocity", "position", "elastic")
AT_FRAMES = ("global", "frame1", "frame2")
ACCELERATION = "acceleration"      # (4): the form used while initial values are computed
F_VAR = 2 * NV                     # local index of Fx (after the two frames' variables)
MU_VAR = F_VAR + 3                 # local index of mux
F_ROW = 2 * NV                     # rows: 13 per frame, then the F equations, then μ's
MU_ROW = F_ROW + 3
NVARS = NROWS = 2 * NV + 6


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
                    "default critical: 2·sqrt(k·m_eff))", nonnegative=True))
    states = (tuple(State(f"F{a}", "N", False, f"{a} force of frame 1 on frame 2", index=2)
                    for a in "xyz")
              + tuple(State(f"mu{a}", "m", False, "stabilising multiplier (position model)",
                            index=2) for a in "xyz"))
    outputs = (Output("gap", "m", "distance between the joint points of the two frames"),)

    @classmethod
    def group_key(cls, inst):
        return inst.params["model"]

    @classmethod
    def link(cls, inst, frames):
        f1, f2 = frames[inst.nodes[0]], frames[inst.nodes[1]]
        at = global_point(frames, inst.nodes, inst.params.get("atframe", "global"),
                          inst.params["at"])
        inst.params["x1"] = local_offset(f1, at)
        inst.params["x2"] = local_offset(f2, at)
        if inst.params.get("c") is None:
            masses = [f.get("m") for f in (f1, f2) if f.get("m")]
            m_eff = (np.prod(masses) / np.sum(masses)) if len(masses) == 2 else (
                masses[0] if masses else 1.0)
            inst.params["c"] = 2.0 * np.sqrt(inst.params["k"] * m_eff)

    @classmethod
    def prepare(cls, instances):
        p = super().prepare(instances)
        p.model = instances[0].params["model"]
        p.x1 = np.array([i.params.get("x1", np.zeros(3)) for i in instances])
        p.x2 = np.array([i.params.get("x2", np.zeros(3)) for i in instances])
        p.c = np.array([i.params["c"] if i.params.get("c") is not None else 0.0
                        for i in instances])
        return p

    @classmethod
    def constrained_vars(cls, n_extra=0, group=None):
        mask = np.zeros(NVARS, dtype=bool)
        if group is not None and group.model in ("position", "velocity"):
            mask[0:6] = mask[NV:NV + 6] = True          # V, ω of both frames
        return mask

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
        return mask

    @staticmethod
    def _kinematics(x, p):
        r1, dr1 = arm(x, 0, p.x1)
        r2, dr2 = arm(x, NV, p.x2)
        gap = x[..., R] + r1 - x[..., NV + 6:NV + 9] - r2
        rel_v = (x[..., V] + cross(x[..., W], r1)
                 - x[..., NV:NV + 3] - cross(x[..., NV + 3:NV + 6], r2))
        return r1, dr1, r2, dr2, gap, rel_v

    @classmethod
    def residual(cls, t, x, xp, p):
        r1, dr1, r2, dr2, gap, rel_v = cls._kinematics(x, p)
        F, mu = x[:, F_VAR:F_VAR + 3], x[:, MU_VAR:MU_VAR + 3]
        out = np.zeros((x.shape[0], NROWS))
        out[:, 0:3] = F
        out[:, 3:6] = cross(r1, F)
        out[:, NV:NV + 3] = -F
        out[:, NV + 3:NV + 6] = -cross(r2, F)
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
        return np.linalg.norm(gap, axis=-1)[..., None]

    @classmethod
    def sample_variants(cls):
        return [{"model": m} for m in MODELS + (ACCELERATION,)]

    @classmethod
    def sample_params(cls, rng):
        return {"at": rng.uniform(-1, 1, 3), "model": "position", "k": 1e3,
                "c": 5.0, "x1": rng.uniform(-1, 1, 3), "x2": rng.uniform(-1, 1, 3)}
