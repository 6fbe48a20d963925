"""The co-rotational beam (elements/beam.py) against closed forms: a cantilever's static
tip deflection, its bending frequencies, and a pure end moment bending it into a
circular arc (large rotations)."""
import numpy as np
import pytest

import circuitsim
from circuitsim.elements.beam import discretise

L, EI, RHOA = 1.0, 1.0, 1.0
BETA = np.array([1.8751040687, 4.6940911330])      # cantilever: cos βL·cosh βL = −1


def cantilever(n, extra="", **kw):
    args = dict(EA=1e6, GJ=1.0, EIy=EI, rhoA=RHOA, rhoIy=1e-7)
    args.update(kw)
    return circuitsim.parse(discretise("B", "0", None, (0, 0, 0), (L, 0, 0), n, **args)
                            + extra)


def test_cantilever_tip_deflection_is_PL3_over_3EI():
    # cubic elements are nodally exact for an end load: only the geometric
    # nonlinearity, (w/L)² ~ 1e-9 here, is left
    n, P = 8, 1e-4
    op = cantilever(n, f"force F B_{n} F=(0, 0, {-P})\n").operating_point()
    exact = -P * L ** 3 / (3 * EI)
    assert abs(op[f"B_{n}.z"] / exact - 1) < 1e-3          # measured 1.1e-9
    assert abs(op[f"B_{n}.y"]) < 1e-12 and abs(op["B1.N"]) < 1e-9


@pytest.mark.parametrize("load, measure, exact", [
    ("force F B_8 F=(1e-2, 0, 0)", lambda op: op["B_8.x"] - L, 1e-2 * L / 1e3),      # PL/EA
    ("force F B_8 F=(0, 1e-4, 0)", lambda op: op["B_8.y"], 1e-4 * L ** 3 / (3 * 2.0)),
    ("torque T B_8 M=(1e-4, 0, 0)", lambda op: 2 * np.arctan2(op["B_8.q1"], op["B_8.q0"]),
     1e-4 * L / 0.5)])                                                              # TL/GJ
def test_axial_torsion_and_second_plane_stiffness(load, measure, exact):
    # EA = 1e3 N, EIz = 2 N·m² (deflection along y), GJ = 0.5 N·m²
    op = cantilever(8, load + "\n", EA=1e3, EIz=2.0, GJ=0.5).operating_point()
    assert abs(measure(op) / exact - 1) < 1e-3                # measured 7e-12, 3e-10, 3e-9


def test_pure_end_moment_bends_the_beam_into_a_circle():
    # M = EI·κ: the tip of a circular arc of curvature κ = 1/L (57° at the tip) is at
    # (sin κL/κ, 0, (1 − cos κL)/κ); the element's rotation measures are exact to first
    # order in its own rotation κh, so the error falls as h²
    k = 1.0 / L
    exact = np.array([np.sin(k * L) / k, (1 - np.cos(k * L)) / k])
    errors = []
    for n in (8, 16):
        op = cantilever(n, f"torque T B_{n} M=(0, {-EI * k}, 0)\n", EA=1e5,
                        rhoIy=1e-4).operating_point()
        errors.append(np.hypot(*(np.array([op[f"B_{n}.x"], op[f"B_{n}.z"]]) - exact)))
    assert errors[1] < 1.5e-3 * L                           # measured 1.26e-3 (n = 16)
    assert 3.5 < errors[0] / errors[1] < 4.5                # measured 4.1: O(h²)


def test_undamped_swing_under_gravity_conserves_energy():
    # a cantilever released straight under gravity swings to a 0.24 m tip deflection
    # (a quarter of its length, at t = 0.28 s): the elements' forces are the gradient of
    # their strain energy, so kinetic + gravitational + strain energy stays constant
    n = 8
    text = (".gravity 0 0 -9.81\n.tran 0.3 0.01\n"
            + discretise("B", "0", None, (0, 0, 0), (1, 0, 0), n, EA=1e4, GJ=5.0,
                         EIy=10.0, EIz=20.0, rhoA=1.0, rhoIy=1e-3))
    res = circuitsim.parse(text).simulate(rtol=1e-6)
    strain = sum(res[f"B{i}.U"] for i in range(1, n + 1))
    total = strain + sum(res[f"B_{i}.T"] + res[f"B_{i}.U"] for i in range(1, n + 1))
    assert res[f"B_{n}.z"].min() < -0.2
    assert np.ptp(total) < 1e-6 * strain.max()               # measured 8.1e-9


