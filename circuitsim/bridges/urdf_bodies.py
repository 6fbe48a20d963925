"""A URDF robot as a mechanism: its kinematic tree checked, every link placed at q = 0,
links joined by fixed joints merged into one rigid body.

The tree: every joint's parent and child exist, no link has two parents, no cycle, one
root. Forward kinematics at q = 0: the joint frame is the parent link's frame moved by
the joint's ``<origin>``, and the child link's frame is the joint frame,

    p_J = p_P + R_P·xyz,    R_J = R_P·Rz(yaw)·Ry(pitch)·Rx(roll).

Links joined by fixed joints are one body (as Pinocchio merges them): masses add, the
centre of mass is their mass-weighted mean c, and the central inertia, in world axes, is

    I = Σ_k [R_k·I_k·R_kᵀ + m_k·(|d_k|²·E − d_k·d_kᵀ)],    d_k = c_k − c

(each link's tensor turned into world axes, moved to c by the parallel-axis theorem),
written in the frame of the body's first link. A body of a single massive link keeps
that link's inertial frame and its tensor as written.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..elements.body import TRIANGLE_RTOL
from ..errors import Loc, NetlistError, did_you_mean
from .urdf_model import Joint, Robot


@dataclass(eq=False)
class Body:
    """One rigid body of the netlist: a link and the links fixed to it."""
    links: list                   # link names, the one nearest the root first
    loc: Loc                      # where its first link is written
    mass: float = 0.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))     # world, q = 0
    rot: np.ndarray = field(default_factory=lambda: np.eye(3))       # body -> world
    tensor: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))  # body frame
    ground: bool = False          # the root, fixed to the ground (node 0)
    inertia_loc: Loc | None = None

    @property
    def name(self) -> str:
        """The body's netlist name before it is made legal: its first link's."""
        return self.links[0]


@dataclass
class Mechanism:
    """The checked tree: links in tree order (parents first), each link's parent joint
    and world pose at q = 0, each link's body, the joints' world frames."""
    robot: Robot
    order: list
    parent_joint: dict
    pose: dict                    # link -> (p, R): its frame in the world at q = 0
    body_of: dict                 # link -> Body
    bodies: list                  # in tree order, the root's first
    _carried: dict | None = None

    def joint_frame(self, joint: Joint) -> tuple:
        """(origin, rotation) of the joint frame in the world at q = 0: the child's."""
        return self.pose[joint.child]

    def carried(self) -> dict:
        """link -> (M, C, I_C) of the bodies from it down (``carried_inertia``)."""
        if self._carried is None:
            self._carried = carried_inertia(self)
        return self._carried

    def joints(self) -> list:
        """Every joint in tree order (the parent joint of each link but the root)."""
        return [self.parent_joint[link] for link in self.order[1:]]


def mechanism_of(robot: Robot, floating_base: bool = False) -> Mechanism:
    """The robot's tree checked, its links placed at q = 0 and merged into bodies."""
    parent_joint = _parents(robot)
    order = _tree_order(robot, parent_joint)
    pose = _poses(order, parent_joint)
    body_of, bodies = _bodies(robot, order, parent_joint, pose, floating_base)
    mech = Mechanism(robot, order, parent_joint, pose, body_of, bodies)
    for body in bodies:
        if not body.ground:
            _check_body(mech, body)
    _check_mimics(robot)
    return mech


def _parents(robot: Robot) -> dict:
    """link -> the joint whose child it is; each joint's links exist, no link has two
    parents, no joint joins a link to itself."""
    parent_joint = {}
    for joint in robot.joints.values():
        for role, link in (("parent", joint.parent), ("child", joint.child)):
            if link not in robot.links:
                close = did_you_mean(link, robot.links)
                raise NetlistError(f"joint '{joint.name}': {role} link '{link}' does not "
                                   f"exist{' (' + close + ')' if close else ''}", joint.loc)
        if joint.parent == joint.child:
            raise NetlistError(f"joint '{joint.name}' joins link '{joint.child}' to itself",
                               joint.loc)
        if joint.child in parent_joint:
            first = parent_joint[joint.child]
            raise NetlistError(f"joint '{joint.name}': link '{joint.child}' has two parents, "
                               f"'{joint.parent}' here and '{first.parent}' by joint "
                               f"'{first.name}' (line {first.loc.line}); a URDF is a tree",
                               joint.loc)
        parent_joint[joint.child] = joint
    return parent_joint


