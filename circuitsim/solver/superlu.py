"""SuperLU's sparse LU, as ``scipy.sparse.linalg.splu`` gives it, without importing
``scipy.sparse`` (0.2-0.3 s) or ``scipy.sparse.linalg`` (which imports ``scipy.linalg``):
the compiled module is loaded from its file (``scipy_modules.py``) and given the CSC
arrays of a :class:`ColumnMatrix`; its factors L and U are ColumnMatrix too."""
from __future__ import annotations

import numpy as np

from . import scipy_modules
from .columnmatrix import ColumnMatrix

SUPERLU = "scipy.sparse.linalg._dsolve._superlu"


def _factor(arrays: tuple, shape: tuple) -> ColumnMatrix:
    """SuperLU's L or U, handed over as ((data, indices, indptr), shape); its arrays
    can be longer than the entries (indptr[-1]), which are all there is, as SciPy
    prunes them."""
    data, indices, indptr = arrays
    end = indptr[-1]
    return ColumnMatrix(data[:end], indices[:end], indptr, shape)


def splu(A, permc_spec=None, diag_pivot_thresh=None, relax=None, panel_size=None,
         options=None):
    """The LU of the square matrix ``A`` (a ColumnMatrix, or anything
    ``ColumnMatrix.of`` reads), with ``scipy.sparse.linalg.splu``'s arguments and
    result: an object with ``solve``, ``L``, ``U``, ``perm_r``, ``perm_c``. Raises
    RuntimeError when A is exactly singular, as splu does."""
    module = scipy_modules.load(SUPERLU, SUPERLU, ("gstrf",))
    A = ColumnMatrix.of(A)
    n, m = A.shape
    if n != m:
        raise ValueError("can only factor square matrices")
    chosen = dict(DiagPivotThresh=diag_pivot_thresh, ColPerm=permc_spec,
                  PanelSize=panel_size, Relax=relax)
    chosen.update(options or {})
    if chosen["ColPerm"] == "NATURAL":                 # as splu: no column permutation
        chosen["SymmetricMode"] = True
    data = np.asarray(A.data, dtype=np.float64)
    try:
        return module.gstrf(n, A.nnz, data, A.indices.astype(np.intc, copy=False),
                            A.indptr.astype(np.intc, copy=False),
                            csc_construct_func=_factor, ilu=False, options=chosen)
    except TypeError:       # a SciPy whose gstrf is called otherwise: its own splu
        from scipy.sparse.linalg import splu as public
        return public(A.scipy(), permc_spec=permc_spec, diag_pivot_thresh=diag_pivot_thresh,
                      relax=relax, panel_size=panel_size, options=options)
