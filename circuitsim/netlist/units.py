"""Scale prefixes, unit symbols and a small unit algebra for number suffixes.

A number in a netlist may carry ``[prefix][unit]`` (``4.7k``, ``10mH``, ``2N*m/rad``).
Prefixes are case-insensitive as in SPICE (``M`` is milli, ``meg`` is 1e6); unit symbols
are case-sensitive. A unit is a factor to SI and a dimension: integer exponents over
(kg, m, s, A, rad, K). The radian is kept as its own dimension so that ``rad/s`` and
``Hz`` (1/s) are not confused and ``rpm`` converts to rad/s.

``degC`` (or ``°C``) is the one unit with an offset: an absolute temperature, ``20degC``
= 293.15 K. It is read only as a whole suffix, where the declared unit is K (a
temperature) or nothing is declared; never inside a compound unit (W/degC) nor where the
unit is another one: a temperature difference or coefficient is written in K (K/W, 1/K).

:func:`to_si` decides what a suffix means, given the unit the value is declared in
(or None where no unit is declared: ``.param`` and brace expressions).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

BASE = ("kg", "m", "s", "A", "rad", "K")


class UnitError(ValueError):
    """A suffix that is unknown, ambiguous or does not fit the declared unit.

    Carries no location: callers re-raise it as a NetlistError at the value."""


class AmbiguousUnitError(UnitError):
    """A suffix with two readings (``1m``: milli or metre; ``MPa``)."""


@dataclass(frozen=True)
class Quantity:
    """A unit: ``factor`` to SI and the exponents of BASE."""
    factor: float
    dims: tuple

    def __mul__(self, other: "Quantity") -> "Quantity":
        return Quantity(self.factor * other.factor,
                        tuple(a + b for a, b in zip(self.dims, other.dims)))

    def __truediv__(self, other: "Quantity") -> "Quantity":
        return Quantity(self.factor / other.factor,
                        tuple(a - b for a, b in zip(self.dims, other.dims)))

    def __pow__(self, n: int) -> "Quantity":
        return Quantity(self.factor ** n, tuple(a * n for a in self.dims))


def _q(factor: float, kg=0, m=0, s=0, A=0, rad=0, K=0) -> Quantity:
    return Quantity(float(factor), (kg, m, s, A, rad, K))


ONE = _q(1)

# Lower-case keys: prefixes are matched case-insensitively.
PREFIXES = {"f": 1e-15, "p": 1e-12, "n": 1e-9, "u": 1e-6, "\u00b5": 1e-6, "\u03bc": 1e-6,
            "m": 1e-3, "k": 1e3, "meg": 1e6, "g": 1e9, "t": 1e12}
PREFIX_NAMES = {"f": "femto", "p": "pico", "n": "nano", "u": "micro", "\u00b5": "micro",
                "\u03bc": "micro", "m": "milli", "k": "kilo", "meg": "mega", "g": "giga",
                "t": "tera"}

_OHM = _q(1, kg=1, m=2, s=-3, A=-2)
_PA = _q(1, kg=1, m=-1, s=-2)
SYMBOLS = {
    "m": _q(1, m=1), "cm": _q(1e-2, m=1),
    "g": _q(1e-3, kg=1),
    "s": _q(1, s=1), "min": _q(60, s=1), "h": _q(3600, s=1),
    "A": _q(1, A=1), "C": _q(1, s=1, A=1),
    "V": _q(1, kg=1, m=2, s=-3, A=-1),
    "Ohm": _OHM, "ohm": _OHM, "\u03a9": _OHM, "\u2126": _OHM,
    "F": _q(1, kg=-1, m=-2, s=4, A=2),
    "H": _q(1, kg=1, m=2, s=-2, A=-2),
    "N": _q(1, kg=1, m=1, s=-2), "J": _q(1, kg=1, m=2, s=-2), "W": _q(1, kg=1, m=2, s=-3),
    "Pa": _PA, "bar": _PA * _q(1e5), "psi": _PA * _q(6894.757293168361),
    "atm": _PA * _q(101325.0),
    "rad": _q(1, rad=1), "deg": _q(math.pi / 180, rad=1), "\u00b0": _q(math.pi / 180, rad=1),
    "rev": _q(2 * math.pi, rad=1), "rpm": _q(2 * math.pi / 60, s=-1, rad=1),
    "Hz": _q(1, s=-1),
    "L": _q(1e-3, m=3), "cc": _q(1e-6, m=3),
    "K": _q(1, K=1),
}
# Celsius: an absolute temperature, T[K] = T[degC] + CELSIUS_ZERO (see the module's
# docstring for where it is accepted).
CELSIUS = ("degC", "\u00b0C")
CELSIUS_ZERO = 273.15
UNIT_NAMES = {"m": "metre", "g": "gram", "F": "farad", "N": "newton", "K": "kelvin"}

# Names of quantities for messages and docs, by dimension.
_QUANTITY_NAMES = {dims + (0,): name for dims, name in {
    (0, 0, 0, 0, 0): "plain number", (0, 1, 0, 0, 0): "length", (1, 0, 0, 0, 0): "mass",
    (0, 0, 1, 0, 0): "time", (0, 0, 0, 1, 0): "current", (0, 0, 0, 0, 1): "angle",
    (0, 1, -1, 0, 0): "velocity", (0, 0, -1, 0, 1): "angular velocity",
    (0, 1, -2, 0, 0): "acceleration", (0, 0, -1, 0, 0): "frequency",
    (1, 1, -2, 0, 0): "force", (1, 2, -2, 0, 0): "torque", (1, -1, -2, 0, 0): "pressure",
    (1, 2, -3, -1, 0): "voltage", (1, 2, -3, -2, 0): "resistance",
    (-1, -2, 4, 2, 0): "capacitance", (1, 2, -2, -2, 0): "inductance",
    (1, 2, -3, 0, 0): "power", (0, 3, 0, 0, 0): "volume", (0, 3, -1, 0, 0): "volume flow",
    (1, 2, 0, 0, 0): "moment of inertia", (1, 0, -2, 0, 0): "stiffness",
    (1, 2, -2, 0, -1): "rotational stiffness", (1, 0, -1, 0, 0): "damping",
    (1, 2, -1, 0, -1): "rotational damping", (0, 0, 1, 1, 0): "charge",
}.items()}
_QUANTITY_NAMES.update({
    (0, 0, 0, 0, 0, 1): "temperature", (0, 0, 0, 0, 0, -1): "temperature coefficient",
    (1, 2, -2, 0, 0, -1): "heat capacity", (1, 2, -3, 0, 0, -1): "thermal conductance",
    (-1, -2, 3, 0, 0, 1): "thermal resistance", (1, 0, -3, 0, 0, -1): "heat transfer coefficient",
    (1, 0, -3, 0, 0, 0): "heat flux"})

# Example spellings offered in messages and docs (filtered by dimension).
CATALOG = ("m", "mm", "cm", "um", "km", "kg", "g", "s", "ms", "us", "min", "h",
           "rad", "deg", "rev", "mrad", "rad/s", "rpm", "deg/s", "Hz", "kHz",
           "m/s", "mm/s", "km/h", "m/s^2", "N", "kN", "mN", "N*m", "N*mm", "kN*m",
           "Pa", "kPa", "megPa", "bar", "psi", "atm", "V", "mV", "kV", "A", "mA", "uA",
           "Ohm", "kOhm", "megOhm", "mOhm", "F", "uF", "nF", "pF", "H", "mH", "uH",
           "W", "kW", "J", "kJ", "m^3", "L", "cc", "m^3/s", "L/min", "L/s", "cc/s",
           "N/m", "N/mm", "kN/m", "N*m/rad", "N*m/deg", "N*s/m", "N*m*s/rad",
           "kg*m^2", "g*cm^2", "V*s", "Pa*s", "m^3/Pa", "Pa*s/m^3",
           "K", "1/K", "J/K", "kJ/K", "W/K", "K/W", "W/m^2/K")

_TERM = re.compile(r"^([^\^]+)(?:\^(-?\d+))?$")
_SPLIT = re.compile(r"([*/])")


def _symbol(word: str) -> Quantity:
    """One ``[prefix]symbol``; an exact symbol wins over prefix + symbol (``min``, ``m``)."""
    if word in CELSIUS:
        raise UnitError(f"'{word}' is an absolute temperature (with an offset) and cannot "
                        "be part of a unit; write temperature differences and coefficients "
                        "in K (K/W, W/K, 1/K)")
    if word in SYMBOLS:
        return SYMBOLS[word]
    if word == "1":
        return ONE
    for prefix in sorted(PREFIXES, key=len, reverse=True):
        head, rest = word[:len(prefix)], word[len(prefix):]
        if head.lower() == prefix and rest in SYMBOLS:
            if head == "M":
                # SPICE reads M as milli; MPa or MOhm almost always mean mega.
                raise AmbiguousUnitError(f"'{word}' is ambiguous: 'M' means milli as in SPICE; "
                                f"write meg{rest} for 1e6 {rest} or m{rest} for 1e-3 {rest}")
            return _q(PREFIXES[prefix]) * SYMBOLS[rest]
    raise UnitError(f"unknown unit '{word}'")


@lru_cache(maxsize=512)
def parse_unit(text: str) -> Quantity:
    """``'N*m/rad'`` -> Quantity. Terms ``[prefix]symbol[^int]`` joined by * and /, read
    left to right (``rad/N/m/s`` = rad/(N·m·s)). ``''`` and ``'1'`` are dimensionless."""
    text = text.strip()
    if text in ("", "1"):
        return ONE
    parts = _SPLIT.split(text)
    result, op = ONE, "*"
    for i, part in enumerate(parts):
        if i % 2:
            op = part
            continue
        match = _TERM.match(part.strip())
        if not match:
            raise UnitError(f"cannot read the unit '{text}'")
        term = _symbol(match.group(1))
        if match.group(2):
            term = term ** int(match.group(2))
        result = result * term if op == "*" else result / term
    return result


def dimension(unit: str) -> tuple:
    """Exponents over BASE (kg, m, s, A, rad)."""
    return parse_unit(unit).dims


def same_dimension(u1: str, u2: str) -> bool:
    return parse_unit(u1).dims == parse_unit(u2).dims


def describe(unit: str) -> str:
    """The quantity's name for messages and docs: ``'m'`` -> 'length'."""
    if unit == "J":
        return "energy"
    return _QUANTITY_NAMES.get(dimension(unit), f"quantity in {unit}")


