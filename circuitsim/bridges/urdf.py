"""URDF import: a robot description (links, joints, inertias, damping, friction, limits)
as a circuitsim netlist.

    text = urdf_to_netlist("robot.urdf", q0={"shoulder": 0.3})
    net = circuitsim.parse(text, "robot.cir")

Three steps, one module each: the file read into links and joints (urdf_model.py, on
the bounded XML reader of xmlsafe.py), the tree checked, placed at q = 0 and its fixed
links merged into bodies (urdf_bodies.py), the netlist written (urdf_netlist.py). The
mapping is described in docs/urdf.md.
"""
from __future__ import annotations

import math

from ..errors import NetlistError, did_you_mean
from .urdf_bodies import mechanism_of
from .urdf_model import robot_of
from .urdf_netlist import NetlistWriter, Options
from .xmlsafe import parse_xml, read_xml_file

DEFAULT_GRAVITY = (0.0, 0.0, -9.81)


def urdf_to_netlist(path, *, floating_base: bool = False, gravity=DEFAULT_GRAVITY,
                    t_end: float = 2.0, q0=None, qd0=None) -> str:
    """The netlist text of the URDF file ``path``.

    ``floating_base``: the root link is a free body (default: fixed to the ground).
    ``gravity``: (gx, gy, gz) in m/s², or None for no ``.gravity`` line. ``t_end``: the
    ``.tran`` end time (s). ``q0``, ``qd0``: {URDF joint name: value} initial joint
    positions (rad or m) and rates (rad/s or m/s), 0 for the joints not named.

    An error in the file (malformed XML, a missing link, a cycle, a massless link on a
    moving joint, ...) raises :class:`circuitsim.NetlistError` naming the file, line and
    column of the element and the link or joint."""
    return _netlist(read_xml_file(path), floating_base, gravity, t_end, q0, qd0)


def urdf_text_to_netlist(text, filename: str = "<string>", **options) -> str:
    """``urdf_to_netlist`` of URDF text (str or bytes); ``filename`` names it in errors
    and in the netlist's header."""
    return _netlist(parse_xml(text, filename), **options)


def _netlist(doc, floating_base=False, gravity=DEFAULT_GRAVITY, t_end=2.0, q0=None,
             qd0=None) -> str:
    """The three steps: the document read into a Robot, checked and placed as a
    Mechanism, written with the checked options."""
    robot = robot_of(doc)
    mech = mechanism_of(robot, floating_base)
    options = Options(source=_file_name(doc.filename), floating_base=floating_base,
                      gravity=_gravity(gravity), t_end=_t_end(t_end),
                      q0=_joint_values(robot, q0, "q0"), qd0=_joint_values(robot, qd0, "qd0"))
    return NetlistWriter(mech, options).text()


def _file_name(filename: str) -> str:
    """The file's own name (the header does not depend on where the file was)."""
    return filename.replace("\\", "/").rsplit("/", 1)[-1] or filename


def _gravity(gravity):
    """Three finite components (m/s²), or None for no .gravity line."""
    if gravity is None:
        return None
    values = tuple(float(g) for g in gravity)
    if len(values) != 3 or not all(math.isfinite(g) for g in values):
        raise NetlistError(f"gravity: expected three finite numbers (m/s^2), got {gravity!r}")
    return values


def _t_end(t_end) -> float:
    """The .tran end time: a positive number of seconds."""
    t_end = float(t_end)
    if not (math.isfinite(t_end) and t_end > 0):
        raise NetlistError(f"t_end: expected a positive number of seconds, got {t_end!r}")
    return t_end


def _joint_values(robot, values, what: str) -> dict:
    """{joint: value} checked: each a moving joint of the robot that mimics none, each
    value a finite number."""
    out = {}
    for name, value in dict(values or {}).items():
        joint = robot.joints.get(name)
        if joint is None or not joint.moving:
            movers = [j.name for j in robot.joints.values() if j.moving]
            close = did_you_mean(name, movers)
            raise NetlistError(f"{what}: '{name}' is not a moving joint of the robot"
                               + (f" ({close})" if close else f" (moving joints: "
                                  f"{', '.join(movers[:20]) or 'none'})"))
        if joint.mimic is not None:
            raise NetlistError(f"{what}: joint '{name}' mimics '{joint.mimic.joint}': its "
                               "start follows from that joint's")
        try:
            out[name] = float(value)
        except (TypeError, ValueError):
            out[name] = math.nan
        if not math.isfinite(out[name]):
            raise NetlistError(f"{what}: joint '{name}': expected a finite number, got "
                               f"{value!r}")
    return out
