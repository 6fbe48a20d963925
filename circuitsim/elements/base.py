"""The element contract: what one element type declares and computes.

The contract is in three parts: declarations.py (ports, parameters, states, outputs,
the instance record), this module's ElementType (what every element has: its
declarations, its kernels, its grouping and forms) and protocols.py (what a body and a
joint add: BodyProtocol, JointProtocol).

An element type is a class with declarations and vectorized kernels. The assembler
calls the kernels once per type (per group) with all instances at once:

* local variables ``x`` (shape (N, nvars)) are, in order: the potentials of the ports,
  the element's own internal states, then any extra variables it reads
  (:meth:`ElementType.extra_vars`, e.g. the nodes a behavioural source refers to);
* local rows (shape (N, nrows)) are: the flow *into the element* at each port (added to
  that node's Kirchhoff balance, conventions.md §1), then one equation per internal state.

``residual`` returns F (N, nrows); ``jacobian`` returns dF/dx and dF/dx' (N, nrows,
nvars). The solver owns cj. ``pattern`` (nrows, nvars) bool marks the entries that can
be non-zero (None: dense); the contract tests check it against finite differences.
"""
from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import ClassVar

import numpy as np

from .declarations import ElementInstance


class ElementType:
    """Base class of every element type. Subclasses live one per file in this package
    and are discovered by :mod:`circuitsim.elements.registry`. A body derives from
    BodyProtocol too, a joint from JointProtocol (protocols.py): their own hooks are
    declared there, and ``is_body`` / ``is_joint`` say which protocol a type follows."""

    keyword: ClassVar[str] = ""
    description: ClassVar[str] = ""
    ports: ClassVar[tuple] = ()
    params: ClassVar[tuple] = ()
    states: ClassVar[tuple] = ()
    outputs: ClassVar[tuple] = ()
    # Local variables whose time derivative appears in the equations (by local index);
    # decides which unknowns are differential. Indices into [ports..., states...].
    differential_vars: ClassVar[tuple] = ()
    pattern: ClassVar[np.ndarray | None] = None
    # A positional value after the ports is taken as this parameter (SPICE style: R1 a b 1k).
    positional_param: ClassVar[str | None] = None
    # What it imposes, its role in the structural checks (language.md §7): 'flow' its
    # own flow (I); 'potential' p_a − p_b (V), which the type then gives at t as
    # ``imposed_potential(t, p)`` -> (N,) (the start-up holds grounded nodes at it, the
    # assembler differences it for the prescribed rates); '' neither.
    imposes: ClassVar[str] = ""
    # It reports a stored energy but also dissipates (a spring with damping): the power
    # balance counts its absorbed work minus the change of its energy as dissipation.
    dissipating_store: ClassVar[bool] = False
    # It follows BodyProtocol (it owns the 13 unknowns of a frame: written without
    # ports, other elements use it as a frame) or JointProtocol (protocols.py).
    is_body: ClassVar[bool] = False
    is_joint: ClassVar[bool] = False
    # The elaborator sets the vector parameter ``g`` from ``.gravity`` (unless written).
    uses_gravity: ClassVar[bool] = False
    # How a 3D view draws it (circuitsim.output.scene): 'body' (a box from its inertia), 'joint'
    # (a marker at its point), 'slider' (a marker and a line between its two ends),
    # 'spring' (a line between its attachment points); '' not drawn.
    drawn_as: ClassVar[str] = ""
    # A parameter that makes one written line stand for several statements (a beam's
    # n=). When it is written, the elaborator asks the type's ``expand(name, label,
    # frames, values, locs, loc)`` for them: a list of objects with ``keyword``, ``name``
    # (made from ``name``, the line's name as written), ``ports`` (node names as
    # written) and ``params`` (SI values: float, tuple or choice). ``label``: the line's
    # full name, for messages; ``frames``: the ports as written; ``values``: the
    # parameters written, in SI; ``locs``: where each was written. It raises ModelError
    # (at its loc) on bad input.
    expansion_param: ClassVar[str | None] = None
    # True: the kernels have an initialisation form, selected by ``p.init`` (False in
    # what ``prepare`` returns; the function ``initialisation_params`` sets it on a copy)
    has_init_form: ClassVar[bool] = False
    # True: the equations are linear with constant coefficients. Contract:
    # (1) F(t, x, x') = Jx·x + Jp·x' exactly, Jx = dF/dx and Jp = dF/dx' (within
    #     ``pattern``) constant for the run: independent of t and of the state;
    # (2) hence F(t, 0, 0) = 0: no source term, no time function, no switch, no limit;
    # (3) no initialisation form (``has_init_form`` False): the same equations hold
    #     while initial values are computed.
    # The parameters may differ between cases (studies, sweeps): the assembler stamps
    # each prepared system's Jx, Jp once into constant sparse matrices G and C, and
    # calls neither kernel again for the residual or the Jacobian (G·y + C·y',
    # G + cj·C); outputs are still computed by the kernels. It checks (1) numerically
    # at build time and refuses a type that fails it.
    linear: ClassVar[bool] = False

    # --- structure -------------------------------------------------------------------
    @classmethod
    def supplies_power(cls, p) -> bool:
        """Whether the group's power comes from outside the circuit (sources, applied
        forces and torques, behavioural sources but those declared a loss): the run
        report's power balance counts it as input, not as dissipation."""
        return False

    @classmethod
    def group_key(cls, inst: ElementInstance):
        """Instances with equal keys are evaluated together (same local layout)."""
        return ()

    @classmethod
    def extra_vars(cls, inst: ElementInstance) -> list:
        """Names of further unknowns this instance reads (after ports and states)."""
        return []

    @classmethod
    def nvars(cls, n_extra: int = 0) -> int:
        return sum(p.nvars for p in cls.ports) + len(cls.states) + n_extra

    @classmethod
    def nrows(cls) -> int:
        return sum(p.nrows for p in cls.ports) + len(cls.states)

    @classmethod
    def local_pattern(cls, n_extra: int = 0, group=None) -> np.ndarray:
        if cls.pattern is not None and n_extra == 0:
            return np.asarray(cls.pattern, dtype=bool)
        return np.ones((cls.nrows(), cls.nvars(n_extra)), dtype=bool)

    @classmethod
    def local_differential(cls, n_extra: int = 0, group=None) -> np.ndarray:
        mask = np.zeros(cls.nvars(n_extra), dtype=bool)
        mask[list(cls.differential_vars)] = True
        return mask

    @classmethod
    def check(cls, inst: ElementInstance) -> None:
        """Raise ModelError for parameter combinations the element cannot accept."""

    @classmethod
    def link(cls, inst: ElementInstance, frames: dict) -> None:
        """After conversion: derive parameters from other elements. ``frames`` maps a
        frame name to the initial state of that body ({'x': .., 'q0': .., ...}, and 'A'
        its rotation matrix; ground '0' included). Joints compute their local attachment
        points here."""

    @classmethod
    def initial_potentials(cls, inst: ElementInstance) -> list:
        """Initial node potentials the element asks for: (port index, value,
        relative-to port index or None). E.g. a mass's ``v0``, a capacitor's ``ic``."""
        return []

    # --- kernels (vectorized over the N instances of a group) ---------------------------
    @classmethod
    def prepare(cls, instances: list) -> SimpleNamespace:
        """Stack the parameters of a group's instances into arrays (once, at build)."""
        p = SimpleNamespace()
        for par in cls.params:
            values = [inst.params.get(par.name) for inst in instances]
            if par.kind in ("real", "vector"):
                values = [np.nan if v is None else v for v in values]   # unset optional
                setattr(p, par.name, np.array(values, dtype=float))
            else:
                setattr(p, par.name, values)
        return p

    @classmethod
    def sample_params(cls, rng: np.random.Generator) -> dict:
        """Valid random parameters for the contract tests (override when the generic
        choice — positive reals, first choice, constant time functions — does not fit)."""
        out = {}
        for par in cls.params:
            if par.kind == "choice":
                out[par.name] = par.choices[0]
            elif par.kind == "vector":
                out[par.name] = rng.uniform(0.5, 2.0, par.size)
            elif par.kind == "timevector":
                out[par.name] = list(rng.uniform(0.5, 2.0, par.size))
            elif par.kind in ("real", "time"):
                out[par.name] = float(rng.uniform(0.5, 2.0))
        return out

    @classmethod
    def constrained_vars(cls, n_extra: int = 0, group=None) -> np.ndarray:
        """Local variables left out of the local error test: differential unknowns that a
        velocity-level constraint of this element places (the node of a rigid joint's
        flange that carries an inertia; a body's ω, whose ω_b is tested in its place). A
        rigid joint's body velocities stay in the test: the solver measures their error
        along the constraints (``invariant_rows``)."""
        return np.zeros(cls.nvars(n_extra), dtype=bool)

    @classmethod
    def invariant_rows(cls, n_extra: int = 0, group=None) -> np.ndarray:
        """Local rows that are invariants of the motion (a rigid joint's position and
        velocity constraints): the solver puts each accepted step back onto them. They
        are rows of the element's own states (no other element adds to them)."""
        return np.zeros(cls.nrows(), dtype=bool)

    @classmethod
    def invariant_residual(cls, t: float, x: np.ndarray, xp: np.ndarray, p) -> np.ndarray:
        """The residual (N, nrows) on the ``invariant_rows`` (the other rows may hold
        anything): evaluated after every accepted step, so an element whose invariant
        rows are cheaper than its whole residual computes them alone."""
        return cls.residual(t, x, xp, p)

    @classmethod
    def tied_states(cls, count: int, group=None) -> np.ndarray:
        """Per instance (``count`` of them): how many independent relations the element's
        invariants fix among the error-tested unknowns — a rigid joint's switched-on
        constraint rows, once for each level it enforces (position and velocity, or
        velocity only); a body's unit quaternion. The local error is measured over the
        tested unknowns less these, the mechanism's independent states (docs/solver.md)."""
        return np.zeros(count)

    @classmethod
    def sample_variants(cls) -> list:
        """Parameter overrides giving each structurally different variant of the type
        (joint models), so that the contract tests check every one."""
        return [{}]

    @classmethod
    def residual(cls, t: float, x: np.ndarray, xp: np.ndarray, p) -> np.ndarray:
        raise NotImplementedError

    @classmethod
    def jacobian(cls, t: float, x: np.ndarray, xp: np.ndarray, p):
        raise NotImplementedError

    @classmethod
    def compute_outputs(cls, t: np.ndarray, x: np.ndarray, xp: np.ndarray, p) -> np.ndarray:
        """Derived outputs at output times: x has shape (T, N, nvars); returns (T, N, nout)."""
        return np.zeros(x.shape[:2] + (0,))

    # --- state events ---------------------------------------------------------------------
    @classmethod
    def switch_names(cls, group) -> tuple:
        """Names of the group's switching functions: the element's law switches where one
        changes sign (a contact closing or opening). The solver ends its step at the sign
        change and restarts there (docs/solver.md, state events). () for none."""
        return ()

    @classmethod
    def switching_functions(cls, t: float, x: np.ndarray, xp: np.ndarray, p) -> np.ndarray:
        """(N, len(switch_names(p))) the switching functions at (t, x, x'), continuous in
        the state; a function that can never change sign (a limit not given) is -1."""
        return np.zeros((x.shape[0], 0))


def initialisation_params(etype: type, p):
    """The parameters of ``etype``'s initialisation form, used while consistent initial
    values are computed: a copy of ``p`` with ``init`` True (position- or velocity-level
    constraints switch to their acceleration-level, index-1 form, so that the
    multipliers are determined); None for a type without one (``has_init_form``)."""
    if not etype.has_init_form:
        return None
    init = copy.copy(p)
    init.init = True
    return init


_BRANCH_SIGNS = np.array([1.0, -1.0])
_BRANCH_STAMP = np.array([[1.0, -1.0], [-1.0, 1.0]])


def branch_rows(f: np.ndarray) -> np.ndarray:
    """Rows of a two-terminal element carrying flow f from a to b: a gets +f, b gets −f
    (one broadcast product: a third of np.stack's cost on the small groups of a run)."""
    return np.asarray(f, dtype=float)[:, None] * _BRANCH_SIGNS


def branch_block(g: np.ndarray) -> np.ndarray:
    """(N,2,2) derivative of branch_rows(f) for f = f(p_a − p_b) with df/d(p_a − p_b) = g:
    [[g, −g], [−g, g]] (the nodal 'stamp')."""
    return np.asarray(g, dtype=float)[..., None, None] * _BRANCH_STAMP
