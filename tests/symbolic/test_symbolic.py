"""circuitsim.symbolic: the equations of motion of a joint tree by the method of connected
graphs, checked against the engine and against closed forms written here.

* The engine: tests/symbolic/arm_driven.cir (the arm of netlists/manipulator.cir) and
  slider_driven.cir (a prismatic joint, a revolute written child-first, oblique axes,
  rotated bodies with products of inertia, gravity along -y) drive every joint with a
  prescribed motion q_k(t) = q_k0 + a_k sin(2 pi f t) through a potential source on its
  flange. The exported ``inverse_dynamics`` evaluated on the recorded coordinates and
  flange rates, with q'' = -a_k (2 pi f)^2 sin(2 pi f t) differentiated by hand, must give
  the flange torques / forces the engine computes (J.tau, J.f) to 1e-6 of their largest
  value. Measured (largest over the joints): 6.1e-8 (arm), 6.3e-8 (slider) at rtol
  1e-10; 2.2e-6 and 4.9e-6 at rtol 1e-8: the difference is the integrator's error.
* A closed form: the planar two-link arm of the textbooks (its M(q), Coriolis and
  gravity terms written out below).
* The three derivations (connected graphs, Lagrange with 4x4 matrices, Newton-Euler)
  agree at random states to rounding.
Runtime ~10 s (two runs of 0.4-0.5 s at rtol 1e-10, each ~3 s).
"""
import ctypes
import importlib.util
import shutil
import subprocess
import sys

import numpy as np
import pytest

sp = pytest.importorskip("sympy")

import circuitsim  # noqa: E402
from circuitsim import cli  # noqa: E402
from circuitsim.errors import CircuitsimError, ModelError, NetlistError  # noqa: E402
from circuitsim.symbolic import lagrange, newton_euler  # noqa: E402

from helpers import REPO  # noqa: E402

HERE = REPO / "tests" / "symbolic"
RTOL_ENGINE = 1e-6        # of the largest drive torque / force of each joint


def _module(eqs, tmp_path, name="eom"):
    path = tmp_path / f"{name}.py"
    eqs.save(path)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("netlist, amplitudes, freq, rates, drives", [
    ("arm_driven.cir", (0.8, 0.5, -0.6), 1.5, ("ww", "ws", "we"),
     ("W.tau", "S.tau", "E.tau")),
    ("slider_driven.cir", (0.2, 0.9, -0.7), 1.2, ("vp", "wr", "wt"),
     ("P.f", "R.tau", "T.tau")),
])
def test_inverse_dynamics_matches_the_engine(tmp_path, netlist, amplitudes, freq, rates,
                                             drives):
    net = circuitsim.load(HERE / netlist)
    mod = _module(net.equations(), tmp_path)
    res = net.simulate(rtol=1e-10, atol=1e-12)
    w = 2 * np.pi * freq
    q = np.array([res[c] for c in mod.COORDINATES])
    qd = np.array([res[r] for r in rates])
    qdd = -np.array(amplitudes)[:, None] * w ** 2 * np.sin(w * res.t)
    # the rates are the prescribed ones (the sources impose them)
    assert np.allclose(qd, np.array(amplitudes)[:, None] * w * np.cos(w * res.t), atol=1e-9)
    engine = np.array([res[d] for d in drives])
    P = mod.inverse_dynamics(q, qd, qdd)
    scale = np.max(np.abs(engine), axis=1)
    err = np.max(np.abs(P - engine), axis=1) / scale
    assert np.all(err < RTOL_ENGINE), err
    # P = M q'' + c + g: the mass matrix of the module is the one inside P
    M = mod.mass_matrix(q)
    rest = mod.inverse_dynamics(q, qd, np.zeros_like(qdd))
    assert np.allclose(np.einsum("ijt,jt->it", M, qdd) + rest, P, rtol=1e-12, atol=1e-12)
    assert np.allclose(M, np.swapaxes(M, 0, 1), atol=1e-13)


PLANAR = """.title planar two-link arm
.gravity 0 -9.81 0
body L1 m=2.0 J=(0.01, 0.05, 0.06)  pos=(0.25, 0, 0)
body L2 m=1.5 J=(0.01, 0.03, 0.035) pos=(0.8, 0, 0)
revolute J1 0 L1  at=(0, 0, 0)   axis=(0, 0, 1)
revolute J2 L1 L2 at=(0.5, 0, 0) axis=(0, 0, 1)
"""


