"""Elements whose one parameter is an expression of the circuit's unknowns (``sense``,
``heat``): the unknowns it reads (its extra variables, after its port), its value and
its derivatives by them, compiled once per group (the group shares one expression)."""
from types import SimpleNamespace

import numpy as np

from ..runtime import expressions


def references(tree) -> list:
    """The unknowns the expression reads, in a fixed order (``time`` is not one)."""
    return sorted(expressions.free_names(tree) - {"time"})


def compiled(tree) -> SimpleNamespace:
    """The expression's value ``f`` and its derivatives ``df`` by each reference, both
    functions of (time, reference values...)."""
    refs = references(tree)
    args = ["time"] + refs
    return SimpleNamespace(
        nrefs=len(refs), f=expressions.compile_(tree, args),
        df=expressions.compile_group([expressions.diff(tree, r) for r in refs], args))


def value(t, x, p) -> np.ndarray:
    """The expression for each instance: x holds the port's variable, then the references."""
    return np.broadcast_to(p.f(*_arguments(t, x, p)), x.shape[:-1])


def slopes(t, x, p):
    """(reference index, derivative for each instance) of the expression."""
    for j, dfj in enumerate(p.df(*_arguments(t, x, p))):
        yield j, np.broadcast_to(dfj, x.shape[:-1])


def _arguments(t, x, p) -> list:
    return [t] + [x[..., 1 + j] for j in range(p.nrefs)]
