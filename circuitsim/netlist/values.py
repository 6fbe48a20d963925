"""Turning written values (ast.Value) into SI numbers, vectors, time functions.

A value's meaning depends on where it is written: a parameter with a declared unit
accepts that unit's alternatives (``10mH``), a ``.param`` or a brace expression only
unambiguous suffixes (language.md §Values). All conversions go through here so that
every error is located at the value.
"""
from __future__ import annotations

import math
from typing import Mapping

import numpy as np

from .. import units
from ..errors import NetlistError, did_you_mean
from ..runtime import expressions
from . import ast, timefunctions


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
        names = expressions.free_names(value.tree)
        if "time" in names:
            raise NetlistError(f"{what} must be a constant; 'time' is only allowed in "
                               "sources and drives", value.loc)
        number = float(expressions.evaluate(value.tree, scope, loc=value.loc))
        if not math.isfinite(number):
            raise NetlistError(f"{what}: the expression {value.text} evaluates to {number} "
                               "(a division by zero, or a function outside its domain)",
                               value.loc)
        return number
    if isinstance(value, ast.Ident):
        if value.name in scope:
            return float(scope[value.name])
        hint = did_you_mean(value.name, scope)
        raise NetlistError(f"{what} expects {describe_unit(unit)}, got the name "
                           f"'{value.name}', which is not a parameter", value.loc, hint)
    raise NetlistError(f"{what} expects {describe_unit(unit)}, got '{value.text}'", value.loc)


def to_vector(value: ast.Value, scope, unit, size: int, what: str) -> np.ndarray:
    """A vector ``(a, b, ...)`` of ``size`` components, each converted like a number.
    ``unit`` may be a list with one unit per component."""
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
        return timefunctions.make_time_function(value, convert_value, convert_time, value.loc)
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
