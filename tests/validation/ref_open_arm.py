r"""Independent reference: open 3-joint arm (waist, shoulder, elbow) driven along prescribed
joint rates -- inverse dynamics in 3D.

Problem statement
-----------------
Gravity g = 9.81 m/s^2 along -z.
* Waist: revolute about the global z axis at the origin, between ground and link 1.
* Shoulder: revolute at (0, 0, 0.2) between link 1 and link 2; axis = global y at t = 0,
  fixed in link 1.
* Elbow: revolute at (0.5, 0, 0.2) between link 2 and link 3; axis = global y at t = 0,
  fixed in link 2.
At t = 0 all joint angles are 0 and the bodies are (centre of mass, principal moments about
axes parallel to global x, y, z at t = 0, turning with their link):

    link 1: 2.0 kg, c = (0, 0, 0.1),   (0.01, 0.01, 0.005)  kg m^2
    link 2: 1.5 kg, c = (0.25, 0, 0.2), (0.001, 0.03, 0.03)
    link 3: 1.0 kg, c = (0.7, 0, 0.2),  (0.0005, 0.015, 0.015)

Prescribed joint rates (angular velocity of the outer link relative to the inner one about
the joint axis, right-hand rule):
    qdot_i  = a_i sin(2 pi f_i t),  a = (1.0, 0.8, 1.2) rad/s,  f = (0.5, 0.7, 0.9) Hz,
    q_i     = a_i (1 - cos(2 pi f_i t)) / (2 pi f_i),
    qddot_i = 2 pi f_i a_i cos(2 pi f_i t)   (non-zero at t = 0).
Reference interval 0 <= t <= 2 s.

Sign conventions
----------------
* tau_i is the torque the actuator at joint i applies to its OUTER link about the joint
  axis (inner link / ground receives -tau_i z_i).  Positive q_2 (about +y) turns the arm
  x axis towards -z (R_y(q) x = (cos q, 0, -sin q)).
* waist_reaction(t) returns (F, M): F = force of ground on link 1 (global components),
  M = constraint moment of ground on link 1 about the origin (global components), WITHOUT
  the drive torque (M . z = 0).  The total moment of ground on link 1 about the origin is
  M + tau_1 e_z (use include_drive=True).

Formulation
-----------
Kinematics: R_1 = Rz(q1), R_2 = R_1 Ry(q2), R_3 = R_2 Ry(q3); axes z_1 = e_z, z_2 = R_1 e_y,
z_3 = R_2 e_y; joint points p_1 = 0, p_2 = (0,0,0.2), p_3 = p_2 + R_2 (0.5,0,0); centres
c_1 = R_1 (0,0,0.1), c_2 = p_2 + R_2 (0.25,0,0), c_3 = p_3 + R_3 (0.2,0,0);
world inertia I_i = R_i diag(J_i) R_i^T.

Route 1 -- recursive Newton-Euler.
Outward: w_i = w_{i-1} + qd_i z_i,  al_i = al_{i-1} + qdd_i z_i + w_{i-1} x (qd_i z_i),
a(p_{i+1}) = a(p_i) + al_i x (p_{i+1}-p_i) + w_i x (w_i x (p_{i+1}-p_i)), likewise a(c_i).
Inward (f_i, n_i = force and total moment about p_i of link i-1 on link i, f_4 = n_4 = 0):
    f_i = m_i (a_ci - g) + f_{i+1}
    n_i = I_i al_i + w_i x I_i w_i - (p_i - c_i) x f_i + n_{i+1} + (p_{i+1} - c_i) x f_{i+1}
    tau_i = n_i . z_i        (the hinge constraint moment is orthogonal to z_i).
Waist: F = f_1, M = n_1 - tau_1 e_z (about the origin, p_1 = 0).

Route 2 -- Lagrange, no acceleration kinematics:
    tau = M(q) qdd + Mdot qd - 1/2 [qd^T (dM/dq_k) qd]_k + dV/dq,
    M(q) = sum_i m_i Jv_i^T Jv_i + Jw_i^T I_i Jw_i,  Jv_i[:, j] = z_j x (c_i - p_j),
    Jw_i[:, j] = z_j (j <= i),  Mdot = sum_k (dM/dq_k) qd_k,  V = g sum_i m_i c_i,z,
with dM/dq_k and dV/dq_k by the complex step Im M(q + i h e_k)/h, h = 1e-30 (exact to
rounding; everything is analytic in q, transposes are plain, not conjugate).

Tolerances
----------
The two routes agree to |tau_1 - tau_2| <= 1e-9 max|tau| per joint (observed ~1e-15);
int_0^2 sum_i tau_i qd_i dt = Delta T + Delta V to 1e-9 relative; T from the bodies'
velocities equals qd^T M qd / 2 to rounding; waist reaction equals the rate of change of the
whole arm's linear and angular momentum minus gravity (global balance) to rounding.
Public functions accept scalars or arrays of t.
"""
import numpy as np

