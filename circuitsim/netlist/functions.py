"""User functions: ``.func name(arg, ...) = {body}``.

A function is defined at the top level (for the whole netlist) or inside a subcircuit
(for that subcircuit's body, where it hides a top-level function of the same name), as
``.param`` is. When the netlist's definitions are read, every call of a user function in a
brace expression is replaced by the function's body with the call's arguments put in
place of its argument names: the expressions the elements compile and differentiate are
the expressions written out, and cost the same. The names of the body other than its
arguments mean what they mean where the function is called (parameters, ``time``, nodes
and element variables); a top-level function that reads a parameter a subcircuit
redefines is refused where the subcircuit calls it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import Loc, NetlistError, did_you_mean
from ..runtime import expressions
from ..runtime.expressions import CONSTANTS, FUNCTIONS, MAX_NODES, Func
from . import ast
from .datafiles import TABLE_FUNCTIONS
from .exprbuilder import CIRCUIT_REFERENCES, LET

DIRECTIVE = "func"
BUILT_IN = (*FUNCTIONS, *TABLE_FUNCTIONS, *CIRCUIT_REFERENCES, LET, *CONSTANTS, "time")
USAGE = ".func expects name(arg, ...) = {expression}, e.g. .func hyp(x, y) = {sqrt(x^2 + y^2)}"


@dataclass(eq=False)
class Function:
    """One ``.func`` line, read and checked."""
    name: str            # lower-case: functions are called case-insensitively
    args: tuple          # the argument names
    body: object         # the expression tree as written
    loc: Loc
    where: str           # "" at the top level, else the subcircuit's name
    visible: dict = field(repr=False)   # the functions its body may call (its scope's)
    own: frozenset       # the parameters its scope defines (a subcircuit's), else empty
    expanded: object = field(default=None, repr=False)   # the body, its calls expanded


@dataclass(frozen=True)
class BodyLoc(Loc):
    """The place of a name written in a function's body, and the function's name (for
    an error about the name, wherever the function is called)."""
    function: str = ""


def _tagged(tree, function: str):
    """The body with each name's Loc a BodyLoc naming ``function``."""
    def tag(node):
        if isinstance(node, expressions.Name) and node.loc is not None:
            loc = node.loc
            return expressions.Name(node.name, BodyLoc(loc.file, loc.line, loc.col,
                                                       loc.text, function))
        return node
    return expressions.rewrite(tree, tag)


def is_call(node) -> bool:
    """A call of a user function (not yet expanded)?"""
    return isinstance(node, Func) and node.table is None and node.name not in FUNCTIONS


# --- definitions ---------------------------------------------------------------------------
def define(statements, where: str, outer: dict, params: dict, own=frozenset()) -> dict:
    """The functions visible in ``statements`` (the top level's, or one subcircuit's
    body): ``outer``'s, then those its ``.func`` lines define. ``params``: parameter name
    -> Loc of the parameters visible there (a function may not take a parameter's name);
    ``own``: the parameters the subcircuit itself defines."""
    visible = dict(outer)
    mine: dict = {}
    for st in statements:
        if isinstance(st, ast.Directive) and st.name == DIRECTIVE:
            fn = _definition(st, where, visible, own)
            if fn.name in mine:
                first = mine[fn.name].loc
                raise NetlistError(f"function {fn.name} is defined twice (first at line "
                                   f"{first.line})", st.positional[0].loc)
            clash = next((p for p in params if p.lower() == fn.name), None)
            if clash is not None:
                raise NetlistError(f"function {fn.name} has the name of the parameter "
                                   f"'{clash}' (line {params[clash].line}); choose another "
                                   "name", st.positional[0].loc)
            mine[fn.name] = visible[fn.name] = fn
    for fn in mine.values():        # each body checked, called or not
        _body(fn, None, ())
    return visible


