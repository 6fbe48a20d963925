"""spherical — ball joint: the two frames share a point; in the three joint models of
joint.py, with optional ball friction and an optional cone-angle limit as the joint's
own added terms.

Ports
    frame1, frame2: bodies, or 0 (the fixed ground frame).
Parameters
    at: joint point (m), global at t = 0 (default: frame 2's centre of mass), or, with
        atframe=frame1|frame2, in that body's frame measured from its centre of mass.
    model: velocity | position (default) | elastic.
    k: stiffness of the elastic model (N/m, default 1e8).
    c: damping of the elastic model (N·s/m); default 2·sqrt(k·m_eff) with
       m_eff = m1·m2/(m1 + m2) (m of the body alone when the other frame is ground), so
       the joint's own vibration is critically damped and does not ring.
    Friction (2), off while mu = Tpre = 0 (the default):
    mu: friction coefficient of the ball in its socket (default 0).
    radius: ball radius (m, default 0.01), the lever arm of the friction force.
    weps: regularisation angular velocity of sign(ω_rel) (rad/s, default 1e-3).
    Tpre: preload friction torque (N·m, default 0), acting even without load.
    Cone limit (3), off unless cone is given:
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
    f1, f2, f3 (N): the force F that frame 1 exerts on frame 2, global x, y, z
    components, in every model; mu1..mu3: stabilisation (position model).
Equations
    joint.py gives the models, the initialisation form and the frame rows;
    P_i = p_i + A(q_i)·x_i the joint point as fixed in frame i, ω_rel = ω2 − ω1:
    (1) three point-on-plane constraints with the global axes e_k as normals:
        g_k = e_k·(P2 − P1) = 0, so λ_k = f_k is the global component k of F
    (2) friction: M_f = −(Tpre + mu·radius·|F|_s)·ω_rel / sqrt(|ω_rel|² + weps²),
        |F|_s = sqrt(F·F + Feps²), Feps = 1e-6 N (keeps the derivative defined at
        F = 0; it adds mu·radius·1e-6 N·m at most). F is the joint-force unknown in
        every model (the elastic force in the elastic one). Below |ω_rel| ≈ weps the
        joint acts as a stiff rotational damper of slope ≈ T_f/weps (like
        ``friction``'s veps): a stuck joint creeps at ≈ M·weps/T_f. This is the
        ball-joint friction torque mu·R·|F| + preload of multibody codes (e.g. Altair
        MotionSolve), added to the equivalent circuit as an element's terms.
    (3) cone limit: a_i = A(q_i)·a_il, a_il = A_i(0)ᵀ·axis/|axis|;
        θ = atan2(|a1 × a2|, a1·a2) (the tilt), n = a1 × a2 / |a1 × a2|,
        dθ/dt = n·ω_rel;
        τ = max(kcone·(θ − cone) + ccone·dθ/dt, 0) while θ > cone, else 0;
        M_c = −τ·n (frame 2 is turned back towards a1, frame 1 towards a2; a limit
        only pushes, it never pulls, as ``stop``). The switch at θ = cone is not
        smoothed: the solver locates it, (5).
    (4) M = M_f + M_c is the torque frame 1 exerts on frame 2 (frame 1 receives −M).
    (5) switching function of the cone limit ("cone", a state event): min(θ − cone,
        θ − cone + (ccone/kcone)·dθ/dt), positive exactly where τ of (3) acts; the
        step ends at its contact onset and release and the run restarts there.
    (6) joint angles (cardan.py): the rotation of frame 2 relative to frame 1 with
        respect to the drawn pose, in the global axes at t = 0 (carried by each frame),
        R = A1(0)·A1ᵀ·A2·A2(0)ᵀ = Rx(angle1)·Ry(angle2)·Rz(angle3) (x-y-z Cardan
        angles: about x, the new y, the newest z): angle2 = atan2(R13,
        sqrt(R11² + R12²)) in [−π/2, π/2], angle1 = atan2(−R23, R33), angle3 =
        atan2(−R12, R11) in (−π, π] (outputs read from the bodies: wrapped, a jump of
        2π where one passes ±π). Singular set angle2 = ±π/2 (cos angle2 < 1e-9): only
        angle1 ± angle3 is defined, reported as angle1 = atan2(R32, R22), angle3 = 0.
        ``.ic J.angle1=... J.angle2=... J.angle3=...`` poses the bodies at t = 0 (all
        three: onto the composed rotation, the singular set included; some: each set
        angle, the others free).
Sign convention
    frame1 ──(−F, −M)── ● ──(F, M)── frame2      F, M: what frame 1 exerts on frame 2
    (conventions.md §4); frame 1 receives −F, −M.
Outputs
    J.Fx, J.Fy, J.Fz: F; J.Mx, J.My, J.Mz: M of (4) (zero without friction and cone);
    J.gap: |P2 − P1| (m), the position-level violation: the drift of the velocity
    model, the stretch of the elastic one, ~0 for the position one.
    J.tilt: θ of (3) (rad), also without a cone limit. J.Tf: |M_f| (N·m).
    J.Tcone: τ of (3) (N·m). J.angle1, J.angle2, J.angle3: the angles of (6) (rad).
Example
    ``spherical J1 0 B1 at=(0, 0, 0) model=position mu=0.1 radius=15mm cone=30deg``
"""
import numpy as np

