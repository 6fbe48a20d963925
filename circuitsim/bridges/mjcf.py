"""MJCF import through MuJoCo's own compiler: a MuJoCo model as a circuitsim netlist.

MuJoCo (an optional extra: ``pip install circuitsim[mjcf]``) compiles the file, with its
defaults, includes, inertias computed from geoms and fused static bodies, into an
MjModel; its bodies and joints are turned into the links and joints the URDF import
writes (urdf_bodies.py places and merges them, urdf_netlist.py writes them). It also
reads URDF the way MuJoCo does.

A body is a link. Its frame is MuJoCo's body frame moved to its joint's anchor (an MJCF
joint turns about an axis through ``pos`` in the body frame, a URDF joint through the
origin of its child's frame); its inertia the compiled one (mass, centre, principal
moments and axes). Per body at most one joint: ``hinge`` a revolute joint (limited or
not), ``slide`` a prismatic one, ``free`` a free body, none a fixed joint (merged into
the parent). Per joint: ``damping`` a damper, ``armature`` a rotor inertia (a mass, for
a slide) on the flange, ``range`` of a limited joint a stop, ``frictionloss`` Coulomb
friction. What the netlist cannot say as MuJoCo means it is refused by name: ball
joints, several joints in one body, joint springs, equality constraints, tendons.
Actuators, geoms and contacts are left out (said in the header).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import CircuitsimError, Loc, NetlistError
from .urdf import DEFAULT_GRAVITY, _joint_values, _t_end
from .urdf_bodies import mechanism_of
from .urdf_model import Inertial, Joint, Limit, Link, Robot
from .urdf_netlist import NetlistWriter, Options

HINGE, SLIDE, BALL, FREE = 3, 2, 1, 0      # mjtJoint
AS_WRITTEN = "as written"                  # gravity: the file's own option gravity


def mjcf_to_netlist(path, *, gravity=AS_WRITTEN, t_end: float = 2.0, q0=None,
                    qd0=None) -> str:
    """The netlist text of the MJCF (or URDF) file ``path``, compiled by MuJoCo.

    ``gravity``: AS_WRITTEN (the file's ``option gravity``), (gx, gy, gz) in m/s², or None
    for no ``.gravity`` line; ``t_end``, ``q0``, ``qd0`` as for ``urdf_to_netlist``
    (joint names as MuJoCo names them). A mj MuJoCo cannot compile, or one with what
    the netlist cannot say, raises NetlistError naming the file and the body or joint."""
    path = Path(path)
    mj = _compiled(path)
    robot = robot_of_mj(mj, path.name)
    mech = mechanism_of(robot)
    g = tuple(float(x) for x in mj.opt.gravity) if gravity == AS_WRITTEN else gravity
    options = Options(source=path.name, gravity=None if g is None else tuple(g),
                      t_end=_t_end(t_end), q0=_joint_values(robot, q0, "q0"),
                      qd0=_joint_values(robot, qd0, "qd0"), tool="import-mjcf")
    return NetlistWriter(mech, options).text()


def _compiled(path: Path):
    try:
        import mujoco
    except ImportError:
        raise CircuitsimError("MJCF import needs MuJoCo: python -m pip install mujoco "
                              "(or circuitsim[mjcf])") from None
    if not path.is_file():
        raise NetlistError(f"cannot read {path}: no such file", Loc(str(path), 1, 1))
    try:
        return mujoco.MjModel.from_xml_path(str(path))
    except ValueError as exc:                   # MuJoCo's compiler names line and element
        message = " ".join(str(exc).split())
        raise NetlistError(f"MuJoCo could not compile {path.name}: {message}",
                           Loc(str(path), 1, 1)) from None


def robot_of_mj(mj, filename: str) -> Robot:
    """The links and joints of a compiled MjModel, in the URDF import's terms."""
    loc = Loc(filename, 1, 1)
    _refuse_unsupported(mj, loc)
    names = [mj.body(b).name or f"body{b}" for b in range(mj.nbody)]
    joint_of = _joint_per_body(mj, names, loc)
    anchor = {b: (mj.jnt_pos[j].copy() if j is not None and mj.jnt_type[j] != FREE
                  else np.zeros(3)) for b, j in joint_of.items()}
    anchor[0] = np.zeros(3)
    links = {names[0]: Link(names[0], loc)}
    joints = {}
    for b in range(1, mj.nbody):
        links[names[b]] = Link(names[b], loc, _inertial(mj, b, anchor[b], loc))
        joint = _joint(mj, b, joint_of[b], names, anchor, loc)
        joints[joint.name] = joint
    return Robot(filename, links, joints, filename)


def _refuse_unsupported(mj, loc) -> None:
    """What the netlist cannot say as MuJoCo means it, refused before any writing."""
    for count, what in ((mj.neq, "equality constraints"), (mj.ntendon, "tendons")):
        if count:
            raise NetlistError(f"the mj has {count} {what}: not imported (the netlist "
                               "would move differently); remove them or write them as "
                               "elements by hand", loc)
    for j in range(mj.njnt):
        if mj.jnt_stiffness[j] != 0:
            raise NetlistError(f"joint '{mj.joint(j).name}' has a joint spring "
                               f"(stiffness {mj.jnt_stiffness[j]:g}): not imported; "
                               "write it as a spring on the joint's flange", loc)


def _joint_per_body(mj, names, loc) -> dict:
    """body -> its joint's index (None: welded to its parent); one joint at most."""
    joint_of = {}
    for b in range(1, mj.nbody):
        ids = [j for j in range(mj.njnt) if mj.jnt_bodyid[j] == b]
        if len(ids) > 1:
            raise NetlistError(f"body '{names[b]}' has {len(ids)} joints "
                               f"({', '.join(mj.joint(j).name or str(j) for j in ids)}): "
                               "one joint per body is imported; give each its own body", loc)
        if ids and mj.jnt_type[ids[0]] == BALL:
            raise NetlistError(f"joint '{mj.joint(ids[0]).name}' of body '{names[b]}' "
                               "is a ball joint: not imported yet (a spherical joint by "
                               "hand)", loc)
        joint_of[b] = ids[0] if ids else None
    return joint_of


def _quat_matrix(q) -> np.ndarray:
    w, x, y, z = np.asarray(q, dtype=float) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _inertial(mj, b: int, anchor, loc) -> Inertial | None:
    """The compiled mass, centre and principal inertia, in the link frame (the body
    frame moved to the joint's anchor); None for a massless body."""
    mass = float(mj.body_mass[b])
    if mass <= 0:
        return None
    return Inertial(mass, mj.body_ipos[b] - anchor, _quat_matrix(mj.body_iquat[b]),
                    np.diag(mj.body_inertia[b].astype(float)), loc)


def _joint(mj, b: int, j, names, anchor, loc) -> Joint:
    """The joint that carries body b: its link frame's pose in its parent's link frame,
    its axis, and its damping, armature, friction and limits."""
    parent = int(mj.body_parentid[b])
    R = _quat_matrix(mj.body_quat[b])
    origin = mj.body_pos[b] + R @ anchor[b] - anchor[parent]
    if j is None:
        return Joint(f"{names[b]}_weld", "fixed", names[parent], names[b], loc,
                     xyz=origin, rot=R)
    kind = {HINGE: "revolute" if mj.jnt_limited[j] else "continuous",
            SLIDE: "prismatic", FREE: "floating"}[int(mj.jnt_type[j])]
    joint = Joint(mj.joint(j).name or f"joint{j}", kind, names[parent], names[b], loc,
                  xyz=origin, rot=R, axis=mj.jnt_axis[j].astype(float))
    if kind == "floating":
        return joint
    dof = mj.jnt_dofadr[j]
    joint.damping = float(mj.dof_damping[dof])
    joint.friction = float(mj.dof_frictionloss[dof])
    joint.armature = float(mj.dof_armature[dof])
    if mj.jnt_limited[j]:
        lower, upper = map(float, mj.jnt_range[j])
        joint.limit = Limit(lower, upper, None, None, loc)
    return joint
