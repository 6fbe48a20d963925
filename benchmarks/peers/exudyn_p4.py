"""P4 spherical chain in Exudyn (peer benchmark; run in the peers venv, see README.md).

    python exudyn_p4.py N [--step H] [--tend T] [--out file.json]
                        [--rho R] [--solver ga|trap2] [--tol TOL] [--full-newton] [--fast]

N uniform rods (0.5 m, 1 kg, transverse inertia m L^2/12 = 0.25/12 kg m^2, axial inertia
1e-4 kg m^2) joined by spherical joints, rod 1 to the ground at the origin, released
straight along +x under g = 9.81 m/s^2 along -z. Redundant coordinates: ObjectRigidBody on
NodeRigidBodyEP (Euler parameters, Exudyn's standard rigid body), ObjectJointSpherical,
EigenSparse linear solver, SolveDynamic with the implicit generalized-alpha solver (index 3,
spectral radius --rho, Exudyn's default 0.9; --solver trap2 for the index-2 trapezoidal rule)
at the fixed step H (no adaptive step reduction), one thread. The rod centres at t = 1 and
2 s come from node sensors stored internally once per second; nothing is written to disk
but --out.
"""
import argparse
import sys
import time

from p4_output import emit

ap = argparse.ArgumentParser()
ap.add_argument("N", type=int)
ap.add_argument("--step", type=float, default=1e-3)
ap.add_argument("--tend", type=float, default=2.0)
ap.add_argument("--out", default=None)
ap.add_argument("--rho", type=float, default=0.9, help="generalized-alpha spectral radius (Exudyn default 0.9)")
ap.add_argument("--solver", default="ga", choices=["ga", "trap2"],
                help="ga: generalized-alpha, index-3 constraints (default); "
                     "trap2: DynamicSolverType.TrapezoidalIndex2 (Newmark, index-2 constraints)")
ap.add_argument("--tol", type=float, default=None,
                help="Newton relative tolerance (default: Exudyn's 1e-8); absolute tolerance = 1e-2*tol")
ap.add_argument("--full-newton", action="store_true", help="full instead of modified Newton")
ap.add_argument("--fast", action="store_true", help="use exudynCPPfast (no range checks)")
args = ap.parse_args()
if args.fast:
    sys.exudynFast = True

import exudyn as exu  # noqa: E402
from exudyn.itemInterface import (LoadMassProportional, MarkerBodyMass, MarkerBodyPosition,  # noqa: E402
                                  NodeRigidBodyEP, ObjectGround, ObjectJointSpherical,
                                  ObjectRigidBody, SensorNode)

N, H, T = args.N, args.step, args.tend
L, M = 0.5, 1.0
IT, IA = M * L * L / 12.0, 1e-4         # transverse and axial inertia (rod axis = local x)
G = [0.0, 0.0, -9.81]

SC = exu.SystemContainer()
mbs = SC.AddSystem()
ground = mbs.AddObject(ObjectGround(referencePosition=[0, 0, 0]))
mPrev = mbs.AddMarker(MarkerBodyPosition(bodyNumber=ground, localPosition=[0, 0, 0]))
sensors = []
for k in range(N):
    xc = (k + 0.5) * L
    n = mbs.AddNode(NodeRigidBodyEP(referenceCoordinates=[xc, 0, 0, 1, 0, 0, 0],
                                    initialVelocities=[0.0] * 7))
    b = mbs.AddObject(ObjectRigidBody(mass=M, inertia=[IA, IT, IT, 0, 0, 0],
                                      nodeNumber=n))
    mbs.AddLoad(LoadMassProportional(markerNumber=mbs.AddMarker(MarkerBodyMass(bodyNumber=b)),
                                     loadVector=G))
    m0 = mbs.AddMarker(MarkerBodyPosition(bodyNumber=b, localPosition=[-0.5 * L, 0, 0]))
    mbs.AddObject(ObjectJointSpherical(markerNumbers=[mPrev, m0], constrainedAxes=[1, 1, 1]))
    mPrev = mbs.AddMarker(MarkerBodyPosition(bodyNumber=b, localPosition=[0.5 * L, 0, 0]))
    sensors.append(mbs.AddSensor(SensorNode(nodeNumber=n, outputVariableType=exu.OutputVariableType.Position,
                                            storeInternal=True, writeToFile=False)))
mbs.Assemble()

nsteps = int(round(T / H))
ss = exu.SimulationSettings()
ti = ss.timeIntegration
ti.numberOfSteps = nsteps
ti.endTime = nsteps * H
ti.adaptiveStep = False               # truly fixed step: fail rather than reduce it
ti.verboseMode = 0
ti.generalizedAlpha.spectralRadius = args.rho
if args.tol is not None:
    ti.newton.relativeTolerance = args.tol
    ti.newton.absoluteTolerance = 1e-2 * args.tol
if args.full_newton:
    ti.newton.useModifiedNewton = False
ss.linearSolver.solverType = exu.LinearSolverType.EigenSparse
ss.parallel.numberOfThreads = 1
ss.solution.file.write = False
ss.solution.sensors.writePeriod = 1.0
ss.show.computationTime = False
ss.show.statistics = False

t0 = time.perf_counter()
mbs.SolveDynamic(ss, solverType=(exu.DynamicSolverType.TrapezoidalIndex2 if args.solver == "trap2"
                                 else exu.DynamicSolverType.GeneralizedAlpha))
wall = time.perf_counter() - t0

tout = [1.0, 2.0]
centres = []
for tq in tout:
    if tq > ti.endTime + 1e-12:
        continue
    row = []
    for s in sensors:
        d = mbs.GetSensorStoredData(s)
        i = int(abs(d[:, 0] - tq).argmin())
        if abs(d[i, 0] - tq) > 1e-9:
            raise RuntimeError(f"no sensor sample at t={tq} (nearest {d[i, 0]})")
        row.append([float(v) for v in d[i, 1:4]])
    centres.append(row)

res = {"engine": "exudyn", "version": exu.config.Version(), "N": N, "h": H,
       "t": tout[:len(centres)], "centres": centres, "wall_s": wall, "steps": nsteps,
       "settings": {"solver": {"ga": "GeneralizedAlpha (index 3)", "trap2": "TrapezoidalIndex2"}[args.solver],
                    "spectralRadius": None if args.solver == "trap2" else args.rho,
                    "newtonRelTol": ti.newton.relativeTolerance,
                    "modifiedNewton": bool(ti.newton.useModifiedNewton),
                    "linearSolver": "EigenSparse", "axialInertia": IA, "fast": bool(args.fast)}}
emit(res, args.out)
