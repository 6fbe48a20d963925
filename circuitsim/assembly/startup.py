"""Kinematic start-up of a mechanism at t = 0: assembly, then redundant loop constraints.

1. Positions. The joint points and axes the user drew rarely close a loop exactly. The
   bodies' positions and quaternions are moved onto g(p, q) = 0 — every joint's position
   constraints, whatever its model, so that swapping models leaves the start unchanged —
   by Gauss–Newton with minimum-norm corrections (least squares: dense up to
   DENSE_MAX unknowns, sparse LSQR above; redundant rows of a closed loop are harmless
   there). ``.ic`` values are hard: an ``.ic`` body coordinate is not
   moved, and an ``.ic`` joint coordinate (``J.angle``, ``J.s``) becomes a constraint.
   Body start values are soft: they move, as little as possible.
2. Velocities. The same with the velocity rows W·u = 0 and the axis-node relations,
   weighted by mass and inertia (the kinetic-energy metric: the correction an impulse
   would make). ``.ic`` velocities are hard.
3. Joint coordinates not set by ``.ic`` start at their geometric value.
4. Mobility and redundant constraints (mobility.py). A closed loop of rigid joints
   usually constrains some motion twice (a planar four-bar of revolute joints: 3 rows
   too many); the redundant rows are found per loop and switched off (their λ = 0), as
   multibody codes do. The reactions are then one of the many that balance the loop;
   a warning names the joints.

What moved, by how much, and which rows were switched off is reported as notes; a loop
that cannot be closed is a located error naming its joints.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..elements.declarations import FRAME_VARS
from ..errors import ModelError
from ..solver.lazy import sparse as sp   # scipy.sparse, imported on first use
from ..solver.newton import DENSE_MAX
from ..solver.rowmatrix import RowMatrix
from .mobility import Mobility, analyse, switch_off

POS_TOL = 1e-10        # m (and rad-like units of the rotation rows): assembled
POS_FLOOR = 1e-15      # m: the rounding level of coordinates of order 1 m
STALL = 0.5            # below POS_TOL, stop when an iteration no longer halves |g|
VEL_TOL = 1e-10        # m/s, rad/s
MAX_ITERS = 30
REPORT = 5             # moved values / joints named in a note
ROUNDING = 64 * np.finfo(float).eps    # a moved value this small relative to the other: 0
CULPRIT = 1e-6         # a joint's violation below this fraction of the largest: not named
NF = len(FRAME_VARS)
VEL = list(range(0, 6)) + list(range(NF, NF + 6))            # V, ω of the two frames
POS = list(range(6, 13)) + list(range(NF + 6, NF + 13))      # p, q of the two frames


@dataclass
class StartUp:
    """What the start-up did: consistent y0, notes on what moved, the mobility analysis
    (None without bodies) and warnings (over-constrained loops)."""
    y0: np.ndarray
    notes: list = field(default_factory=list)
    mobility: Mobility | None = None
    warnings: list = field(default_factory=list)       # (message, loc)


def kinematic_start(system, y0: np.ndarray) -> StartUp:
    """Consistent positions and velocities at t = 0, the mobility analysis and the
    redundant-row flags of the joint groups (set in place)."""
    joints = [g for g in system.groups if g.etype.is_joint]
    if not joints:
        y0 = _synced(system, y0)
        return StartUp(y0, [], _mobility(system, np.concatenate([y0, (0.0, 1.0)])))
    for g in joints:
        g.etype.set_active(g.p, 1.0)
    n = system.n
    hard = np.zeros(n + 2, dtype=bool)
    hard[n:] = True                                   # the constant slots
    targets = []                                      # (group, row, target, value)
    y = np.concatenate([y0, (0.0, 1.0)])
    for g in system.groups:                  # a node driven against ground: hard
        if g.etype.imposes != "potential":
            continue
        imposed = g.etype.imposed_potential(0.0, g.p)
        a, b = g.var_idx[:, 0], g.var_idx[:, 1]
        for node, other, sign in ((a, b, 1.0), (b, a, -1.0)):
            grounded = (other == system.zero) & (node < n)
            y[node[grounded]] = sign * imposed[grounded]
            hard[node[grounded]] = True
    for name, (value, _) in system.circuit.ics.items():
        index = system.numbering.index.get(name)
        if index is not None:
            hard[index] = True
    for g in joints:
        for row, inst in enumerate(g.instances):
            for k, coord in enumerate(g.etype.target_names()):
                key = f"{inst.name}.{coord}"
                if key in system.circuit.ics:
                    targets.append((g, row, k, system.circuit.ics[key][0]))
    notes = []
    before = y.copy()
    _assemble_positions(system, joints, y, hard, targets)
    moved = _moved(system, before, y, POS, joints)
    if moved:
        notes.append("assembly at t = 0 moved the bodies onto the joints: " + moved)
    before = y.copy()
    _assemble_velocities(system, joints, y, hard)
    moved = _moved(system, before, y, VEL, joints)
    if moved:
        notes.append("assembly at t = 0 made the velocities consistent: " + moved)
    _start_coordinates(joints, y, hard)
    mobility = _mobility(system, y)
    if mobility:
        switch_off(mobility)
    warnings = mobility.warnings() if mobility else []
    return StartUp(_synced(system, y[:n]), notes, mobility, warnings)


def _synced(system, y):
    """y with the mirroring states recomputed (a body's ω_b from its ω and q); an
    ``.ic`` on one of them is an error (it would be overwritten)."""
    out = system.sync_states(y)
    for name, (value, loc) in system.circuit.ics.items():
        index = system.numbering.index.get(name)
        if index is not None and out[index] != y[index]:
            raise ModelError(f".ic: {name} follows from the other unknowns ({name} = "
                             f"{out[index]:.6g} here); set them instead (a body's angular "
                             "velocity: w= or .ic on its wx, wy, wz)", loc)
    return out


def _mobility(system, y):
    """The mobility analysis, or None for a circuit without bodies and joints."""
    if not any(g.etype.is_body for g in system.groups):
        return None
    return analyse(system, y)


# --- positions -------------------------------------------------------------------------

def _position_rows(joints, y, targets):
    """Global residual g and its sparse Jacobian over all unknowns."""
    values, rows, cols, data = [], [], [], []
    offset = 0
    for g in joints:
        x = y[g.var_idx]
        val, grad = g.etype.position_constraints(x, g.p)
        N, m = val.shape
        values.append(val.ravel())
        r = offset + np.arange(N * m).reshape(N, m)
        rows.append(np.repeat(r[:, :, None], len(POS), axis=2).ravel())
        cols.append(np.repeat(g.var_idx[:, None, POS], m, axis=1).ravel())
        data.append(grad[:, :, POS].ravel())
        offset += N * m
    for g, wanted in _grouped(targets):
        miss, grads = g.etype.target_misses(y[g.var_idx], g.p, wanted)
        for row, k in zip(*np.nonzero(~np.isnan(wanted))):
            values.append(np.array([miss[row, k]]))
            rows.append(np.full(len(POS), offset))
            cols.append(g.var_idx[row, POS])
            data.append(grads[row, k, POS])
            offset += 1
    return np.concatenate(values), _matrix(data, rows, cols, (offset, len(y)))


def _grouped(targets) -> list:
    """[(group, wanted)]: the ``.ic`` targets of each joint group, wanted (N, k) with
    NaN where unset; the rows of ``_position_rows`` follow this order."""
    by_group: dict = {}
    for g, row, k, value in targets:
        item = by_group.setdefault(id(g), (g, np.full((len(g.instances),
                                                       len(g.etype.target_names())), np.nan)))
        item[1][row, k] = value
    return list(by_group.values())


def _target_instances(targets) -> list:
    """The joint instance of each target row of ``_position_rows``."""
    return [g.instances[row] for g, wanted in _grouped(targets)
            for row, _ in zip(*np.nonzero(~np.isnan(wanted)))]


def _matrix(data, rows, cols, shape):
    """The matrix with the entries ``data`` at (``rows``, ``cols``) (lists of arrays,
    duplicates summed): dense for a small system, else a RowMatrix (neither needs
    scipy.sparse, which only LSQR imports)."""
    data, rows, cols = (np.concatenate(part) for part in (data, rows, cols))
    if shape[1] <= DENSE_MAX + 2:                 # y holds the two constant slots too
        out = np.zeros(shape)
        np.add.at(out, (rows, cols), data)
        return out
    return RowMatrix.from_entries(rows, cols, data, *shape)


def _least_squares(A, b: np.ndarray, scale=None) -> np.ndarray:
    """The minimum-norm z with A·diag(scale)·z closest to b (scale: 1 if None)."""
    if isinstance(A, np.ndarray):
        return np.linalg.lstsq(A if scale is None else A * scale, b, rcond=None)[0]
    from scipy.sparse.linalg import lsqr   # on use: 0.1-0.3 s of import
    A = A.scipy() if scale is None else A.scipy() @ sp.diags(scale)
    return lsqr(A, b, atol=1e-14, btol=1e-14, iter_lim=10 * A.shape[1])[0]


def _assemble_positions(system, joints, y, hard, targets):
    """Gauss–Newton onto g = 0. It goes on below POS_TOL while the violation still falls
    (quadratic convergence: usually one more iteration): the position model then starts
    at the rounding level, and the first step does not move the positions by a violation
    that tight absolute tolerances (atol 1e-12) would read as error."""
    previous = np.inf
    for _ in range(MAX_ITERS):
        g, G = _position_rows(joints, y, targets)
        size = np.abs(g).max(initial=0.0)
        if size <= POS_FLOOR or (size <= POS_TOL and size > STALL * previous):
            return
        previous = size
        free = np.flatnonzero(np.asarray(abs(G).sum(axis=0)).ravel() > 0)
        free = free[~hard[free]]
        if not len(free):
            break
        y[free] += _least_squares(G[:, free], -g)
        if system.project is not None:
            y[:system.n] = system.project(0.0, y[:system.n])
    g, _ = _position_rows(joints, y, targets)
    if np.abs(g).max(initial=0.0) > 1e3 * POS_TOL:
        extra = _target_instances(targets)
        raise ModelError(_not_assembled(joints, g, "positions", "m",
                                        "check the joint points, axes and link lengths"
                                        + (" and the .ic joint coordinates" if targets
                                           else ""), extra=extra),
                         _worst_loc(joints, g, extra=extra))


# --- velocities ------------------------------------------------------------------------

def _velocity_rows(joints, y):
    """The velocity-level rows of every joint: (R, kinds, flange node per row or -1)
    with R sparse over all unknowns; kinds 'c' for a constraint row, 'f' for a flange
    relation w − W_f·u."""
    rows, cols, data, kinds, nodes = [], [], [], [], []
    offset = 0
    for g in joints:
        R = g.etype.velocity_rows(y[g.var_idx], g.p)
        N, m, nv = R.shape
        mc = len(g.etype.constraint_names())
        r = offset + np.arange(N * m).reshape(N, m)
        rows.append(np.repeat(r[:, :, None], nv, axis=2).ravel())
        cols.append(np.repeat(g.var_idx[:, None, :], m, axis=1).ravel())
        data.append(R.ravel())
        flange = np.full((N, m), -1)
        flange[:, mc:] = g.var_idx[:, g.etype.flange_vars()]
        kinds += (["c"] * mc + ["f"] * (m - mc)) * N
        nodes.append(flange.ravel())
        offset += N * m
    return (_matrix(data, rows, cols, (offset, len(y))), np.array(kinds),
            np.concatenate(nodes))


def _assemble_velocities(system, joints, y, hard):
    """Body velocities onto W·u = 0 (and onto the relations of flanges whose node is
    prescribed), mass-weighted; nothing moves when they already hold to VEL_TOL. A free
    flange node that only its joint determines then follows the bodies, w = W_f·u: it is
    not a least-squares unknown (a weak one would leak its correction into the bodies)."""
    R, kinds, node = _velocity_rows(joints, y)
    shared = np.bincount(node[node >= 0], minlength=len(y))
    follower = (kinds == "f") & (node >= 0)
    follower[follower] = ~hard[node[follower]] & (shared[node[follower]] == 1)
    keep = np.zeros(len(y), dtype=bool)
    for g in joints:
        keep[g.var_idx[:, VEL].ravel()] = True
    keep[node[(kinds == "f") & ~follower]] = True       # shared flange nodes stay weak
    keep &= ~hard
    keep[system.n:] = False
    free = np.flatnonzero(keep)
    active = np.flatnonzero(~follower)
    Ra = R[active]
    residual = Ra @ y
    if np.abs(residual).max(initial=0.0) > VEL_TOL and len(free):
        scale = 1.0 / np.sqrt(_velocity_weights(system, joints, len(y))[free])
        y[free] += scale * _least_squares(Ra[:, free], -residual, scale)
        residual = Ra @ y
        if np.abs(residual).max() > 1e3 * VEL_TOL * max(1.0, np.abs(y[free]).max()):
            full = np.zeros(R.shape[0])
            full[active] = residual
            raise ModelError(_not_assembled(joints, full, "velocities", "m/s or rad/s",
                                            "check the .ic velocities", flanges=True),
                             _worst_loc(joints, full, flanges=True))
    rows = np.flatnonzero(follower)                      # w − W_f·u = 0, coefficient 1
    y[node[rows]] -= R[rows] @ y


def _velocity_weights(system, joints, size):
    """Mass for a body's V, mean principal inertia for its ω, a small weight for axis
    nodes (they follow the bodies)."""
    w = np.full(size, 1e-6)
    for g in system.groups:
        if not g.etype.is_body:
            continue
        for row, inst in enumerate(g.instances):
            m, J = g.etype.mass_properties(inst)
            idx = g.var_idx[row]
            w[idx[0:3]] = m
            w[idx[3:6]] = float(np.mean(J))
    return w


# --- coordinates, redundancy ---------------------------------------------------------------

def _start_coordinates(joints, y, hard):
    for g in joints:
        if not g.etype.coordinate_names():       # no states (a ball joint's angles)
            continue
        coords, _ = g.etype.coordinates(y[g.var_idx], g.p)
        idx = g.var_idx[:, g.etype.coordinate_vars()]
        free = ~hard[idx]
        y[idx[free]] = coords[free]


# --- reports -------------------------------------------------------------------------------

def _moved(system, before, after, local, joints) -> str:
    """What moved, largest change first, each value with the digits that show the
    change, and the resulting change of the stored energy."""
    idx = sorted({int(i) for g in joints for i in g.var_idx[:, local].ravel()
                  if i < system.n})
    changes = [(abs(after[i] - before[i]), system.names[i], before[i], after[i])
               for i in idx if abs(after[i] - before[i]) > 1e-12 * max(1.0, abs(before[i]))]
    if not changes:
        return ""
    changes.sort(reverse=True)
    text = ", ".join(f"{name} {_shown(a, b)}" for _, name, a, b in changes[:REPORT])
    if len(changes) > REPORT:
        text += f" (and {len(changes) - REPORT} more)"
    energy = _stored_energy(system, after) - _stored_energy(system, before)
    return text + (f"; stored energy {energy:+.3g} J" if energy is not None else "")


def _shown(a: float, b: float) -> str:
    """'a -> b' with enough significant digits to see the difference (6 at least); a
    value at the rounding level of the other (the least-squares correction leaves 4e-16
    of a spin of 3 rad/s it removed) is shown as 0."""
    size = max(abs(a), abs(b))
    a, b = (0.0 if abs(v) <= ROUNDING * size else v for v in (a, b))
    digits = 6 if b == a or size == 0 else int(np.clip(
        np.ceil(np.log10(size / abs(b - a))) + 2, 6, 17))
    return f"{a:.{digits}g} -> {b:.{digits}g}"


def _stored_energy(system, y) -> float | None:
    """The sum of the elements' stored energies (kinetic, potential) at y (None when
    no element reports one)."""
    column = {name: i for i, name in enumerate(system.output_names())}
    cols = [column[n] for n in system.output_names("energy")]
    if not cols:
        return None
    out = system.compute_outputs(np.zeros(1), y[None, :system.n], np.zeros((1, system.n)))
    return float(out[0, cols].sum())


def _joint_rows(joints, flanges=False, extra=()):
    """The joint instance of each global constraint row (velocity rows: + flanges;
    then ``extra``: the position targets')."""
    out = []
    for g in joints:
        for inst in g.instances:
            out += [inst] * (len(g.etype.constraint_names())
                             + (len(g.etype.coordinate_names()) if flanges else 0))
    return out + list(extra)


def _not_assembled(joints, residual, what, unit, hint, flanges=False, extra=()) -> str:
    listed = ", ".join(f"{inst.name} ({value:.3g} {unit})"
                       for inst, value in _culprits(joints, residual, flanges, extra)[:REPORT])
    return (f"the mechanism cannot be assembled at t = 0: the {what} cannot satisfy the "
            f"joints {listed}; {hint}")


def _worst_loc(joints, residual, flanges=False, extra=()):
    culprits = _culprits(joints, residual, flanges, extra)
    return culprits[0][0].loc if culprits else None


def _culprits(joints, residual, flanges=False, extra=()) -> list:
    """[(joint instance, its largest violation)], largest first: violations equal to the
    three digits shown keep the netlist's order, and those below CULPRIT of the largest
    (the rounding left on the joints that do close) are left out."""
    worst: dict = {}
    for inst, value in zip(_joint_rows(joints, flanges, extra), np.abs(residual)):
        worst[inst.name] = max(worst.get(inst.name, (inst, 0.0)), (inst, value),
                               key=lambda pair: pair[1])
    largest = max((value for _, value in worst.values()), default=0.0)
    kept = [pair for pair in worst.values() if pair[1] > CULPRIT * largest]
    return sorted(kept, key=lambda pair: -float(f"{pair[1]:.3g}"))