@pytest.mark.parametrize("line, message", [
    ("beam E 0 B EA=1 GJ=1 EIy=1 at1=(1, 0, 0)", "its two end points coincide"),
    ("beam E 0 B EA=1 GJ=1 EIy=1 at1=(0, 0, 0) yaxis=(1, 0, 0)", "parallel to the beam")])
def test_degenerate_geometry_is_a_model_error(line, message):
    net = circuitsim.parse(f"body B m=1 J=(1, 1, 1) pos=(1, 0, 0)\n{line}\n")
    with pytest.raises(circuitsim.errors.ModelError, match=message):
        net.check()


# --- the beam written as one netlist line -------------------------------------------
LINE = "beam B 0 n=4 EA=1e6 GJ=1 EIy=1 rhoA=1 rhoIy=1e-7 at1=(0, 0, 0) at2=(1, 0, 0)"


def test_one_line_expands_into_the_same_chain_as_discretise():
    load = "force F B_4 F=(0, 1e-4, -1e-4)\n"
    line = circuitsim.parse(".param L=1\n" + LINE.replace("(1, 0, 0)", "({L}, 0, 0)")
                            + "\n" + load).operating_point()
    text = circuitsim.parse(discretise("B", "0", None, (0, 0, 0), (1, 0, 0), 4, EA=1e6,
                                       GJ=1.0, EIy=1.0, rhoA=1.0, rhoIy=1e-7)
                            + load).operating_point()
    for name in ("B_1.x", "B_3.z", "B_4.y", "B_4.z", "B2.N"):
        assert line[name] == text[name]
    assert abs(line["B_4.z"] / (-1e-4 / 3) - 1) < 1e-6     # PL³/3EI


def test_a_study_changes_the_number_of_elements():
    net = circuitsim.parse(LINE + "\n.study fine B.n=8\n")
    assert "B_8.z" in net.operating_point(study="fine").names
    assert "B_8.z" not in net.operating_point().names


@pytest.mark.parametrize("change, message, column", [
    ("n=4", "n must be a whole number of elements from 1 to 10000, got 0", "n=0"),
    ("n=4", "n must be a whole number of elements from 1 to 10000, got 1e+06", "n=1e6"),
    ("n=4", "n must be a whole number of elements from 1 to 10000, got 2.5", "n=2.5"),
    ("EA=1e6 ", "needs parameter EA", "beam"),
    ("rhoA=1 ", "needs rhoA", "beam"),
    ("(1, 0, 0)", "its two end points coincide", "at2")])
def test_errors_of_the_one_line_beam_name_it_and_its_place(change, message, column):
    bad = {"n=4": column, "(1, 0, 0)": "(0, 0, 0)"}.get(change, "")
    line = LINE.replace(change, bad)
    with pytest.raises(circuitsim.errors.NetlistError) as info:
        circuitsim.parse(".param k=1\n" + line + "\n").check()
    assert "beam B: " in info.value.message or "beam B needs" in info.value.message
    assert message in info.value.message
    assert info.value.loc.line == 2
    assert info.value.loc.col == line.index(column.split("=")[0]) + 1


def test_a_name_the_expansion_makes_must_be_free():
    with pytest.raises(circuitsim.errors.NetlistError, match="'B_2', which is already used"):
        circuitsim.parse("body B_2 m=1 J=(1, 1, 1)\n" + LINE + "\n").check()


@pytest.fixture(scope="module")
def frequencies():
    """The first two bending frequencies (rad/s) in the plane of EIy (EIz = 2·EIy puts
    the other plane's apart) for n = 24 and 48 elements, by linearisation."""
    out = {}
    for n in (24, 48):
        lin = cantilever(n, EIz=2 * EI).linearize()
        w = np.array(sorted(2 * np.pi * m.frequency for m in lin.modes if m.oscillatory))
        out[n] = w[[0, 2]]          # w[1] = √2·w[0]: the stiffer plane
    return out


def test_bending_frequencies_of_a_cantilever(frequencies):
    exact = BETA ** 2 * np.sqrt(EI / (RHOA * L ** 4))
    err24, err48 = frequencies[24] / exact - 1, frequencies[48] / exact - 1
    assert np.all(abs(err48) < 1e-3)                         # measured −2.0e-4, −6.9e-4
    # lumped mass: the frequencies converge from below as h²
    assert np.all((3.8 < err24 / err48) & (err24 / err48 < 4.2))   # measured 3.99, 3.98
    # the h² error removed (Richardson, 24 and 48 elements)
    extrapolated = (4 * frequencies[48] - frequencies[24]) / 3
    assert np.all(abs(extrapolated / exact - 1) < 2e-5)      # measured −3.8e-7, −3.8e-6


