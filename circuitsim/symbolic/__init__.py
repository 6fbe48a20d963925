"""Symbolic equations of motion of a tree of revolute, prismatic, universal and spherical
joints between bodies (docs/symbolic.md): ``Netlist.equations()`` returns an Equations
object

    eqs = circuitsim.load("netlists/manipulator.cir").equations()
    eqs.mass, eqs.velocity, eqs.gravity     # M(q), c(q, q'), g(q): sympy matrices
    eqs.python(), eqs.c(), eqs.latex()      # the equations as text
    eqs.counts()                            # operation counts vs Lagrange, Newton-Euler

sympy is an optional dependency (``pip install 'circuitsim[symbolic]'``): this package
imports it only when equations are derived.
"""
from __future__ import annotations

from ..errors import CircuitsimError

SYMPY_MISSING = ("the equations of motion need sympy, an optional dependency: "
                 "pip install 'circuitsim[symbolic]' (or pip install sympy)")


def equations_of(circuit):
    """The Equations of an elaborated circuit (its tree read by tree.tree_of)."""
    try:
        import sympy  # noqa: F401
    except ImportError:
        raise CircuitsimError(SYMPY_MISSING) from None
    from .equations import Equations
    return Equations.derive(circuit)
