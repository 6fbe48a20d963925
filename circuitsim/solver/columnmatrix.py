"""A sparse matrix stored by columns (CSC arrays) with the operations the solver's
Newton matrix needs, in numpy alone: a run above the dense size does not import
scipy.sparse (0.2-0.3 s, whose array layer loads numpy.random, numpy.polynomial and
numpy.ma: as long as a 16-link chain's whole integration). SuperLU takes its arrays
directly (``superlu.py``)."""
from __future__ import annotations

import numpy as np

from .rowmatrix import RowMatrix


class ColumnMatrix:
    """``data``, ``indices`` (row of each entry), ``indptr`` as in CSC, rows sorted
    within a column, no duplicates (explicit zeros allowed: a Jacobian's pattern is
    fixed), ``shape`` (rows, columns)."""

    def __init__(self, data, indices, indptr, shape):
        self.data, self.indices, self.indptr = data, indices, indptr
        self.shape = tuple(int(s) for s in shape)
        self._cols = None

    @classmethod
    def of(cls, matrix) -> "ColumnMatrix":
        """``matrix`` (a ColumnMatrix, a scipy.sparse matrix or a dense array) as a
        ColumnMatrix of float64; a scipy matrix is read through its own ``tocsc``
        (scipy.sparse is not imported here)."""
        if isinstance(matrix, ColumnMatrix):
            return matrix
        if not isinstance(matrix, (np.ndarray, list, tuple)):     # a scipy.sparse matrix
            csc = matrix.tocsc(copy=True)
            csc.sum_duplicates()                           # also sorts the rows
            return cls(np.asarray(csc.data, dtype=float), csc.indices, csc.indptr, csc.shape)
        dense = np.asarray(matrix, dtype=float)
        cols, rows = np.nonzero(dense.T)                   # column-major order
        return cls(dense[rows, cols], rows, np.searchsorted(cols, np.arange(dense.shape[1] + 1)),
                   dense.shape)

    @classmethod
    def zeros(cls, shape) -> "ColumnMatrix":
        """The matrix of ``shape`` with no entries."""
        return cls(np.zeros(0), np.zeros(0, dtype=np.intc),
                   np.zeros(shape[1] + 1, dtype=np.intc), shape)

    @classmethod
    def from_entries(cls, rows, cols, values, shape) -> "ColumnMatrix":
        """The matrix with ``values`` at (``rows``, ``cols``), entries at one place summed
        in their order, zeros dropped: the CSR arrays of its transpose."""
        transpose = RowMatrix.from_entries(cols, rows, values, shape[1], shape[0])
        return cls(transpose.data, transpose.indices, transpose.indptr, shape)

    @property
    def nnz(self) -> int:
        return len(self.data)

    @property
    def columns(self) -> np.ndarray:
        """The column of each entry."""
        if self._cols is None:
            self._cols = np.repeat(np.arange(self.shape[1]), np.diff(self.indptr))
        return self._cols

    def _like(self, data) -> "ColumnMatrix":
        out = ColumnMatrix(data, self.indices, self.indptr, self.shape)
        out._cols = self._cols
        return out

    def _same_pattern(self, other) -> bool:
        return (self.indptr is other.indptr and self.indices is other.indices) or (
            np.array_equal(self.indptr, other.indptr)
            and np.array_equal(self.indices, other.indices))

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        """A @ x for a vector x (the products added column by column, as SciPy's CSC
        product adds them: the same numbers)."""
        return np.bincount(self.indices, self.data * x[self.columns], minlength=self.shape[0])

    def __abs__(self) -> "ColumnMatrix":
        return self._like(np.abs(self.data))

    def __truediv__(self, divisor: float) -> "ColumnMatrix":
        return self._like(self.data * (1.0 / divisor))     # as SciPy's: the same numbers

    def __add__(self, other: "ColumnMatrix") -> "ColumnMatrix":
        return self._combined(other, 1.0)

    def __sub__(self, other: "ColumnMatrix") -> "ColumnMatrix":
        return self._combined(other, -1.0)

    def _combined(self, other, sign: float) -> "ColumnMatrix":
        if self._same_pattern(other):
            return self._like(self.data + sign * other.data)
        return ColumnMatrix.from_entries(
            np.concatenate([self.indices, other.indices]),
            np.concatenate([self.columns, other.columns]),
            np.concatenate([self.data, sign * other.data]), self.shape)

    def scaled_columns(self, factors: np.ndarray) -> "ColumnMatrix":
        """A · diag(factors)."""
        return self._like(self.data * factors[self.columns])

    def without_zeros(self) -> "ColumnMatrix":
        """The same matrix with its explicit zeros dropped from the pattern."""
        kept = self.data != 0.0
        return ColumnMatrix(self.data[kept], self.indices[kept],
                            np.searchsorted(self.columns[kept], np.arange(self.shape[1] + 1)),
                            self.shape)

    def nonzero(self) -> tuple:
        """(rows, columns) of the entries that are not zero."""
        kept = self.data != 0.0
        return self.indices[kept], self.columns[kept]

    def tocsr(self) -> RowMatrix:
        """The non-zero entries as a RowMatrix (the matching reads rows)."""
        rows, cols = self.nonzero()
        return RowMatrix.from_entries(rows, cols, self.data[self.data != 0.0], *self.shape)

    def toarray(self, order: str = "C") -> np.ndarray:
        out = np.zeros(self.shape, order=order)
        out[self.indices, self.columns] = self.data
        return out

    def permuted(self, order: np.ndarray) -> tuple:
        """(source, indices, indptr) of P·A·Pᵀ, P the rows of the identity in ``order``
        (a square matrix): entry k of the result is ``data[source[k]]``."""
        position = np.empty(len(order), dtype=np.int64)
        position[order] = np.arange(len(order))
        rows, cols = position[self.indices], position[self.columns]
        source = np.lexsort((rows, cols))                  # by column, then row
        return (source, rows[source].astype(np.intc),
                np.searchsorted(cols[source], np.arange(self.shape[1] + 1)).astype(np.intc))

    def scipy(self):
        """The same matrix as scipy.sparse.csc_matrix (imports scipy.sparse)."""
        import scipy.sparse as sp
        return sp.csc_matrix((self.data, self.indices, self.indptr), shape=self.shape)
