"""What a name means where it is written.

Parameters: the top-level ``.param`` lines evaluated in order (with the overrides of a
study or ``--set``), and a subcircuit instance's own scope (the global one, then its
parameters as the instance line gives them or their defaults, then its ``.param``
lines). Nodes and element variables: a name written inside an instance is scoped by the
instance's prefix (``X1.n2``) unless it is one of the definition's ports (then it is
the caller's node) or the ground.
"""
from __future__ import annotations

from ..errors import NetlistError, did_you_mean
from ..runtime.expressions import CONSTANTS
from ..runtime.names import GROUND
from . import ast, values

GROUND_NAMES = ("0", "gnd")
RESERVED_NODE_NAMES = ("time",)   # the time column of the results, and time in expressions
# an expression reads these before any parameter: a parameter so named would be ignored
RESERVED_PARAM_NAMES = (*RESERVED_NODE_NAMES, *CONSTANTS)


# --- parameters ---------------------------------------------------------------------------
def param_names(top: list) -> set:
    """The names the top-level ``.param`` lines define."""
    return {a.key for st in top if isinstance(st, ast.Directive)
            and st.name == "param" for a in st.params}


def global_scope(top: list, overrides: dict) -> values.Scope:
    """Evaluate the top-level ``.param`` lines in order, with overrides applied
    (``overrides``: name -> (Value, Loc))."""
    scope = values.Scope()
    defined = set()
    for st in top:
        if isinstance(st, ast.Directive) and st.name == "param":
            if st.positional:
                hint = ("a function is defined with .func name(arg, ...) = {expression}"
                        if isinstance(st.positional[0], ast.Call) else None)
                raise NetlistError(".param expects name=value pairs", st.positional[0].loc,
                                   hint)
            for a in st.params:
                check_param_name(a.key, a.loc)
                value = overrides.get(a.key, (a.value,))[0]
                assign(scope, a.key, value, scope, f"parameter {a.key}")
                defined.add(a.key)
    for key, (value, loc) in overrides.items():
        if key not in defined:
            raise NetlistError(f"unknown parameter '{key}'", loc,
                               did_you_mean(key, defined))
    return scope


def subcircuit_scope(sub: ast.Subckt, full: str, given: dict,
                     global_values: values.Scope) -> values.Scope:
    """The scope inside instance ``full`` of ``sub``: the global scope, then each of the
    definition's parameters as ``given`` (name -> (Value, the scope it is evaluated in,
    Loc)) or its default, then the body's ``.param`` lines."""
    defaults = {d.key: d for d in sub.defaults}
    for key, (_, _, loc) in given.items():
        if key not in defaults:
            raise NetlistError(f"subcircuit {sub.name} has no parameter '{key}'"
                               f"{'; it takes ' + ', '.join(defaults) if defaults else ''}",
                               loc, did_you_mean(key, defaults))
    local = global_values.copy()
    for key, d in defaults.items():
        check_param_name(key, d.loc)
        if key in given:
            value, vscope, _ = given[key]
            assign(local, key, value, vscope, f"{full}: parameter {key}")
        else:
            assign(local, key, d.value, local, f"{sub.name}: default of {key}")
    for inner in sub.body:
        if isinstance(inner, ast.Directive):
            if inner.name == "func":         # expanded where it is called (functions.py)
                continue
            if inner.name != "param":
                raise NetlistError(f".{inner.name} is not allowed inside .subckt "
                                   f"{sub.name} (only .param and .func)", inner.loc)
            for a in inner.params:
                check_param_name(a.key, a.loc)
                assign(local, a.key, a.value, local, f"parameter {a.key}")
    return local


def check_param_name(key: str, loc) -> None:
    """A parameter may not take the name of the time or of a constant."""
    if key.lower() in RESERVED_PARAM_NAMES:
        what = "the time" if key.lower() in RESERVED_NODE_NAMES else "a constant"
        raise NetlistError(f"'{key}' is reserved ({what} in expressions) and cannot name "
                           "a parameter; choose another name", loc)


def assign(scope, key: str, value, source_scope, what: str) -> None:
    """scope[key] = the value (SI) evaluated in ``source_scope``, with the dimension it
    was written in (if any) so that its uses are unit-checked."""
    number = values.to_number(value, source_scope, None, what)
    dims = values.dims_of(value, source_scope)
    scope[key] = number
    if dims is None:
        scope.dims.pop(key, None)
    else:
        scope.dims[key] = dims


# --- nodes and element variables ---------------------------------------------------------
def node_name(value: ast.Value, prefix: str, portmap: dict) -> str:
    """A node written on an element line inside an instance -> its global name."""
    if not isinstance(value, (ast.Ident, ast.Number)) or (
            isinstance(value, ast.Number) and value.suffix and not value.text.isalnum()):
        raise NetlistError(f"expected a node name, got '{value.text}'", value.loc)
    if value.text.lower() in RESERVED_NODE_NAMES:
        raise NetlistError(f"'{value.text}' is reserved (the time column of the results, "
                           "and the time in expressions); choose another node name",
                           value.loc)
    return scoped_name(value.text, prefix, portmap)


def scoped_name(name: str, prefix: str, portmap: dict) -> str:
    """A node or element-variable name as written inside an instance -> its global name."""
    if name.lower() in GROUND_NAMES:
        return GROUND
    if name in portmap:
        return portmap[name]
    head, _, tail = name.partition(".")
    if tail and head in portmap:                 # a port that is a frame: P.vx
        return f"{portmap[head]}.{tail}"
    return prefix + name
