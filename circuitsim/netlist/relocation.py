"""Errors and warnings about an element inside a subcircuit instance (its name carries
the instance's prefix, ``X1.R1``) located at the user's instance line, the line of the
definition going to the hint. ``instances``: subcircuit instance name -> (subcircuit
name, Loc of the instance line), as :attr:`Circuit.instances` holds them.
"""
from __future__ import annotations

import re

from ..errors import NetlistError


def relocate(exc: NetlistError, instances: dict) -> NetlistError:
    """``exc`` at the outermost instance line its message names (unchanged when it
    names none, or is already there)."""
    inside = _enclosing(exc.message, exc.loc, instances)
    if not inside:
        return exc
    hint = f"in {_chain(inside, instances)}" + (
        f"; the definition's line is {exc.loc}: {exc.loc.text.strip()}"
        if exc.loc is not None else "")
    return type(exc)(exc.message, instances[inside[0]][1],
                     "\n".join(filter(None, [hint, exc.hint])))


def relocate_warning(message: str, loc, instances: dict) -> tuple:
    """A warning (message, Loc) about something inside a subcircuit instance, at the
    instance line."""
    inside = _enclosing(message, loc, instances)
    if not inside:
        return message, loc
    return f"{message} (in {_chain(inside, instances)})", instances[inside[0]][1]


def _enclosing(message: str, loc, instances: dict) -> list:
    """The subcircuit instances (outermost first) whose elements ``message`` names,
    or [] when there are none or ``loc`` is already the instance line."""
    inside = sorted((name for name in instances
                     if re.search(rf"(?<![\w.]){re.escape(name)}\.", message)), key=len)
    return [] if not inside or loc == instances[inside[0]][1] else inside


def _chain(inside: list, instances: dict) -> str:
    """``pump X1 > valve X1.V`` (subcircuit and instance, outermost first)."""
    return " > ".join(f"{instances[name][0]} {name}" for name in inside)
