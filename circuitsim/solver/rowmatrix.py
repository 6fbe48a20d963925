"""A sparse matrix stored by rows (CSR arrays) with the few operations a small run needs,
in numpy alone: a run that never needs scipy.sparse does not import it (about 0.2 s of a
small netlist's process)."""
from __future__ import annotations

import numpy as np


class RowMatrix:
    """``data``, ``indices``, ``indptr`` as in CSR (columns sorted within a row, no
    duplicates, no explicit zeros), ``shape`` (rows, columns)."""

    def __init__(self, data, indices, indptr, shape):
        self.data, self.indices, self.indptr = data, indices, indptr
        self.shape = tuple(shape)
        self._rows = np.repeat(np.arange(self.shape[0]), np.diff(indptr))

    @classmethod
    def from_entries(cls, rows, cols, values, n_rows: int, n_cols: int | None = None):
        """The matrix with ``values`` at (``rows``, ``cols``); entries at one place are
        summed (in their order), zeros dropped."""
        n_cols = n_rows if n_cols is None else n_cols
        key = np.asarray(rows, dtype=np.int64) * n_cols + np.asarray(cols, dtype=np.int64)
        order = np.argsort(key, kind="stable")
        places, where = np.unique(key[order], return_inverse=True)
        summed = np.bincount(where, np.asarray(values, dtype=float)[order],
                             minlength=len(places))
        kept = summed != 0.0
        places, summed = places[kept], summed[kept]
        indptr = np.searchsorted(places // n_cols, np.arange(n_rows + 1))
        return cls(summed, places % n_cols, indptr, (n_rows, n_cols))

    @classmethod
    def pattern(cls, array: np.ndarray) -> "RowMatrix":
        """The non-zero pattern of a dense array, as entries 1."""
        rows, cols = np.nonzero(array)
        return cls.from_entries(rows, cols, np.ones(len(rows)), *array.shape)

    @property
    def nnz(self) -> int:
        return len(self.data)

    def dot(self, x: np.ndarray) -> np.ndarray:
        """A @ x for a vector x: each row's products summed in column order."""
        return np.bincount(self._rows, self.data * x[self.indices], minlength=self.shape[0])

    def __matmul__(self, x: np.ndarray) -> np.ndarray:
        return self.dot(x)

    def __abs__(self) -> "RowMatrix":
        return RowMatrix(np.abs(self.data), self.indices, self.indptr, self.shape)

    def sum(self, axis: int) -> np.ndarray:
        """Column sums (``axis=0``, the one the start-up asks for), as an array's."""
        if axis != 0:
            raise ValueError("a RowMatrix sums its columns only (axis=0)")
        return np.bincount(self.indices, self.data, minlength=self.shape[1])

    def __getitem__(self, key) -> "RowMatrix":
        """The rows ``A[rows]`` or the columns ``A[:, cols]`` listed (index arrays)."""
        if isinstance(key, tuple):
            everything, cols = key
            if everything != slice(None):
                raise IndexError("a RowMatrix takes A[rows] or A[:, cols]")
            where = np.full(self.shape[1], -1)
            where[cols] = np.arange(len(cols))
            kept = where[self.indices] >= 0
            return RowMatrix.from_entries(self._rows[kept], where[self.indices[kept]],
                                          self.data[kept], self.shape[0], len(cols))
        rows = np.asarray(key)
        counts = np.diff(self.indptr)[rows]
        starts = np.repeat(self.indptr[rows] - np.cumsum(counts) + counts, counts)
        taken = starts + np.arange(counts.sum())
        return RowMatrix(self.data[taken], self.indices[taken],
                         np.concatenate([[0], np.cumsum(counts)]), (len(rows), self.shape[1]))

    def tocsr(self) -> "RowMatrix":
        return self

    def scipy(self):
        """The same matrix as scipy.sparse.csr_matrix (imports scipy.sparse)."""
        import scipy.sparse as sp
        return sp.csr_matrix((self.data, self.indices, self.indptr), shape=self.shape)
