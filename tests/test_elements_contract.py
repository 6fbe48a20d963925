"""Contract tests over every registered element type (new types are covered without
editing this file): analytic Jacobian blocks vs central finite differences, the declared
pattern covers every non-zero, flows balance for elements not tied to ground, every
parameter is documented with a unit, the docstring has its fixed sections."""
import numpy as np
import pytest

from circuitsim.assembly.system import prepare_params
from circuitsim.elements import element_types
from circuitsim.elements.base import ElementInstance

TYPES = sorted(element_types().items())
# every model variant of every type (e.g. the three spherical-joint models)
VARIANTS = [(k, t, v) for k, t in TYPES for v in t.sample_variants()]
VARIANT_IDS = [f"{k}-{i}" for k, t in TYPES for i, _ in enumerate(t.sample_variants())]
N = 3           # instances per check: the kernels are vectorized
FD_STEP = 1e-6


def _group(etype, seed, variant=None):
    rng = np.random.default_rng(seed)
    n_extra = len(etype.extra_vars(_instance(etype, rng, "probe", variant)))
    insts = [_instance(etype, rng, f"X{i}", variant) for i in range(N)]
    p = prepare_params(etype, insts)
    nv = etype.nvars(n_extra)
    x = rng.uniform(-1.0, 1.0, (N, nv))
    xp = rng.uniform(-1.0, 1.0, (N, nv))
    return p, x, xp, n_extra


def _instance(etype, rng, name, variant=None):
    params = etype.sample_params(np.random.default_rng(7))   # same params in a group
    params.update(variant or {})
    nodes = [f"n{i}" for i in range(len(etype.ports))]
    return ElementInstance(etype, name, nodes, params, None, {}, [None] * len(nodes))


def _fd(etype, t, x, xp, p, wrt_xp: bool):
    nrows = etype.nrows()
    out = np.zeros((x.shape[0], nrows, x.shape[1]))
    for j in range(x.shape[1]):
        d = np.zeros_like(x)
        d[:, j] = FD_STEP
        if wrt_xp:
            fp = etype.residual(t, x, xp + d, p); fm = etype.residual(t, x, xp - d, p)
        else:
            fp = etype.residual(t, x + d, xp, p); fm = etype.residual(t, x - d, xp, p)
        out[:, :, j] = (fp - fm) / (2 * FD_STEP)
    return out


@pytest.mark.parametrize("keyword,etype,variant", VARIANTS, ids=VARIANT_IDS)
@pytest.mark.parametrize("seed", [1, 2])
def test_jacobian_matches_finite_differences(keyword, etype, variant, seed):
    p, x, xp, n_extra = _group(etype, seed, variant)
    t = 0.37
    F = etype.residual(t, x, xp, p)
    assert F.shape == (N, etype.nrows())
    dfdx, dfdxp = etype.jacobian(t, x, xp, p)
    for analytic, wrt in ((dfdx, False), (dfdxp, True)):
        numeric = _fd(etype, t, x, xp, p, wrt)
        scale = 1.0 + np.abs(numeric).max()
        np.testing.assert_allclose(analytic, numeric, atol=1e-6 * scale, rtol=1e-6,
                                   err_msg=f"{keyword}: d F/d {'xp' if wrt else 'x'}")


@pytest.mark.parametrize("keyword,etype,variant", VARIANTS, ids=VARIANT_IDS)
def test_pattern_covers_nonzeros(keyword, etype, variant):
    p, x, xp, n_extra = _group(etype, 3, variant)
    mask = etype.local_pattern(n_extra, p)
    for block in (_fd(etype, 0.2, x, xp, p, False), _fd(etype, 0.2, x, xp, p, True)):
        outside = np.abs(block[:, ~mask]).max(initial=0.0)
        assert outside < 1e-8, f"{keyword}: non-zero derivative outside the declared pattern"


@pytest.mark.parametrize("keyword,etype", TYPES)
def test_differential_vars_declared(keyword, etype):
    """Every local variable whose derivative appears must be marked differential."""
    p, x, xp, n_extra = _group(etype, 4)
    numeric = _fd(etype, 0.1, x, xp, p, True)
    appears = np.abs(numeric).max(axis=(0, 1)) > 1e-10
    declared = etype.local_differential(n_extra, p)
    assert not np.any(appears & ~declared), f"{keyword}: y' appears for undeclared variables"


@pytest.mark.parametrize("keyword,etype,variant", VARIANTS, ids=VARIANT_IDS)
def test_flows_balance(keyword, etype, variant):
    """Elements not tied to ground: the flows into each port group sum to zero."""
    if len(etype.ports) < 2 or etype.implicit_ports:
        pytest.skip("element tied to ground")
    p, x, xp, _ = _group(etype, 5, variant)
    F = etype.residual(0.3, x, xp, p)
    groups, frame_rows, row = {}, [], 0
    for port in etype.ports:
        if port.frame:
            frame_rows.append(row)        # the frame's force rows: row .. row+2
        else:
            groups.setdefault(port.group, []).append(row)
        row += port.nrows
    for cols in groups.values():
        if len(cols) > 1:
            np.testing.assert_allclose(F[:, cols].sum(axis=1), 0.0, atol=1e-12)
    if len(frame_rows) > 1:               # Newton's third law between frames
        total = sum(F[:, r:r + 3] for r in frame_rows)
        np.testing.assert_allclose(total, 0.0, atol=1e-12)


@pytest.mark.parametrize("keyword,etype", TYPES)
def test_documented(keyword, etype):
    doc = etype.__doc__ or __import__(etype.__module__, fromlist=["x"]).__doc__ or ""
    module_doc = __import__(etype.__module__, fromlist=["x"]).__doc__ or ""
    text = doc + module_doc
    for section in ("Ports", "Equations", "Example"):
        assert section in text, f"{keyword}: docstring lacks a '{section}' section"
    assert etype.description
    for par in etype.params:
        assert par.description, f"{keyword}.{par.name} has no description"
        assert par.unit is None or par.unit, f"{keyword}.{par.name} has no unit"
