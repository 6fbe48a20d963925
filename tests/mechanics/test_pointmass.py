"""pointmass: a mass without rotational inertia at a point of a body, against the
compound pendulum's closed form, against the same body with the mass merged into it by
hand (mass, centre of mass, parallel-axis inertia), the joint's reaction at rest, the
run report's energy balance, and its bad input."""
import functools

import numpy as np
import pytest
from helpers import zero_crossings
from scipy.integrate import solve_ivp
from scipy.special import ellipk

import circuitsim
from circuitsim.elements import quaternion
from circuitsim.errors import CircuitsimError

G = 9.81
TIGHT = dict(rtol=1e-9, atol=1e-12)


def _vec(v) -> str:
    return "(" + ", ".join(f"{float(c):.17g}" for c in v) + ")"


# --- the compound pendulum: a rod on a revolute to ground with a ball at its tip -------
M1, JC, D1, MB, LB, TH0 = 2.0, 0.05, 0.3, 5.0, 0.6, 0.5     # kg, kg·m², m, kg, m, rad


def _down(angle: float, length: float) -> np.ndarray:
    """The point at ``length`` from the pivot (origin) along the arm turned by ``angle``
    about z from hanging straight down (−y, the gravity's direction)."""
    return length * np.array([np.sin(angle), -np.cos(angle), 0.0])


def _pendulum(theta0: float = TH0, t_end: float = 3.0) -> str:
    return f"""
.gravity 0 -9.81 0
body rod m={M1} J=({JC}, {JC}, {JC}) pos={_vec(_down(theta0, D1))} rot=(0, 0, 1, {theta0!r})
revolute J1 0 rod at=(0, 0, 0) axis=(0, 0, 1)
pointmass ball rod m={MB} at={_vec(_down(theta0, LB))}
.tran {t_end} 0.01
"""


def _closed_form(t):
    """θ'' = −(m1·d1 + m·L)·g·sinθ / I, I = Jc + m1·d1² + m·L² (about the pivot)."""
    inertia = JC + M1 * D1 ** 2 + MB * LB ** 2
    sol = solve_ivp(lambda _, y: [y[1], -(M1 * D1 + MB * LB) * G * np.sin(y[0]) / inertia],
                    (0.0, t[-1]), [TH0, 0.0], t_eval=t, rtol=1e-12, atol=1e-14)
    return sol.y


@pytest.mark.parametrize("tol,bound", [({}, 1e-5), (TIGHT, 1e-7)])
def test_pendulum_with_a_ball_swings_as_the_compound_pendulum(tol, bound):
    """θ (from the ball's position) and ω_z over 3 s (about 2 periods) against the
    closed form; observed: 2.8e-6 rad and 9.6e-6 rad/s at the default tolerances
    (rtol 1e-6), 1.4e-8 and 6.0e-8 at rtol 1e-9, atol 1e-12."""
    res = circuitsim.parse(_pendulum()).simulate(**tol)
    theta, omega = _closed_form(res.t)
    angle = np.arctan2(res["ball.x"], -res["ball.y"])
    assert np.max(np.abs(angle - theta)) < bound
    assert np.max(np.abs(res["rod.wz"] - omega)) < 4 * bound
    # the ball stays on its circle of radius L about the pivot
    radius = np.hypot(res["ball.x"], res["ball.y"])
    assert np.max(np.abs(radius - LB)) < bound
    # its velocity output is that of the point: v = ω × r_P
    np.testing.assert_allclose(res["ball.vx"], -res["rod.wz"] * res["ball.y"], atol=bound)


@pytest.mark.parametrize("tol,rel", [({}, 1e-6), (TIGHT, 5e-9)])
def test_oscillations_have_the_compound_pendulums_period(tol, rel):
    """Released at 0.01 rad: T = 4·K(sin²(θ0/2))·sqrt(I / ((m1·d1 + m·L)·g)) (K the
    complete elliptic integral; the small-oscillation period 2π·sqrt(..) is 6.25e-6
    shorter), from the upward zero crossings of ω_z (at T/2 and 3T/2), interpolated
    between 2 ms output points; observed 3.4e-7 at the defaults (rtol 1e-6), 1.8e-9 at
    rtol 1e-9."""
    res = circuitsim.parse(_pendulum(theta0=0.01, t_end=2.4)).simulate(**tol, tstep=2e-3)
    inertia = JC + M1 * D1 ** 2 + MB * LB ** 2
    period = 4 * ellipk(np.sin(0.005) ** 2) * np.sqrt(inertia / ((M1 * D1 + MB * LB) * G))
    t_up = zero_crossings(res.t, res["rod.wz"], direction=1)
    # from rest at +θ0, θ falls first: ω_z < 0 for half a period, then > 0
    assert len(t_up) == 2
    assert t_up[0] == pytest.approx(0.5 * period, rel=rel)
    assert t_up[1] - t_up[0] == pytest.approx(period, rel=rel)


