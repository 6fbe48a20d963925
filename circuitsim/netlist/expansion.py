"""Expansion of the top-level element lines into pending elements: every subcircuit
instance replaced by its body (element names scoped ``X1.R1``, nodes ``X1.n2``), every
line that stands for several statements (a beam written with n=) replaced by them, each
element's parameters collected as written (with the case's overrides for it) and left
unconverted: the domains of the nodes, which choose the units, are not known yet.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import numpy as np

from ..elements import element_types, lookup
from ..errors import Loc, NetlistError, did_you_mean
from . import ast, scopes
from .conversion import convert_value
from .topology import scalar_ports
from .definitions import Definitions

MAX_DEPTH = 50          # subcircuit nesting deeper than this is a recursion


@dataclass
class Pending:
    """An element instance before its values are converted (domains not yet known)."""
    type: type
    name: str
    nodes: list
    assigns: dict           # param name -> (Value, scope)
    loc: Loc
    param_locs: dict = field(default_factory=dict)
    prefix: str = ""        # instance scope: how names in its expressions map to nodes
    portmap: dict = field(default_factory=dict)
    scalar: list = field(init=False)    # (port, node) of its scalar ports, read by each check

    def __post_init__(self):
        self.scalar = scalar_ports(self)


def expand(definitions: Definitions, scope, element_overrides: dict,
           instances: dict) -> list:
    """The pending elements of the top level in global ``scope``; ``element_overrides``:
    (element, parameter) -> (Value, Loc), each of which must name an element.
    ``instances`` is filled with the subcircuit instances as they are met (name ->
    (subcircuit name, Loc of the instance line)), so that an error half-way can be
    located at the user's line."""
    state = _Expansion(definitions.subckts, scope, element_overrides, instances)
    body = [st for st in definitions.top if isinstance(st, ast.ElementStmt)]
    state.expand(body, "", {}, scope, 0)
    for (owner, name), (value, loc) in element_overrides.items():
        if (owner, name) not in state.used_overrides:
            raise NetlistError(f"no element named '{owner}' to set {owner}.{name}",
                               loc, did_you_mean(owner, state.names))
    return state.pending


class _Expansion:
    """The state of one expansion: what it has made so far."""

    def __init__(self, subckts: dict, global_scope, element_overrides: dict,
                 instances: dict):
        self.subckts = subckts
        self.global_scope = global_scope
        self.element_overrides = element_overrides
        self.instances = instances
        self.pending: list = []
        self.names: dict = {}               # element name -> Loc of its name
        self.used_overrides: set = set()
        self.chain: list = []               # the subcircuits being expanded, outermost first

    def expand(self, statements, prefix, portmap, scope, depth) -> None:
        """The element lines of ``statements`` inside the instance ``prefix``."""
        if depth > MAX_DEPTH:
            raise NetlistError(f"subcircuits nested more than {MAX_DEPTH} deep (the limit)",
                               statements[0].loc if statements else None)
        for st in statements:
            if not isinstance(st, ast.ElementStmt):
                continue
            full = prefix + st.name
            if full in self.names:
                raise NetlistError(f"duplicate element name '{full}' (first at line "
                                   f"{self.names[full].line})", st.name_loc)
            self.names[full] = st.name_loc
            etype = lookup(st.type)
            if etype is None:
                sub = self.subckts.get(st.type.lower())
                if sub is None:
                    known = list(element_types()) + [s.name for s in self.subckts.values()]
                    raise NetlistError(f"unknown element type '{st.type}'", st.loc,
                                       did_you_mean(st.type, known))
                self._instantiate(st, sub, full, prefix, portmap, scope, depth)
            elif not self._expansion(st, etype, full, prefix, portmap, scope):
                self._primitive(st, etype, full, prefix, portmap, scope)

    def _expansion(self, st, etype, full, prefix, portmap, scope) -> bool:
        """A line that stands for several statements (a beam written with n=): its
        parameters evaluated to SI, the element type's :meth:`expand` asked for the
        statements, each elaborated as if written on this line (errors point here).
        False when the line is an ordinary one."""
        if etype.expansion_param is None:
            return False
        declared = {p.name: p for p in etype.params}
        written = self._written_params(st, declared, etype, full)
        if etype.expansion_param not in written:
            return False
        values_si = {name: convert_value(declared[name], value, scope, None, None,
                                         f"{etype.keyword} {full}: {name}", prefix, portmap)
                     for name, (value, _) in written.items()}
        locs = {name: loc for name, (_, loc) in written.items()}
        for v in st.positional:
            scopes.node_name(v, prefix, portmap)          # a bad frame name is told here
        lines = etype.expand(st.name, full, [v.text for v in st.positional], values_si, locs,
                             st.loc)
        for line in lines:
            inner = prefix + line.name
            if inner in self.names:
                raise NetlistError(f"{etype.keyword} {full} makes an element or body named "
                                   f"'{inner}', which is already used (line "
                                   f"{self.names[inner].line})", st.name_loc)
            self.names[inner] = st.name_loc
            params = [ast.Assign(k, _ast_value(v, locs.get(k, st.loc)), locs.get(k, st.loc))
                      for k, v in line.params.items()]
            ports = [ast.Ident(st.loc, text, name=text) for text in line.ports]
            self._primitive(ast.ElementStmt(line.keyword, line.name, ports, params, st.loc,
                                            st.name_loc),
                            lookup(line.keyword), inner, prefix, portmap, scope)
        return True

    def _written_params(self, st, declared, etype, full, given=None) -> dict:
        """{parameter: (value, loc)} of a line: ``given`` (a positional parameter), its
        key=value parameters (one written twice is an error), then the study's or the
        caller's overrides for this element."""
        out = dict(given or {})
        for a in st.params:
            name = _param_name(a.key, declared, etype, full, a.loc)
            if name in out:
                raise NetlistError(f"parameter {name} of {full} is given twice", a.loc)
            out[name] = (a.value, a.loc)
        for name, (value, loc) in self._overrides_for(full).items():
            out[_param_name(name, declared, etype, full, loc)] = (value, loc)
        return out

    def _overrides_for(self, full: str) -> dict:
        """The case's overrides of element ``full``'s parameters (marked used)."""
        out = {}
        for (owner, name), (value, loc) in self.element_overrides.items():
            if owner == full:
                out[name] = (value, loc)
                self.used_overrides.add((owner, name))
        return out

    def _primitive(self, st, etype, full, prefix, portmap, scope) -> None:
        """A line of a built-in element type: its nodes and written parameters."""
        written, declared, named_ports = _layout(etype)
        nports = 0 if etype.is_body else len(written)
        if len(st.positional) < nports:
            raise NetlistError(
                f"{etype.keyword} {full} needs {nports} port(s) "
                f"({' '.join(p.name for p in written)}), got {len(st.positional)}",
                st.name_loc)
        if etype.is_body:       # a body: its nodes are <name>.vx ... <name>.wz
            nodes = [f"{full}.{p.name}" for p in etype.ports]
        else:
            nodes = [scopes.node_name(v, prefix, portmap) for v in st.positional[:nports]]
        given = _positional_param(st, etype, full, nodes, written, nports, declared)
        written = self._written_params(st, declared, etype, full, given)
        assigns = {name: (value, scope) for name, (value, _) in written.items()}
        locs = {name: loc for name, (_, loc) in written.items()}
        if not etype.is_body:   # ports named by a parameter (a joint's flange)
            for port in named_ports:
                value = assigns.get(port.param, (None,))[0]
                nodes.append(f"{full}.{port.name}" if value is None
                             else scopes.node_name(value, prefix, portmap))
        self.pending.append(Pending(etype, full, nodes, assigns, st.loc, locs, prefix, portmap))

    def _instantiate(self, st, sub, full, prefix, portmap, scope, depth) -> None:
        """A subcircuit instance: its body expanded in its own scope, its ports mapped to
        the caller's nodes."""
        self.instances[full] = (sub.name, st.loc)
        if len(st.positional) != len(sub.ports):
            raise NetlistError(
                f"subcircuit {sub.name} instance {full} needs {len(sub.ports)} port(s) "
                f"({' '.join(p.text for p in sub.ports)}), got {len(st.positional)}",
                st.name_loc)
        inner_map = {p.text: scopes.node_name(v, prefix, portmap)
                     for p, v in zip(sub.ports, st.positional)}
        given = {a.key: (a.value, scope, a.loc) for a in st.params}
        for name, (value, loc) in self._overrides_for(full).items():
            given[name] = (value, self.global_scope, loc)
        local = scopes.subcircuit_scope(sub, full, given, self.global_scope)
        if sub.name.lower() in self.chain:
            path = " -> ".join(self.chain[self.chain.index(sub.name.lower()):] + [sub.name])
            raise NetlistError(f"subcircuit {sub.name} instantiates itself ({path})", st.loc)
        self.chain.append(sub.name.lower())
        self.expand(sub.body, full + ".", inner_map, local, depth + 1)
        self.chain.pop()


