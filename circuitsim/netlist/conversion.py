"""Pending elements -> :class:`ElementInstance`: each written parameter converted to SI
in the unit its declaration gives for the domain of the element's nodes (the first unit
that fits, when no element fixes the domain), the defaults filled in, the required
parameters and the bounds checked, then the element type's own check.
"""
from __future__ import annotations

import numpy as np

from ..elements.declarations import REQUIRED, ElementInstance, RatioUnit
from ..errors import ModelError, NetlistError
from ..runtime import expressions
from ..runtime.names import GROUND
from . import ast, values
from .scopes import node_name, scoped_name


def convert(pending: list, domains: dict) -> tuple[list, list]:
    """The instances of ``pending`` (``domains``: node -> (domain, allowed domains)),
    and the warnings their values give: (message, Loc)."""
    warnings: list = []
    with values.memoised():              # the scopes are complete
        return [_instance(el, domains, warnings) for el in pending], warnings


def _instance(el, domains: dict, warnings: list) -> ElementInstance:
    """One pending element with its values converted and checked."""
    dom, allowed = next((domains[n] for p, n in el.scalar if n != GROUND), (None, None))
    port_domains = [domains[n][0] if n in domains and not p.frame else None
                    for p, n in zip(el.type.ports, el.nodes)]
    inst = ElementInstance(el.type, el.name, el.nodes, {}, el.loc, el.param_locs,
                           port_domains)
    port_domains_by_name = {p.name: d for p, d in zip(el.type.ports, port_domains)}
    for par in el.type.params:
        if par.name in el.assigns:
            value, scope = el.assigns[par.name]
            what = f"{el.type.keyword} {el.name}: {par.name}"
            inst.params[par.name] = convert_value(par, value, scope, dom, allowed, what,
                                                  el.prefix, el.portmap,
                                                  port_domains_by_name)
            inst.explicit.add(par.name)
            warnings += _large_angles(par, value, what)
        elif par.default is REQUIRED:
            unit = par.unit_for(dom) or (par.unit if isinstance(par.unit, str) else "")
            raise NetlistError(
                f"{el.type.keyword} {el.name} needs parameter {par.name} "
                f"({par.description}{', ' + unit if unit and unit != '1' else ''})",
                el.loc)
        else:
            inst.params[par.name] = par.default
        if par.positive or par.nonnegative:
            _check_bounds(par, inst, el)
    el.type.check(inst)
    return inst


def convert_value(par, value, scope, dom, allowed, what, prefix="", portmap=None,
                  port_domains=None):
    """One parameter's value as its declaration ``par`` reads it: a choice, a node
    name, an expression tree (its circuit names scoped) or a number, vector or time
    function in SI (``dom``, ``allowed``: the element's domain and the domains open
    to it; ``port_domains``: port name -> domain, for a unit that is a ratio)."""
    if par.kind == "choice":
        return values.to_choice(value, par.choices, what)
    if par.kind == "node":
        return node_name(value, prefix, portmap or {})
    if par.kind == "expr":
        if not isinstance(value, ast.Expr):
            raise NetlistError(f"{what} expects an expression in braces, like "
                               "{2*v(n1)}", value.loc)
        tree = expressions.substitute(value.tree, scope)
        if prefix or portmap:        # circuit names inside a subcircuit are scoped
            portmap = portmap or {}
            tree = expressions.rename(tree, {n: scoped_name(n, prefix, portmap)
                                             for n in expressions.free_names(tree)
                                             if n != "time"})
        return tree
    units = _candidate_units(par, dom, allowed, port_domains or {})
    first_error = None
    results = []
    for unit in units:
        try:
            if par.kind == "vector":
                results.append(values.to_vector(value, scope, unit, par.size, what))
            elif par.kind == "timevector":
                results.append(values.to_time_vector(value, scope, unit, par.size, what))
            elif par.kind == "time":
                results.append(values.to_time_value(value, scope, unit, what))
            else:
                results.append(values.to_number(value, scope, unit, what))
            break                        # the first unit that fits wins
        except NetlistError as exc:
            first_error = first_error or exc
    if not results:
        raise first_error
    return results[0]


def _candidate_units(par, dom, allowed, port_domains):
    """The units to try, in order, for a parameter of an element in domain ``dom`` (a
    generator: the others are listed only when the first does not fit)."""
    if isinstance(par.unit, str) or par.unit is None:
        yield par.unit
    elif isinstance(par.unit, RatioUnit):          # known once the ports' domains are
        yield par.unit.resolve(port_domains)
    elif isinstance(par.unit, (list, tuple)):     # one unit per vector component
        yield list(par.unit)
    else:
        first = [par.unit[dom]] if dom in par.unit else []
        yield from first
        if first and allowed is not None:
            return
        # domain not fixed by any element: its default was tried first, then the others
        others = [u for d, u in par.unit.items()
                  if u not in first and (allowed is None or d in allowed)]
        yield from others if first or others else [None]


def _check_bounds(par, inst, el) -> None:
    """A number declared positive (or not negative) is."""
    v = inst.params.get(par.name)
    if not isinstance(v, (int, float)):
        return
    loc = el.param_locs.get(par.name, el.loc)
    if par.positive and not v > 0:
        raise ModelError(f"{el.type.keyword} {el.name}: {par.name} must be positive, "
                         f"got {v:g}", loc)
    if par.nonnegative and not v >= 0:
        raise ModelError(f"{el.type.keyword} {el.name}: {par.name} must not be negative, "
                         f"got {v:g}", loc)


def _large_angles(par, value, what: str) -> list:
    """A warning for each angle written as a plain number beyond one turn (``rot=(0, 1,
    0, 90)`` is 90 rad, not 90°): (message, loc)."""
    units = par.unit if isinstance(par.unit, (list, tuple)) else [par.unit]
    if "rad" not in units:
        return []
    items = value.items if isinstance(value, ast.Vector) else [value]
    if len(units) == 1:
        units = units * len(items)
    return [(f"{what}: {item.text} is {item.mantissa / (2 * np.pi):.3g} turns in radians; "
             f"write {item.text}deg for degrees", item.loc)
            for item, unit in zip(items, units)
            if unit == "rad" and isinstance(item, ast.Number) and not item.suffix
            and abs(item.mantissa) > 2 * np.pi]
