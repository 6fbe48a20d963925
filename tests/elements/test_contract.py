"""Contract tests over every registered element type (new types are covered without
editing this file): analytic Jacobian blocks vs central finite differences, the declared
pattern covers every non-zero, flows balance for elements not tied to ground (between
frames: forces and moments about a common point), each in the element's normal form and
in its initialisation form; bodies and joints answer their protocols' hooks in the
declared shapes; every parameter has an SI unit the units module reads; a keyword
declared twice is an error of the registry. The kernels with a compiled twin
(elements/compiled/) are held to the same checks on both paths. The docstrings:
test_docstrings.py."""
from types import ModuleType

import numpy as np
import pytest

from circuitsim.assembly.system import prepare_params
from circuitsim.elements import compiled, element_types
from circuitsim.elements.base import ElementType, initialisation_params
from circuitsim.elements.declarations import (DOMAINS, FRAME_VARS, ElementInstance, Port,
                                             RatioUnit, RigidBody)
from circuitsim.elements.protocols import (NO_LABEL, SPEED, SPIN, BodyProtocol,
                                           BoundResidualProtocol, JointProtocol)
from circuitsim.elements.registry import _modules, collect
from circuitsim.netlist.units import UnitError, parse_unit

TYPES = sorted(element_types().items())
# every model variant of every type (e.g. the three spherical-joint models)
VARIANTS = [(k, t, v) for k, t in TYPES for v in t.sample_variants()]
VARIANT_IDS = [f"{k}-{i}" for k, t in TYPES for i, _ in enumerate(t.sample_variants())]
N = 3           # instances per check: the kernels are vectorized
FD_STEP = 1e-6


def _form_cases(min_frames: int = 0) -> list:
    """(keyword, type, variant, form) of every variant in its normal form and, where the
    type has one, in its initialisation form (used while consistent initial values are
    computed); only types with at least ``min_frames`` frame ports."""
    return [pytest.param(k, t, v, form, id=f"{vid}-{form}")
            for form in ("normal", "init")
            for (k, t, v), vid in zip(VARIANTS, VARIANT_IDS)
            if (form == "normal" or t.has_init_form)
            and sum(port.frame for port in t.ports) >= min_frames]


FORMS = _form_cases()
# the numpy path for every type; the compiled path too for the types that have a twin
KERNEL_PATHS = ("numpy", "numba") if compiled.available() else ("numpy",)
KERNEL_FORMS = [pytest.param(*case.values, path, id=f"{case.id}-{path}")
                for case in FORMS for path in KERNEL_PATHS
                if path == "numpy" or case.values[0] in compiled.TWINNED]
FRAME_FORMS = _form_cases(min_frames=2)         # joints, spring3d: moments balance too


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


def _case(etype, seed, variant, form):
    """A group in ``form``: (its parameters, the normal parameters — from which the
    assembler takes the pattern, once for both forms — x, x', n_extra). The
    initialisation form is told a random (seeded) set of determined local variables, as
    the assembler tells it which ones other equations determine, some of them
    prescribed with a known rate (bind_determined)."""
    p, x, xp, n_extra = _group(etype, seed, variant)
    if form == "normal":
        return p, p, x, xp, n_extra
    p_init = initialisation_params(etype, p)
    rng = np.random.default_rng(seed + 100)
    determined = rng.random(x.shape) < 0.5
    # some determined variables are prescribed by a source, with a known rate
    rates = np.where(determined & (rng.random(x.shape) < 0.5), rng.normal(size=x.shape),
                     np.nan)
    if etype.is_joint:
        etype.bind_determined(p_init, determined, lambda t: rates)
    return p_init, p, x, xp, n_extra


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


POSE = ("x", "y", "z", "q0", "q1", "q2", "q3")