@cache
def _layout(etype) -> tuple:
    """An element type's positional ports, {parameter name: declaration} and the ports a
    parameter names, read once per type rather than once per element line."""
    return (tuple(p for p in etype.ports if p.param is None), {p.name: p for p in etype.params},
            tuple(p for p in etype.ports if p.param is not None))


def _positional_param(st, etype, full, nodes, written, nports, declared) -> dict:
    """The value written after the ports (``R1 a b 1k``), as {parameter: (value, loc)}:
    only for a type that takes one, and not also written key=value."""
    extra = st.positional[nports:]
    if not extra:
        return {}
    keyed = {_param_name(a.key, declared, etype, full, a.loc) for a in st.params}
    if etype.is_body:
        raise NetlistError(
            f"{etype.keyword} {full} takes no ports (its nodes are "
            f"{', '.join(nodes)}); parameters are written key=value", extra[0].loc)
    if (len(extra) > 1 or etype.positional_param is None
            or etype.positional_param in keyed or isinstance(extra[0], ast.Ident)):
        raise NetlistError(
            f"{etype.keyword} {full} takes {nports} port(s) "
            f"({' '.join(p.name for p in written)}); '{extra[0].text}' is one "
            "too many (parameters are written key=value)", extra[0].loc)
    return {etype.positional_param: (extra[0], extra[0].loc)}


def _param_name(key, declared, etype, full, loc) -> str:
    """The declared parameter ``key`` names (case folded when that is unambiguous)."""
    if key in declared:
        return key
    folded = [n for n in declared if n.lower() == key.lower()]
    if len(folded) == 1:
        return folded[0]
    raise NetlistError(
        f"{etype.keyword} {full} has no parameter '{key}'; it takes "
        f"{', '.join(declared) or 'no parameters'}", loc, did_you_mean(key, declared))


def _ast_value(v, loc) -> ast.Value:
    """An SI value made by an expansion as the syntax tree of the number it is."""
    if isinstance(v, str):
        return ast.Ident(loc, v, name=v)
    if np.ndim(v):
        items = [_ast_value(c, loc) for c in v]
        return ast.Vector(loc, "(" + ", ".join(i.text for i in items) + ")", items=items)
    return ast.Number(loc, f"{float(v):.17g}", mantissa=float(v))
