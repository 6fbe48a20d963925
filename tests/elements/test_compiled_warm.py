"""The twins' cache warmed ahead of the runs (circuitsim/elements/compiled/warm.py, circuitsim/warmup.py): a run
with a cold cache stays in numpy and starts one background compile; the warm-up
netlists call every twin in every form the shipped mechanisms call it."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import NETLISTS

import circuitsim
from circuitsim.elements import compiled
from circuitsim.elements.compiled import ahead, warm
from circuitsim import warmup as warm_up

needs_numba = pytest.mark.skipif(not compiled.available(), reason="numba not installed")


@pytest.fixture
def cold(monkeypatch, tmp_path):
    """An empty cache directory, and a process that has not looked at it yet."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(warm, "_ready", [])
    monkeypatch.setattr(warm, "_started", [])
    monkeypatch.setattr(ahead, "_loaded", [])
    return tmp_path


class _Spawned:
    def __init__(self):
        self.calls = []

    def __call__(self, argv, **kwargs):
        self.calls.append((argv, kwargs))


def test_a_cold_cache_keeps_the_run_in_numpy_and_starts_one_compile(cold, monkeypatch):
    monkeypatch.setenv(compiled.ENVIRONMENT, "auto")
    monkeypatch.setattr(compiled, "available", lambda: True)
    spawned = _Spawned()
    monkeypatch.setattr(subprocess, "Popen", spawned)   # warm imports it when it starts one
    warmup = compiled.Warmup(compiled.LOAD_SECONDS)
    assert warmup.left == 1
    assert [compiled.twin("body", warmup) for _ in range(5)] == [None] * 5
    assert warmup.left > 10 ** 9                 # the rest of the run stays in numpy
    (argv, kwargs), = spawned.calls              # one compile, however many groups ask
    assert argv[:3] == [sys.executable, "-m", "circuitsim.warmup"]
    assert kwargs["env"][compiled.ENVIRONMENT] == "numba"
    assert kwargs["start_new_session"]
    assert (Path(kwargs["cwd"]) / "circuitsim" / "__init__.py").samefile(circuitsim.__file__)
    lock = warm.marker().with_suffix(".lock")
    assert argv[3] == str(lock) and lock.exists()
    monkeypatch.setattr(warm, "_started", [])    # another process: the lock stops it
    compiled.twin("spherical", compiled.Warmup(1e9))
    warm.start_in_background()
    assert len(spawned.calls) == 1


def test_a_stale_lock_is_taken_over(cold, monkeypatch):
    spawned = _Spawned()
    monkeypatch.setattr(subprocess, "Popen", spawned)   # warm imports it when it starts one
    lock = warm.marker().with_suffix(".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("")
    old = os.path.getmtime(lock) - warm.LOCK_SECONDS - 1
    os.utime(lock, (old, old))
    warm.start_in_background()
    assert len(spawned.calls) == 1


def test_the_marker_names_the_sources_and_is_read_once(cold, monkeypatch):
    assert not warm.ready()
    warm.marker().parent.mkdir(parents=True, exist_ok=True)
    warm.marker().write_text("")
    assert not warm.ready()                      # a run keeps the path it started on
    monkeypatch.setattr(warm, "_ready", [])
    assert warm.ready()
    assert warm.marker().name == f"circuitsim-warm-{warm.cache_key()}"


def test_the_cache_key_follows_numbas_version_file(tmp_path, monkeypatch):
    """A new numba (its version file: release and revision) gives a new cache key; the
    version is read without importing numba or importlib.metadata."""
    import importlib.util
    from types import SimpleNamespace
    package = tmp_path / "numba"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "_version.py").write_text('version_json = \'{"version": "0.68.1"}\'')
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: SimpleNamespace(
        origin=str(package / "__init__.py")) if name == "numba" else None)
    first = warm.cache_key()
    (package / "_version.py").write_text('version_json = \'{"version": "0.69.0"}\'')
    assert warm.cache_key() != first
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert warm._numba_version() == b"none" and warm.cache_key() != first


