"""The error test's norm: the RMS over the unknowns that carry the error, at most the
independent states (docs/solver.md, error control), so that many quiet unknowns do not
dilute the error of a few active ones."""
import importlib.util

import numpy as np
import pytest

import circuitsim
from circuitsim.solver.bdf import SIGNIFICANT, error_norm

from helpers import REPO


def _ladder_benchmark():
    spec = importlib.util.spec_from_file_location("ladder", REPO / "benchmarks" / "ladder.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_one_active_unknown_among_many_quiet_ones_is_not_diluted():
    v = np.zeros(10_000)
    v[3] = 0.8
    assert error_norm(v, np.ones_like(v), len(v)) == pytest.approx(0.8)


def test_a_spread_error_is_the_rms_over_the_independent_states():
    """Every unknown carries the error: sqrt(sum / n_err), the norm the mechanics use."""
    v = np.linspace(1.0, 2.0, 41)
    w = np.full(41, 0.5)
    assert error_norm(v, w, 2) == pytest.approx(np.sqrt(np.sum((v * w) ** 2) / 2))
    assert error_norm(v, w, 41) == pytest.approx(np.sqrt(np.mean((v * w) ** 2)))


def test_negligible_errors_do_not_count():
    v = np.full(100, 0.5 * SIGNIFICANT)
    v[:4] = 1.0
    expected = np.sqrt(np.sum(v * v) / 4)
    assert error_norm(v, np.ones(100), 100) == pytest.approx(expected)


def test_zero_error_is_zero():
    assert error_norm(np.zeros(5), np.ones(5), 5) == 0.0


def test_ladder_driven_node_keeps_its_accuracy_as_the_ladder_grows():
    """At a fixed rtol the error of the driven node does not grow with the number of
    sections (the RMS over all nodes let it grow: 5e-5 at N = 1000, 1.5e-4 at 1e4;
    now about 1e-5 at 10, 1000 and 1e4)."""
    ladder = _ladder_benchmark()
    errors = []
    for n in (10, 1000):
        res = circuitsim.parse(ladder.ladder_netlist(n)).prepare().run(rtol=1e-4, atol=1e-7)
        errors.append(np.max(np.abs(res["n1"] - ladder.exact_driven_node(n, res.t))))
    assert errors[0] < 2e-5
    assert errors[1] < 1.5 * errors[0]
