"""Elements whose one parameter is an expression of the circuit's unknowns (``sense``,
``heat``): the unknowns it reads (its extra variables, after its port), its value and
its derivatives by them, compiled once per group (the group shares one expression)."""
from types import SimpleNamespace

import numpy as np

from ..runtime import expressions
from ..runtime.singularities import singular_factors
from .protocols import SingularityProtocol


def references(tree) -> list:
    """The unknowns the expression reads, in a fixed order (``time`` is not one)."""
    return sorted(expressions.free_names(tree) - {"time"})


def compiled(tree) -> SimpleNamespace:
    """The expression's value ``f`` and its derivatives ``df`` by each reference, both
    functions of (time, reference values...)."""
    refs = references(tree)
    args = ["time"] + refs
    poles, pole_values = watched(tree, args)
    return SimpleNamespace(
        nrefs=len(refs), f=expressions.compile_(tree, args),
        df=expressions.compile_group([expressions.diff(tree, r) for r in refs], args),
        poles=poles, pole_values=pole_values)


def watched(tree, args) -> tuple:
    """The factors whose sign change makes the expression infinite or undefined
    (:mod:`circuitsim.runtime.singularities`): their names as switching functions, and
    one compiled function of ``args`` giving their values (None if there are none)."""
    factors = singular_factors(tree)
    names = tuple(f"factor ({expressions.to_text(f)})" for f in factors)
    return names, (expressions.compile_group(factors, args) if factors else None)


def arguments(t, x, first: int, nrefs: int) -> list:
    """[time, the references' values] for the expression, the references being x's
    columns first, first + 1, ...: Python floats for one instance at one time (the
    compiled expression's float route, runtime/floatmath.py), else arrays."""
    if isinstance(t, float) and x.ndim == 2 and x.shape[0] == 1 and x.dtype == np.float64:
        return [float(t)] + x[0, first:first + nrefs].tolist()
    return [t] + [x[..., first + j] for j in range(nrefs)]


def spread(value, shape) -> np.ndarray:
    """A value of the expression (a float, a scalar or an array) for each instance."""
    if value.__class__ is float:
        return np.full(shape, value)
    return np.broadcast_to(value, shape)


def watched_values(p, arguments, n: int) -> np.ndarray:
    """(n, len(p.poles)) the watched factors' values for n instances."""
    if p.pole_values is None:
        return np.zeros((n, 0))
    return np.stack([spread(g, (n,)) for g in p.pole_values(*arguments)], axis=1)


def value(t, x, p) -> np.ndarray:
    """The expression for each instance: x holds the port's variable, then the references."""
    return spread(p.f(*arguments(t, x, 1, p.nrefs)), x.shape[:-1])


def slopes(t, x, p):
    """(reference index, derivative for each instance) of the expression."""
    for j, dfj in enumerate(p.df(*arguments(t, x, 1, p.nrefs))):
        yield j, spread(dfj, x.shape[:-1])


def poles(t, x, p) -> np.ndarray:
    """The switching functions of an element reading an expression (its watched
    factors), for each instance."""
    return watched_values(p, arguments(t, x, 1, p.nrefs), x.shape[0])


class WatchedExpression(SingularityProtocol):
    """The switching functions of an element that reads one expression (``compiled``):
    its watched factors, terminal (SingularityProtocol)."""

    @classmethod
    def switch_names(cls, group):
        return group.poles

    @classmethod
    def switching_functions(cls, t, x, xp, p):
        return poles(t, x, p)
