"""State events (contract item 17): the solver ends a step where a switching function
changes sign and restarts there. A stop declares its contact onset and release; the
contact times are checked against closed forms, and the rejected steps they save are
counted (docs/solver.md, state events)."""
import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq

import circuitsim
from circuitsim.elements.spherical import Spherical
from circuitsim.elements.stop import Stop
from circuitsim.solver import SimpleProblem, solve

G, K, DROP = 9.81, 1e4, 1.0
# a 1 kg ball dropped from rest DROP above an elastic stop (c = 0) under gravity
BALL = f"""
mass M v m=1 v0=0
I G 0 v I=-{G}
stop S v 0 lower=-{DROP} k={K} c=0
.tran 2.5
"""
# a 1 kg mass moving at 1 m/s between two elastic stops 0.2 m apart (no gravity)
SHUTTLE = """
mass M v m=1 v0=1
stop S v 0 lower=-0.1 upper=0.1 k=1e6 c=0
.tran 0.6
"""


def ball_events(count):
    """Onset and release times of the ball's first ``count`` contacts, in order. Free
    fall: t1 = sqrt(2 DROP/G), impact speed v1 = G t1. In contact (u = x - x_eq, the
    equilibrium x_eq = -DROP - G/w² lies G/w² below the stop, w = sqrt(K/m)):
    u = R cos(w tau + phi), tan phi = v1 w / G; contact ends where u is again G/w²,
    after tau_c = 2 (pi - phi)/w. Elastic: each flight up and down lasts 2 v1/G."""
    w = np.sqrt(K)
    t1 = np.sqrt(2 * DROP / G)
    v1 = G * t1
    tau_c = 2 * (np.pi - np.arctan(v1 * w / G)) / w
    period = 2 * v1 / G + tau_c
    return [t1 + n * period + s for n in range(count) for s in (0.0, tau_c)]


def run(text, events=True, element=Stop, **options):
    saved = element.__dict__["switch_names"]
    if not events:
        # the element declares no switching functions
        element.switch_names = classmethod(lambda cls, group: ())
    try:
        return circuitsim.parse(text).simulate(**options)
    finally:
        element.switch_names = saved


def test_ball_contact_times_follow_the_closed_form():
    res = run(BALL, rtol=1e-10, atol=1e-12)
    found = res.stats["events"]
    assert res.stats["nevents"] == len(found) == 6
    assert [name for _, name in found] == ["S lower"] * 6
    t = np.array([t for t, _ in found])
    exact = np.array(ball_events(3))
    # the first contact to 1e-9 s (observed: 1e-13 s onset, 2e-11 s release)
    assert abs(t[0] - exact[0]) < 1e-9 and abs(t[1] - exact[1]) < 1e-9
    # every contact's duration to 1e-9 s (observed: < 3e-11 s) ...
    assert np.all(np.abs(np.diff(t)[::2] - np.diff(exact)[::2]) < 1e-9)
    # ... while the later times carry the rebound speed's global error (observed 1.2e-8 s)
    assert np.all(np.abs(t - exact) < 5e-8)


def test_shuttle_between_two_stops():
    """Contact half-period pi sqrt(m/k) = pi ms, flights of 0.2 m at 1 m/s."""
    res = run(SHUTTLE, rtol=1e-10, atol=1e-12)
    half = np.pi * 1e-3
    exact, names = [], []
    t = 0.1
    for side in ("upper", "lower", "upper"):
        exact += [t, t + half]
        names += [f"S {side}"] * 2
        t += half + 0.2
    found = res.stats["events"]
    assert [name for _, name in found] == names
    t = np.array([t for t, _ in found])
    # first contact and every contact's duration to 1e-9 s (observed: < 1e-11 s); later
    # times carry the flights' global error (observed: 1.7e-9 s at the third contact)
    assert abs(t[0] - exact[0]) < 1e-9 and abs(t[1] - exact[1]) < 1e-9
    assert np.all(np.abs(np.diff(t)[::2] - half) < 1e-9)
    assert np.max(np.abs(t - exact)) < 1e-8
    # the final speed carries the three contacts' error: 8.4e-9 to 1.4e-8 at rtol 1e-10 as
    # the step sequence varies (4.3e-8 at 1e-9, 2.8e-9 to 4.3e-9 at 3e-11)
    assert res["v"][-1] == pytest.approx(-1.0, abs=3e-8)


def test_damped_release_where_the_force_would_pull():
    """c > 0: the stop lets go where k·δ + c·v = 0, before δ returns to 0. In contact
    δ(τ) = (v0/wd) e^(-ζwτ) sin(wd τ), so release is the root of k δ + c δ'."""
    m, k, c, v0 = 1.0, 1e6, 200.0, 1.0
    res = run("mass M1 v m=1 v0=1\nstop S1 v 0 upper=0.1 k=1e6 c=200\n.tran 0.11\n",
              rtol=1e-10, atol=1e-12)
    w = np.sqrt(k / m)
    zeta = c / (2 * np.sqrt(k * m))
    wd = w * np.sqrt(1 - zeta ** 2)

    def pull(tau):
        e = np.exp(-zeta * w * tau)
        delta = v0 / wd * e * np.sin(wd * tau)
        rate = v0 / wd * e * (wd * np.cos(wd * tau) - zeta * w * np.sin(wd * tau))
        return k * delta + c * rate
    release = 0.1 + brentq(pull, 0.5 * np.pi / wd, np.pi / wd, xtol=1e-15)
    (t_on, n_on), (t_off, n_off) = res.stats["events"]
    assert n_on == n_off == "S1 upper"
    assert abs(t_on - 0.1) < 1e-9
    assert abs(t_off - release) < 1e-9


