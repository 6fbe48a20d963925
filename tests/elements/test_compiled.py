"""The compiled kernels (circuitsim/elements/compiled/) against their numpy references:
equal to ~1e-12 relative at random states in every form, the switch of
CIRCUITSIM_KERNELS and its warm-up, and numba never imported on the numpy path. The
Jacobians of both paths are checked against finite differences in test_contract.py."""
import os
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest

import circuitsim

from helpers import REPO

from circuitsim.assembly.system import prepare_params
from circuitsim.elements import compiled, element_types
from circuitsim.elements.compiled import ahead, warm
from circuitsim.elements.base import initialisation_params
from circuitsim.elements.declarations import ElementInstance

needs_numba = pytest.mark.skipif(not compiled.available(), reason="numba not installed")


@pytest.fixture(autouse=True)
def no_extension(monkeypatch):
    """These tests watch numba's twins and the warm-up budget: no extension built ahead
    (test_compiled_ahead.py tests that one)."""
    monkeypatch.setattr(ahead, "_loaded", [None])


PLAIN_BALL = {"model": "position", "mu": 0.0, "Tpre": 0.0, "cone": None}
# the variants each twin computes (the others fall back to numpy): the framework joints
# in every model, with and without a switched-off row; the beam (mass=lumped) with
# stiffening on and off, off with the reference frame's ω and q as 7 extra variables
# ("n_extra", not a parameter); a stop with one limit or two, friction with and without
# a Stribeck peak, a PID clamped or back-calculating, with one limit or none, an
# integrator with two limits, one or none, a heating resistor with and without alpha,
# the gas spring and the accumulator (charged and empty: the random states have both)
VARIANTS = {"body": [{}], "pointmass": [{}], "beam": [{}, {"stiffening": "off"},
                                   {"stiffening": "off", "n_extra": 7}],
            "stop": [{}, {"lower": -np.inf}, {"upper": np.inf}],
            "friction": [{}, {"Fs": None}],
            "pid": [{}, {"aw": "backcalc", "tt": 0.4}, {"lower": -np.inf, "kd": 0.0},
                    {"upper": np.inf, "lower": -np.inf}],
            "integ": [{}, {"lower": -np.inf}, {"upper": np.inf, "lower": -np.inf}],
            "rtherm": [{}, {"alpha": 0.0}],
            "gasspring": [{}], "accumulator": [{}],
            "spherical": [PLAIN_BALL, {**PLAIN_BALL, "inactive": [1]},
                                        {**PLAIN_BALL, "model": "velocity"},
                                        {**PLAIN_BALL, "model": "velocity", "inactive": [1]},
                                        {**PLAIN_BALL, "model": "elastic"}],
            **{keyword: [{"model": model, "inactive": inactive}
                         for model in ("velocity", "position", "elastic")
                         for inactive in ([], [0])]
               for keyword in compiled.FRAMEWORK_JOINTS}}


def _group(keyword, n, seed, variant):
    etype = element_types()[keyword]
    rng = np.random.default_rng(seed)
    variant = dict(variant)
    n_extra = variant.pop("n_extra", 0)
    insts = [ElementInstance(etype, f"X{i}", [f"n{j}" for j in range(len(etype.ports))],
                             {**etype.sample_params(rng), **variant}, None, {},
                             [None] * len(etype.ports))
             for i in range(n)]
    p = prepare_params(etype, insts)
    nv = etype.nvars(n_extra)
    return etype, p, rng.normal(size=(n, nv)), rng.normal(size=(n, nv))


def _kernels(monkeypatch, path, etype, x, xp, p):
    """F, dF/dx, dF/dx', F on the invariant rows (the drift correction's) and the
    switching functions where the element has them."""
    monkeypatch.setenv(compiled.ENVIRONMENT, path)
    rows = etype.invariant_rows(x.shape[1] - etype.nvars(), p)
    invariant = etype.invariant_residual(0.3, x, xp, p)[:, rows]
    switching = (etype.switching_functions(0.3, x, xp, p),) if etype.switch_names(p) else ()
    return ((etype.residual(0.3, x, xp, p),) + tuple(etype.jacobian(0.3, x, xp, p))
            + (invariant,) + switching)


@needs_numba
@pytest.mark.parametrize("keyword,variant",
                         [(k, v) for k in compiled.TWINNED for v in VARIANTS[k]])
@pytest.mark.parametrize("form", ["normal", "init"])
@pytest.mark.parametrize("n", [1, 4, 17])
def test_compiled_kernels_equal_the_numpy_reference(keyword, variant, form, n, monkeypatch):
    assert set(VARIANTS) == set(compiled.TWINNED)
    if form == "init" and not element_types()[keyword].has_init_form:
        pytest.skip(f"{keyword} has no initialisation form")
    for seed in range(3):
        etype, p, x, xp = _group(keyword, n, seed, variant)
        if form == "init" and etype.has_init_form:     # (else the same equations)
            p = initialisation_params(etype, p)
        reference = _kernels(monkeypatch, "numpy", etype, x, xp, p)
        twin = _kernels(monkeypatch, "numba", etype, x, xp, p)
        for name, a, b in zip(("F", "dF/dx", "dF/dx'", "F on the invariant rows", "switching"),
                              reference, twin):
            assert a.shape == b.shape
            np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12 * np.abs(a).max(initial=0.0),
                                       err_msg=f"{keyword} ({form}, N={n}): {name}")


@needs_numba
@pytest.mark.parametrize("keyword", compiled.FRAMEWORK_JOINTS)
def test_the_framework_joints_take_their_twin_in_the_run_form_only(keyword, monkeypatch):
    monkeypatch.setenv(compiled.ENVIRONMENT, "numba")
    etype, p, _, _ = _group(keyword, 2, 0, {"model": "elastic"})
    assert etype._twin(p) is compiled.twin("joint", p.warmup)
    assert etype._twin(initialisation_params(etype, p)) is None


@needs_numba
@pytest.mark.parametrize("study", [None, "fast", "soft"])
def test_a_run_with_the_joint_twins_equals_the_numpy_run(study, monkeypatch):
    """The slider-crank (revolutes and a prismatic joint in a closed loop, with flanges)
    in the position, velocity and elastic models: the same steps, and the recorded
    values equal to a fifth of the run's tolerance (rtol 1e-6) over its first 0.3 s:
    the positions and speeds to ~1e-10, the reactions (solved by Newton's iteration to
    its tolerance) to ~1e-7 of their largest value. Later the step sequences part by
    rounding, as they do with any change of arithmetic."""
    netlist = circuitsim.load(REPO / "netlists" / "slider_crank.cir")
    runs = []
    for path in ("numpy", "numba"):
        monkeypatch.setenv(compiled.ENVIRONMENT, path)
        runs.append(netlist.simulate(study=study, t_end=0.3))
    reference, twin = runs
    assert twin.stats["nsteps"] == reference.stats["nsteps"]
    for name in reference.names:
        scale = np.abs(reference[name]).max()
        np.testing.assert_allclose(twin[name], reference[name], rtol=0,
                                   atol=0.2 * 1e-6 * scale, err_msg=name)


def test_the_numpy_path_never_asks_for_a_twin(monkeypatch):
    monkeypatch.setenv(compiled.ENVIRONMENT, "numpy")
    warmup = compiled.Warmup(1e-9)
    warmup.left = 0
    assert compiled.twin("body", warmup) is None


def test_unset_is_auto(monkeypatch):
    monkeypatch.delenv(compiled.ENVIRONMENT, raising=False)
    assert compiled.choice() == "auto"


def test_auto_waits_for_the_warmup_then_uses_the_twin_if_numba_is_there(monkeypatch):
    monkeypatch.setenv(compiled.ENVIRONMENT, "auto")
    monkeypatch.setattr(warm, "ready", lambda: True)
    warmup = compiled.Warmup(compiled.LOAD_SECONDS / 3)
    assert warmup.left == 3
    assert [compiled.twin("body", warmup) for _ in range(3)] == [None] * 3
    assert (compiled.twin("body", warmup) is not None) == compiled.available()
    assert compiled.twin("body", warmup) is compiled.twin("body", warmup)   # settled
    monkeypatch.setattr(compiled, "available", lambda: False)
    fresh = compiled.Warmup(compiled.LOAD_SECONDS / 3)
    assert [compiled.twin("body", fresh) for _ in range(5)] == [None] * 5
    monkeypatch.setenv(compiled.ENVIRONMENT, "numpy")   # read when an answer is made:
    assert compiled.twin("body", warmup) is compiled.twin("body", warmup)  # kept, until
    compiled.share([SimpleNamespace(warmup=warmup)])    # the system is built again
    assert compiled.twin("body", warmup) is None


