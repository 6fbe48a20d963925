"""Element parameters written with units (prefixes, rpm, degrees, bar, grams) arrive in
SI."""
import numpy as np
import pytest

import circuitsim


@pytest.mark.parametrize("text,value", [("5kg", 5.0), ("500g", 0.5)])
def test_units_on_mass(text, value):
    c = circuitsim.parse(f"mass M1 v m={text}\nI F 0 v I=1\n.tran 1\n").circuit()
    assert c.element("M1").params["m"] == pytest.approx(value)


@pytest.mark.parametrize("line,param,value", [
    ("L L1 a 0 L=10mH", "L", 0.01),
    ("inertia J1 a J=1 w0=300rpm", "w0", 300 * 2 * np.pi / 60),
    ("spring K1 a 0 k=1 x0=90deg", "x0", np.pi / 2),
    ("V P1 a 0 V=2bar", "V", 2e5),
    ("spring K1 a 0 k=1 x0=1m", "x0", 1.0),
    ("R R1 a 0 R=1m", "R", 1e-3),
    ("C C1 a 0 C=10u", "C", 1e-5),
])
def test_units_on_element_parameters(line, param, value):
    extra = "\ninertia Jx a J=1" if "rpm" in line or "deg" in line else (
        "\nmass Mx a m=1" if "x0=1m" in line else "\nR Rx a 0 R=1")
    c = circuitsim.parse(line + extra + "\n.tran 1\n").circuit()
    assert c.elements[0].params[param] == pytest.approx(value)