DATA = {
    "g": 9.81,                                   # along -z
    "m": (2.0, 1.5, 1.0),
    "com0": ((0.0, 0.0, 0.1), (0.25, 0.0, 0.2), (0.7, 0.0, 0.2)),
    "J": ((0.01, 0.01, 0.005), (0.001, 0.03, 0.03), (0.0005, 0.015, 0.015)),
    "joint_points0": ((0.0, 0.0, 0.0), (0.0, 0.0, 0.2), (0.5, 0.0, 0.2)),
    "joint_axes0": ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0), (0.0, 1.0, 0.0)),
    "a": (1.0, 0.8, 1.2),                        # rad/s
    "f": (0.5, 0.7, 0.9),                        # Hz
    "t_span": (0.0, 2.0),
}

_g = DATA["g"]
_gvec = np.array([0.0, 0.0, -_g])
_m = np.array(DATA["m"])
_J = [np.diag(j) for j in DATA["J"]]
_a = np.array(DATA["a"])
_f = np.array(DATA["f"])
_p2 = np.array([0.0, 0.0, 0.2])
_l2 = np.array([0.5, 0.0, 0.0])      # p3 - p2 in link-2 frame
_r1 = np.array([0.0, 0.0, 0.1])      # c1 - p1 in link-1 frame
_r2 = np.array([0.25, 0.0, 0.0])     # c2 - p2 in link-2 frame
_r3 = np.array([0.2, 0.0, 0.0])      # c3 - p3 in link-3 frame


def joint_angles(t):
    """q(t), shape (n, 3) (or (3,) for scalar t) [rad]."""
    t = np.asarray(t, dtype=float)
    w = 2 * np.pi * _f
    return _a * (1 - np.cos(w * t[..., None])) / w


def joint_rates(t):
    t = np.asarray(t, dtype=float)
    return _a * np.sin(2 * np.pi * _f * t[..., None])


def joint_accelerations(t):
    t = np.asarray(t, dtype=float)
    w = 2 * np.pi * _f
    return w * _a * np.cos(w * t[..., None])


def _Rz(q):
    c, s = np.cos(q), np.sin(q)
    o, z = np.ones_like(q), np.zeros_like(q)
    return np.stack([np.stack([c, -s, z], -1), np.stack([s, c, z], -1), np.stack([z, z, o], -1)], -2)


def _Ry(q):
    c, s = np.cos(q), np.sin(q)
    o, z = np.ones_like(q), np.zeros_like(q)
    return np.stack([np.stack([c, z, s], -1), np.stack([z, o, z], -1), np.stack([-s, z, c], -1)], -2)


def _mv(R, v):
    return np.einsum("...ij,...j->...i", R, v)


