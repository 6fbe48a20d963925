"""A URDF robot description read into plain data: links, joints, their numbers checked.

Only what the dynamics needs is read: each link's ``<inertial>`` and each joint's type,
parent, child, ``<origin>``, ``<axis>``, ``<limit>``, ``<dynamics>`` and ``<mimic>``.
Visuals, collisions, materials, transmissions and simulator extensions are skipped.
Every value is checked where it is written (a number that is not finite, a missing
attribute, a negative damping) and an error names ``file:line:col`` of its element and
the link or joint. The kinematic tree itself is checked by urdf_bodies.py.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from ..errors import Loc, NetlistError
from .xmlsafe import XmlDocument

MOVING = ("revolute", "continuous", "prismatic")
SUPPORTED = (*MOVING, "fixed", "floating")
REFUSED = {"planar": "type 'planar' is not supported (no planar joint with flanges); "
                     "write it by hand as a pointplane and two norotation elements"}
LARGEST = 1e100          # the largest number a netlist takes (docs/language.md, Limits)
# xs:double as XML Schema writes it; Python's float() would also take '1_0', 'infinity'
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


@dataclass
class Inertial:
    """A link's mass, centre of mass and central inertia tensor, in the link frame:
    the centre at ``xyz``, the tensor's axes turned by ``rot`` (from ``rpy``)."""
    mass: float
    xyz: np.ndarray
    rot: np.ndarray
    tensor: np.ndarray            # [[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]]
    loc: Loc


@dataclass
class Link:
    """A <link>: its name, where it is written and its <inertial> (None: massless)."""
    name: str
    loc: Loc
    inertial: Inertial | None = None


@dataclass
class Limit:
    """A joint's <limit>: position bounds (None when neither is given), effort,
    velocity."""
    lower: float | None
    upper: float | None
    effort: float | None
    velocity: float | None
    loc: Loc


@dataclass
class Mimic:
    """A joint's <mimic>: q = multiplier·q_joint + offset."""
    joint: str
    multiplier: float
    offset: float
    loc: Loc


@dataclass
class Joint:
    """A <joint>: its type, links, origin (in the parent's frame), unit axis (in the
    joint frame) and dynamics."""
    name: str
    kind: str
    parent: str
    child: str
    loc: Loc
    xyz: np.ndarray = field(default_factory=lambda: np.zeros(3))
    rot: np.ndarray = field(default_factory=lambda: np.eye(3))
    axis: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0]))
    damping: float = 0.0
    friction: float = 0.0
    armature: float = 0.0         # a rotor's inertia (mass) on the joint (MJCF only)
    dynamics_loc: Loc | None = None
    limit: Limit | None = None
    mimic: Mimic | None = None

    @property
    def moving(self) -> bool:
        """A joint with a coordinate: revolute, continuous, prismatic."""
        return self.kind in MOVING

    @property
    def rotational(self) -> bool:
        """A joint that turns (its coordinate an angle)."""
        return self.kind in ("revolute", "continuous")


@dataclass
class Robot:
    """The links and joints of one URDF file."""
    name: str
    links: dict            # name -> Link, in the file's order
    joints: dict           # name -> Joint, in the file's order
    filename: str


def rpy_matrix(rpy) -> np.ndarray:
    """URDF's fixed-axis roll, pitch, yaw: R = Rz(yaw)·Ry(pitch)·Rx(roll)."""
    (cr, sr), (cp, sp), (cy, sy) = ((math.cos(a), math.sin(a)) for a in rpy)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def robot_of(doc: XmlDocument) -> Robot:
    """The links and joints of a parsed URDF document."""
    root = doc.root
    if root.tag != "robot":
        raise NetlistError(f"the root element is <{_shown(root.tag)}>, not <robot>: not a "
                           "URDF file", doc.loc(root))
    robot = Robot(root.get("name", ""), {}, {}, doc.filename)
    for element in root:
        if element.tag.startswith("xacro:"):
            raise NetlistError(f"<{_shown(element.tag)}>: a xacro file; expand it first "
                               "(xacro robot.urdf.xacro > robot.urdf)", doc.loc(element))
        if element.tag == "link":
            _add(robot.links, _link(element, doc), "link", doc)
        elif element.tag == "joint":
            _add(robot.joints, _joint(element, doc), "joint", doc)
    if not robot.links:
        raise NetlistError("the robot has no <link>", doc.loc(root))
    return robot


