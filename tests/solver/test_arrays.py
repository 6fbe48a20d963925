"""distinct() against np.unique (it only avoids numpy.ma's import)."""
import subprocess
import sys

import numpy as np
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from circuitsim.arrays import distinct


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, st.integers(0, 40), elements=st.sampled_from(
    [0.0, -0.0, 1.0, 2.5, -3.0, 1e-300, np.inf, -np.inf])))
def test_the_sorted_distinct_values_of_np_unique(values):
    np.testing.assert_array_equal(distinct(values), np.unique(values))
    assert distinct(values.reshape(-1, 1)).ndim == 1


def test_integers_and_no_numpy_ma():
    np.testing.assert_array_equal(distinct([3, 1, 3, -2]), [-2, 1, 3])
    code = ("import sys; from circuitsim.arrays import distinct; distinct([2., 1.]);"
            "print('numpy.ma' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr
