"""The run form's residuals bound once (System._bind_kernels, ElementType.residual_kernel):
on the compiled path the groups of a mechanism bind their twins' kernels after their
warm-up, and the assembled residual and invariant residual are those of the elements'
own ``residual``, bit for bit; on the numpy path nothing is bound."""
import warnings

import numpy as np
import pytest

from circuitsim.elements import compiled
from helpers import load_netlist

needs_numba = pytest.mark.skipif(not compiled.available(), reason="numba not installed")


def _point(system, seed: int):
    rng = np.random.default_rng(seed)
    y = system.initial_values() + 0.01 * rng.standard_normal(system.n)
    return y, rng.standard_normal(system.n)


def _unbound_residuals(system, t, y, yp):
    """F and F on the invariant rows with every group's own kernels (nothing bound)."""
    for g in system._called:
        g.kernel = None
    system._unbound = []
    return system.residual(t, y, yp), system.invariant_residual(t, y, yp)


@needs_numba
@pytest.mark.parametrize("name", ["slider_crank", "double_pendulum"])
def test_a_mechanism_binds_its_twins_and_keeps_its_numbers(name, monkeypatch):
    monkeypatch.setenv(compiled.ENVIRONMENT, "numba")
    system = load_netlist(name).prepare().system
    y, yp = _point(system, 1)
    for _ in range(2):              # the twins' answers settle, then the kernels bind
        system.residual(0.2, y, yp)
    bound = [g for g in system._called if g.kernel is not None]
    kinds = {g.etype.keyword for g in bound}
    assert "body" in kinds and kinds & {"revolute", "spherical"}, kinds
    F, F_inv = system.residual(0.2, y, yp), system.invariant_residual(0.2, y, yp)
    F_own, F_inv_own = _unbound_residuals(system, 0.2, y, yp)
    np.testing.assert_array_equal(F, F_own)
    np.testing.assert_array_equal(F_inv, F_inv_own)


def test_the_numpy_path_binds_nothing(monkeypatch):
    monkeypatch.setenv(compiled.ENVIRONMENT, "numpy")
    system = load_netlist("slider_crank").prepare().system
    y, yp = _point(system, 2)
    for _ in range(3):
        system.residual(0.1, y, yp)
    assert all(g.kernel is None for g in system._called)


def test_only_a_float64_state_goes_to_the_bound_kernels(monkeypatch):
    """The bound kernels take float64 alone (the extension reads other types wrongly):
    a complex y goes to the elements' own kernels."""
    monkeypatch.setenv(compiled.ENVIRONMENT, "numpy")
    system = load_netlist("double_pendulum").prepare().system
    y, yp = _point(system, 3)
    expected = system.residual(0.1, y, yp)
    called = []

    def recording(x, xp):
        called.append(x.dtype)
        raise RuntimeError("a bound kernel ran")
    for g in system._bindable():
        g.kernel = recording
    system._unbound = []
    with warnings.catch_warnings():           # the body's rows keep the real part
        warnings.simplefilter("ignore")
        shifted = system.residual(0.1, y + 0j, yp + 0j)
    assert called == []
    np.testing.assert_allclose(shifted.real, expected, rtol=1e-12, atol=1e-12)
    with pytest.raises(RuntimeError, match="a bound kernel ran"):
        system.residual(0.1, y, yp)
    assert called == [np.float64]