def _add(table: dict, item, what: str, doc: XmlDocument) -> None:
    """A link or joint added to its table; a name given twice is an error at the
    second."""
    if item.name in table:
        raise NetlistError(f"{what} '{item.name}' is defined twice (first at line "
                           f"{table[item.name].loc.line})", item.loc)
    table[item.name] = item


def _link(element, doc: XmlDocument) -> Link:
    """<link name>: its one <inertial>, if any."""
    link = Link(_name(element, "name", doc), doc.loc(element))
    inertials = element.findall("inertial")
    if len(inertials) > 1:
        raise NetlistError(f"link '{link.name}' has two <inertial> elements",
                           doc.loc(inertials[1]))
    if inertials:
        link.inertial = _inertial(inertials[0], link.name, doc)
    return link


def _inertial(element, link: str, doc: XmlDocument) -> Inertial:
    """<inertial>: <origin>, <mass value>, <inertia ixx ixy ixz iyy iyz izz> (all six)."""
    what = f"link '{link}'"
    mass = _child(element, "mass", what, doc)
    value = _numbers(mass, "value", 1, doc, what)[0]
    if value < 0:
        raise NetlistError(f"{what}: the mass {value:g} kg is negative", doc.loc(mass))
    inertia = _child(element, "inertia", what, doc)
    ixx, ixy, ixz, iyy, iyz, izz = (_numbers(inertia, key, 1, doc, what)[0] for key in
                                    ("ixx", "ixy", "ixz", "iyy", "iyz", "izz"))
    xyz, rot = _origin(element, doc, what)
    tensor = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    return Inertial(value, xyz, rot, tensor, doc.loc(inertia))


def _joint(element, doc: XmlDocument) -> Joint:
    """<joint name type>: <parent>, <child>, <origin> and what the type reads
    besides."""
    name = _name(element, "name", doc)
    what = f"joint '{name}'"
    kind = _name(element, "type", doc, what).strip()
    if kind in REFUSED:
        raise NetlistError(f"{what}: {REFUSED[kind]}", doc.loc(element))
    if kind not in SUPPORTED:
        raise NetlistError(f"{what}: unsupported joint type '{kind}' (supported: "
                           f"{', '.join(SUPPORTED)})", doc.loc(element))
    parent = _name(_child(element, "parent", what, doc), "link", doc, what)
    child = _name(_child(element, "child", what, doc), "link", doc, what)
    joint = Joint(name, kind, parent, child, doc.loc(element))
    joint.xyz, joint.rot = _origin(element, doc, what)
    _axis(joint, element, doc)
    _dynamics(joint, element, doc)
    _limit(joint, element, doc)
    _mimic(joint, element, doc)
    return joint


def _axis(joint: Joint, element, doc: XmlDocument) -> None:
    """<axis xyz> of a moving joint, made a unit vector (URDF's default: (1, 0, 0))."""
    axis = element.find("axis")
    if axis is None or not joint.moving:
        return
    xyz = np.array(_numbers(axis, "xyz", 3, doc, f"joint '{joint.name}'"))
    norm = float(np.linalg.norm(xyz))
    if not norm > 0:
        raise NetlistError(f"joint '{joint.name}': the axis is zero", doc.loc(axis))
    joint.axis = xyz / norm


def _dynamics(joint: Joint, element, doc: XmlDocument) -> None:
    """<dynamics damping friction>, each 0 when absent and never negative."""
    dyn = element.find("dynamics")
    if dyn is None:
        return
    what = f"joint '{joint.name}'"
    joint.dynamics_loc = doc.loc(dyn)
    for key in ("damping", "friction"):
        value = _numbers(dyn, key, 1, doc, what, default=(0.0,))[0]
        if value < 0:
            raise NetlistError(f"{what}: <dynamics {key}> is negative ({value:g})",
                               doc.loc(dyn))
        setattr(joint, key, value)


