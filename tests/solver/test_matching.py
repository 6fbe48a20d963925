"""The structural checks' matching against scipy.sparse.csgraph's, on random patterns,
in Python and past its budget in csgraph."""
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
from scipy.sparse.csgraph import maximum_bipartite_matching

from helpers import NETLISTS

from circuitsim.solver import matching
from circuitsim.solver.matching import maximum_matching, structural_rank


def _pattern(seed, rows, cols, density):
    rng = np.random.default_rng(seed)
    A = sp.random(rows, cols, density=density, random_state=rng, format="csr")
    A.data[:] = 1.0
    return A


def _check_valid(A, by_row, by_col):
    """A matching: every pair is a non-zero, each row and column used at most once, and
    the two views agree."""
    for row, col in enumerate(by_row):
        if col >= 0:
            assert A[row, col] != 0 and by_col[col] == row
    assert np.count_nonzero(by_row >= 0) == np.count_nonzero(by_col >= 0)
    assert len(set(by_row[by_row >= 0].tolist())) == np.count_nonzero(by_row >= 0)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 60), st.integers(1, 60),
       st.floats(0.01, 0.4))
def test_maximum_size_as_csgraph(seed, rows, cols, density):
    A = _pattern(seed, rows, cols, density)
    by_row, by_col = maximum_matching(A, "column"), maximum_matching(A, "row")
    reference = maximum_bipartite_matching(A, perm_type="column")
    assert np.count_nonzero(by_row >= 0) == np.count_nonzero(reference >= 0)
    _check_valid(A, by_row, by_col)


def test_a_search_over_budget_goes_to_csgraph_with_the_same_size(monkeypatch):
    A = _pattern(7, 80, 80, 0.03)
    python_rank = structural_rank(A)
    monkeypatch.setattr(matching, "PATH_STEPS_MIN", 0)
    monkeypatch.setattr(matching, "PATH_STEPS_PER_ENTRY", 0)
    calls = []
    real = matching.scipy_modules.load
    monkeypatch.setattr(matching.scipy_modules, "load",
                        lambda *args: calls.append(args) or real(*args))
    assert structural_rank(A) == python_rank == np.count_nonzero(
        maximum_bipartite_matching(A, perm_type="column") >= 0)
    assert calls, "the compiled matching was not used"


def test_the_greedy_pass_matches_a_long_chain_alone():
    """The fewest-entries greedy pass leaves no row of a 64-link chain's equations to
    the augmenting paths (the old first-free-column pass left 126 of 1 408), so the
    matching of a large mechanism stays linear in its size."""
    sys.path.insert(0, str(NETLISTS))
    from chain import chain_netlist
    import circuitsim
    from circuitsim.assembly import system as system_module
    graphs = []
    real = system_module.maximum_matching
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(system_module, "maximum_matching",
                      lambda g, perm_type="column": graphs.append(g) or real(g, perm_type))
        patch.setattr(matching, "_augment", lambda *args: pytest.fail("a row was left"))
        circuitsim.parse(chain_netlist(64, t_end=0.01)).prepare()
    assert graphs and graphs[0].shape[0] > 1000


def test_a_long_augmenting_path_needs_no_recursion():
    """A staircase whose greedy pass leaves one row that only a path through every
    other row can match: depth n, far beyond Python's recursion limit if recursive."""
    n = 2000
    rows = np.r_[np.arange(n), np.arange(1, n)]
    cols = np.r_[np.arange(n), np.arange(n - 1)]      # row i: columns i and i - 1
    A = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, n))
    A = A[::-1]                                       # greedy takes the wrong columns
    assert structural_rank(A) == n


def test_a_small_structure_check_does_not_load_csgraph():
    code = ("import sys, circuitsim\n"
            "net = circuitsim.parse('R R1 a 0 R=1\\nC C1 a 0 C=1 ic=1\\n.tran 1\\n')\n"
            "net.prepare()\n"
            "print('scipy.sparse.csgraph' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
