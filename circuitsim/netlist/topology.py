"""Graph checks on the elaborated circuit: domains of nodes, floating nodes, loops of
potential sources and cut-sets of flow sources (language.md §7).

Ground ``0`` belongs to every domain and never joins two components.
"""
from __future__ import annotations

import os

from ..elements.declarations import DOMAINS, SIGNAL, THERMAL
from ..errors import NetlistError, did_you_mean
from ..runtime.graphs import UnionFind, connected_components, forest_path
from ..runtime.names import GROUND

DEFAULT_DOMAIN = "electrical"


def infer_domains(pending: list) -> dict:
    """Resolve the domain of every node from the ports that touch it.

    ``pending`` items have ``type`` (ElementType), ``name``, ``nodes``, ``loc`` and
    ``scalar`` (their scalar_ports).
    Returns node -> (domain or None, allowed set). Raises NetlistError on a mismatch,
    naming the node and the two elements that disagree.
    """
    uf = UnionFind()
    for el in pending:
        by_group: dict = {}
        for port, node in el.scalar:
            if node != GROUND:
                uf[node]
                by_group.setdefault(port.group, []).append(node)
        for nodes in by_group.values():
            uf.union(*nodes)

    allowed: dict = {}      # root -> (set of domains, the element that last narrowed it)
    narrowed_by: dict = {}  # root -> the port of that element
    for el in pending:
        chosen = _chosen_domain(el)
        for port, node in el.scalar:
            domains = port.domains or chosen
            if node == GROUND or domains is None:
                continue
            root = uf[node]
            have, who = allowed.get(root, (None, None))
            new = set(domains) if have is None else have & set(domains)
            if not new and SIGNAL in set(domains) | have:
                raise NetlistError(_signal_mismatch(node, el, port, domains, who,
                                                    narrowed_by[root], have), el.loc)
            if not new:
                raise NetlistError(
                    f"domain mismatch at node '{node}': {el.type.keyword} {el.name} "
                    f"needs it {' or '.join(domains)} (port {port.name}), but "
                    f"{who.type.keyword} {who.name}{_where(who.loc, el.loc)} makes it "
                    f"{' or '.join(sorted(have))}; " + (
                        "heat enters a thermal node through a thermal port (rtherm, heat, "
                        "docs/thermal.md)" if THERMAL in set(domains) | have else
                        "connect different domains through a transducer (transformer, "
                        "gyrator)"), el.loc)
            allowed[root] = (new, el)
            narrowed_by[root] = port

    for el in pending:            # an any-domain element (R C L V I B) is physical
        if _chosen_domain(el) is not None:
            continue
        for port, node in el.scalar:
            if (port.domains is None and node != GROUND
                    and allowed.get(uf[node], (None,))[0] == {SIGNAL}):
                who = allowed[uf[node]][1]
                raise NetlistError(
                    f"{el.type.keyword} {el.name} (port {port.name}) is connected to the "
                    f"signal node '{node}' of {who.type.keyword} {who.name}"
                    f"{_where(who.loc, el.loc)}: a signal carries a value and no flow; "
                    "drive a physical element from it with a signal source (vsig, isig)",
                    el.loc)

    result = {}
    for node in uf:
        have = allowed.get(uf[node], (None, None))[0]
        if have is None:
            # Only any-domain elements (R C L V I B): electrical, as in SPICE; their
            # parameters still accept the units of the other domains.
            domain = DEFAULT_DOMAIN
        else:
            domain = next(iter(have)) if len(have) == 1 else None
        result[node] = (domain, have)
    return result


