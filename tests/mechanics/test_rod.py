"""The rod (massless rigid S-S link of fixed or prescribed length) against closed forms
and an independent ODE integration written here from the equations of motion."""
import functools

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.spatial.transform import Rotation

import circuitsim

G = 9.81
TIGHT = {"rtol": 1e-9, "atol": 1e-12}
DEFAULT = {}

# --- spherical pendulum: a body hung from the ground by a rod at its centre of mass -----
M, L, THETA0, VY0 = 2.0, 1.0, np.pi / 6, 1.2


def spherical_pendulum(model="position", J="(1e-3, 2e-3, 3e-3)", **run):
    """The body's rotation is free (the rod has no moment), so its centre of mass is a
    point mass on a sphere: released at θ0 from the downward vertical in the x-z plane
    with a speed VY0 along y. Each case runs once: four tests compare with the position
    model's tight run."""
    return _spherical_pendulum(model, J, tuple(sorted(run.items())))


@functools.lru_cache(maxsize=None)
def _spherical_pendulum(model, J, run):
    x0, z0 = L * np.sin(THETA0), -L * np.cos(THETA0)
    net = circuitsim.parse(f"""
.gravity 0 0 -9.81
body B m={M} J={J} pos=({float(x0)!r}, 0, {float(z0)!r}) v=(0, {VY0}, 0)
rod R 0 B at1=(0, 0, 0) model={model}
.tran 2 0.01
""")
    return net.simulate(**dict(run))


def pendulum_reference(t):
    """θ'' = sinθ cosθ φ'² − (g/L) sinθ, φ'' = −2 θ'φ' cosθ/sinθ (θ from the downward
    vertical, φ about z from x); the tension m(g cosθ + L(θ'² + sin²θ φ'²))."""
    def rhs(_, y):
        th, ph, thd, phd = y
        return [thd, phd, np.sin(th) * np.cos(th) * phd ** 2 - G / L * np.sin(th),
                -2.0 * thd * phd * np.cos(th) / np.sin(th)]
    sol = solve_ivp(rhs, (0.0, t[-1]), [THETA0, 0.0, 0.0, VY0 / (L * np.sin(THETA0))],
                    t_eval=t, rtol=1e-12, atol=1e-13, method="DOP853")
    th, ph, thd, phd = sol.y
    pos = L * np.array([np.sin(th) * np.cos(ph), np.sin(th) * np.sin(ph), -np.cos(th)])
    tension = M * (G * np.cos(th) + L * (thd ** 2 + np.sin(th) ** 2 * phd ** 2))
    return pos, tension


@pytest.mark.parametrize("run,pos_tol,f_tol", [(TIGHT, 5e-8, 5e-6), (DEFAULT, 2e-5, 5e-3)])
def test_spherical_pendulum_matches_the_ode_and_the_tension_its_closed_form(run, pos_tol,
                                                                           f_tol):
    res = spherical_pendulum(**run)
    pos, tension = pendulum_reference(res.t)
    for i, axis in enumerate("xyz"):
        np.testing.assert_allclose(res[f"B.{axis}"], pos[i], rtol=0, atol=pos_tol)
    np.testing.assert_allclose(res["R.f"], tension, rtol=0, atol=f_tol)
    # at release (θ' = 0): f = m(g cosθ0 + VY0²/L)
    assert res["R.f"][0] == pytest.approx(M * (G * np.cos(THETA0) + VY0 ** 2 / L), rel=1e-9)
    np.testing.assert_allclose(res["R.L"], L, rtol=0, atol=1e-9 if run else 1e-6)


def test_a_body_held_at_its_centre_is_a_free_point_mass():
    """Nothing turns the bob (the rod ends at its centre), so its inertia never enters:
    a bob of J = (1, 2, 3) kg·m² moves as the one of J ~ 1e-3 (docs/mechanics.md: a free
    point mass) and keeps ω = 0."""
    small, large = spherical_pendulum(**TIGHT), spherical_pendulum(J="(1, 2, 3)", **TIGHT)
    for axis in "xyz":
        np.testing.assert_allclose(large[f"B.{axis}"], small[f"B.{axis}"], rtol=0, atol=1e-12)
        assert np.abs(large[f"B.w{axis}"]).max() < 1e-12
    np.testing.assert_allclose(large["R.f"], small["R.f"], rtol=0, atol=1e-9)


