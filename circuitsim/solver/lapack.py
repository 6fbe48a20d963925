"""LAPACK's dense LU (getrf) and its solve (getrs) for the small Newton matrices, the
pivoted QR (geqp3) of a closed loop's redundancy check and the generalized eigenvalues
(ggev) of a compliant run's lightly damped modes.

They are SciPy's compiled wrappers, loaded without ``scipy.linalg``'s package
(``scipy_modules.py``).
"""
from __future__ import annotations

import numpy as np

from . import scipy_modules

WRAPPERS = "scipy.linalg._flapack"


def _wrappers():
    return scipy_modules.load(WRAPPERS, "scipy.linalg.lapack",
                              ("dgetrf", "dgetrs", "dgeqp3", "dggev"))


def getrf_getrs() -> tuple:
    """(dgetrf, dgetrs) as ``scipy.linalg.lapack`` has them."""
    module = _wrappers()
    return module.dgetrf, module.dgetrs


def pivoted_qr(a: np.ndarray) -> tuple:
    """(|diag R|, the column permutation) of the QR factorisation with column pivoting
    A·P = Q·R, as ``scipy.linalg.qr(a, mode="economic", pivoting=True)`` computes them
    (the same LAPACK call, geqp3, after the same workspace query)."""
    geqp3 = _wrappers().dgeqp3
    a = np.asarray(a, dtype=float)
    lwork = int(geqp3(a, lwork=-1)[3][0])
    qr, jpvt, _, _, info = geqp3(a, lwork=max(lwork, 1))
    if info < 0:
        raise ValueError(f"geqp3: illegal value in argument {-info}")
    k = min(a.shape)
    return np.abs(np.diag(qr)[:k]), jpvt - 1            # LAPACK's pivots count from 1


def generalized_eigenvalues(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The eigenvalues w of a·v = w·b·v (inf where b is singular along v, nan where both
    are), as ``scipy.linalg.eigvals(a, b)`` computes them: ggev after its workspace
    query, alpha/beta."""
    ggev = _wrappers().dggev
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    lwork = int(ggev(a, b, lwork=-1)[-2][0])
    alphar, alphai, beta, _, _, _, info = ggev(a, b, 0, 0, lwork)
    if info != 0:
        raise np.linalg.LinAlgError(f"ggev did not converge (info {info})")
    alpha = alphar + 1j * alphai
    w = np.empty_like(alpha)
    finite = beta != 0
    w[finite] = alpha[finite] / beta[finite]
    w[~finite & (alpha != 0)] = np.inf
    w[~finite & (alpha == 0)] = np.nan
    return w