def _definition(st: ast.Directive, where: str, visible: dict, own) -> Function:
    """One ``.func`` line, checked."""
    if st.params:
        raise NetlistError(USAGE, st.params[0].loc)
    if len(st.positional) != 2 or not isinstance(st.positional[0], ast.Call):
        raise NetlistError(USAGE, st.positional[0].loc if st.positional else st.loc)
    head, body = st.positional
    if not isinstance(body, ast.Expr):
        raise NetlistError(f".func {head.name}: the body is an expression in braces, "
                           f"e.g. {{2*x}}; got '{body.text}'", body.loc)
    name = head.name.lower()
    if name in BUILT_IN:
        raise NetlistError(f"'{head.name}' is a built-in name of expressions and cannot "
                           "name a function; choose another name", head.loc)
    if head.keywords:
        raise NetlistError(f".func {name}: arguments are plain names", head.keywords[0].loc)
    args: list = []
    for a in head.args:
        if not isinstance(a, ast.Ident) or "." in a.name:
            raise NetlistError(f".func {name}: an argument is a plain name, got '{a.text}'",
                               a.loc)
        if a.name.lower() in (*CONSTANTS, "time"):
            raise NetlistError(f".func {name}: '{a.name}' is reserved (the time or a "
                               "constant) and cannot name an argument", a.loc)
        if a.name in args:
            raise NetlistError(f".func {name}: argument '{a.name}' is listed twice", a.loc)
        args.append(a.name)
    return Function(name, tuple(args), _tagged(body.tree, name), head.loc, where, visible,
                    frozenset(own))


# --- expansion -------------------------------------------------------------------------------
def expand(tree, visible: dict, loc: Loc | None, own=frozenset(), _chain: tuple = ()):
    """``tree`` with every call of a user function replaced by the function's body, its
    arguments put in place (``visible``: name -> Function; ``own``: the parameters of
    the subcircuit the tree is written in)."""
    if not expressions.calls(tree, is_call):
        return tree
    tree = expressions.rewrite(tree, lambda node: _inline(node, visible, own, _chain)
                               if is_call(node) else node)
    if not expressions.nodes_below(tree, MAX_NODES):
        raise NetlistError(f"the expression grows to more than {MAX_NODES} terms once its "
                           "functions are expanded", loc)
    return expressions.bounded(tree, loc)


def _inline(node: Func, visible: dict, own, chain: tuple):
    """The body of the function ``node`` calls, its arguments put in place."""
    fn = visible.get(node.name)
    if fn is None:
        raise NetlistError(f"unknown function '{node.name}' in expression", node.loc,
                           did_you_mean(node.name, [*FUNCTIONS, *CONSTANTS,
                                                    *TABLE_FUNCTIONS, *visible]))
    if len(node.args) != len(fn.args):
        n = len(fn.args)
        raise NetlistError(f"{fn.name}() takes {n} argument{'s' if n != 1 else ''} "
                           f"({', '.join(fn.args)}), got {len(node.args)}", node.loc,
                           f"{fn.name} is defined at {fn.loc}")
    body = _body(fn, node, chain)
    if own and not fn.where:
        reads = expressions.free_names(body) - set(fn.args)
        shadowed = sorted(reads & own)
        if shadowed:
            raise NetlistError(f"{fn.name}() (defined at line {fn.loc.line}) reads "
                               f"'{shadowed[0]}', which this subcircuit defines as its own "
                               f"parameter; pass it to {fn.name}() as an argument", node.loc)
    return expressions.replace_names(body, dict(zip(fn.args, node.args)))


def _body(fn: Function, call: Func, chain: tuple):
    """The body of ``fn``, its own calls expanded (once); a function that calls itself,
    directly or through others, is refused at the call that closes the cycle."""
    if fn.expanded is None:
        if fn in chain:
            cycle = [f.name for f in chain[chain.index(fn):]] + [fn.name]
            raise NetlistError(f"function {fn.name} calls itself: {' -> '.join(cycle)} "
                               "(a .func may not be recursive)", call.loc)
        fn.expanded = expand(fn.body, fn.visible, fn.loc, fn.own, chain + (fn,))
    return fn.expanded


def expand_values(items, visible: dict, own=frozenset()) -> None:
    """Expand, in place, the calls in the brace expressions among ``items`` (values,
    with vectors and time-function calls looked into)."""
    for v in items:
        if isinstance(v, ast.Expr):
            v.tree = expand(v.tree, visible, v.loc, own)
        elif isinstance(v, ast.Vector):
            expand_values(v.items, visible, own)
        elif isinstance(v, ast.Call):
            expand_values([*v.args, *(a.value for a in v.keywords)], visible, own)


def expand_statements(statements, visible: dict, own=frozenset()) -> None:
    """Expand the calls in the values of ``statements`` (nested subcircuits and the
    ``.func`` lines themselves left out)."""
    for st in statements:
        if isinstance(st, ast.ElementStmt) or (isinstance(st, ast.Directive)
                                                and st.name != DIRECTIVE):
            expand_values([*st.positional, *(a.value for a in st.params)], visible, own)