def accepts(unit: str) -> list:
    """A few spellings a parameter declared in ``unit`` accepts, ``unit`` first."""
    if unit in ("", "1"):
        return ["1"]
    dims = dimension(unit)
    celsius = ["degC"] if parse_unit(unit) == SYMBOLS["K"] else []
    return [unit] + celsius + [c for c in CATALOG if c != unit and parse_unit(c).dims == dims]


def _article(noun: str) -> str:
    return ("an " if noun[0] in "aeiou" else "a ") + noun


def _expected(unit: str) -> str:
    if unit in ("", "1"):
        return "a plain number (a scale prefix such as k or m is allowed)"
    others = accepts(unit)[1:5]
    alt = f" (or {', '.join(others)}, or a scale prefix alone)" if others else ""
    return f"{_article(describe(unit))} in {unit}{alt}"


def _try_unit(suffix: str):
    """(Quantity, None) or (None, a new UnitError): a suffix that is a prefix alone (k, u)
    is no unit, and finding that out again for each of 1e4 values was a tenth of the
    set-up of a 1e4-element circuit."""
    quantity, error_type, message = _read_unit(suffix)
    return quantity, None if error_type is None else error_type(message)


@lru_cache(maxsize=512)
def _read_unit(suffix: str):
    """(Quantity, None, None) or (None, the UnitError's type, its message)."""
    try:
        return parse_unit(suffix), None, None
    except UnitError as exc:
        return None, type(exc), str(exc)