def consistent_frequencies(n):
    lin = circuitsim.parse(f"beam B 0 n={n} EA=1e6 GJ=1 EIy={EI} EIz={2 * EI} "
                           f"rhoA={RHOA} rhoIy=1e-7 mass=consistent at1=(0, 0, 0) "
                           f"at2=({L}, 0, 0)\n").linearize()
    w = np.array(sorted(2 * np.pi * m.frequency for m in lin.modes if m.oscillatory))
    return w[[0, 2]]


def test_consistent_mass_frequencies_converge_from_above_as_h4():
    # the consistent mass of the cubic element is a Rayleigh–Ritz bound: the
    # frequencies lie above the exact ones and their error falls as h⁴
    exact = BETA ** 2 * np.sqrt(EI / (RHOA * L ** 4))
    err4, err8 = consistent_frequencies(4) / exact - 1, consistent_frequencies(8) / exact - 1
    assert np.all(err8 > 0) and np.all(err4 > err8)          # from above
    assert np.all(err8 < 1e-4)                               # measured 1.9e-6, 7.8e-5
    assert np.all(err4 / err8 > 12)                          # measured 17.5, 14.9: h⁴


# --- spin-up of a flexible beam on a driven hub (Simo & Vu-Quoc's benchmark) -----------
SL, SEI, SEA, SRHOA, TS = 10.0, 1.4e4, 2.8e7, 1.2, 15.0
BETA_ROOTS = np.array([1.8751040687, 4.6940911330, 7.8547574382, 10.9955407349,
                       14.1371683910])


def hub_rates(t, ws):
    """θ̇, θ̈ of θ = (ωs/Ts)(t²/2 + (Ts/2π)²(cos(2πt/Ts) − 1)) for t < Ts, ωs·t − ωs·Ts/2
    after."""
    if t < TS:
        return (ws / TS * (t - TS / (2 * np.pi) * np.sin(2 * np.pi * t / TS)),
                ws / TS * (1 - np.cos(2 * np.pi * t / TS)))
    return ws, 0.0


def reference_tip(ws, t_eval, nmodes=5, stiffening=True):
    """Tip deflection (m) in the hub's rotating frame from an independent planar model:
    v(x, t) = Σ φ_i(x)·η_i(t) over the clamped-free modes (Rayleigh–Ritz) of
    ρA(v̈ + θ̈·x − θ̇²·v) + EI·v'''' − (N·v')' = 0 with the centrifugal tension
    N = ρA·θ̇²·(L² − x²)/2:  M·η̈ + (K + θ̇²·(K_G − M))·η = −θ̈·b, solved by solve_ivp.
    ``stiffening=False``: the same without the tension (K_G = 0), the linear
    floating-frame model."""
    from scipy.integrate import solve_ivp
    beta = BETA_ROOTS[:nmodes, None] / SL
    sigma = ((np.cosh(beta * SL) + np.cos(beta * SL))
             / (np.sinh(beta * SL) + np.sin(beta * SL)))

    def shapes(x):
        bx = beta * x
        phi = np.cosh(bx) - np.cos(bx) - sigma * (np.sinh(bx) - np.sin(bx))
        d1 = beta * (np.sinh(bx) + np.sin(bx) - sigma * (np.cosh(bx) - np.cos(bx)))
        d2 = beta ** 2 * (np.cosh(bx) + np.cos(bx) - sigma * (np.sinh(bx) + np.sin(bx)))
        return phi, d1, d2

    xg, wg = np.polynomial.legendre.leggauss(200)
    x, wq = SL / 2 * (xg + 1), SL / 2 * wg
    phi, d1, d2 = shapes(x)
    M = SRHOA * (phi * wq) @ phi.T
    K = SEI * (d2 * wq) @ d2.T
    KG = (d1 * wq * SRHOA / 2 * (SL ** 2 - x ** 2)) @ d1.T
    b = SRHOA * (phi * wq) @ x
    Minv = np.linalg.inv(M)
    # M⁻¹ applied once here, not at every call of rhs
    MK, MG, Mb = Minv @ K, Minv @ (stiffening * KG - M), Minv @ b

    def rhs(t, z):
        wd, wdd = hub_rates(t, ws)
        eta, etad = z[:nmodes], z[nmodes:]
        return np.concatenate([etad, -(MK @ eta + wd ** 2 * (MG @ eta) + wdd * Mb)])

    sol = solve_ivp(rhs, (0, t_eval[-1]), np.zeros(2 * nmodes), t_eval=t_eval,
                    method="DOP853", rtol=1e-10, atol=1e-12)
    return shapes(np.array([SL]))[0][:, 0] @ sol.y[:nmodes]