def _signal_mismatch(node, el, port, domains, who, who_port, have) -> str:
    """The message of a signal port on a physical node (or the reverse)."""
    here = f"{el.type.keyword} {el.name} (port {port.name})"
    there = f"{who.type.keyword} {who.name} (port {who_port.name}){_where(who.loc, el.loc)}"
    if SIGNAL in domains:
        signal_side, physical_side, physical = here, there, " or ".join(sorted(have))
    else:
        signal_side, physical_side, physical = there, here, " or ".join(domains)
    return (f"signal port on a physical node '{node}': {signal_side} is a signal, "
            f"{physical_side} makes the node {physical}; read a physical quantity "
            "with a sensor (psense, fsense, sense) and drive a physical element with a "
            "signal source (vsig, isig)")


def check_signals(pending: list, domains: dict, first_use: dict) -> None:
    """Every signal node is driven by exactly one block output (its row is that
    output's equation, conventions.md §7); an output does not drive ground."""
    drivers: dict = {}
    for el in pending:
        for port, node in el.scalar:
            if port.output:
                if node == GROUND:
                    raise NetlistError(
                        f"{el.type.keyword} {el.name}: its output {port.name} is on ground 0, "
                        "which holds 0 in every domain; give it a node of its own", el.loc)
                drivers.setdefault(node, []).append(el)
    for node, (domain, _) in domains.items():
        if domain != SIGNAL:
            continue
        found = drivers.get(node, [])
        if len(found) > 1:
            first, second = found[0], found[1]
            raise NetlistError(
                f"signal node '{node}' is driven by two outputs: {first.type.keyword} "
                f"{first.name}{_where(first.loc, second.loc)} and {second.type.keyword} "
                f"{second.name}; a signal has exactly one source (add them with a sum)",
                second.loc)
        if not found:
            reader = next(el for el in pending for _, n in el.scalar if n == node)
            raise NetlistError(
                f"signal node '{node}' is read by {reader.type.keyword} {reader.name} but no "
                "block output drives it (misspelt node? give it a source: a gain, a "
                "sensor, a sigsrc ...)", first_use.get(node, reader.loc),
                did_you_mean(node, [n for n, (d, _) in domains.items()
                                    if d == SIGNAL and n != node]))


def _chosen_domain(el) -> tuple | None:
    """The ``domain=`` an any-domain element was given, if valid (an invalid one is
    reported with its location when the parameters are converted)."""
    value = el.assigns.get("domain", (None,))[0]
    text = getattr(value, "text", "").lower()
    return (text,) if text in DOMAINS else None


def _where(loc, here) -> str:
    """' at line N' in the same file as ``here``, else ' at file:N' (a library line)."""
    if loc is None:
        return ""
    if here is not None and loc.file == here.file:
        return f" at line {loc.line}"
    return f" at {os.path.basename(loc.file)}:{loc.line}"


def scalar_ports(el):
    """(port, node) pairs of an element's scalar ports (frame ports name bodies)."""
    return [(p, n) for p, n in zip(el.type.ports, el.nodes) if not p.frame]


def owned_nodes(el) -> list:
    """Nodes an element creates for itself: a body's B.vx .. B.wz, a joint's default
    axis node J.w; nothing else need be attached to them."""
    if el.type.is_body:
        return list(el.nodes)
    return [n for p, n in zip(el.type.ports, el.nodes)
            if p.param is not None and n == f"{el.name}.{p.name}"]


def _connection_graph(pending: list, skip=lambda el: False) -> tuple:
    """(nodes, edges) of the nodes joined by elements: ports of one group are joined to
    each other; a port alone in its group (mass, inertia, a body's nodes) joins its node
    to ground."""
    nodes, edges = {GROUND: None}, []
    for el in pending:
        joins = not skip(el)
        groups: dict = {}
        for port, node in el.scalar:
            nodes[node] = None
            if joins:
                groups.setdefault(port.group, []).append(node)
        for group in groups.values():
            if len(group) == 1:
                group = group + [GROUND]
            edges += zip(group, group[1:])
    return list(nodes), edges


