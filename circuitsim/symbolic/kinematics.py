"""Symbolic kinematics of a Tree (tree.py) shared by the three derivations: the joint
coordinates, the homogeneous link matrices and the frames' poses.

    Q_j = [[cos q, −sin q, 0, 0], [sin q, cos q, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
          (rotation about z), or the unit matrix with q in the z translation     (3)
    A_j = H_j Q_j(σ_j q_j)      link matrix, parent frame → frame j              (4)
    Φ_j = Φ_p A_j               pose of frame j in the ground frame              (5)

Numbers are exact zeros and integers where the drawing gives them (below ROUND of
them), so that the derivations skip zero terms exactly.
"""
from __future__ import annotations

import numpy as np
import sympy as sp

from .tree import ROTATION, Tree

ROUND = 1e-13      # a geometric number this close to an integer is that integer


def number(x: float) -> sp.Expr:
    x = float(x)
    if abs(x - round(x)) < ROUND:
        return sp.Integer(round(x))
    return sp.Float(x)


def matrix(a) -> sp.Matrix:
    a = np.atleast_2d(np.asarray(a, dtype=float))
    return sp.Matrix(a.shape[0], a.shape[1], [number(v) for v in a.ravel()])


def combined(tree: Tree, k: int) -> tuple:
    """The bodies of frame k as one: mass, centre (3,) and central inertia (3, 3) in
    frame coordinates (parallel axes: K = Σ K_i + m_i (|d_i|² E − d_i d_iᵀ), d_i = c_i − c)."""
    parts = [b for b in tree.masses if b.frame == k]
    m = sum(b.m for b in parts)
    if m == 0.0:
        return 0.0, np.zeros(3), np.zeros((3, 3))
    c = sum(b.m * b.centre for b in parts) / m
    K = sum(b.inertia + b.m * ((b.centre - c) @ (b.centre - c) * np.eye(3)
                               - np.outer(b.centre - c, b.centre - c)) for b in parts)
    return m, c, K


class Kinematics:
    """q, q', q'' (sympy symbols q1.., qd1.., qdd1..), the link matrices A_j (4) and the
    poses Φ_j (5) of a Tree; each frame's combined body."""

    def __init__(self, tree: Tree):
        self.tree = tree
        n = len(tree.frames)
        self.n = n
        self.q = sp.symbols(f"q1:{n + 1}", real=True)
        self.qd = sp.symbols(f"qd1:{n + 1}", real=True)
        self.qdd = sp.symbols(f"qdd1:{n + 1}", real=True)
        self.links, self.poses = [], []
        for k, f in enumerate(tree.frames):
            x = f.sign * self.q[k]
            Q = sp.eye(4)
            if f.motion == ROTATION:
                Q[0, 0], Q[0, 1], Q[1, 0], Q[1, 1] = sp.cos(x), -sp.sin(x), sp.sin(x), sp.cos(x)
            else:
                Q[2, 3] = x
            A = matrix(f.H) * Q                                                  # (4)
            self.links.append(A)
            self.poses.append(A if f.parent < 0 else self.poses[f.parent] * A)   # (5)
        self.bodies = [combined(tree, k) for k in range(n)]
        self.g = matrix(tree.g.reshape(3, 1))

    def ancestors(self, k: int) -> list:
        return self.tree.ancestors(k)

    def revolute(self, k: int) -> bool:
        return self.tree.frames[k].motion == ROTATION

    def children(self, k: int) -> list:
        return [j for j, f in enumerate(self.tree.frames) if f.parent == k]