def test_revolute_carries_the_total_weight_at_rest():
    """Hanging straight down at rest: the pivot's reaction on the rod is the whole
    weight (m1 + m)·g, upward, and nothing moves."""
    res = circuitsim.parse(_pendulum(theta0=0.0, t_end=0.5)).simulate(**TIGHT)
    total = (M1 + MB) * G
    assert np.max(np.abs(res["J1.Fy"] - total)) < 1e-9 * total
    assert np.max(np.abs(res["J1.Fx"])) < 1e-9 * total
    assert np.max(np.abs(res["rod.wz"])) < 1e-12


def test_revolute_reaction_at_release():
    """Released at rest at θ0: α = −(m1·d1 + m·L)·g·sinθ0 / I, and the pivot's force
    on the rod is Σ m_i·a_i − (m1 + m)·g_vec with a_i = α ẑ × r_i (the rod's centre
    and the ball): the ball's inertial force is part of the reaction."""
    res = circuitsim.parse(_pendulum(t_end=0.01)).simulate(**TIGHT)
    inertia = JC + M1 * D1 ** 2 + MB * LB ** 2
    alpha = -(M1 * D1 + MB * LB) * G * np.sin(TH0) / inertia
    moment = M1 * _down(TH0, D1) + MB * _down(TH0, LB)
    force = alpha * np.cross([0.0, 0.0, 1.0], moment) + (M1 + MB) * G * np.array([0, 1, 0])
    got = np.array([res[f"J1.F{k}"][0] for k in "xyz"])
    np.testing.assert_allclose(got, force, rtol=0, atol=1e-9 * (M1 + MB) * G)


def test_the_point_moves_with_its_body_at_the_start_up():
    """The pendulum written hanging straight down and turned to θ0 by ``.ic
    J1.angle``: the start-up moves the rod and the ball with it (the point is fixed in
    the body), and the motion is that of the pendulum written at θ0; observed 1.3e-9 m
    and 8.5e-9 rad/s."""
    written = circuitsim.parse(_pendulum(t_end=1.0)).simulate(**TIGHT)
    folded = circuitsim.parse(_pendulum(theta0=0.0, t_end=1.0)
                              + f".ic J1.angle={TH0!r}\n").simulate(**TIGHT)
    assert folded["ball.x"][0] == pytest.approx(LB * np.sin(TH0), abs=1e-12)
    assert np.max(np.abs(folded["ball.x"] - written["ball.x"])) < 1e-8
    assert np.max(np.abs(folded["rod.wz"] - written["rod.wz"])) < 5e-8


def test_linearised_pendulum_has_the_compound_pendulums_frequency():
    """Linearised about its operating point (found from a release at 0.3 rad): one
    undamped mode at ω0 = sqrt((m1·d1 + m·L)·g / I); observed 4.3e-11 relative."""
    lin = circuitsim.parse(_pendulum(theta0=0.3)).linearize()
    inertia = JC + M1 * D1 ** 2 + MB * LB ** 2
    w0 = np.sqrt((M1 * D1 + MB * LB) * G / inertia)
    assert len(lin.eigenvalues) == 2
    np.testing.assert_allclose(np.abs(lin.eigenvalues.imag), w0, rtol=1e-9)
    assert np.max(np.abs(lin.eigenvalues.real)) < 1e-9 * w0


# --- the same body with the ball merged in by hand ---------------------------------------
BODY_M, BODY_J, BODY_JP = 3.0, np.array([0.2, 0.3, 0.4]), np.array([0.01, -0.02, 0.015])
BALLS = ((1.5, np.array([0.4, 0.1, -0.2])), (0.7, np.array([-0.1, 0.3, 0.25])))
CENTRE, ROT = np.array([0.2, -0.1, 0.5]), (1.0, 2.0, 0.5, 0.7)
V0, W0 = np.array([0.3, -0.2, 0.1]), np.array([1.5, -2.0, 4.0])


def _inertia(J, Jp):
    return np.array([[J[0], Jp[0], Jp[1]], [Jp[0], J[1], Jp[2]], [Jp[1], Jp[2], J[2]]])


