""".drive J.coord={x(time)}: what the directive writes (the drive element, the start
target), its forms (a constant, several coordinates on one line, a parameter) and the
.ic it may agree with. Its mistakes are in tests/hostile/bad_netlists/drive-*.cir."""
import numpy as np
import pytest

import circuitsim

BODY = "body B m=2 J=(0.01, 0.02, 0.03) pos=(0, -0.4, 0)\n"


def test_the_directive_writes_a_drive_on_the_joint_and_a_start_target():
    case = circuitsim.parse(BODY + "revolute R1 0 B at=(0, 0, 0) axis=(0, 0, 1)\n"
                            ".param x0=0.2\n.ic R1.angle=0.2\n"
                            ".drive R1.angle={x0 + 0.1*time}\n.tran 1\n").prepare()
    circuit = case.system.circuit
    drive = circuit.element("R1.drive")
    assert drive.type.keyword == "drive" and drive.nodes == ["R1.w", "0", "0", "B"]
    assert drive.params["motion"] == "rotation" and drive.loc.line == 5
    assert circuit.ics["R1.angle"][0] == pytest.approx(0.2, abs=1e-15)


def test_a_constant_drive_holds_the_pendulum_where_gravity_needs_m_g_l_sin():
    """.drive R1.angle=10deg (a number with its unit): the body is assembled at 10° and
    held there; the torque is the static m g l sin 10° (to 1e-9 N·m)."""
    res = circuitsim.parse(BODY + "revolute R1 0 B at=(0, 0, 0) axis=(0, 0, 1)\n"
                           ".drive R1.angle=10deg\n.gravity 0 -9.81 0\n"
                           ".tran 0.2 0.05 rtol=1e-9 atol=1e-12\n").simulate()
    theta = np.radians(10.0)
    np.testing.assert_allclose(res["R1.drive.f"], 2 * 9.81 * 0.4 * np.sin(theta), atol=1e-9)
    np.testing.assert_allclose(res["B.x"], 0.4 * np.sin(theta), atol=1e-12)


def test_both_coordinates_of_a_cylindrical_joint_on_one_line():
    """Two drives, C1.drive_angle and C1.drive_s: the body slides along y and turns
    about it as prescribed; without gravity or load the stroke's force is m s'' = 0.4 N
    and the torque J_y θ'' = 0."""
    res = circuitsim.parse(BODY + "cylindrical C1 0 B at=(0, 0, 0) axis=(0, 1, 0)\n"
                           ".drive C1.angle={0.5*time} C1.s={0.1*time^2}\n"
                           ".tran 0.5 0.1 rtol=1e-9 atol=1e-12\n").simulate()
    t = res.t
    np.testing.assert_allclose(res["C1.s"], 0.1 * t ** 2, atol=1e-9)
    np.testing.assert_allclose(res["C1.angle"], 0.5 * t, atol=1e-9)
    np.testing.assert_allclose(res["B.y"], -0.4 + 0.1 * t ** 2, atol=1e-9)
    np.testing.assert_allclose(res["C1.drive_s.f"], 2 * 0.2, atol=1e-6)
    np.testing.assert_allclose(res["C1.drive_angle.f"], 0.0, atol=1e-6)