def _unchecked(etype, form, nvars):
    """Entries of dF/dx not held to the finite differences (rows, columns): in the
    initialisation form, the element's own equations (its state rows) with respect to
    the frames' positions and quaternions. Those stay fixed while consistent initial
    values are found, and the joints leave these terms out (joint.py, (5) and the
    comment in its jacobian). The frame rows' derivatives stay checked."""
    mask = np.zeros((etype.nrows(), nvars), dtype=bool)
    if form == "init":
        offsets = np.cumsum([0] + [port.nvars for port in etype.ports])
        pose = [col + FRAME_VARS.index(v) for col, port in zip(offsets, etype.ports)
                if port.frame for v in POSE]
        mask[np.ix_(range(sum(port.nrows for port in etype.ports), etype.nrows()), pose)] = True
    return mask


@pytest.mark.parametrize("keyword,etype,variant,form,kernels", KERNEL_FORMS)
@pytest.mark.parametrize("seed", [1, 2])
def test_jacobian_matches_finite_differences(keyword, etype, variant, form, seed, kernels,
                                            monkeypatch):
    monkeypatch.setenv(compiled.ENVIRONMENT, kernels)
    p, _, x, xp, n_extra = _case(etype, seed, variant, form)
    t = 0.37
    F = etype.residual(t, x, xp, p)
    assert F.shape == (N, etype.nrows())
    dfdx, dfdxp = etype.jacobian(t, x, xp, p)
    skip = _unchecked(etype, form, x.shape[1])
    for analytic, wrt in ((np.where(skip, 0.0, dfdx), False), (dfdxp, True)):
        numeric = _fd(etype, t, x, xp, p, wrt)
        if not wrt:
            numeric = np.where(skip, 0.0, numeric)
        scale = 1.0 + np.abs(numeric).max()
        np.testing.assert_allclose(analytic, numeric, atol=1e-6 * scale, rtol=1e-6,
                                   err_msg=f"{keyword} ({form}): d F/d {'xp' if wrt else 'x'}")


@pytest.mark.parametrize("keyword,etype,variant,form,kernels", KERNEL_FORMS)
def test_pattern_covers_nonzeros(keyword, etype, variant, form, kernels, monkeypatch):
    """Against the pattern of the normal parameters: the assembler's, for both forms."""
    monkeypatch.setenv(compiled.ENVIRONMENT, kernels)
    p, p_normal, x, xp, n_extra = _case(etype, 3, variant, form)
    mask = etype.local_pattern(n_extra, p_normal)
    for block in (_fd(etype, 0.2, x, xp, p, False), _fd(etype, 0.2, x, xp, p, True)):
        outside = np.abs(block[:, ~mask]).max(initial=0.0)
        assert outside < 1e-8, (f"{keyword} ({form}): non-zero derivative outside the "
                                "declared pattern")


@pytest.mark.parametrize("keyword,etype,variant,form,kernels", KERNEL_FORMS)
def test_the_bound_residual_is_the_residual(keyword, etype, variant, form, kernels,
                                            monkeypatch):
    """The assembler's bound kernel (``residual_kernel``): none on the numpy path; on the
    compiled one, once the twin has settled, residual's numbers bit for bit, and given
    wherever the type's own residual runs a twin in the run form."""
    monkeypatch.setenv(compiled.ENVIRONMENT, kernels)
    p, _, x, xp, _ = _case(etype, 6, variant, form)
    if kernels == "numba":
        p.warmup.left = 0                  # the warm-up is over: the twin's answer settles
    expected = etype.residual(0.3, x, xp, p)
    kernel = (etype.residual_kernel(p) if issubclass(etype, BoundResidualProtocol)
              else None)
    if kernels == "numpy":
        assert kernel is None
        return
    if form == "normal" and keyword in BOUND_IN_THE_RUN_FORM and not _added_terms(p):
        assert kernel is not None, f"{keyword}: no bound residual"
    if kernel is not None:
        np.testing.assert_array_equal(kernel(x, xp), expected, err_msg=keyword)


# the twinned types whose run-form residual is bound (friction reads its Fc(t) at each
# call, a beam's arguments are made from x: both run through ``residual``)
BOUND_IN_THE_RUN_FORM = tuple(k for k in compiled.TWINNED if k not in ("friction", "beam"))


def _added_terms(p) -> bool:
    """A ball joint with friction or a cone limit: terms of its own, no twin."""
    return bool(getattr(p, "friction", False) or getattr(p, "cone_on", False))


