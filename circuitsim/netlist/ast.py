"""Syntax tree of a netlist file, as the parser produces it.

Every node carries a :class:`~circuitsim.errors.Loc` so that elaboration can report
``file:line:col``. Values are kept unconverted (a number keeps its unit suffix)
because their meaning depends on the parameter they are given to.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import Loc


# --- values -------------------------------------------------------------------------
@dataclass
class Value:
    loc: Loc
    text: str          # the value exactly as written


@dataclass
class Number(Value):
    """``<mantissa>[suffix]``: ``5kg`` -> mantissa 5.0, suffix 'kg'; ``1e-3`` -> suffix ''."""
    mantissa: float = 0.0
    suffix: str = ""


@dataclass
class Ident(Value):
    """A bare word: a node name (``n1``, ``B.vx``), a choice (``position``), a name."""
    name: str = ""


@dataclass
class Expr(Value):
    """``{...}``: an expression tree from :mod:`circuitsim.runtime.expressions`."""
    tree: object = None


@dataclass
class Vector(Value):
    """``(a, b, c)``: items are Values."""
    items: list = field(default_factory=list)


@dataclass
class Call(Value):
    """``name(arg, ..., key=value, ...)`` outside braces: a time function such as
    ``step(0, 0, 12)``. ``args`` are the positional Values, ``keywords`` the Assigns;
    ``data`` what the file a ``pwl(file=...)`` names holds, read when the netlist is
    loaded (:mod:`circuitsim.netlist.datafiles`)."""
    name: str = ""
    args: list = field(default_factory=list)
    keywords: list = field(default_factory=list)
    data: object = field(default=None, repr=False, compare=False)


@dataclass
class String(Value):
    """A double-quoted string (``.include "file.cir"``); ``value`` without the quotes."""
    value: str = ""


# --- statements ---------------------------------------------------------------------
@dataclass
class Assign:
    """``key=value`` (``key`` may be dotted: ``J1.model=elastic``)."""
    key: str
    value: Value
    loc: Loc


@dataclass
class ElementStmt:
    """``<type> <name> <positional...> <key=value...>``.

    ``positional`` holds the ports (Ident or integer Number) followed by any
    positional values; elaboration splits them using the element type's port count.
    """
    type: str            # as written; keywords compare case-insensitively
    name: str
    positional: list     # of Value
    params: list         # of Assign
    loc: Loc             # position of the type keyword
    name_loc: Loc


@dataclass
class Directive:
    """``.name args...``: ``name`` lower-case without the dot.

    ``.title`` keeps the rest of its line in ``text``; ``.subckt`` blocks are
    gathered into :class:`Subckt` instead.
    """
    name: str
    positional: list     # of Value
    params: list         # of Assign
    loc: Loc
    text: str = ""


@dataclass
class Subckt:
    """``.subckt NAME port... [params: k=v ...]`` ... ``.ends [NAME]``."""
    name: str
    ports: list          # of Ident
    defaults: list       # of Assign (the ``params:`` part)
    body: list           # of ElementStmt | Directive | Subckt
    loc: Loc


@dataclass
class NetlistFile:
    """One parsed file: its statements in order."""
    file: str
    statements: list     # of ElementStmt | Directive | Subckt
