"""LAPACK's dense LU (getrf) and its solve (getrs) for the small Newton matrices, the
pivoted QR (geqp3) of a closed loop's redundancy check and the generalized eigenvalues
(ggev) of a compliant run's lightly damped modes.

They are SciPy's compiled wrappers. ``scipy.linalg.lapack`` would import the whole of
``scipy.linalg`` and, through it, ``scipy._lib`` (about 0.2 s: most of a small run's
start), so the wrapper module is loaded from its file directly (5-10 ms) and registered
under its own name, where a later ``import scipy.linalg`` finds and reuses it. Where
that layout is not found, the public import is used: the functions are the same.
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

WRAPPERS = "scipy.linalg._flapack"


def _wrappers():
    if WRAPPERS in sys.modules:
        return sys.modules[WRAPPERS]
    try:
        spec = importlib.util.find_spec("scipy")       # finds, does not import, scipy
        folder = Path(spec.submodule_search_locations[0]) / "linalg"
        path = next(iter(sorted(folder.glob("_flapack.*"))))
        wrappers_spec = importlib.util.spec_from_file_location(WRAPPERS, path)
        module = importlib.util.module_from_spec(wrappers_spec)
        wrappers_spec.loader.exec_module(module)
        module.dgetrf, module.dgetrs, module.dgeqp3, module.dggev   # noqa: B018 - there
    except Exception:                                  # noqa: BLE001 - another layout
        import scipy.linalg.lapack as module
        return module
    sys.modules[WRAPPERS] = module
    return module


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
