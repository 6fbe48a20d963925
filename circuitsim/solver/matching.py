"""Maximum matching of a sparse matrix's rows to its columns (the structural checks of
an equation system: is there an unknown for every equation?).

Below ``PYTHON_MATCHING_MAX`` rows and columns the matching is found here, by augmenting
paths in Python: for a few hundred equations that takes about a millisecond. Larger
matrices go to the compiled matching of ``scipy.sparse.csgraph`` (Hopcroft-Karp), loaded
from its file (``scipy_modules.py``): importing the package would load ``scipy.linalg``
too, 0.1 s.
"""
from __future__ import annotations

import numpy as np

from . import scipy_modules
from .rowmatrix import RowMatrix

MATCHING = "scipy.sparse.csgraph._matching"
# Size up to which a Python matching is cheaper than importing scipy.sparse.
PYTHON_MATCHING_MAX = 300


def maximum_matching(matrix, perm_type: str = "column") -> np.ndarray:
    """A maximum matching of ``matrix``'s non-zero pattern, as
    ``scipy.sparse.csgraph.maximum_bipartite_matching`` returns it: for
    ``perm_type="column"`` the column matched to each row, for ``"row"`` the row matched
    to each column, -1 where none is. Which maximum matching is returned may differ
    from csgraph's; its size does not."""
    n_rows, n_cols = matrix.shape
    if max(n_rows, n_cols) > PYTHON_MATCHING_MAX:
        compiled = scipy_modules.load(MATCHING, "scipy.sparse.csgraph",
                                      ("maximum_bipartite_matching",))
        csr = matrix.scipy() if isinstance(matrix, RowMatrix) else matrix.tocsr()
        return compiled.maximum_bipartite_matching(csr, perm_type=perm_type)
    csr = matrix.tocsr()
    col_of_row = _augmenting_paths(csr.indptr.tolist(), csr.indices.tolist(), n_rows, n_cols)
    if perm_type == "column":
        return np.array(col_of_row, dtype=np.int64)
    row_of_col = np.full(n_cols, -1, dtype=np.int64)
    for row, col in enumerate(col_of_row):
        if col >= 0:
            row_of_col[col] = row
    return row_of_col


def structural_rank(matrix) -> int:
    """The size of a maximum matching: the largest rank any values in the pattern give."""
    return int(np.count_nonzero(maximum_matching(matrix, "column") >= 0))


def _augmenting_paths(indptr: list, indices: list, n_rows: int, n_cols: int) -> list:
    """Column matched to each row (-1: none): a greedy pass, then for each row left over
    a depth-first search for an augmenting path (Kuhn's method), without recursion."""
    col_of_row = [-1] * n_rows
    row_of_col = [-1] * n_cols
    for row in range(n_rows):                         # greedy: first free column
        for col in indices[indptr[row]:indptr[row + 1]]:
            if row_of_col[col] < 0:
                row_of_col[col], col_of_row[row] = row, col
                break
    seen = [-1] * n_cols
    for root in range(n_rows):
        if col_of_row[root] < 0:
            _augment(root, indptr, indices, col_of_row, row_of_col, seen)
    return col_of_row


def _augment(root, indptr, indices, col_of_row, row_of_col, seen) -> None:
    """One depth-first search from the free row ``root`` over alternating paths (row ->
    any unseen column -> that column's row); on reaching a free column, flip the path."""
    stack = [(root, indptr[root])]
    path = []                                         # columns taken on the way down
    while stack:
        row, pos = stack[-1]
        if pos == indptr[row + 1]:
            stack.pop()
            if path:
                path.pop()
            continue
        stack[-1] = (row, pos + 1)
        col = indices[pos]
        if seen[col] == root:
            continue
        seen[col] = root
        path.append(col)
        if row_of_col[col] < 0:                       # free column: flip the path
            for (r, _), c in zip(stack, path):
                row_of_col[c], col_of_row[r] = r, c
            return
        stack.append((row_of_col[col], indptr[row_of_col[col]]))