def _merged(v0=V0):
    """Mass, centre, central inertia tensor in the body's frame and centre velocity of
    the body with the balls merged in (parallel-axis theorem), at t = 0; ``v0``: the
    body's centre velocity."""
    A = quaternion.dcm(quaternion.from_axis_angle(np.array(ROT[:3]), ROT[3]))
    mass = BODY_M + sum(m for m, _ in BALLS)
    centre = (BODY_M * CENTRE + sum(m * p for m, p in BALLS)) / mass
    J = A @ _inertia(BODY_J, BODY_JP) @ A.T
    for m, d in [(BODY_M, CENTRE - centre)] + [(m, p - centre) for m, p in BALLS]:
        J = J + m * (d @ d * np.eye(3) - np.outer(d, d))
    Jb = A.T @ J @ A
    return mass, centre, Jb, v0 + np.cross(W0, centre - CENTRE)


def _body_line(name, m, centre, Jb, v) -> str:
    return (f"body {name} m={m!r} J={_vec(np.diag(Jb))} Jp={_vec([Jb[0, 1], Jb[0, 2], Jb[1, 2]])} "
            f"pos={_vec(centre)} rot={_vec(ROT)} v={_vec(v)} w={_vec(W0)}")


def _pair(joint: str) -> tuple:
    """The body with its point masses, and the body merged by hand; ``joint``: a line
    holding each body at the origin (a format string on {body}) or '': then the body
    starts with the velocity ω × r that the joint allows (no start-up correction, whose
    metric weighs the bodies' own masses)."""
    v0 = np.cross(W0, CENTRE) if joint else V0
    mass, centre, Jb, v = _merged(v0)
    head = ".gravity 0 0 -9.81\n.tran 2 0.01\n"
    with_balls = head + "\n".join(
        [_body_line("B", BODY_M, CENTRE, _inertia(BODY_J, BODY_JP), v0),
         *(f"pointmass P{i} B m={m} at={_vec(p)}" for i, (m, p) in enumerate(BALLS)),
         joint.format(body="B")]) + "\n"
    merged = head + _body_line("B", mass, centre, Jb, v) + "\n" + joint.format(body="B") + "\n"
    return with_balls, merged, mass


@functools.lru_cache(maxsize=None)
def _top_with_balls(tol: tuple):
    """The heavy top with its point masses at tolerances ``tol`` (sorted items), with
    the run report (which changes nothing in the run, but doubles its cost): one run
    for the merged-body test and the energy-balance test at the same tolerances."""
    with_balls, _, _ = _pair("spherical S 0 {body} at=(0, 0, 0)")
    return circuitsim.parse(with_balls).simulate(report=True, **dict(tol))


@pytest.mark.parametrize("joint", ["", "spherical S 0 {body} at=(0, 0, 0)"],
                         ids=["free", "spherical"])
@pytest.mark.parametrize("tol,bound", [
    ({}, 5e-5), (TIGHT, 1e-7),
    # rtol 1e-11: 5 s for the two joints in a 2-worker run; the rtol 1e-9 case keeps the
    # tight check, and with the defaults' case the difference falling with the tolerances
    pytest.param(dict(rtol=1e-11, atol=1e-13), 3e-9, marks=pytest.mark.long)])
def test_point_masses_move_the_body_as_the_merged_body(joint, tol, bound):
    """A body spinning and tumbling under gravity (free, and as a heavy top on a ball
    joint at the origin), with two point masses, against the one body of the merged
    mass, centre of mass and parallel-axis inertia: the combined centre of mass, the
    orientation and ω over 2 s agree within ``bound`` (m) and 10·bound (1, rad/s), and
    with the joint its reaction force within 10·bound of the weight. The difference is
    that of two runs' errors at their tolerances, and it falls with them (the element
    is exact, not an approximation with an error floor): observed, heavy top, centre
    7.0e-6, q and ω 7.1e-5, force 5.9e-5 at the defaults (rtol 1e-6); 2.0e-8, 2.4e-7,
    1.2e-7 at rtol 1e-9; 3.6e-10, 3.4e-9, 3.8e-9 at rtol 1e-11; free body about half
    of these."""
    with_balls, merged, mass = _pair(joint)
    if joint and tol in ({}, TIGHT):       # the energy-balance test's runs
        a = _top_with_balls(tuple(sorted(tol.items())))
    else:
        a = circuitsim.parse(with_balls).simulate(**tol)
    b = circuitsim.parse(merged).simulate(**tol)
    t = b.t
    np.testing.assert_allclose(a.t, t)
    centre = (BODY_M * np.stack([a[f"B.{k}"] for k in "xyz"])
              + sum(m * np.stack([a[f"P{i}.{k}"] for k in "xyz"])
                    for i, (m, _) in enumerate(BALLS))) / mass
    assert np.max(np.abs(centre - np.stack([b[f"B.{k}"] for k in "xyz"]))) < bound
    for k in ("q0", "q1", "q2", "q3", "wx", "wy", "wz"):
        assert np.max(np.abs(a[f"B.{k}"] - b[f"B.{k}"])) < bound * 10, k
    if joint:
        for k in ("Fx", "Fy", "Fz"):
            assert np.max(np.abs(a[f"S.{k}"] - b[f"S.{k}"])) < bound * 10 * mass * G, k
    else:      # free: the combined centre of mass falls as a particle
        np.testing.assert_allclose(centre[2], _merged()[1][2] + _merged()[3][2] * t
                                   - 0.5 * G * t * t, atol=bound)