@pytest.mark.parametrize("keyword,etype", TYPES)
def test_differential_vars_declared(keyword, etype):
    """Every local variable whose derivative appears must be marked differential."""
    p, x, xp, n_extra = _group(etype, 4)
    numeric = _fd(etype, 0.1, x, xp, p, True)
    appears = np.abs(numeric).max(axis=(0, 1)) > 1e-10
    declared = etype.local_differential(n_extra, p)
    assert not np.any(appears & ~declared), f"{keyword}: y' appears for undeclared variables"


@pytest.mark.parametrize("keyword,etype,variant,form", FORMS)
def test_flows_balance(keyword, etype, variant, form):
    """Elements not tied to ground: the flows into each port group sum to zero, and the
    forces on the frames they join."""
    if len(etype.ports) < 2 or etype.is_body:
        pytest.skip("element tied to ground")
    _skip_unbalanced(variant)
    p, _, x, xp, _ = _case(etype, 5, variant, form)
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


def _skip_unbalanced(variant):
    """A beam element with mass=consistent carries inertia of its own: the forces it
    applies are not balanced, they change its momentum (tests/elements/test_beam.py checks that
    mass by the cantilever's frequencies). With stiffening=off its axial force acts
    along the reference frame's axis, not the chord: the couple that leaves goes to the
    reference frame (the ground here)."""
    variant = variant or {}
    if variant.get("mass") == "consistent" or variant.get("stiffening") == "off":
        pytest.skip("the element's forces are not balanced among its frames")


def _applies_force(etype, p) -> bool:
    """Whether the element's pattern has an entry in a frame port's force rows (V, ω)."""
    pattern = etype.local_pattern(0, p)
    offsets = np.cumsum([0] + [port.nrows for port in etype.ports])
    return any(pattern[row:row + 6].any() for row, port in zip(offsets, etype.ports)
               if port.frame)


def _frame_wrenches(etype, x, F):
    """Per frame port: that body's position (local variables x, y, z), the force rows
    (vx..vz) and the torque rows (wx..wz: about that body's centre of mass), global
    components; the rows are minus what the element applies to the body."""
    ir, iv, iw = FRAME_VARS.index("x"), FRAME_VARS.index("vx"), FRAME_VARS.index("wx")
    out, col, row = [], 0, 0
    for port in etype.ports:
        if port.frame:
            out.append((x[:, col + ir:col + ir + 3], F[:, row + iv:row + iv + 3],
                        F[:, row + iw:row + iw + 3]))
        col += port.nvars
        row += port.nrows
    return out


def wrench_imbalance(etype, x, F):
    """(|Σ F_i|, |Σ p_i × F_i + M_i|, scale) over the frame ports, max over the group:
    the resultant force and the resultant moment about the global origin of what the
    element applies to its bodies, and the size of the largest single term (moments
    p × F and M, forces) against which their rounding is judged."""
    wrenches = _frame_wrenches(etype, x, F)
    force = sum(f for _, f, _ in wrenches)
    moment = sum(np.cross(r, f) + m for r, f, m in wrenches)
    scale = max(max(np.abs(np.cross(r, f)).max(), np.abs(m).max(), np.abs(f).max())
                for r, f, m in wrenches)
    return np.abs(force).max(), np.abs(moment).max(), scale


@pytest.mark.parametrize("keyword,etype,variant,form", FRAME_FORMS)
@pytest.mark.parametrize("seed", [5, 6])
def test_wrenches_on_the_frames_balance(keyword, etype, variant, form, seed):
    """An element joining frames applies no net force and no net moment to its bodies
    (it has no inertia, and angular momentum is conserved): Σ F_i = 0 and, about the
    global origin, Σ (p_i × F_i + M_i) = 0, at random states of both bodies (positions,
    non-unit quaternions, velocities) and of the element, to 1e-12 of the largest term."""
    _skip_unbalanced(variant)
    p, _, x, xp, _ = _case(etype, seed, variant, form)
    if not _applies_force(etype, p):
        pytest.skip("the element applies no force to its frames (a drive: it adds to "
                    "their kinematic rows only)")
    force, moment, scale = wrench_imbalance(etype, x, etype.residual(0.3, x, xp, p))
    assert scale > 1e-3, f"{keyword}: no load on the frames, nothing checked"
    assert force <= 1e-12 * scale, f"{keyword} ({form}): net force {force:.3g}"
    assert moment <= 1e-12 * scale, (f"{keyword} ({form}): net moment {moment:.3g} "
                                     f"(largest term {scale:.3g})")