def scale(mantissa, factor: float):
    """mantissa * factor, dividing by 1/factor when that is an integer so that decimal
    prefixes round as written (10u -> 1e-05, not 9.999999999999999e-06); ``mantissa``
    may be an array (a data file's column)."""
    if 0.0 < factor < 1.0:
        inverse = round(1.0 / factor)
        if abs(inverse * factor - 1.0) < 1e-12:
            return mantissa / inverse
    return mantissa * factor


# A suffix that is a unit of the wrong dimension is an error (k=2N on a stiffness is not
# 2 nano), except lower-case m and g, which stay milli and giga where metres or grams do
# not fit, as in SPICE (R=1m is 1 mOhm, R=1g is 1 GOhm).
# Upper-case K likewise: kelvin where a temperature is declared, kilo elsewhere (R=1K is
# 1 kOhm), also where nothing is declared (.param, subcircuit parameters), where the
# language has always read the prefixes regardless of case, as SPICE does (a temperature
# there is written as a number in K or in degC).
PREFIX_BEFORE_UNIT = ("m", "g", "K")
PREFIX_WHERE_UNDECLARED = ("K",)


MAX_MAGNITUDE = 1e100   # beyond this no quantity is physical, and squares would overflow


def to_si(mantissa: float, suffix: str, unit: str | None) -> float:
    """The value of ``<mantissa><suffix>`` in SI.

    ``unit``: the declared SI unit of the place the number is written ('' or '1' for
    dimensionless), or None where nothing is declared. Raises UnitError, also for a
    number that overflows or exceeds MAX_MAGNITUDE.
    """
    value = _to_si(mantissa, suffix, unit)
    check_magnitude(value)
    return value


