"""Building expression trees from the netlist grammar's expression rules.

:class:`ExprBuilder` holds the Lark transformer callbacks (rules ``add sub mul div pow
neg num name func``) that produce :mod:`circuitsim.runtime.expressions` trees. ``pi``
becomes a constant; ``v(n)`` and ``i(X)`` become names of circuit variables. Numbers are
converted to SI at parse time with no declared unit (``10u`` -> 1e-5; a lone ``m`` is
an error). ``let(name=value, ..., expression)`` is replaced here by its expression with
the values put in place; a call of any other name that is not built in is kept as a
call of a user function (a Func node of that name), replaced by the function's body once
the netlist's ``.func`` lines are read (:mod:`circuitsim.netlist.functions`), which also
refuses the names no ``.func`` defines.
"""
from __future__ import annotations

import re

from . import units
from .datafiles import TABLE_FUNCTIONS, Keyword, table_call
from ..errors import Loc, NetlistError
from ..runtime.expressions import (CONSTANTS, FUNCTIONS, MAX_NODES, Binary, Func, Name,
                                   Num, Unary, nodes_below, replace_names)


# SPICE-style references to circuit variables (behavioural sources): v(n) is the
# potential of node n, v(a, b) = v(a) - v(b), i(X) the flow unknown X.i of element X.
CIRCUIT_REFERENCES = ("v", "i")


def _reference_name(arg, loc) -> str | None:
    """The node/element name written as the argument of v() or i(); None for ground."""
    if isinstance(arg, Name):
        return arg.name
    if isinstance(arg, Num) and arg.text is not None and arg.text.isalnum():
        return None if arg.text == "0" else arg.text       # numbered nodes: v(1)
    raise NetlistError("v() and i() take node or element names", loc)


def _circuit_reference(key: str, args: tuple, loc):
    if key == "v" and len(args) in (1, 2):
        names = [_reference_name(a, loc) for a in args]
        terms = [Name(n, loc) if n is not None else Num(0.0) for n in names]
        return terms[0] if len(terms) == 1 else Binary("-", terms[0], terms[1])
    if key == "i" and len(args) == 1:
        name = _reference_name(args[0], loc)
        if name is None:
            raise NetlistError("i() takes an element name, e.g. i(V1)", loc)
        return Name(f"{name}.i", loc)
    raise NetlistError(f"{key}() takes {'one or two node names' if key == 'v' else 'one element name'}",
                       loc)


# let(name=value, ..., expression): local names, each value put in place of its name in
# the values after it and in the expression (so the symbolic derivatives see through it).
LET = "let"
LET_USAGE = "let(name=value, ..., expression), e.g. let(d=sqrt(x^2 + y^2), k*(d - L0))"


def local_names(args: tuple, loc):
    """The expression of ``let(...)`` with its local names replaced by their values."""
    if len(args) < 2 or isinstance(args[-1], Keyword):
        raise NetlistError(f"let() needs local names, then the expression: {LET_USAGE}",
                           loc)
    bindings, body = args[:-1], args[-1]
    for b in bindings:
        if not isinstance(b, Keyword):
            raise NetlistError(f"let(): a local name is written name=value: {LET_USAGE}",
                               loc)
        if b.quoted or "." in b.key or b.key.lower() in (*CONSTANTS, "time"):
            what = ("a number or an expression, not a string" if b.quoted else
                    "a plain name" if "." in b.key else "not the time or a constant")
            raise NetlistError(f"let(): local name '{b.key}': {what}", b.loc)
    for b in reversed(bindings):       # the last name first: its value may use the others
        body = replace_names(body, {b.key: b.value})
        if not nodes_below(body, MAX_NODES):
            raise NetlistError(f"the expression grows to more than {MAX_NODES} terms once "
                               "its local names are put in place", loc)
    return body


# --- building from the parse tree ----------------------------------------------------
class ExprBuilder:
    """Lark transformer callbacks for the expression rules.

    Subclasses provide ``_loc(token) -> Loc`` mapping a token to its place in the source.
    """

    def _loc(self, token) -> Loc:   # pragma: no cover - provided by subclasses
        raise NotImplementedError

    def num(self, children):
        tok = children[0]
        mantissa, suffix = split_number(str(tok))
        try:
            value = units.to_si(mantissa, suffix, None)
        except units.UnitError as exc:
            raise NetlistError(str(exc), self._loc(tok)) from None
        return Num(value, str(tok))

    def name(self, children):
        tok = children[0]
        if str(tok).lower() in CONSTANTS:
            return Num(CONSTANTS[str(tok).lower()], str(tok))
        return Name(str(tok), self._loc(tok))

    def kwarg(self, children):
        """``key=value`` in a call: a quoted string, or an expression (a name, a number)."""
        key, value = children
        quoted = isinstance(value, str)      # a STRING token (Lark's tokens are str)
        return Keyword(str(key), str(value)[1:-1] if quoted else value, self._loc(key),
                       quoted)

    def func(self, children):
        tok, args = children[0], tuple(children[1:])
        key = str(tok).lower()
        loc = self._loc(tok)
        if key in TABLE_FUNCTIONS:
            return table_call(key, list(args), loc)
        if key == LET:
            return local_names(args, loc)
        keywords = [a for a in args if isinstance(a, Keyword)]
        if keywords:
            raise NetlistError(f"{key}() takes no keyword arguments", keywords[0].loc)
        if key in CONSTANTS and not args:
            return Num(CONSTANTS[key], f"{tok}()")
        if key in CIRCUIT_REFERENCES:
            return _circuit_reference(key, args, loc)
        if key not in FUNCTIONS:      # a user function (.func): expanded once the
            return Func(key, args, loc)   # netlist's definitions are read (functions.py)
        lo, hi, _ = FUNCTIONS[key]
        if len(args) < lo or (hi is not None and len(args) > hi):
            want = (f"{lo} argument{'s' if lo > 1 else ''}" if lo == hi
                    else f"at least {lo} argument{'s' if lo > 1 else ''}")
            raise NetlistError(f"{key}() takes {want}, got {len(args)}", loc)
        return Func(key, args, loc)

    def neg(self, children):
        return Unary("-", children[0])

    def add(self, children):
        return Binary("+", *children)

    def sub(self, children):
        return Binary("-", *children)

    def mul(self, children):
        return Binary("*", *children)

    def div(self, children):
        return Binary("/", *children)

    def pow(self, children):
        return Binary("^", *children)

    # comparisons (rules lt ... ne) are the functions of the same names: 1.0 if true, else 0
    def _comparison(name: str):
        def build(self, children):
            return Func(name, tuple(children))
        return build

    lt, gt, le, ge, eq, ne = map(_comparison, ("lt", "gt", "le", "ge", "eq", "ne"))
    del _comparison


_MANTISSA = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def split_number(text: str) -> tuple[float, str]:
    """``'4.7k'`` -> (4.7, 'k'); ``'1e-3'`` -> (0.001, ''); ``'2e'`` -> (2.0, 'e')."""
    head = _MANTISSA.match(text).group()
    return float(head), text[len(head):]
