"""A checked URDF mechanism written as a netlist: bodies, joints on named flanges, the
joints' damping, friction, limits and mimics as 1D elements on those flanges.

Names: each body is named after its first link and each joint after the URDF joint,
made legal netlist names (letters, digits and ``_``, not starting with a digit, not a
reserved name) and unique; a name that had to change is given with its original in a
comment. A joint's flange is ``<joint>_w`` (revolute) or ``<joint>_v`` (prismatic), its
elements ``<joint>_damper``, ``<joint>_friction``, ``<joint>_limit``, ``<joint>_mimic``.

Numbers are written with 15 significant digits (what the transforms' arithmetic holds),
and rounding residue below 1e-15 in positions, axes and quaternions as 0.
"""
from __future__ import annotations

import math
import re
import textwrap
import unicodedata
from dataclasses import dataclass, field

import numpy as np

from .urdf_bodies import Body, Mechanism, axis_inertia
from .urdf_model import Joint

RESERVED = ("gnd", "time", "pi")     # the ground, the time, a constant (any case)
_ILLEGAL = re.compile(r"[^A-Za-z0-9_]")
LIMIT_K = {True: 1e5, False: 1e6}    # end-stop stiffness, N*m/rad (revolute) and N/m
# (prismatic): a 1 kg*m^2 link swinging at 1 rad/s into a stop penetrates 3e-3 rad, a
# 10 N*m load presses it in 1e-4 rad; with critical damping the contact does not bounce
FRICTION_VEPS = 1e-4                 # friction's regularisation velocity (the element's
# default): a joint held by friction creeps at about (applied / friction)·veps
ROUND = 15                           # significant digits written
TINY = 1e-15                         # geometric rounding residue written as 0
WIDTH = 90                           # comment lines wrapped to this width
SOURCE_TAGS = {   # what the header names: damping, friction, limits, the last element
    "import-urdf": ("<dynamics damping>", "<dynamics friction>", "<limit>",
                    "<mimic> a transformer to the mimicked joint's flange"),
    "import-mjcf": ("damping", "frictionloss", "range", "armature an inertia (a mass) "
                    "against the ground; actuators, geoms and contacts are not imported"),
}


@dataclass
class Options:
    """What the netlist is asked to hold besides the robot."""
    source: str = "<string>"                   # the URDF file's name, for the header
    floating_base: bool = False
    gravity: tuple | None = (0.0, 0.0, -9.81)
    t_end: float = 2.0
    q0: dict = field(default_factory=dict)     # URDF joint name -> rad or m
    qd0: dict = field(default_factory=dict)    # URDF joint name -> rad/s or m/s
    tool: str = "import-urdf"                  # the command named in the header


class Names:
    """Legal and unique netlist names (one namespace for elements and nodes)."""

    def __init__(self):
        self.taken = set()

    def new(self, wanted: str) -> str:
        """``wanted`` made legal, with ``_2``, ``_3``, ... if already taken."""
        base = _ILLEGAL.sub("_", wanted) or "_"
        if base[0].isdigit():
            base = "_" + base
        if base.lower() in RESERVED:
            base += "_"
        name, count = base, 1
        while name.lower() in self.taken:        # case-insensitive: file names, terminals
            count += 1
            name = f"{base}_{count}"
        self.taken.add(name.lower())
        return name


def number(x: float, geometric: bool = False) -> str:
    """A number as the netlist gets it: 15 significant digits, shortest form."""
    x = float(x)
    if geometric and abs(x) < TINY:
        x = 0.0
    return repr(float(f"{x:.{ROUND}g}") + 0.0)          # + 0.0: no '-0.0'


def vector(values, geometric: bool = True) -> str:
    """A netlist vector ``(x, y, z)``."""
    return "(" + ", ".join(number(v, geometric) for v in values) + ")"


