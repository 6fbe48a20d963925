"""The invariants of the motion that the equations F(t, y, y') = 0 state only at velocity
level, or not at all, and which unknowns make good coordinates.

A transient keeps these by itself (it starts on them and integrates consistently); a
static or linear analysis has to add them, or the quantities they tie stay free:

- the position constraints g(p, q) = 0 of every rigid joint (the velocity model states
  only W·u = 0; the position model states them too, a repeated row is harmless);
- the joint coordinates: J.angle = θ(q1, q2), J.s = s(p1, p2) (the coordinate is the
  integral of the axis node, equal to the geometric value since the start-up);
- integrators of the same potential difference, such as a spring's deflection on a joint
  axis next to the joint's coordinate: dx/dt = w and dθ/dt = w keep x − θ constant;
- what a projection hook restores after each step (a body's |q| = 1): the directions it
  removes are normals of an invariant.

Every query goes through the element protocol (joints, bodies, projection).
"""
from __future__ import annotations

import numpy as np

from ..elements.declarations import FRAME_VARS
from ..solver.lazy import sparse as sp   # scipy.sparse, imported on first use

NF = len(FRAME_VARS)
POS = list(range(6, 13)) + list(range(NF + 6, NF + 13))   # p, q of the joint's two frames
PROJECTION_STEP = 1e-5   # relative central-difference step of the projection's Jacobian
LINK_DIGITS = 12         # significant digits to which two integrator rows must agree

# preference of unknowns as minimal coordinates (lower first)
JOINT_COORDINATE, JOINT_AXIS, OTHER, BODY_VELOCITY, BODY_POSE = range(5)


def _joints(system):
    return [g for g in system.groups if g.etype.is_joint]


def scatter(rows: list, n: int) -> tuple:
    """[(value, global cols, coefficients)] -> (values (m,), dense G (m, n)); the
    constant slots of the ground (index ≥ n) dropped."""
    G = np.zeros((len(rows), n))
    values = np.zeros(len(rows))
    for i, (value, cols, coef) in enumerate(rows):
        keep = cols < n
        np.add.at(G[i], cols[keep], coef[keep])
        values[i] = value
    return values, G


def position_rows(system, y: np.ndarray) -> list:
    """g = 0 of every rigid joint (switched-off loop rows too: they hold geometrically)."""
    ye = np.concatenate([y, (0.0, 1.0)])
    out = []
    for g in _joints(system):
        if not g.etype.is_rigid(g.p):
            continue
        val, grad = g.etype.position_constraints(ye[g.var_idx], g.p)
        for i in range(val.shape[0]):
            for k in range(val.shape[1]):
                out.append((val[i, k], g.var_idx[i, POS], grad[i, k, POS]))
    return out


def coordinate_rows(system, y: np.ndarray) -> list:
    """J.angle − θ(q1, q2) = 0 and J.s − s(p1, p2) = 0 (angles compared modulo 2π)."""
    ye = np.concatenate([y, (0.0, 1.0)])
    out = []
    for g in _joints(system):
        names = g.etype.coordinate_names()
        if not names:
            continue
        values, grads = g.etype.coordinates(ye[g.var_idx], g.p)
        cvars = g.var_idx[:, g.etype.coordinate_vars()]
        for i, inst in enumerate(g.instances):
            for k, name in enumerate(names):
                j = cvars[i, k]
                diff = ye[j] - values[i, k]
                if system.units.get(f"{inst.name}.{name}") == "rad":
                    diff = float(np.angle(np.exp(1j * diff)))
                cols = np.concatenate([[j], g.var_idx[i, POS]])
                out.append((diff, cols, np.concatenate([[1.0], -grads[i, k, POS]])))
    return out


