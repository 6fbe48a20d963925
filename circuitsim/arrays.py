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


class Probes:
    """Reproducible pseudo-random numbers for probing equations at generic states (a
    Jacobian's pattern, a linearity check): SplitMix64 (Steele, Lea & Flood 2014) of a
    counter, as doubles in [0, 1) from its top 53 bits. ``np.random`` would do as well,
    but importing it costs 20-50 ms of a small run's start."""

    _GOLDEN = np.uint64(0x9E3779B97F4A7C15)
    _MIX = (np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB))

    def __init__(self, seed: int):
        self._counter = (int(seed) << 32) & (2**64 - 1)

    def random(self, size=None):
        """Values in [0, 1), of shape ``size`` (None: one float)."""
        n = 1 if size is None else int(np.prod(size))
        z = (np.arange(1, n + 1, dtype=np.uint64) + np.uint64(self._counter)) * self._GOLDEN
        self._counter = (self._counter + n) & (2**64 - 1)
        z = (z ^ (z >> np.uint64(30))) * self._MIX[0]
        z = (z ^ (z >> np.uint64(27))) * self._MIX[1]
        z ^= z >> np.uint64(31)
        values = (z >> np.uint64(11)).astype(float) * 2.0**-53
        return float(values[0]) if size is None else values.reshape(size)

    def uniform(self, low=0.0, high=1.0, size=None):
        """Values in [low, high), of shape ``size`` (None: one float)."""
        return low + (high - low) * self.random(size)
