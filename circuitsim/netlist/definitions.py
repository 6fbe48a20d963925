"""A netlist's definitions, read once before any case is elaborated: the top-level
statements and the subcircuits by name (a subcircuit defined inside another is global
too), each checked (its name, its ports), and the whole refused when its subcircuits
would expand to more elements than the cap.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from ..elements import lookup
from ..errors import Loc, NetlistError
from . import ast, functions
from .scopes import GROUND_NAMES, RESERVED_NODE_NAMES

MAX_ELEMENTS = 1_000_000   # elements after expansion (CIRCUITSIM_MAX_ELEMENTS, --max-elements)


@dataclass(frozen=True)
class Definitions:
    """What every case of one netlist is elaborated from."""
    source: str             # the netlist's file name (errors about the whole netlist)
    top: tuple              # the top-level statements (subcircuit definitions left out)
    subckts: dict           # lower-case name -> ast.Subckt
    functions: dict = field(default_factory=dict)   # the top level's .func, by name


def max_elements() -> int:
    """The cap on elaborated elements: CIRCUITSIM_MAX_ELEMENTS, else MAX_ELEMENTS."""
    text = os.environ.get("CIRCUITSIM_MAX_ELEMENTS", "")
    try:
        return int(float(text)) if text else MAX_ELEMENTS
    except ValueError:
        raise NetlistError(f"CIRCUITSIM_MAX_ELEMENTS must be a number, got '{text}'") from None


def collect(statements: list, source: str = "", cap: int | None = None) -> Definitions:
    """The definitions of parsed ``statements``; ``cap``: the most elements the netlist
    may expand to (None: :func:`max_elements`)."""
    subckts: dict = {}
    top: list = []
    for st in statements:
        if isinstance(st, ast.Subckt):
            _collect_subckt(st, subckts)
        else:
            top.append(st)
    funcs = _expand_functions(top, subckts)
    _check_size(top, subckts, cap or max_elements(), source)
    return Definitions(source, tuple(top), subckts, funcs)


def _expand_functions(top: list, subckts: dict) -> dict:
    """Read the ``.func`` lines and expand the calls of user functions in every brace
    expression (functions.py); -> the top level's functions."""
    params = _param_locs(top)
    funcs = functions.define(top, "", {}, params)
    functions.expand_statements(top, funcs)
    for sub in subckts.values():
        own = {d.key: d.loc for d in sub.defaults} | _param_locs(sub.body)
        local = functions.define(sub.body, sub.name, funcs, params | own, frozenset(own))
        functions.expand_values([d.value for d in sub.defaults], funcs)
        functions.expand_statements(sub.body, local, frozenset(own))
    return funcs


def _param_locs(statements) -> dict:
    """The names the ``.param`` lines among ``statements`` define -> their Loc."""
    return {a.key: a.loc for st in statements
            if isinstance(st, ast.Directive) and st.name == "param" for a in st.params}


def _collect_subckt(sub: ast.Subckt, subckts: dict) -> None:
    """``sub`` and the subcircuits defined in its body, into ``subckts``."""
    key = sub.name.lower()
    if lookup(key) is not None:
        raise NetlistError(f".subckt {sub.name} has the name of a built-in element "
                           "type; choose another name", sub.loc)
    if key in subckts:
        other = subckts[key].loc
        raise NetlistError(f"subcircuit {sub.name} is defined twice (first at line "
                           f"{other.line})", sub.loc)
    _check_ports(sub)
    subckts[key] = sub
    for inner in sub.body:
        if isinstance(inner, ast.Subckt):
            _collect_subckt(inner, subckts)


def _check_ports(sub: ast.Subckt) -> None:
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


def check_element_lines(text: str, source: str, cap: int | None = None) -> None:
    """Refuse, before the text is parsed, a netlist with more top-level element lines
    than the cap (each is at least one element): a flat netlist of a million lines took
    40 s and 1.8 GB to parse before the count refused it."""
    cap = cap or max_elements()
    if text.count("\n") <= cap:
        return
    count, depth = 0, 0
    for number, line in enumerate(text.split("\n"), start=1):
        head = line.lstrip()[:7].lower()
        if not head or head[0] in "*;+":
            continue
        if head[0] == ".":
            if head.rstrip() == ".end" or head.startswith((".end ", ".end;")):
                return                       # the netlist stops there
            depth += head.startswith(".subckt") - (head.startswith(".ends") and depth > 0)
            continue
        count += depth == 0
        if count > cap:
            raise NetlistError(f"the netlist has more than {cap:,} element lines, the limit "
                               "on elements (raise it with --max-elements or "
                               "CIRCUITSIM_MAX_ELEMENTS)", Loc(source, number, 1, line))


def _check_size(top: list, subckts: dict, cap: int, source: str) -> None:
    """Refuse, before expanding anything, a netlist whose subcircuits would expand to
    more than ``cap`` elements (40 nested subcircuits each instantiating the next
    twice are 2 KB of text and 2^40 elements)."""
    sizes = _subckt_sizes(subckts)
    total, biggest, crossing = 0, (0, None), None
    for st in top:
        if isinstance(st, ast.ElementStmt):
            size = sizes.get(st.type.lower(), 1)
            total += size
            biggest = max(biggest, (size, st), key=lambda b: b[0])
            crossing = crossing or (st if total > cap else None)
    if total > cap:
        size, st = biggest
        what = (f"; subcircuit instance {st.name} ({st.type}) alone expands to "
                f"{_count(size)}" if size > 1 else "")
        raise NetlistError(f"the netlist expands to {_count(total)} elements{what}; the "
                           f"limit is {cap:,} (raise it with --max-elements or "
                           "CIRCUITSIM_MAX_ELEMENTS)", st.loc if size > 1 else crossing.loc)


def _count(n: float) -> str:
    """An element count written in full (1,000,012), or 1.1e+12 when astronomical."""
    return f"{int(n):,}" if n < 1e9 else f"{n:.3g}"


def _subckt_sizes(subckts: dict) -> dict:
    """Elements each subcircuit expands to (float: may be astronomically large),
    computed without recursion; a subcircuit that contains itself counts as one (the
    expansion reports the cycle)."""
    sizes: dict = {}
    for root in subckts:
        stack = [(root, False)]
        while stack:
            key, ready = stack.pop()
            if key in sizes:
                continue
            inner = [st.type.lower() for st in subckts[key].body
                     if isinstance(st, ast.ElementStmt) and st.type.lower() in subckts]
            pending = [k for k in inner if k not in sizes]
            if ready or not pending:
                sizes[key] = float(sum(sizes.get(st.type.lower(), 1.0)
                                       for st in subckts[key].body
                                       if isinstance(st, ast.ElementStmt)))
                continue
            stack.append((key, True))
            stack.extend((k, False) for k in pending if k != key
                         and all(k != s for s, _ in stack))
    return sizes
