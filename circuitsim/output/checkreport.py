"""What ``circuitsim check`` / ``Netlist.check()`` finds without running: the counts of
unknowns and equations (per domain and per subcircuit instance), the mobility of the
mechanism, what the start-up would change, and the warnings."""
from __future__ import annotations

from dataclasses import dataclass, field

from .htmlview import check_html

MAX_LISTED = 10          # subcircuit instances listed by lines(); the rest are counted


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


@dataclass
class DomainCount:
    nodes: int = 0        # node potentials (and as many flow balances)
    states: int = 0       # element unknowns (and as many element equations)


@dataclass
class SubcircuitCount:
    """What one subcircuit instance adds: its internal nodes' potentials and its
    elements' own unknowns, with as many equations (their flow balances and the
    elements' own equations) — equal by construction; the ports' flows enter the
    parent's node balances."""
    name: str
    subckt: str
    loc: object
    elements: int
    nodes: int
    states: int

    @property
    def unknowns(self) -> int:
        return self.nodes + self.states

    @property
    def equations(self) -> int:
        return self.nodes + self.states


@dataclass
class CheckReport:
    """What ``Netlist.check()`` found: the counts of elements, unknowns (``differential``
    and ``algebraic``) and equations, per domain (``domains``) and per subcircuit
    instance (``subcircuits``), the ``mobility`` of the mechanism (None without bodies),
    the start-up's ``notes`` and the ``warnings``. ``str(report)`` is what
    ``circuitsim check`` prints."""
    source: str
    title: str
    elements: int
    unknowns: int
    differential: int
    nnz: int                                  # non-zeros of the Newton matrix pattern
    domains: dict = field(default_factory=dict)          # domain -> DomainCount
    subcircuits: list = field(default_factory=list)      # [SubcircuitCount]
    mobility: object = None                   # assembly.mobility.Mobility, or None
    notes: list = field(default_factory=list)            # what the start-up changed
    warnings: list = field(default_factory=list)         # (message, location text)

    @property
    def equations(self) -> int:
        """One equation per unknown, in the nodal method."""
        return self.unknowns

    @property
    def algebraic(self) -> int:
        return self.unknowns - self.differential

    def lines(self) -> list:
        """The summary ``circuitsim check`` prints (notes and warnings apart)."""
        out = [f"{self.source}: {self.title or '(no title)'}",
               f"  elements: {self.elements}",
               f"  unknowns: {self.unknowns} ({self.differential} differential, "
               f"{self.algebraic} algebraic); equations: {self.equations}; "
               f"Jacobian non-zeros: {self.nnz}"]
        for dom, counts in sorted(self.domains.items()):
            out.append(f"  {dom:>13}: {counts.nodes} node potentials (and as many flow "
                       f"balances), {counts.states} element unknowns (and as many element "
                       "equations)")
        if self.subcircuits:
            out.append(f"  subcircuit instances: {len(self.subcircuits)} (unknowns = "
                       "equations in each: internal nodes + element unknowns)")
            for sub in self.subcircuits[:MAX_LISTED]:
                out.append(f"    {sub.name} ({sub.subckt}, line {sub.loc.line}): "
                           f"{_count(sub.elements, 'element')}, "
                           f"{_count(sub.nodes, 'internal node')} + "
                           f"{_count(sub.states, 'element unknown')} = "
                           f"{_count(sub.unknowns, 'unknown')}, "
                           f"{_count(sub.equations, 'equation')}")
            if len(self.subcircuits) > MAX_LISTED:
                out.append(f"    ... and {len(self.subcircuits) - MAX_LISTED} more")
        if self.mobility is not None:
            out += ["  " + line for line in self.mobility.summary()]
        return out

    def __str__(self) -> str:
        return "\n".join(self.lines())

    def _repr_html_(self) -> str:
        """A notebook's view: the summary, notes and warnings."""
        return check_html(self)

    def __repr__(self) -> str:
        dof = f", {self.mobility.dof} degrees of freedom" if self.mobility else ""
        return (f"<CheckReport {self.source}: {self.unknowns} unknowns, "
                f"{self.elements} elements{dof}, {len(self.warnings)} warnings>")