def quaternion(R: np.ndarray) -> np.ndarray:
    """The unit quaternion (q0 >= 0, scalar first) of a rotation matrix (Shepperd: from
    the largest of the four squared components, for accuracy)."""
    t = np.trace(R)
    squares = [1 + t, 1 + 2 * R[0, 0] - t, 1 + 2 * R[1, 1] - t, 1 + 2 * R[2, 2] - t]
    k = int(np.argmax(squares))
    s = 2 * math.sqrt(squares[k])
    if k == 0:
        q = [s / 4, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s]
    elif k == 1:
        q = [(R[2, 1] - R[1, 2]) / s, s / 4, (R[0, 1] + R[1, 0]) / s, (R[0, 2] + R[2, 0]) / s]
    elif k == 2:
        q = [(R[0, 2] - R[2, 0]) / s, (R[0, 1] + R[1, 0]) / s, s / 4, (R[1, 2] + R[2, 1]) / s]
    else:
        q = [(R[1, 0] - R[0, 1]) / s, (R[0, 2] + R[2, 0]) / s, (R[1, 2] + R[2, 1]) / s, s / 4]
    q = np.array(q)
    return q if q[0] >= 0 else -q


def _short(x: float) -> str:
    """A round constant as 1e5."""
    return f"{x:.0e}".replace("e+0", "e")


def comment_text(text: str) -> str:
    """Text safe in a comment: control and format characters (line breaks, bidirectional
    overrides, which the netlist reader refuses anywhere) written as escapes."""
    return "".join(ch.encode("unicode_escape").decode("ascii")
                   if unicodedata.category(ch)[0] == "C" or unicodedata.category(ch) in
                   ("Zl", "Zp") else ch for ch in text)