def linked_integrators(system, J0: sp.spmatrix, E: sp.spmatrix) -> list:
    """Pairs (s, a) of unknowns whose own equations are pure integrators of the same
    combination of other unknowns, E_ss·ds/dt + r·y = 0 and E_aa·da/dt + r·y = 0 (after
    division by E): s − a is then constant."""
    J0, E = sp.csr_matrix(J0), sp.csr_matrix(E)
    groups: dict = {}
    for s in np.flatnonzero(np.asarray(system.id) != 0):
        e_cols = E.indices[E.indptr[s]:E.indptr[s + 1]]
        e_vals = E.data[E.indptr[s]:E.indptr[s + 1]]
        nz = e_vals != 0
        if list(e_cols[nz]) != [s]:
            continue
        cols = J0.indices[J0.indptr[s]:J0.indptr[s + 1]]
        vals = J0.data[J0.indptr[s]:J0.indptr[s + 1]] / e_vals[nz][0]
        keep = vals != 0
        if not keep.any() or s in cols[keep]:
            continue
        key = tuple(sorted((int(c), float(f"{v:.{LINK_DIGITS}g}"))
                           for c, v in zip(cols[keep], vals[keep])))
        groups.setdefault(key, []).append(int(s))
    return [(s, members[0]) for members in groups.values() for s in members[1:]]


def linked_rows(pairs: list, y: np.ndarray, y_ref: np.ndarray) -> list:
    """(y_s − y_a) − (y_ref_s − y_ref_a) = 0 for each linked pair."""
    return [((y[s] - y[a]) - (y_ref[s] - y_ref[a]), np.array([s, a]), np.array([1.0, -1.0]))
            for s, a in pairs]


def projection_normals(system, y: np.ndarray) -> np.ndarray:
    """Rows (m, n): the orthogonal projector onto the directions the projection hook P
    removes (a body's quaternion: q·qᵀ/|q|²), restricted to the unknowns P moves. From
    the difference quotient of I − ∂P/∂y, cleaned by its singular values (a projection's
    are 0 or 1); a projector, unlike a basis, is unique and smooth in y, so that its
    rate along a motion can be differenced too."""
    if system.project is None:
        return np.zeros((0, system.n))
    cols = {}
    for j in np.flatnonzero(np.asarray(system.id) != 0):
        h = PROJECTION_STEP * max(abs(y[j]), 1.0)
        up, down = y.copy(), y.copy()
        up[j] += h
        down[j] -= h
        col = (system.project(0.0, up) - system.project(0.0, down)) / (2 * h)
        col[j] -= 1.0                          # (∂P/∂y − I)·e_j
        if np.abs(col).max() > 1e-6:
            cols[int(j)] = -col
    if not cols:
        return np.zeros((0, system.n))
    touched = sorted(set(cols) | {int(i) for c in cols.values()
                                  for i in np.flatnonzero(np.abs(c) > 1e-6)})
    block = np.zeros((len(touched), len(touched)))
    where = {j: i for i, j in enumerate(touched)}
    for j, col in cols.items():
        block[:, where[j]] = col[touched]
    U, s, _ = np.linalg.svd(block)
    Ur = U[:, s > 0.5]
    out = np.zeros((len(touched), system.n))
    out[:, touched] = Ur @ Ur.T
    return out


def preference(system) -> np.ndarray:
    """Per unknown, how good a minimal coordinate it makes (lower is better): joint
    coordinates, joint axis nodes, the other unknowns, bodies' velocities, bodies'
    positions and quaternions."""
    tier = np.full(system.n + 2, OTHER)
    for g in system.groups:
        if g.etype.is_body:
            tier[g.var_idx.ravel()] = BODY_VELOCITY        # V, ω and the body-axes ω_b
            tier[g.var_idx[:, 6:13].ravel()] = BODY_POSE
    for g in _joints(system):
        if g.etype.coordinate_names():
            tier[g.var_idx[:, g.etype.flange_vars()].ravel()] = JOINT_AXIS
            tier[g.var_idx[:, g.etype.coordinate_vars()].ravel()] = JOINT_COORDINATE
    return tier[:system.n]

