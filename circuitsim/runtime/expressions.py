"""Expression trees: nodes, evaluation, substitution, derivative, compilation, text.

Nodes are immutable and compare by structure, so equal expressions can be grouped.
Names may be dotted (``K1.x``); ``time`` is an ordinary name. The netlist front-end
builds trees from brace expressions (:mod:`circuitsim.netlist.exprbuilder`); the
elements compile and differentiate them at set-up. A Func node may carry a lookup table
(:mod:`circuitsim.runtime.tables`: ``table(x, file=...)`` as read from its file), which
computes it and gives its derivative.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import reduce
from typing import Callable, Mapping

import numpy as np

from ..errors import Loc, NetlistError, did_you_mean
from . import floatmath


# --- tree ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Num:
    value: float
    text: str | None = field(default=None, compare=False)   # as written, if parsed


@dataclass(frozen=True)
class Name:
    name: str
    loc: Loc | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Unary:
    op: str            # only '-'
    arg: object


@dataclass(frozen=True)
class Binary:
    op: str            # + - * / ^
    left: object
    right: object


@dataclass(frozen=True)
class Func:
    name: str          # lower-case
    args: tuple
    loc: Loc | None = field(default=None, compare=False)
    # a lookup table (runtime.tables: ``table``, ``table2`` and their derivatives) called
    # with ``args`` instead of FUNCTIONS[name]; None for the built-in functions
    table: object = None

    def with_args(self, args) -> "Func":
        """The same function (and table) of other arguments."""
        return Func(self.name, tuple(args), self.loc, self.table)


def _function(node: Func):
    """What computes a Func node: its table, or the numpy function of its name."""
    if node.table is None and node.name not in FUNCTIONS:   # a call left unexpanded
        raise NetlistError(f"unknown function '{node.name}' in expression", node.loc,
                           did_you_mean(node.name, FUNCTIONS))
    return node.table if node.table is not None else FUNCTIONS[node.name][2]


def _minimum(*a):
    return reduce(np.minimum, a)


def _maximum(*a):
    return reduce(np.maximum, a)


def _truth(compare):
    return lambda a, b: np.where(compare(a, b), 1.0, 0.0)


def _step(x):
    """Heaviside step: 0 for x < 0, 1 from x = 0 on."""
    return np.heaviside(x, 1.0)


def _choose(condition, a, b):
    """if(c, a, b): a where c is not 0, else b."""
    return np.where(np.not_equal(condition, 0.0), a, b)


# name -> (min args, max args or None for n-ary, numpy implementation)
FUNCTIONS: dict = {
    "sin": (1, 1, np.sin), "cos": (1, 1, np.cos), "tan": (1, 1, np.tan),
    "asin": (1, 1, np.arcsin), "acos": (1, 1, np.arccos), "atan": (1, 1, np.arctan),
    "atan2": (2, 2, np.arctan2), "sinh": (1, 1, np.sinh), "cosh": (1, 1, np.cosh),
    "tanh": (1, 1, np.tanh), "sqrt": (1, 1, np.sqrt), "exp": (1, 1, np.exp),
    "log": (1, 1, np.log), "abs": (1, 1, np.abs), "sign": (1, 1, np.sign),
    "step": (1, 1, _step), "if": (3, 3, _choose),
    "min": (1, None, _minimum), "max": (1, None, _maximum),
    # the comparison operators a < b ... a != b
    "lt": (2, 2, _truth(np.less)), "gt": (2, 2, _truth(np.greater)),
    "le": (2, 2, _truth(np.less_equal)), "ge": (2, 2, _truth(np.greater_equal)),
    "eq": (2, 2, _truth(np.equal)), "ne": (2, 2, _truth(np.not_equal)),
}
# functions that are piecewise constant: their derivative is 0 (where it exists)
PIECEWISE_CONSTANT = ("sign", "step", "lt", "gt", "le", "ge", "eq", "ne")
CONSTANTS = {"pi": math.pi}
_BINARY = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide, "^": np.power}


# --- size and depth ----------------------------------------------------------------------
# Every function below walks trees recursively, and compiled expressions nest one call per
# level; so a tree is balanced and its depth bounded before any of them sees it
# (``bounded``). A long sum or product (a fitted polynomial of hundreds of terms) is
# rebuilt as a balanced tree, depth log2(terms); what cannot be balanced (brackets inside
# brackets, chains of unary minus or powers) is limited to MAX_DEPTH levels.
MAX_DEPTH = 150          # levels of nesting of an expression (Python compiles 200)
BALANCE_FROM = 16        # sums and products of more terms are rebalanced
# nodes of an expression once its user functions and local names are put in place (a
# part used twice counted twice): each use doubling the one before, 30 deep, would
# otherwise make a billion
MAX_NODES = 100_000


def _kids(node) -> tuple:
    match node:
        case Unary(arg=a):
            return (a,)
        case Binary(left=l, right=r):
            return (l, r)
        case Func(args=args):
            return args
    return ()


def _postorder(tree, split, join):
    """join(node, info, results of its parts) for every node, children first, without
    recursion; split(node) -> (info, parts)."""
    results: list = []
    stack = [(tree, None)]
    while stack:
        node, info = stack.pop()
        if info is None:
            info, parts = split(node)
            stack.append((node, (info, len(parts))))
            stack.extend((p, None) for p in reversed(parts))
        else:
            extra, n = info
            parts = results[len(results) - n:]
            del results[len(results) - n:]
            results.append(join(node, extra, parts))
    return results[0]


_CHAINS = {"+": ("+", "-"), "-": ("+", "-"), "*": ("*", "/"), "/": ("*", "/")}


def _chain(node) -> tuple[list, list]:
    """A left-associative chain a ± b ± c ... (or a * b / c ...) -> (terms, inverted?)."""
    ops = _CHAINS[node.op]
    terms, inverted = [], []
    while isinstance(node, Binary) and node.op in ops:
        terms.append(node.right)
        inverted.append(node.op == ops[1])
        node = node.left
    terms.append(node)
    inverted.append(False)
    return terms[::-1], inverted[::-1]


def _balanced(op: str, terms: list):
    while len(terms) > 1:
        terms = [Binary(op, terms[i], terms[i + 1]) if i + 1 < len(terms) else terms[i]
                 for i in range(0, len(terms), 2)]
    return terms[0]


def _split_balancing(node):
    if isinstance(node, Binary) and node.op in _CHAINS:
        terms, inverted = _chain(node)
        if len(terms) >= BALANCE_FROM:
            return ("chain", _CHAINS[node.op], inverted), terms
    return None, _kids(node)


def _rebuilt(node, parts):
    """``node`` with its children replaced by ``parts`` (a leaf as it is)."""
    match node:
        case Unary(op=op):
            return Unary(op, parts[0])
        case Binary(op=op):
            return Binary(op, parts[0], parts[1])
        case Func():
            return node.with_args(parts)
    return node


def _join_balancing(node, info, parts):
    if info is None:
        return _rebuilt(node, parts)
    _, (direct, inverse), inverted = info
    plain = [p for p, inv in zip(parts, inverted) if not inv]
    others = [p for p, inv in zip(parts, inverted) if inv]
    if not others:
        return _balanced(direct, plain)
    if not plain:       # - b - c ...: only a sum can start inverted (a unary minus)
        return Unary("-", _balanced(direct, others))
    return Binary(inverse, _balanced(direct, plain), _balanced(direct, others))


def depth(tree) -> int:
    """Levels of nesting of the tree (a leaf is 1)."""
    return _postorder(tree, lambda node: (None, _kids(node)),
                      lambda node, _, parts: 1 + max(parts, default=0))


def _fewer_nodes(tree, limit: int) -> bool:
    """Has the tree fewer than ``limit`` nodes? (Counts no further than the limit.)"""
    stack, count = [tree], 0
    while stack:
        count += 1
        if count >= limit:
            return False
        stack.extend(_kids(stack.pop()))
    return True


def bounded(tree, loc: Loc | None = None):
    """The tree with long sums and products balanced; NetlistError at ``loc`` if it is
    still nested more than MAX_DEPTH levels deep."""
    # a chain of BALANCE_FROM terms has 2·BALANCE_FROM − 1 nodes, and a tree smaller than
    # that is less than MAX_DEPTH deep: the tree of almost every brace, returned as it is
    # (the walks below would rebuild an equal tree: a fifth of parsing a large netlist)
    if _fewer_nodes(tree, 2 * BALANCE_FROM - 1):
        return tree
    tree = _postorder(tree, _split_balancing, _join_balancing)
    levels = depth(tree)
    if levels > MAX_DEPTH:
        raise NetlistError(f"expression nested {levels} levels deep (brackets, unary minus "
                           f"or powers inside each other); at most {MAX_DEPTH} are accepted",
                           loc)
    return tree


# --- analysis -----------------------------------------------------------------------
def free_names(tree) -> set:
    """Names the expression needs from its environment."""
    match tree:
        case Name(name=n):
            return {n}
        case Unary(arg=a):
            return free_names(a)
        case Binary(left=l, right=r):
            return free_names(l) | free_names(r)
        case Func(args=args):
            return set().union(*(free_names(a) for a in args))
    return set()


def _first_loc(tree) -> Loc | None:
    match tree:
        case Name(loc=loc) | Func(loc=loc) if loc is not None:
            return loc
        case Unary(arg=a):
            return _first_loc(a)
        case Binary(left=l, right=r):
            return _first_loc(l) or _first_loc(r)
        case Func(args=args):
            return next((x for x in map(_first_loc, args) if x), None)
    return None


def _unknown(name: Name, env, loc: Loc | None) -> NetlistError:
    # a name written in the body of a user function has a Loc that names the function
    function = getattr(name.loc, "function", None)
    where = f" (in the body of function {function})" if function else ""
    return NetlistError(f"unknown name '{name.name}' in expression{where}", name.loc or loc,
                        did_you_mean(name.name, env))


def evaluate(tree, env: Mapping, loc: Loc | None = None):
    """Value of the expression; names from ``env`` (floats or numpy arrays, which are
    broadcast). Raises NetlistError for a name not in ``env`` (at the name, else ``loc``)."""
    with np.errstate(all="ignore"):
        value = _eval(tree, env, loc)
    return float(value) if np.ndim(value) == 0 else value


def _eval(tree, env, loc):
    match tree:
        case Num(value=v):
            return v
        case Name(name=n):
            if n not in env:
                raise _unknown(tree, env, loc)
            return env[n]
        case Unary(arg=a):
            return np.negative(_eval(a, env, loc))
        case Binary(op=op, left=l, right=r):
            return _BINARY[op](_eval(l, env, loc), _eval(r, env, loc))
        case Func(args=args):
            return _function(tree)(*(_eval(a, env, loc) for a in args))
    raise TypeError(f"not an expression node: {tree!r}")


# --- simplifying constructors (used by substitute and diff) ---------------------------
def _is(tree, value: float) -> bool:
    return isinstance(tree, Num) and tree.value == value


def _fold(tree):
    with np.errstate(all="ignore"):
        value = float(_eval(tree, {}, None))
    return Num(value) if math.isfinite(value) else tree


def neg(a):
    if isinstance(a, Num):
        return Num(-a.value)
    if isinstance(a, Unary):
        return a.arg
    return Unary("-", a)


def add(a, b):
    if _is(a, 0):
        return b
    if _is(b, 0):
        return a
    return _fold(Binary("+", a, b)) if isinstance(a, Num) and isinstance(b, Num) \
        else Binary("+", a, b)


def sub(a, b):
    if _is(b, 0):
        return a
    if _is(a, 0):
        return neg(b)
    return _fold(Binary("-", a, b)) if isinstance(a, Num) and isinstance(b, Num) \
        else Binary("-", a, b)


def mul(a, b):
    if _is(a, 0) or _is(b, 0):
        return Num(0.0)
    if _is(a, 1):
        return b
    if _is(b, 1):
        return a
    if _is(a, -1):
        return neg(b)
    if _is(b, -1):
        return neg(a)
    return _fold(Binary("*", a, b)) if isinstance(a, Num) and isinstance(b, Num) \
        else Binary("*", a, b)


def div(a, b):
    if _is(b, 1):
        return a
    if _is(a, 0) and not _is(b, 0):
        return Num(0.0)
    return _fold(Binary("/", a, b)) if isinstance(a, Num) and isinstance(b, Num) \
        else Binary("/", a, b)


def power(a, b):
    if _is(b, 1):
        return a
    if _is(b, 0):
        return Num(1.0)
    return _fold(Binary("^", a, b)) if isinstance(a, Num) and isinstance(b, Num) \
        else Binary("^", a, b)


def func(name: str, *args, table=None):
    tree = Func(name, tuple(args), table=table)
    return _fold(tree) if all(isinstance(a, Num) for a in args) else tree


_MAKE = {"+": add, "-": sub, "*": mul, "/": div, "^": power}


def substitute(tree, env: Mapping):
    """Replace the names found in ``env`` by their (scalar) values and fold constants.
    Names not in ``env`` stay (they are resolved later, e.g. ``time``)."""
    match tree:
        case Name(name=n) if n in env and np.ndim(env[n]) == 0:
            return Num(float(env[n]))
        case Unary(arg=a):
            return neg(substitute(a, env))
        case Binary(op=op, left=l, right=r):
            return _MAKE[op](substitute(l, env), substitute(r, env))
        case Func(name=f, args=args):
            new = func(f, *(substitute(a, env) for a in args), table=tree.table)
            return tree.with_args(new.args) if isinstance(new, Func) else new
    return tree


def tables(tree) -> list:
    """The tables (``Func.table``) in the tree, in no particular order."""
    found, stack = [], [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Func) and node.table is not None:
            found.append(node.table)
        stack.extend(_kids(node))
    return found


def replace_tables(tree, replace: Callable):
    """The tree with the table ``t`` of each Func node replaced by ``replace(t)`` (the
    netlist front-end puts the tables it has read in place of the calls as written)."""
    def join(node, _, parts):
        new = _rebuilt(node, parts)
        if isinstance(new, Func) and new.table is not None:
            return Func(new.name, new.args, new.loc, replace(new.table))
        return new
    return _postorder(tree, lambda node: (None, _kids(node)), join)


def rewrite(tree, replace: Callable):
    """The tree rebuilt from its leaves up, each node (its parts already rewritten)
    replaced by ``replace(node)``."""
    return _postorder(tree, lambda node: (None, _kids(node)),
                      lambda node, _, parts: replace(_rebuilt(node, parts)))


def replace_names(tree, mapping: Mapping):
    """The tree with each name in ``mapping`` replaced by the tree it maps to (the
    arguments of a user function put in its body; a local name put in its expression)."""
    return rewrite(tree, lambda node: mapping.get(node.name, node)
                   if isinstance(node, Name) else node)


def nodes_below(tree, limit: int) -> bool:
    """Has the tree, counted as a tree (a shared part once per use), fewer than
    ``limit`` nodes?"""
    return _fewer_nodes(tree, limit)


def calls(tree, keep: Callable) -> list:
    """The Func nodes of the tree for which ``keep(node)`` is true, in no particular order."""
    found, stack = [], [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Func) and keep(node):
            found.append(node)
        stack.extend(_kids(node))
    return found


# --- derivative -----------------------------------------------------------------------
def rename(tree, mapping: Mapping):
    """The tree with names replaced by other names (subcircuit scoping)."""
    if isinstance(tree, Name):
        return Name(mapping.get(tree.name, tree.name), tree.loc)
    if isinstance(tree, Unary):
        return Unary(tree.op, rename(tree.arg, mapping))
    if isinstance(tree, Binary):
        return Binary(tree.op, rename(tree.left, mapping), rename(tree.right, mapping))
    if isinstance(tree, Func):
        return tree.with_args(rename(a, mapping) for a in tree.args)
    return tree


def diff(tree, name: str):
    """Symbolic d(tree)/d(name), lightly simplified."""
    match tree:
        case Num():
            return Num(0.0)
        case Name(name=n):
            return Num(1.0 if n == name else 0.0)
        case Unary(arg=a):
            return neg(diff(a, name))
        case Binary(op="+" | "-" as op, left=l, right=r):
            return _MAKE[op](diff(l, name), diff(r, name))
        case Binary(op="*", left=l, right=r):
            return add(mul(diff(l, name), r), mul(l, diff(r, name)))
        case Binary(op="/", left=l, right=r):
            dl, dr = diff(l, name), diff(r, name)
            return sub(div(dl, r), div(mul(l, dr), power(r, Num(2.0))))
        case Binary(op="^", left=l, right=r):
            return _diff_power(l, r, name)
        case Func(table=table) if table is not None:
            return _diff_table(tree, name)
        case Func(name=f, args=args):
            return _diff_func(f, args, name)
    raise TypeError(f"not an expression node: {tree!r}")


def _diff_power(base, expo, name):
    db, de = diff(base, name), diff(expo, name)
    if _is(de, 0):   # u^c: c*u^(c-1)*u'
        return mul(mul(expo, power(base, sub(expo, Num(1.0)))), db)
    # u^v = exp(v log u): u^v (v' log u + v u'/u)
    return mul(power(base, expo), add(mul(de, func("log", base)), div(mul(expo, db), base)))


def _diff_table(node: Func, name: str):
    """d table(u)/d name = table'(u) u' (a map: the sum over its two arguments); a
    derivative that is 0 everywhere (``derivative()`` or ``partial()`` gives None) drops."""
    table, total = node.table, Num(0.0)
    for axis, arg in enumerate(node.args):
        du = diff(arg, name)
        if _is(du, 0):
            continue
        slope = table.derivative() if len(node.args) == 1 else table.partial(axis)
        if slope is not None:
            total = add(total, mul(Func(node.name, node.args, node.loc, slope), du))
    return total


def _diff_func(f: str, args: tuple, name: str):
    if f in ("min", "max"):
        if len(args) == 1:
            return diff(args[0], name)
        # min(a, b) = (a + b - |a - b|)/2, max with +; n-ary by folding from the left.
        a = Func(f, args[:-1]) if len(args) > 2 else args[0]
        b = args[-1]
        da, db = diff(a, name), diff(b, name)
        s = mul(func("sign", sub(a, b)), sub(da, db))
        return mul(Num(0.5), (sub if f == "min" else add)(add(da, db), s))
    if f == "atan2":
        y, x = args
        dy, dx = diff(y, name), diff(x, name)
        return div(sub(mul(x, dy), mul(y, dx)), add(power(x, Num(2.0)), power(y, Num(2.0))))
    if f in PIECEWISE_CONSTANT:
        return Num(0.0)
    if f == "if":
        condition, a, b = args
        return func("if", condition, diff(a, name), diff(b, name))
    u = args[0]
    du = diff(u, name)
    if _is(du, 0):
        return Num(0.0)
    one, two = Num(1.0), Num(2.0)
    outer = {
        "sin": lambda: func("cos", u),
        "cos": lambda: neg(func("sin", u)),
        "tan": lambda: div(one, power(func("cos", u), two)),
        "asin": lambda: div(one, func("sqrt", sub(one, power(u, two)))),
        "acos": lambda: neg(div(one, func("sqrt", sub(one, power(u, two))))),
        "atan": lambda: div(one, add(one, power(u, two))),
        "sqrt": lambda: div(one, mul(two, func("sqrt", u))),
        "exp": lambda: func("exp", u),
        "log": lambda: div(one, u),
        "abs": lambda: func("sign", u),
        "sinh": lambda: func("cosh", u),
        "cosh": lambda: func("sinh", u),
        "tanh": lambda: sub(one, power(func("tanh", u), two)),
    }[f]()
    return mul(outer, du)


# --- compilation ------------------------------------------------------------------------
_PREC = {"+": 1, "-": 1, "*": 2, "/": 2, "^": 4}
_UNARY_PREC = 3
_ATOM = 5


def compile_(tree, arg_names) -> Callable:
    """A numpy function ``f(*arrays)`` of the names in ``arg_names`` (in that order).

    Straight-line Python is generated from the tree (see ``compile_group``) and compiled
    once. A constant expression returns a scalar. Raises NetlistError for a name not in
    ``arg_names``."""
    return _compiled([tree], arg_names, single=True)


def compile_group(trees, arg_names) -> Callable:
    """One numpy function ``f(*arrays) -> tuple`` of the values of all ``trees`` (in
    order): expressions evaluated together share their common subexpressions and one
    floating-point error state. Raises NetlistError for a name not in ``arg_names``."""
    return _compiled(list(trees), arg_names, single=False)


# The generated function costs its arithmetic: one statement per distinct operation,
# constant subexpressions folded at compilation (by the same numpy functions, so to the
# same bits), + - * / written as operators (IEEE arithmetic: the same bits as np.add ...
# on numpy scalars and arrays), the other operations the same numpy functions as
# ``evaluate``. Called with floats only (one instance, one time), the statements run
# first on Python floats with the math functions of ``floatmath`` (the same bits, about
# a tenth of a microsecond an operation against a microsecond of numpy's dispatch);
# where that raises (a division by zero, an overflow, a domain error) the call is
# evaluated by numpy, where it gives inf or NaN. Plain Python numbers among the arguments become numpy scalars on
# that route, so that a division by zero gives inf instead of raising; floating-point
# warnings are silenced once per call, for the whole group.
_OPERATORS = {"+": "+", "-": "-", "*": "*", "/": "/"}
_PLAIN_NUMBERS = (float, int)


def _compiled(trees: list, arg_names, single: bool) -> Callable:
    slots = {n: f"_a{i}" for i, n in enumerate(arg_names)}
    for tree in trees:
        require_names(tree, arg_names)
    lines: list = []              # (variable, its numpy statement, its float statement)
    shared: dict = {}
    results = [_straight_line(tree, slots, lines, shared)[0] for tree in trees]
    returned = results[0] if single else "(" + "".join(r + ", " for r in results) + ")"
    args = list(slots.values())
    floats = " and ".join(f"({a}.__class__ is _float or {a}.__class__ is _f64)"
                          for a in args) or "True"
    to_float = "".join(f"            {a} = _float({a})\n" for a in args)
    on_floats = "".join(f"            {name} = {code}\n" for name, _, code in lines)
    coerce = "".join(f"    if {a}.__class__ in _plain: {a} = _f64({a})\n" for a in args)
    body = "".join(f"        {name} = {code}\n" for name, code, _ in lines)
    src = (f"def _f({', '.join(args)}):\n"
           f"    if {floats}:\n        try:\n{to_float}{on_floats}"
           f"            return {returned}\n"
           f"        except _float_errors:\n            pass\n{coerce}"
           f"    with _np.errstate(all='ignore'):\n{body}"
           f"        return {returned}\n")
    tables = shared.get(_TABLES, {})
    namespace = {"_np": np, "_f64": np.float64, "_plain": _PLAIN_NUMBERS, "_float": float,
                 "_float_errors": floatmath.FLOAT_ERRORS,
                 "_inf": math.inf, "_nan": math.nan, "_fn_power": np.power,
                 **{f"_fn_{k}": v[2] for k, v in FUNCTIONS.items()},
                 **{f"_fl_{k}": fn for k, fn in floatmath.FUNCTIONS.items()},
                 **{slot: table for table, slot in tables.items()},
                 **{f"_fl{slot}": floatmath.table(table) for table, slot in tables.items()}}
    exec(compile(src, "<expression>", "exec"), namespace)
    return namespace["_f"]


def require_names(tree, arg_names) -> None:
    """Raise NetlistError (at the name) if the expression reads a name not in
    ``arg_names``: what compiling it would raise, without compiling."""
    missing = free_names(tree) - set(arg_names)
    if missing:
        name = sorted(missing)[0]
        raise _unknown(find_name(tree, name), {n: None for n in arg_names}, _first_loc(tree))


def _straight_line(tree, slots, lines: list, shared: dict) -> tuple:
    """Append to ``lines`` the statements computing ``tree``; -> (the text of its value,
    its value if it is a constant, else None). ``shared`` maps an operation (its kind and
    the texts of its operands) to the variable already holding it, and a node already
    seen (by identity: derivatives reuse subtrees) to its result."""
    def split(node):
        if id(node) in shared:
            return shared[id(node)], ()
        return None, _kids(node)

    def join(node, known, parts):
        if known is not None:
            return known
        result = _statement(node, parts, slots, lines, shared)
        shared[id(node)] = result
        return result

    return _postorder(tree, split, join)


def _statement(node, parts, slots, lines, shared) -> tuple:
    match node:
        case Num(value=v):
            return _literal(v), v
        case Name(name=n):
            return slots[n], None
    if parts and all(value is not None for _, value in parts):
        with np.errstate(all="ignore"):
            value = _apply(node, [value for _, value in parts])
        value = float(value)
        return _literal(value), value
    args = [text for text, _ in parts]
    match node:
        case Func(table=table) if table is not None:    # a slot per table: _tab0, ...
            tables = shared.setdefault(_TABLES, {})
            slot = tables.setdefault(table, f"_tab{len(tables)}")
            key = (slot, *args)
            code = f"{slot}({', '.join(args)})"
            on_floats = f"_fl{code}"
        case Unary():
            key = ("-", args[0])
            code = on_floats = f"-{args[0]}"
        case Binary(op=op) if op in _OPERATORS:
            key = (op, *args)
            code = on_floats = f"{args[0]} {_OPERATORS[op]} {args[1]}"
        case Binary():
            key = ("^", *args)
            code = f"_fn_power({args[0]}, {args[1]})"
            exponent = parts[1][1]            # numpy's own route for some constant ones
            on_floats = floatmath.CONSTANT_POWERS.get(
                exponent, "_fl_power({0}, {1})").format(*args)
        case Func(name=f):
            key = (f, *args)
            code = f"_fn_{f}({', '.join(args)})"
            on_floats = f"_fl_{f}({', '.join(args)})"
    if key not in shared:
        shared[key] = f"_t{len(lines)}"
        lines.append((shared[key], code, on_floats))
    return shared[key], None


_TABLES = "tables"    # the key in ``shared`` of {table: its slot in the namespace}


def _apply(node, values):
    """The node's operation on constant operands, as ``evaluate`` computes it."""
    match node:
        case Unary():
            return np.negative(values[0])
        case Binary(op=op):
            return _BINARY[op](*values)
        case Func():
            return _function(node)(*values)
    raise TypeError(f"not an expression node: {node!r}")


