"""The twins compiled ahead of time: one extension module holding every twin's residual
and Jacobian, built by the warm-up (numba's ``pycc``, which needs a C compiler) and loaded
without numba.

A run that uses the twins through numba's disk cache pays, once per process, for
importing numba (about 0.15 s) and for setting up its compiler (about 0.3 s) before the
first cached function runs: on a mechanism of a few seconds that is a tenth of the run.
The same machine code in an extension module loads in about 10 ms, so ``auto`` runs it
from a group's first call, with no warm-up budget (contract of compiled/__init__.py).

1. Each twin module declares ``EXPORTS``: for each kernel, the types of its result and
   arguments (float64 and int64 arrays of any layout, int64 and bool scalars).
2. ``build()`` compiles them into ``circuitsim_twins`` in the twins' cache directory,
   under a name carrying the cache key (the twins' sources, numba's, Python's and the
   machine's versions: warm.cache_key), so a file is never stale. Written to a
   temporary name and renamed when whole; any failure (no compiler, a numba without
   pycc) leaves no file, and the runs use numba's cache as before.
3. ``twin(module)``: the kernels of one twin module from the extension, or None when it
   is not built. Machine code for the generic CPU of the architecture, so a cache
   shared between machines of one architecture stays valid. A call with arguments of
   other types (an array of other dimensions or dtype: the extension raises TypeError)
   runs numba's twin instead.
"""
import importlib
import importlib.machinery
import importlib.util
import json
import os
import shutil
import tempfile
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from . import warm

EXTENSION = "circuitsim_twins"
# the types of EXPORTS: arguments of any memory layout (the compiled code reads their
# strides, so a view is read right), results as the kernels make them (C order)
ARGUMENTS = {"f1": "float64[:]", "f2": "float64[:, :]", "f3": "float64[:, :, :]",
             "i1": "int64[:]", "b1": "boolean[:]", "i": "int64", "b": "boolean"}
RESULTS = {"f2": "float64[:, ::1]", "f3": "float64[:, :, ::1]"}
_DTYPES = {"f": np.dtype(np.float64), "i": np.dtype(np.int64), "b": np.dtype(np.bool_)}
_SCALARS = {"i": (int, np.integer), "b": (bool, np.bool_)}

_loaded: list = []          # [(the extension, its argument types) or None], once per process


def path() -> Path:
    """Where the extension for the present sources is (or would be) built."""
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    return warm.cache_dir() / f"{EXTENSION}-{warm.cache_key()}{suffix}"


def extension():
    """(The extension module, {kernel: its argument types}), None when it is not built
    (or does not load)."""
    if not _loaded:
        _loaded.append(_load())
    return _loaded[0]


def _load():
    file = path()
    if not file.exists():
        return None
    try:
        types = json.loads(file.with_suffix(".json").read_text())
        spec = importlib.util.spec_from_file_location(EXTENSION, file)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    except (ImportError, OSError, ValueError):
        return None
    return module, types


def twin(module: str):
    """The kernels of the twin module ``module`` from the extension, or None."""
    built = extension()
    if built is None:
        return None
    ext, types = built
    prefix = f"{module}_"                       # the extension's names: <module>_<kernel>
    kernels = {name[len(prefix):]: _checked(getattr(ext, name), types[name], module,
                                            name[len(prefix):])
               for name in types if name.startswith(prefix)}
    return SimpleNamespace(**kernels) if kernels else None


def signature(result, arguments) -> str:
    """The numba signature of an EXPORTS entry."""
    out = (f"Tuple(({', '.join(RESULTS[r] for r in result)}))" if isinstance(result, tuple)
           else RESULTS[result])
    return f"{out}({', '.join(ARGUMENTS[a] for a in arguments)})"


def _checked(compiled_kernel, arguments: str, module: str, kernel: str):
    """The extension's kernel behind a check of its arguments' types: its compiled
    wrapper trusts them (a float32 array would be read as float64), so arguments of
    other types go to numba's twin instead."""
    expected = tuple((_DTYPES[a[0]], int(a[1])) if len(a) == 2 else _SCALARS[a]
                     for a in arguments.split())

    def call(*args):
        if len(args) == len(expected):
            for value, want in zip(args, expected):
                if type(value) is np.ndarray:
                    if (value.dtype, value.ndim) != want:
                        break
                elif not isinstance(value, want):
                    break
            else:
                return compiled_kernel(*args)
        jit = importlib.import_module(f"{__package__}.{module}")
        return getattr(jit, kernel)(*args)
    call.__name__ = f"{module}_{kernel}"
    return call
def build(modules) -> bool:
    """Compile the kernels of the twin modules named in ``modules`` into the extension
    (contract item 2); True when it was built."""
    try:
        with warnings.catch_warnings():           # pycc is "pending deprecation"
            warnings.simplefilter("ignore")
            from numba.pycc import CC
    except ImportError:
        return False
    target = path()
    work = tempfile.mkdtemp(prefix="circuitsim-twins-")
    try:
        cc = CC(EXTENSION, source_module=__name__)
        cc.output_dir = work
        types = {}
        for name in modules:
            twin_module = importlib.import_module(f"{__package__}.{name}")
            for kernel, (result, arguments) in twin_module.EXPORTS.items():
                cc.export(f"{name}_{kernel}", signature(result, arguments))(
                    getattr(twin_module, kernel).py_func)
                types[f"{name}_{kernel}"] = " ".join(arguments)
        cc.compile()
        target.parent.mkdir(parents=True, exist_ok=True)
        # the argument types beside it (the extension does not check them), then the
        # extension itself, each renamed into place whole
        for data, final in ((json.dumps(types).encode(), target.with_suffix(".json")),
                            (Path(work, cc.output_file).read_bytes(), target)):
            partial = final.with_name(final.name + f".{os.getpid()}.part")
            partial.write_bytes(data)
            os.replace(partial, final)
    except Exception:                 # no compiler, a failed link: numba's cache it is
        return False
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return True
