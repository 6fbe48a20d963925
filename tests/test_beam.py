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


@pytest.fixture(scope="module")
def frequencies():
    """The first two bending frequencies (rad/s) in the plane of EIy (EIz = 2·EIy puts
    the other plane's apart) for n = 16 and 32 elements, by linearisation."""
    out = {}
    for n in (16, 32):
        lin = cantilever(n, EIz=2 * EI).linearize()
        w = np.array(sorted(2 * np.pi * m.frequency for m in lin.modes if m.oscillatory))
        out[n] = w[[0, 2]]          # w[1] = √2·w[0]: the stiffer plane
    return out


def test_bending_frequencies_of_a_cantilever(frequencies):
    exact = BETA ** 2 * np.sqrt(EI / (RHOA * L ** 4))
    err16, err32 = frequencies[16] / exact - 1, frequencies[32] / exact - 1
    # lumped mass: the frequencies converge from below as h²
    assert abs(err32[0]) < 1e-3                              # measured −4.5e-4
    assert abs(err32[1]) < 2e-3                              # measured −1.6e-3
    assert np.all((3.8 < err16 / err32) & (err16 / err32 < 4.2))   # measured 3.99, 3.98
    # the h² error removed (Richardson, 16 and 32 elements): both modes to 1e-4
    extrapolated = (4 * frequencies[32] - frequencies[16]) / 3
    assert np.all(abs(extrapolated / exact - 1) < 1e-4)      # measured ~1e-6, 1.3e-5
