"""Number suffixes: scale prefixes, units and their algebra (language.md §Values)."""
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from circuitsim.netlist import units
from circuitsim.netlist.units import UnitError, to_si


@pytest.mark.parametrize("mantissa, suffix, unit, expected", [
    # the cases language.md names
    (1, "m", "m", 1.0),
    (5, "kg", "kg", 5.0),
    (10, "mH", "H", 0.01),
    (90, "deg", "rad", math.pi / 2),
    (300, "rpm", "rad/s", 31.41592653589793),
    (2, "bar", "Pa", 2e5),
    (2, "", "s", 2.0),
    (1, "m", "s", 1e-3),            # .tran 2 1m: the m of a time is milli
    (20, "u", "s", 20e-6),
    # alternatives of the declared unit
    (1, "mm", "m", 1e-3),
    (3, "cm", "m", 0.03),
    (500, "g", "kg", 0.5),
    (2, "ms", "s", 2e-3),
    (3, "min", "s", 180.0),
    (1, "h", "s", 3600.0),
    (1, "rev", "rad", 2 * math.pi),
    (60, "rpm", "rad/s", 2 * math.pi),
    (36, "km/h", "m/s", 10.0),
    (2, "psi", "Pa", 2 * 6894.757293168361),
    (1, "atm", "Pa", 101325.0),
    (1.5, "megPa", "Pa", 1.5e6),
    (4.7, "kOhm", "Ohm", 4700.0),
    (10, "uF", "F", 1e-5),
    (1, "F", "F", 1.0),
    (50, "Hz", "Hz", 50.0),
    (1, "kHz", "Hz", 1000.0),
    (2, "N", "N", 2.0),
    (3, "mV", "V", 3e-3),
    # compound suffixes
    (2, "N*m/rad", "N*m/rad", 2.0),
    (1, "N*m/deg", "N*m/rad", 180 / math.pi),
    (3, "L/min", "m^3/s", 5e-5),
    (2, "cc/s", "m^3/s", 2e-6),
    (1, "kg*m^2", "kg*m^2", 1.0),
    (1, "g*cm^2", "kg*m^2", 1e-7),
    (7, "Pa*s/m^3", "Pa*s/m^3", 7.0),
    (2, "kN*m", "N*m", 2000.0),
    (4, "N*m*s/rad", "N*m*s/rad", 4.0),
    (5, "N/mm", "N/m", 5000.0),
    (1, "J", "N*m", 1.0),
    # a pure prefix on any declared unit
    (1, "m", "Ohm", 1e-3),
    (4.7, "k", "Ohm", 4700.0),
    (1, "meg", "Ohm", 1e6),
    (1, "MEG", "Ohm", 1e6),
    (2, "n", "F", 2e-9),
    (1, "f", "F", 1e-15),           # lower-case f is only femto
    (3, "k", "1", 3000.0),
    (3, "k", "", 3000.0),
])
def test_declared_unit(mantissa, suffix, unit, expected):
    assert to_si(mantissa, suffix, unit) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("mantissa, suffix, expected", [
    (10, "u", 1e-5), (4.7, "k", 4700.0), (1, "meg", 1e6), (2, "p", 2e-12),
    (3, "M", 3e-3),                 # SPICE: M is milli
    (2, "K", 2000.0), (1, "T", 1e12), (5, "\u00b5", 5e-6),
    (5, "kg", 5.0), (1, "mm", 1e-3), (2, "bar", 2e5), (300, "rpm", 31.41592653589793),
    (90, "deg", math.pi / 2), (2, "ms", 2e-3), (3, "L/min", 5e-5), (7, "", 7.0),
])
def test_undeclared_unit(mantissa, suffix, expected):
    assert to_si(mantissa, suffix, None) == pytest.approx(expected, rel=1e-12)


def test_decimal_prefixes_round_as_written():
    assert to_si(10, "u", None) == 1e-5
    assert to_si(4.7, "u", "F") == 4.7e-6
    assert to_si(1, "mm", "m") == 1e-3


@pytest.mark.parametrize("suffix, prefix_word, unit_word", [
    ("m", "milli", "metre"), ("g", "giga", "gram"), ("F", "femto", "farad"),
    ("N", "nano", "newton"),
])
def test_ambiguous_without_declared_unit(suffix, prefix_word, unit_word):
    with pytest.raises(UnitError) as info:
        to_si(1, suffix, None)
    message = str(info.value)
    assert "ambiguous" in message and prefix_word in message and unit_word in message
    assert f"1000m{suffix}" in message          # says how to write it unambiguously


def test_ambiguous_m_says_how_to_write_it():
    message = str(pytest.raises(UnitError, to_si, 1, "m", None).value)
    assert "0.001" in message and "1000mm" in message


def test_unit_that_does_not_fit_names_the_expected_unit():
    message = str(pytest.raises(UnitError, to_si, 2, "bar", "m").value)
    assert "'bar'" in message and "a length in m" in message and "mm" in message
    message = str(pytest.raises(UnitError, to_si, 1, "kg", "1").value)
    assert "plain number" in message
    message = str(pytest.raises(UnitError, to_si, 3, "Hz", "rad/s").value)
    assert "angular velocity" in message and "rpm" in message


def test_unknown_suffix():
    assert "unknown unit 'xyz'" in str(pytest.raises(UnitError, to_si, 1, "xyz", "m").value)
    assert "unknown unit" in str(pytest.raises(UnitError, to_si, 1, "xyz", None).value)


def test_capital_m_before_a_unit_is_refused():
    message = str(pytest.raises(UnitError, to_si, 2, "MPa", "Pa").value)
    assert "megPa" in message and "milli" in message


