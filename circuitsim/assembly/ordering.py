"""Elimination order of the unknowns along the mechanism's joint tree.

Bodies (frames) are the vertices of a graph whose edges are the elements between two
frames (joints, 3D springs); its spanning tree is found breadth-first from the ground.
Numbering the unknowns leaf-first — each frame's 13 unknowns, the unknowns of the
elements attached to that frame alone, then those of the tree element that joins it to
its parent — and eliminating in that order is the block LDLᵀ sweep of O(N) multibody
methods written as a sparse LU: eliminating a leaf body and its joint couples only the
parent body, so the fill stays within the parent's block and grows linearly with the
number of bodies, with no fill-reducing ordering to compute at every factorisation.
Loop-closing elements and all other unknowns (actuators, scalar circuits) come last,
in their original order.
"""
from __future__ import annotations

from collections import defaultdict, deque

import numpy as np

from ..runtime.names import GROUND


def tree_order(system) -> np.ndarray | None:
    """A permutation of the ``system``'s unknowns (order[k] = the unknown eliminated
    k-th), or None when the circuit has no frames."""
    if not any(g.etype.is_body or any(port.frame for port in g.etype.ports)
               for g in system.groups):
        return None                     # no frames: nothing below would be found
    n = system.n
    frame_vars: dict = {}               # frame node -> its 13 unknowns
    attached = defaultdict(list)        # frame node -> unknowns of one-frame elements
    edges = defaultdict(list)           # frame node -> [(other frame, own unknowns)]
    for g in system.groups:
        widths = [port.nvars for port in g.etype.ports]
        starts = np.cumsum([0] + widths)
        frame_cols = [(i, starts[i]) for i, port in enumerate(g.etype.ports) if port.frame]
        own_cols = [int(starts[i]) for i, port in enumerate(g.etype.ports) if not port.frame]
        own_cols += list(range(int(starts[-1]), int(starts[-1]) + len(g.etype.states)))
        for inst, idx in zip(g.instances, g.var_idx.tolist()):   # lists: a numpy
            own = [idx[c] for c in own_cols if idx[c] < n]           # scalar per use is slow
            if g.etype.is_body:                  # a body: its own 13 are the frame
                frame_vars[inst.name] = own
                continue
            frames = [inst.nodes[i] for i, _ in frame_cols]
            for (i, start), node in zip(frame_cols, frames):
                if node != GROUND:
                    frame_vars.setdefault(node, idx[start:start + widths[i]])
            if len(frames) == 1:
                attached[frames[0]].extend(own)
            elif len(frames) >= 2:
                a, b = frames[0], frames[1]
                edges[a].append((b, own))
                edges[b].append((a, own))
    if not frame_vars:
        return None
    placed = [False] * n
    order: list = []

    def place(indices):
        for i in indices:
            if not placed[i]:
                placed[i] = True
                order.append(i)

    for child, tree_edge in reversed(_breadth_first(frame_vars, edges)):
        place(frame_vars[child])
        place(attached[child])
        place(tree_edge)
    place(range(n))
    return np.asarray(order, dtype=np.int64)


def _breadth_first(frame_vars: dict, edges: dict) -> list:
    """[(frame, unknowns of the tree element to its parent)] in breadth-first order from
    the ground (then from the first frame of each part not connected to it)."""
    seen = {GROUND}
    visit: list = []
    roots = [GROUND] + list(frame_vars)
    for root in roots:
        if root != GROUND and root in seen:
            continue
        seen.add(root)
        if root != GROUND:
            visit.append((root, []))
        queue = deque([root])
        while queue:
            node = queue.popleft()
            for other, own in edges.get(node, ()):
                if other not in seen:
                    seen.add(other)
                    visit.append((other, own))
                    queue.append(other)
    return visit
