"""Consistent initial values (circuitsim.solver.initial)."""
import numpy as np
import pytest

from circuitsim.errors import InconsistentInitialConditions
from circuitsim.solver import SimpleProblem, consistent_initial_conditions, solve


def counters():
    return {"nres": 0, "njac": 0, "nlu": 0}


def test_ode_gets_its_derivative():
    problem = SimpleProblem(2, lambda t, y, yp: yp + np.array([1.0, 3.0]) * y,
                            lambda t, y, yp, cj: np.diag([1.0 + cj, 3.0 + cj]))
    stats = counters()
    y, yp, info = consistent_initial_conditions(problem, 0.0, [2.0, 1.0], stats=stats)
    np.testing.assert_array_equal(y, [2.0, 1.0])               # differential y are kept
    np.testing.assert_allclose(yp, [-2.0, -3.0], rtol=1e-14)
    assert info == {"method": "newton", "moved": [], "note": ""}
    assert stats["nlu"] == 1 and stats["nres"] <= 2


def algebraic_sine():
    """y1' = -y1 + y2, 0 = y2 - sin t."""
    def res(t, y, yp):
        return np.array([yp[0] + y[0] - y[1], y[1] - np.sin(t)])
    return SimpleProblem(2, res, lambda t, y, yp, cj: np.array([[1.0 + cj, -1.0], [0.0, 1.0]]),
                         id=[1, 0], names=["y1", "y2"])


def test_algebraic_guess_and_wrong_derivative_are_repaired():
    t0 = 0.7
    y, yp, info = consistent_initial_conditions(algebraic_sine(), t0, [1.0, 5.0], [9.0, 4.0])
    assert y[0] == 1.0
    assert y[1] == pytest.approx(np.sin(t0), abs=1e-14)
    assert yp[0] == pytest.approx(-1.0 + np.sin(t0), abs=1e-12)
    assert yp[1] == 0.0                                          # algebraic: y' = 0
    assert info["moved"] == []                                   # algebraic guesses are not news


def test_free_differential_unknowns_give_a_steady_state():
    """fixed all False and y'0 = 0: solve for y instead (x' = 1 - x -> x = 1)."""
    problem = SimpleProblem(1, lambda t, y, yp: yp + y - 1.0,
                            lambda t, y, yp, cj: np.array([[1.0 + cj]]))
    y, yp, _ = consistent_initial_conditions(problem, 0.0, [0.0], [0.0], fixed=[False])
    assert y[0] == pytest.approx(1.0, abs=1e-14) and yp[0] == 0.0


def test_nonlinear_algebraic_equation_converges():
    """0 = z^3 + z - 10 (z = 2), x' = -z x."""
    def res(t, y, yp):
        return np.array([yp[0] + y[1] * y[0], y[1] ** 3 + y[1] - 10.0])

    def jac(t, y, yp, cj):
        return np.array([[y[1] + cj, y[0]], [0.0, 3 * y[1] ** 2 + 1.0]])
    problem = SimpleProblem(2, res, jac, id=[1, 0], names=["x", "z"])
    y, yp, info = consistent_initial_conditions(problem, 0.0, [1.0, 1.0])
    assert y[1] == pytest.approx(2.0, rel=1e-7)      # observed 6e-9 (rtol is 1e-6)
    assert yp[0] == pytest.approx(-2.0, rel=1e-7)
    assert info["method"] == "newton"


def capacitor_on_source():
    """Node v with capacitor C to ground and resistor R, pinned by a source V(t) = 2 + 3t
    whose current is i. KCL: C v' + v/R + i = 0; source: v - V(t) = 0. The capacitor
    makes v differential, the source pins it: the mixed Newton matrix is singular."""
    C, R = 1e-3, 100.0

    def res(t, y, yp):
        return np.array([C * yp[0] + y[0] / R + y[1], y[0] - (2.0 + 3.0 * t)])

    def jac(t, y, yp, cj):
        return np.array([[C * cj + 1 / R, 1.0], [1.0, 0.0]])
    return SimpleProblem(2, res, jac, id=[1, 0], names=["v", "V1.i"]), C, R