def test_planar_two_link_closed_form(tmp_path):
    """M11 = I1 + I2 + m1 lc1² + m2 (l1² + lc2² + 2 l1 lc2 cos q2),
    M12 = I2 + m2 (lc2² + l1 lc2 cos q2), M22 = I2 + m2 lc2²;
    c = (−h q2' (2 q1' + q2'), h q1'²), h = m2 l1 lc2 sin q2;
    g = ((m1 lc1 + m2 l1) g0 cos q1 + m2 lc2 g0 cos(q1 + q2), m2 lc2 g0 cos(q1 + q2))."""
    m1, m2, l1, lc1, lc2, I1, I2, g0 = 2.0, 1.5, 0.5, 0.25, 0.3, 0.06, 0.035, 9.81
    mod = _module(circuitsim.parse(PLANAR).equations(), tmp_path, "planar")
    assert mod.JOINTS == ("J1", "J2")
    rng = np.random.default_rng(7)
    for q, qd, qdd in rng.uniform(-3, 3, (20, 3, 2)):
        c2 = np.cos(q[1])
        M = np.array([[I1 + I2 + m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * c2),
                       I2 + m2 * (lc2**2 + l1 * lc2 * c2)],
                      [I2 + m2 * (lc2**2 + l1 * lc2 * c2), I2 + m2 * lc2**2]])
        h = m2 * l1 * lc2 * np.sin(q[1])
        cv = np.array([-h * qd[1] * (2 * qd[0] + qd[1]), h * qd[0] ** 2])
        g12 = m2 * lc2 * g0 * np.cos(q[0] + q[1])
        gv = np.array([(m1 * lc1 + m2 * l1) * g0 * np.cos(q[0]) + g12, g12])
        assert np.allclose(mod.mass_matrix(q), M, rtol=1e-13, atol=1e-14)
        assert np.allclose(mod.inverse_dynamics(q, qd, qdd), M @ qdd + cv + gv,
                           rtol=1e-12, atol=1e-12)


def test_three_derivations_agree():
    eqs = circuitsim.load(HERE / "slider_driven.cir").equations()
    kin = eqs.kinematics
    args = [kin.q, kin.qd, kin.qdd]
    ours = sp.lambdify(args, eqs.drive)
    split = sp.lambdify(args, list(eqs.mass * sp.Matrix(kin.qdd) + eqs.velocity
                                   + eqs.gravity))
    others = [sp.lambdify(args, build(kin)) for build in (lagrange.drive_forces,
                                                          newton_euler.drive_forces)]
    rng = np.random.default_rng(3)
    for x in rng.uniform(-2, 2, (10, 3, 3)):
        P = np.array(ours(*x))
        assert np.allclose(np.array(split(*x)), P, rtol=1e-12, atol=1e-12)
        for other in others:
            assert np.allclose(np.array(other(*x)), P, rtol=1e-11, atol=1e-11)


def test_formats(tmp_path):
    eqs = circuitsim.load(HERE / "arm_driven.cir").equations()
    tex = eqs.latex()
    assert tex.startswith(r"\documentclass") and tex.rstrip().endswith(r"\end{document}")
    assert tex.count("{") == tex.count("}")
    assert tex.count(r"\begin{align*}") == tex.count(r"\end{align*}") == 3
    assert r"M_{23} &=" in tex and r"g_{3} &=" in tex and r"\texttt{W.angle}" in tex
    with pytest.raises(CircuitsimError, match="unknown format 'pdf'"):
        eqs.text("pdf")


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_c_export_compiles_and_agrees(tmp_path):
    eqs = circuitsim.load(HERE / "slider_driven.cir").equations()
    (tmp_path / "eom.c").write_text(eqs.c())
    lib = tmp_path / "libeom.so"
    subprocess.run(["cc", "-O1", "-Wall", "-Werror", "-shared", "-fPIC", "-o", str(lib),
                    str(tmp_path / "eom.c"), "-lm"], check=True)
    c = ctypes.CDLL(str(lib))
    mod = _module(eqs, tmp_path)
    x = np.random.default_rng(5).uniform(-2, 2, (3, 3))
    P, M = np.zeros(3), np.zeros(9)
    ptr = [np.ascontiguousarray(v).ctypes.data_as(ctypes.POINTER(ctypes.c_double))
           for v in (*x, P, M)]
    c.inverse_dynamics(ptr[0], ptr[1], ptr[2], ptr[3])
    c.mass_matrix(ptr[0], ptr[4])
    assert np.allclose(P, mod.inverse_dynamics(*x), rtol=1e-13, atol=1e-13)
    assert np.allclose(M.reshape(3, 3), mod.mass_matrix(x[0]), rtol=1e-13, atol=1e-13)


