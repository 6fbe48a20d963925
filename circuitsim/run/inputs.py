"""Source values set from outside a run (``.input ELEMENT.PARAM``): found, checked, and
made inputs of an assembled system (their time functions wrapped in a HeldInput)."""
from __future__ import annotations

from dataclasses import dataclass

from ..assembly.system import TIME_KINDS
from ..errors import Loc, NetlistError, did_you_mean
from ..runtime.timefunctions import HeldInput, TimeFunctionArray


@dataclass
class Input:
    """One input: its name, the function that holds its value, its SI unit."""
    name: str
    function: HeldInput
    unit: str | None


def check_inputs(system) -> None:
    """Every ``.input`` names a scalar source value of an element (located error)."""
    for name, loc in system.circuit.inputs:
        _source_value(system, name, loc)


def hold(system, name: str, loc: Loc | None = None) -> Input:
    """Make the source value ``name`` (ELEMENT.PARAM) an input of the system: its time
    function wrapped in a HeldInput, in the group's parameters (run and initialisation)."""
    g, i, spec, inst = _source_value(system, name, loc)
    held = None
    for p in {id(q): q for q in (g.p, g.p_init) if q is not None}.values():
        functions = list(getattr(p, spec.name).functions)
        if held is None:
            held = functions[i] if isinstance(functions[i], HeldInput) \
                else HeldInput(functions[i])
        functions[i] = held
        setattr(p, spec.name, TimeFunctionArray(functions))
    domain = inst.domains[0] if inst.domains else None
    return Input(name, held, spec.unit_for(domain))


def _source_value(system, name: str, loc: Loc | None) -> tuple:
    """(group, index in it, parameter, instance) of the input ``name``."""
    element, _, param = name.rpartition(".")
    for g in system.groups:
        for i, inst in enumerate(g.instances):
            if inst.name != element:
                continue
            spec = next((p for p in g.etype.params if p.name == param), None)
            usable = [p.name for p in g.etype.params if p.kind == "time"]
            if spec is None or spec.kind not in TIME_KINDS:
                raise NetlistError(
                    f".input {name}: {inst.type.keyword} {element} has no source value "
                    f"'{param}' that can be set from outside"
                    + (f" (it has: {', '.join(usable)})" if usable else
                       " (it has no time-varying value)"), loc,
                    did_you_mean(param, usable))
            if spec.kind != "time":
                raise NetlistError(f".input {name}: a vector value cannot be an input; "
                                   "give each component its own source", loc)
            return g, i, spec, inst
    known = [inst.name for g in system.groups for inst in g.instances]
    raise NetlistError(f".input {name}: no element '{element}'"
                       + ("" if element else " (write ELEMENT.PARAM, e.g. Vsup.V)"), loc,
                       did_you_mean(element, known))
