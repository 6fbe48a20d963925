"""Turning written values (ast.Value) into SI numbers, vectors, time functions.

A value's meaning depends on where it is written: a parameter with a declared unit
accepts that unit's alternatives (``10mH``), a ``.param`` or a brace expression only
unambiguous suffixes (language.md §Values). All conversions go through here so that
every error is located at the value.
"""
from __future__ import annotations

import math
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Mapping

import numpy as np

from . import units
from ..errors import NetlistError, did_you_mean
from ..runtime import expressions
from . import ast, timefunction_builder
from .exprbuilder import split_number


class Scope(dict):
    """Parameter values (SI) by name, and in ``dims`` the dimension of each parameter
    whose value was written with a unit (``.param Aa=5V``, or computed from such
    parameters): a use of the parameter where another unit is declared is an error."""

    def __init__(self, *args, dims=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.dims = dict(dims or {})

    def copy(self) -> "Scope":
        return Scope(self, dims=self.dims)


# --- dimensions of written values ----------------------------------------------------------
# A dimension is the tuple of exponents of units.BASE; None means "not known" (a number
# written without a unit may stand for anything), and nothing is checked then.
_DIMENSIONLESS = units.ONE.dims
_TIME = units.parse_unit("s").dims
_TRANSCENDENTAL = {"sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
                   "tanh", "exp", "log", "sign", "step", "lt", "gt", "le", "ge", "eq", "ne"}


def _suffix_dims(text: str | None, bare):
    """Dimension of a number as written: its unit's, ``bare`` without a unit (a prefix
    alone is no unit)."""
    if not text or not text[0].isdigit() and text[0] not in "+-.":
        return bare                 # no text, or a named constant (pi)
    suffix = split_number(text)[1]
    if not suffix or suffix.lower() in units.PREFIXES:
        return bare
    if suffix in units.CELSIUS:
        return units.SYMBOLS["K"].dims          # an absolute temperature
    try:
        return units.parse_unit(suffix).dims
    except units.UnitError:
        return bare


def _same(dims: list):
    known = set(dims)
    return dims[0] if len(known) == 1 else None


def _tree_dims(tree, dims: Mapping):
    E = expressions
    match tree:
        case E.Num(text=text):
            return _suffix_dims(text, _DIMENSIONLESS)   # a bare constant: a pure number
        case E.Name(name=n):
            return _TIME if n == "time" else dims.get(n)
        case E.Unary(arg=a):
            return _tree_dims(a, dims)
        case E.Binary(op=op, left=l, right=r):
            a, b = _tree_dims(l, dims), _tree_dims(r, dims)
            if op in "+-":
                return a if a is not None and a == b else None
            if op == "^":
                if a == _DIMENSIONLESS:
                    return a
                if a is None or not isinstance(r, E.Num):
                    return None
                n = r.value
                return tuple(x * n for x in a) if all(float(x * n).is_integer()
                                                      for x in a) else None
            if a is None or b is None:
                return None
            sign = 1 if op == "*" else -1
            return tuple(x + sign * y for x, y in zip(a, b))
        case E.Func(table=table) if table is not None:
            return None            # a table's values are SI numbers of no declared unit
        case E.Func(name=f, args=args):
            if f in _TRANSCENDENTAL:
                return _DIMENSIONLESS
            inner = [_tree_dims(a, dims) for a in args]
            if f == "sqrt":
                d = inner[0]
                return (tuple(x // 2 for x in d) if d is not None
                        and all(x % 2 == 0 for x in d) else None)
            if f == "if":
                inner = inner[1:]
            return _same(inner) if None not in inner else None     # abs, min, max, if
    return None


def dims_of(value: ast.Value, scope: Mapping):
    """The dimension of a written value (None: not known)."""
    known = getattr(scope, "dims", {})
    if isinstance(value, ast.Number):
        return _suffix_dims(value.text, None)
    if isinstance(value, ast.Ident):
        return known.get(value.name)
    if isinstance(value, ast.Expr):
        return _tree_dims(value.tree, known)
    return None


def _without_radian(dims: tuple) -> tuple:
    rad = units.BASE.index("rad")
    return dims[:rad] + dims[rad + 1:]


def _dims_text(dims) -> str:
    for name in ("m", "m^2", "m^3", "kg", "s", "N", "N*m", "Pa", "V", "A", "W", "J", "rad",
                 "rad/s", "m/s", "m/s^2", "Ohm", "H", "F", "m^3/s", "kg*m^2", "N/m",
                 "N*s/m", "Hz", "K", "1/K", "J/K", "W/K", "K/W"):
        if units.parse_unit(name).dims == dims:
            return name
    return "*".join(f"{b}^{e}" if e != 1 else b for b, e in zip(units.BASE, dims) if e)


def _check_dims(value: ast.Value, scope, unit: str, what: str) -> None:
    """A parameter written with a unit (or an expression of such) used where another
    unit is declared: an error at the value."""
    if isinstance(value, ast.Number):
        return                      # a number's own suffix is checked by units.to_si
    dims = dims_of(value, scope)
    if dims is None or dims == _DIMENSIONLESS:
        return                      # a plain number is an SI value, accepted anywhere
    want = units.parse_unit(unit).dims
    if _without_radian(dims) != _without_radian(want):   # an angle is a plain number too
        raise NetlistError(f"{what} expects {describe_unit(unit)}, but {value.text} is in "
                           f"{_dims_text(dims)} (from the units its parameters were written "
                           "with)", value.loc)


def describe_unit(unit: str | None) -> str:
    return "a number" if not unit or unit == "1" else f"a value in {unit}"


def to_number(value: ast.Value, scope: Mapping[str, float], unit: str | None,
              what: str) -> float:
    """A scalar in SI. ``unit``: the declared SI unit, or None for 'no declared unit'.
    Identifiers naming a parameter are accepted as its value."""
    if isinstance(value, ast.Number):
        try:
            return units.to_si(value.mantissa, value.suffix, unit)
        except units.UnitError as exc:
            raise NetlistError(f"{what}: {exc}", value.loc) from None
    if isinstance(value, ast.Expr):
        known = _KNOWN.get()
        if known is None:
            return _expression(value, scope, unit, what)
        key = (id(scope), value.tree, unit)
        if key not in known:
            known[key] = _expression(value, scope, unit, what)
        return known[key]
    if unit is not None:
        _check_dims(value, scope, unit, what)
    if isinstance(value, ast.Ident):
        if value.name in scope:
            return float(scope[value.name])
        hint = did_you_mean(value.name, scope)
        raise NetlistError(f"{what} expects {describe_unit(unit)}, got the name "
                           f"'{value.name}', which is not a parameter", value.loc, hint)
    raise NetlistError(f"{what} expects {describe_unit(unit)}, got '{value.text}'", value.loc)


# Within ``memoised()``, the value of each brace expression, by scope, tree and unit: a
# large netlist writes the same brace on every line ({m*L^2/12} on each body), and the
# scopes do not change while the elements' values are converted. (A context variable:
# each thread converts its own netlist.)
_KNOWN: ContextVar = ContextVar("known_expressions", default=None)


@contextmanager
def memoised():
    """Convert each brace expression once per scope and unit inside the block; the
    scopes must not change in it (conversion.convert: they are complete by then)."""
    token = _KNOWN.set({})
    try:
        yield
    finally:
        _KNOWN.reset(token)


def _expression(value: ast.Expr, scope, unit: str | None, what: str) -> float:
    """A constant brace expression in SI (see to_number)."""
    if unit is not None:
        _check_dims(value, scope, unit, what)
    names = expressions.free_names(value.tree)
    if "time" in names:
        raise NetlistError(f"{what} must be a constant; 'time' is only allowed in "
                           "sources and drives", value.loc)
    number = float(expressions.evaluate(value.tree, scope, loc=value.loc))
    if not math.isfinite(number):
        raise NetlistError(f"{what}: the expression {value.text} evaluates to {number} "
                           "(a division by zero, or a function outside its domain)",
                           value.loc)
    try:
        units.check_magnitude(number)
    except units.UnitError as exc:
        raise NetlistError(f"{what}: the expression {value.text}: {exc}",
                           value.loc) from None
    return number


def to_vector(value: ast.Value, scope, unit, size: int, what: str) -> np.ndarray:
    """A vector ``(a, b, ...)`` of ``size`` components, each converted like a number.
    ``unit`` may be a list with one unit per component. ``size`` 0: any number of
    components (a coefficient list), a single number being one component."""
    if size == 0:
        items = value.items if isinstance(value, ast.Vector) else [value]
        return np.array([to_number(item, scope, unit, what) for item in items])
    if not isinstance(value, ast.Vector):
        raise NetlistError(f"{what} expects a vector of {size} values, like "
                           f"({', '.join(['0'] * size)})", value.loc)
    if len(value.items) != size:
        raise NetlistError(f"{what} expects {size} components, got {len(value.items)}",
                           value.loc)
    unit_list = unit if isinstance(unit, (list, tuple)) else [unit] * size
    return np.array([to_number(item, scope, u, what)
                     for item, u in zip(value.items, unit_list)])


def to_time_value(value: ast.Value, scope, unit, what: str):
    """A constant (float) or a TimeFunction for a parameter that may vary in time."""
    if isinstance(value, ast.Call) or (isinstance(value, ast.Expr)
                                       and "time" in expressions.free_names(value.tree)):
        def convert_value(v):
            return to_number(v, scope, unit, what)

        def convert_time(v):
            return to_number(v, scope, "s", what + " (time argument)")

        if isinstance(value, ast.Expr):
            tree = expressions.substitute(value.tree, {k: v for k, v in scope.items()
                                                       if k != "time"})
            value = ast.Expr(value.loc, value.text, tree)
        return timefunction_builder.make_time_function(value, convert_value, convert_time,
                                                       value.loc, unit)
    return to_number(value, scope, unit, what)


def to_time_vector(value: ast.Value, scope, unit, size: int, what: str) -> list:
    """A vector whose components may each be a time function (force F=(0, 0, step(...)))."""
    if not isinstance(value, ast.Vector) or len(value.items) != size:
        raise NetlistError(f"{what} expects a vector of {size} values, each a number or a "
                           f"time function, like (0, 0, step(1, 0, 10))", value.loc)
    return [to_time_value(item, scope, unit, what) for item in value.items]


def to_choice(value: ast.Value, choices: tuple, what: str) -> str:
    text = value.name if isinstance(value, ast.Ident) else value.text
    for choice in choices:
        if text.lower() == choice.lower():
            return choice
    raise NetlistError(f"{what} must be one of {', '.join(choices)}; got '{text}'",
                       value.loc, did_you_mean(text, choices))
