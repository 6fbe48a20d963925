"""The 3D frames of an elaborated circuit: every frame port names a body or the ground
and a joint's two frames differ; a body attached to nothing is warned about; gravity
reaches the elements that use it and the link hooks see the bodies' initial poses.
"""
from __future__ import annotations

from functools import cache

import numpy as np

from ..elements.declarations import FRAME_VARS
from ..elements.frames import with_rotation
from ..errors import NetlistError, did_you_mean
from ..runtime.names import GROUND
from .circuit import Circuit


def check_frames(pending: list) -> None:
    """Every frame port names a body (an element owning its nodes) or ground 0, the two
    frames of a joint or 3D spring differ, and a joint's flange is not a body's node."""
    bodies = {el.name for el in pending if el.type.is_body}
    for el in pending:
        if not _has_frames(el.type):
            continue
        for port, node in zip(el.type.ports, el.nodes):
            if port.frame and node != GROUND and node not in bodies:
                raise NetlistError(
                    f"{el.type.keyword} {el.name}: frame '{node}' (port {port.name}) is "
                    f"not a body; frames are bodies or 0 (ground)", el.loc,
                    did_you_mean(node, bodies))
        frames = [node for port, node in zip(el.type.ports, el.nodes) if port.frame]
        if len(frames) == 2 and frames[0] == frames[1]:
            what = "ground" if frames[0] == GROUND else f"body '{frames[0]}'"
            raise NetlistError(
                f"{el.type.keyword} {el.name} connects {what} to itself: its two "
                "frames must differ (one of them may be 0, the ground)", el.loc)
    body_nodes = {node: el.name for el in pending if el.type.is_body for node in el.nodes}
    for el in pending:
        for port, node in zip(el.type.ports, el.nodes):
            if port.param is not None and node in body_nodes:        # a joint's flange
                raise NetlistError(
                    f"{el.type.keyword} {el.name}: {port.param}={node} names a node of body "
                    f"{body_nodes[node]}; the {port.param} is the joint's own axis node (the "
                    "relative motion about or along its axis): give it a new name "
                    f"({port.param}=drive) and put the elements that drive the joint on it, "
                    f"or put an element meant for the body's own motion on {node} directly",
                    el.param_locs.get(port.param, el.loc))


@cache
def _has_frames(etype) -> bool:
    """Does an element type have a frame port? (Asked once per type, not per element.)"""
    return any(port.frame for port in etype.ports)


def unattached_bodies(pending: list) -> list:
    """A body that no element touches and that is given no initial motion is most
    likely a forgotten joint: a warning (a body flying freely on purpose has v= or w=)."""
    if not any(el.type.is_body for el in pending):
        return []
    touched = set()
    for el in pending:
        if el.type.is_body:
            continue
        for port, node in zip(el.type.ports, el.nodes):
            touched.add(node if port.frame else node.split(".")[0])
    return [(f"body {el.name} is attached to nothing (no joint, load or element on its "
             "nodes) and has no initial motion: it only falls or floats freely",
             el.loc)
            for el in pending if el.type.is_body and el.name not in touched
            and not {"v", "w"} & set(el.assigns)]


def link(c: Circuit) -> None:
    """Gravity to every body, then the elements' link hooks (joints find their
    attachment points from the bodies' initial poses)."""
    for inst in c.elements:
        if inst.type.uses_gravity and "g" not in inst.explicit and c.gravity:
            inst.params["g"] = np.array(c.gravity, dtype=float)
    frames = {GROUND: with_rotation({name: (1.0 if name == "q0" else 0.0)
                                     for name in FRAME_VARS})}
    for inst in c.elements:
        if inst.type.is_body:
            m, J = inst.type.mass_properties(inst)
            frames[inst.name] = with_rotation({**inst.type.initial_state(inst), "m": m,
                                               "J": J})
    for inst in c.elements:
        inst.type.link(inst, frames)