def _tree_order(robot: Robot, parent_joint: dict) -> list:
    """The links from the one root, depth first in the file's order; more than one root,
    or links on a cycle (none of them reachable from the root), is an error."""
    roots = [name for name in robot.links if name not in parent_joint]
    if len(roots) > 1:
        raise NetlistError(f"link '{roots[1]}' has no parent joint, nor has link "
                           f"'{roots[0]}': a URDF is one tree with one root",
                           robot.links[roots[1]].loc)
    children = {name: [] for name in robot.links}
    for joint in robot.joints.values():
        children[joint.parent].append(joint.child)
    order, stack = [], roots[:]
    while stack:
        link = stack.pop()
        order.append(link)
        stack.extend(reversed(children[link]))
    if len(order) < len(robot.links):
        raise _cycle(robot, parent_joint, next(n for n in robot.links if n not in order))
    return order


def _cycle(robot: Robot, parent_joint: dict, start: str) -> NetlistError:
    """The error naming the joints of the cycle above ``start`` (each link there has one
    parent, so following the parents from it closes the cycle)."""
    seen, link = [], start
    while link not in seen:
        seen.append(link)
        link = parent_joint[link].parent
    path = list(reversed(seen[seen.index(link):]))        # parent before child
    joints = [parent_joint[name] for name in path[1:] + path[:1]]
    names = ", ".join(f"'{j.name}'" for j in joints)
    return NetlistError(f"joints {names} form a cycle (links "
                        f"{' -> '.join(path + path[:1])}); a URDF is a tree",
                        joints[-1].loc)


def _poses(order: list, parent_joint: dict) -> dict:
    """Each link's frame in the world at q = 0: the root at the origin, then
    p_J = p_P + R_P·xyz, R_J = R_P·R(rpy) down the tree."""
    pose = {order[0]: (np.zeros(3), np.eye(3))}
    for link in order[1:]:
        joint = parent_joint[link]
        p, R = pose[joint.parent]
        pose[link] = (p + R @ joint.xyz, R @ joint.rot)
    return pose


def _bodies(robot, order, parent_joint, pose, floating_base) -> tuple:
    """Links joined by fixed joints grouped into bodies (the root's first, fixed to the
    ground unless ``floating_base``) and their mass properties."""
    body_of, bodies = {}, []
    for link in order:
        joint = parent_joint.get(link)
        if joint is not None and joint.kind == "fixed":
            body = body_of[joint.parent]
            body.links.append(link)
        else:
            body = Body([link], robot.links[link].loc,
                        ground=joint is None and not floating_base)
            bodies.append(body)
        body_of[link] = body
    for body in bodies:
        _mass_properties(robot, body, pose)
    return body_of, bodies


def _mass_properties(robot: Robot, body: Body, pose: dict) -> None:
    """Mass, centre and central inertia of the body's massive links (parallel axes)."""
    parts = []
    for link in body.links:
        inertial = robot.links[link].inertial
        if inertial is not None and inertial.mass > 0:
            p, R = pose[link]
            parts.append((inertial.mass, p + R @ inertial.xyz, R @ inertial.rot,
                          inertial.tensor, inertial.loc))
    if not parts:
        return
    body.inertia_loc = parts[0][4]
    if len(parts) == 1:
        body.mass, body.com, body.rot, body.tensor, _ = parts[0]
        return
    body.mass = sum(m for m, *_ in parts)
    body.com = sum(m * c for m, c, *_ in parts) / body.mass
    world = np.zeros((3, 3))
    for m, c, R, tensor, _ in parts:
        d = c - body.com
        world += R @ tensor @ R.T + m * (d @ d * np.eye(3) - np.outer(d, d))
    body.rot = pose[body.links[0]][1]
    local = body.rot.T @ world @ body.rot
    body.tensor = (local + local.T) / 2


def _check_body(mech: Mechanism, body: Body) -> None:
    """A body that moves needs a mass and a rigid body's inertia tensor."""
    if not body.mass > 0:
        raise NetlistError(_massless(mech, body), body.loc)
    moments = np.linalg.eigvalsh(body.tensor)
    fixed = (f" (with {', '.join(repr(n) for n in body.links[1:])} fixed to it)"
             if len(body.links) > 1 else "")
    shown = ", ".join(f"{v:.6g}" for v in moments)
    if not moments[0] > 0:
        raise NetlistError(f"link '{body.name}'{fixed}: the inertia tensor is not positive "
                           f"definite (principal moments {shown} kg*m^2)", body.inertia_loc)
    if moments[2] > (moments[0] + moments[1]) * (1 + TRIANGLE_RTOL):
        raise NetlistError(f"link '{body.name}'{fixed}: no rigid body has these moments of "
                           f"inertia ({shown} kg*m^2): the largest exceeds the sum of the "
                           "other two", body.inertia_loc)


