"""Mobility analysis of a mechanism at its start configuration.

Counts (Grübler–Kutzbach in 3D): every body has 6 coordinates, every rigid joint
(``velocity`` or ``position`` model) removes as many as it has constraint rows, so

    M_Grübler = 6·n_bodies − Σ rows.

The true mobility uses the numerical rank of the constraint Jacobian W (rows: the
joints' velocity constraints W·u = 0, columns: the bodies' V and ω):

    M = 6·n_bodies − rank W,     redundant rows = Σ rows − rank W.

A closed loop of rigid joints usually constrains some motion twice (a planar four-bar of
revolute joints: 3 rows too many, M_Grübler = −2 but M = 1). Redundant rows are found per
loop (a biconnected block of the body–joint graph, where they can only occur) by a
pivoted QR of the loop's rows, and each is explained by the joints whose rows it repeats
(least-squares combination); the start-up switches them off. Elastic joints constrain
nothing here: they are springs.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..elements.declarations import FRAME_VARS
from ..errors import Loc
from ..runtime.graphs import biconnected_components, has_cycle
from ..solver.lapack import pivoted_qr

RANK_TOL = 1e-9          # relative pivot size below which a loop row is redundant
IMPLIED_TOL = 1e-6       # relative coefficient for a row to count as "repeated"
NF = len(FRAME_VARS)
VEL = list(range(0, 6)) + list(range(NF, NF + 6))       # V, ω of the two frames


@dataclass
class Row:
    """One constraint row of a rigid joint: ``name`` is J.f1 / J.t2; ``loc`` the joint's
    netlist line."""
    group: object = field(repr=False)
    row: int = 0        # instance index in the group
    k: int = 0          # row index in the joint
    name: str = ""
    joint: str = ""
    what: str = ""      # "translation along z", "rotation about (0.6, 0.8, 0)"
    loc: object = field(default=None, repr=False)

    def __getstate__(self) -> dict:
        # a Result sent between processes (a parallel sweep) keeps the row's description,
        # not the element group, which holds the run's functions and does not pickle
        return {**self.__dict__, "group": None}


@dataclass
class Redundancy:
    row: Row
    implied_by: list    # joint names whose rows it repeats

    def text(self) -> str:
        others = sorted(j for j in self.implied_by if j != self.row.joint)
        by = f", also constrained by {', '.join(others)}" if others else ""
        return f"{self.row.name} {self.row.what}{by}"


@dataclass
class Mobility:
    bodies: int = 0
    rows: int = 0                       # rigid constraint rows
    rank: int = 0
    rigid_joints: list = field(default_factory=list)
    elastic_joints: list = field(default_factory=list)
    redundant: list = field(default_factory=list)      # [Redundancy]
    loops: list = field(default_factory=list)          # [[joint names]] with redundancy
    first_joint: Loc | None = None      # where the first rigid joint is written
    driven: bool = False                # a constraint moves with time (a rod of length
    #                                     L(t), a .drive): the rows may fix every body

    @property
    def grubler(self) -> int:
        return 6 * self.bodies - self.rows

    @property
    def dof(self) -> int:
        return 6 * self.bodies - self.rank

    def __repr__(self) -> str:
        return (f"<Mobility {self.bodies} bodies, {len(self.rigid_joints)} rigid joints, "
                f"{self.rows} rows, rank {self.rank}: {self.dof} degrees of freedom, "
                f"{len(self.redundant)} redundant rows>")

    def summary(self) -> list:
        """Lines for ``circuitsim check``."""
        lines = [f"mechanism: {self.bodies} bodies, {len(self.rigid_joints)} rigid joints "
                 f"({self.rows} constraint rows)"
                 + (f", {len(self.elastic_joints)} elastic joints (springs: not counted)"
                    if self.elastic_joints else "")]
        lines.append(f"  Grübler count 6·{self.bodies} − {self.rows} = {self.grubler}; rank of "
                     f"the constraint Jacobian {self.rank}; degrees of freedom: {self.dof}; "
                     f"redundant constraint rows: {len(self.redundant)}")
        return lines

    def warnings(self) -> list:
        """(message, loc): the over-constrained loops, and a mechanism its rigid joints
        lock (no degree of freedom), which cannot move at all."""
        out = self.redundancy_warnings()
        if self.bodies and self.rigid_joints and self.dof == 0 and not self.driven:
            which = "its body" if self.bodies == 1 else f"all {self.bodies} bodies"
            out.append((f"the mechanism has 0 degrees of freedom: its rigid joints fix "
                        f"{which} (rank of the constraints {self.rank} = 6·{self.bodies}), "
                        "so nothing can move and no drive can move it; "
                        "check the joint types and axes (`circuitsim check` shows the count)",
                        self.first_joint))
        return out

    def redundancy_warnings(self) -> list:
        """(message, loc) per loop with redundant rows, located at its first joint."""
        out = []
        for loop in self.loops:
            items = [r for r in self.redundant if r.row.joint in loop]
            if not items:
                continue
            first = items[0].row
            out.append((
                f"over-constrained loop {', '.join(loop)} ({len(items)} redundant "
                f"constraint row(s)): {'; '.join(r.text() for r in items)}. These rows are "
                "switched off (reaction 0; the load split among the other joints is one of "
                "many). For determinate reactions make a joint elastic (e.g. "
                f"{first.joint}.model=elastic) or use weaker joints (spherical, universal, "
                "cylindrical)", first.loc))
        return out


def _direction(v: np.ndarray) -> str:
    v = v / np.linalg.norm(v)
    for axis, e in zip("xyz", np.eye(3)):
        if abs(abs(v @ e) - 1.0) < 1e-9:
            return axis
    return "(" + ", ".join(f"{c:.3g}" for c in v) + ")"


def _describe(R_row: np.ndarray) -> str:
    lin, ang = R_row[NF:NF + 3], R_row[NF + 3:NF + 6]
    if np.linalg.norm(lin) > 1e-12:
        return "translation along " + _direction(lin)
    if np.linalg.norm(ang) > 1e-12:
        return "rotation about " + _direction(ang)
    return "no motion of frame 2"


def constraint_groups(system) -> list:
    """Element groups that are joints."""
    return [g for g in system.groups if g.etype.is_joint]


def analyse(system, y: np.ndarray) -> Mobility:
    """Mobility at the configuration ``y`` (extended vector: n unknowns + the two
    constant slots)."""
    mob = Mobility()
    n = system.n
    mob.bodies = sum(len(g.instances) for g in system.groups if g.etype.is_body)
    rows, blocks = [], []                       # Row, (global cols, coefficients)
    edges = []                                  # the body–joint graph
    for g in constraint_groups(system):
        names = [inst.name for inst in g.instances]
        if not g.etype.is_rigid(g.p):
            mob.elastic_joints += names
            continue
        mob.rigid_joints += names
        mob.first_joint = mob.first_joint or g.instances[0].loc
        mob.driven = mob.driven or g.etype.supplies_power(g.p)    # work put in: L(t)
        row_names = g.etype.constraint_names()
        R = g.etype.velocity_rows(y[g.var_idx], g.p)[:, :len(row_names)]   # (N, m, nvars)
        for i, inst in enumerate(g.instances):
            for k, row_name in enumerate(row_names):
                rows.append(Row(g, i, k, f"{inst.name}.{row_name}", inst.name,
                                _describe(R[i, k]), inst.loc))
                blocks.append((g.var_idx[i, VEL], R[i, k, VEL]))
            for node in inst.nodes[:2]:
                edges.append((("joint", inst.name), ("frame", node)))
    mob.rows = len(rows)
    by_joint: dict = {}
    for j, r in enumerate(rows):
        by_joint.setdefault(r.joint, []).append(j)
    redundant = []
    for block in _loops(edges):
        members = sorted(item[1] for item in block if item[0] == "joint")
        if len(members) < 2:
            continue                                # a bridge: no loop
        idx = [j for name in members for j in by_joint[name]]
        found = _loop_redundancy(rows, blocks, idx, n)
        if found:
            mob.loops.append(members)
            redundant += found
    mob.redundant = redundant
    mob.rank = mob.rows - len(redundant)
    return mob


def _loops(edges) -> list:
    """The biconnected blocks of the body–joint graph, none when it has no cycle (a tree
    of joints, the usual chain)."""
    return biconnected_components(edges) if has_cycle(edges) else []


def conditioning(system, y: np.ndarray, max_rows: int | None = None):
    """How far the configuration ``y`` (extended vector) is from a singular one:
    (σ_min/σ_max of the switched-on rigid constraint rows W over the bodies' V and ω,
    the joints whose rows carry the weakest direction, largest share first). None when
    there are no rigid rows, or more than ``max_rows``."""
    n = system.n
    entries, joints = [], []
    for g in constraint_groups(system):
        if not g.etype.is_rigid(g.p):
            continue
        m = len(g.etype.constraint_names())
        R = g.etype.velocity_rows(y[g.var_idx], g.p)[:, :m]
        active = g.etype.active_rows(g.p)
        for i, inst in enumerate(g.instances):
            for k in np.flatnonzero(active[i]):
                entries.append((g.var_idx[i, VEL], R[i, k, VEL]))
                joints.append(inst.name)
    if not entries or (max_rows is not None and len(entries) > max_rows):
        return None
    W = _dense(entries, n)
    U, s, _ = np.linalg.svd(W, full_matrices=False)
    weak = U[:, -1] ** 2
    share: dict = {}
    for name, w in zip(joints, weak):
        share[name] = share.get(name, 0.0) + w
    names = [name for name, w in sorted(share.items(), key=lambda kv: -kv[1]) if w > 0.05]
    return float(s[-1] / max(s[0], 1e-300)), names


def _dense(blocks, n: int) -> np.ndarray:
    """The rows blocks[j] = (global columns, coefficients) as a dense matrix over the
    columns below n that occur in them (the ground's constant slots dropped)."""
    cols = np.concatenate([np.asarray(c) for c, _ in blocks])
    vals = np.concatenate([np.asarray(v, dtype=float) for _, v in blocks])
    rows = np.repeat(np.arange(len(blocks)), [len(c) for c, _ in blocks])
    keep = cols < n
    used, where = np.unique(cols[keep], return_inverse=True)
    M = np.zeros((len(blocks), len(used)))
    np.add.at(M, (rows[keep], where), vals[keep])
    return M


def _loop_redundancy(rows, blocks, idx, n) -> list:
    M = _dense([blocks[j] for j in idx], n)
    if not M.shape[1]:
        return []
    d, perm = pivoted_qr(M.T)
    rank = int(np.sum(d > RANK_TOL * max(d.max(initial=0.0), 1e-300)))
    independent = perm[:rank]
    out = []
    for r in perm[rank:]:
        coef = np.linalg.lstsq(M[independent].T, M[r], rcond=None)[0]
        big = np.abs(coef) > IMPLIED_TOL * max(np.abs(coef).max(initial=0.0), 1e-300)
        implied = []
        for i in np.flatnonzero(big):
            name = rows[idx[independent[i]]].joint
            if name not in implied:
                implied.append(name)
        out.append(Redundancy(rows[idx[r]], implied))
    return out


def switch_off(mob: Mobility) -> list:
    """Set the redundant rows inactive (λ = μ = 0); returns their names."""
    by_group: dict = {}
    for red in mob.redundant:
        group = red.row.group
        active = by_group.setdefault(id(group), (group, np.ones(
            (len(group.instances), len(group.etype.constraint_names())))))[1]
        active[red.row.row, red.row.k] = 0.0
    for group, active in by_group.values():
        group.etype.set_active(group.p, active)
    return [red.row.name for red in mob.redundant]
