"""SuperLU's sparse LU, as ``scipy.sparse.linalg.splu`` gives it, without importing
``scipy.sparse.linalg`` (which imports ``scipy.linalg``: about 45 ms of every run above
the dense size): the compiled module is loaded from its file (``scipy_modules.py``)."""
from __future__ import annotations

import numpy as np

from . import scipy_modules
from .lazy import sparse as sp   # scipy.sparse, imported on first use

SUPERLU = "scipy.sparse.linalg._dsolve._superlu"


def splu(A, permc_spec=None, diag_pivot_thresh=None, relax=None, panel_size=None,
         options=None):
    """The LU of the square CSC matrix ``A`` (``scipy.sparse.linalg.splu``'s arguments
    and result: an object with ``solve``, ``L``, ``U``, ``perm_r``, ``perm_c``). Raises
    RuntimeError when A is exactly singular, as splu does."""
    module = scipy_modules.load(SUPERLU, SUPERLU, ("gstrf",))
    if not (sp.isspmatrix_csc(A) and A.dtype == np.float64):   # the Newton matrix is
        A = sp.csc_matrix(A, dtype=float)            # already: no copy of it per LU
    A.sum_duplicates()                                 # splu's canonical form
    n, m = A.shape
    if n != m:
        raise ValueError("can only factor square matrices")
    chosen = dict(DiagPivotThresh=diag_pivot_thresh, ColPerm=permc_spec,
                  PanelSize=panel_size, Relax=relax)
    chosen.update(options or {})
    if chosen["ColPerm"] == "NATURAL":                 # as splu: no column permutation
        chosen["SymmetricMode"] = True
    try:
        return module.gstrf(n, A.nnz, A.data, A.indices.astype(np.intc, copy=False),
                            A.indptr.astype(np.intc, copy=False),
                            csc_construct_func=sp.csc_matrix, ilu=False, options=chosen)
    except TypeError:       # a SciPy whose gstrf is called otherwise: its own splu
        from scipy.sparse.linalg import splu as public
        return public(A, permc_spec=permc_spec, diag_pivot_thresh=diag_pivot_thresh,
                      relax=relax, panel_size=panel_size, options=options)
