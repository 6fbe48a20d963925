"""Array helpers as numpy has them, without what numpy's own versions import: a leaf
module (numpy only) that every layer may use, as it may use circuitsim.errors."""
from __future__ import annotations

import numpy as np


def distinct(values) -> np.ndarray:
    """The sorted distinct values of ``values`` (flattened), as ``np.unique(values)``
    gives them, except that NaNs are all kept. ``np.unique`` of numpy 2 imports
    ``numpy.ma`` on its first call (7 ms of a small run's start, for its breakpoints)."""
    values = np.sort(np.ravel(values))
    if len(values) < 2:
        return values
    keep = np.empty(len(values), dtype=bool)
    keep[0] = True
    np.not_equal(values[1:], values[:-1], out=keep[1:])
    return values[keep]
