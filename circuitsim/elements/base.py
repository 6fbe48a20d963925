"""The element contract: what one element type declares and computes.

An element type is a class with declarations (ports, parameters, internal states,
outputs) and vectorized kernels. The assembler calls the kernels once per type (per
group) with all instances at once:

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
import re
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import ClassVar

import numpy as np

REQUIRED = object()   # default of a parameter the user must give

DOMAINS = ("electrical", "translational", "rotational", "hydraulic")
MECHANICAL = ("translational", "rotational")

# Units of potential and flow per domain (conventions.md §1), used in docs and checks.
POTENTIAL_UNIT = {"electrical": "V", "translational": "m/s", "rotational": "rad/s",
                  "hydraulic": "Pa"}
FLOW_UNIT = {"electrical": "A", "translational": "N", "rotational": "N*m",
             "hydraulic": "m^3/s"}

# Nominal magnitude of an unknown by its SI unit (1 where not listed): the solver's
# absolute tolerance is atol x nominal, as Modelica tools scale by a variable's
# ``nominal``. Pressures are ~1e5..1e7 Pa and volume flows ~1e-5..1e-3 m^3/s: one atol
# for all would ask for 1e-12 Pa (a step-size collapse at every pressure zero crossing)
# or accept 1e-9 m^3/s errors on a 1e-4 m^3/s flow.
NOMINAL = {"Pa": 1e5, "m^3/s": 1e-4}


def domain_param() -> "Param":
    """``domain=`` of the any-domain two-terminal elements (R C L V I B): fixes the
    domain of their nodes where no other element does (default: electrical), so that
    their units and the solver's nominal magnitudes are those of that domain
    (``C Cv p 0 C={V/beta} domain=hydraulic``)."""
    return Param("domain", "1", default=None, kind="choice", choices=DOMAINS,
                 description="domain of the nodes (default: that of the other elements on "
                             "them, else electrical)")


NO_LABEL, SPEED, SPIN = -1, 0, 1      # speed_labels
FRAME_VARS = ("vx", "vy", "vz", "wx", "wy", "wz", "x", "y", "z", "q0", "q1", "q2", "q3")


@dataclass(frozen=True)
class Port:
    """A terminal. ``domains`` None = any domain; ports of one element with the same
    ``group`` must be in the same domain (R's a and b; transformer a,b vs c,d). A port
    alone in its group returns its flow to ground (mass, inertia, body).

    ``frame=True``: the port is a 3D frame (a body, or ``0`` the fixed ground frame). It
    gives the element 13 local variables (FRAME_VARS: velocity, angular velocity,
    position, quaternion of the body, global components) and 13 local rows: the flows
    into the element at the body's six nodes (minus the force and torque it applies),
    then contributions to the body's 7 kinematic equations (zero except for stabilised
    position constraints, which add Gᵀμ there).

    ``param``: the port is not written among the positional ports; the parameter of that
    name (kind 'node') names its node, and without it the element owns the node
    <element>.<port> (a joint's axis flange)."""
    name: str
    domains: tuple | None = None
    group: str = "a"
    description: str = ""
    frame: bool = False
    param: str | None = None

    @property
    def nvars(self) -> int:
        return len(FRAME_VARS) if self.frame else 1

    @property
    def nrows(self) -> int:
        return len(FRAME_VARS) if self.frame else 1


def _terms(unit: str) -> tuple:
    """('N*m/s' ->) the multiplied and the divided terms of a unit: (['N', 'm'], ['s'])."""
    up, down, sign = [], [], "*"
    for token in re.split(r"([*/])", unit):
        if token in "*/":
            sign = token or sign
        elif token != "1":
            (up if sign == "*" else down).append(token)
    return up, down


@dataclass(frozen=True)
class RatioUnit:
    """The unit of a ratio of two port quantities whose domains the connection decides
    (a transformer's (p_a − p_b)/(p_c − p_d): V·s/rad for a DC motor, 1 for a gear).
    ``numerator`` and ``denominator`` are (quantity, port): quantity 'potential' or
    'flow' of that port's domain."""
    numerator: tuple
    denominator: tuple

    def resolve(self, port_domains: dict) -> str | None:
        """The SI unit for the ports' domains (port name -> domain), None while a
        domain is unknown (the value is then taken as SI, unchecked)."""
        parts = []
        for quantity, port in (self.numerator, self.denominator):
            domain = port_domains.get(port)
            if domain is None:
                return None
            parts.append((POTENTIAL_UNIT if quantity == "potential" else FLOW_UNIT)[domain])
        up, down = _terms(parts[0])
        down_of_denominator, up_of_denominator = _terms(parts[1])
        up, down = up + up_of_denominator, down + down_of_denominator
        for term in list(up):                         # cancel: rad*s/s/rad -> 1
            if term in down:
                up.remove(term)
                down.remove(term)
        text = "*".join(up) or "1"
        return text + "".join("/" + term for term in down)    # V*s/rad, m/s/Pa

    def __str__(self) -> str:
        names = {"potential": "p", "flow": "f"}
        return (f"{names[self.numerator[0]]}_{self.numerator[1]}/"
                f"{names[self.denominator[0]]}_{self.denominator[1]}")


@dataclass(frozen=True)
class Param:
    """An element parameter.

    ``unit``: always explicit: the SI unit (str, '1' = dimensionless), a dict domain ->
    SI unit for elements whose meaning depends on the domain they are connected in, one
    unit per component (list) for a vector, a RatioUnit for a ratio between two port
    groups' quantities, or None for a node name.
    ``kind``: 'real' (number or expression), 'time' (may also be a time function),
    'timevector' (``size`` components, each may be a time function),
    'choice' (an identifier from ``choices``), 'vector' (``size`` components),
    'expr' (kept as an expression tree; behavioural sources), 'node' (a node name: the
    value is the node of the port whose ``param`` it is).
    ``positive``/``nonnegative``: bounds checked at elaboration.
    """
    name: str
    unit: str | dict | list | RatioUnit | None
    default: object = REQUIRED
    description: str = ""
    kind: str = "real"
    choices: tuple = ()
    size: int = 1
    positive: bool = False
    nonnegative: bool = False

    def unit_for(self, domain: str | None) -> str | None:
        """The SI unit in ``domain`` (None if the domain is unknown and it varies)."""
        if isinstance(self.unit, str):
            return self.unit
        if isinstance(self.unit, dict) and domain in self.unit:
            return self.unit[domain]
        return None


@dataclass(frozen=True)
class State:
    """An internal unknown of the element, recorded as ``<element>.<name>``.

    ``unit`` may be a dict by domain (of the element's first port group).
    ``init_param`` names the parameter that gives its initial value.
    """
    name: str
    unit: str | dict = "1"
    differential: bool = True
    description: str = ""
    init_param: str | None = None


OUTPUT_KINDS = {
    "": "any other derived quantity",
    "energy": "a stored energy (kinetic, potential): their sum over the circuit is the "
              "energy whose conservation the run report and the study comparison check",
    "violation": "how far a constraint is from holding at position level (a joint's gap "
                 "in m, twist in rad): the run report's and the study comparison's drift",
    "force": "a reaction force component (N): compared between studies",
    "moment": "a reaction moment component (N·m)",
    "coordinate": "a joint coordinate or other geometric measure",
}


@dataclass(frozen=True)
class Output:
    """A derived quantity recorded as ``<element>.<name>`` (computed after the run).
    ``kind`` (one of OUTPUT_KINDS) tells the report and the study comparison what it
    is, so that nothing outside the element recognises an output by its name."""
    name: str
    unit: str | dict = "1"
    description: str = ""
    kind: str = ""

    def __post_init__(self):
        if self.kind not in OUTPUT_KINDS:
            raise ValueError(f"output {self.name}: unknown kind {self.kind!r}")


@dataclass(frozen=True)
class RigidBody:
    """What the symbolic equations of motion (circuitsim.symbolic) read of a body: mass
    (kg), central inertia tensor in the body frame (3, 3) (kg·m²), the initial centre
    (3,) (m) and orientation (3, 3) (local → global), gravity (3,) (m/s²) and whether the
    gyroscopic term ω × (Jω) is kept."""
    m: float
    inertia: np.ndarray
    centre: np.ndarray
    orientation: np.ndarray
    g: np.ndarray
    gyroscopic: bool


@dataclass(frozen=True)
class AxisJoint:
    """A one-axis joint as the symbolic equations of a tree read it: ``motion``
    'rotation' (about the axis), 'translation' (along it) or 'none' (welded); ``point``
    the joint point as an offset in frame 1 (from its centre of mass; global on ground)
    and ``axis`` the unit axis in frame 1, both as linked at t = 0 (the drawing, joint
    coordinate 0); ``rigid`` False for a compliant (elastic) model."""
    motion: str
    point: np.ndarray
    axis: np.ndarray
    rigid: bool


@dataclass
class ElementInstance:
    """One element after elaboration: what the assembler needs, plus where it came from."""
    type: type            # the ElementType subclass
    name: str             # full name, instance-scoped (``M1.Ra``)
    nodes: list           # port node names (``'0'`` = ground)
    params: dict          # parameter name -> converted value (float, ndarray, TimeFunction, str, tree)
    loc: object = None    # errors.Loc of the statement
    param_locs: dict = field(default_factory=dict)
    domains: list = field(default_factory=list)   # resolved domain per port (None if unknown)
    explicit: set = field(default_factory=set)    # parameters written by the user (not defaults)


class ElementType:
    """Base class of every element type. Subclasses live one per file in this package
    and are discovered by :mod:`circuitsim.elements.registry`."""

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
    # Topology roles for the structural checks (language.md §7).
    is_flow_source: ClassVar[bool] = False       # imposes its flow (I)
    is_potential_source: ClassVar[bool] = False  # imposes p_a − p_b (V)
    # Its power comes from outside the circuit (sources, behavioural sources, applied
    # forces and torques): the run report's power balance counts it as input.
    supplies_power: ClassVar[bool] = False
    # It reports a stored energy but also dissipates (a spring with damping): the power
    # balance counts its absorbed work minus the change of its energy as dissipation.
    dissipating_store: ClassVar[bool] = False
    # A body: the element owns the 13 unknowns of a frame, named <element>.<var> (B.vx ...
    # B.wz, B.x ... B.q3); it is written without ports and other elements use it as a frame.
    is_body: ClassVar[bool] = False
    # The elaborator sets the vector parameter ``g`` from ``.gravity`` (unless written).
    uses_gravity: ClassVar[bool] = False
    # How a 3D view draws it (circuitsim.output.scene): 'body' (a box from its inertia), 'joint'
    # (a marker at its point), 'slider' (a marker and a line between its two ends),
    # 'spring' (a line between its attachment points); '' not drawn.
    drawn_as: ClassVar[str] = ""
    # A parameter that makes one written line stand for several statements (a beam's
    # n=): when it is written, the elaborator asks :meth:`expand` for them.
    expansion_param: ClassVar[str | None] = None

    # --- structure -------------------------------------------------------------------
    @classmethod
    def group_key(cls, inst: ElementInstance):
        """Instances with equal keys are evaluated together (same local layout)."""
        return ()

    @classmethod
    def extra_vars(cls, inst: ElementInstance) -> list:
        """Names of further unknowns this instance reads (after ports and states)."""
        return []

    @classmethod
    def positional_ports(cls) -> tuple:
        """The ports written after the element name (not those named by a parameter)."""
        return tuple(p for p in cls.ports if p.param is None)

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
    def expand(cls, name: str, label: str, frames: list, values: dict, locs: dict,
               loc) -> list:
        """The statements one line stands for when ``expansion_param`` is written: a list
        of objects with ``keyword``, ``name`` (made from ``name``, the line's name as
        written), ``ports`` (node names as written) and ``params`` (SI values: float,
        tuple or choice). ``label``: the line's full name, for messages; ``frames``: the
        ports as written; ``values``: the parameters written, in SI; ``locs``: where
        each was written. Raise ModelError (at its loc) on bad input."""
        raise NotImplementedError

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
    def bind_determined(cls, p_init, local_determined: np.ndarray, local_rates) -> None:
        """Told, once the unknowns are classified, which local variables (N, nvars) other
        equations determine at t0 — differential unknowns, and nodes of potential
        sources — for initialisation forms that depend on it; ``local_rates(t)`` gives
        (N, nvars) the known time derivative of each local variable a potential source
        prescribes (its dV/dt), NaN for the others."""

    @classmethod
    def imposed_potential(cls, t: float, p) -> np.ndarray | None:
        """A potential source's p_a − p_b at t (N,); None for other elements."""
        return None

    @classmethod
    def initial_state(cls, inst: ElementInstance) -> dict:
        """Initial values of the element's own ports' potentials and states, by name
        (a body's pose and velocities). Default: none."""
        return {}

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
        flange that carries an inertia). A rigid joint's body velocities stay in the
        test: the solver measures their error along the constraints (``invariant_rows``)."""
        return np.zeros(cls.nvars(n_extra), dtype=bool)

    @classmethod
    def speed_labels(cls, n_extra: int = 0, group=None) -> np.ndarray:
        """Per local variable: SPEED for a velocity, SPIN for an angular velocity that
        is tested relative to the mechanism's speed (the largest such value), NO_LABEL
        otherwise. A rigid or elastic joint labels its bodies' velocities: near a
        singular configuration a velocity through zero is determined no better than
        that, and on an elastic joint it carries the joint's stiff vibration."""
        return np.full(cls.nvars(n_extra), NO_LABEL)

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

    # True: the kernels have an initialisation form, selected by ``p.init`` (False in
    # what ``prepare`` returns; ``initialisation_params`` sets it on a copy)
    has_init_form: ClassVar[bool] = False

    @classmethod
    def initialisation_params(cls, p):
        """Parameters to use while computing consistent initial values, or None to use
        ``p`` itself. Position- or velocity-level constraints switch to their
        acceleration-level (index 1) form here, so that the multipliers are determined."""
        if not cls.has_init_form:
            return None
        init = copy.copy(p)
        init.init = True
        return init

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

    # --- body protocol ------------------------------------------------------------------
    # A body is an element with ``is_body``: it owns the 13 unknowns of a frame, in
    # FRAME_VARS order (its local variables), and other elements attach to it as a frame.
    # ``project(states) -> states`` (or None: nothing to project): called by the solver
    # after each accepted step with the element's own states (N, len(states)), returns
    # them corrected (a body rescales its quaternion to unit length).
    project: ClassVar = None
    # ``sync_states(x) -> x`` (or None): the local variables (N, nvars) with the states
    # that mirror other unknowns recomputed from them (a body's ω_b = Aᵀ·ω), called once
    # the start-up has moved those.
    sync_states: ClassVar = None
    # (proxy, original) slices of local variables, or None: the proxy is tested in the
    # original's place in the local error test and takes the speed label an element
    # gives the original (a body's ω_b for its ω, which other elements label).
    body_rates: ClassVar = None

    @classmethod
    def mass_properties(cls, inst: ElementInstance) -> tuple | None:
        """A body's mass (kg) and central principal moments (3,) (kg·m²): the metric of
        the start-up's velocity correction and the joints' default damping. None for an
        element that is not a body."""
        return None

    @classmethod
    def rigid_body(cls, inst: ElementInstance) -> RigidBody | None:
        """A body's RigidBody (mass, inertia tensor, initial pose, gravity); None for an
        element that is not a body."""
        return None

    # --- joint protocol ------------------------------------------------------------------
    # A joint constrains the relative motion of its two frame ports (local variables
    # 0..25) by m constraint rows, each with its reaction state, and may offer axis
    # flanges: scalar nodes whose potential is a relative velocity, each with a joint
    # coordinate state (its integral). The start-up, the mobility analysis and the report
    # use only these hooks. Defaults: not a joint.
    is_joint: ClassVar[bool] = False

    @classmethod
    def axis_joint(cls, inst: ElementInstance) -> AxisJoint | None:
        """A linked one-axis joint (revolute, prismatic, fixed) as an AxisJoint; None for
        other elements and other joints."""
        return None

    @classmethod
    def constraint_names(cls) -> tuple:
        """Names of the reaction states of the constraint rows, in row order (J.f1 ...)."""
        return ()

    @classmethod
    def coordinate_names(cls) -> tuple:
        """Names of the joint-coordinate states, one per flange (J.angle, J.s): an ``.ic``
        on one is a position target of the start-up."""
        return ()

    @classmethod
    def coordinate_periods(cls) -> tuple:
        """Per joint coordinate, the period of its geometric value: 2π for an angle
        (measured in (−π, π], so an ``.ic`` target is met modulo a turn: 180° or 270° are
        reachable), 0 for a displacement."""
        return ()

    @classmethod
    def flange_vars(cls) -> slice:
        """Local indices of the flange nodes (they follow the joint at the start-up)."""
        return slice(0, 0)

    @classmethod
    def coordinate_vars(cls) -> slice:
        """Local indices of the joint-coordinate states."""
        return slice(0, 0)

    @classmethod
    def is_rigid(cls, p) -> bool:
        """True when the group's rows hold exactly (they count in the mobility); False
        when they are compliant (an elastic joint is a spring)."""
        return False

    @classmethod
    def is_compliant(cls, p) -> bool:
        """True when the group is a stiff spring standing in for a rigid connection (an
        elastic joint): its fast vibration is left out of the solver's error estimate."""
        return False

    @classmethod
    def position_constraints(cls, x: np.ndarray, p) -> tuple:
        """g (N, m) and ∂g/∂x (N, m, nvars): the rows at position level, whatever the
        model (the start-up moves the bodies onto g = 0)."""
        raise NotImplementedError

    @classmethod
    def velocity_rows(cls, x: np.ndarray, p) -> np.ndarray:
        """R (N, m + nflanges, nvars) of the velocity-level relations R·x = 0: the m
        constraint rows W, then each flange's w − W_f·u."""
        raise NotImplementedError

    @classmethod
    def coordinates(cls, x: np.ndarray, p) -> tuple:
        """The joint coordinates measured from the geometry (N, nflanges) and their
        gradients (N, nflanges, nvars)."""
        raise NotImplementedError

    @classmethod
    def set_active(cls, p, active: np.ndarray) -> None:
        """Switch constraint rows on (1) or off (0), active (N, m): a redundant row of a
        closed loop is switched off (its reaction is 0). In place, for the group."""
        raise NotImplementedError

    @classmethod
    def active_rows(cls, p) -> np.ndarray:
        """(N, m) True for the constraint rows that are switched on."""
        raise NotImplementedError


def branch_rows(f: np.ndarray) -> np.ndarray:
    """Rows of a two-terminal element carrying flow f from a to b: a gets +f, b gets −f."""
    return np.stack([f, -f], axis=1)


def branch_block(g: np.ndarray) -> np.ndarray:
    """(N,2,2) derivative of branch_rows(f) for f = f(p_a − p_b) with df/d(p_a − p_b) = g:
    [[g, −g], [−g, g]] (the nodal 'stamp')."""
    g = np.asarray(g, dtype=float)
    return np.stack([np.stack([g, -g], -1), np.stack([-g, g], -1)], -2)
