"""distinct() against np.unique (it only avoids numpy.ma's import); Probes, the set-up's
generic states without numpy.random."""
import subprocess
import sys

import numpy as np
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from circuitsim.arrays import Probes, distinct


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


def test_probes_are_reproducible_uniform_values():
    """SplitMix64's published outputs for seed 0 (Vigna's splitmix64.c: state 0, then
    0x9E3779B97F4A7C15 added before each output), as doubles from their top 53 bits;
    a stream continues where it stopped; 10^5 values are uniform to their sampling error."""
    first = [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    np.testing.assert_array_equal(Probes(0).random(3), [(z >> 11) * 2.0**-53 for z in first])
    stream = Probes(7)
    np.testing.assert_array_equal(np.concatenate([stream.random(2), stream.random((2, 2)).ravel()]),
                                  Probes(7).random(6))
    assert not np.array_equal(Probes(7).random(4), Probes(8).random(4))
    u = Probes(20261126).uniform(-1.0, 1.0, 100_000)
    assert -1.0 <= u.min() and u.max() < 1.0 and len(np.unique(u)) == len(u)
    assert abs(u.mean()) < 0.01 and abs(u.var() - 1 / 3) < 0.005       # 3 sigma: 0.0055, 0.0027
    assert isinstance(Probes(1).random(), float)
