"""Undirected-graph helpers for the netlist checks and the mobility analysis: what they
need of networkx, without its import (0.1 to 0.15 s of every run).
"""
from __future__ import annotations

from collections import deque


class UnionFind:
    """Disjoint sets of hashable items; ``uf[x]`` is the representative of x's set (x is
    added alone if new), iteration yields every item in the order first seen."""

    def __init__(self):
        self.parent: dict = {}

    def __getitem__(self, item):
        parent = self.parent
        if item not in parent:
            parent[item] = item
            return item
        root = item
        while parent[root] != root:
            root = parent[root]
        while parent[item] != root:                  # path compression
            parent[item], item = root, parent[item]
        return root

    def __iter__(self):
        return iter(self.parent)

    def union(self, *items) -> bool:
        """Join the sets of ``items``; True if any two of them were already joined."""
        roots = [self[item] for item in items]
        for root in roots[1:]:
            self.parent[root] = roots[0]
        return len(set(roots)) < len(roots)


def connected_components(nodes, edges) -> list:
    """Sets of the nodes joined by ``edges`` (pairs), in the order of their first node."""
    uf = UnionFind()
    for node in nodes:
        uf[node]
    for a, b in edges:
        uf.union(a, b)
    out: dict = {}
    for node in uf:
        out.setdefault(uf[node], set()).add(node)
    return list(out.values())


def has_cycle(edges) -> bool:
    """Do the edges (pairs) close a cycle? A pair given twice counts once (as in a simple
    graph) when written the same way round."""
    uf = UnionFind()
    return any(uf.union(a, b) for a, b in dict.fromkeys(edges))


def biconnected_components(edges) -> list:
    """The node sets of the biconnected blocks of the simple graph of ``edges`` (pairs),
    in networkx's order: Hopcroft and Tarjan's depth-first search from the nodes in the
    order first seen, each node's neighbours in the order their edges come; a block is
    given when its last edge is popped off the edge stack (a bridge is a block of two)."""
    adjacency: dict = {}
    for a, b in edges:
        adjacency.setdefault(a, {})[b] = None
        adjacency.setdefault(b, {})[a] = None
    blocks, visited = [], set()
    for start in adjacency:
        if start in visited:
            continue
        discovery, low = {start: 0}, {start: 0}
        visited.add(start)
        edge_stack, edge_index = [], {}
        stack = [(start, start, iter(adjacency[start]))]
        while stack:
            grandparent, parent, children = stack[-1]
            child = next(children, _DONE)
            if child is not _DONE:
                if child == grandparent:
                    continue
                if child in visited:
                    if discovery[child] <= discovery[parent]:                # back edge
                        low[parent] = min(low[parent], discovery[child])
                        edge_index[parent, child] = len(edge_stack)
                        edge_stack.append((parent, child))
                else:
                    low[child] = discovery[child] = len(discovery)
                    visited.add(child)
                    stack.append((parent, child, iter(adjacency[child])))
                    edge_index[parent, child] = len(edge_stack)
                    edge_stack.append((parent, child))
                continue
            stack.pop()
            if len(stack) > 1 and low[parent] < discovery[grandparent]:
                low[grandparent] = min(low[parent], low[grandparent])
                continue
            if stack:               # parent's subtree is a block (or grandparent is the root)
                at = edge_index[grandparent, parent]
                blocks.append({node for edge in edge_stack[at:] for node in edge})
                del edge_stack[at:]
                if len(stack) > 1:
                    low[grandparent] = min(low[parent], low[grandparent])
    return blocks


_DONE = object()


def forest_path(adjacency: dict, a, b) -> list:
    """The nodes from a to b in a forest ({node: set of neighbours}): its only path."""
    came_from, queue = {a: None}, deque([a])
    while queue:
        node = queue.popleft()
        if node == b:
            break
        for other in adjacency.get(node, ()):
            if other not in came_from:
                came_from[other] = node
                queue.append(other)
    path = [b]
    while path[-1] != a:
        path.append(came_from[path[-1]])
    return path[::-1]
