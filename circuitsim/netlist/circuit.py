"""The flat circuit that elaboration produces and the assembler consumes."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import Loc


@dataclass
class Tran:
    """``.tran tstop [tstep] [rtol= atol= maxstep=]`` plus ``.options`` solver settings."""
    tstop: float | None = None
    tstep: float | None = None       # output interval; None = every accepted step
    rtol: float = 1e-6
    atol: float = 1e-9
    maxstep: float = float("inf")
    h0: float | None = None          # first step (None: estimated)
    maxorder: int = 5
    loc: Loc | None = None
    tstep_loc: Loc | None = None


@dataclass
class Node:
    name: str
    domain: str | None               # None when no element fixes it (generic elements only)
    loc: Loc | None                  # first use
    users: list = field(default_factory=list)   # (element name, port name)


@dataclass
class Circuit:
    title: str
    elements: list                   # of elements.base.ElementInstance
    nodes: dict                      # name -> Node (ground '0' excluded)
    tran: Tran
    ics: dict = field(default_factory=dict)       # name -> (value, Loc)
    probes: list = field(default_factory=list)    # (name, Loc)
    inputs: list = field(default_factory=list)    # (ELEMENT.PARAM, Loc): set from outside
    measures: list = field(default_factory=list)  # measures.Measure, in the netlist's order
    gravity: tuple | None = None
    params: dict = field(default_factory=dict)    # global parameter values (SI)
    warnings: list = field(default_factory=list)  # (message, Loc)
    source: str = ""
    instances: dict = field(default_factory=dict)  # subcircuit instance -> (subcircuit, Loc)

    def element(self, name: str):
        for e in self.elements:
            if e.name == name:
                return e
        return None