def test_asking_for_numba_without_it_is_an_error(monkeypatch):
    monkeypatch.setenv(compiled.ENVIRONMENT, "numba")
    monkeypatch.setattr(compiled, "available", lambda: False)
    with pytest.raises(ImportError, match=r"pip install circuitsim\[fast\]"):
        compiled.twin("body", compiled.Warmup(1.0))


def test_an_unknown_choice_is_an_error(monkeypatch):
    monkeypatch.setenv(compiled.ENVIRONMENT, "fortran")
    with pytest.raises(ValueError, match="CIRCUITSIM_KERNELS='fortran'"):
        compiled.twin("body", compiled.Warmup(1.0))


def test_a_short_run_does_not_import_numba():
    """A run too short to repay the twins (auto), an unset choice and a run told numpy:
    no numba."""
    code = ("import sys, circuitsim; "
            "circuitsim.load(sys.argv[1]).prepare(None).run(t_end=0.02); "
            "print(sys.modules.get('numba') is not None)")
    unset = {k: v for k, v in os.environ.items() if k != compiled.ENVIRONMENT}
    for env in (unset, {**unset, compiled.ENVIRONMENT: "numpy"},
                {**unset, compiled.ENVIRONMENT: "auto"}):
        out = subprocess.run([sys.executable, "-c", code, "netlists/double_pendulum.cir"],
                             capture_output=True, text=True, check=True,
                             env=env, cwd=str(REPO))
        assert out.stdout.split()[-1] == "False", out.stderr


@needs_numba
@pytest.mark.parametrize("left", [0, 1, 2, 3])
def test_a_group_switching_in_the_middle_of_a_call_gets_its_own_kernels(left, monkeypatch):
    """auto: a ball joint's group may switch between the checks of its own kernels and
    the framework's (the warm-up runs out within one call); either path, its numbers."""
    monkeypatch.setenv(compiled.ENVIRONMENT, "numpy")
    etype, p, x, xp = _group("spherical", 3, 0, PLAIN_BALL)
    reference = (etype.residual(0.3, x, xp, p), etype.jacobian(0.3, x, xp, p)[0],
                 etype.invariant_residual(0.3, x, xp, p))
    monkeypatch.setenv(compiled.ENVIRONMENT, "auto")
    monkeypatch.setattr(warm, "ready", lambda: True)
    for call in range(3):
        p.warmup.left = left
        got = (etype.residual(0.3, x, xp, p), etype.jacobian(0.3, x, xp, p)[0],
               etype.invariant_residual(0.3, x, xp, p))
        for a, b in zip(reference[:2], got[:2]):
            np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12 * np.abs(a).max())
        rows = etype.invariant_rows(group=p)
        np.testing.assert_allclose(got[2][:, rows], reference[2][:, rows], rtol=1e-12,
                                   atol=1e-12 * np.abs(reference[2]).max())


@needs_numba
@pytest.mark.parametrize("model", ["position", "elastic"])
@pytest.mark.parametrize("left", [1, 2, 3])
def test_a_ball_joint_keeps_its_own_kernels_after_the_switch(model, left, monkeypatch):
    """auto: once a ball joint's group has switched, each of the two modules it asks for
    (its own, the framework's) stays the one asked for, call after call."""
    monkeypatch.setenv(compiled.ENVIRONMENT, "numpy")
    etype, p, x, xp = _group("spherical", 3, 0, {**PLAIN_BALL, "model": model})
    reference = (etype.residual(0.3, x, xp, p), etype.jacobian(0.3, x, xp, p)[0])
    monkeypatch.setenv(compiled.ENVIRONMENT, "auto")
    monkeypatch.setattr(warm, "ready", lambda: True)
    p.warmup.left = left
    for call in range(6):
        got = (etype.residual(0.3, x, xp, p), etype.jacobian(0.3, x, xp, p)[0])
        for a, b in zip(reference, got):
            np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12 * np.abs(a).max(),
                                       err_msg=f"call {call}")