def _geometry(q):
    """Frames, axes, joint points, centres of mass and world inertias; q shape (n, 3)."""
    R1 = _Rz(q[:, 0])
    R2 = R1 @ _Ry(q[:, 1])
    R3 = R2 @ _Ry(q[:, 2])
    n = q.shape[0]
    ez = np.broadcast_to(np.array([0.0, 0.0, 1.0]), (n, 3)).astype(q.dtype)
    ey = np.array([0.0, 1.0, 0.0])
    z = [ez, _mv(R1, ey), _mv(R2, ey)]
    p1 = np.zeros((n, 3), dtype=q.dtype)
    p2 = np.broadcast_to(_p2, (n, 3)).astype(q.dtype)
    p3 = p2 + _mv(R2, _l2)
    p = [p1, p2, p3]
    c = [_mv(R1, _r1), p2 + _mv(R2, _r2), p3 + _mv(R3, _r3)]
    R = [R1, R2, R3]
    I = [Ri @ Ji @ np.swapaxes(Ri, -1, -2) for Ri, Ji in zip(R, _J)]
    return R, z, p, c, I


# ---------------------------------------------------------------- route 1: recursive NE
def _rne(t):
    t = np.atleast_1d(np.asarray(t, dtype=float))
    q, qd, qdd = joint_angles(t), joint_rates(t), joint_accelerations(t)
    R, z, p, c, I = _geometry(q)
    n = t.size
    w_prev = np.zeros((n, 3))
    al_prev = np.zeros((n, 3))
    a_p = np.zeros((n, 3))            # acceleration of p_1 (fixed)
    w, al, ac = [], [], []
    for i in range(3):
        wi = w_prev + qd[:, i, None] * z[i]
        ali = al_prev + qdd[:, i, None] * z[i] + np.cross(w_prev, qd[:, i, None] * z[i])
        if i > 0:
            d = p[i] - p[i - 1]
            a_p = a_p + np.cross(al_prev, d) + np.cross(w_prev, np.cross(w_prev, d))
        rc = c[i] - p[i]
        aci = a_p + np.cross(ali, rc) + np.cross(wi, np.cross(wi, rc))
        w.append(wi); al.append(ali); ac.append(aci)
        w_prev, al_prev = wi, ali
    f_next = np.zeros((n, 3))
    n_next = np.zeros((n, 3))
    p_next = np.zeros((n, 3))
    tau = np.zeros((n, 3))
    fs, ns = [None] * 3, [None] * 3
    for i in (2, 1, 0):
        fi = _m[i] * (ac[i] - _gvec) + f_next
        Iw = _mv(I[i], w[i])
        ni = (_mv(I[i], al[i]) + np.cross(w[i], Iw) - np.cross(p[i] - c[i], fi)
              + n_next + np.cross(p_next - c[i], f_next))
        tau[:, i] = np.einsum("ij,ij->i", ni, z[i])
        fs[i], ns[i] = fi, ni
        f_next, n_next, p_next = fi, ni, p[i]
    return {"tau": tau, "f": fs, "n": ns, "w": w, "al": al, "ac": ac, "c": c, "I": I,
            "z": z, "p": p}


def drive_torques(t):
    """Drive torques (tau_1, tau_2, tau_3) [N m], shape (n, 3) (or (3,) for scalar t);
    route 1 (recursive Newton-Euler)."""
    tau = _rne(t)["tau"]
    return tau if np.ndim(t) else tau[0]


def waist_reaction(t, include_drive=False):
    """(F, M): force of ground on link 1 and its moment about the origin, global components,
    shapes (n, 3).  M excludes the drive torque (M_z = 0) unless include_drive=True."""
    s = _rne(t)
    F, M = s["f"][0], s["n"][0].copy()
    if not include_drive:
        M = M - s["tau"][:, 0, None] * np.array([0.0, 0.0, 1.0])
    if np.ndim(t) == 0:
        return F[0], M[0]
    return F, M