def test_wrench_imbalance_sees_a_moment_about_the_wrong_point():
    """The check itself, on made-up rows of two frames: f on body 2 and −f on body 1,
    both at the point a (torques (a − p_i) × (±f) about each centre of mass), balance;
    body 2's force moved to a + d leaves the moment d × f."""
    class TwoFrames(ElementType):
        ports = (Port("frame1", frame=True), Port("frame2", frame=True))
    rng = np.random.default_rng(0)
    x = rng.uniform(-1.0, 1.0, (1, TwoFrames.nvars()))
    p1, p2, a, f, d = x[:, 6:9], x[:, 19:22], *rng.uniform(-1.0, 1.0, (3, 1, 3))
    F = np.zeros((1, TwoFrames.nrows()))        # rows: minus what acts on the body
    F[:, 0:3], F[:, 3:6] = f, np.cross(a - p1, f)
    F[:, 13:16], F[:, 16:19] = -f, -np.cross(a - p2, f)
    force, moment, scale = wrench_imbalance(TwoFrames, x, F)
    assert force == 0.0 and moment < 1e-15 * scale
    F[:, 16:19] = -np.cross(a + d - p2, f)
    _, moment, _ = wrench_imbalance(TwoFrames, x, F)
    assert moment == pytest.approx(np.abs(np.cross(d, f)).max(), rel=1e-12)


def _unit_cases() -> list:
    """(keyword, parameter) of every parameter of every type."""
    return [pytest.param(k, par, id=f"{k}-{par.name}") for k, t in TYPES for par in t.params]


def _check_unit(unit: str, where: str) -> None:
    try:
        quantity = parse_unit(unit)
    except UnitError as exc:
        pytest.fail(f"{where}: unit {unit!r} is not read by circuitsim.netlist.units: {exc}")
    assert quantity.factor == 1.0, f"{where}: unit {unit!r} is not SI"


@pytest.mark.parametrize("keyword,par", _unit_cases())
def test_parameter_units_are_explicit_si_units(keyword, par):
    """A parameter's unit is a str the units module reads as an SI unit ('1':
    dimensionless, the unit of every choice), a dict domain -> such a str, for a
    vector one such str per component, or a RatioUnit of two ports' quantities that
    resolves to such a str in every pair of domains; None only for a node name."""
    where = f"{keyword}.{par.name}"
    if par.kind == "node":
        assert par.unit is None, f"{where}: a node name has no unit (None)"
        return
    assert par.unit is not None, f"{where}: no unit (None is only for kind 'node')"
    if par.kind == "choice":
        assert par.unit == "1", f"{where}: a choice is dimensionless ('1')"
    if isinstance(par.unit, dict):
        assert par.unit and set(par.unit) <= set(DOMAINS), f"{where}: domains {par.unit}"
        units = list(par.unit.values())
    elif isinstance(par.unit, (list, tuple)):
        assert par.kind in ("vector", "timevector") and len(par.unit) == par.size, \
            f"{where}: one unit per component of a vector of size {par.size}"
        units = list(par.unit)
    elif isinstance(par.unit, RatioUnit):
        ports = {p.name for p in dict(TYPES)[keyword].ports}
        assert {par.unit.numerator[1], par.unit.denominator[1]} <= ports, where
        units = [par.unit.resolve({par.unit.numerator[1]: a, par.unit.denominator[1]: b})
                 for a in DOMAINS for b in DOMAINS]
    else:
        units = [par.unit]
    for unit in units:
        assert isinstance(unit, str), f"{where}: unit {unit!r} is not a str"
        _check_unit(unit, where)