def hub_angle(t, ws):
    """θ(t) of the prescribed spin-up: the integral of :func:`hub_rates`' θ̇."""
    return np.where(t < TS, ws / TS * (t ** 2 / 2 + (TS / (2 * np.pi)) ** 2
                                       * (np.cos(2 * np.pi * t / TS) - 1)),
                    ws * (t - TS / 2))


def spin_up(ws, n, t_end, rtol=1e-4, study=None, eta=3e-4):
    """The circuit: hub body on a revolute to ground whose flange is driven by the
    angular velocity θ̇(t), the beam (one netlist line) clamped to the hub; the study
    'linear' switches its geometric stiffening off. Returns t, the tip's deflection
    along the hub's y axis (m) and the hub angle (rad, unwrapped)."""
    text = (f".param ws={ws} Ts={TS}\n"
            "body H m=1 J=(1, 1, 1)\n"
            "revolute JH 0 H at=(0, 0, 0) axis=(0, 0, 1) flange=hub\n"
            "V VH hub 0 V={if(time < Ts, ws/Ts*(time - Ts/(2*pi)*sin(2*pi*time/Ts)), ws)}\n"
            f"beam B H n={n} EA={SEA} GJ={SEI} EIy={SEI} rhoA={SRHOA} "
            f"rhoIy={SRHOA * SEI / SEA} eta={eta} at1=(0, 0, 0) at2=({SL}, 0, 0)\n"
            ".study linear B.stiffening=off\n")
    res = circuitsim.parse(text).simulate(study=study, t_end=t_end, tstep=0.05, rtol=rtol)
    theta = np.unwrap(2 * np.arctan2(res["H.q3"], res["H.q0"]))
    return res.t, (-res[f"B_{n}.x"] * np.sin(theta) + res[f"B_{n}.y"] * np.cos(theta)), theta


def test_reference_model_of_the_spin_up_converges():
    t = np.linspace(0, 8, 161)
    v3, v5 = reference_tip(4.0, t, 3), reference_tip(4.0, t, 5)
    assert np.max(abs(v5 - v3)) < 1e-3 * np.max(abs(v5))


@pytest.mark.slow
@pytest.mark.parametrize("ws, t_end", [(4.0, 7.3),
                                       pytest.param(6.0, 20.0, marks=pytest.mark.long)])
def test_spin_up_tip_deflection_against_a_planar_stiffened_model(ws, t_end):
    # n = 16 elements; ωs = 4 through the first peak (t = 6.95 s), ωs = 6 through the
    # hub's spin-up (Ts = 15 s) and 5 s at ωs (benchmarks/beam_spinup.py runs both to
    # 20 s). With n = 8 the peak is 1.45 % (ωs = 4) and 1.44 % (6) too deep: the lumped
    # chain is softer in its first mode by h²
    t, v, _ = spin_up(ws, 16, t_end, rtol=1e-5)
    ref = reference_tip(ws, t)
    peak, ref_peak = v[np.argmax(abs(v))], ref[np.argmax(abs(ref))]
    assert abs(peak / ref_peak - 1) < 2e-2          # measured 0.29 % (ωs = 4), 0.29 % (6)
    assert np.max(abs(v - ref)) < 1e-2 * abs(ref_peak)   # measured 0.36 %, 0.54 %
    # at ωs the stiffened blade stays straight: a small oscillation about v = 0
    assert np.max(abs(v[t >= TS]), initial=0) < 2e-2 * abs(ref_peak)   # measured 0.76 %


@pytest.mark.slow
@pytest.mark.parametrize("t_end", [
    5.0,
    # 10 s: twice the 5 s run's steps (20 s in a 2-worker run); the 5 s case keeps the check
    pytest.param(10.0, marks=pytest.mark.long)])
def test_spin_up_hub_follows_its_prescribed_angle(t_end):
    # the hub's rate is prescribed; its angle is integrated (75 rad in 20 s): at rtol
    # 1e-8 its phase error is far below 1e-6 rad. One element, its fast axial mode
    # damped (eta = 1e-2 s): the beam only loads the hub, whose motion is imposed, and
    # the run takes 4.7e3 steps instead of 1.9e4 (measured 2.6e-8 rad with eta = 3e-4)
    # (5 s of it here: 1.6 rad, measured 3.2e-8 rad; 10 s: 16.6 rad, 5.4e-8 rad;
    # benchmarks/beam_spinup.py runs the 20 s)
    t, _, theta = spin_up(6.0, 1, t_end, rtol=1e-8, eta=1e-2)
    assert np.max(abs(theta - hub_angle(t, 6.0))) < 1e-6