@pytest.mark.parametrize("tol,bound", [({}, 1e-5), (TIGHT, 5e-8)])
def test_report_energy_balance_closes_with_point_masses(tol, bound):
    """The heavy top with two point masses: no input, no loss; the stored energies
    (the body's and the balls' kinetic and potential energies) stay constant, and the
    report's balance closes within ``bound`` of its energy scale (scale 52.8 J). Measured
    at the defaults: balance 1.6e-6, stored energy's largest change 2.7e-6, on either
    kernels. At rtol 1e-9 the two kernels' rounding gives different step patterns (543
    and 539 steps) and the energy's global error, 20 rtol units, moves with them: 1.6e-8
    and 2.1e-8 on the compiled kernels, 7.6e-9 and 1.1e-8 on the numpy ones."""
    res = _top_with_balls(tuple(sorted(tol.items())))
    e = res.report.energy
    assert e["relative"] < bound
    total = sum(res[n] for n in ("B.T", "B.U", "P0.T", "P0.U", "P1.T", "P1.U"))
    assert np.max(np.abs(total - total[0])) < bound * e["scale"]
    assert abs(e["dE"]) < bound * e["scale"]
    assert res["P0.T"][0] == pytest.approx(
        0.5 * BALLS[0][0] * np.sum(np.cross(W0, BALLS[0][1]) ** 2), rel=1e-12)


def test_a_point_written_in_the_body_frame():
    """atframe=body: at measured in the body's frame from its centre of mass gives the
    same point and motion as the global point."""
    A = quaternion.dcm(quaternion.from_axis_angle(np.array(ROT[:3]), ROT[3]))
    with_balls, _, _ = _pair("")
    local = with_balls.replace(f"at={_vec(BALLS[0][1])}",
                               f"at={_vec(A.T @ (BALLS[0][1] - CENTRE))} atframe=body")
    assert local != with_balls
    a = circuitsim.parse(with_balls).simulate(**TIGHT, t_end=0.3)
    b = circuitsim.parse(local).simulate(**TIGHT, t_end=0.3)
    np.testing.assert_allclose(b["P0.x"][0], BALLS[0][1][0], atol=1e-14)
    np.testing.assert_allclose(b["P0.z"], a["P0.z"], atol=1e-12)


# --- bad input --------------------------------------------------------------------------
@pytest.mark.parametrize("line,message", [
    ("pointmass P B m=0 at=(1, 0, 0)", r":2:\d+: pointmass P: m must be positive"),
    ("pointmass P B m=-1 at=(1, 0, 0)", r":2:\d+: pointmass P: m must be positive"),
    ("pointmass P Bx m=1 at=(1, 0, 0)", r":2:1: pointmass P: frame 'Bx' \(port body\) is "
     r"not a body"),
    ("pointmass P B m=1", r":2:1: pointmass P needs parameter at"),
    ("pointmass P 0 m=1 at=(1, 0, 0)", r":2:1: pointmass P: its frame is the ground 0"),
    ("pointmass P B m=1 at=(1, 0)", r":2:\d+: .*at"),
    ("pointmass P B m=1 at=(1, 0, 0) atframe=frame1", r":2:\d+: .*atframe"),
])
def test_bad_input_is_located(line, message):
    text = f"body B m=1 J=(1, 1, 1)\n{line}\n.tran 1\n"
    with pytest.raises(CircuitsimError, match=message):
        circuitsim.parse(text).circuit()
