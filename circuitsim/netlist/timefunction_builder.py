"""Time functions written in a netlist -> :mod:`circuitsim.runtime.timefunctions`.

A source or drive parameter may be a call such as ``step(0, 0, 12)`` or ``pwl(...)``,
a brace expression of ``time``, or a constant; :func:`make_time_function` checks the
call against its signature, converts the arguments to SI and builds the function.
A keyword argument (``pwl(..., breakpoints=jumps)``, ``pwl(..., interp=spline)``) is a choice written after the
positional ones. ``pwl(file="supply.csv", column=2)`` takes its points from a data file,
read when the netlist was loaded (:mod:`~circuitsim.netlist.datafiles`): the same Pwl as
the points written out.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from . import units
from ..errors import Loc, NetlistError, did_you_mean
from ..runtime.expressions import Num, substitute
from ..runtime.timefunctions import (Constant, ExprFunction, Pulse, Pwl, Ramp, Sine, Step,
                                     TimeFunction)
from . import ast

Convert = Callable[[ast.Value], float]


# name -> (argument names, number of optional trailing arguments)
SIGNATURES = {
    "step": (("t0", "v0", "v1"), 0),
    "ramp": (("t0", "t1", "v0", "v1"), 0),
    "sin": (("offset", "amplitude", "freq_hz", "phase_rad"), 1),
    "pulse": (("v0", "v1", "delay", "rise", "fall", "width", "period"), 1),
    "pwl": (("t1", "v1", "t2", "v2", "..."), 0),
}
# name -> {keyword: its choices (None: any value, read by the loader)}
KEYWORDS = {"pwl": {"breakpoints": Pwl.BREAKPOINTS, "interp": Pwl.INTERPOLATIONS,
                    "file": None, "column": None}}
_TIME_ARGS = {"t0", "t1", "t2", "delay", "rise", "fall", "width", "period"}


def make_time_function(value: ast.Value, convert_value: Convert, convert_time: Convert,
                       loc: Loc, unit: str | None = None) -> TimeFunction:
    """A TimeFunction for a written value: a call such as ``step(0, 0, 12)``, a brace
    expression of ``time``, or a constant. ``convert_value`` turns an amplitude argument
    into SI in the parameter's unit, ``convert_time`` a time argument into seconds;
    ``unit`` is that SI unit (a data file's values are converted to it from the unit
    its header gives). Raises NetlistError (at ``loc`` or at the argument) for a bad
    call."""
    if isinstance(value, ast.Expr):
        return _from_expression(value, loc)
    if not isinstance(value, ast.Call):
        return Constant(convert_value(value))
    name = value.name.lower()
    if name not in SIGNATURES:
        raise NetlistError(f"unknown time function '{value.name}' (known: "
                           f"{', '.join(SIGNATURES)})", loc, did_you_mean(name, SIGNATURES))
    args = value.args
    keywords = _keywords(name, value.keywords, args)
    if name == "pwl" and "file" in keywords:
        return _pwl_file(value, keywords, unit)
    if name == "pwl":
        return _pwl(args, keywords, convert_value, convert_time, loc)
    names, optional = SIGNATURES[name]
    if not len(names) - optional <= len(args) <= len(names):
        count = f"{len(names) - optional} or {len(names)}" if optional else f"{len(names)}"
        raise NetlistError(f"{name}() takes {count} arguments ({', '.join(names)}), "
                           f"got {len(args)}", loc)
    nums = [_convert(arg, what, convert_value, convert_time) for arg, what in zip(args, names)]
    nums += [0.0] * (len(names) - len(nums))   # optional phase / period default to 0
    return _check(name, nums, args, loc)


def _keywords(name: str, assigns: list, args: list) -> dict:
    """{keyword: choice} of a call, checked against KEYWORDS[name]."""
    known = KEYWORDS.get(name, {})
    out: dict = {}
    for a in assigns:
        if not known:
            raise NetlistError(f"{name}() takes no keyword arguments", a.loc)
        if a.key not in known:
            raise NetlistError(f"{name}(): unknown keyword '{a.key}' (known: "
                               f"{', '.join(known)})", a.loc, did_you_mean(a.key, known))
        if a.key in out:
            raise NetlistError(f"{name}(): {a.key} is given twice", a.loc)
        if args and (args[-1].loc.line, args[-1].loc.col) > (a.loc.line, a.loc.col):
            raise NetlistError(f"{name}(): keyword arguments come after the positional "
                               "ones", a.loc)
        choices = known[a.key]
        if choices is None:
            out[a.key] = a.value
            continue
        choice = (a.value.name if isinstance(a.value, ast.Ident) else
                  a.value.value if isinstance(a.value, ast.String) else a.value.text)
        if choice not in choices:
            raise NetlistError(f"{name}(): {a.key} is one of {', '.join(choices)}; got "
                               f"'{choice}'", a.value.loc, did_you_mean(choice, choices))
        out[a.key] = choice
    return out


def _convert(arg: ast.Value, what: str, convert_value: Convert, convert_time: Convert):
    if what in _TIME_ARGS:
        return convert_time(arg)
    if what in ("freq_hz", "phase_rad"):
        unit = "Hz" if what == "freq_hz" else "rad"
        if isinstance(arg, ast.Number):   # 50Hz, 1k, 90deg
            try:
                return units.to_si(arg.mantissa, arg.suffix, unit)
            except units.UnitError as exc:
                raise NetlistError(f"{what}: {exc}", arg.loc) from None
        # a parameter name or an expression: convert_time evaluates it in the scope
        # (the 's' unit it declares only matters for suffixed numbers, handled above)
        return convert_time(arg)
    return convert_value(arg)


def _check(name: str, p: list, args: list, loc: Loc) -> TimeFunction:
    def where(i):
        return args[i].loc if i < len(args) else loc

    if name == "step":
        return Step(*p)
    if name == "ramp":
        if p[1] < p[0]:
            raise NetlistError(f"ramp(): t1 = {p[1]:g} s is before t0 = {p[0]:g} s", where(1))
        return Ramp(*p) if p[1] > p[0] else Step(p[0], p[2], p[3])
    if name == "sin":
        return Sine(*p)
    for i in range(3, 7):
        if p[i] < 0:
            raise NetlistError(f"pulse(): {SIGNATURES['pulse'][0][i]} must not be negative",
                               where(i))
    period, cycle = p[6], p[3] + p[5] + p[4]
    if 0 < period < cycle:
        raise NetlistError(f"pulse(): period = {period:g} s is shorter than rise + width + "
                           f"fall = {cycle:g} s (one pulse would overlap the next; period 0 "
                           "gives a single pulse)", where(6))
    return Pulse(*p)


def _pwl(args, keywords, convert_value, convert_time, loc) -> Pwl:
    if len(args) < 2 or len(args) % 2:
        raise NetlistError(f"pwl() takes pairs of arguments (t1, v1, t2, v2, ...), got "
                           f"{len(args)} argument{'s' if len(args) != 1 else ''}", loc)
    times = np.array([convert_time(a) for a in args[0::2]])
    values = [convert_value(a) for a in args[1::2]]
    _check_pwl_times(times, args)
    return Pwl(times, values, keywords.get("breakpoints"), keywords.get("interp"))


def _pwl_file(call: ast.Call, keywords: dict, unit: str | None) -> Pwl:
    """pwl(file=...): the points the loader read (``call.data``, a datafiles.Series),
    the values in ``unit``."""
    series = call.data
    if series is None:     # a call not read by the loader: a setting on the command line
        raise NetlistError("pwl(): its file is read where a netlist is loaded; write "
                           "pwl(file=...) in the netlist", keywords["file"].loc)
    return Pwl(series.times, series.in_unit(unit), keywords.get("breakpoints"),
               keywords.get("interp"))


def _check_pwl_times(times: np.ndarray, args: list) -> None:
    """Times must not decrease; two points at one time make a jump, a third has no value
    to take. Raises at the first offending time."""
    decrease = np.flatnonzero(~(times[1:] >= times[:-1])) + 1      # NaN fails too
    third = np.flatnonzero(times[2:] == times[:-2]) + 2
    if not len(decrease) and not len(third):
        return
    i = int(min(decrease[:1].tolist() + third[:1].tolist()))
    if i in decrease[:1]:
        raise NetlistError(f"pwl(): times must increase; {times[i]:g} s follows "
                           f"{times[i - 1]:g} s", args[2 * i].loc)
    raise NetlistError(f"pwl(): three points at {times[i]:g} s; a jump is two points at "
                       "one time", args[2 * i].loc)


def _from_expression(value: ast.Expr, loc: Loc) -> TimeFunction:
    tree = substitute(value.tree, {})        # fold what is constant
    if isinstance(tree, Num):
        return Constant(tree.value)
    return ExprFunction(tree)     # which reports a name other than time at the name
