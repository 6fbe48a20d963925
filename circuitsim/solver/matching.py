"""Maximum matching of a sparse matrix's rows to its columns (the structural checks of
an equation system: is there an unknown for every equation?).

The matching is first looked for here, in Python: a greedy pass that gives each row the
free column fewest rows can take, then augmenting paths for the rows left over. On the
equation systems of circuits and mechanisms the greedy pass leaves few rows or none
(none on a 1 024-link chain's 22 528 equations) and the whole takes milliseconds to
tens of milliseconds. Augmenting paths can take a long time on other patterns (the
work grows as rows left x entries): past a budget of steps the matching goes to the
compiled Hopcroft-Karp of ``scipy.sparse.csgraph`` instead, loaded from its file
(``scipy_modules.py``); loading it imports scipy.sparse, 0.2-0.3 s.
"""
from __future__ import annotations

import numpy as np

from . import scipy_modules
from .rowmatrix import RowMatrix

MATCHING = "scipy.sparse.csgraph._matching"
# Steps of the augmenting-path search allowed per entry of the matrix (plus a fixed
# allowance) before the compiled matching takes over.
PATH_STEPS_PER_ENTRY = 4
PATH_STEPS_MIN = 100_000


def maximum_matching(matrix, perm_type: str = "column") -> np.ndarray:
    """A maximum matching of ``matrix``'s non-zero pattern, as
    ``scipy.sparse.csgraph.maximum_bipartite_matching`` returns it: for
    ``perm_type="column"`` the column matched to each row, for ``"row"`` the row matched
    to each column, -1 where none is. Which maximum matching is returned may differ
    from csgraph's; its size does not."""
    n_rows, n_cols = matrix.shape
    csr = matrix.tocsr()
    budget = PATH_STEPS_MIN + PATH_STEPS_PER_ENTRY * len(csr.indices)
    col_of_row = _augmenting_paths(csr.indptr.tolist(), csr.indices.tolist(), n_rows,
                                   n_cols, budget)
    if col_of_row is None:                   # over budget: the compiled Hopcroft-Karp
        compiled = scipy_modules.load(MATCHING, "scipy.sparse.csgraph",
                                      ("maximum_bipartite_matching",))
        csr = csr.scipy() if isinstance(csr, RowMatrix) else csr
        return compiled.maximum_bipartite_matching(csr, perm_type=perm_type)
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


def _augmenting_paths(indptr: list, indices: list, n_rows: int, n_cols: int,
                      budget: int) -> list | None:
    """Column matched to each row (-1: none), or None when the search took more than
    ``budget`` steps. A greedy pass gives each row, in order, its free column with the
    fewest entries (the column other rows are least likely to need); then for each row
    left over a depth-first search for an augmenting path (Kuhn's method), without
    recursion."""
    col_of_row = [-1] * n_rows
    row_of_col = [-1] * n_cols
    in_rows = [0] * n_cols
    for col in indices:
        in_rows[col] += 1
    for row in range(n_rows):
        best, fewest = -1, n_rows + 1
        for col in indices[indptr[row]:indptr[row + 1]]:
            if row_of_col[col] < 0 and in_rows[col] < fewest:
                best, fewest = col, in_rows[col]
        if best >= 0:
            row_of_col[best], col_of_row[row] = row, best
    seen = [-1] * n_cols
    for root in range(n_rows):
        if col_of_row[root] < 0:
            budget -= _augment(root, indptr, indices, col_of_row, row_of_col, seen)
            if budget < 0:
                return None
    return col_of_row


def _augment(root, indptr, indices, col_of_row, row_of_col, seen) -> int:
    """One depth-first search from the free row ``root`` over alternating paths (row ->
    any unseen column -> that column's row); on reaching a free column, flip the path.
    Returns the number of entries looked at."""
    stack = [(root, indptr[root])]
    path = []                                         # columns taken on the way down
    steps = 0
    while stack:
        row, pos = stack[-1]
        if pos == indptr[row + 1]:
            stack.pop()
            if path:
                path.pop()
            continue
        steps += 1
        stack[-1] = (row, pos + 1)
        col = indices[pos]
        if seen[col] == root:
            continue
        seen[col] = root
        path.append(col)
        if row_of_col[col] < 0:                       # free column: flip the path
            for (r, _), c in zip(stack, path):
                row_of_col[c], col_of_row[r] = r, c
            return steps
        stack.append((row_of_col[col], indptr[row_of_col[col]]))
    return steps
