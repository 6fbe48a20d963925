"""SciPy's compiled modules loaded from their files, without their packages.

A run needs a few of SciPy's compiled functions: LAPACK's dense LU (``lapack.py``),
SuperLU (``superlu.py``) and the bipartite matching of the structural checks
(``matching.py``). Importing them the public way imports their packages: ``scipy.linalg``,
``scipy.sparse.linalg`` and ``scipy.sparse.csgraph`` pull in ``scipy.linalg`` and
``scipy._lib`` (0.1-0.2 s, more than a small mechanism's whole integration). Each
compiled module is instead loaded from its file (1-10 ms) and registered under its own
name, where a later public import finds and reuses it. Where that layout is not found,
the public import is used: the functions are the same.
"""
from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path


def load(name: str, public: str, names: tuple):
    """The compiled module ``name`` (dotted, inside scipy), loaded from its file; if that
    fails, or it lacks one of ``names``, the module ``public`` imported the usual way."""
    if name in sys.modules:
        return sys.modules[name]
    try:
        spec = importlib.util.find_spec("scipy")        # finds, does not import, scipy
        folder = Path(spec.submodule_search_locations[0]).joinpath(*name.split(".")[1:-1])
        path = next(iter(sorted(folder.glob(name.rsplit(".", 1)[1] + ".*"))))
        module_spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
        for attr in names:
            getattr(module, attr)
    except Exception:                                   # noqa: BLE001 - another layout
        return importlib.import_module(public)
    sys.modules[name] = module
    return module