def test_unit_error_is_a_value_error():
    assert issubclass(UnitError, ValueError)


def test_exact_symbol_wins_over_prefix():
    assert units.parse_unit("min").factor == 60.0       # minute, not milli-inch
    assert units.parse_unit("m").dims == units.dimension("m")
    assert units.parse_unit("mm").factor == pytest.approx(1e-3)
    assert units.parse_unit("ms").dims == (0, 0, 1, 0, 0, 0)


def test_dimensions():
    assert units.dimension("N") == (1, 1, -2, 0, 0, 0)
    assert units.dimension("rad/N/m/s") == (-1, -2, 1, 0, 1, 0)
    assert units.dimension("Pa*s^2/m^3") == (1, -4, 0, 0, 0, 0)
    assert units.same_dimension("rpm", "rad/s")
    assert units.same_dimension("Hz", "1/s")
    assert not units.same_dimension("rad/s", "Hz")     # radian kept as a dimension
    assert units.same_dimension("J", "N*m")
    assert units.same_dimension("Ohm", "\u03a9")


def test_accepts_and_describe():
    assert units.accepts("m")[0] == "m" and "mm" in units.accepts("m")
    assert "rpm" in units.accepts("rad/s")
    assert "bar" in units.accepts("Pa")
    assert units.accepts("1") == ["1"]
    assert units.describe("m") == "length"
    assert units.describe("N*m/rad") == "rotational stiffness"
    assert units.describe("kg*m^2") == "moment of inertia"


@settings(max_examples=60, deadline=None)
@given(x=st.floats(-1e6, 1e6, allow_nan=False),
       prefix=st.sampled_from(["f", "p", "n", "u", "m", "k", "meg", "g", "t"]))
def test_prefix_scales_on_any_declared_unit(x, prefix):
    factor = units.PREFIXES[prefix]
    assert to_si(x, prefix, "Ohm") == pytest.approx(x * factor, rel=1e-12, abs=1e-300)
    if prefix.upper() not in units.SYMBOLS:     # 'F' is farad: an error on a resistance
        assert to_si(x, prefix.upper(), "Ohm") == pytest.approx(x * factor, rel=1e-12,
                                                                abs=1e-300)


@settings(max_examples=60, deadline=None)
@given(x=st.floats(-1e6, 1e6, allow_nan=False),
       unit=st.sampled_from(["N", "Pa", "V", "A", "H", "W", "J", "rad"]))
def test_kilo_unit_is_a_thousand_units(x, unit):
    assert to_si(x, "k" + unit, unit) == pytest.approx(1000 * x, rel=1e-12)
    assert to_si(x, "k" + unit, None) == pytest.approx(1000 * x, rel=1e-12)


@pytest.mark.parametrize("mantissa,suffix,unit", [
    (2, "N", "N/m"),        # newtons on a stiffness: not 2 nano
    (2, "bar", "kg"),
    (1, "V", "Ohm"),
])
def test_unit_of_wrong_dimension_is_an_error(mantissa, suffix, unit):
    with pytest.raises(units.UnitError, match="does not fit"):
        units.to_si(mantissa, suffix, unit)


def test_lone_m_on_a_non_length_is_milli():
    assert units.to_si(1, "m", "Ohm") == pytest.approx(1e-3)
    assert units.to_si(1, "m", "m") == 1.0


def test_a_suffix_read_again_gives_the_same_answer_and_a_fresh_error():
    # the reading of a suffix is cached, errors included: each caller gets its own
    # exception (its traceback and notes are not shared), with the same type and message
    first = [units._try_unit(s) for s in ("k", "kg", "k", "kg")]
    assert first[1] == first[3] and first[1][0] is not None and first[1][1] is None
    (q1, e1), (q2, e2) = first[0], first[2]
    assert q1 is None and q2 is None and e1 is not e2
    assert type(e1) is type(e2) and str(e1) == str(e2) and isinstance(e1, UnitError)
    for _ in range(2):
        with pytest.raises(UnitError, match="kx"):
            to_si(1, "kx", "m")
    assert to_si(2, "k", "1") == to_si(2, "k", "1") == 2000.0


# --- the thermal domain: kelvin and degrees Celsius -----------------------------------
@pytest.mark.parametrize("mantissa, suffix, unit, expected", [
    (300, "K", "K", 300.0),            # K is kelvin where a temperature is declared
    (1, "K", "Ohm", 1000.0),           # ... and kilo elsewhere, as in SPICE
    (20, "degC", "K", 293.15),         # an absolute temperature: offset 273.15
    (-273.15, "\u00b0C", "K", 0.0),
    (20, "degC", None, 293.15),        # where nothing is declared (.param, subcircuits)
    (5, "W/K", "W/K", 5.0), (2, "kJ/K", "J/K", 2000.0), (2, "K/W", "K/W", 2.0),
    (10, "W/m^2/K", "W/m^2/K", 10.0), (3.93e-3, "1/K", "1/K", 3.93e-3),
    (500, "mK", "K", 0.5),
])
def test_thermal_units(mantissa, suffix, unit, expected):
    assert to_si(mantissa, suffix, unit) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("suffix, unit, says", [
    ("degC", "K/W", "thermal resistance"),      # a difference or coefficient: write K
    ("degC", "1/K", "write it in K"),
    ("degC", "Ohm", "resistance"),
    ("W/degC", "W/K", "cannot be part of a unit"),
])
def test_celsius_only_for_absolute_temperatures(suffix, unit, says):
    with pytest.raises(UnitError) as info:
        to_si(20, suffix, unit)
    assert says in str(info.value) and "absolute temperature" in str(info.value)