def check_connectivity(pending: list, first_use: dict) -> None:
    """Floating nodes and flow-source cut-sets are errors (a node with one terminal is
    ``check_single_terminals``'s)."""
    for comp in connected_components(*_connection_graph(pending)):
        if GROUND not in comp:
            nodes = sorted(comp, key=lambda n: (first_use[n].line if first_use.get(n) else 0, n))
            raise NetlistError(
                f"node '{nodes[0]}' is floating: no element connects "
                f"{'it' if len(nodes) == 1 else 'the nodes ' + ', '.join(nodes)} to ground 0, "
                "so its potential is undetermined (add a path to 0, e.g. a large resistor "
                "or a mass)", first_use.get(nodes[0]))

    # without the flow sources' edges (no flow source: the graph just checked)
    no_flow = _connection_graph(pending, skip=lambda el: el.type.imposes == "flow") if any(
        el.type.imposes == "flow" for el in pending) else ([], [])
    for comp in connected_components(*no_flow):
        if GROUND not in comp:
            node = sorted(comp)[0]
            sources = sorted({el.name for el in pending if el.type.imposes == "flow"
                              and node in el.nodes} |
                             {el.name for el in pending if el.type.imposes == "flow"
                              and set(el.nodes) & comp})
            raise NetlistError(
                f"node '{node}' is connected to the rest of the circuit only through the "
                f"flow source(s) {', '.join(sources)}: its potential is undetermined and "
                "the flows cannot balance (a cut-set of flow sources)", first_use.get(node))


def check_single_terminals(pending: list, first_use: dict) -> None:
    """A node touched by one terminal only is an error (most often a misspelt node),
    unless that terminal sets or senses its potential (``_senses``). Checked after every
    other input check, so that a more specific mistake on the same lines is told first."""
    count: dict = {}
    owned = {node for el in pending for node in owned_nodes(el)}
    for el in pending:
        if el.type.is_body:
            continue              # a body's own nodes need nothing else attached
        for port, node in el.scalar:
            if port.domains == (SIGNAL,):
                continue          # signal nodes: check_signals
            if node in owned:
                continue          # a damper on a body's node: the body is the other end
            if node != GROUND:
                count.setdefault(node, []).append((el, port))
    for node, users in count.items():
        if len(users) == 1 and not _senses(*users[0]):
            el, port = users[0]
            raise NetlistError(
                f"node '{node}' is connected to one terminal only ({el.name}.{port.name}): "
                "nothing else acts on it, which is most often a misspelt node name. A node "
                "may end on one terminal only where that terminal sets or senses its "
                "potential: a potential source's (a signal an expression reads) or a "
                "joint's flange (the joint's relative motion)", first_use.get(node),
                did_you_mean(node, [n for n in count if n != node]))


def _senses(el, port) -> bool:
    """Whether a terminal sets or senses its node's potential by itself: a potential
    source's (V, or B with V=) or a joint's flange (a port named by a parameter)."""
    return (el.type.imposes == "potential" or port.param is not None
            or (el.type.keyword.lower() == "b" and "V" in el.assigns))


def check_potential_loops(pending: list) -> None:
    """Potential sources forming a loop (or shorted) over-determine the potentials."""
    joined = UnionFind()
    adjacency: dict = {}        # a forest until the first loop, which is reported
    element: dict = {}
    for el in pending:
        if el.type.imposes != "potential":
            continue
        a, b = el.nodes[0], el.nodes[1]
        if a == b:
            raise NetlistError(f"potential source {el.name} is connected to node '{a}' at "
                               "both ends (a loop of potential sources)", el.loc)
        if joined.union(a, b):
            path = forest_path(adjacency, a, b)
            names = [element[frozenset(e)].name for e in zip(path, path[1:])]
            raise NetlistError(
                f"potential sources {', '.join(names + [el.name])} form a loop "
                f"({' - '.join(path + [path[0]])}): their potentials over-determine the "
                "circuit; remove one or put a resistance in series", el.loc)
        adjacency.setdefault(a, set()).add(b)
        adjacency.setdefault(b, set()).add(a)
        element[frozenset((a, b))] = el