@pytest.mark.parametrize("text, fewer", [(BALL, 10), (SHUTTLE, 10)])
def test_events_save_rejected_steps(text, fewer):
    """Without events a contact is found by rejecting steps that cross it."""
    on = run(text, rtol=1e-8, atol=1e-10)
    off = run(text, events=False, rtol=1e-8, atol=1e-10)
    assert off.stats["nevents"] == 0 and off.stats["events"] == []
    # observed: ball 52 -> 3, shuttle 47 -> 3 (docs/solver.md)
    assert on.stats["nfail_err"] * fewer <= off.stats["nfail_err"]
    assert on.stats["nsteps"] < off.stats["nsteps"]


def test_contract_on_a_plain_problem():
    """(17) on a SimpleProblem: y' = 1, switching function y - 0.3 (a kink-free model:
    the event only ends the step and restarts, the solution is unchanged)."""
    prob = SimpleProblem(1, lambda t, y, yp: yp - 1.0, id=[1.0])
    prob.event_functions = lambda t, y, yp: np.array([y[0] - 0.3, -1.0])
    out = solve(prob, 0.0, 1.0, np.zeros(1), rtol=1e-8)
    assert out.status == "success"
    assert [name for _, name in out.stats["events"]] == ["g[0]"]
    assert out.stats["events"][0][0] == pytest.approx(0.3, abs=1e-12)
    assert out.y[-1, 0] == pytest.approx(1.0, abs=1e-12)
    assert out.stats["nrestart"] == 0 and out.stats["nevents"] == 1


# a rod (1 kg, centre 0.5 m below a ball joint, transverse inertia 0.02 kg·m²) swinging
# in the x-z plane from hanging at 4 rad/s into the joint's cone limit (30°, kcone =
# 1000 N·m/rad, undamped) on each side
CONE = """
.gravity 0 0 -9.81
body R m=1 J=(0.02, 0.02, 0.001) pos=(0, 0, -0.5) w=(0, 4, 0) v=(-2, 0, 0)
spherical J1 0 R at=(0, 0, 0) cone=30deg axis=(0, 0, 1) kcone=1000 ccone=0
.tran 1.5
"""


def cone_events(count):
    """The contact times of CONE by quadrature of its energy integrals (planar swing,
    J_O = J + m L²): free, J_O φ'² = J_O ω0² − 2 m g L (1 − cos φ), reaching the cone
    after t_on; in contact the limit adds ½ k (φ − cone)², turning at φ_max, the contact
    lasting τ_c = 2 ∫ dφ/φ' from the cone to φ_max. Undamped and symmetric: the rod
    leaves at −φ' and meets the other side 2 t_on later."""
    m, L, J, g, k, w0, cone = 1.0, 0.5, 0.02, 9.81, 1000.0, 4.0, np.radians(30.0)
    JO = J + m * L * L
    t_on = quad(lambda f: 1.0 / np.sqrt(w0 ** 2 - 2 * m * g * L / JO * (1 - np.cos(f))),
                0.0, cone, epsabs=1e-15, epsrel=1e-13)[0]
    energy = 0.5 * JO * w0 ** 2

    def potential(f):
        return m * g * L * (1 - np.cos(f)) + 0.5 * k * (f - cone) ** 2
    f_max = brentq(lambda f: potential(f) - energy, cone, np.pi / 2, xtol=1e-15)
    # 1/φ' = sqrt(J_O (f_max − f) / (2 (E − V))) · (f_max − f)^(-1/2): smooth · weight
    slope = m * g * L * np.sin(f_max) + k * (f_max - cone)            # V'(f_max)
    smooth = (lambda f: np.sqrt(JO * (f_max - f) / (2 * (energy - potential(f))))
              if f < f_max else np.sqrt(JO / (2 * slope)))
    tau_c = 2 * quad(smooth, cone, f_max, weight="alg", wvar=(0.0, -0.5),
                     epsabs=1e-15, epsrel=1e-12)[0]
    return [t for n in range(count) for t in ((2 * n + 1) * t_on + n * tau_c,
                                              (2 * n + 1) * t_on + (n + 1) * tau_c)]


def test_cone_limit_contacts_follow_the_quadrature():
    """The spherical joint's cone limit is a state event too ("J1 cone": onset where the
    tilt reaches the cone, release where the limit's torque would pull). Measured at rtol
    1e-10, atol 1e-12: the first contact within 1.7e-10 s of the quadrature, the second
    within 1.7e-9 s."""
    res = run(CONE, element=Spherical, rtol=1e-10, atol=1e-12)
    found = res.stats["events"]
    assert [name for _, name in found] == ["J1 cone"] * 10
    t = np.array([t for t, _ in found[:4]])
    exact = np.array(cone_events(2))
    assert np.max(np.abs(t[:2] - exact[:2])) < 1e-9
    assert np.max(np.abs(t[2:] - exact[2:])) < 1e-8


def test_cone_limit_events_save_rejected_steps():
    """Measured at the default tolerances: 62 -> 5 rejected steps, 570 -> 443 steps."""
    on = run(CONE, element=Spherical)
    off = run(CONE, element=Spherical, events=False)
    assert off.stats["nevents"] == 0 and on.stats["nevents"] == 10
    assert on.stats["nfail_err"] * 5 <= off.stats["nfail_err"]
    assert on.stats["nsteps"] < off.stats["nsteps"]