@pytest.mark.long
def test_without_stiffening_the_spin_up_diverges():
    # the study 'linear' (stiffening=off): the linear floating-frame beam, whose
    # rotating-frame softening −θ̇²·v is not balanced once θ̇ exceeds the first bending
    # frequency at rest (3.80 rad/s): it follows the reference model without its
    # tension term, then grows without bound while the stiffened blade stays < 0.58 m
    t, v, _ = spin_up(6.0, 8, 9.0, rtol=1e-4, study="linear")
    linear = reference_tip(6.0, t, stiffening=False)
    early = t <= 6.0
    assert np.max(abs(v - linear)[early]) < 5e-2 * np.max(abs(linear[early]))  # measured 2.9 %
    assert abs(v[-1]) > 10 * 0.5744               # measured −25 m at 9 s (reference −7.4 m)


def _netlist_blocks(page):
    """The indented netlist examples of a docs page that write a beam."""
    import re
    from pathlib import Path
    text = (Path(__file__).parents[2] / "docs" / page).read_text()
    blocks = re.findall(r"\n\n((?:    .*\n)+)", text)
    return [("\n".join(line[4:] for line in b.splitlines())) for b in blocks
            if re.search(r"^    beam \w+ \w+ .*n=", b, re.M)]


@pytest.mark.parametrize("page", ["beam.md", "language.md"])
def test_the_documented_beam_lines_run(page):
    blocks = _netlist_blocks(page)
    assert blocks
    for text in blocks:
        net = circuitsim.parse(text + "\n")
        if ".tran" in text:
            res = net.simulate()
            assert res["B_8.z"].min() < -0.1            # the cantilever sags and swings
        else:
            assert net.operating_point()["B_8.z"] < 0


def test_flexible_arm_in_3d_and_in_the_plane_give_the_same_planar_motion(tmp_path):
    # netlists/flexible_arm.cir: without gravity (study planar) the motion stays in the
    # x-y plane exactly; with gravity the beam also sags (by ~4 cm at the tip), which
    # changes the in-plane tip position only at second order
    from pathlib import Path
    from circuitsim import cli
    path = Path(__file__).parents[2] / "netlists" / "flexible_arm.cir"
    out = tmp_path / "arm.csv"
    assert cli.main(["run", str(path), "--study", "planar", "--out", str(out), "--plot",
                     "B_6.x", "B_6.y", "--quiet"]) == 0
    assert (tmp_path / "arm.png").read_bytes()[:4] == b"\x89PNG"
    table = np.genfromtxt(out, delimiter=",", names=True)
    planar = {name: table[name.replace(".", "")] for name in ("B_6.x", "B_6.y", "B_6.z",
                                                              "JA.angle")}
    # the 3D run through the spin-up (Ts = 2 s) and 0.5 s at ws, not the netlist's 4 s:
    # the two runs are furthest apart in the sag's first swing (measured at t = 0.12 s)
    full = circuitsim.load(path).simulate(t_end=2.5)
    assert np.all(planar["B_6.z"] == 0) and full["B_6.z"].min() < -0.02
    lag = -planar["B_6.x"] * np.sin(planar["JA.angle"]) + planar["B_6.y"] * np.cos(
        planar["JA.angle"])
    assert lag.min() < -0.015                      # the tip lags during the spin-up
    n = len(full.t)
    np.testing.assert_allclose(table["time"][:n], full.t, rtol=0, atol=1e-9)   # one grid
    apart = np.hypot(full["B_6.x"] - planar["B_6.x"][:n], full["B_6.y"] - planar["B_6.y"][:n])
    assert apart.max() < 1e-3                      # measured 4.3e-4 m


def test_a_beam_inside_a_subcircuit_has_scoped_names():
    text = (".subckt blade hub params: n=4\n"
            "beam B hub n={n} EA=1e6 GJ=1 EIy=1 rhoA=1 rhoIy=1e-4 at1=(0, 0, 0) "
            "at2=(1, 0, 0)\n"
            ".ends\n"
            "body H m=1 J=(1, 1, 1)\n"
            "fixed F 0 H\n"
            "blade X1 H n=3\n"
            "force P X1.B_3 F=(0, 0, -1e-4)\n")
    op = circuitsim.parse(text).operating_point()
    assert abs(op["X1.B_3.z"] / (-1e-4 / 3) - 1) < 1e-6       # PL³/3EI, measured 7e-10
