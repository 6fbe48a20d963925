"""circuitsim.symbolic on trees with universal and spherical joints, in the engine's
joint angles (U.angle1, U.angle2; S.angle1..3, R = Rx·Ry·Rz in the basis as drawn).

* Free motion: tests/symbolic/ball_free.cir (a body hanging from the ground on a ball
  joint, posed in 3D by .ic of its three angles, with an initial spin) and
  ball_chain_free.cir (ball joint + revolute + ball joint written child-first, rotated
  bodies) run freely under gravity. Nothing drives the joints, so P = 0 along the run: the
  generated inverse_dynamics on the recorded angles (unwrapped) with q', q'' from a
  degree-7 spline through them must be ~0 relative to the largest term M·q''. Measured:
  6.6e-7 (ball), 3.8e-7 (chain) at rtol 1e-10; 1.2e-3, 6.6e-4 at the default
  tolerances (the integrator's error, differentiated twice).
* Driven: cardan_driven.cir, a universal joint (child-first) whose flanges carry torque
  sources, then a ball joint: P of U.angle1, U.angle2 equals the applied torques (and
  the recorded U.tau1, U.tau2), P of the ball joint's angles is ~0. Measured: 4.4e-7 N·m
  at rtol 1e-10, 3.6e-3 N·m at the default tolerances.
* A closed form: a body on a ball joint at the ground, M(q) = Eᵀ K E + m Jᵀ J with E
  the rotation axes in body coordinates, J = ∂r/∂q; singular (det M = 0) at angle2 = ±90°.
* The three derivations (connected graphs, Lagrange, Newton-Euler) agree at random states.
Runtime ~15 s.
"""
import ctypes
import functools
import re
import shutil
import subprocess

import numpy as np
import pytest

sp = pytest.importorskip("sympy")

import circuitsim  # noqa: E402
from circuitsim import cli  # noqa: E402
from circuitsim.errors import ModelError  # noqa: E402
from circuitsim.symbolic import lagrange, newton_euler  # noqa: E402

from helpers import REPO  # noqa: E402
from test_symbolic import _module  # noqa: E402

HERE = REPO / "tests" / "symbolic"
EDGE = 20                 # output points left out at each end (the spline's end effects)


@functools.lru_cache(maxsize=None)
def _netlist_module(netlist, directory):
    """The netlist and its generated module, derived once for the parametrised tests."""
    net = circuitsim.load(HERE / netlist)
    return net, _module(net.equations(), directory, netlist[:-4])


def _rates(res, coordinates):
    """q (unwrapped: the ball joint's angle1, angle3 are recorded modulo a turn), q', q''
    by a degree-7 interpolating spline on the output grid."""
    from scipy.interpolate import make_interp_spline
    q = np.array([np.unwrap(res[c]) for c in coordinates])
    s = make_interp_spline(res.t, q, k=7, axis=1)
    return q, s.derivative(1)(res.t), s.derivative(2)(res.t)


@pytest.mark.slow
@pytest.mark.parametrize("netlist, coordinates", [
    ("ball_free.cir", ("S.angle1", "S.angle2", "S.angle3")),
    ("ball_chain_free.cir", ("S.angle1", "S.angle2", "S.angle3", "R.angle", "T.angle3",
                             "T.angle2", "T.angle1")),
])
@pytest.mark.parametrize("tolerances, bound", [
    pytest.param({}, 5e-3, marks=pytest.mark.long), ({"rtol": 1e-10, "atol": 1e-12}, 3e-6)])
def test_free_motion_needs_no_drive(tmp_path_factory, netlist, coordinates, tolerances,
                                    bound):
    net, mod = _netlist_module(netlist, tmp_path_factory.getbasetemp())
    assert mod.COORDINATES == coordinates          # the recorded names, fed directly
    res = net.simulate(**tolerances)
    q, qd, qdd = _rates(res, mod.COORDINATES)
    inner = slice(EDGE, -EDGE)
    P = mod.inverse_dynamics(q, qd, qdd)[:, inner]
    Mqdd = np.einsum("ijt,jt->it", mod.mass_matrix(q), qdd)[:, inner]
    rest = mod.inverse_dynamics(q, qd, np.zeros_like(qdd))[:, inner]      # c + g
    scale = np.abs(Mqdd).max()
    assert scale > 1.0                             # the motion is not trivial
    assert np.abs(P).max() < bound * scale, np.abs(P).max() / scale
    assert np.abs(Mqdd + rest).max() < bound * scale    # M q'' + c + g = 0


