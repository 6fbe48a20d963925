"""Small problems run without scipy's packages: the sparse matrix by rows (RowMatrix),
the dense Newton matrix factorised by LAPACK's getrf loaded on its own (DenseLU), and a
small netlist's run that imports no scipy package."""
import subprocess
import sys
import types

import numpy as np
import pytest
import scipy.sparse as sp

from helpers import NETLISTS

from circuitsim.solver import lapack, scipy_modules
from circuitsim.solver.lapack import generalized_eigenvalues, pivoted_qr
from circuitsim.solver.newton import BadValues, DenseLU
from circuitsim.solver.rowmatrix import RowMatrix


def test_row_matrix_sums_duplicates_drops_zeros_and_multiplies():
    rng = np.random.default_rng(3)
    rows, cols = rng.integers(0, 7, 60), rng.integers(0, 5, 60)
    values = rng.standard_normal(60)
    values[:2], rows[:2], cols[:2] = (1.5, -1.5), (6, 6), (4, 4)    # cancel to 0
    m = RowMatrix.from_entries(rows, cols, values, 7, 5)
    reference = sp.coo_matrix((values, (rows, cols)), shape=(7, 5)).tocsr()
    reference.sum_duplicates()
    reference.eliminate_zeros()
    assert np.allclose(m.scipy().toarray(), reference.toarray(), rtol=1e-15, atol=1e-15)
    assert m.nnz == reference.nnz
    x = rng.standard_normal(5)
    assert np.allclose(m.dot(x), reference @ x, rtol=1e-14, atol=1e-15)


def test_dense_lu_is_lapack_getrf_as_scipy_has_it():
    """The LU of a small Newton matrix is SciPy's LAPACK getrf/getrs, loaded without
    scipy.linalg's package: the same functions as the public import, and the public
    import reuses the module."""
    rng = np.random.default_rng(7)
    A = rng.standard_normal((30, 30)) * np.logspace(0, 6, 30)[:, None]
    B = rng.standard_normal((30, 3))
    import scipy.linalg.lapack as public
    lu, piv, _ = public.dgetrf(A)
    expected = public.dgetrs(lu, piv, B[:, 1])[0]
    dense = DenseLU(A, {"nlu": 0})
    assert np.array_equal(dense.solve(B[:, 1]), expected)
    assert np.array_equal(dense.solve(B)[:, 1], expected)
    assert lapack.getrf_getrs()[0] is public.dgetrf


def test_lapack_falls_back_to_the_public_import(monkeypatch):
    monkeypatch.delitem(sys.modules, lapack.WRAPPERS, raising=False)
    monkeypatch.setattr(scipy_modules.importlib.util, "find_spec", lambda name: None)
    getrf, getrs = lapack.getrf_getrs()
    A = np.array([[4.0, 1.0], [2.0, 3.0]])
    lu, piv, info = getrf(A)
    assert info == 0 and np.allclose(getrs(lu, piv, np.array([1.0, 2.0]))[0],
                                      np.linalg.solve(A, [1.0, 2.0]), rtol=1e-15)


def test_an_exactly_singular_matrix_is_refused():
    A = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(BadValues, match="singular"):
        DenseLU(A, {"nlu": 0})


def test_pivoted_qr_and_generalized_eigenvalues_are_scipys():
    """The closed loops' redundancy check and the compliant runs' light modes: the same
    LAPACK calls as scipy.linalg.qr(pivoting=True) and scipy.linalg.eigvals(a, b), bit
    for bit, on rank-deficient and singular-mass cases."""
    import scipy.linalg
    rng = np.random.default_rng(3)
    for shape in ((6, 3), (3, 6), (5, 5), (4, 1)):
        a = rng.normal(size=shape)
        a[:, -1] = a[:, 0]
        _, R, P = scipy.linalg.qr(a, mode="economic", pivoting=True)
        d, perm = pivoted_qr(a)
        np.testing.assert_array_equal(d, np.abs(np.diag(R)))
        np.testing.assert_array_equal(perm, P)
    A = rng.normal(size=(6, 6))
    M = np.diag([0.0, 0.0, 1.0, 2.0, 0.5, 3.0])            # a DAE's singular mass
    M[0, 1] = 1.0
    w, reference = generalized_eigenvalues(-A, M), scipy.linalg.eigvals(-A, M)
    np.testing.assert_array_equal(w, reference)
    assert np.isinf(w).sum() == 1                           # M has rank 5


