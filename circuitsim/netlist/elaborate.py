"""Elaboration: statements -> flat :class:`Circuit`.

Evaluates ``.param``, expands subcircuit instances (names scoped ``X1.R1``, nodes
``X1.n2``), applies study / command-line overrides, resolves node domains, converts
every parameter value to SI in its declared unit and runs the topology checks.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import numpy as np

from ..elements import element_types, lookup
from ..elements.declarations import FRAME_VARS, REQUIRED, ElementInstance, RatioUnit
from ..elements.frames import with_rotation
from ..errors import Loc, ModelError, NetlistError, did_you_mean
from ..runtime import expressions
from ..runtime.names import GROUND
from . import ast, topology, values
from .circuit import Circuit, Node, Tran

GROUND_NAMES = ("0", "gnd")
RESERVED_NODE_NAMES = ("time",)   # the time column of the results, and time in expressions
MAX_DEPTH = 50          # subcircuit nesting deeper than this is a recursion
MAX_ELEMENTS = 1_000_000   # elements after expansion (CIRCUITSIM_MAX_ELEMENTS, --max-elements)
KNOWN_DIRECTIVES = ("title", "param", "subckt", "ends", "include", "lib", "gravity", "tran",
                    "options", "ic", "probe", "study", "step", "end")
OPTIONS = {   # .options key -> (Tran attribute, unit)
    "rtol": ("rtol", None), "atol": ("atol", None), "maxstep": ("maxstep", "s"),
    "h0": ("h0", "s"), "maxorder": ("maxorder", None),
}


@dataclass
class _Pending:
    """An element instance before its values are converted (domains not yet known)."""
    type: type
    name: str
    nodes: list
    assigns: dict           # param name -> (Value, scope)
    loc: Loc
    param_locs: dict = field(default_factory=dict)
    prefix: str = ""        # instance scope: how names in its expressions map to nodes
    portmap: dict = field(default_factory=dict)


def split_override(key: str) -> tuple[str | None, str]:
    """``J1.model`` -> ('J1', 'model'); ``k`` -> (None, 'k')."""
    if "." in key:
        owner, name = key.rsplit(".", 1)
        return owner, name
    return None, key


def max_elements() -> int:
    """The cap on elaborated elements: CIRCUITSIM_MAX_ELEMENTS, else MAX_ELEMENTS."""
    text = os.environ.get("CIRCUITSIM_MAX_ELEMENTS", "")
    try:
        return int(float(text)) if text else MAX_ELEMENTS
    except ValueError:
        raise NetlistError(f"CIRCUITSIM_MAX_ELEMENTS must be a number, got '{text}'") from None


class Elaborator:
    def __init__(self, statements: list, source: str = "", max_elements: int | None = None):
        self.source = source
        self.max_elements = max_elements
        self.subckts: dict = {}
        self.top: list = []
        for st in statements:
            self._collect(st, top=True)
        self._check_size()

    @staticmethod
    def _check_ports(sub) -> None:
        """A port named twice would join two of the caller's nodes without a word; the
        ground is not a port (0 is the ground everywhere, inside subcircuits too)."""
        seen = {}
        for port in sub.ports:
            if port.text.lower() in GROUND_NAMES:
                raise NetlistError(f".subckt {sub.name}: the ground '{port.text}' cannot be a "
                                   "port (inside a subcircuit 0 is already the ground)",
                                   port.loc)
            if port.text in seen:
                raise NetlistError(f".subckt {sub.name}: port '{port.text}' is listed twice "
                                   f"(first at column {seen[port.text].col})", port.loc)
            if port.text.lower() in RESERVED_NODE_NAMES:
                raise NetlistError(f".subckt {sub.name}: '{port.text}' is reserved (the time) "
                                   "and cannot name a port", port.loc)
            seen[port.text] = port.loc

    def _check_size(self) -> None:
        """Refuse, before expanding anything, a netlist whose subcircuits would expand to
        more than the cap of elements (40 nested subcircuits each instantiating the next
        twice are 2 KB of text and 2^40 elements)."""
        cap = self.max_elements or max_elements()
        sizes = self._subckt_sizes()
        total, biggest = 0, (0, None)
        for st in self.top:
            if isinstance(st, ast.ElementStmt):
                size = sizes.get(st.type.lower(), 1)
                total += size
                biggest = max(biggest, (size, st), key=lambda b: b[0])
        if total > cap:
            size, st = biggest
            what = (f"; subcircuit instance {st.name} ({st.type}) alone expands to "
                    f"{size:.3g}" if size > 1 else "")
            raise NetlistError(f"the netlist expands to {total:.3g} elements{what}; the limit "
                               f"is {cap:.3g} (raise it with --max-elements or "
                               "CIRCUITSIM_MAX_ELEMENTS)", st.loc if size > 1 else
                               Loc(self.source, 1, 1))

    def _subckt_sizes(self) -> dict:
        """Elements each subcircuit expands to (float: may be astronomically large),
        computed without recursion; a subcircuit that contains itself counts as one (the
        expansion reports the cycle)."""
        sizes: dict = {}
        for root in self.subckts:
            stack = [(root, False)]
            while stack:
                key, ready = stack.pop()
                if key in sizes:
                    continue
                inner = [st.type.lower() for st in self.subckts[key].body
                         if isinstance(st, ast.ElementStmt)
                         and st.type.lower() in self.subckts]
                pending = [k for k in inner if k not in sizes]
                if ready or not pending:
                    sizes[key] = float(sum(sizes.get(st.type.lower(), 1.0)
                                           for st in self.subckts[key].body
                                           if isinstance(st, ast.ElementStmt)))
                    continue
                stack.append((key, True))
                stack.extend((k, False) for k in pending if k != key
                             and all(k != s for s, _ in stack))
        return sizes

    def _collect(self, st, top: bool) -> None:
        if isinstance(st, ast.Subckt):
            key = st.name.lower()
            if lookup(key) is not None:
                raise NetlistError(f".subckt {st.name} has the name of a built-in element "
                                   "type; choose another name", st.loc)
            if key in self.subckts:
                other = self.subckts[key].loc
                raise NetlistError(f"subcircuit {st.name} is defined twice (first at line "
                                   f"{other.line})", st.loc)
            self._check_ports(st)
            self.subckts[key] = st
            for inner in st.body:
                if isinstance(inner, ast.Subckt):
                    self._collect(inner, top=False)
        elif top:
            self.top.append(st)

    # --- parameters ------------------------------------------------------------------
    def global_scope(self, overrides: dict) -> dict:
        """Evaluate the top-level ``.param`` lines in order, with overrides applied."""
        scope = values.Scope()
        defined = set()
        for st in self.top:
            if isinstance(st, ast.Directive) and st.name == "param":
                if st.positional:
                    raise NetlistError(".param expects name=value pairs", st.positional[0].loc)
                for a in st.params:
                    value = overrides.get(a.key, (a.value,))[0]
                    self._assign(scope, a.key, value, scope, f"parameter {a.key}")
                    defined.add(a.key)
        for key, (value, loc) in overrides.items():
            if key not in defined:
                raise NetlistError(f"unknown parameter '{key}'", loc,
                                   did_you_mean(key, defined))
        return scope

    @staticmethod
    def _assign(scope, key: str, value, source_scope, what: str) -> None:
        """scope[key] = the value (SI) evaluated in ``source_scope``, with the dimension it
        was written in (if any) so that its uses are unit-checked."""
        number = values.to_number(value, source_scope, None, what)
        dims = values.dims_of(value, source_scope)
        scope[key] = number
        if dims is None:
            scope.dims.pop(key, None)
        else:
            scope.dims[key] = dims

    # --- element expansion -------------------------------------------------------------
    def expand(self, scope: dict, element_overrides: dict) -> list:
        self.pending: list = []
        self.instances: dict = {}     # subcircuit instance name -> (subckt name, its loc)
        self.names: dict = {}
        self.used_overrides: set = set()
        self.element_overrides = element_overrides
        body = [st for st in self.top if isinstance(st, ast.ElementStmt)]
        self._expand(body, "", {}, scope, 0)
        for (owner, name), (value, loc) in element_overrides.items():
            if (owner, name) not in self.used_overrides:
                raise NetlistError(f"no element named '{owner}' to set {owner}.{name}",
                                   loc, did_you_mean(owner, self.names))
        return self.pending

    def _node(self, value: ast.Value, prefix: str, portmap: dict) -> str:
        if not isinstance(value, (ast.Ident, ast.Number)) or (
                isinstance(value, ast.Number) and value.suffix and not value.text.isalnum()):
            raise NetlistError(f"expected a node name, got '{value.text}'", value.loc)
        if value.text.lower() in RESERVED_NODE_NAMES:
            raise NetlistError(f"'{value.text}' is reserved (the time column of the results, "
                               "and the time in expressions); choose another node name",
                               value.loc)
        return self._scoped(value.text, prefix, portmap)

    @staticmethod
    def _scoped(name: str, prefix: str, portmap: dict) -> str:
        """A node or element-variable name as written inside an instance -> its global name."""
        if name.lower() in GROUND_NAMES:
            return GROUND
        if name in portmap:
            return portmap[name]
        head, _, tail = name.partition(".")
        if tail and head in portmap:                 # a port that is a frame: P.vx
            return f"{portmap[head]}.{tail}"
        return prefix + name

    def _expand(self, statements, prefix, portmap, scope, depth) -> None:
        if depth > MAX_DEPTH:
            raise NetlistError("subcircuits nested more than 50 deep: a subcircuit "
                               "instantiates itself", statements[0].loc if statements else None)
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
        values_si = {name: self._convert_value(declared[name], value, scope, None, None,
                                               f"{etype.keyword} {full}: {name}", prefix,
                                               portmap)
                     for name, (value, _) in written.items()}
        locs = {name: loc for name, (_, loc) in written.items()}
        for v in st.positional:
            self._node(v, prefix, portmap)               # a bad frame name is told here
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
            name = self._param_name(a.key, declared, etype, full, a.loc)
            if name in out:
                raise NetlistError(f"parameter {name} of {full} is given twice", a.loc)
            out[name] = (a.value, a.loc)
        for name, (value, loc) in self._overrides_for(full).items():
            out[self._param_name(name, declared, etype, full, loc)] = (value, loc)
        return out

    def _overrides_for(self, full: str) -> dict:
        out = {}
        for (owner, name), (value, loc) in self.element_overrides.items():
            if owner == full:
                out[name] = (value, loc)
                self.used_overrides.add((owner, name))
        return out

    def _primitive(self, st, etype, full, prefix, portmap, scope) -> None:
        written = etype.positional_ports()
        nports = 0 if etype.is_body else len(written)
        if len(st.positional) < nports:
            raise NetlistError(
                f"{etype.keyword} {full} needs {nports} port(s) "
                f"({' '.join(p.name for p in written)}), got {len(st.positional)}",
                st.name_loc)
        if etype.is_body:       # a body: its nodes are <name>.vx ... <name>.wz
            nodes = [f"{full}.{p.name}" for p in etype.ports]
        else:
            nodes = [self._node(v, prefix, portmap) for v in st.positional[:nports]]
        extra = st.positional[nports:]
        declared = {p.name: p for p in etype.params}
        given: dict = {}
        if extra:
            keyed = {self._param_name(a.key, declared, etype, full, a.loc) for a in st.params}
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
            given[etype.positional_param] = (extra[0], extra[0].loc)
        written = self._written_params(st, declared, etype, full, given)
        assigns = {name: (value, scope) for name, (value, _) in written.items()}
        locs = {name: loc for name, (_, loc) in written.items()}
        if not etype.is_body:   # ports named by a parameter (a joint's flange)
            for port in etype.ports:
                if port.param is None:
                    continue
                value = assigns.get(port.param, (None,))[0]
                nodes.append(f"{full}.{port.name}" if value is None
                             else self._node(value, prefix, portmap))
        self.pending.append(_Pending(etype, full, nodes, assigns, st.loc, locs, prefix, portmap))

    @staticmethod
    def _param_name(key, declared, etype, full, loc) -> str:
        if key in declared:
            return key
        folded = [n for n in declared if n.lower() == key.lower()]
        if len(folded) == 1:
            return folded[0]
        raise NetlistError(
            f"{etype.keyword} {full} has no parameter '{key}'; it takes "
            f"{', '.join(declared) or 'no parameters'}", loc, did_you_mean(key, declared))

    def _instantiate(self, st, sub, full, prefix, portmap, scope, depth) -> None:
        self.instances[full] = (sub.name, st.loc)
        if len(st.positional) != len(sub.ports):
            raise NetlistError(
                f"subcircuit {sub.name} instance {full} needs {len(sub.ports)} port(s) "
                f"({' '.join(p.text for p in sub.ports)}), got {len(st.positional)}",
                st.name_loc)
        inner_map = {p.text: self._node(v, prefix, portmap)
                     for p, v in zip(sub.ports, st.positional)}
        given = {a.key: (a.value, scope, a.loc) for a in st.params}
        for name, (value, loc) in self._overrides_for(full).items():
            given[name] = (value, self._global, loc)
        defaults = {d.key: d for d in sub.defaults}
        for key, (_, _, loc) in given.items():
            if key not in defaults:
                raise NetlistError(f"subcircuit {sub.name} has no parameter '{key}'"
                                   f"{'; it takes ' + ', '.join(defaults) if defaults else ''}",
                                   loc, did_you_mean(key, defaults))
        local = self._global.copy()
        for key, d in defaults.items():
            if key in given:
                value, vscope, _ = given[key]
                self._assign(local, key, value, vscope, f"{full}: parameter {key}")
            else:
                self._assign(local, key, d.value, local, f"{sub.name}: default of {key}")
        for inner in sub.body:
            if isinstance(inner, ast.Directive):
                if inner.name != "param":
                    raise NetlistError(f".{inner.name} is not allowed inside .subckt "
                                       f"{sub.name} (only .param)", inner.loc)
                for a in inner.params:
                    self._assign(local, a.key, a.value, local, f"parameter {a.key}")
        self._expand(sub.body, full + ".", inner_map, local, depth + 1)

    # --- conversion of values -------------------------------------------------------------
    def convert(self, pending: list, domains: dict) -> list:
        self.warnings: list = []
        with values.memoised():              # the scopes are complete
            return [self._instance(el, domains) for el in pending]

    def _instance(self, el, domains: dict) -> ElementInstance:
        """One pending element with its values converted and checked."""
        scalar = [n for p, n in topology.scalar_ports(el) if n != GROUND]
        dom = next((domains[n][0] for n in scalar), None)
        allowed = next((domains[n][1] for n in scalar), None)
        port_domains = [domains[n][0] if n in domains and not p.frame else None
                        for p, n in zip(el.type.ports, el.nodes)]
        inst = ElementInstance(el.type, el.name, el.nodes, {}, el.loc, el.param_locs,
                               port_domains)
        port_domains_by_name = {p.name: d for p, d in zip(el.type.ports, port_domains)}
        for par in el.type.params:
            if par.name in el.assigns:
                value, scope = el.assigns[par.name]
                what = f"{el.type.keyword} {el.name}: {par.name}"
                inst.params[par.name] = self._convert_value(par, value, scope, dom,
                                                            allowed, what, el.prefix,
                                                            el.portmap,
                                                            port_domains_by_name)
                inst.explicit.add(par.name)
                self.warnings += _large_angles(par, value, what)
            elif par.default is REQUIRED:
                unit = par.unit_for(dom) or (par.unit if isinstance(par.unit, str) else "")
                raise NetlistError(
                    f"{el.type.keyword} {el.name} needs parameter {par.name} "
                    f"({par.description}{', ' + unit if unit and unit != '1' else ''})",
                    el.loc)
            else:
                inst.params[par.name] = par.default
            if par.positive or par.nonnegative:
                self._check_bounds(par, inst, el)
        el.type.check(inst)
        return inst

    def _convert_value(self, par, value, scope, dom, allowed, what, prefix="", portmap=None,
                       port_domains=None):
        if par.kind == "choice":
            return values.to_choice(value, par.choices, what)
        if par.kind == "node":
            return self._node(value, prefix, portmap or {})
        if par.kind == "expr":
            if not isinstance(value, ast.Expr):
                raise NetlistError(f"{what} expects an expression in braces, like "
                                   "{2*v(n1)}", value.loc)
            tree = expressions.substitute(value.tree, scope)
            if prefix or portmap:        # circuit names inside a subcircuit are scoped
                portmap = portmap or {}
                tree = expressions.rename(tree, {n: self._scoped(n, prefix, portmap)
                                                 for n in expressions.free_names(tree)
                                                 if n != "time"})
            return tree
        units = self._candidate_units(par, dom, allowed, port_domains or {})
        first_error = None
        results = []
        for unit in units:
            try:
                if par.kind == "vector":
                    results.append(values.to_vector(value, scope, unit, par.size, what))
                elif par.kind == "timevector":
                    results.append(values.to_time_vector(value, scope, unit, par.size, what))
                elif par.kind == "time":
                    results.append(values.to_time_value(value, scope, unit, what))
                else:
                    results.append(values.to_number(value, scope, unit, what))
                break                        # the first unit that fits wins
            except NetlistError as exc:
                first_error = first_error or exc
        if not results:
            raise first_error
        return results[0]

    @staticmethod
    def _candidate_units(par, dom, allowed, port_domains) -> list:
        if isinstance(par.unit, str) or par.unit is None:
            return [par.unit]
        if isinstance(par.unit, RatioUnit):            # known once the ports' domains are
            return [par.unit.resolve(port_domains)]
        if isinstance(par.unit, (list, tuple)):       # one unit per vector component
            return [list(par.unit)]
        first = [par.unit[dom]] if dom in par.unit else []
        if first and allowed is not None:
            return first
        # domain not fixed by any element: try its default first, then the others
        return first + [u for d, u in par.unit.items()
                        if u not in first and (allowed is None or d in allowed)] or [None]

    @staticmethod
    def _check_bounds(par, inst, el) -> None:
        v = inst.params.get(par.name)
        if not isinstance(v, (int, float)):
            return
        loc = el.param_locs.get(par.name, el.loc)
        if par.positive and not v > 0:
            raise ModelError(f"{el.type.keyword} {el.name}: {par.name} must be positive, "
                             f"got {v:g}", loc)
        if par.nonnegative and not v >= 0:
            raise ModelError(f"{el.type.keyword} {el.name}: {par.name} must not be negative, "
                             f"got {v:g}", loc)

    # --- whole run ----------------------------------------------------------------------
    def _enclosing(self, message: str, loc) -> list:
        """The subcircuit instances (outermost first) whose elements ``message`` names,
        or [] when there are none or ``loc`` is already the instance line."""
        instances = getattr(self, "instances", {})
        inside = sorted((name for name in instances
                         if re.search(rf"(?<![\w.]){re.escape(name)}\.", message)), key=len)
        return [] if not inside or loc == instances[inside[0]][1] else inside

    def _chain(self, inside: list) -> str:
        return " > ".join(f"{self.instances[name][0]} {name}" for name in inside)

    def relocate(self, exc: NetlistError) -> NetlistError:
        """An error about an element inside a subcircuit instance (its name has the
        instance's prefix), located at the user's instance line; the definition's line
        goes to the hint."""
        inside = self._enclosing(exc.message, exc.loc)
        if not inside:
            return exc
        hint = f"in {self._chain(inside)}" + (
            f"; the definition's line is {exc.loc}: {exc.loc.text.strip()}"
            if exc.loc is not None else "")
        return type(exc)(exc.message, self.instances[inside[0]][1],
                         "\n".join(filter(None, [hint, exc.hint])))

    def build(self, overrides: list = ()) -> Circuit:
        """``overrides``: list of ast.Assign (study lines, ``--set``)."""
        try:
            circuit = self._build(overrides)
        except NetlistError as exc:
            raise self.relocate(exc) from None
        circuit.warnings = [self._relocate_warning(message, loc)
                            for message, loc in circuit.warnings]
        return circuit

    def _relocate_warning(self, message: str, loc) -> tuple:
        """A warning about something inside a subcircuit instance, at the instance line."""
        inside = self._enclosing(message, loc)
        if not inside:
            return message, loc
        return f"{message} (in {self._chain(inside)})", self.instances[inside[0]][1]

    def _build(self, overrides: list = ()) -> Circuit:
        param_over, element_over, option_over = {}, {}, []
        params = self._param_names()
        for a in overrides:
            owner, name = split_override(a.key)
            if owner is None and name.lower() in OPTIONS and name not in params:
                option_over.append(a)        # a solver option: rtol=1e-9 in a study
            elif owner is None:
                param_over[name] = (a.value, a.loc)
            else:
                element_over[(owner, name)] = (a.value, a.loc)
        self._global = self.global_scope(param_over)
        pending = self.expand(self._global, element_over)
        if not pending:
            raise NetlistError("the netlist has no elements", Loc(self.source, 1, 1))
        domains = topology.infer_domains(pending)
        topology.check_potential_loops(pending)
        first_use: dict = {}
        nodes: dict = {}
        self._check_frames(pending)
        for el in pending:
            for port, node in topology.scalar_ports(el):
                if node == GROUND:
                    continue
                first_use.setdefault(node, el.loc)
                nodes.setdefault(node, Node(node, domains[node][0], el.loc)).users.append(
                    (el.name, port.name))
        warnings = topology.check_connectivity(pending, first_use)
        warnings += self._unattached_bodies(pending)
        elements = self.convert(pending, domains)
        warnings += self.warnings
        circuit = Circuit(title="", elements=elements, nodes=nodes, tran=Tran(),
                          params=dict(self._global), warnings=warnings, source=self.source)
        self._directives(circuit)
        for a in option_over:
            self._option(a, circuit, self._global)
        self._link(circuit)
        return circuit

    def _param_names(self) -> set:
        return {a.key for st in self.top if isinstance(st, ast.Directive)
                and st.name == "param" for a in st.params}

    @staticmethod
    def _check_frames(pending: list) -> None:
        """Every frame port names a body (an element owning its nodes) or ground 0, and
        the two frames of a joint or 3D spring differ."""
        bodies = {el.name for el in pending if el.type.is_body}
        for el in pending:
            for port, node in zip(el.type.ports, el.nodes):
                if port.frame and node != GROUND and node not in bodies:
                    raise NetlistError(
                        f"{el.type.keyword} {el.name}: frame '{node}' (port {port.name}) is "
                        f"not a body; frames are bodies or 0 (ground)", el.loc,
                        did_you_mean(node, bodies))
            frames = [node for port, node in zip(el.type.ports, el.nodes) if port.frame]
            if len(frames) == 2 and frames[0] == frames[1]:
                what = "ground" if frames[0] == GROUND else f"body '{frames[0]}'"
                raise NetlistError(
                    f"{el.type.keyword} {el.name} connects {what} to itself: its two "
                    "frames must differ (one of them may be 0, the ground)", el.loc)

    @staticmethod
    def _unattached_bodies(pending: list) -> list:
        """A body that no element touches and that is given no initial motion is most
        likely a forgotten joint: a warning (a body flying freely on purpose has v= or w=)."""
        touched = set()
        for el in pending:
            if el.type.is_body:
                continue
            for port, node in zip(el.type.ports, el.nodes):
                touched.add(node if port.frame else node.split(".")[0])
        return [(f"body {el.name} is attached to nothing (no joint, load or element on its "
                 "nodes) and has no initial motion: it only falls or floats freely",
                 el.loc)
                for el in pending if el.type.is_body and el.name not in touched
                and not {"v", "w"} & set(el.assigns)]

    @staticmethod
    def _link(c: Circuit) -> None:
        """Gravity to every body, then the elements' link hooks (joints find their
        attachment points from the bodies' initial poses)."""
        for inst in c.elements:
            if inst.type.uses_gravity and "g" not in inst.explicit and c.gravity:
                inst.params["g"] = np.array(c.gravity, dtype=float)
        frames = {GROUND: with_rotation({name: (1.0 if name == "q0" else 0.0)
                                         for name in FRAME_VARS})}
        for inst in c.elements:
            if inst.type.is_body:
                m, J = inst.type.mass_properties(inst)
                frames[inst.name] = with_rotation({**inst.type.initial_state(inst), "m": m,
                                                   "J": J})
        for inst in c.elements:
            inst.type.link(inst, frames)

    def _directives(self, c: Circuit) -> None:
        seen_tran = None
        for st in self.top:
            if not isinstance(st, ast.Directive):
                continue
            name = st.name
            if name not in KNOWN_DIRECTIVES:
                raise NetlistError(f"unknown directive '.{name}'", st.loc,
                                   did_you_mean(name, KNOWN_DIRECTIVES))
            scope = self._global
            if name == "title":
                c.title = st.text.strip()
            elif name == "tran":
                if seen_tran is not None:
                    raise NetlistError(f"second .tran (the first is at line {seen_tran.line})",
                                       st.loc)
                seen_tran = st.loc
                self._tran(st, c, scope)
            elif name == "options":
                for a in st.params:
                    self._option(a, c, scope)
            elif name == "ic":
                for a in st.params:
                    c.ics[a.key] = (values.to_number(a.value, scope, None, f".ic {a.key}"), a.loc)
            elif name == "probe":
                for v in st.positional:
                    c.probes.append((v.text, v.loc))
            elif name == "gravity":
                if len(st.positional) != 3:
                    raise NetlistError(".gravity expects three components gx gy gz (m/s^2)",
                                       st.loc)
                c.gravity = tuple(values.to_number(v, scope, "m/s^2", ".gravity")
                                  for v in st.positional)
            elif name in ("ends",):
                raise NetlistError(".ends without .subckt", st.loc)

    def _tran(self, st, c: Circuit, scope) -> None:
        if not 1 <= len(st.positional) <= 2:
            raise NetlistError(".tran expects tstop [tstep] (seconds), e.g. '.tran 2 1m'",
                               st.loc)
        c.tran.tstop = values.to_number(st.positional[0], scope, "s", ".tran tstop")
        if c.tran.tstop <= 0:
            raise NetlistError(".tran tstop must be positive", st.positional[0].loc)
        if len(st.positional) == 2:
            c.tran.tstep = values.to_number(st.positional[1], scope, "s", ".tran tstep")
            if c.tran.tstep <= 0:
                raise NetlistError(".tran tstep must be positive", st.positional[1].loc)
            c.tran.tstep_loc = st.positional[1].loc
        c.tran.loc = st.loc
        for a in st.params:
            self._option(a, c, scope)

    @staticmethod
    def _option(a, c: Circuit, scope) -> None:
        key = a.key.lower()
        if key not in OPTIONS:
            raise NetlistError(f"unknown option '{a.key}' (known: {', '.join(OPTIONS)})",
                               a.loc, did_you_mean(key, OPTIONS))
        attr, unit = OPTIONS[key]
        value = values.to_number(a.value, scope, unit, key)
        if value <= 0:
            raise NetlistError(f"option {key} must be positive", a.value.loc)
        if key == "rtol" and value >= 1:
            raise NetlistError(f"option rtol is a relative tolerance below 1 (1e-6 is the "
                               f"default); got {value:g}", a.value.loc)
        if key == "maxorder":
            if value != int(value) or not 1 <= value <= 5:
                raise NetlistError("maxorder must be an integer from 1 to 5", a.value.loc)
            value = int(value)
        setattr(c.tran, attr, value)


def _large_angles(par, value, what: str) -> list:
    """A warning for each angle written as a plain number beyond one turn (``rot=(0, 1,
    0, 90)`` is 90 rad, not 90°): (message, loc)."""
    units = par.unit if isinstance(par.unit, (list, tuple)) else [par.unit]
    items = value.items if isinstance(value, ast.Vector) else [value]
    if len(units) == 1:
        units = units * len(items)
    return [(f"{what}: {item.text} is {item.mantissa / (2 * np.pi):.3g} turns in radians; "
             f"write {item.text}deg for degrees", item.loc)
            for item, unit in zip(items, units)
            if unit == "rad" and isinstance(item, ast.Number) and not item.suffix
            and abs(item.mantissa) > 2 * np.pi]


def _ast_value(v, loc) -> ast.Value:
    """An SI value made by an expansion as the syntax tree of the number it is."""
    if isinstance(v, str):
        return ast.Ident(loc, v, name=v)
    if np.ndim(v):
        items = [_ast_value(c, loc) for c in v]
        return ast.Vector(loc, "(" + ", ".join(i.text for i in items) + ")", items=items)
    return ast.Number(loc, f"{float(v):.17g}", mantissa=float(v))


def studies(statements: list) -> dict:
    """``.study NAME k=v ...`` lines: name -> (list of Assign, Loc)."""
    out: dict = {}
    for st in statements:
        if isinstance(st, ast.Directive) and st.name == "study":
            if len(st.positional) != 1 or not isinstance(st.positional[0], ast.Ident):
                raise NetlistError(".study expects a name then key=value overrides", st.loc)
            name = st.positional[0].name
            if name in out:
                raise NetlistError(f"study '{name}' is defined twice", st.loc)
            out[name] = (list(st.params), st.loc)
    return out


def steps(statements: list) -> list:
    """``.step NAME v1 v2 ...`` lines: [(name, [Value], Loc of the name)]."""
    out = []
    for st in statements:
        if isinstance(st, ast.Directive) and st.name == "step":
            if len(st.positional) < 2 or not isinstance(st.positional[0], ast.Ident):
                raise NetlistError(".step expects a parameter name and at least one value, "
                                   "e.g. '.step k 100 200 400'", st.loc)
            name = st.positional[0]
            out.append((name.name, list(st.positional[1:]), name.loc or st.loc))
    return out