from ..errors import ModelError
from . import cardan, compiled, quaternion
from .declarations import Output, Param
from .constraints import HALF_NUMERATOR_D2Q, NV2, Q1, Q2, Frames
from .frames import arm, cross, reduced, skew
from .joint import W1, W2, Joint

FEPS = 1e-6                        # N: smooth floor of |F| in (2), so d|F|/dF exists at 0
Z_AXIS = (0.0, 0.0, 1.0)
GLOBAL_AXES = [np.array(e) for e in np.eye(3)]
ANGLES = ("angle1", "angle2", "angle3")
TWO_PI = 2.0 * np.pi
# a residual or Jacobian call of the framework in numpy, fixed and per joint
# (benchmarks/kernels.py)
NUMPY_CALL_SECONDS, NUMPY_JOINT_SECONDS = 2e-4, 3e-6


def _friction_on(prm: dict) -> bool:
    return (prm.get("mu") or 0.0) > 0 or (prm.get("Tpre") or 0.0) > 0


def _cone_on(prm: dict) -> bool:
    return prm.get("cone") is not None


def _outer(a, b):
    return np.einsum("...i,...j->...ij", a, b)


class Spherical(Joint):
    keyword = "spherical"
    description = "ball joint: the two frames share a point (velocity, position or elastic model)"
    n_points, n_rotations = 3, 0
    global_normals = True
    geometry = (Param("axis", "1", default=Z_AXIS, description="cone axis, global at "
                      "t = 0, then fixed in both frames", kind="vector", size=3),)
    added_params = (
        Param("mu", "1", default=0.0, description="friction coefficient of the ball "
              "(0: no friction)", nonnegative=True),
        Param("radius", "m", default=0.01, description="ball radius: lever arm of the "
              "friction torque mu·radius·(joint force)", positive=True),
        Param("weps", "rad/s", default=1e-3, description="regularisation angular velocity "
              "of the friction's sign(ω_rel)", positive=True),
        Param("Tpre", "N*m", default=0.0, description="preload friction torque",
              nonnegative=True),
        Param("cone", "rad", default=None, description="half-angle of the cone limit "
              "(default: no limit)", positive=True),
        Param("kcone", "N*m/rad", default=1e5, description="stiffness of the cone limit",
              positive=True),
        Param("ccone", "N*m*s/rad", default=None, description="damping of the cone limit "
              "(default critical: 2·sqrt(kcone·J_eff))", nonnegative=True))
    added_outputs = (
        Output("tilt", "rad", "angle between the axis fixed in frame 1 and in frame 2",
               kind="coordinate"),
        Output("Tf", "N*m", "magnitude of the friction torque"),
        Output("Tcone", "N*m", "torque of the cone limit")) + tuple(
        Output(f"angle{k + 1}", "rad", f"relative rotation, x-y-z Cardan angle {k + 1} "
               f"(about {axis}, (6))", kind="coordinate")
        for k, axis in enumerate(("x", "y' (x turned by angle1)", "z''")))

    @classmethod
    def layout(cls, prm, e1, e2, n):
        return GLOBAL_AXES, []                                                  # (1)

    @classmethod
    def coordinate_basis(cls, prm, e1, e2, n):
        return np.eye(3)                                      # (6): the global x, y, z

    # --- the angles (6): outputs and start-up targets, not states -------------------------
    @classmethod
    def target_names(cls):
        return ANGLES

    @classmethod
    def target_misses(cls, x, p, targets):
        """(6): where all three angles are set, the rotation vector from the composed
        target rotation to the joint's (cardan.orientation_miss: defined on the singular
        set too); elsewhere each set angle's miss, angle1 and angle3 modulo a turn."""
        fr = Frames(x[:, :NV2])
        R, u, v = cardan.relative_rotation(fr, p.basis1, p.basis2)
        angles, dR = cardan.xyz_angles(R)
        miss = angles - targets
        miss[:, [0, 2]] -= TWO_PI * np.round(miss[:, [0, 2]] / TWO_PI)
        grads = np.zeros(miss.shape + (cls.nvars(),))
        grads[:, :, :NV2] = cardan.gradients(fr, u, v, dR)
        full = ~np.isnan(targets).any(axis=1)
        if full.any():
            sub = Frames(x[full, :NV2])
            r, dr = cardan.orientation_miss(sub, u[full], v[full], R[full],
                                            cardan.xyz_matrix(targets[full]))
            miss[full], grads[full, :, :NV2] = r, dr
        return miss, grads

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
        super().link(inst, frames)
        prm = inst.params
        if _cone_on(prm) and prm.get("ccone") is None:
            # J_eff per body: m·|x|² + min(J), its smallest moment about an axis through
            # the joint point perpendicular to its arm; reduced like m_eff over two bodies
            inertias = [f["m"] * float(np.sum(xl * xl))
                        + (float(np.min(f["J"])) if f.get("J") is not None else 0.0)
                        for f, xl in ((frames[inst.nodes[0]], prm["x1"]),
                                      (frames[inst.nodes[1]], prm["x2"])) if f.get("m")]
            prm["ccone"] = 2.0 * np.sqrt(prm["kcone"] * reduced(inertias, empty=0.0))

    @classmethod
    def prepare(cls, instances):
        p = super().prepare(instances)
        p.friction = _friction_on(instances[0].params)       # one group: same flags
        p.cone_on = _cone_on(instances[0].params)
        p.ccone = np.where(np.isnan(p.ccone), 0.0, p.ccone)
        p.warmup = compiled.Warmup(NUMPY_CALL_SECONDS + NUMPY_JOINT_SECONDS * len(instances))
        return p

    @classmethod
    def _own_twin_computes(cls, p) -> bool:
        """Whether the ball joint's own twin computes the group: the run form of the
        rigid models without added terms."""
        return p.model in ("position", "velocity") and not (p.init or p.friction or p.cone_on)

    @staticmethod
    def _own_twin_args(p) -> tuple:
        """The group's arrays as its own twin's kernels take them after x (not
        ``_twin_args``: the framework's, which the elastic model runs)."""
        return p.pp_n, p.x1, p.x2, p.active, p.model == "position"

    @classmethod
    def _twin(cls, p):
        """The compiled kernels (elements/compiled/spherical.py) for the group, when they
        should run; else None."""
        return compiled.twin("spherical", p.warmup) if cls._own_twin_computes(p) else None

    @classmethod
    def _framework_twin(cls, p, ask=compiled.twin):
        """The joint framework's compiled kernels for the run form without friction or a
        cone limit: the ball joint's added terms are then none (the elastic model runs
        them; the rigid ones run its own twin above first)."""
        if p.init or p.friction or p.cone_on:
            return None
        return ask("joint", p.warmup)

    @classmethod
    def residual_kernel(cls, p):
        if not cls._own_twin_computes(p):
            return super().residual_kernel(p)            # the framework's (elastic model)
        fast = compiled.settled("spherical", p.warmup)
        if fast is None:
            return None
        kernel = compiled.bound(fast.residual, *cls._own_twin_args(p))
        return lambda x, xp: kernel(x)

    @classmethod
    def residual(cls, t, x, xp, p):
        fast = cls._twin(p)
        if fast is not None:
            return fast.residual(x, *cls._own_twin_args(p))
        return super().residual(t, x, xp, p)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        fast = cls._twin(p)
        if fast is not None:
            J = fast.jacobian(x, *cls._own_twin_args(p), HALF_NUMERATOR_D2Q)
            return J, np.broadcast_to(0.0, J.shape)
        return super().jacobian(t, x, xp, p)

    @classmethod
    def local_pattern(cls, n_extra=0, group=None):
        mask = super().local_pattern(n_extra, group)
        friction = group is None or group.friction
        cone = group is None or group.cone_on
        for rows in (W1, W2):
            if friction or cone:                                  # (2), (3): M(ω_rel)
                mask[rows, W1] = mask[rows, W2] = True
            if cone:                                              # (3): M(q1, q2)
                mask[rows, Q1] = mask[rows, Q2] = True
        return mask

    # --- added terms ----------------------------------------------------------------------
    @classmethod
    def _friction(cls, x, p):
        """(2): F, |F|_s, T_f = Tpre + mu·radius·|F|_s, s = sqrt(|ω_rel|² + weps²) and
        u = ω_rel/s; the friction torque on frame 2 is −T_f·u."""
        F = x[..., cls._L0:cls._L0 + 3]
        w = x[..., W2] - x[..., W1]
        Fs = np.sqrt(np.sum(F * F, axis=-1) + FEPS * FEPS)
        T = p.Tpre + p.mu * p.radius * Fs
        s = np.sqrt(np.sum(w * w, axis=-1) + p.weps * p.weps)
        return F, Fs, T, s, w / s[..., None]

    @staticmethod
    def _cone(x, p, deriv=False):
        """(3): the axes a1, a2 with ∂a_i/∂q_i (if ``deriv``, else None), sin θ, cos θ, θ,
        n, ω_rel and the limit torque τ (the torque on frame 2 is −τ·n) with the mask
        where it acts."""
        if deriv:
            a1, da1 = arm(x, 0, p.axis_l)
            a2, da2 = arm(x, NV2 // 2, p.axis_l2)
        else:
            a1 = np.einsum("...ij,...j->...i", quaternion.dcm(x[..., Q1]), p.axis_l)
            a2 = np.einsum("...ij,...j->...i", quaternion.dcm(x[..., Q2]), p.axis_l2)
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
    def added_torque(cls, x, p):
        """M = M_f + M_c, (4); None when neither term is on."""
        if not (p.friction or p.cone_on):
            return None
        M = np.zeros(x.shape[:-1] + (3,))
        if p.friction:
            _, _, T, _, u = cls._friction(x, p)
            M -= T[..., None] * u                                               # (2)
        if p.cone_on:
            *_, n, _, tau, _ = cls._cone(x, p)
            M -= tau[..., None] * n                                             # (3)
        return M

    @classmethod
    def added_torque_jacobian(cls, x, p):
        if not (p.friction or p.cone_on):
            return None
        dM = np.zeros((x.shape[0], 3, x.shape[1]))
        if p.friction:
            cls._friction_jacobian(x, p, dM)
        if p.cone_on:
            cls._cone_jacobian(x, p, dM)
        return dM

    @classmethod
    def _friction_jacobian(cls, x, p, dM):
        """(2): M_f = −T_f·u; ∂(T_f·u)/∂ω_rel = (T_f/s)(I − u uᵀ),
        ∂(T_f·u)/∂F = mu·radius·u Fᵀ/|F|_s."""
        F, Fs, T, s, u = cls._friction(x, p)
        D = (T / s)[:, None, None] * (np.eye(3) - _outer(u, u))
        dM[:, :, W2] -= D
        dM[:, :, W1] += D
        dM[:, :, cls._L0:cls._L0 + 3] -= (p.mu * p.radius / Fs)[:, None, None] * _outer(u, F)

    @classmethod
    def _cone_jacobian(cls, x, p, dM):
        """(3): M_c = −τ·n where the limit acts. θ = atan2(S, C) with S = |a1 × a2|,
        C = a1·a2:
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
        for Q, g, da, dn in ((Q1, g1, da1, dn1), (Q2, g2, da2, dn2)):
            dtau = k * np.einsum("ni,nik->nk", g, da) + c * np.einsum("ni,nik->nk", w, dn)
            dM[:, :, Q] -= act * (_outer(n, dtau) + tau[:, None, None] * dn)
        cnn = act * p.ccone[:, None, None] * _outer(n, n)              # ∂(τ n)/∂ω_rel
        dM[:, :, W2] -= cnn
        dM[:, :, W1] += cnn

    @classmethod
    def switch_names(cls, group):
        return ("cone",) if group.cone_on else ()

    @classmethod
    def switching_functions(cls, t, x, xp, p):
        """(5): the cone limit pushes exactly where this is positive: min(θ − cone,
        θ − cone + (ccone/kcone)·dθ/dt), as a stop's (contact at θ = cone; release where
        the damped torque would turn into a pull)."""
        *_, theta, n, w, _, _ = cls._cone(x, p)
        over = theta - p.cone
        return np.minimum(over, over + p.ccone / p.kcone * np.sum(n * w, axis=-1))[:, None]

    @classmethod
    def added_output_values(cls, x, p):
        _, _, _, _, _, _, tilt, _, _, tau, _ = cls._cone(x, p)
        if p.friction:
            _, _, T, _, u = cls._friction(x, p)
            Tf = T * np.sqrt(np.sum(u * u, axis=-1))
        else:
            Tf = np.zeros_like(tilt)
        fr = Frames(x[:, :NV2])
        angles, _ = cardan.xyz_angles(cardan.relative_rotation(fr, p.basis1, p.basis2)[0])
        return [tilt, Tf, tau] + list(angles.T)                                # (6)

    # --- contract tests ------------------------------------------------------------------
    @classmethod
    def sample_variants(cls):
        plain = {"mu": 0.0, "Tpre": 0.0, "cone": None}
        return (super().sample_variants()                             # friction and cone
                + [{"model": "position", "cone": None},                # friction only
                   {"model": "velocity", "mu": 0.0, "Tpre": 0.0},      # cone only
                   {"model": "position", **plain}, {"model": "elastic", **plain}])

    @classmethod
    def sample_params(cls, rng):
        def unit():
            d = rng.normal(size=3)
            return d / np.linalg.norm(d)
        # weps of the size of the sampled ω_rel, so that both the saturated and the
        # linear part of (2) are seen; kcone, ccone and cone so that the limit of (3)
        # acts at some of the sampled (random) orientations and not at others
        out = super().sample_params(rng)
        out.update({"pp_n": np.eye(3), "mu": 0.3, "radius": 0.5, "weps": 0.4, "Tpre": 0.2,
                    "cone": 1.0, "axis": unit(), "axis_l": unit(), "axis_l2": unit(),
                    "kcone": 2.0, "ccone": 0.3})
        return out
