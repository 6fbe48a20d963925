"""The twins compiled ahead of time (circuitsim/elements/compiled/ahead.py): built into an
extension module, equal to the numpy reference to rounding in every variant and form the
numba twins are checked in, run by ``auto`` from the first call without importing numba,
and a call of types the extension was not built for answered by numba's twin."""
import importlib
import os
import subprocess
import sys

import numpy as np
import pytest

import circuitsim

from helpers import REPO

from circuitsim.elements import compiled, element_types
from circuitsim.elements.base import initialisation_params
from circuitsim.elements.compiled import ahead, warm

from test_compiled import VARIANTS, _group, _kernels, needs_numba

pytestmark = needs_numba


def test_without_the_extension_there_is_no_ahead_twin(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(ahead, "_loaded", [])
    monkeypatch.setattr(ahead, "_kernels", {})
    assert ahead.twin("body") is None
    assert not list(tmp_path.iterdir())


CHECKS = ("_named_by_the_cache_key", "_equal_to_the_numpy_reference",
          "_views_read_through_strides_other_types_to_numba",
          "_bound_kernels_check_their_parameters_once",
          "_auto_takes_it_from_the_first_call", "_past_the_switch_the_kernels_are_numbas",
          "_a_run_imports_no_numba")


@pytest.mark.slow
def test_the_extension_built_ahead(tmp_path, monkeypatch):
    """Built once (20-40 s of compiling, one test so that one worker builds it), then
    every check below against it, each with the process's view of it made afresh."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    if not ahead.build(compiled.MODULES):
        pytest.skip("the extension could not be built here (no C compiler?)")
    for name in CHECKS:
        with monkeypatch.context() as patched:
            patched.setattr(ahead, "_loaded", [])
            patched.setattr(ahead, "_kernels", {})
            patched.setattr(ahead, "_calls_left", [ahead.SWITCH_CALLS])
            assert ahead.extension() is not None
            globals()[name](tmp_path, patched)


def _named_by_the_cache_key(cache, monkeypatch):
    file = ahead.path()
    assert file.parent == cache and warm.cache_key() in file.name
    assert [p for p in cache.iterdir() if p.name.endswith(".part")] == []


def _equal_to_the_numpy_reference(cache, monkeypatch):
    """auto with the extension: the same checks as the numba twins', every variant in
    both forms, N = 1 and 17."""
    for keyword in compiled.TWINNED:
        for variant in VARIANTS[keyword]:
            for form in ("normal", "init"):
                if form == "init" and not element_types()[keyword].has_init_form:
                    continue
                _variant_equal(keyword, variant, form, monkeypatch)


def _variant_equal(keyword, variant, form, monkeypatch):
    for n, seed in ((1, 0), (17, 1)):
        etype, p, x, xp = _group(keyword, n, seed, variant)
        if form == "init":
            p = initialisation_params(etype, p)
        reference = _kernels(monkeypatch, "numpy", etype, x, xp, p)
        p.warmup.budget.seconds = 1e9        # the extension needs no warm-up budget
        built = _kernels(monkeypatch, "auto", etype, x, xp, p)
        numba_twins = _kernels(monkeypatch, "numba", etype, x, xp, p)
        names = ("F", "dF/dx", "dF/dx'", "F on the invariant rows", "switching")
        for name, a, b, c in zip(names, reference, built, numba_twins):
            assert a.shape == b.shape
            np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12 * np.abs(a).max(initial=0.0),
                                       err_msg=f"{keyword} ({form}, N={n}): {name}")
            # the same arithmetic as numba's twins, bit for bit (contract item 4)
            np.testing.assert_array_equal(b, c, err_msg=f"{keyword} ({form}, N={n}): {name}")


def _auto_takes_it_from_the_first_call(cache, monkeypatch):
    monkeypatch.setenv(compiled.ENVIRONMENT, "auto")
    warmup = compiled.Warmup(compiled.LOAD_SECONDS / 3)
    kernels = compiled.twin("body", warmup)
    assert kernels is not None and kernels.residual.__name__ == "body_residual"
    assert warmup.budget.seconds == compiled.LOAD_SECONDS      # nothing spent
    monkeypatch.setenv(compiled.ENVIRONMENT, "numba")           # numba: numba's twins
    assert compiled.twin("body", compiled.Warmup(1.0)).residual.py_func


def _views_read_through_strides_other_types_to_numba(cache, monkeypatch):
    """A Fortran-ordered x or a strided view gives the same numbers (the extension reads
    strides); a float32 x, which the extension would read as float64, is handed to
    numba's twin instead."""
    etype, p, x, xp = _group("body", 3, 0, {})
    kernels = ahead.twin("body")
    args = (p.m, p.Jc, p.gyro, p.g, p.init)
    expected = kernels.residual(x, xp, *args)
    np.testing.assert_array_equal(kernels.residual(np.asfortranarray(x), xp, *args), expected)
    every_other = np.zeros((x.shape[0], 2 * x.shape[1]))
    every_other[:, ::2] = x
    np.testing.assert_array_equal(kernels.residual(every_other[:, ::2], xp, *args), expected)
    numba_twin = importlib.import_module("circuitsim.elements.compiled.body")
    monkeypatch.setattr(numba_twin, "residual", lambda *a: ("numba's", a[0].dtype))
    assert kernels.residual(x.astype(np.float32), xp, *args) == ("numba's", np.float32)
    assert kernels.residual(x, xp, p.m, p.Jc, p.gyro, p.g, 1.5)[0] == "numba's"
    assert kernels.residual(x, xp, *args[:-1])[0] == "numba's"


def _bound_kernels_check_their_parameters_once(cache, monkeypatch):
    """compiled.bound on the extension's kernel (the assembler's bound residuals): the
    same numbers as the checked call; parameters of other types, found when it is bound,
    go to numba's twin."""
    etype, p, x, xp = _group("body", 3, 0, {})
    kernels = ahead.twin("body")
    args = (p.m, p.Jc, p.gyro, p.g, p.init)
    np.testing.assert_array_equal(compiled.bound(kernels.residual, *args)(x, xp),
                                  kernels.residual(x, xp, *args))
    numba_twin = importlib.import_module("circuitsim.elements.compiled.body")
    monkeypatch.setattr(numba_twin, "residual", lambda *a: ("numba's", a[-1]))
    assert compiled.bound(kernels.residual, *args[:-1], 1.5)(x, xp) == ("numba's", 1.5)


def _past_the_switch_the_kernels_are_numbas(cache, monkeypatch):
    """Contract item 4: after SWITCH_CALLS calls the namespace runs numba's twins, with
    the same numbers bit for bit; without a warm numba cache the extension stays."""
    etype, p, x, xp = _group("stop", 3, 0, {})
    args = (x, xp, p.lower, p.upper, p.k, p.c)
    monkeypatch.setattr(warm, "ready", lambda: False)
    monkeypatch.setattr(ahead, "_calls_left", [2])
    kernels = ahead.twin("stop")
    first = [kernels.residual(*args) for _ in range(3)]
    assert kernels.residual.__name__ == "stop_residual"          # no warm cache: kept
    monkeypatch.setattr(warm, "ready", lambda: True)
    monkeypatch.setattr(ahead, "_calls_left", [2])
    later = [kernels.residual(*args) for _ in range(3)]
    numba_twin = importlib.import_module("circuitsim.elements.compiled.stop")
    assert kernels.residual is numba_twin.residual
    assert ahead.twin("stop") is kernels
    for a in first + later:
        np.testing.assert_array_equal(a, first[0])


def _a_run_imports_no_numba(cache, monkeypatch):
    """The four-bar linkage run as a user runs it (auto, a process of its own): no numba
    in the process, and its recorded values equal to the numpy reference run's within a
    tenth of the run's tolerance over 0.3 s (rtol 1e-6; the same steps)."""
    code = ("import sys, numpy as np, circuitsim; "
            "r = circuitsim.load(sys.argv[1]).simulate(t_end=0.3); "
            "np.save(sys.argv[2], np.array([r[n] for n in r.names])); "
            "print(sys.modules.get('numba') is not None, r.stats['nsteps'])")
    env = {**os.environ, compiled.ENVIRONMENT: "auto", "NUMBA_CACHE_DIR": str(cache)}
    out = cache / "fourbar.npy"
    proc = subprocess.run([sys.executable, "-c", code, "netlists/fourbar.cir", str(out)],
                          capture_output=True, text=True, env=env, cwd=str(REPO))
    assert proc.returncode == 0, proc.stderr
    numba_loaded, steps = proc.stdout.split()
    assert numba_loaded == "False"
    monkeypatch.setenv(compiled.ENVIRONMENT, "numpy")
    reference = circuitsim.load(REPO / "netlists" / "fourbar.cir").simulate(t_end=0.3)
    assert int(steps) == reference.stats["nsteps"]
    values = np.load(out)
    expected = np.array([reference[n] for n in reference.names])
    scale = np.abs(expected).max(axis=1, keepdims=True)
    assert np.all(np.abs(values - expected) <= 0.1 * (1e-6 * scale + 1e-9))
