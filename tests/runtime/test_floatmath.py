"""The float route of compiled expressions (runtime/floatmath.py): on Python floats every
function and operator gives the bits numpy gives on a one-element array, or raises where
numpy returns inf or NaN, and then the compiled expression's value is numpy's."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from circuitsim.netlist.parser import parse_expression
from circuitsim.runtime import expressions as ex
from circuitsim.runtime import floatmath
from circuitsim.runtime.expressions import compile_, compile_group, diff

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 1e-300, -1e-300, 710.0, -710.0, 1e300, -1e300,
           math.inf, -math.inf, math.nan]
RNG = np.random.default_rng(7)
VALUES = SPECIAL + list(RNG.uniform(-10, 10, 300)) + list(np.exp(RNG.uniform(-30, 30, 300)))


def _same(a: float, b) -> bool:
    """Equal bits, NaN equal to NaN, zeros by their sign."""
    b = float(np.asarray(b).reshape(-1)[0])
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def _on_floats(fn, *args):
    """fn on floats, None where it raises one of FLOAT_ERRORS (the caller falls back)."""
    try:
        return fn(*args)
    except floatmath.FLOAT_ERRORS:
        return None


@pytest.mark.parametrize("name", sorted(set(ex.FUNCTIONS) & set(floatmath.FUNCTIONS)))
def test_each_function_gives_numpys_bits_or_raises(name):
    low, high, reference = ex.FUNCTIONS[name]
    fast = floatmath.FUNCTIONS[name]
    arity = 2 if high is None else high
    checked = 0
    with np.errstate(all="ignore"):
        for k, a in enumerate(VALUES):
            args = [a, VALUES[(7 * k + 3) % len(VALUES)], VALUES[(11 * k + 5) % len(VALUES)]]
            args = [float(v) for v in args[:arity]]
            if k < len(SPECIAL):                   # every pair of special values too
                args = [a, SPECIAL[(k + 1) % len(SPECIAL)], SPECIAL[(k + 2) % len(SPECIAL)]][:arity]
            value = _on_floats(fast, *args)
            if value is None:
                continue
            assert _same(value, reference(*[np.array([v]) for v in args])), (name, args)
            checked += 1
    assert checked >= 150, name        # the float route is the usual one (asin: 182)


@pytest.mark.parametrize("name", ["min", "max", "lt", "gt", "le", "ge", "eq", "ne", "atan2"])
def test_two_argument_functions_on_every_pair_of_special_values(name):
    reference, fast = ex.FUNCTIONS[name][2], floatmath.FUNCTIONS[name]
    with np.errstate(all="ignore"):
        for a in SPECIAL:
            for b in SPECIAL:
                value = _on_floats(fast, a, b)
                assert value is None or _same(value, reference(np.array([a]), np.array([b]))), \
                    (name, a, b)


@pytest.mark.parametrize("exponent", [2.0, 0.5, -1.0, 3.0, 1.5, -2.5, 0.0, 1.0])
def test_a_constant_power_gives_numpys_bits(exponent):
    fn = compile_(ex.Binary("^", ex.Name("x"), ex.Num(exponent)), ["x"])
    with np.errstate(all="ignore"):
        for x in VALUES:
            assert _same(fn(float(x)), fn(np.array([x]))), (x, exponent)


def test_a_valve_law_and_its_derivatives_agree_bit_for_bit():
    """The hydraulic library's valve law and its derivatives, at values a run meets."""
    tree = parse_expression("(1e-6 + (1 - 1e-6)*min(max(cmd, 0), 1))*0.7*1e-5*sqrt(2/850)"
                            "*(s - a)/((s - a)^2 + 1e4^2)^0.25")
    names = ["cmd", "s", "a"]
    f = compile_(tree, names)
    df = compile_group([diff(tree, n) for n in names], names)
    for cmd, s, a in [(0.3, 1.6e7, 5e6), (-0.2, 1e5, 1e5), (1.5, 0.0, 2e7), (0.0, 3e6, 3e6)]:
        assert _same(f(cmd, s, a), f(*[np.array([v]) for v in (cmd, s, a)]))
        for fast, slow in zip(df(cmd, s, a), df(*[np.array([v]) for v in (cmd, s, a)])):
            assert fast.__class__ is float
            assert _same(fast, slow)


def test_where_floats_raise_the_value_is_numpys():
    """Division by zero, overflow and domain errors: inf and NaN as numpy gives them."""
    for text, x, expected in [("1/x", 0.0, math.inf), ("-1/x", 0.0, -math.inf),
                              ("exp(x)", 1e3, math.inf), ("sqrt(x)", -1.0, math.nan),
                              ("log(x)", 0.0, -math.inf), ("x^0.3", -2.0, math.nan),
                              ("x^-1", 0.0, math.inf), ("asin(x)", 2.0, math.nan),
                              ("0*(1/x) + 2", 0.0, math.nan)]:
        value = compile_(parse_expression(text), ["x"])(x)
        assert _same(float(value), expected), text


# random trees of every operator and function the float route has
_leaf = st.one_of(st.sampled_from(["x", "y"]).map(ex.Name),
                  st.sampled_from([0.0, 0.5, 2.0, -1.0, 3.0]).map(ex.Num))
_unary = sorted(n for n, (low, high, _) in ex.FUNCTIONS.items() if high == 1)
_binary = sorted(n for n, (low, high, _) in ex.FUNCTIONS.items() if high == 2)


def _extend(children):
    return st.one_of(
        st.tuples(st.sampled_from("+-*/^"), children, children).map(lambda t: ex.Binary(*t)),
        children.map(lambda c: ex.Unary("-", c)),
        st.tuples(st.sampled_from(_unary), children).map(lambda t: ex.Func(t[0], (t[1],))),
        st.tuples(st.sampled_from(_binary + ["min", "max"]), children, children)
        .map(lambda t: ex.Func(t[0], (t[1], t[2]))),
        st.tuples(children, children, children).map(lambda t: ex.Func("if", t)),
    )


@settings(max_examples=300, deadline=None)
@given(tree=st.recursive(_leaf, _extend, max_leaves=10),
       x=st.one_of(st.floats(-3, 3), st.sampled_from(SPECIAL)),
       y=st.one_of(st.floats(-3, 3), st.sampled_from(SPECIAL)))
def test_random_expressions_agree_on_both_routes(tree, x, y):
    fn = compile_(tree, ["x", "y"])
    assert _same(float(fn(x, y)), fn(np.array([x]), np.array([y])))
