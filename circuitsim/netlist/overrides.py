"""What makes one case of a netlist differ from another: the ``.study`` and ``.step``
lines read from the netlist, and the overrides of a case (a study's assignments,
``--set`` settings, a ``.step`` value) split into parameters, element parameters and
solver options.
"""
from __future__ import annotations

from typing import NamedTuple

from ..errors import NetlistError
from . import ast
from .directives import OPTIONS


class Overrides(NamedTuple):
    """The overrides of one case, by what they set."""
    params: dict            # parameter -> (Value, Loc)
    elements: dict          # (element, parameter) -> (Value, Loc)
    options: list           # ast.Assign of solver options (rtol=1e-9 in a study)


def split_override(key: str) -> tuple[str | None, str]:
    """``J1.model`` -> ('J1', 'model'); ``k`` -> (None, 'k')."""
    if "." in key:
        owner, name = key.rsplit(".", 1)
        return owner, name
    return None, key


def split(assigns: list, param_names: set) -> Overrides:
    """``assigns`` (ast.Assign) by what they set; a solver option's name that is also a
    parameter's is the parameter."""
    out = Overrides({}, {}, [])
    for a in assigns:
        owner, name = split_override(a.key)
        if owner is None and name.lower() in OPTIONS and name not in param_names:
            out.options.append(a)
        elif owner is None:
            out.params[name] = (a.value, a.loc)
        else:
            out.elements[(owner, name)] = (a.value, a.loc)
    return out


def studies(statements: list) -> dict:
    """``.study NAME k=v ...`` lines: name -> (list of Assign, Loc)."""
    out: dict = {}
    for st in statements:
        if isinstance(st, ast.Directive) and st.name == "study":
            if len(st.positional) != 1 or not isinstance(st.positional[0], ast.Ident):
                raise NetlistError(".study expects a name then key=value overrides", st.loc)
            name = st.positional[0].name
            if name in out:
                raise NetlistError(f"study '{name}' is defined twice", st.loc)
            out[name] = (list(st.params), st.loc)
    return out


def steps(statements: list) -> list:
    """``.step NAME v1 v2 ...`` lines: [(name, [Value], Loc of the name)]."""
    out = []
    for st in statements:
        if isinstance(st, ast.Directive) and st.name == "step":
            if len(st.positional) < 2 or not isinstance(st.positional[0], ast.Ident):
                raise NetlistError(".step expects a parameter name and at least one value, "
                                   "e.g. '.step k 100 200 400'", st.loc)
            name = st.positional[0]
            out.append((name.name, list(st.positional[1:]), name.loc or st.loc))
    return out