@pytest.mark.parametrize("model,tol,f_tol", [("velocity", 5e-8, 1e-5), ("elastic", 2e-6, 5e-5)])
def test_other_models_agree_with_the_position_model(model, tol, f_tol):
    """The velocity model (drifts slowly) and the elastic one (k = 1e8 N/m: stretch
    f/k ~ 2e-7 m) follow the same pendulum."""
    exact, other = spherical_pendulum(**TIGHT), spherical_pendulum(model, **TIGHT)
    for axis in "xyz":
        np.testing.assert_allclose(other[f"B.{axis}"], exact[f"B.{axis}"], rtol=0, atol=tol)
    # the elastic rod starts unstretched (f = 0) and takes the load within a few
    # sqrt(m/k) ~ 0.1 ms (critical damping): compared from t = 0.01 s
    late = exact.t >= 0.01
    np.testing.assert_allclose(other["R.f"][late], exact["R.f"][late], rtol=0, atol=f_tol)


# --- two free bodies joined by a rod off their centres: what is conserved --------------
BODIES = (("B1", 2.0, (0.1, 0.2, 0.3)), ("B2", 3.0, (0.3, 0.1, 0.2)))


def momenta(res):
    """Linear momentum Σ m v and angular momentum about the origin Σ (m p × v + A J Aᵀ ω)
    of the two bodies (global components, ω global)."""
    P = H = 0.0
    for b, m, J in BODIES:
        v, p, w = (np.stack([res[f"{b}.{k}{a}"] for a in "xyz"], -1) for k in ("v", "", "w"))
        q = np.stack([res[f"{b}.q{i}"] for i in range(4)], -1)
        A = Rotation.from_quat(q[:, [1, 2, 3, 0]]).as_matrix()
        Jg = A @ np.diag(J) @ np.transpose(A, (0, 2, 1))
        P = P + m * v
        H = H + m * np.cross(p, v) + np.einsum("nij,nj->ni", Jg, w)
    return P, H


@pytest.mark.parametrize("run,h_tol,e_tol", [(TIGHT, 1e-7, 2e-7), (DEFAULT, 3e-5, 1.5e-4)])
def test_two_free_bodies_on_a_rod_keep_momentum_angular_momentum_and_energy(run, h_tol,
                                                                             e_tol):
    """No gravity, both bodies spinning and tumbling, the rod's ends away from their
    centres of mass: the rod's forces are internal (momentum exactly), act along one line
    (angular momentum about any point) and do no work at constant length (kinetic
    energy). Measured: 2e-15 kg·m/s, 1.3e-8 / 2.9e-6 kg·m²/s, 3.9e-8 / 1.6e-5 J of 1.9 J
    at the tight / default tolerances."""
    res = circuitsim.parse("""
body B1 m=2 J=(0.1, 0.2, 0.3) pos=(0, 0, 0) v=(0.1, -0.2, 0.3) w=(1, 2, -1)
body B2 m=3 J=(0.3, 0.1, 0.2) pos=(1, 0.2, 0.1) v=(-0.3, 0.5, 0) w=(-2, 0.5, 1)
rod R B1 B2 at1=(0.1, 0.2, -0.1) at2=(0.9, 0.1, 0.3)
.tran 3 0.01
""").simulate(**run)
    P, H = momenta(res)
    E = res["B1.T"] + res["B2.T"]
    np.testing.assert_allclose(P, np.broadcast_to(P[0], P.shape), rtol=0, atol=1e-13)
    np.testing.assert_allclose(H, np.broadcast_to(H[0], H.shape), rtol=0, atol=h_tol)
    np.testing.assert_allclose(E, E[0], rtol=0, atol=e_tol)
    assert np.abs(res["R.f"]).max() > 1.0            # the rod does carry a load


# --- prescribed length: a body hanging on a rod of length L(t) ---------------------------
L0, A, OMEGA, MB = 0.8, 0.05, 2 * np.pi * 1.5, 3.0


def hanging(model="position", **run):
    net = circuitsim.parse(f"""
.gravity 0 0 -9.81
.param L0={L0} a={A} w={float(OMEGA)!r}
body B m={MB} J=(0.01, 0.02, 0.03) pos=(0, 0, {-L0})
rod R 0 B at1=(0, 0, 0) L={{L0 + a*sin(w*time)}} model={model}
.tran 2 0.005
""")
    return net.simulate(**run)


