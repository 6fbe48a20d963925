"""Kinematics of frame ports shared by the 3D elements (force, torque, joints).

A frame port gives 13 local variables in FRAME_VARS order: V (3), ω (3), r (3),
q (4), global components; the ground frame reads zeros and q = (1, 0, 0, 0). A point
fixed in the frame at local offset ``x_l`` (from the centre of mass) is at
r + A(q)·x_l and moves with V + ω × (A(q)·x_l).
"""
import numpy as np

from . import quaternion
from .declarations import Param

NV = 13                      # local variables of a frame port
V, W, R, Q = slice(0, 3), slice(3, 6), slice(6, 9), slice(9, 13)


# a × b = a[P]·b[Q] − a[Q]·b[P]: the six products in one gather each of a and b
_PQ, _QP = np.array([1, 2, 0, 2, 0, 1]), np.array([2, 0, 1, 1, 2, 0])


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a × b over the last axis (…,3); np.cross costs ~10x more on small arrays, and
    this sits in every residual evaluation of every 3D element (4 numpy calls; component
    by component took 10)."""
    products = a[..., _PQ] * b[..., _QP]
    return products[..., :3] - products[..., 3:]


def skew(a: np.ndarray) -> np.ndarray:
    """(…,3) -> (…,3,3) with skew(a) @ b = a × b."""
    s = np.zeros(a.shape + (3,))
    s[..., 0, 1], s[..., 0, 2] = -a[..., 2], a[..., 1]
    s[..., 1, 0], s[..., 1, 2] = a[..., 2], -a[..., 0]
    s[..., 2, 0], s[..., 2, 1] = -a[..., 1], a[..., 0]
    return s


def arm(x: np.ndarray, offset: int, x_local: np.ndarray):
    """Offset A(q)·x_l of the attachment point from the centre of mass (…,3) and its
    derivative with respect to q (…,3,4), for the frame whose variables start at
    ``offset`` in the local vector x."""
    q = x[..., offset + 9:offset + 13]
    A = quaternion.dcm(q)
    r = np.einsum("...ij,...j->...i", A, x_local)
    dr_dq = np.einsum("...ijk,...j->...ik", quaternion.dcm_dq(q), x_local)
    return r, dr_dq


def with_rotation(state: dict) -> dict:
    """A frame's initial state with ``A``, its rotation matrix (local → global) at t = 0:
    computed once per frame, where every element linked to the frame reads it (each joint
    of a chain reads two bodies' A three times). Read-only, being shared."""
    A = quaternion.dcm(np.array([state[k] for k in ("q0", "q1", "q2", "q3")]))
    A.setflags(write=False)
    return {**state, "A": A}


def local_offset(frame_state: dict, point: np.ndarray) -> np.ndarray:
    """x_l = A0ᵀ(P − r0): a global point at t = 0 as an offset in the frame."""
    r0 = np.array([frame_state[k] for k in ("x", "y", "z")])
    return frame_state["A"].T @ (np.asarray(point, dtype=float) - r0)


def point_params(what: str) -> tuple:
    """The parameters at1, at2 of an element between two points of two frames: each
    ``what`` on frame i, global coordinates at t = 0, default the frame's centre of mass."""
    return tuple(Param(f"at{i}", "m", default=None, kind="vector", size=3,
                       description=f"{what} on frame {i}, global coordinates at t = 0 "
                       "(default: its centre of mass)") for i in (1, 2))


def global_point(frames: dict, nodes: list, atframe: str, point) -> np.ndarray:
    """A point written in global coordinates ('global') or in the frame of the element's
    first or second frame port ('frame1', 'frame2'; body frame, from its centre of mass),
    as global coordinates at t = 0."""
    point = np.asarray(point, dtype=float)
    if atframe == "global":
        return point
    state = frames[nodes[0] if atframe == "frame1" else nodes[1]]
    r0 = np.array([state[k] for k in ("x", "y", "z")])
    return r0 + state["A"] @ point


def reduced(values: list, empty: float = 1.0) -> float:
    """Reduced mass (or inertia) v1·v2/(v1 + v2) of two frames, the one value when the other
    frame is ground, ``empty`` when neither has one: what a joint's default critical
    damping 2·sqrt(k·v) is computed with."""
    if len(values) == 2:
        return float(values[0] * values[1] / (values[0] + values[1]))
    return float(values[0]) if values else empty
