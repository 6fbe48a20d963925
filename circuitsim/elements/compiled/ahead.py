"""The twins compiled ahead of time: one extension module holding every twin's residual
and Jacobian, built by the warm-up (numba's ``pycc``, which needs a C compiler) and loaded
without numba.

A run that uses the twins through numba's disk cache pays, once per process, for
importing numba (about 0.15 s) and for setting up its compiler (about 0.3 s) before the
first cached function runs: on a mechanism of a few seconds that is a tenth of the run.
The same machine code in an extension module loads in about 10 ms, so ``auto`` runs it
from a group's first call, with no warm-up budget (contract of compiled/__init__.py).

1. Each twin module declares ``EXPORTS``: for each kernel, the types of its result and
   arguments (float64, int64 and bool arrays of any layout, int64 and bool scalars),
   those made at every call (x, x', an input's value) marked ``*`` and first.
2. ``build()`` compiles them into ``circuitsim_twins`` in the twins' cache directory,
   under a name carrying the cache key (the twins' sources, numba's, Python's and the
   machine's versions: warm.cache_key), so a file is never stale. Written to a
   temporary name and renamed when whole; any failure (no compiler, a numba without
   pycc) leaves no file, and the runs use numba's cache as before.
3. ``twin(module)``: the kernels of one twin module from the extension, or None when it
   is not built. Machine code for the generic CPU of the architecture, so a cache
   shared between machines of one architecture stays valid. The extension's own
   wrapper does not check its arguments' types, so they are checked in Python first
   (``_checked``); a call with arguments of other types runs numba's twin instead.
4. Rent or buy: the extension's kernels check their arguments in Python, about 1.5 us a
   call more than numba's twins. Once a process has made ``SWITCH_CALLS`` calls, which
   cost about what loading numba does, the namespaces handed out run numba's twins from
   its warm cache (the same arithmetic, the same results bit for bit): a run of a few
   seconds never imports numba, a long one pays the load once.
"""
import importlib
import importlib.machinery
import importlib.util
import json
import math
import operator
import os
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
_kernels: dict = {}         # {twin module: its namespace of kernels, or None}
# contract item 4: numba's load (about 0.45 s) against the extension's extra cost per call
# (its argument checks, about 1.5 us): past this many calls numba's twins are cheaper
SWITCH_CALLS = 300_000
_calls_left = [SWITCH_CALLS]


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
    """The kernels of the twin module ``module`` from the extension (one namespace per
    module and process), or None."""
    if module in _kernels:
        return _kernels[module]
    built = extension()
    kernels = None
    if built is not None:
        ext, types = built
        prefix = f"{module}_"                   # the extension's names: <module>_<kernel>
        found = {name[len(prefix):]: _checked(getattr(ext, name), types[name], module,
                                              name[len(prefix):])
                 for name in types if name.startswith(prefix)}
        kernels = SimpleNamespace(**found) if found else None
    _kernels[module] = kernels
    return kernels


def _to_numba() -> None:
    """Contract item 4: the calls have paid for loading numba's twins; from now on every
    namespace handed out runs them (the same results, bit for bit), if
    numba's cache is warm; else the extension stays."""
    _calls_left[0] = math.inf
    if not (warm.available() and warm.ready()):
        return
    for module, kernels in _kernels.items():
        if kernels is not None:
            jit = importlib.import_module(f"{__package__}.{module}")
            for kernel in vars(kernels):
                setattr(kernels, kernel, getattr(jit, kernel))


def signature(result, arguments) -> str:
    """The numba signature of an EXPORTS entry."""
    out = (f"Tuple(({', '.join(RESULTS[r] for r in result)}))" if isinstance(result, tuple)
           else RESULTS[result])
    return f"{out}({', '.join(ARGUMENTS[a.rstrip('*')] for a in arguments)})"


def _checked(compiled_kernel, arguments: str, module: str, kernel: str):
    """The extension's kernel behind a check of its arguments' types: its compiled
    wrapper trusts them (a float32 array would be read as float64, a list would crash
    it), so arguments of other types go to numba's twin instead. The arguments made at
    every call (marked ``*``, first) are checked at every call, the group's parameters
    when they are not the objects that passed the check at the call before."""
    kinds = arguments.split()
    per_call = sum(kind.endswith("*") for kind in kinds)
    types = [_argument_type(kind.rstrip("*")) for kind in kinds]
    made, given = types[:per_call], types[per_call:]
    passed = [object()] * len(given)          # the parameters that passed last

    def call(*args):
        _calls_left[0] -= 1
        if _calls_left[0] <= 0:
            _to_numba()
        if len(args) == len(kinds) and _of_types(args[:per_call], made):
            params = args[per_call:]
            if all(map(operator.is_, params, passed)) or _remembered(params, given, passed):
                return compiled_kernel(*args)
        jit = importlib.import_module(f"{__package__}.{module}")
        return getattr(jit, kernel)(*args)

    def bind_parameters(*params):
        """The kernel of the made arguments alone (compiled.bound): the parameters
        checked once; of other types, numba's twin runs."""
        if len(params) == len(given) and _of_types(params, given):
            return lambda *arrays: compiled_kernel(*arrays, *params)
        jit = getattr(importlib.import_module(f"{__package__}.{module}"), kernel)
        return lambda *arrays: jit(*arrays, *params)
    call.__name__ = f"{module}_{kernel}"
    call.bind_parameters = bind_parameters
    return call


def _argument_type(kind: str) -> tuple:
    """(dtype, ndim) of an array kind ("f2"), (the accepted Python types, None) of a
    scalar one ("i", "b")."""
    return (_DTYPES[kind[0]], int(kind[1])) if len(kind) == 2 else (_SCALARS[kind], None)


def _of_types(values, types) -> bool:
    for value, (want, ndim) in zip(values, types):
        if type(value) is np.ndarray:
            if value.dtype != want or value.ndim != ndim:
                return False
        elif ndim is not None or not isinstance(value, want):
            return False
    return True


def _remembered(params, types, passed) -> bool:
    """Whether ``params`` are of ``types``; if so they are kept in ``passed``."""
    if not _of_types(params, types):
        return False
    passed[:] = params
    return True


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
    import shutil                             # the build's own: not every run's imports
    import tempfile
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