@pytest.mark.parametrize("tolerances, bound", [
    pytest.param({}, 1e-2, marks=pytest.mark.long), ({"rtol": 1e-10, "atol": 1e-12}, 3e-6)])
def test_driven_universal_joint(tmp_path_factory, tolerances, bound):
    """cardan_driven.cir: T1 = 0.8 sin 5t on U.w1, T2 = −0.5 + 0.3 cos 3t on U.w2."""
    net, mod = _netlist_module("cardan_driven.cir", tmp_path_factory.getbasetemp())
    res = net.simulate(**tolerances)
    q, qd, qdd = _rates(res, mod.COORDINATES)
    inner = slice(EDGE, -EDGE)
    t = res.t[inner]
    P = dict(zip(mod.COORDINATES, mod.inverse_dynamics(q, qd, qdd)[:, inner]))
    T1, T2 = 0.8 * np.sin(5 * t), -0.5 + 0.3 * np.cos(3 * t)
    assert np.abs(P["U.angle1"] - T1).max() < bound * 0.8
    assert np.abs(P["U.angle2"] - T2).max() < bound * 0.8
    assert np.allclose(res["U.tau1"][inner], T1, atol=1e-9)       # the flange's flow
    assert np.allclose(res["U.tau2"][inner], T2, atol=1e-9)
    for k in (1, 2, 3):
        assert np.abs(P[f"S.angle{k}"]).max() < bound * 0.8
    # the flange rates are the angles' rates
    i = [mod.COORDINATES.index(f"U.angle{k}") for k in (1, 2)]
    assert np.abs(qd[i][:, inner] - np.array([res["u1"], res["u2"]])[:, inner]).max() \
        < 1e3 * bound


BALL = """.gravity 0 0 -9.81
body B m=2 J=(0.02, 0.05, 0.04) pos=(0.1, 0.05, -0.4)
spherical S 0 B at=(0, 0, 0)
"""


def _rot(axis, a):
    c, s = np.cos(a), np.sin(a)
    i, j = [k for k in range(3) if k != axis]
    R = np.eye(3)
    R[i, i], R[i, j], R[j, i], R[j, j] = c, -s, s, c
    return R if axis != 1 else R.T        # Ry = [[c, 0, s], [0, 1, 0], [−s, 0, c]]


def test_ball_joint_closed_form(tmp_path):
    """R = Rx(q1) Ry(q2) Rz(q3) (global axes, the ground is frame 1); the axes of the
    rotations in body coordinates E = [Rᵀe_x, Rzᵀe_y, e_z]; r = R r0 the centre,
    ∂r/∂q_k = u_k × r (u_k the axes, global); M = Eᵀ K E + m Jᵀ J, and at rest
    P = g(q) = −m g·J. det M ∝ cos² q2: zero at q2 = ±90°, the singular set."""
    m, K, r0, g = 2.0, np.diag([0.02, 0.05, 0.04]), np.array([0.1, 0.05, -0.4]), \
        np.array([0, 0, -9.81])
    mod = _module(circuitsim.parse(BALL, "ball.cir").equations(), tmp_path, "ball")
    rng = np.random.default_rng(5)
    for q in rng.uniform(-3, 3, (20, 3)):
        Rx, Ry, Rz = _rot(0, q[0]), _rot(1, q[1]), _rot(2, q[2])
        R = Rx @ Ry @ Rz
        E = np.column_stack([R.T @ [1, 0, 0], Rz.T @ [0, 1, 0], [0, 0, 1]])
        u = [np.array([1.0, 0, 0]), Rx @ [0, 1.0, 0], Rx @ Ry @ [0, 0, 1.0]]
        J = np.column_stack([np.cross(uk, R @ r0) for uk in u])
        M = E.T @ K @ E + m * J.T @ J
        assert np.allclose(mod.mass_matrix(q), M, rtol=1e-12, atol=1e-14)
        assert np.allclose(mod.inverse_dynamics(q, np.zeros(3), np.zeros(3)),
                           -m * g @ J, rtol=1e-12, atol=1e-13)
    for a2 in (np.pi / 2, -np.pi / 2):
        M = mod.mass_matrix(np.array([0.3, a2, -0.4]))
        assert abs(np.linalg.det(M)) < 1e-15 * np.linalg.norm(M) ** 3


