"""LAPACK's dense LU (getrf) and its solve (getrs) for the small Newton matrices.

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
        module.dgetrf, module.dgetrs                   # noqa: B018 - both are there
    except Exception:                                  # noqa: BLE001 - another layout
        import scipy.linalg.lapack as module
        return module
    sys.modules[WRAPPERS] = module
    return module


def getrf_getrs() -> tuple:
    """(dgetrf, dgetrs) as ``scipy.linalg.lapack`` has them."""
    module = _wrappers()
    return module.dgetrf, module.dgetrs
