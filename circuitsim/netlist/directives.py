"""The dot lines that set up an elaborated circuit rather than add to it: ``.title``,
``.tran``, ``.options``, ``.ic``, ``.probe``, ``.input``, ``.measure``, ``.gravity`` and
``.drive`` (drives.py),
each evaluated in the global scope; an unknown directive, or one out of its place, is
refused.
"""
from __future__ import annotations

import sys

from ..errors import NetlistError, did_you_mean
from . import ast, drives, measures, values
from .circuit import Circuit

KNOWN_DIRECTIVES = ("title", "param", "func", "subckt", "ends", "include", "lib", "gravity",
                    "tran", "options", "ic", "probe", "input", "measure", "study", "step", "end",
                    "drive")
EPS = sys.float_info.epsilon
RTOL_MIN = 1e-14     # smaller relative tolerances are below double precision's resolution
OPTIONS = {   # .options key -> (Tran attribute, unit)
    "rtol": ("rtol", None), "atol": ("atol", None), "maxstep": ("maxstep", "s"),
    "h0": ("h0", "s"), "maxorder": ("maxorder", None),
}


def apply_directives(top: list, c: Circuit, scope) -> None:
    """The top-level directives' settings, into ``c``."""
    seen_tran, given, driven = None, {}, []
    for st in top:
        if not isinstance(st, ast.Directive):
            continue
        name = st.name
        if name not in KNOWN_DIRECTIVES:
            raise NetlistError(f"unknown directive '.{name}'", st.loc,
                               did_you_mean(name, KNOWN_DIRECTIVES))
        if name == "title":
            c.title = st.text.strip()
        elif name == "tran":
            if seen_tran is not None:
                raise NetlistError(f"second .tran (the first is at line {seen_tran.line})",
                                   st.loc)
            seen_tran = st.loc
            _tran(st, c, scope, given)
        elif name == "options":
            for a in st.params:
                apply_option(a, c, scope, given)
        elif name == "ic":
            for a in st.params:
                value = values.to_number(a.value, scope, None, f".ic {a.key}")
                _once(given, f".ic {a.key}", value, a.loc)
                c.ics[a.key] = (value, a.loc)
        elif name == "probe":
            for v in st.positional:
                c.probes.append((v.text, v.loc))
        elif name == "input":
            if not st.positional or st.params:
                raise NetlistError(".input lists source values set from outside a run, "
                                   "as ELEMENT.PARAM (e.g. '.input Vsup.V Tload.T')", st.loc)
            for v in st.positional:
                c.inputs.append((v.text, v.loc))
        elif name == "measure":
            c.measures.append(measures.parse(st, scope, c.measures))
        elif name == "gravity":
            if len(st.positional) != 3:
                raise NetlistError(".gravity expects three components gx gy gz (m/s^2)",
                                   st.loc)
            c.gravity = tuple(values.to_number(v, scope, "m/s^2", ".gravity")
                              for v in st.positional)
            _once(given, ".gravity", c.gravity, st.loc)
        elif name == "drive":
            driven.append(st)
        elif name in ("ends",):
            raise NetlistError(".ends without .subckt", st.loc)
    drives.apply_drives(driven, c, scope)          # after every .ic: they must agree


def _once(given: dict, what: str, value, loc) -> None:
    """A setting given twice must agree: otherwise one would silently win."""
    if what in given and given[what][0] != value:
        raise NetlistError(f"{what} is given twice with different values (first at "
                           f"{given[what][1]}); give it once", loc)
    given.setdefault(what, (value, loc))


def _tran(st, c: Circuit, scope, given: dict) -> None:
    """``.tran tstop [tstep] [option=value ...]``."""
    if not 1 <= len(st.positional) <= 2:
        raise NetlistError(".tran expects tstop [tstep] (seconds), e.g. '.tran 2 1m'",
                           st.loc)
    c.tran.tstop = values.to_number(st.positional[0], scope, "s", ".tran tstop")
    if c.tran.tstop <= 0:
        raise NetlistError(".tran tstop must be positive", st.positional[0].loc)
    if len(st.positional) == 2:
        c.tran.tstep = values.to_number(st.positional[1], scope, "s", ".tran tstep")
        if c.tran.tstep <= 0:
            raise NetlistError(".tran tstep must be positive", st.positional[1].loc)
        c.tran.tstep_loc = st.positional[1].loc
        if c.tran.tstep > c.tran.tstop:
            c.warnings.append((f".tran: the output step {c.tran.tstep:g} s is longer than the "
                               f"end time {c.tran.tstop:g} s, so the results hold t = 0 and "
                               f"t = {c.tran.tstop:g} s only (the order is '.tran tstop "
                               "tstep')", st.positional[1].loc))
    c.tran.loc = st.loc
    for a in st.params:
        apply_option(a, c, scope, given)


def apply_option(a: ast.Assign, c: Circuit, scope, given: dict | None = None) -> None:
    """One solver option (``.options``, ``.tran``, a study's rtol=), checked, into
    ``c.tran``; ``given``: the netlist's settings so far (a key set twice to different
    values is refused; a study's or ``--set`` options override and pass None)."""
    key = a.key.lower()
    if key not in OPTIONS:
        raise NetlistError(f"unknown option '{a.key}' (known: {', '.join(OPTIONS)})",
                           a.loc, did_you_mean(key, OPTIONS))
    attr, unit = OPTIONS[key]
    value = values.to_number(a.value, scope, unit, key)
    if value <= 0:
        raise NetlistError(f"option {key} must be positive", a.value.loc)
    if key == "rtol" and value >= 1:
        raise NetlistError(f"option rtol is a relative tolerance below 1 (1e-6 is the "
                           f"default); got {value:g}", a.value.loc)
    if key == "rtol" and value < RTOL_MIN:
        raise NetlistError(f"option rtol={value:g} is below {RTOL_MIN:g}, the smallest "
                           "relative tolerance double precision can honour (a relative "
                           f"change of {RTOL_MIN:g} is about {RTOL_MIN / EPS:.0f} rounding "
                           "units); for tighter control lower atol", a.value.loc)
    if key == "maxorder":
        if value != int(value) or not 1 <= value <= 5:
            raise NetlistError("maxorder must be an integer from 1 to 5", a.value.loc)
        value = int(value)
    if given is not None:
        _once(given, f"option {key}", value, a.loc)
    setattr(c.tran, attr, value)
