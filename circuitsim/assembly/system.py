"""The assembled DAE F(t, y, y') = 0 of a circuit (the solver's problem object).

Per element group (type + layout) the assembler holds arrays of global indices and
calls the type's kernels once for all instances. Residual rows are summed with one
``bincount``; the Jacobian's CSC pattern and the scatter map from every local entry to
its position in ``.data`` are built once, so each evaluation only fills ``.data``.
The ground and any flows into it go to a trash slot (index n) that is dropped.

The groups of linear element types (``ElementType.linear``: constant coefficients) are
stamped once instead, as circuit simulators do: their local Jacobians, evaluated at
build time, are scattered into two constant sparse matrices G and C, so that their part
of the residual is G·y + C·y' and their part of the Jacobian's ``.data`` the constant
vectors of G + cj·C on the same CSC pattern. Their kernels are still called for
everything else (outputs, blame, the structure).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..arrays import Probes, distinct
from ..elements import compiled
from ..elements.base import initialisation_params
from ..elements.declarations import FRAME_VARS, NO_POWER, NOMINAL, POTENTIAL_UNIT
from ..elements.protocols import (NO_LABEL, SPEED, SPIN, BoundResidualProtocol,
                                  DiscreteStateProtocol, SingularityProtocol)
from ..errors import CircuitsimError, ModelError, NetlistError, did_you_mean
from ..runtime import expressions
from ..runtime.names import GROUND
from ..runtime.timefunctions import TimeFunctionArray, TimeVectorArray
from ..solver.lazy import sparse as sp   # scipy.sparse, imported on first use
from ..solver.matching import maximum_matching
from ..solver.problem import DAEProblem
from ..solver.columnmatrix import ColumnMatrix
from ..solver.rowmatrix import RowMatrix
from .structural_index import multipliers
from .numbering import Numbering
from .ordering import tree_order

EVALUATION_ERRORS = (ArithmeticError, ValueError)   # an element saying "y is outside my domain"
RATE_PROBES = 4      # random states at which an element's outputs are checked for reading y'
RATE_STEP = 1e-6     # s (relative beyond 1 s): difference step of a prescribed potential's
#                      rate; the second-order formula's error is ~RATE_STEP² V
FUSE_LINEAR = True   # linear groups stamped into G, C once (False: called every time,
#                      as the other groups; the tests compare the two)
LINEARITY_RTOL = 1e-12   # a linear group's F against Jx·x + Jp·x' at random states:
#                          rounding only, or its declaration is wrong
LINEARITY_PROBES = 2     # random (t, x, x') at which that is checked
# ... plus this much absolute: below 2.2e-308 (C = 1e-320 F) rounding is absolute, one
# subnormal unit (4.9e-324) an operation, however small the values
LINEARITY_FLOOR = 64 * 5e-324


@dataclass
class Group:
    etype: type
    instances: list
    p: object                 # prepared parameters (arrays)
    p_init: object            # the parameters while computing initial values (see base)
    var_idx: np.ndarray       # (N, nvars) global unknown per local variable (n = ground)
    row_idx: np.ndarray       # (N, nrows) global equation per local row (n = discarded)
    mask: np.ndarray          # (nrows, nvars) local Jacobian pattern
    jac_map: np.ndarray = None   # (N * nnz_local,) position in CSC data (nnz = trash)
    jac_take: np.ndarray = None  # (nnz_local,) flat positions of mask in a local block
    kernel: object = None        # the run form's bound residual (System._bound)


def _gathered(block: np.ndarray, take: np.ndarray) -> np.ndarray:
    """(N, len(take)) entries of the local blocks (N, nrows, nvars) at flat positions."""
    return np.take(block.reshape(len(block), -1), take, axis=1)


def _is_zero_view(block: np.ndarray) -> bool:
    """A broadcast scalar zero (np.broadcast_to(0.0, shape)): an element's dF/dx' that
    it knows to be zero without storing it."""
    return block.size > 0 and not any(block.strides) and block.flat[0] == 0.0


def _check_linear(g: Group, dfdx: np.ndarray, dfdxp: np.ndarray) -> None:
    """A linear type's residual is its constant Jacobian times (x, x') (ElementType.linear
    (1)-(3)) at LINEARITY_PROBES random states and times; else its declaration is wrong."""
    name = g.etype.__name__
    if g.etype.has_init_form or g.etype.switch_names(g.p) or any(
            par.kind in TIME_KINDS for par in g.etype.params):
        raise CircuitsimError(f"internal error: element type {name} is declared linear but "
                              "has an initialisation form, a switch or a time function")
    mask = g.mask.astype(float)
    Jx, Jp = np.asarray(dfdx, float) * mask, np.asarray(dfdxp, float) * mask
    rng = Probes(0)
    for _ in range(LINEARITY_PROBES):
        x, xp = rng.uniform(-1.0, 1.0, g.var_idx.shape), rng.uniform(-1.0, 1.0, g.var_idx.shape)
        with np.errstate(all="ignore"):
            F = np.asarray(g.etype.residual(float(rng.random()), x, xp, g.p), float)
        stamped = np.einsum("nij,nj->ni", Jx, x) + np.einsum("nij,nj->ni", Jp, xp)
        scale = np.einsum("nij,nj->ni", np.abs(Jx), np.abs(x)) + np.einsum(
            "nij,nj->ni", np.abs(Jp), np.abs(xp))
        if not np.all(np.abs(F - stamped) <= LINEARITY_RTOL * scale + LINEARITY_FLOOR):
            raise CircuitsimError(f"internal error: element type {name} is declared linear, "
                                  "but its residual is not its constant Jacobian times "
                                  "(x, x')")


def _states(g: Group) -> slice:
    """The columns of a group's states in its var_idx (after its ports' unknowns)."""
    first = sum(p.nvars for p in g.etype.ports)
    return slice(first, first + len(g.etype.states))


def _no_power(inst) -> bool:
    """All of the element's known port domains are ones whose potential × flow is no
    power (a heat capacity to ground: its ground port has no domain of its own)."""
    known = [d for d in inst.domains if d]
    return bool(known) and all(d in NO_POWER for d in known)


def prepare_params(etype, instances: list):
    """The group's parameter arrays; time-varying parameters become one vectorized
    TimeFunctionArray evaluated at t by the kernels (``p.V(t)``)."""
    p = etype.prepare(instances)
    for par in etype.params:
        if par.kind == "time":
            setattr(p, par.name, TimeFunctionArray(getattr(p, par.name)))
        elif par.kind == "timevector":
            setattr(p, par.name, TimeVectorArray(getattr(p, par.name), par.size))
    return p


TIME_KINDS = ("time", "timevector")
_CONSTANT_SLOTS = np.array([0.0, 1.0])   # appended to y (System._extend)
_ZERO_SLOTS = np.zeros(2)                # appended to y'


class _InitialisationView(DAEProblem):
    """The system with every element in its initialisation form (joints at acceleration
    level): what the solver uses to find consistent initial values."""

    def __init__(self, system):
        self.system = system
        self.n, self.names = system.n, system.names
        self.id = system._differential_ids(init=True)
        self.magnitude_groups = system.magnitude_groups

    def residual(self, t, y, yp):
        return self.system.residual(t, y, yp, init=True)

    def blame(self, t, y, yp):
        return self.system.blame(t, y, yp, init=True)

    @property
    def equation_names(self):
        return self.system.equation_names

    def jacobian(self, t, y, yp, cj):
        return self.system.jacobian(t, y, yp, cj, init=True)

    def jacobian_dense(self, t, y, yp, cj):
        return self.system.jacobian_dense(t, y, yp, cj, init=True)

    def jacobian_columns(self, t, y, yp, cj):
        return self.system.jacobian_columns(t, y, yp, cj, init=True)


def _written_in_function(inst, name: str) -> str:
    """' (in the body of function f)' when the expression of ``inst`` has ``name`` from
    the body of a user function (its Loc names the function), else ''."""
    for value in inst.params.values():
        node = expressions.find_name(value, name)
        function = getattr(getattr(node, "loc", None), "function", None)
        if function:
            return f" (in the body of function {function})"
    return ""


class System(DAEProblem):
    """Implements the solver's DAEProblem contract for an elaborated circuit."""

    def __init__(self, circuit):
        self.circuit = circuit
        self.numbering = Numbering(circuit.elements)
        self.n = self.numbering.n
        self.zero, self.one = self.n, self.n + 1     # constant slots (see _extend)
        self.names = self.numbering.names
        self.groups = self._make_groups(circuit.elements)
        compiled.share(g.p for g in self.groups)       # one warm-up for the twinned groups
        self.id = self._differential_ids()
        determined = np.append(self.id, (0.0, 0.0)) != 0
        self._sources = [g for g in self.groups if g.etype.imposes == "potential"]
        for g in self._sources:
            determined[g.var_idx[:, :len(g.etype.ports)].ravel()] = True
        determined[self.n:] = False
        self._rates_at = None
        for g in self.groups:
            if g.etype.is_joint:
                g.etype.bind_determined(g.p_init, determined[g.var_idx],
                                        lambda t, idx=g.var_idx: self.prescribed_rates(t)[idx])
        self.units = self._units()
        # solver hook: atol is scaled per unknown by its nominal magnitude (NOMINAL)
        self.atol_scale = np.array([NOMINAL.get(self.units.get(name), 1.0)
                                    for name in self.names])
        self.error_mask = self._error_mask()
        self.invariant_rows = self._invariant_rows()
        self.stabilisers = self._stabilisers()                           # solver hook (18)
        # (group, the global rows of its invariant rows, their places in its residual
        # read as one row) of the groups that have some
        self._invariant_groups = [(g, g.row_idx[:, rows].ravel(),
                                   np.flatnonzero(np.tile(rows, len(g.row_idx))))
                                  for g in self.groups
                                  for rows in [g.etype.invariant_rows(
                                      g.var_idx.shape[1] - g.etype.nvars(), g.p)]
                                  if rows.any()]
        self.magnitude_groups = self._magnitude_groups()
        self.compliant = any(g.etype.is_joint and g.etype.is_compliant(g.p)  # hook (15)
                             for g in self.groups)
        self.elimination_order = tree_order(self)                        # solver hook (14)
        self.newton_mask = None         # set by classify() once the start point is known
        self.error_dimension = None     # ... and this
        self._build_pattern()
        self._stamp_linear()
        self.breakpoints = self._breakpoints(circuit.tran.tstop or 0.0)
        self.nres = 0
        self.for_initialisation = _InitialisationView(self) if any(
            g.p_init is not g.p for g in self.groups) else None
        self._projected = [(g, g.var_idx[:, _states(g)]) for g in self.groups
                           if g.etype.is_body]           # (group, its states' unknowns)
        self.project = self._project if self._projected else None   # solver hook
        # solver hook (17): the elements' switching functions, vectorised by group
        self._switched = [g for g in self.groups if g.etype.switch_names(g.p)]
        self.event_names = [f"{inst.name} {name}" for g in self._switched
                            for inst in g.instances for name in g.etype.switch_names(g.p)]
        self.event_functions = self._switching_functions if self._switched else None
        self.event_terminal = np.array([issubclass(g.etype, SingularityProtocol)   # (21)
                                        for g in self._switched for inst in g.instances
                                        for name in g.etype.switch_names(g.p)], dtype=bool) \
            if self._switched else None
        self.event_update = self._event_update if any(               # solver hook (20)
            issubclass(g.etype, DiscreteStateProtocol) for g in self._switched) else None

    # --- set-up ------------------------------------------------------------------------
    def _make_groups(self, elements) -> list:
        buckets: dict = {}
        for inst in elements:
            extra = inst.type.extra_vars(inst)
            key = (inst.type, inst.type.group_key(inst), len(extra))
            buckets.setdefault(key, []).append((inst, extra))
        groups = []
        of = self.numbering.of
        for (etype, _, n_extra), items in buckets.items():
            insts = [inst for inst, _ in items]
            var_idx, row_idx = [], []
            for inst, extra in items:
                port_vars, port_rows = [], []
                for port, node in zip(etype.ports, inst.nodes):
                    if port.frame:
                        v, r = self._frame_indices(node)
                        port_vars += v
                        port_rows += r
                    else:                       # a node: its unknown is its row
                        port_vars.append(of(node))
                        port_rows.append(port_vars[-1])
                states = [of(f"{inst.name}.{s.name}") for s in etype.states]
                extras = [self._extra_index(inst, name) for name in extra]
                var_idx.append(port_vars + states + extras)
                row_idx.append(port_rows + states)
            p = prepare_params(etype, insts)
            p_init = initialisation_params(etype, p)
            groups.append(Group(etype, insts, p, p if p_init is None else p_init,
                                np.array(var_idx, dtype=np.int64).reshape(len(insts), -1),
                                np.array(row_idx, dtype=np.int64).reshape(len(insts), -1),
                                etype.local_pattern(n_extra, p)))
        return groups

    def _frame_indices(self, node) -> tuple[list, list]:
        """Global unknowns and rows of a frame port: the body's 13 variables; the ground
        frame reads constants (zeros, and q0 = 1)."""
        if node == GROUND:
            values = [self.zero] * len(FRAME_VARS)
            values[FRAME_VARS.index("q0")] = self.one
            return values, [self.zero] * len(FRAME_VARS)
        values = [self.numbering.of(f"{node}.{name}") for name in FRAME_VARS]
        return values, values

    def _extend(self, y: np.ndarray, constants: bool = True) -> np.ndarray:
        """y with the two constant slots appended: index n holds 0 (ground), n+1 holds
        1 (the ground frame's q0; its derivative is 0)."""
        return np.concatenate((y, _CONSTANT_SLOTS if constants else _ZERO_SLOTS))

    def _extra_index(self, inst, name: str) -> int:
        if name in self.numbering.index or name == "0":
            return self.numbering.of(name)
        loc = next(iter(inst.param_locs.values()), inst.loc)
        raise NetlistError(f"{inst.type.keyword} {inst.name} refers to '{name}'"
                           f"{_written_in_function(inst, name)}, which is neither a node "
                           "nor an element variable", loc,
                           did_you_mean(name, self.numbering.index))

    def _units(self) -> dict:
        """SI unit of every node potential, element state and output (where known)."""
        units = {name: POTENTIAL_UNIT[node.domain]
                 for name, node in self.circuit.nodes.items() if node.domain}
        for inst in self.circuit.elements:
            dom = next((d for d in inst.domains if d), None)
            for item in inst.type.states + inst.type.outputs:
                u = item.unit if isinstance(item.unit, str) else item.unit.get(dom)
                if u:
                    units[f"{inst.name}.{item.name}"] = u
        return units

    def _differential_ids(self, init: bool = False) -> np.ndarray:
        """1 for the unknowns whose derivative appears, in the run's equations or (init)
        in those used while initial values are computed."""
        ids = np.zeros(self.n + 2)
        for g in self.groups:
            mask = g.etype.local_differential(g.var_idx.shape[1] - g.etype.nvars(),
                                              g.p_init if init else g.p)
            ids[g.var_idx[:, mask].ravel()] = 1.0
        return ids[:self.n]

    def _error_mask(self) -> np.ndarray:
        """Differential unknowns, less the index-2 velocities of rigid constraints."""
        mask = np.append(self.id, (0.0, 0.0))
        for g in self.groups:
            local = g.etype.constrained_vars(g.var_idx.shape[1] - g.etype.nvars(), g.p)
            if local.any():
                mask[g.var_idx[:, local].ravel()] = 0.0
        return mask[:self.n]

    def _stabilisers(self) -> np.ndarray | None:
        """The unknowns of states declared ``stabiliser`` (None if there are none)."""
        mask = np.zeros(self.n + 2, dtype=bool)
        for g in self.groups:
            start = sum(port.nvars for port in g.etype.ports)
            for k, state in enumerate(g.etype.states):
                if state.stabiliser:
                    mask[g.var_idx[:, start + k]] = True
        return mask[:self.n] if mask.any() else None

    def _invariant_rows(self) -> np.ndarray:
        rows = np.zeros(self.n + 2, dtype=bool)
        for g in self.groups:
            local = g.etype.invariant_rows(g.var_idx.shape[1] - g.etype.nvars(), g.p)
            if local.any():
                rows[g.row_idx[:, local].ravel()] = True
        return rows[:self.n]

    def _magnitude_groups(self) -> np.ndarray:
        """Solver hook: the velocities an element labels (a rigid joint's bodies) share
        one magnitude, and the angular velocities another: the mechanism's speed."""
        labels = np.full(self.n + 2, NO_LABEL)
        for g in self.groups:
            if not g.etype.is_joint:
                continue
            local = g.etype.speed_labels(g.var_idx.shape[1] - g.etype.nvars(), g.p)
            for label in (SPEED, SPIN):
                labels[g.var_idx[:, local == label].ravel()] = label
        for g in self.groups:
            if g.etype.is_body and g.etype.body_rates is not None:
                proxy, original = g.etype.body_rates
                labels[g.var_idx[:, proxy]] = labels[g.var_idx[:, original]]
        return labels[:self.n]

    def compiled_from_start(self) -> None:
        """Run the compiled kernels (where they would run at all) from the first call:
        for a case that is one of several, which share the cost of loading them."""
        compiled.share((g.p for g in self.groups), seconds=0.0)
        for g in self._called:                  # the twins' answers are made afresh
            g.kernel = None
        self._unbound = self._bindable()

    def classify(self, t0: float, y0: np.ndarray) -> None:
        """Tell the multipliers from the structure at the start point (index.py), once
        the start-up has switched redundant rows off: they leave Newton's test."""
        self.multipliers = multipliers(self, t0, y0)
        self.newton_mask = np.where(self.multipliers, 0.0, 1.0)
        self.error_dimension = self._independent_states()

    def _independent_states(self) -> int:
        """Solver hook (16): the error-tested unknowns less the relations that the
        invariants fix among them (switched-on rigid constraint rows, unit quaternions):
        13 coordinates per body describe a mechanism whose motion has a few, and the
        error's RMS is taken over those few, as in minimal coordinates."""
        tied = sum(float(np.sum(g.etype.tied_states(len(g.instances), g.p)))
                   for g in self.groups)
        tested = int(np.count_nonzero(self.error_mask))
        return max(1, tested - int(round(tied)))

    def _build_pattern(self) -> None:
        """CSC pattern of dF/dy + cj dF/dy' (plus the diagonal) and the scatter maps."""
        n = self.n
        rows, cols = [np.arange(n)], [np.arange(n)]
        for g in self.groups:
            r = np.broadcast_to(g.row_idx[:, :, None], g.row_idx.shape + (g.var_idx.shape[1],))
            c = np.broadcast_to(g.var_idx[:, None, :], r.shape)
            rows.append(r[:, g.mask].ravel())
            cols.append(c[:, g.mask].ravel())
        rows, cols = np.concatenate(rows), np.concatenate(cols)
        keep = (rows < n) & (cols < n)
        key = np.where(keep, cols * n + rows, -1)       # column-major order = CSC
        uniq, inverse = np.unique(key[keep], return_inverse=True)
        self.nnz = len(uniq)
        self._indices = (uniq % n).astype(np.int32)
        self._indptr = np.searchsorted(uniq // n, np.arange(n + 1)).astype(np.int32)
        self._dense_at = (uniq % n) * n + uniq // n      # the entries in a C-order n x n
        position = np.full(len(key), self.nnz, dtype=np.int64)   # trash slot
        position[keep] = inverse
        offset = n                                                # skip the diagonal
        for g in self.groups:
            g.jac_take = np.flatnonzero(g.mask)
            m = len(g.jac_take) * g.var_idx.shape[0]
            g.jac_map = position[offset:offset + m]
            offset += m
        self._called = [g for g in self.groups if not (FUSE_LINEAR and g.etype.linear)]
        self._unbound = self._bindable()
        self._jac_maps = np.concatenate([g.jac_map for g in self._called] + [[]]).astype(np.int64)
        self._row_maps = np.concatenate([g.row_idx.ravel() for g in self._called]
                                        + [[]]).astype(np.int64)

    def _stamp_linear(self) -> None:
        """G, C (n x n CSR, duplicates summed, the ground's row and column dropped):
        the linear groups' dF/dy and dF/dy', constant; and their entries on the CSC
        pattern's ``.data`` (G_data, C_data), so that a Jacobian adds G_data + cj·C_data."""
        n = self.n
        stamped = [g for g in self.groups if FUSE_LINEAR and g.etype.linear]
        entries = {"rows": [], "cols": [], "maps": [], "G": [], "C": []}
        for g in stamped:
            zeros = np.zeros(g.var_idx.shape)
            dfdx, dfdxp = g.etype.jacobian(0.0, zeros, zeros, g.p)
            _check_linear(g, dfdx, dfdxp)
            r = np.broadcast_to(g.row_idx[:, :, None], g.row_idx.shape + (g.var_idx.shape[1],))
            entries["rows"].append(r[:, g.mask].ravel())
            entries["cols"].append(np.broadcast_to(g.var_idx[:, None, :], r.shape)[:, g.mask].ravel())
            entries["maps"].append(g.jac_map)
            entries["G"].append(_gathered(np.asarray(dfdx, float), g.jac_take).ravel())
            entries["C"].append(_gathered(np.asarray(dfdxp, float), g.jac_take).ravel())
        rows, cols, maps, G, C = (np.concatenate(entries[k] + [[]]) for k in entries)
        keep = (rows < n) & (cols < n)
        if np.any(cols[rows < n] == self.one):
            raise CircuitsimError("internal error: a linear element reads the ground frame's "
                                  "constant q0 = 1, which G·y cannot hold")
        self.G, self.C = (RowMatrix.from_entries(rows[keep], cols[keep], v[keep], n)
                          for v in (G, C))
        self._stamped = bool(stamped)
        maps = maps.astype(np.int64)
        self._G_data, self._C_data = (np.bincount(maps, v, minlength=self.nnz + 1)[:self.nnz]
                                      for v in (G, C))

    def prescribed_rates(self, t: float) -> np.ndarray:
        """(n + 2,) the time derivative of each node potential that a potential source
        prescribes against ground (NaN elsewhere): a one-sided second-order difference
        forward in time, so that at a breakpoint it is the rate after the jump."""
        if self._rates_at is not None and self._rates_at[0] == t:
            return self._rates_at[1]
        rates = np.full(self.n + 2, np.nan)
        h = RATE_STEP * max(1.0, abs(t))
        for g in self._sources:
            values = [g.etype.imposed_potential(t + k * h, g.p) for k in range(3)]
            rate = (-3.0 * values[0] + 4.0 * values[1] - values[2]) / (2.0 * h)
            a, b = g.var_idx[:, 0], g.var_idx[:, 1]
            for node, other, sign in ((a, b, 1.0), (b, a, -1.0)):
                grounded = (other == self.zero) & (node < self.n)
                rates[node[grounded]] = sign * rate[grounded]
        self._rates_at = (t, rates)
        return rates

    def input_time_scale(self) -> float:
        """Shortest time scale of the time-varying inputs (a sine's period), inf if none."""
        scales = [getattr(g.p, par.name).time_scale() for g in self.groups
                  for par in g.etype.params if par.kind in TIME_KINDS]
        return min(scales, default=float("inf"))

    def _breakpoints(self, horizon: float) -> np.ndarray:
        points = []
        for g in self.groups:
            for par in g.etype.params:
                if par.kind in TIME_KINDS:
                    points.extend(getattr(g.p, par.name).breakpoints(horizon))
        return distinct(np.asarray(points, dtype=float))

    # --- the DAEProblem contract -----------------------------------------------------------
    def residual(self, t: float, y: np.ndarray, yp: np.ndarray, init: bool = False) -> np.ndarray:
        self.nres += 1
        ye, ype = self._extend(y), self._extend(yp, constants=False)
        bound = not init and self._bound(ye)
        parts = [(g.kernel(ye[g.var_idx], ype[g.var_idx]) if bound and g.kernel is not None
                  else g.etype.residual(t, ye[g.var_idx], ype[g.var_idx],
                                        g.p_init if init else g.p)).ravel()
                 for g in self._called]
        F = (np.bincount(self._row_maps, np.concatenate(parts), minlength=self.n + 2)[:self.n]
             if parts else np.zeros(self.n))
        if self._stamped:     # a row's stamps summed apart first: G·y holds p_a − p_b of
            F += self.G.dot(y) + self.C.dot(yp)   # nearby potentials before a small flow joins
        return F

    def invariant_residual(self, t: float, y: np.ndarray, yp: np.ndarray) -> np.ndarray:
        """Solver hook (12): F on the invariant rows (0 on the others), from the groups
        that have such rows alone; those rows are their elements' own."""
        self.nres += 1
        ye, ype = self._extend(y), self._extend(yp, constants=False)
        out = np.zeros(self.n + 2)
        bound = self._bound(ye)
        for g, dest, picked in self._invariant_groups:
            # a bound kernel gives the whole residual, which holds these rows too
            F = (g.kernel(ye[g.var_idx], ype[g.var_idx]) if bound and g.kernel is not None
                 else g.etype.invariant_residual(t, ye[g.var_idx], ype[g.var_idx], g.p))
            out[dest] = F.reshape(-1)[picked]
        return out[:self.n]

    def _bindable(self) -> list:
        """The called groups whose type gives a bound residual (``residual_kernel``)."""
        return [g for g in self._called if issubclass(g.etype, BoundResidualProtocol)]

    def _bound(self, ye: np.ndarray) -> bool:
        """Whether the groups' bound kernels run at this (extended) y: float64 alone,
        the type they take (a complex y goes to the elements' own kernels). The groups
        still without one are asked for it first (``residual_kernel``): a group's twin
        settles after its warm-up. A bound kernel spares each call the element's
        dispatch and the extension's type checks."""
        if ye.dtype != np.float64:
            return False
        if self._unbound:
            for g in self._unbound:
                g.kernel = g.etype.residual_kernel(g.p)
            self._unbound = [g for g in self._unbound if g.kernel is None]
        return True

    def jacobian(self, t: float, y: np.ndarray, yp: np.ndarray, cj: float,
                 init: bool = False) -> sp.csc_matrix:
        return self.jacobian_columns(t, y, yp, cj, init).scipy()

    def jacobian_columns(self, t: float, y: np.ndarray, yp: np.ndarray, cj: float,
                         init: bool = False) -> ColumnMatrix:
        """The Jacobian on the fixed CSC pattern (the solver's sparse matrix)."""
        return ColumnMatrix(self.jacobian_data(t, y, yp, cj, init), self._indices,
                            self._indptr, (self.n, self.n))

    def jacobian_dense(self, t: float, y: np.ndarray, yp: np.ndarray, cj: float,
                       init: bool = False) -> np.ndarray:
        """The Jacobian as a dense array (the solver's small systems: no sparse matrix)."""
        J = np.zeros(self.n * self.n)
        J[self._dense_at] = self.jacobian_data(t, y, yp, cj, init)
        return J.reshape(self.n, self.n)

    def jacobian_data(self, t, y, yp, cj, init: bool = False) -> np.ndarray:
        ye, ype = self._extend(y), self._extend(yp, constants=False)
        parts = []
        for g in self._called:
            dfdx, dfdxp = g.etype.jacobian(t, ye[g.var_idx], ype[g.var_idx],
                                           g.p_init if init else g.p)
            # gathered first: the element blocks are mostly outside the pattern (np.take:
            # 5-10x faster than indexing with g.mask); a read-only zero dF/dx' adds nothing
            part = _gathered(dfdx, g.jac_take)
            if not _is_zero_view(dfdxp):
                part += cj * _gathered(dfdxp, g.jac_take)
            parts.append(part.ravel())
        data = self._G_data + cj * self._C_data
        if parts:
            data += np.bincount(self._jac_maps, np.concatenate(parts),
                                minlength=self.nnz + 1)[:self.nnz]
        return data

    @property
    def equation_names(self) -> list:
        """Netlist description of each equation (row), for messages."""
        return self.numbering.equation

    def blame(self, t: float, y: np.ndarray, yp: np.ndarray, init: bool = False) -> list:
        """Elements whose own equations are not finite (or raise) at (t, y, y'), as
        'keyword name (file:line:col)'. Called only after a failure, to name the element."""
        ye, ype = self._extend(y), self._extend(yp, constants=False)
        out = []
        for g in self.groups:
            N = len(g.instances)
            try:
                p = g.p_init if init else g.p
                x, xp = ye[g.var_idx], ype[g.var_idx]
                parts = (g.etype.residual(t, x, xp, p),) + tuple(g.etype.jacobian(t, x, xp, p))
                ok = np.ones(N, dtype=bool)
                for part in parts:
                    ok &= np.isfinite(np.asarray(part).reshape(N, -1)).all(axis=1)
            except EVALUATION_ERRORS:
                ok = np.zeros(N, dtype=bool)
            out += [f"{inst.type.keyword} {inst.name}" + (f" at {inst.loc}" if inst.loc else "")
                    for inst, good in zip(g.instances, ok) if not good]
        return out

    def _project(self, t: float, y: np.ndarray) -> np.ndarray:
        """After each accepted step: the bodies correct their own states with their
        ``project(states)`` hook (|q| = 1)."""
        y = y.copy()
        for g, idx in self._projected:
            y[idx] = g.etype.project(y[idx])
        return y

    def sync_states(self, y: np.ndarray) -> np.ndarray:
        """y with the states that mirror other unknowns recomputed (the bodies'
        ``sync_states``: a body's ω_b from its ω and q)."""
        ye = self._extend(y)
        for g in self.groups:
            if g.etype.is_body:
                ye[g.var_idx] = g.etype.sync_states(ye[g.var_idx])
        return ye[:self.n]

    def _switching_functions(self, t: float, y: np.ndarray, yp: np.ndarray) -> np.ndarray:
        """Solver hook (17): every switching function, instance by instance in each group
        (``event_names`` order)."""
        ye, ype = self._extend(y), self._extend(yp, constants=False)
        return np.concatenate([g.etype.switching_functions(t, ye[g.var_idx], ype[g.var_idx],
                                                           g.p).ravel()
                               for g in self._switched])

    def _event_update(self, t: float, y: np.ndarray, fired) -> tuple:
        """Solver hook (20): the discrete states of the groups whose switching
        functions fired, set by their ``switch_states``; (y, the fired indices handled)."""
        y, fired = y.copy(), np.asarray(fired, dtype=np.int64)
        handled, start = [], 0
        for g in self._switched:
            shape = (len(g.instances), len(g.etype.switch_names(g.p)))
            stop = start + shape[0] * shape[1]
            mine = fired[(fired >= start) & (fired < stop)]
            if len(mine) and issubclass(g.etype, DiscreteStateProtocol):
                mask = np.zeros(shape[0] * shape[1], dtype=bool)
                mask[mine - start] = True
                x = g.etype.switch_states(t, self._extend(y)[g.var_idx], mask.reshape(shape),
                                          g.p)
                own = slice(sum(p.nvars for p in g.etype.ports),
                            sum(p.nvars for p in g.etype.ports) + len(g.etype.states))
                y[g.var_idx[:, own]] = x[:, own]
                handled += list(mine)
            start = stop
        return y, np.array(handled, dtype=np.int64)

    # --- checks and initial values ------------------------------------------------------
    def check_structure(self) -> None:
        """No perfect matching between equations and unknowns = structurally singular."""
        n = self.n
        entries = []
        for g in self.groups:
            r = np.broadcast_to(g.row_idx[:, :, None], g.row_idx.shape + (g.var_idx.shape[1],))
            c = np.broadcast_to(g.var_idx[:, None, :], r.shape)
            entries.append((r[:, g.mask].ravel(), c[:, g.mask].ravel()))
        rows = np.concatenate([e[0] for e in entries])
        cols = np.concatenate([e[1] for e in entries])
        keep = (rows < n) & (cols < n)
        graph = RowMatrix.from_entries(rows[keep], cols[keep], np.ones(keep.sum()), n)
        match = maximum_matching(graph, perm_type="column")
        unmatched_rows = np.flatnonzero(match < 0)
        if len(unmatched_rows):
            matched_cols = set(match[match >= 0].tolist())
            free = [self.names[j] for j in range(n) if j not in matched_cols]
            eqs = [self.numbering.equation[i] for i in unmatched_rows]
            raise ModelError(
                "the equations are structurally singular: no unknown is left for "
                f"{'; '.join(eqs[:5])}; and {', '.join(free[:5])} "
                f"{'is' if len(free) == 1 else 'are'} determined by no equation. "
                "Check for an element missing between these nodes, or over-constrained "
                "potentials", self._locate(free + [self.names[i] for i in unmatched_rows]))

    def _locate(self, names):
        for name in names:
            inst = self.numbering.state_owner.get(name)
            if inst is not None:
                return inst.loc
            node = self.circuit.nodes.get(name)
            if node is not None:
                return node.loc
        return None

    def initial_values(self) -> np.ndarray:
        """y0 from element start values, then ``.ic`` (hard targets)."""
        y0 = np.zeros(self.n + 2)
        relative = []
        for inst in self.circuit.elements:
            for st in inst.type.states:
                if st.init_param and inst.params.get(st.init_param) is not None:
                    y0[self.numbering.of(f"{inst.name}.{st.name}")] = inst.params[st.init_param]
            ports = {p.name: node for p, node in zip(inst.type.ports, inst.nodes)}
            start = inst.type.initial_state(inst) if inst.type.is_body else {}
            for name, value in start.items():
                target = ports.get(name, f"{inst.name}.{name}")
                y0[self.numbering.of(target)] = value
            for port, value, rel in inst.type.initial_potentials(inst):
                target = self.numbering.of(inst.nodes[port])
                if rel is None:
                    y0[target] = value
                else:
                    relative.append((target, value, self.numbering.of(inst.nodes[rel])))
        for target, value, base in relative:       # capacitor ic: p_a = p_b + ic
            if target == self.zero:
                y0[base] = -value
            else:
                y0[target] = y0[base] + value
        # a joint's measured coordinates (a ball joint's angles): start-up targets only
        targets = [f"{inst.name}.{t}" for g in self.groups if g.etype.is_joint
                   for inst in g.instances for t in g.etype.target_names()]
        measured = set(targets)
        for name, (value, loc) in self.circuit.ics.items():
            if name in self.numbering.index:
                y0[self.numbering.index[name]] = value
            elif name not in measured:
                raise NetlistError(f".ic: '{name}' is neither a node nor an element state",
                                   loc, did_you_mean(name, [*self.numbering.index, *targets]))
        return y0[:self.n]

    # --- derived outputs ----------------------------------------------------------------
    def output_names(self, kind: str | None = None, unit: str | None = None) -> list:
        """Every element output in compute_outputs() order, or those of one kind
        (base.OUTPUT_KINDS: 'energy' — their sum is the circuit's stored energy —,
        'violation', 'force', ...), optionally of one unit. The energies of elements
        wholly in a domain whose potential × flow is no power (a heat capacity's heat
        content) are not the circuit's stored energy: ``heat_names`` gives them."""
        return [f"{inst.name}.{o.name}" for g in self.groups for inst in g.instances
                for o in g.etype.outputs
                if (kind is None or o.kind == kind) and (unit is None or o.unit == unit)
                and not (kind == "energy" and _no_power(inst))]

    def heat_names(self) -> list:
        """The 'energy' outputs of elements wholly in a no-power domain (NO_POWER: a
        heat capacity's heat content C·T, J)."""
        return [f"{inst.name}.{o.name}" for g in self.groups for inst in g.instances
                for o in g.etype.outputs if o.kind == "energy" and _no_power(inst)]

    def recorded_unknowns(self, names) -> tuple:
        """(recorded, recorded_rates), each (n,) 1.0 for the unknowns whose values (y')
        the variables ``names`` are computed from (solver hook (18)): an unknown itself,
        and every unknown of an element one of whose outputs is named (an output may read
        any of its element's unknowns), also as a rate if its type's outputs read y'."""
        named = set(names)
        recorded = np.array([name in named for name in self.names], dtype=float)
        rates = np.zeros(self.n)
        for g in self.groups:
            reads_rates = None
            for k, inst in enumerate(g.instances):
                if any(f"{inst.name}.{o.name}" in named for o in g.etype.outputs):
                    idx = g.var_idx[k]
                    recorded[idx[idx < self.n]] = 1.0
                    if reads_rates is None:
                        reads_rates = self._outputs_read_rates(g)
                    if reads_rates:
                        rates[idx[idx < self.n]] = 1.0
        return recorded, rates

    def _outputs_read_rates(self, g) -> bool:
        """Whether the group's outputs change with y' (compute_outputs receives it): two
        rates at RATE_PROBES random states; an output that fails or is not a number there
        counts as reading them."""
        rng = Probes(0)
        shape = (RATE_PROBES,) + g.var_idx.shape
        t = rng.random(RATE_PROBES)
        x = rng.uniform(-1.0, 1.0, shape)
        try:
            with np.errstate(all="ignore"):
                a = g.etype.compute_outputs(t, x, rng.uniform(-1.0, 1.0, shape), g.p)
                b = g.etype.compute_outputs(t, x, rng.uniform(-1.0, 1.0, shape), g.p)
        except Exception:     # noqa: BLE001 - any failure: assume the rates are read
            return True
        return not (np.isfinite(a).all() and np.array_equal(a, b))

    def compute_outputs(self, t: np.ndarray, Y: np.ndarray, YP: np.ndarray) -> np.ndarray:
        """Element outputs at the output times: (T, n_outputs) in output_names() order."""
        T = len(t)
        Ye = np.concatenate([Y, np.zeros((T, 1)), np.ones((T, 1))], axis=1)
        YPe = np.concatenate([YP, np.zeros((T, 2))], axis=1)
        cols = []
        for g in self.groups:
            if not g.etype.outputs:
                continue
            out = g.etype.compute_outputs(t, Ye[:, g.var_idx], YPe[:, g.var_idx], g.p)
            cols.append(out.reshape(T, len(g.instances) * len(g.etype.outputs)))
        return np.concatenate(cols, axis=1) if cols else np.zeros((T, 0))
