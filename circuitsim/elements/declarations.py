"""The declarations of an element type: what it is made of, before any equation.

``Port``, ``Param``, ``State`` and ``Output`` describe an element's terminals,
parameters, internal unknowns and derived quantities; ``RatioUnit`` the unit of a ratio
between two port groups' quantities; ``ElementInstance`` one element after elaboration;
``RigidBody`` and ``AxisJoint`` what a body and a one-axis joint tell the symbolic
equations (protocols.py). The domains, their units and ``FRAME_VARS`` (the 13 variables
of a 3D frame) are shared by all of them.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

REQUIRED = object()   # default of a parameter the user must give

DOMAINS = ("electrical", "translational", "rotational", "hydraulic", "thermal")
MECHANICAL = ("translational", "rotational")
# The thermal domain: potential the absolute temperature (K, the ground node 0 is 0 K),
# flow the heat flow (W). Temperature x heat flow is no power, so its nodes and stores
# stay out of the run report's power balance (as signal nodes do); heat enters it from
# the other domains' losses through thermal ports (docs/thermal.md).
THERMAL = "thermal"
# The signal domain of control blocks (conventions.md §7): a node carries a value and
# no flow; its row is the equation of the one block output that drives it. Not among
# DOMAINS: the any-domain elements (R C L V I B) are physical and refuse it.
SIGNAL = "signal"
# Domains whose potential x flow is no power: the power balance leaves their nodes and
# the energies of elements wholly in them out (a heat capacity's C·T is heat, not work).
NO_POWER = (SIGNAL, THERMAL)

# Units of potential and flow per domain (conventions.md §1), used in docs and checks.
POTENTIAL_UNIT = {"electrical": "V", "translational": "m/s", "rotational": "rad/s",
                  "hydraulic": "Pa", THERMAL: "K", SIGNAL: "1"}
FLOW_UNIT = {"electrical": "A", "translational": "N", "rotational": "N*m",
             "hydraulic": "m^3/s", THERMAL: "W", SIGNAL: "1"}

# Nominal magnitude of an unknown by its SI unit (1 where not listed): the solver's
# absolute tolerance is atol x nominal, as Modelica tools scale by a variable's
# ``nominal``. Pressures are ~1e5..1e7 Pa and volume flows ~1e-5..1e-3 m^3/s: one atol
# for all would ask for 1e-12 Pa (a step-size collapse at every pressure zero crossing)
# or accept 1e-9 m^3/s errors on a 1e-4 m^3/s flow. Volumes (a gas spring's gas, the oil
# an oilchamber took in) are ~1e-6..1e-2 m^3.
# Temperatures (~300 K) and heat flows (~1..1e3 W) keep nominal 1: atol 1e-6 K is
# already far below any thermal measurement.
NOMINAL = {"Pa": 1e5, "m^3/s": 1e-4, "m^3": 1e-4}


def domain_param() -> "Param":
    """``domain=`` of the any-domain two-terminal elements (R C L V I B): fixes the
    domain of their nodes where no other element does (default: electrical), so that
    their units and the solver's nominal magnitudes are those of that domain
    (``C Cv p 0 C={V/beta} domain=hydraulic``)."""
    return Param("domain", "1", default=None, kind="choice", choices=DOMAINS,
                 description="domain of the nodes (default: that of the other elements on "
                             "them, else electrical)")


# The 13 variables of a 3D frame (a body, or the ground), global components: velocity,
# angular velocity, position of the centre of mass, orientation quaternion.
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
    <element>.<port> (a joint's axis flange).

    ``output=True`` (signal ports only): the port drives its signal node, whose row is
    then the element's equation for that value (conventions.md §7); a signal port
    without it only reads the node."""
    name: str
    domains: tuple | None = None
    group: str = "a"
    description: str = ""
    frame: bool = False
    param: str | None = None
    output: bool = False

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
    'choice' (an identifier from ``choices``), 'vector' (``size`` components; 0: any number),
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
    ``stabiliser``: 0 in the exact solution, there only to keep a constraint's drift out
    (a position-model joint's multipliers): no output reads it, and whether an output
    point fits is not judged by it.
    """
    name: str
    unit: str | dict = "1"
    differential: bool = True
    description: str = ""
    init_param: str | None = None
    stabiliser: bool = False


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