class NetlistWriter:
    """The netlist text of a mechanism (``text()``), names given in tree order."""

    def __init__(self, mech: Mechanism, options: Options):
        self.mech, self.options = mech, options
        self.names = Names()
        self.body_name = {id(b): self.names.new(b.name) for b in mech.bodies if not b.ground}
        self.moving = [j for j in mech.joints() if j.moving]
        self.joint_name = {j.name: self.names.new(j.name) for j in self.moving}
        self.flange = {j.name: self.names.new(f"{self.joint_name[j.name]}_"
                                              f"{'w' if j.rotational else 'v'}")
                       for j in self.moving}
        self.start = initial_values(mech, options)

    def text(self) -> str:
        """The whole netlist: header, bodies, joints and their elements, run
        directives."""
        lines = self._header()
        lines += self._bodies()
        lines += self._joints()
        lines += self._run()
        return "\n".join(lines) + "\n"

    def frame(self, link: str) -> str:
        """The netlist frame a link belongs to: its body, or the ground 0."""
        body = self.mech.body_of[link]
        return "0" if body.ground else self.body_name[id(body)]

    def _header(self) -> list:
        """The title and what the netlist was made from, with which options and how."""
        o = self.options
        source = comment_text(o.source)
        title = comment_text(self.mech.robot.name or "robot").replace(";", ",")
        root = ("a free body (--floating-base)" if o.floating_base
                else "fixed to the ground 0")
        gravity = "none" if o.gravity is None else vector(o.gravity, False) + " m/s^2"
        tags = SOURCE_TAGS[o.tool]
        text = (f"Imported from {source} by circuitsim {o.tool} (docs/urdf.md). Root link "
                f"{root}; gravity {gravity}; .tran {number(o.t_end)} s; joint positions and "
                "rates start at 0 but where a .ic line says. A body per link (links joined "
                "by fixed joints merged into one) at its centre of mass, turned as its "
                "inertial frame; a joint at its frame's origin, its axis in the world; all "
                f"as at q = 0. On each joint's flange <joint>_w (prismatic: _v): {tags[0]} "
                f"a damper, {tags[1]} friction (Coulomb, veps "
                f"{number(FRICTION_VEPS)}), {tags[2]} a stop (k {_short(LIMIT_K[True])} "
                f"N*m/rad or {_short(LIMIT_K[False])} N/m, c = 2*sqrt(k*I): critical for "
                f"the inertia or mass I the joint carries at q = 0), {tags[3]}.")
        return [f".title {title} (from {source})"] + ["* " + line for line in
                                                      textwrap.wrap(text, WIDTH - 2)]

    def _bodies(self) -> list:
        """A body line per body that moves (comments for the ground and merged
        links), then .gravity."""
        lines = ["", "* --- bodies ---"]
        for body in self.mech.bodies:
            lines += self._merged(body)
            if not body.ground:
                lines.append(self._body_line(body))
        if self.options.gravity is not None:
            lines.append(".gravity " + " ".join(number(g) for g in self.options.gravity))
        return lines

    def _merged(self, body: Body) -> list:
        """Comments: a renamed link, links merged into the body, the ground."""
        lines = []
        name = "0" if body.ground else self.body_name[id(body)]
        if body.ground:
            lines.append(f"* link {_quoted(body.name)} is the root, fixed to the ground 0")
        elif name != body.name:
            lines.append(f"* body {name}: link {_quoted(body.name)}")
        for link in body.links[1:]:
            joint = self.mech.parent_joint[link]
            inertial = self.mech.robot.links[link].inertial
            lines.append(f"* link {_quoted(link)} merged into {name} by fixed joint "
                         f"{_quoted(joint.name)}"
                         + ("" if inertial is not None and inertial.mass > 0 else " (no mass)"))
        return lines

    def _body_line(self, body: Body) -> str:
        """body NAME m= J= [Jp=], then its pose on continuation lines: pos=, q=
        (unless unturned)."""
        J = body.tensor
        parts = [f"body {self.body_name[id(body)]} m={number(body.mass)}",
                 f"J={vector(np.diag(J), False)}"]
        products = (J[0, 1], J[0, 2], J[1, 2])
        if any(products):
            parts.append(f"Jp={vector(products, False)}")
        pose = [f"pos={vector(body.com)}"]
        q = quaternion(body.rot)
        if np.any(np.abs(q[1:]) >= TINY):                  # turned (else the default)
            pose.append(f"q={vector(q)}")
        return "\n+ ".join([" ".join(parts)] + pose)

    def _joints(self) -> list:
        """The netlist joints and their flange elements, in tree order (fixed joints
        are merged, floating ones free)."""
        lines = ["", "* --- joints ---"]
        for joint in self.mech.joints():
            if joint.kind == "fixed":
                continue
            if joint.kind == "floating":
                lines.append(f"* joint {_quoted(joint.name)} is floating: "
                             f"{self.frame(joint.child)} is a free body")
                continue
            lines += self._joint_lines(joint)
        return lines

    def _joint_lines(self, joint: Joint) -> list:
        """The joint on its flange, then its damper, friction, stop and mimic
        transformer."""
        name, flange = self.joint_name[joint.name], self.flange[joint.name]
        p, R = self.mech.joint_frame(joint)
        lines = [] if name == joint.name else [f"* joint {name}: {_quoted(joint.name)}"]
        keyword = "revolute" if joint.rotational else "prismatic"
        lines.append(f"{keyword} {name} {self.frame(joint.parent)} {self.frame(joint.child)} "
                     f"flange={flange}\n+ at={vector(p)}\n+ axis={vector(R @ joint.axis)}"
                     + ("   ; continuous: no limits" if joint.kind == "continuous" else ""))
        if joint.damping > 0:
            lines.append(f"damper {self.names.new(name + '_damper')} {flange} 0 "
                         f"b={number(joint.damping)}")
        if joint.friction > 0:
            lines.append(f"friction {self.names.new(name + '_friction')} {flange} 0 "
                         f"Fc={number(joint.friction)} veps={number(FRICTION_VEPS)}")
        if joint.armature > 0:                 # J q'' (m s'') against the ground
            element, value = ("inertia", "J") if joint.rotational else ("mass", "m")
            lines.append(f"{element} {self.names.new(name + '_armature')} {flange} "
                         f"{value}={number(joint.armature)}")
        lines += self._limit_lines(joint, name, flange)
        if joint.mimic is not None:
            m = joint.mimic
            lines.append(f"transformer {self.names.new(name + '_mimic')} {flange} 0 "
                         f"{self.flange[m.joint]} 0 n={number(m.multiplier)}   ; "
                         f"{_quoted(joint.name)} = {number(m.multiplier)}*"
                         f"{_quoted(m.joint)} + {number(m.offset)}")
        return lines

    def _limit_lines(self, joint: Joint, name: str, flange: str) -> list:
        """Effort and velocity limits as a comment; position limits as a stop,
        critically damped for what the joint carries."""
        limit = joint.limit
        if limit is None:
            return []
        lines, units = [], ("N*m", "rad/s") if joint.rotational else ("N", "m/s")
        rates = [f"{what} {number(v)} {unit}" for what, v, unit in
                 (("effort", limit.effort, units[0]), ("velocity", limit.velocity, units[1]))
                 if v is not None]
        if rates:
            lines.append(f"* {name}: limits on {' and '.join(rates)} (not modelled)")
        if limit.lower is None or joint.kind == "continuous":     # no position limits
            return lines
        if limit.lower == limit.upper:
            lines.append(f"* {name}: lower = upper = {number(limit.lower)}: no travel; no "
                         "stop written")
            return lines
        k = LIMIT_K[joint.rotational]
        c = 2 * math.sqrt(k * axis_inertia(self.mech, joint))
        lines.append(f"stop {self.names.new(name + '_limit')} {flange} 0 "
                     f"lower={number(limit.lower)} upper={number(limit.upper)} k={number(k)} "
                     f"c={number(c)} x0={number(self.start[joint.name][0])}")
        return lines

    def _run(self) -> list:
        """The joints' initial positions and rates (.ic), .tran and .probe."""
        o = self.options
        lines = [""]
        angles = [f"{self.joint_name[j.name]}.{'angle' if j.rotational else 's'}"
                  for j in self.moving]
        started = [f"{a}={number(self.start[j.name][0])}" for a, j in zip(angles, self.moving)
                   if self.start[j.name][0] != 0]
        rates = [f"{self.flange[j.name]}={number(self.start[j.name][1])}"
                 for j in self.moving if self.start[j.name][1] != 0]
        for values in (started, rates):
            if values:
                lines.append(".ic " + " ".join(values))
        lines.append(f".tran {number(o.t_end)} {number(o.t_end / 200)}")
        if self.moving:
            lines.append(".probe " + " ".join(angles + [self.flange[j.name]
                                                         for j in self.moving]))
        return lines


def initial_values(mech: Mechanism, options: Options) -> dict:
    """URDF joint name -> (q, qd) at t = 0: the options' values, 0 otherwise; a mimic
    joint follows its master, q = multiplier·q_master + offset, qd = multiplier·qd_master
    (along a chain of mimics from the joint that mimics none)."""
    joints = mech.robot.joints
    start = {}
    for joint in (j for j in mech.joints() if j.moving):
        chain = [joint]
        while chain[-1].mimic is not None and chain[-1].name not in start:
            chain.append(joints[chain[-1].mimic.joint])
        last = chain.pop()
        if last.name not in start:
            start[last.name] = (options.q0.get(last.name, 0.0), options.qd0.get(last.name, 0.0))
        q, qd = start[last.name]
        for follower in reversed(chain):
            m = follower.mimic
            q, qd = m.multiplier * q + m.offset, m.multiplier * qd
            start[follower.name] = (q, qd)
    return start


def _quoted(name: str) -> str:
    """A URDF name as a comment quotes it."""
    return "'" + comment_text(name) + "'"