def energy(t):
    """(T, V) [J] from the bodies' velocities (route 1 kinematics); V = g sum m_i z_ci."""
    t = np.atleast_1d(np.asarray(t, dtype=float))
    q, qd = joint_angles(t), joint_rates(t)
    R, z, p, c, I = _geometry(q)
    w_prev = np.zeros((t.size, 3))
    v_p = np.zeros((t.size, 3))
    T = np.zeros(t.size)
    for i in range(3):
        wi = w_prev + qd[:, i, None] * z[i]
        if i > 0:
            v_p = v_p + np.cross(w_prev, p[i] - p[i - 1])
        vc = v_p + np.cross(wi, c[i] - p[i])
        T += 0.5 * _m[i] * np.einsum("ij,ij->i", vc, vc) + 0.5 * np.einsum("ij,ij->i", wi, _mv(I[i], wi))
        w_prev = wi
    V = _g * sum(_m[i] * c[i][:, 2] for i in range(3))
    return T, V


# ---------------------------------------------------------------- route 2: Lagrange
def _mass_matrix_and_V(q):
    R, z, p, c, I = _geometry(q)
    n = q.shape[0]
    M = np.zeros((n, 3, 3), dtype=q.dtype)
    for i in range(3):
        Jv = np.zeros((n, 3, 3), dtype=q.dtype)
        Jw = np.zeros((n, 3, 3), dtype=q.dtype)
        for j in range(i + 1):
            Jv[:, :, j] = np.cross(z[j], c[i] - p[j])
            Jw[:, :, j] = z[j]
        M += _m[i] * np.swapaxes(Jv, 1, 2) @ Jv + np.swapaxes(Jw, 1, 2) @ I[i] @ Jw
    V = _g * sum(_m[i] * c[i][:, 2] for i in range(3))
    return M, V


def mass_matrix(q):
    """Joint-space mass matrix M(q), q shape (n, 3) -> (n, 3, 3)."""
    return _mass_matrix_and_V(np.atleast_2d(np.asarray(q)))[0]


def drive_torques_lagrange(t, h=1e-30):
    """Route 2: tau = M qdd + Mdot qd - 1/2 [qd^T dM/dq_k qd]_k + dV/dq (complex step)."""
    scalar = np.ndim(t) == 0
    t = np.atleast_1d(np.asarray(t, dtype=float))
    q, qd, qdd = joint_angles(t), joint_rates(t), joint_accelerations(t)
    M, _ = _mass_matrix_and_V(q)
    dM, dV = [], []
    for k in range(3):
        qc = q.astype(complex)
        qc[:, k] += 1j * h
        Mk, Vk = _mass_matrix_and_V(qc)
        dM.append(Mk.imag / h)
        dV.append(Vk.imag / h)
    Mdot = sum(dM[k] * qd[:, k, None, None] for k in range(3))
    quad = np.stack([np.einsum("ni,nij,nj->n", qd, dM[k], qd) for k in range(3)], -1)
    tau = _mv(M, qdd) + _mv(Mdot, qd) - 0.5 * quad + np.stack(dV, -1)
    return tau[0] if scalar else tau


# Tabulated reference values (route 1; tau [N m]; waist force [N] and constraint moment about O [N m], without drive torque), checked by test_references_driven.py.
DATA["samples"] = {
    "t": [0.0, 0.5, 1.0, 2.0],
    "drive_torques": [
        [1.9909843442125312, -7.281635232920206, -1.0433983080903446],
        [-0.34074173303536304, -11.749007702682588, -2.049390077969129],
        [-1.8716167791280784, -10.067269487465847, -1.7504883873977384],
        [1.7330814378378705, -11.331690021867129, -2.0637906574085125]],
    "waist_force": [
        [0.0, 3.3772121026090276, 39.0053544187271],
        [0.29370332167548663, -0.5199972630507217, 47.418539068102625],
        [1.2046835116995571, -3.1827340839956397, 44.46071095377499],
        [0.6103676766306096, 3.1599843893214627, 46.73919067981979]],
    "waist_moment": [
        [-0.6754424205218056, -7.281635232920206, 0.0],
        [3.640454655512136, -11.146372510231016, 0.0],
        [6.244312075131749, -8.132995129605796, 0.0],
        [0.022204438981817676, -11.209616486541005, 0.0]],
}
