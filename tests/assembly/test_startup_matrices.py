"""The kinematic start's rows: dense up to DENSE_MAX unknowns, above it a RowMatrix
(scipy.sparse only for LSQR, where a start needs the least squares). Both routes assemble the same start (the
four-bar moved to a crank angle of 60° by `.ic`), and the RowMatrix takes the rows and
columns the start-up takes as scipy.sparse's CSR does."""
import numpy as np
import pytest
import scipy.sparse as sp

import circuitsim
from circuitsim.assembly import startup
from circuitsim.solver.rowmatrix import RowMatrix

from helpers import netlist_text

FOURBAR = (netlist_text("fourbar.cir").replace(".tran 2 2m", ".tran 1e-3 1e-3")
           .replace("\n.probe ", "\n* .probe ") + ".ic JA.angle=60deg\n")
LEAST_SQUARES = startup._least_squares


def _start(monkeypatch, dense_max):
    monkeypatch.setattr(startup, "DENSE_MAX", dense_max)
    calls = []
    monkeypatch.setattr(startup, "_least_squares", lambda A, b, scale=None:
                        calls.append(type(A)) or LEAST_SQUARES(A, b, scale))
    result = circuitsim.parse(FOURBAR, "fourbar.cir").simulate()
    return result, calls


def test_both_routes_assemble_the_same_start(monkeypatch):
    dense, dense_calls = _start(monkeypatch, startup.DENSE_MAX)
    rows, row_calls = _start(monkeypatch, 0)
    assert set(dense_calls) == {np.ndarray} and set(row_calls) == {RowMatrix}
    for result in (dense, rows):
        assert result["JA.angle"][0] == pytest.approx(np.pi / 3, abs=1e-9)
        assert any("moved the bodies" in note for note in result.notes)
    compared = [name for name in dense.names if name.endswith((".x", ".y", ".q3", ".wz"))]
    assert len(compared) >= 12                          # three bodies' p, q and ω
    for name in compared:
        assert rows[name][0] == pytest.approx(dense[name][0], abs=1e-9), name


def test_row_matrix_slices_sums_and_products_are_scipys():
    rng = np.random.default_rng(5)
    A = sp.random(40, 60, density=0.15, random_state=rng, format="csr")
    M = RowMatrix(A.data, A.indices, A.indptr, A.shape)
    rows, cols = np.array([7, 0, 39, 7]), np.array([59, 3, 0, 12, 30])
    np.testing.assert_array_equal(M[rows].scipy().toarray(), A[rows].toarray())
    np.testing.assert_array_equal(M[:, cols].scipy().toarray(), A[:, cols].toarray())
    np.testing.assert_array_equal(abs(M).sum(axis=0), np.asarray(abs(A).sum(axis=0)).ravel())
    x = rng.standard_normal(60)
    np.testing.assert_allclose(M @ x, A @ x, rtol=1e-14, atol=1e-15)
    with pytest.raises(IndexError):
        M[1:3, cols]
