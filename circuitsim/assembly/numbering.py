"""Numbering of the unknowns: node potentials and element internal states.

Unknowns are numbered element by element in netlist order (each element's new nodes,
then its states) so that coupled unknowns get nearby indices. Equation i is the
equation "of" unknown i: the Kirchhoff flow balance for a node, the element's own
equation for a state.
"""
from __future__ import annotations

from ..runtime.names import GROUND


class Numbering:
    def __init__(self, elements: list):
        self.names: list = []
        self.index: dict = {}
        self.equation: list = []        # human description of equation i
        self.state_owner: dict = {}     # state name -> element instance
        for inst in elements:
            for port, node in zip(inst.type.ports, inst.nodes):
                if port.frame:
                    continue          # a frame port reads a body's unknowns
                if node != GROUND and node not in self.index:
                    self._add(node, f"flow balance of node {node}")
            for st in inst.type.states:
                name = f"{inst.name}.{st.name}"
                self._add(name, f"equation of {inst.type.keyword} {inst.name} ({st.name})")
                self.state_owner[name] = inst

    def _add(self, name: str, equation: str) -> None:
        self.index[name] = len(self.names)
        self.names.append(name)
        self.equation.append(equation)

    @property
    def n(self) -> int:
        return len(self.names)

    def of(self, name: str) -> int:
        """Global index of a node or state; the ground gets ``n`` (a zero slot)."""
        if name == GROUND:
            return self.n
        return self.index[name]
