"""Linear element types stamped once into G, C: the assembled residual and Jacobian
equal those of the kernels called every time (FUSE_LINEAR off) to rounding."""
import numpy as np
import pytest

import circuitsim
from circuitsim.assembly import system as system_module
from circuitsim.elements.base import branch_rows
from circuitsim.elements.resistor import Resistor
from circuitsim.errors import CircuitsimError
from helpers import load_netlist

ROUNDING = 1e-14     # relative to the largest entry: sums in another order


def _rc_ladder(n: int = 30) -> str:
    lines = ["V V1 n0 0 V=step(0, 0, 1)"]
    for k in range(1, n + 1):
        lines += [f"R R{k} n{k - 1} n{k} R=1k", f"C C{k} n{k} 0 C=1u"]
    return "\n".join(lines + [".tran 20m"]) + "\n"


CASES = {"rlc": lambda: load_netlist("rlc"), "dcmotor": lambda: load_netlist("dcmotor"),
         "slider_crank": lambda: load_netlist("slider_crank"),
         "rc_ladder": lambda: circuitsim.parse(_rc_ladder())}


def _system(name, monkeypatch, fuse: bool):
    monkeypatch.setattr(system_module, "FUSE_LINEAR", fuse)
    return CASES[name]().prepare().system


def _close(a, b) -> bool:
    return np.max(np.abs(a - b), initial=0.0) <= ROUNDING * max(1.0, np.max(np.abs(b)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_stamped_equals_called(name, monkeypatch):
    fused, called = (_system(name, monkeypatch, fuse) for fuse in (True, False))
    assert fused._stamped and not called._stamped
    rng = np.random.default_rng(3)
    for init in (False, True):
        y, yp = rng.normal(size=fused.n), rng.normal(size=fused.n)
        assert _close(fused.residual(0.3, y, yp, init=init), called.residual(0.3, y, yp, init=init))
        a = fused.jacobian(0.3, y, yp, 250.0, init=init)
        b = called.jacobian(0.3, y, yp, 250.0, init=init)
        assert _close(a.toarray(), b.toarray())
        assert _close(fused.invariant_residual(0.3, y, yp), called.invariant_residual(0.3, y, yp))


def test_linear_kernels_are_not_called_per_residual(monkeypatch):
    system = _system("rlc", monkeypatch, True)
    monkeypatch.setattr(Resistor, "residual", classmethod(lambda *a: 1 / 0))
    monkeypatch.setattr(Resistor, "jacobian", classmethod(lambda *a: 1 / 0))
    y = np.ones(system.n)
    system.residual(0.0, y, y)
    system.jacobian(0.0, y, y, 10.0)


def test_stamps_are_G_and_C(monkeypatch):
    """R–L–C in series from a source: G holds 1/R and the inductor's incidence, C the
    capacitance and L; the residual is G·y + C·y' on the linear part."""
    system = _system("rlc", monkeypatch, True)
    assert system.G.shape == system.C.shape == (system.n, system.n)
    y = np.linspace(1.0, 2.0, system.n)
    for matrix in (system.G, system.C):
        assert np.allclose(matrix.dot(y), matrix.scipy() @ y, rtol=1e-15, atol=0)
    values = set(np.round(np.abs(system.C.data), 12))
    assert values == {1e-5, 1e-2}          # C = 10 uF, L = 10 mH


def test_wrongly_declared_linear_type_is_refused(monkeypatch):
    monkeypatch.setattr(Resistor, "residual",
                        classmethod(lambda cls, t, x, xp, p: branch_rows((x[:, 0] - x[:, 1]) ** 3 / p.R)))
    with pytest.raises(CircuitsimError, match="Resistor is declared linear"):
        load_netlist("rlc").prepare()


def test_linear_type_with_an_initialisation_form_is_refused(monkeypatch):
    monkeypatch.setattr(Resistor, "has_init_form", True)
    with pytest.raises(CircuitsimError, match="Resistor is declared linear"):
        load_netlist("rlc").prepare()


def test_runs_agree_within_tolerance(monkeypatch):
    runs = []
    for fuse in (True, False):
        monkeypatch.setattr(system_module, "FUSE_LINEAR", fuse)
        runs.append(load_netlist("rlc").simulate())
    a, b = runs
    assert np.array_equal(a.t, b.t) or len(a.t) > 10
    for name in ("n3", "L1.i"):
        vb = np.interp(a.t, b.t, b[name])
        assert np.max(np.abs(a[name] - vb)) <= 1e-3 * np.max(np.abs(vb))