def _dispatchers():
    """Every compiled function of every twin module: name -> its compiled signatures."""
    import importlib
    out = {}
    for name in ("body", "spherical", "joint", "beam", "stop", "friction"):
        module = importlib.import_module(f"circuitsim.elements.compiled.{name}")
        for attr, value in vars(module).items():      # the entry points (helpers inline)
            if hasattr(value, "signatures") and not attr.startswith("_"):
                out[f"{name}.{attr}"] = set(value.signatures)
    return out


@needs_numba
def test_the_warm_up_compiles_every_twin_as_the_examples_call_them(monkeypatch):
    monkeypatch.setenv(compiled.ENVIRONMENT, "numba")
    warm_up.compile_all()
    after_warm = _dispatchers()
    assert all(after_warm.values()), [k for k, v in after_warm.items() if not v]
    for netlist in ("pendulum", "double_pendulum", "heavy_top", "slider_crank", "fourbar",
                    "landing_gear", "solar_panel", "manipulator", "flexible_arm"):
        case = circuitsim.load(NETLISTS / f"{netlist}.cir").prepare(None)
        case.run(t_end=case.system.circuit.tran.tstop * 0.01)
    assert _dispatchers() == after_warm          # nothing compiled that the warm-up had not


def test_the_groups_of_a_system_share_one_warm_up():
    """The load is paid once per process: a case's twinned groups (bodies, revolutes,
    a prismatic joint) count their numpy calls against one budget of LOAD_SECONDS."""
    case = circuitsim.load(NETLISTS / "slider_crank.cir").prepare(None)
    warmups = [g.p.warmup for g in case.system.groups
               if isinstance(getattr(g.p, "warmup", None), compiled.Warmup)]
    assert len(warmups) >= 3
    assert len({id(w.budget) for w in warmups}) == 1
    assert warmups[0].budget.seconds == compiled.LOAD_SECONDS


def _budgets(system) -> set:
    return {g.p.warmup.budget.seconds for g in system.groups
            if isinstance(getattr(g.p, "warmup", None), compiled.Warmup)}


def test_a_case_of_several_runs_its_twins_from_the_first_call(monkeypatch):
    """The cases of a sweep or of --all-studies share the load: each has no numpy
    budget, serially and on worker processes alike; a lone case keeps its budget."""
    net = circuitsim.load(NETLISTS / "slider_crank.cir")
    seen = []
    real = circuitsim.assembly.system.System.compiled_from_start

    def watched(system):
        real(system)
        seen.append(_budgets(system))
    monkeypatch.setattr(circuitsim.assembly.system.System, "compiled_from_start", watched)
    net.sweep(step={"r": ["0.1", "0.11"]}, t_end=1e-3)
    assert seen == [{0.0}, {0.0}]
    seen.clear()
    net.sweep(step={"r": ["0.1"]}, t_end=1e-3)
    assert seen == []
    lone = net.prepare(None)
    assert _budgets(lone.system) == {compiled.LOAD_SECONDS}


def test_a_warm_up_removes_older_keys_files_from_the_packages_own_cache(tmp_path):
    """After an upgrade in place the package's __pycache__ keeps the older version's
    marker and extension: the warm-up removes the files of other keys, and nothing else
    (numba's own cache files, the present key's files, a partial write of this key)."""
    from circuitsim import warmup
    key, old = "0123456789abcdef", "fedcba9876543210"
    so = ".cpython-311-x86_64-linux-gnu"
    kept = [f"circuitsim-warm-{key}", f"circuitsim_twins-{key}{so}.so",
            f"circuitsim_twins-{key}{so}.json", f"circuitsim_twins-{key}{so}.so.77.part",
            "body.body_residual-41.py311.nbi", "body.body_residual-41.py311.1.nbc",
            "circuitsim-warm-notakey", "notes.txt"]
    stale = [f"circuitsim-warm-{old}", f"circuitsim_twins-{old}{so}.so",
             f"circuitsim_twins-{old}{so}.json", f"circuitsim_twins-{old}{so}.so.12.part"]
    for name in kept + stale:
        (tmp_path / name).write_text("")
    removed = warmup.remove_stale(tmp_path, key)
    assert sorted(p.name for p in removed) == sorted(stale)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(kept)