def _massless(mech: Mechanism, body: Body) -> str:
    """Why a body without mass cannot be: what moves it, what it carries."""
    what = "no <inertial> or mass 0" + (", nor have the links fixed to it"
                                        if len(body.links) > 1 else "")
    joint = mech.parent_joint.get(body.name)
    if joint is None:
        return (f"the root link '{body.name}' has no mass ({what}): a floating base must "
                "be a massive body")
    carried = [j for j in mech.joints() if j.parent in body.links and j.kind != "fixed"]
    carries = (f" and carries joint '{carried[0].name}' ({carried[0].kind}) to link "
               f"'{carried[0].child}'" if carried else "")
    return (f"link '{body.name}' has no mass ({what}) but is moved by joint '{joint.name}' "
            f"({joint.kind}){carries}: a massless link can only be fixed to a massive one; "
            "give it an <inertial>")


def _check_mimics(robot: Robot) -> None:
    """A mimic names another moving joint, and mimics do not go round in a cycle."""
    for joint in robot.joints.values():
        if joint.mimic is None:
            continue
        master = robot.joints.get(joint.mimic.joint)
        if master is None:
            close = did_you_mean(joint.mimic.joint, robot.joints)
            raise NetlistError(f"joint '{joint.name}' <mimic>: joint '{joint.mimic.joint}' "
                               f"does not exist{' (' + close + ')' if close else ''}",
                               joint.mimic.loc)
        if not master.moving:
            raise NetlistError(f"joint '{joint.name}' <mimic>: joint '{master.name}' is "
                               f"{master.kind}, not a moving joint", joint.mimic.loc)
        seen = [joint.name]
        while master.mimic is not None and master.name not in seen:
            seen.append(master.name)
            master = robot.joints.get(master.mimic.joint, master)
        if master.name in seen:
            raise NetlistError(f"joint '{joint.name}' <mimic>: the joints "
                               f"{', '.join(repr(n) for n in seen)} mimic each other in a "
                               "cycle", joint.mimic.loc)


def axis_inertia(mech: Mechanism, joint: Joint) -> float:
    """What a joint's end stop pushes against, at q = 0 with the joints below it held:
    the mass M of the bodies it carries (prismatic), or their moment of inertia about
    its axis n through its origin p (revolute): n·I_C·n + M·|(C − p)⊥|², with C their
    centre of mass and I_C their inertia about it."""
    mass, com, inertia = mech.carried()[joint.child]
    if not joint.rotational:
        return mass
    p, R = mech.joint_frame(joint)
    n = R @ joint.axis
    r = com - p
    perp = r - (r @ n) * n
    return float(n @ inertia @ n + mass * perp @ perp)


def carried_inertia(mech: Mechanism) -> dict:
    """link -> (M, C, I_C) of the bodies from that link down (not through floating
    joints: what they carry moves freely), summed from the leaves up in one pass as
    mass, first moment and second moment about the origin,
    I_O = Σ [R·I·Rᵀ + m·(|c|²·E − c·cᵀ)], then I_C = I_O − M·(|C|²·E − C·Cᵀ)."""
    sums = {link: [0.0, np.zeros(3), np.zeros((3, 3))] for link in mech.order}
    for body in mech.bodies:
        if body.ground or not body.mass > 0:
            continue
        c = body.com
        sums[body.name][0] += body.mass
        sums[body.name][1] += body.mass * c
        sums[body.name][2] += (body.rot @ body.tensor @ body.rot.T
                               + body.mass * (c @ c * np.eye(3) - np.outer(c, c)))
    for link in reversed(mech.order[1:]):
        joint = mech.parent_joint[link]
        if joint.kind != "floating":
            above, below = sums[joint.parent], sums[link]
            sums[joint.parent] = [a + b for a, b in zip(above, below)]
    out = {}
    for link, (mass, first, second) in sums.items():
        com = first / mass if mass > 0 else np.zeros(3)
        out[link] = (mass, com, second - mass * (com @ com * np.eye(3) - np.outer(com, com)))
    return out