def find_name(tree, name: str) -> Name | None:
    """The first Name node ``name`` in the tree (None if there is none, or if ``tree`` is
    not an expression)."""
    match tree:
        case Name(name=n) if n == name:
            return tree
        case Unary(arg=a):
            return find_name(a, name)
        case Binary(left=l, right=r):
            return find_name(l, name) or find_name(r, name)
        case Func(args=args):
            return next((x for x in (find_name(a, name) for a in args) if x), None)
    return None


def _literal(v: float) -> str:
    if math.isnan(v):
        return "_nan"
    if math.isinf(v):
        return "_inf" if v > 0 else "(-_inf)"
    return f"({v!r})" if v < 0 else repr(v)


# --- canonical text ---------------------------------------------------------------------
def _prec(tree) -> int:
    match tree:
        case Num(value=v):
            return _UNARY_PREC if v < 0 else _ATOM
        case Unary():
            return _UNARY_PREC
        case Binary(op=op):
            return _PREC[op]
    return _ATOM


def _number_text(v: float) -> str:
    if v == math.pi:
        return "pi"
    text = repr(float(v))
    return text[:-2] if text.endswith(".0") else text


def to_text(tree) -> str:
    """Canonical text, parseable again; equal trees give equal text (a grouping key)."""
    match tree:
        case Num(value=v):
            return _number_text(v)
        case Name(name=n):
            return n
        case Unary(arg=a):
            inner = to_text(a)
            return f"-({inner})" if _prec(a) < _UNARY_PREC else f"-{inner}"
        case Binary(op=op, left=l, right=r):
            p = _PREC[op]
            if op == "^":   # right-associative; the exponent may be a unary minus
                left_paren, right_paren = _prec(l) <= p, _prec(r) < _UNARY_PREC
            else:           # left-associative
                left_paren, right_paren = _prec(l) < p, _prec(r) <= p
            lt = f"({to_text(l)})" if left_paren else to_text(l)
            rt = f"({to_text(r)})" if right_paren else to_text(r)
            sep = f" {op} " if p == 1 else op
            return f"{lt}{sep}{rt}"
        case Func(name=f, args=args, table=table):
            head = f if table is None else table.text
            return f"{head}({', '.join(to_text(a) for a in args)})"
    raise TypeError(f"not an expression node: {tree!r}")
