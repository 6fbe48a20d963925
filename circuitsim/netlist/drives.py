"""``.drive J.angle={x(time)}``: a joint coordinate prescribed as a function of time.

Each assignment becomes a ``drive`` element named ``J.drive`` on the joint's frames and
axis node (elements/drive.py): it prescribes the node's rate x'(t) (the exact symbolic
derivative), holds the coordinate measured on the frames at x(t) and records the torque
or force that takes. The start value x(0) becomes a hard start-up target, as an
``.ic J.angle=`` would be (the mechanism is assembled there, the velocities made
consistent with x'(0), the accelerations with x''(0)).
"""
from __future__ import annotations

from ..elements import registry
from ..errors import NetlistError, did_you_mean
from ..runtime import expressions
from ..runtime.names import GROUND
from . import ast, values
from .circuit import Circuit

USAGE = ("expects JOINT.COORDINATE={expression of time}, e.g. "
         "'.drive J1.angle={0.3*sin(2*pi*time)}' (a prismatic joint's coordinate is J.s)")
AGREE = 1e-12        # rad or m: a start value this close to an .ic of the same coordinate


def apply_drives(statements: list, c: Circuit, scope) -> None:
    """The ``.drive`` lines' elements added to ``c`` and their start values to its
    ``.ic`` targets (after every ``.ic`` is known, so that a disagreeing one is told)."""
    given: dict = {}
    for st in statements:
        if st.positional or not st.params:
            raise NetlistError(f".drive {USAGE}", st.loc)
        for a in st.params:
            key = a.key
            if key in given:
                raise NetlistError(f".drive: {key} is driven twice (first at {given[key]}); "
                                   "drive each coordinate once", a.loc)
            given[key] = a.loc
            _add_drive(a, c, scope)


def _add_drive(a: ast.Assign, c: Circuit, scope) -> None:
    joint, k = _coordinate(a, c)
    key = a.key
    tree = _expression(a, scope)
    start = float(expressions.compile_(tree, ["time"])(0.0))
    node = joint.nodes[2 + k]                # the flange ports follow the two frames
    for inst in c.elements:
        if inst.type.imposes == "potential" and node in inst.nodes and GROUND in inst.nodes:
            raise NetlistError(f".drive {key}: the axis node {node} of {joint.name} is "
                               f"already driven by {inst.type.keyword} {inst.name} (at "
                               f"{inst.loc}); remove one of them", a.loc)
    if key in c.ics and abs(c.ics[key][0] - start) > AGREE * max(1.0, abs(start)):
        raise NetlistError(f".drive {key} starts at {start:.6g} (its value at time 0) but "
                           f".ic {key}={c.ics[key][0]:.6g} (at {c.ics[key][1]}); remove the "
                           ".ic or make them agree", a.loc)
    c.ics[key] = (start, a.loc)
    drive = registry.lookup("drive").instance_for(joint, k, tree, a.loc, a.value.loc)
    c.elements.append(drive)
    if node in c.nodes:
        c.nodes[node].users.append((drive.name, "a"))


def _coordinate(a: ast.Assign, c: Circuit):
    """(the joint instance, the index of its coordinate) that ``a.key`` names."""
    if "." not in a.key:
        raise NetlistError(f".drive {USAGE}", a.loc)
    name, coord = a.key.rsplit(".", 1)
    joint = c.element(name)
    if joint is None:
        joints = [e.name for e in c.elements if e.type.is_joint]
        raise NetlistError(f".drive {a.key}: no joint named {name}", a.loc,
                           did_you_mean(name, joints))
    kind = f"{joint.type.keyword} {joint.name}"
    if not joint.type.is_joint:
        raise NetlistError(f".drive {a.key}: {kind} is not a joint; a joint's axis "
                           "coordinate is driven (a revolute's J.angle, a prismatic's J.s)",
                           a.loc)
    names = joint.type.coordinate_names()
    if not names:
        raise NetlistError(f".drive {a.key}: {kind} has no axis coordinate to drive (a "
                           "revolute's J.angle, a prismatic's J.s can be driven)", a.loc)
    if coord not in names:
        listed = ", ".join(f"{joint.name}.{n}" for n in names)
        raise NetlistError(f".drive {a.key}: {kind} has no coordinate '{coord}' (its "
                           f"coordinate: {listed})", a.loc, did_you_mean(coord, names))
    return joint, names.index(coord)


def _expression(a: ast.Assign, scope):
    """x(time) as a tree: a brace expression of time and parameters, or a number."""
    if not isinstance(a.value, ast.Expr):
        return expressions.Num(values.to_number(a.value, scope, None, f".drive {a.key}"))
    tree = expressions.substitute(a.value.tree, scope)
    unknown = sorted(expressions.free_names(tree) - {"time"})
    if unknown:
        raise NetlistError(f".drive {a.key}: the expression may use time, .param "
                           f"constants and functions only; '{unknown[0]}' is none of them",
                           a.value.loc, did_you_mean(unknown[0], [*scope, "time"]))
    return tree
