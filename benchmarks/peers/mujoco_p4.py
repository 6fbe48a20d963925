"""P4 spherical chain in MuJoCo (peer benchmark; run in the peers venv, see README.md).

    python mujoco_p4.py N [--step H] [--tend T] [--out file.json] [--integrator RK4|implicitfast|implicit|Euler]

N uniform rods (0.5 m, 1 kg, transverse inertia m L^2/12 = 0.25/12 kg m^2, axial inertia
1e-4 kg m^2) on ball joints, rod 1 to the world at the origin, released straight along +x
under g = 9.81 m/s^2 along -z. The MJCF is generated here: a nested body per rod (frame at
its joint, explicit <inertial> at the rod centre), a ball joint, a capsule geom with no
collision (contype = conaffinity = 0, contacts disabled), no damping, armature or friction
loss. Minimal coordinates: MuJoCo integrates the quaternion of every ball joint. The rod
centres at t = 1 and 2 s are the bodies' xipos after round(1/H) and round(2/H) steps.
"""
import argparse
import time

from p4_output import emit

ap = argparse.ArgumentParser()
ap.add_argument("N", type=int)
ap.add_argument("--step", type=float, default=1e-3)
ap.add_argument("--tend", type=float, default=2.0)
ap.add_argument("--out", default=None)
ap.add_argument("--integrator", default="RK4", choices=["RK4", "implicitfast", "implicit", "Euler"])
args = ap.parse_args()

import mujoco  # noqa: E402

N, H, T = args.N, args.step, args.tend
L, M = 0.5, 1.0
IT, IA = M * L * L / 12.0, 1e-4


def mjcf(n: int) -> str:
    parts = [f'<mujoco model="p4chain{n}">',
             f'<option timestep="{H!r}" gravity="0 0 -9.81" integrator="{args.integrator}">'
             '<flag contact="disable"/></option>',
             '<default><geom type="capsule" size="0.02" contype="0" conaffinity="0"/>'
             '<joint type="ball" damping="0" armature="0" frictionloss="0"/></default>',
             '<worldbody>']
    for k in range(n):
        pos = "0 0 0" if k == 0 else f"{L!r} 0 0"
        parts.append(f'<body name="r{k + 1}" pos="{pos}"><joint name="j{k + 1}"/>'
                     f'<inertial pos="{0.5 * L!r} 0 0" mass="{M!r}" diaginertia="{IA!r} {IT!r} {IT!r}"/>'
                     f'<geom fromto="0 0 0 {L!r} 0 0"/>')
    parts.append("</body>" * n)
    parts.append("</worldbody></mujoco>")
    return "".join(parts)


model = mujoco.MjModel.from_xml_string(mjcf(N))
data = mujoco.MjData(model)

tout = [t for t in (1.0, 2.0) if t <= T + 1e-12]
marks = [int(round(t / H)) for t in tout]
if any(abs(mk * H - t) > 1e-9 for mk, t in zip(marks, tout)):
    raise SystemExit(f"step {H!r} does not divide the output times {tout}")
nsteps = int(round(T / H))
centres = []
done = 0
t0 = time.perf_counter()
for mk in marks:
    if mk > done:
        mujoco.mj_step(model, data, nstep=mk - done)
        done = mk
    mujoco.mj_kinematics(model, data)       # xipos of the current qpos (mj_step leaves it one stage behind)
    centres.append(data.xipos[1:].tolist())
if nsteps > done:
    mujoco.mj_step(model, data, nstep=nsteps - done)
wall = time.perf_counter() - t0

res = {"engine": "mujoco", "version": mujoco.__version__, "N": N, "h": H, "t": tout,
       "centres": centres, "wall_s": wall, "steps": nsteps,
       "settings": {"integrator": args.integrator, "axialInertia": IA, "time_at_end": data.time}}
emit(res, args.out)