@pytest.mark.parametrize("run,z_tol,f_tol", [(TIGHT, 5e-11, 1e-6), (DEFAULT, 3e-7, 1e-3)])
def test_prescribed_length_moves_the_body_and_the_tension_is_m_g_minus_L_ddot(run, z_tol,
                                                                               f_tol):
    """z = −L(t) exactly (the start-up gives the body vz = −L'(0)); Newton along z:
    m z'' = f − m g with z'' = −L'', so the tension is f = m(g − L''(t)) =
    m(g + a ω² sin ωt): largest where the rod is longest and decelerating."""
    res = hanging(**run)
    t = res.t
    Lt = L0 + A * np.sin(OMEGA * t)
    np.testing.assert_allclose(res["B.z"], -Lt, rtol=0, atol=z_tol)
    np.testing.assert_allclose(res["B.vz"], -A * OMEGA * np.cos(OMEGA * t), rtol=0,
                               atol=10 * z_tol)
    np.testing.assert_allclose(res["B.x"], 0.0, atol=1e-12)
    np.testing.assert_allclose(res["R.f"], MB * (G + A * OMEGA ** 2 * np.sin(OMEGA * t)),
                               rtol=0, atol=f_tol)
    np.testing.assert_allclose(res["R.L"], Lt, rtol=0, atol=z_tol)
    assert res["R.gap"].max() <= z_tol


@pytest.mark.parametrize("model,z_tol,f_tol", [
    ("velocity", 1e-8, 2e-6), pytest.param("elastic", 2e-6, 2e-4, marks=pytest.mark.long)])
def test_prescribed_length_in_the_other_models(model, z_tol, f_tol):
    """Velocity model: L'(t) is held, L(t) by integration (drift ≤ 1e-8 m over 2 s at
    tight tolerances); elastic: k = 1e8 N/m stretches by f/k ~ 3e-7 m."""
    res = hanging(model, **TIGHT)
    t = res.t
    np.testing.assert_allclose(res["B.z"], -(L0 + A * np.sin(OMEGA * t)), rtol=0, atol=z_tol)
    late = t >= 0.01             # the elastic rod takes the load within ~0.1 ms
    np.testing.assert_allclose(res["R.f"][late], MB * (G + A * OMEGA ** 2 * np.sin(
        OMEGA * t[late])), rtol=0, atol=f_tol)


# --- a pendulum whose length is prescribed: the swing pumped by L(t) --------------------
TH0 = np.radians(20.0)


def pumped_pendulum(**run):
    x0, z0 = L0 * np.sin(TH0), -L0 * np.cos(TH0)
    net = circuitsim.parse(f"""
.gravity 0 0 -9.81
.param L0={L0} a={A} w={float(OMEGA)!r}
body B m={MB} J=(0.01, 0.02, 0.03) pos=({float(x0)!r}, 0, {float(z0)!r})
rod R 0 B at1=(0, 0, 0) L={{L0 + a*sin(w*time)}}
.tran 2 0.005
""")
    return net.simulate(**run)


def pumped_reference(t):
    """Polar coordinates (r = L(t), θ from the downward vertical): tangentially
    L θ'' + 2 L' θ' = −g sinθ, radially m(L'' − L θ'²) = m g cosθ − f, so the tension is
    f = m(g cosθ + L θ'² − L''). Starts at rest but for the radial rate L'(0)."""
    def length(t):
        return (L0 + A * np.sin(OMEGA * t), A * OMEGA * np.cos(OMEGA * t),
                -A * OMEGA ** 2 * np.sin(OMEGA * t))

    def rhs(t, y):
        Lt, Ld, _ = length(t)
        return [y[1], -(G * np.sin(y[0]) + 2.0 * Ld * y[1]) / Lt]
    sol = solve_ivp(rhs, (0.0, t[-1]), [TH0, 0.0], t_eval=t, rtol=1e-12, atol=1e-13,
                    method="DOP853")
    th, thd = sol.y
    Lt, _, Ldd = length(t)
    return Lt * np.sin(th), -Lt * np.cos(th), MB * (G * np.cos(th) + Lt * thd ** 2 - Ldd)


@pytest.mark.parametrize("run,pos_tol,f_tol", [(TIGHT, 2e-8, 2e-5), (DEFAULT, 5e-6, 5e-3)])
def test_pendulum_of_prescribed_length_matches_the_ode(run, pos_tol, f_tol):
    res = pumped_pendulum(**run)
    x, z, tension = pumped_reference(res.t)
    np.testing.assert_allclose(res["B.x"], x, rtol=0, atol=pos_tol)
    np.testing.assert_allclose(res["B.z"], z, rtol=0, atol=pos_tol)
    np.testing.assert_allclose(res["B.y"], 0.0, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res["R.f"], tension, rtol=0, atol=f_tol)