BASE = ".gravity 0 0 -9.81\nbody A m=1 J=(1, 1, 1) pos=(1, 0, 0)\n" \
       "body B m=1 J=(1, 1, 1) pos=(2, 0, 0)\n"


@pytest.mark.parametrize("extra, element, message", [
    ("revolute J1 0 A at=(0,0,0)\ncylindrical C A B at=(1.5,0,0)\n", "cylindrical C",
     "trees of revolute, prismatic, fixed, universal and spherical joints only"),
    ("revolute J1 0 A at=(0,0,0)\npointplane N A B at=(1.5,0,0)\n", "pointplane N",
     "trees of revolute, prismatic, fixed, universal and spherical joints only"),
    ("revolute J1 0 A at=(0,0,0)\nrevolute J2 A B at=(1.5,0,0)\nrevolute J3 B 0 "
     "at=(2.5,0,0)\n", "revolute J3", "closes a kinematic loop"),
    ("revolute J1 0 A at=(0,0,0) model=elastic\nrevolute J2 A B at=(1.5,0,0)\n",
     "revolute J1", "the elastic model is a stiff spring"),
    ("revolute J1 0 A at=(0,0,0)\nrevolute J2 A B at=(1.5,0,0)\n"
     "force F1 B F=(0, 0, 1)\n", "force F1", "acts on body B"),
    ("revolute J1 0 A at=(0,0,0)\n", "body B", "not joined to the ground"),
    ("revolute J1 0 A at=(0,0,0)\nrevolute J2 A B at=(1.5,0,0)\nR R1 B.wz 0 R=1 "
     "domain=rotational\n", "R R1", "acts on body B"),
])
def test_other_netlists_are_located_errors(extra, element, message):
    net = circuitsim.parse(BASE + extra, "t.cir")
    with pytest.raises(ModelError, match=message) as info:
        net.equations()
    assert info.value.loc is not None and info.value.loc.file == "t.cir"
    assert str(info.value).count(element) >= 1


def test_cli(tmp_path, capsys):
    src = str(HERE / "arm_driven.cir")
    out = tmp_path / "arm.tex"
    assert cli.main(["equations", src, "--count", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "connected graphs" in text and "Lagrange" in text and "Newton-Euler" in text
    assert out.read_text().startswith(r"\documentclass")          # the format of .tex
    assert cli.main(["equations", src, "--format", "c"]) == 0
    assert "void inverse_dynamics(" in capsys.readouterr().out
    assert cli.main(["equations", str(REPO / "netlists" / "fourbar.cir")]) == 2
    assert "closes a kinematic loop" in capsys.readouterr().err
    assert cli.main(["equations", str(REPO / "netlists" / "rlc.cir")]) == 2
    assert "no revolute, prismatic, universal or spherical joint" in capsys.readouterr().err


def test_without_sympy():
    """The core imports and runs without sympy; the command says what to install."""
    code = ("import sys; sys.modules['sympy'] = None\n"
            "import circuitsim\n"
            "from circuitsim import cli\n"
            "circuitsim.load(sys.argv[1]).check()\n"
            "sys.exit(cli.main(['equations', sys.argv[1]]))\n")
    run = subprocess.run([sys.executable, "-c", code, str(HERE / "arm_driven.cir")],
                         capture_output=True, text=True, cwd=REPO)
    assert run.returncode == 2, run.stderr
    assert "pip install 'circuitsim[symbolic]'" in run.stderr
    assert "Traceback" not in run.stderr