def _limit(joint: Joint, element, doc: XmlDocument) -> None:
    """<limit lower upper effort velocity> of a revolute or prismatic joint."""
    limit = element.find("limit")
    if limit is None or not joint.moving:
        return
    what = f"joint '{joint.name}'"
    lower, upper, effort, velocity = (
        _numbers(limit, key, 1, doc, what, default=(None,))[0]
        for key in ("lower", "upper", "effort", "velocity"))
    if joint.kind == "continuous":                  # turns without position limits
        lower = upper = None
    if lower is not None or upper is not None:      # URDF: an absent bound is 0
        lower, upper = lower or 0.0, upper or 0.0
        if lower > upper:
            raise NetlistError(f"{what}: <limit> lower {lower:g} is above upper {upper:g}",
                               doc.loc(limit))
    joint.limit = Limit(lower, upper, effort, velocity, doc.loc(limit))


def _mimic(joint: Joint, element, doc: XmlDocument) -> None:
    """<mimic joint multiplier offset> (defaults 1 and 0)."""
    mimic = element.find("mimic")
    if mimic is None:
        return
    what = f"joint '{joint.name}' <mimic>"
    if not joint.moving:
        raise NetlistError(f"{what}: a {joint.kind} joint cannot mimic another",
                           doc.loc(mimic))
    master = _name(mimic, "joint", doc, what)
    multiplier = _numbers(mimic, "multiplier", 1, doc, what, default=(1.0,))[0]
    offset = _numbers(mimic, "offset", 1, doc, what, default=(0.0,))[0]
    joint.mimic = Mimic(master, multiplier, offset, doc.loc(mimic))


def _origin(element, doc: XmlDocument, what: str) -> tuple:
    """(xyz, rotation matrix) of the element's <origin> (zero and identity without)."""
    origin = element.find("origin")
    if origin is None:
        return np.zeros(3), np.eye(3)
    xyz = _numbers(origin, "xyz", 3, doc, what, default=(0.0, 0.0, 0.0))
    rpy = _numbers(origin, "rpy", 3, doc, what, default=(0.0, 0.0, 0.0))
    return np.array(xyz), rpy_matrix(rpy)


def _child(element, tag: str, what: str, doc: XmlDocument):
    """The one child element ``tag`` that must be there."""
    found = element.find(tag)
    if found is None:
        raise NetlistError(f"{what}: <{element.tag}> has no <{tag}>", doc.loc(element))
    return found


def _name(element, attr: str, doc: XmlDocument, what: str = "") -> str:
    """The attribute's text (a name), which must be given and not blank."""
    value = element.get(attr)
    if value is None or not value.strip():
        where = f"{what}: " if what else "a "
        raise NetlistError(f"{where}<{element.tag}> has no {attr}=\"...\"",
                           doc.loc(element))
    return value


def _numbers(element, attr: str, count: int, doc: XmlDocument, what: str,
             default=None) -> tuple:
    """``count`` finite numbers from the attribute (``default`` when it is absent)."""
    text = element.get(attr)
    if text is None:
        if default is None:
            raise NetlistError(f"{what}: <{element.tag}> has no {attr}=\"...\"",
                               doc.loc(element))
        return default
    words = text.split()
    bad = next((w for w in words if not _NUMBER.fullmatch(w)), None)
    if bad is not None or len(words) != count:
        hint = ("; a xacro expression: expand the file with xacro first"
                if "${" in text or "$(" in text else "")
        raise NetlistError(f"{what}: <{element.tag} {attr}=\"{_shown(text)}\">: expected "
                           f"{count} number{'s' if count > 1 else ''}{hint}", doc.loc(element))
    values = tuple(float(w) for w in words)
    if not all(abs(v) <= LARGEST for v in values):
        raise NetlistError(f"{what}: <{element.tag} {attr}=\"{_shown(text)}\">: a number "
                           f"beyond +-{LARGEST:g}", doc.loc(element))
    return values


def _shown(text: str, width: int = 60) -> str:
    """A value as a message quotes it: at most ``width`` characters."""
    return text if len(text) <= width else text[:width] + "..."