def _fake_module(name: str, **classes) -> ModuleType:
    """A module object named ``name`` defining ``classes`` (as if written in it)."""
    module = ModuleType(name)
    for attr, cls in classes.items():
        cls.__module__ = name
        setattr(module, attr, cls)
    return module


def test_a_keyword_declared_twice_is_an_error_naming_both_classes():
    """Two element classes with the same keyword, case aside, in two modules: the
    registry's collection raises, naming both classes and modules (before, the second
    silently replaced the first). Tried on fake modules, not the real registry."""
    one = type("SpringOne", (ElementType,), {"keyword": "fakespring"})
    two = type("SpringTwo", (ElementType,), {"keyword": "FakeSpring"})
    first = _fake_module("fake_one", SpringOne=one)
    second = _fake_module("fake_two", SpringTwo=two)
    with pytest.raises(RuntimeError) as info:
        collect([first, second])
    message = str(info.value)
    for part in ("SpringOne", "fake_one", "SpringTwo", "fake_two", "FakeSpring"):
        assert part in message, message
    # an alias of a class, and a class imported from another module, are no duplicates
    three = type("Other", (ElementType,), {"keyword": "fakeother"})
    third = _fake_module("fake_three", Other=three)
    third.Alias, third.SpringOne = three, one
    assert collect([first, third]) == {"fakeother": three, "fakespring": one}


def test_the_registry_is_what_collect_finds_in_the_package():
    """element_types() is collect() over the package's modules: no duplicate today."""
    assert collect(_modules()) == element_types()


def test_the_text_search_finds_each_keyword_in_its_own_module(monkeypatch):
    """lookup() imports only the declaring module, found by searching the modules'
    text: the search finds exactly the registered keywords, each in the module that
    defines it, and a lookup without the registry gives the registry's class."""
    from circuitsim.elements import registry
    types = element_types()
    assert registry._declared() == {key: [cls.__module__.rsplit(".", 1)[1]]
                                    for key, cls in types.items()}
    monkeypatch.setattr(registry, "_REGISTRY", None)
    monkeypatch.setattr(registry, "_FOUND", {})
    for key, cls in types.items():
        assert registry.lookup(key.upper()) is cls and registry.lookup(key) is cls
    assert registry.lookup("no_such_element") is None and registry.lookup("base") is None
    assert registry._REGISTRY is None                 # never needed all of them


def _with_invariant_rows() -> list:
    """The variants whose group has invariant rows (rigid joints, bodies)."""
    out = []
    for (k, t, v), vid in zip(VARIANTS, VARIANT_IDS):
        p, _, _, n_extra = _group(t, 5, v)
        if t.invariant_rows(n_extra, p).any():
            out.append(pytest.param(k, t, v, id=vid))
    return out