@pytest.mark.parametrize("netlist,study", [("dcmotor", None), ("pendulum", None),
                                           ("pendulum", "soft"), ("fourbar", None)])
def test_a_small_run_imports_no_scipy(netlist, study, tmp_path):
    """The DC motor (an electrical and rotational circuit), the pendulum (a body on a
    revolute joint; elastic: its lightly damped modes are looked for) and the four-bar
    linkage (a closed loop: its redundancy checked) run without scipy: its import is
    most of a small run's start."""
    code = ("import sys, circuitsim\n"
            f"circuitsim.load({str(NETLISTS / (netlist + '.cir'))!r}).simulate("
            f"study={study!r}, t_end=0.01)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'scipy'))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, env={"CIRCUITSIM_KERNELS": "numpy", "PATH": ""},
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['scipy.linalg._flapack']"


def test_superlu_is_scipys_splu_without_its_package(monkeypatch):
    """The sparse LU above the dense size is SciPy's SuperLU loaded from its file: the
    same factors and solutions, bit for bit, as the public splu, with and without the
    tree order's options; an exactly singular matrix raises as splu does; where the
    file is not found, or its gstrf takes other arguments, the public splu is used."""
    from scipy.sparse.linalg import splu as public
    from circuitsim.solver import superlu
    rng = np.random.default_rng(11)
    A = (sp.random(200, 200, density=0.03, random_state=rng, format="csc")
         + sp.diags(rng.uniform(1.0, 2.0, 200))).tocsc()
    b = rng.standard_normal(200)
    options = dict(permc_spec="NATURAL", diag_pivot_thresh=0.1,
                   options=dict(SymmetricMode=True), panel_size=4, relax=16)
    for kwargs in ({}, options):
        ours, theirs = superlu.splu(A, **kwargs), public(A, **kwargs)
        np.testing.assert_array_equal(ours.solve(b), theirs.solve(b))
        assert ours.L.nnz == theirs.L.nnz and ours.U.nnz == theirs.U.nnz
        np.testing.assert_array_equal(ours.L.toarray(), theirs.L.toarray())
        np.testing.assert_array_equal(ours.U.toarray(), theirs.U.toarray())
        np.testing.assert_array_equal(ours.perm_c, theirs.perm_c)
    singular = sp.csc_matrix(np.array([[1.0, 2.0], [2.0, 4.0]]))
    with pytest.raises(RuntimeError):
        superlu.splu(singular)
    def older_gstrf(*args, **kwargs):           # a gstrf that takes other arguments
        raise TypeError("gstrf() got an unexpected keyword argument")
    with monkeypatch.context() as patch:
        patch.setattr(superlu.scipy_modules, "load",
                      lambda *args: types.SimpleNamespace(gstrf=older_gstrf))
        np.testing.assert_array_equal(superlu.splu(A, **options).solve(b),
                                      public(A, **options).solve(b))
    monkeypatch.delitem(sys.modules, superlu.SUPERLU, raising=False)
    monkeypatch.setattr(scipy_modules.importlib.util, "find_spec", lambda name: None)
    np.testing.assert_array_equal(superlu.splu(A).solve(b), public(A).solve(b))


def test_a_mid_size_run_imports_no_scipy_sparse(tmp_path):
    """A 16-link chain (304 unknowns: above the dense size, below SPARSE_FROM) runs with
    SuperLU's compiled module alone: its Newton matrix is a ColumnMatrix, its structure
    is matched in Python, and neither scipy.sparse (0.2-0.3 s) nor scipy.linalg is
    imported."""
    code = ("import sys, circuitsim\n"
            "sys.path.insert(0, " + repr(str(NETLISTS)) + ")\n"
            "from chain import chain_netlist\n"
            "circuitsim.parse(chain_netlist(16, t_end=0.01)).simulate()\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'scipy'))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, env={"CIRCUITSIM_KERNELS": "numpy", "PATH": ""},
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "['scipy.sparse.linalg._dsolve._superlu']"
