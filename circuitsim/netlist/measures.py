"""``.measure``: a number taken from a run's results (a peak, the time of a crossing, an
integral, a value at an instant, or a formula of other measures), read here and
evaluated after the run (circuitsim.output.measures).

    .measure NAME max|min|argmax|argmin EXPR [from=T1] [to=T2]
    .measure NAME at EXPR at=T
    .measure NAME integ EXPR [from=T1] [to=T2]
    .measure NAME when EXPR [cross=rise|fall|either] [n=1] [from=T1] [to=T2]
    .measure NAME param {formula of earlier measures and parameters}

EXPR is a recorded variable's name (``S.x``) or a brace expression of them, ``time`` and
the parameters; a time T is a number (s), an earlier measure's name, or a brace
expression of earlier measures (``from={tc + 1m}``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import Loc, NetlistError, did_you_mean
from ..runtime import expressions
from ..runtime.expressions import Name
from . import ast, values

KINDS = ("max", "min", "argmax", "argmin", "at", "integ", "when", "param")
TIMED = ("argmax", "argmin", "when")        # kinds whose value is a time
CROSSINGS = ("rise", "fall", "either")
OPTIONS = {"max": ("from", "to"), "min": ("from", "to"), "argmax": ("from", "to"),
           "argmin": ("from", "to"), "at": ("at",), "integ": ("from", "to"),
           "when": ("from", "to", "cross", "n"), "param": ()}


@dataclass
class Measure:
    """One ``.measure`` line: ``tree`` the expression (names of recorded variables and
    ``time``; for ``param`` names of earlier measures); ``times`` the window or
    instant (``from``, ``to``, ``at``) as expression trees of earlier measures' names
    or numbers."""
    name: str
    kind: str
    tree: object
    loc: Loc
    times: dict = field(default_factory=dict)
    cross: str = "rise"
    n: int = 1

    @property
    def variables(self) -> set:
        """The recorded variables the expression reads (none for ``param``)."""
        if self.kind == "param":
            return set()
        return expressions.free_names(self.tree) - {"time"}


def parse(st: ast.Directive, scope, earlier: list) -> Measure:
    """The ``.measure`` directive ``st``; ``earlier``: the measures above it."""
    usage = (".measure NAME KIND EXPR [options]: KIND one of " + ", ".join(KINDS)
             + " (e.g. '.measure smax max S.x from=0.1')")
    if len(st.positional) != 3:
        raise NetlistError(usage, st.loc)
    name_value, kind_value, expr_value = st.positional
    name, kind = name_value.text, kind_value.text.lower()
    if not isinstance(name_value, ast.Ident) or "." in name:
        raise NetlistError(f".measure: '{name}' is not a name for a measure (letters, "
                           "digits, _; no dot)", name_value.loc)
    known = {m.name: m for m in earlier}
    if name in known:
        raise NetlistError(f".measure {name} is defined twice (first at line "
                           f"{known[name].loc.line})", name_value.loc)
    if kind not in KINDS:
        raise NetlistError(f".measure {name}: unknown kind '{kind_value.text}'", kind_value.loc,
                           did_you_mean(kind, KINDS) or f"one of {', '.join(KINDS)}")
    tree = _expression(expr_value, scope, name)
    if kind == "param":
        _only_measures(tree, known, name, expr_value.loc)
    m = Measure(name, kind, tree, st.loc)
    for a in st.params:
        key = a.key.lower()
        if key not in OPTIONS[kind]:
            allowed = ", ".join(f"{k}=" for k in OPTIONS[kind]) or "none"
            raise NetlistError(f".measure {name}: '{a.key}=' does not apply to {kind} "
                               f"(options: {allowed})", a.loc)
        if key == "cross":
            m.cross = values.to_choice(a.value, CROSSINGS, f".measure {name} cross")
        elif key == "n":
            n = values.to_number(a.value, scope, None, f".measure {name} n")
            if n != int(n) or n < 1:
                raise NetlistError(f".measure {name}: n counts crossings: 1, 2, ...",
                                   a.value.loc)
            m.n = int(n)
        else:
            m.times[key] = _time(a.value, scope, known, name, key)
    if kind == "at" and "at" not in m.times:
        raise NetlistError(f".measure {name} at: give the instant, at=T", st.loc)
    return m


def _expression(value, scope, name: str):
    """The measured expression: a brace expression or a bare name (``S.x``)."""
    if isinstance(value, ast.Expr):
        return expressions.substitute(value.tree, scope)
    if isinstance(value, ast.Ident):
        return Name(value.text, loc=value.loc)
    raise NetlistError(f".measure {name}: measure a variable or an expression in braces, "
                       "like S.x or {T.f/9.81}", value.loc)


def _time(value, scope, known: dict, name: str, key: str):
    """A window bound or instant: seconds, or a tree of earlier time measures."""
    if isinstance(value, ast.Ident) and value.text in known:
        return _timed(Name(value.text, loc=value.loc), known, name, key, value.loc)
    if isinstance(value, ast.Expr):
        tree = expressions.substitute(value.tree, scope)
        if expressions.free_names(tree):
            return _timed(tree, known, name, key, value.loc)
    return values.to_number(value, scope, "s", f".measure {name} {key}")


def _timed(tree, known: dict, name: str, key: str, loc):
    _only_measures(tree, known, name, loc)
    return tree


def _only_measures(tree, known: dict, name: str, loc) -> None:
    for ref in sorted(expressions.free_names(tree)):
        if ref not in known:
            raise NetlistError(f".measure {name}: '{ref}' is not a measure defined above "
                               "this line", loc, did_you_mean(ref, known))