@pytest.mark.parametrize("keyword,etype,variant", _with_invariant_rows())
def test_invariant_residual_matches_the_residual_on_invariant_rows(keyword, etype, variant):
    """``invariant_residual`` (evaluated after every accepted step to put it back onto
    the constraints) equals the whole residual on the element's invariant rows."""
    p, x, xp, n_extra = _group(etype, 5, variant)
    rows = etype.invariant_rows(n_extra, p)
    if hasattr(p, "active"):                  # a joint: some rows switched off (a loop)
        p.active[...] = np.random.default_rng(5).random(p.active.shape) < 0.5
    full = etype.residual(0.3, x, xp, p)
    np.testing.assert_allclose(etype.invariant_residual(0.3, x, xp, p)[:, rows],
                               full[:, rows], rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("keyword,etype", TYPES)
def test_roles_come_with_their_hooks(keyword, etype):
    """``is_body`` / ``is_joint`` exactly for the types that derive from BodyProtocol /
    JointProtocol; a potential source gives ``imposed_potential``, a type with an
    ``expansion_param`` gives ``expand`` (base.ElementType's comments)."""
    assert etype.is_body == issubclass(etype, BodyProtocol), keyword
    assert etype.is_joint == issubclass(etype, JointProtocol), keyword
    assert not (etype.is_body and etype.is_joint), keyword
    assert etype.imposes in ("", "flow", "potential"), keyword
    if etype.imposes == "potential":
        assert callable(getattr(etype, "imposed_potential", None)), keyword
    if etype.expansion_param is not None:
        assert callable(getattr(etype, "expand", None)), keyword


def _length(part: slice, n: int) -> int:
    return len(range(n)[part])


@pytest.mark.parametrize("keyword,etype", [(k, t) for k, t in TYPES if t.is_body])
def test_body_protocol_shapes(keyword, etype):
    """BodyProtocol (1)-(7) on a group of random bodies."""
    inst = _instance(etype, np.random.default_rng(8), "B")
    names = [port.name for port in etype.ports] + [state.name for state in etype.states]
    assert tuple(names[:len(FRAME_VARS)]) == FRAME_VARS                      # (1)
    assert not any(port.frame for port in etype.ports)
    assert set(etype.initial_state(inst)) == set(names)                      # (2)
    m, J = etype.mass_properties(inst)                                       # (3)
    assert m > 0 and np.shape(J) == (3,)
    body = etype.rigid_body(inst)                                            # (4)
    assert isinstance(body, RigidBody) and body.inertia.shape == (3, 3)
    p, x, _, _ = _group(etype, 9)
    own = x[:, sum(port.nvars for port in etype.ports):]
    assert etype.project(own).shape == own.shape                             # (5)
    assert etype.sync_states(x).shape == x.shape                             # (6)
    if etype.body_rates is not None:                                         # (7)
        proxy, original = etype.body_rates
        assert _length(proxy, x.shape[1]) == _length(original, x.shape[1]) > 0


JOINT_VARIANTS = [pytest.param(k, t, v, id=vid) for (k, t, v), vid in zip(VARIANTS, VARIANT_IDS)
                  if t.is_joint]


@pytest.mark.parametrize("keyword,etype,variant", JOINT_VARIANTS)
def test_joint_protocol_shapes(keyword, etype, variant):
    """JointProtocol (1)-(8) on a group of random joints: m constraint rows, nf flanges,
    the start-up's targets (6b)."""
    p, x, _, n_extra = _group(etype, 10, variant)
    nvars = x.shape[1]
    m, nf = len(etype.constraint_names()), len(etype.coordinate_names())
    assert [port.frame for port in etype.ports[:2]] == [True, True]          # (1)
    assert not any(port.frame for port in etype.ports[2:])
    rigid, compliant, drifts = etype.is_rigid(p), etype.is_compliant(p), etype.positions_drift(p)
    assert not (rigid and compliant) and (rigid or not drifts)               # (3)
    g, dg = etype.position_constraints(x, p)                                 # (4)
    assert g.shape == (N, m) and dg.shape == (N, m, nvars)
    assert etype.velocity_rows(x, p).shape == (N, m + nf, nvars)             # (5)
    assert len(etype.coordinate_periods()) == nf                             # (6)
    assert _length(etype.flange_vars(), nvars) == _length(etype.coordinate_vars(), nvars) == nf
    if nf:
        values, grads = etype.coordinates(x, p)
        assert values.shape == (N, nf) and grads.shape == (N, nf, nvars)
    names = etype.target_names()                                             # (6b)
    assert names[:nf] == etype.coordinate_names()
    if names:
        wanted = np.full((N, len(names)), np.nan)
        wanted[:, 0] = 0.5
        miss, grads = etype.target_misses(x, p, wanted)
        assert miss.shape == (N, len(names)) and grads.shape == (N, len(names), nvars)
        assert np.isfinite(miss[:, 0]).all() and np.isfinite(grads[:, 0]).all()
    active = etype.active_rows(p)                                            # (7)
    assert active.shape == (N, m) and active.dtype == bool
    etype.set_active(p, np.zeros((N, m)))
    assert not etype.active_rows(p).any()
    labels = etype.speed_labels(n_extra, p)                                  # (8)
    assert labels.shape == (nvars,) and set(labels) <= {NO_LABEL, SPEED, SPIN}
