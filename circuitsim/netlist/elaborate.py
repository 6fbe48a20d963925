"""Elaboration: a netlist's definitions and one case's overrides -> a flat
:class:`Circuit`.

:func:`elaborate` is the one way in; it keeps no state between calls. Its steps, each in
its own module: the overrides split by what they set (overrides.py), the parameters
evaluated (scopes.py), the subcircuits expanded into pending elements (expansion.py),
the domains of the nodes resolved and the topology checked (topology.py, mechanism.py),
every parameter converted to SI in its declared unit (conversion.py), the directives
applied (directives.py) and the elements linked to the bodies' initial poses
(mechanism.py). Errors and warnings about an element inside a subcircuit instance are
located at the user's instance line (relocation.py).
"""
from __future__ import annotations

from ..errors import Loc, NetlistError
from ..runtime.names import GROUND
from . import (conversion, directives, expansion, functions, mechanism, overrides, scopes,
               topology)
from .circuit import Circuit, Node, Tran
from .definitions import Definitions
from .relocation import relocate, relocate_warning


def elaborate(definitions: Definitions, assigns: list = ()) -> Circuit:
    """The circuit of one case; ``assigns``: its overrides (ast.Assign: a study's lines,
    ``--set`` settings, ``.step`` values)."""
    instances: dict = {}        # filled by the expansion, so that its errors are located
    try:
        circuit = _build(definitions, assigns, instances)
    except NetlistError as exc:
        raise relocate(exc, instances) from None
    circuit.warnings = [relocate_warning(message, loc, instances)
                        for message, loc in circuit.warnings]
    return circuit


def _build(definitions: Definitions, assigns: list, instances: dict) -> Circuit:
    """The steps of :func:`elaborate`, in order (the order decides which error is told)."""
    top = definitions.top
    functions.expand_values([a.value for a in assigns], definitions.functions)
    over = overrides.split(assigns, scopes.param_names(top))
    scope = scopes.global_scope(top, over.params)
    pending = expansion.expand(definitions, scope, over.elements, instances)
    if not pending:
        raise NetlistError("the netlist has no elements", Loc(definitions.source, 1, 1))
    domains = topology.infer_domains(pending)
    topology.check_potential_loops(pending)
    mechanism.check_frames(pending)
    nodes, first_use = _nodes(pending, domains)
    topology.check_connectivity(pending, first_use)
    topology.check_signals(pending, domains, first_use)
    warnings = mechanism.unattached_bodies(pending)
    elements, value_warnings = conversion.convert(pending, domains)
    warnings += value_warnings
    circuit = Circuit(title="", elements=elements, nodes=nodes, tran=Tran(),
                      params=dict(scope), warnings=warnings, source=definitions.source,
                      instances=instances)
    directives.apply_directives(top, circuit, scope)
    for a in over.options:
        directives.apply_option(a, circuit, scope)
    mechanism.link(circuit)
    topology.check_single_terminals(pending, first_use)
    return circuit


def _nodes(pending: list, domains: dict) -> tuple[dict, dict]:
    """The circuit's nodes (ground left out), each with its domain and users, and the
    line of each node's first use."""
    first_use: dict = {}
    nodes: dict = {}
    for el in pending:
        for port, node in el.scalar:
            if node == GROUND:
                continue
            first_use.setdefault(node, el.loc)
            nodes.setdefault(node, Node(node, domains[node][0], el.loc)).users.append(
                (el.name, port.name))
    return nodes, first_use
