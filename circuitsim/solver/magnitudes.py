"""Unknowns that share one magnitude (solver hook 13): the components of a mechanism's
velocities, and of its angular velocities, are measured against the largest of them."""
from __future__ import annotations

import numpy as np

from ..arrays import distinct


class MagnitudeGroups:
    """The unknowns that share one magnitude in the error weights (problem.py (13)): the
    groups' members in one index array, so that each group's largest |y| is one
    ``maximum.reduceat`` over it."""

    def __init__(self, labels):
        labels = None if labels is None else np.asarray(labels)
        members = [] if labels is None else [np.flatnonzero(labels == label)
                                             for label in distinct(labels) if label >= 0]
        self.members = np.concatenate(members) if members else None
        self.sizes = np.array([len(m) for m in members], dtype=np.intp)
        self.starts = np.concatenate([[0], np.cumsum(self.sizes)[:-1]]).astype(np.intp)
        self.group = np.repeat(np.arange(len(members), dtype=np.intp), self.sizes)

    def largest(self, magnitude: np.ndarray) -> np.ndarray:
        """``magnitude`` with each group's entries set to the group's largest (in place)."""
        if self.members is not None:
            peaks = np.maximum.reduceat(magnitude[self.members], self.starts)
            magnitude[self.members] = peaks[self.group]
        return magnitude