TWO = """.gravity 0 -9.81 0
body A m=1.2 J=(0.02, 0.03, 0.015) q=(0.9, 0.1, 0.3, 0.2) pos=(0.05, 0.02, -0.3)
body B m=0.6 J=(0.005, 0.004, 0.006) pos=(0.1, 0.0, -0.7)
spherical S A 0 at=(0, 0, 0)
universal U A B at=(0.08, 0.02, -0.55) axis1=(1, 0.2, 0) axis2=(-0.2, 1, 0.3)
"""


@pytest.mark.long
def test_three_derivations_agree():
    """A ball joint written child-first, a universal joint on oblique axes, a rotated
    body, gravity along −y: P at random states by the three derivations."""
    eqs = circuitsim.parse(TWO, "two.cir").equations()
    kin = eqs.kinematics
    symbols = [*kin.q, *kin.qd, *kin.qdd]
    built = [eqs.drive, lagrange.drive_forces(kin), newton_euler.drive_forces(kin)]
    rng = np.random.default_rng(3)
    for x in rng.uniform(-2, 2, (2, 3 * kin.n)):
        subs = {s: sp.Float(v) for s, v in zip(symbols, x)}
        P = [np.array([float(sp.sympify(e).xreplace(subs)) for e in exprs])
             for exprs in built]
        assert np.allclose(P[1], P[0], rtol=1e-11, atol=1e-11)
        assert np.allclose(P[2], P[0], rtol=1e-11, atol=1e-11)


BASE = ".gravity 0 0 -9.81\nbody A m=1 J=(1, 1, 1) pos=(1, 0, 0)\n" \
       "body B m=1 J=(1, 1, 1) pos=(2, 0, 0)\n"


@pytest.mark.parametrize("extra, param, message", [
    ("spherical S 0 A at=(0,0,0) model=elastic\n", "model", "elastic model"),
    ("universal U 0 A at=(0,0,0) model=elastic\n", "model", "elastic model"),
    ("spherical S 0 A at=(0,0,0) mu=0.1\n", "mu", "mu= adds a friction torque"),
    ("spherical S 0 A at=(0,0,0) cone=30deg\n", "cone", "cone= adds a cone-limit torque"),
])
def test_refused_ball_and_cardan_joints(extra, param, message):
    net = circuitsim.parse(BASE + extra + "revolute J2 A B at=(1.5,0,0)\n", "t.cir")
    with pytest.raises(ModelError, match=message) as info:
        net.equations()
    assert info.value.loc.file == "t.cir" and info.value.loc.line == 4
    assert info.value.loc.col == extra.index(param + "=") + 1     # at the parameter
    assert extra.split()[1] in str(info.value)


def test_loop_closed_by_a_ball_joint_is_refused():
    net = circuitsim.parse(BASE + "spherical S 0 A at=(0,0,0)\nrevolute J2 A B "
                           "at=(1.5,0,0)\nspherical T B 0 at=(2.5, 0, 0)\n", "t.cir")
    with pytest.raises(ModelError, match="closes a kinematic loop") as info:
        net.equations()
    assert info.value.loc.line == 6 and "spherical T" in str(info.value)
    assert "universal and spherical joints" in str(info.value)
    assert "cut the loop" in str(info.value)


def test_cli(tmp_path, capsys):
    out = tmp_path / "ball.py"
    assert cli.main(["equations", str(HERE / "ball_free.cir"), "-o", str(out)]) == 0
    assert "COORDINATES = ('S.angle1', 'S.angle2', 'S.angle3')" in out.read_text()


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_c_and_latex_exports(tmp_path):
    eqs = circuitsim.load(HERE / "ball_free.cir").equations()
    assert len(re.findall(r"M_\{\d\d\} &=", eqs.latex())) == 6   # M_jl, j <= l, 3 angles
    (tmp_path / "eom.c").write_text(eqs.c())
    lib = tmp_path / "libeom.so"
    subprocess.run(["cc", "-O1", "-Wall", "-Werror", "-shared", "-fPIC", "-o", str(lib),
                    str(tmp_path / "eom.c"), "-lm"], check=True)
    c = ctypes.CDLL(str(lib))
    mod = _module(eqs, tmp_path, "ball_c")
    x = np.random.default_rng(9).uniform(-2, 2, (3, 3))
    P = np.zeros(3)
    ptr = [np.ascontiguousarray(v).ctypes.data_as(ctypes.POINTER(ctypes.c_double))
           for v in (*x, P)]
    c.inverse_dynamics(*ptr)
    assert np.allclose(P, mod.inverse_dynamics(*x), rtol=1e-13, atol=1e-13)