@pytest.mark.long
def test_pendulum_of_prescribed_length_agrees_with_a_chain_of_tiny_bodies_driven_by_rate():
    """What one writes without the rod: ground –spherical– a 1e-6 kg body –prismatic along
    the leg– a 1e-6 kg body –spherical– the pendulum, the prismatic's axis node driven by
    a velocity source of L'(t). The same motion (to 5e-8 m) and the same force (the
    prismatic's drive force is the rod's tension negated; 1e-6 kg bodies accelerated at
    ~10 m/s² account for 1e-5 N)."""
    x0, z0 = float(L0 * np.sin(TH0)), float(-L0 * np.cos(TH0))
    ux, uz = float(np.sin(TH0)), float(-np.cos(TH0))
    chain = circuitsim.parse(f"""
.gravity 0 0 -9.81
.param a={A} w={float(OMEGA)!r}
body B m={MB} J=(0.01, 0.02, 0.03) pos=({x0!r}, 0, {z0!r})
body T1 m=1e-6 J=(1e-8, 1e-8, 1e-8) pos=(0, 0, 0)
body T2 m=1e-6 J=(1e-8, 1e-8, 1e-8) pos=({x0!r}, 0, {z0!r})
spherical S1 0 T1 at=(0, 0, 0)
prismatic P T1 T2 at=({x0!r}, 0, {z0!r}) axis=({ux!r}, 0, {uz!r}) flange=leg
spherical S2 T2 B at=({x0!r}, 0, {z0!r})
V VL leg 0 V={{a*w*cos(w*time)}} domain=translational
.tran 2 0.005
""").simulate(**TIGHT)
    rod = pumped_pendulum(**TIGHT)
    for axis in "xyz":
        np.testing.assert_allclose(chain[f"B.{axis}"], rod[f"B.{axis}"], rtol=0, atol=5e-8)
    np.testing.assert_allclose(chain["P.s"], A * np.sin(OMEGA * chain.t), rtol=0, atol=1e-8)
    np.testing.assert_allclose(-chain["P.f"], rod["R.f"], rtol=0, atol=5e-5)


# --- the Stewart platform example: six rods of prescribed length ------------------------
@pytest.mark.parametrize("run,z_tol,f_tol", [(TIGHT, 5e-10, 2e-6), (DEFAULT, 1e-7, 2e-4)])
def test_stewart_platform_heaves_as_prescribed_and_its_legs_carry_the_closed_form_force(
        run, z_tol, f_tol):
    """netlists/stewart.cir: leg lengths L(t) = sqrt(h² + z(t)²) of the heave
    z = z0 + a sin(2π f t); the platform's pose follows (no sideways motion, no tilt) and
    each leg's tension is f = −m(g + z'')·L/(6 z) (by symmetry, Newton along z)."""
    from helpers import load_netlist
    res = load_netlist("stewart.cir").simulate(**run)
    m, z0, a, w = 10.0, 0.6, 0.02, 2 * np.pi
    t = res.t
    z, zdd = z0 + a * np.sin(w * t), -a * w * w * np.sin(w * t)
    Lt = np.sqrt(0.5 ** 2 + 0.3 ** 2 - 2 * 0.5 * 0.3 * np.cos(np.pi / 6) + z * z)
    np.testing.assert_allclose(res["PLAT.z"], z, rtol=0, atol=z_tol)
    for name in ("PLAT.x", "PLAT.y", "PLAT.q1", "PLAT.q2", "PLAT.q3"):
        np.testing.assert_allclose(res[name], 0.0, rtol=0, atol=1e-12)
    tension = -m * (G + zdd) * Lt / (6 * z)
    for leg in range(1, 7):
        np.testing.assert_allclose(res[f"LEG{leg}.f"], tension, rtol=0, atol=f_tol)
    np.testing.assert_allclose(res["LEG1.L"], Lt, rtol=0, atol=z_tol)
    # at t = 0 (z'' = 0) the static share of the weight, exactly
    assert res["LEG3.f"][0] == pytest.approx(-m * G * Lt[0] / (6 * z0), rel=1e-10)


def test_a_prescribed_length_is_a_power_input_in_the_run_report():
    """The rod of prescribed length does the work f·L' on the hanging body: the run
    report counts it as input, and it equals the change of the body's energy
    ½ m L'² − m g L (kinetic + potential) between t = 0 and 1.1 s; nothing is
    dissipated (the balance closes to 1.9e-8 J of an energy scale of 25 J, measured)."""
    T = 1.1
    e = hanging(report=True, t_end=T, **TIGHT).report.energy

    def energy(t):
        return (0.5 * MB * (A * OMEGA * np.cos(OMEGA * t)) ** 2
                - MB * G * (L0 + A * np.sin(OMEGA * t)))
    assert e["dE"] == pytest.approx(energy(T) - energy(0.0), rel=1e-9, abs=1e-9)
    assert e["W_in"] == pytest.approx(e["dE"], rel=0, abs=3e-7)
    assert abs(e["W_diss"]) < 1e-7