def check_magnitude(value: float) -> None:
    """UnitError unless ``value`` is finite and within ±MAX_MAGNITUDE."""
    if not abs(value) <= MAX_MAGNITUDE:
        raise UnitError(("the number overflows to infinity" if math.isinf(value) else
                         f"{value:.3g} is not a number" if math.isnan(value) else
                         f"{value:.3g} is too large") +
                        "; values are limited to ±1e100")


def _to_si(mantissa: float, suffix: str, unit: str | None) -> float:
    if not suffix:
        return mantissa
    if suffix in CELSIUS:
        return _celsius(mantissa, suffix, unit)
    prefix = PREFIXES.get(suffix.lower())
    quantity, error = _try_unit(suffix)
    if isinstance(error, AmbiguousUnitError):
        raise error
    if unit is None:
        if quantity is not None and prefix is not None and suffix not in PREFIX_WHERE_UNDECLARED:
            raise AmbiguousUnitError(_ambiguous(mantissa, suffix, prefix))
        if prefix is not None:
            return scale(mantissa, prefix)
        if quantity is not None:
            return scale(mantissa, quantity.factor)
        raise UnitError(f"'{mantissa:g}{suffix}': {error}; expected a scale prefix "
                        "(f p n u m k meg g t) or a unit such as mm, kg, bar")
    target = parse_unit(unit)
    if quantity is not None and quantity.dims == target.dims:
        return scale(mantissa, quantity.factor / target.factor)
    if prefix is not None and (quantity is None or suffix in PREFIX_BEFORE_UNIT):
        return scale(mantissa, prefix)
    what = f"unit '{suffix}' does not fit here" if quantity is not None else str(error)
    raise UnitError(f"{what}: expected {_expected(unit)}")


def _celsius(mantissa: float, suffix: str, unit: str | None) -> float:
    """``20degC`` -> 293.15 K where a temperature (K) or nothing is declared."""
    if unit is None or (unit not in ("", "1") and parse_unit(unit) == SYMBOLS["K"]):
        return mantissa + CELSIUS_ZERO
    raise UnitError(f"'{mantissa:g}{suffix}' is an absolute temperature; here "
                    f"{_expected(unit)} is expected" + (
                        " (a temperature difference or coefficient: write it in K)"
                        if parse_unit(unit).dims[-1] else ""))


def _ambiguous(mantissa: float, suffix: str, prefix: float) -> str:
    prefix_name = PREFIX_NAMES[suffix.lower()]
    unit_name = UNIT_NAMES.get(suffix, f"the unit {suffix}")
    return (f"'{mantissa:g}{suffix}' is ambiguous where no unit is declared: '{suffix}' "
            f"may be the prefix {prefix_name} or the unit {unit_name}; write "
            f"{mantissa * prefix:g} for the number, or {mantissa * 1000:g}m{suffix} "
            f"for {mantissa:g} {unit_name}{'s' if mantissa != 1 else ''}")
