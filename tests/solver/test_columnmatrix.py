"""ColumnMatrix, the solver's sparse matrix by columns, against scipy.sparse's CSC:
the same numbers (bit for bit where the operation is the same sum) for every operation
the solver uses, on random patterns with explicit zeros and empty columns."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

from circuitsim.solver.columnmatrix import ColumnMatrix
from circuitsim.solver.newton import EliminationOrder


def _random(seed: int, n_rows: int, n_cols: int, density: float):
    """A scipy CSC matrix with some explicit zeros kept in its pattern."""
    rng = np.random.default_rng(seed)
    A = sp.random(n_rows, n_cols, density=density, random_state=rng, format="csc")
    A.data[rng.random(A.nnz) < 0.1] = 0.0
    return A


shapes = st.tuples(st.integers(0, 2**31), st.integers(1, 40), st.integers(1, 40),
                   st.floats(0.0, 0.5))


@settings(max_examples=60, deadline=None)
@given(shapes)
def test_products_and_entrywise_operations_are_scipys(case):
    seed, n_rows, n_cols, density = case
    A = _random(seed, n_rows, n_cols, density)
    M = ColumnMatrix.of(A)
    assert M.nnz == A.nnz and M.shape == A.shape
    rng = np.random.default_rng(seed + 1)
    x, w = rng.standard_normal(n_cols), rng.standard_normal(n_cols)
    np.testing.assert_array_equal(M @ x, A @ x)              # the same sum, in order
    np.testing.assert_array_equal(abs(M) @ x, abs(A) @ x)
    np.testing.assert_array_equal(M.toarray(), A.toarray())
    np.testing.assert_array_equal(M.toarray(order="F"), A.toarray(order="F"))
    np.testing.assert_array_equal((M / 3.0).toarray(), (A / 3.0).toarray())
    np.testing.assert_array_equal(M.scaled_columns(w).toarray(),
                                  (A @ sp.diags(w)).toarray())
    assert M.without_zeros().nnz == np.count_nonzero(A.data)
    np.testing.assert_array_equal(M.without_zeros().toarray(), A.toarray())
    rows, cols = M.nonzero()
    assert sorted(zip(rows, cols)) == sorted(zip(*A.nonzero()))
    np.testing.assert_array_equal(M.tocsr().scipy().toarray(), A.toarray())


@settings(max_examples=60, deadline=None)
@given(shapes)
def test_sums_of_different_patterns_are_scipys(case):
    seed, n_rows, n_cols, density = case
    A, B = _random(seed, n_rows, n_cols, density), _random(seed + 7, n_rows, n_cols, density)
    for ours, theirs in ((ColumnMatrix.of(A) + ColumnMatrix.of(B), A + B),
                         (ColumnMatrix.of(A) - ColumnMatrix.of(B), A - B),
                         (ColumnMatrix.zeros(A.shape) + ColumnMatrix.of(A), A.copy())):
        theirs.eliminate_zeros()
        np.testing.assert_array_equal(ours.toarray(), theirs.toarray())
        assert ours.nnz == theirs.nnz          # a sum of two patterns drops its zeros


def test_same_pattern_difference_keeps_the_pattern():
    """J(cj) − J(0) of one problem: the data subtracted on the shared pattern."""
    A = _random(3, 30, 30, 0.2)
    M = ColumnMatrix.of(A)
    N = ColumnMatrix(M.data * 2.0, M.indices, M.indptr, M.shape)
    difference = N - M
    assert difference.indices is M.indices and difference.nnz == M.nnz
    np.testing.assert_array_equal(difference.data, M.data)


@pytest.mark.parametrize("seed", range(5))
def test_the_symmetric_permutation_is_scipys(seed):
    A = _random(seed, 50, 50, 0.1) + sp.eye(50, format="csc")
    A = A.tocsc()
    A.sort_indices()
    order = np.random.default_rng(seed).permutation(50)
    expected = A[order][:, order].tocsc()
    expected.sort_indices()
    Jp = EliminationOrder(order)._permuted(ColumnMatrix.of(A))
    np.testing.assert_array_equal(Jp.indptr, expected.indptr)
    np.testing.assert_array_equal(Jp.indices, expected.indices)
    np.testing.assert_array_equal(Jp.data, expected.data)


def test_a_dense_array_and_a_duplicate_laden_scipy_matrix_are_read():
    dense = np.array([[0.0, 2.0, 0.0], [1.0, 0.0, 0.0], [0.0, 3.0, 4.0]])
    M = ColumnMatrix.of(dense)
    np.testing.assert_array_equal(M.indptr, [0, 1, 3, 4])
    np.testing.assert_array_equal(M.indices, [1, 0, 2, 2])
    np.testing.assert_array_equal(M.toarray(), dense)
    duplicated = sp.coo_matrix(([1.0, 2.0, 5.0], ([0, 0, 2], [1, 1, 0])), shape=(3, 3))
    np.testing.assert_array_equal(ColumnMatrix.of(duplicated).toarray(),
                                  [[0.0, 3.0, 0.0], [0.0, 0.0, 0.0], [5.0, 0.0, 0.0]])