def test_capacitor_pinned_by_a_source_falls_back_to_backward_euler():
    problem, C, R = capacitor_on_source()
    y, yp, info = consistent_initial_conditions(problem, 0.0, [0.0, 0.0], tscale=1.0)
    assert info["method"] == "backward-euler"
    assert "singular" in info["note"]
    assert [m[0] for m in info["moved"]] == ["v"]
    name, before, after = info["moved"][0]
    assert before == 0.0 and after == pytest.approx(2.0, abs=1e-7)
    assert yp[0] == pytest.approx(3.0, rel=1e-6)                  # v' = V'
    assert y[1] == pytest.approx(-(C * 3.0 + 2.0 / R), rel=1e-5)
    assert np.abs(problem.residual(0.0, y, yp)).max() < 1e-7


def test_solve_warns_about_moved_initial_values_and_integrates():
    problem, C, R = capacitor_on_source()
    out = solve(problem, 0.0, 1.0, [0.0, 0.0], rtol=1e-6, atol=1e-9)
    assert out.status == "success", out.message
    assert "initial values changed" in out.message and "v 0 -> 2" in out.message
    np.testing.assert_allclose(out.y[:, 0], 2.0 + 3.0 * out.t, atol=1e-6)
    np.testing.assert_allclose(out.y[:, 1], -(C * 3.0 + out.y[:, 0] / R), rtol=1e-4)


def test_unsolvable_equation_raises_naming_it():
    """0 = z^2 + 1 has no real solution."""
    def res(t, y, yp):
        return np.array([yp[0] + y[0], y[1] ** 2 + 1.0])
    problem = SimpleProblem(2, res, lambda t, y, yp, cj: np.array([[1 + cj, 0.0],
                                                                  [0.0, 2 * y[1]]]),
                            id=[1, 0], names=["x", "z"])
    with pytest.raises(InconsistentInitialConditions) as info:
        consistent_initial_conditions(problem, 0.0, [1.0, 0.5])
    err = info.value
    assert err.code == "E_INIT" and err.t == 0.0
    assert err.worst[0][0] == "z"
    assert "z" in str(err)
    out = solve(problem, 0.0, 1.0, [1.0, 0.5])
    assert out.status == "failed" and out.error.code == "E_INIT"
    assert out.t.shape == (0,) and out.y.shape == (0, 2)


def test_non_finite_residual_at_the_start_names_the_equation():
    def res(t, y, yp):
        return np.array([yp[0] + y[0], np.sqrt(y[1] - 2.0) - 1.0])  # NaN for z < 2
    problem = SimpleProblem(2, res, lambda t, y, yp, cj: np.array([[1 + cj, 0.0], [0.0, 1.0]]),
                            id=[1, 0], names=["x", "z"])
    with pytest.raises(InconsistentInitialConditions) as info:
        consistent_initial_conditions(problem, 0.0, [1.0, 0.0])
    assert info.value.worst[0] == ("z", np.inf)


def test_sparse_problem_uses_few_evaluations():
    import scipy.sparse as sp
    n = 5000
    A = sp.diags([np.full(n, 2.0), -np.ones(n - 1)], [0, 1], format="csc")

    def res(t, y, yp):
        r = A @ y
        r[: n // 2] += yp[: n // 2]
        return r - 1.0

    def jac(t, y, yp, cj):
        d = np.zeros(n)
        d[: n // 2] = cj
        return A + sp.diags(d, format="csc")
    problem = SimpleProblem(n, res, jac, id=np.r_[np.ones(n // 2), np.zeros(n - n // 2)])
    stats = counters()
    y, yp, info = consistent_initial_conditions(problem, 0.0, np.zeros(n), stats=stats)
    assert np.abs(problem.residual(0.0, y, yp)).max() < 1e-9
    assert info["method"] == "newton"
    assert stats["nlu"] == 1 and stats["njac"] == 2 and stats["nres"] == 2


def test_solve_passes_fixed_through():
    """x' = 1 - x with x free at the start and y'0 = 0: the run starts (and stays) at x = 1."""
    problem = SimpleProblem(1, lambda t, y, yp: yp + y - 1.0,
                            lambda t, y, yp, cj: np.array([[1.0 + cj]]), names=["x"])
    out = solve(problem, 0.0, 5.0, [0.0], [0.0], fixed=[False], rtol=1e-6, atol=1e-9)
    assert out.status == "success"
    np.testing.assert_allclose(out.y[:, 0], 1.0, atol=1e-12)
    assert out.stats["nsteps"] < 30
