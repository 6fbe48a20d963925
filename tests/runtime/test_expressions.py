"""Brace expressions: parsing, evaluation, substitution, derivatives, compilation."""
import math
import re

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from circuitsim import api
from circuitsim.errors import Loc, NetlistError
from circuitsim.netlist.parser import parse, parse_expression
from circuitsim.runtime import expressions as ex
from circuitsim.runtime.expressions import (compile_, diff, evaluate, free_names, substitute,
                                            to_text)

ENV = {"a": 2.0, "b": 3.0, "x": 0.5, "K1.x": 0.25, "J1.Fz": -4.0, "time": 1.5}


@pytest.mark.parametrize("text, expected", [
    ("-2^2", -4.0),                 # unary minus binds weaker than ^
    ("2^3^2", 512.0),               # ^ is right-associative
    ("2**3**2", 512.0),
    ("2^-1", 0.5),
    ("(-2)^2", 4.0),
    ("(1+2)*3", 9.0),
    ("1+2*3", 7.0),
    ("10-4-3", 3.0),
    ("8/4/2", 1.0),
    ("-3*-2", 6.0),
    ("+3 - -2", 5.0),
    ("2*10u", 2e-5),
    ("4.7k", 4700.0),
    ("1meg/2", 5e5),
    ("5kg", 5.0),                   # an unambiguous unit is its SI value
    ("1e-3*2", 2e-3),
    ("pi", math.pi),
    ("2*pi()", 2 * math.pi),
    ("sin(pi/2) + cos(0) + tan(0)", 2.0),
    ("asin(1) + acos(1) + atan(1)", math.pi / 2 + math.pi / 4),
    ("atan2(1, -1)", 3 * math.pi / 4),
    ("sqrt(16) + exp(0) + log(1) + abs(-2)", 7.0),
    ("min(3, 1, 2) + max(3, 1, 2)", 4.0),
    ("SIN(0) + Max(1, 2)", 2.0),    # function names are keywords: any case
    ("a*b + K1.x - J1.Fz", 10.25),
    ("2*a*sin(time*0)", 0.0),
])
def test_evaluate(text, expected):
    assert evaluate(parse_expression(text), ENV) == pytest.approx(expected, rel=1e-14)


def test_braces_are_optional_and_whitespace_is_free():
    assert evaluate(parse_expression(" { 2 * a } "), ENV) == 4.0


def test_free_names():
    tree = parse_expression("2*L*sin(phi) + K1.x*time + pi")
    assert free_names(tree) == {"L", "phi", "K1.x", "time"}


def test_names_are_case_sensitive():
    with pytest.raises(NetlistError, match="unknown name 'A'"):
        evaluate(parse_expression("A"), ENV)


def test_unknown_name_is_located_with_a_hint():
    net = parse(".param Length=1\nR R1 a b R={2*Lenght}\n", "f.cir")
    value = net.statements[1].params[0].value
    with pytest.raises(NetlistError) as info:
        evaluate(value.tree, {"Length": 1.0}, loc=value.loc)
    err = info.value
    assert "unknown name 'Lenght' in expression" in err.message
    assert (err.loc.file, err.loc.line, err.loc.col) == ("f.cir", 2, 15)
    assert err.hint == "did you mean 'Length'?"
    assert str(err).startswith("f.cir:2:15:")


def test_unknown_function_is_refused_when_the_netlist_is_read():
    with pytest.raises(NetlistError) as info:
        api.parse("R R1 a b R={2*sinn(1)}\n", "f.cir")
    assert "unknown function 'sinn'" in info.value.message
    assert info.value.hint == "did you mean 'sin'?"
    assert (info.value.loc.line, info.value.loc.col) == (1, 15)


@pytest.mark.parametrize("text, message", [
    ("sin(1, 2)", "sin() takes 1 argument, got 2"),
    ("atan2(1)", "atan2() takes 2 arguments, got 1"),
    ("min()", "min() takes at least 1 argument, got 0"),
])
def test_wrong_arity(text, message):
    with pytest.raises(NetlistError, match=re.escape(message)):
        parse_expression(text)


def test_lone_m_in_braces_is_ambiguous():
    with pytest.raises(NetlistError) as info:
        parse("R R1 a b R={2*1m}\n", "f.cir")
    assert "ambiguous" in info.value.message and "milli" in info.value.message
    assert (info.value.loc.line, info.value.loc.col) == (1, 15)


def test_division_in_braces_is_an_operator():
    tree = parse_expression("2*L/m")
    assert free_names(tree) == {"L", "m"}
    assert evaluate(tree, {"L": 3.0, "m": 2.0}) == 3.0


def test_parse_expression_positions_are_offset_from_loc():
    base = Loc("<command line>", 1, 3, "k={2*a + zz}")
    tree = parse_expression("{2*a + zz}", base)
    with pytest.raises(NetlistError) as info:
        evaluate(tree, {"a": 1.0})
    assert info.value.loc.col == 10      # the z of zz in the command-line text


def test_parse_expression_syntax_error():
    with pytest.raises(NetlistError) as info:
        parse_expression("2*(a+1", Loc("<command line>", 1, 1, "2*(a+1"))
    assert "unclosed '('" in info.value.message and info.value.loc.col == 3


def test_incomplete_expression():
    with pytest.raises(NetlistError, match="unexpected end of the input; expected a number"):
        parse_expression("2*")


def test_evaluate_is_vectorized():
    x = np.linspace(0, 1, 5)
    out = evaluate(parse_expression("2*x^2 + max(x, 0.5)"), {"x": x})
    np.testing.assert_allclose(out, 2 * x ** 2 + np.maximum(x, 0.5))


def test_substitute_folds_constants_and_keeps_unknown_names():
    tree = substitute(parse_expression("2*a*b + sin(0)*time + time*(a - 2)"), {"a": 2.0, "b": 3.0})
    assert to_text(tree) == "12"     # 0*time and time*0 vanish
    tree = substitute(parse_expression("a*b + sqrt(time)"), {"a": 2.0, "b": 3.0})
    assert to_text(tree) == "6 + sqrt(time)"
    assert isinstance(substitute(parse_expression("a*b"), {"a": 2.0, "b": 3.0}), ex.Num)


def test_diff_simplifies():
    assert diff(parse_expression("3*x"), "x") == ex.Num(3.0)
    assert diff(parse_expression("x*y + 2"), "z") == ex.Num(0.0)
    assert to_text(diff(parse_expression("x^2"), "x")) == "2*x"
    assert to_text(diff(parse_expression("a*x + b"), "x")) == "a"
    assert to_text(diff(parse_expression("sin(x)"), "x")) == "cos(x)"


# Expressions over x, y in [0.5, 2] (inside every function's domain).
DIFF_CASES = [
    "x*y + x/y - 3*x^2", "x^y", "y^3/x", "-x^2*y", "sin(x*y) + cos(x) - tan(x/3)",
    "asin(x/3) + acos(y/3) + atan(x*y)", "atan2(y, x)", "sqrt(x*y) + exp(-x) + log(y)",
    "abs(x - 1.25)*y", "min(x, y, 1.1) + max(x*y, 1.3, y)", "2^x + x^-2", "(x + y)^2.5",
    "exp(sin(x))*log(1 + y^2)", "x/(1 + y^2)^2", "min(x)",
]


@settings(max_examples=25, deadline=None)
@given(x=st.floats(0.5, 2.0), y=st.floats(0.5, 2.0))
def test_diff_matches_finite_differences(x, y):
    # stay off the kinks of abs/min/max, where no derivative exists
    kinks = (x - y, x - 1.1, y - 1.1, x * y - 1.3, x - 1.0, y - 1.3, x - 1.25)
    assume(min(abs(k) for k in kinks) > 1e-3)
    h = 1e-6
    for text in DIFF_CASES:
        tree = parse_expression(text)
        for name in ("x", "y"):
            env = {"x": x, "y": y}
            up, down = dict(env), dict(env)
            up[name] += h
            down[name] -= h
            fd = (evaluate(tree, up) - evaluate(tree, down)) / (2 * h)
            exact = evaluate(diff(tree, name), env)
            assert exact == pytest.approx(fd, rel=1e-5, abs=1e-5), (text, name)


def test_compile_matches_evaluate_on_arrays():
    rng = np.random.default_rng(1)
    x, y = rng.uniform(0.5, 2, 50), rng.uniform(0.5, 2, 50)
    for text in DIFF_CASES:
        tree = parse_expression(text)
        fn = compile_(tree, ["x", "y"])
        np.testing.assert_allclose(fn(x, y), evaluate(tree, {"x": x, "y": y}), rtol=1e-14)
    assert compile_(parse_expression("K1.x*2"), ["K1.x"])(np.array([1.0, 2.0])).tolist() == [2, 4]


def test_compile_constant_and_unknown_name():
    assert compile_(parse_expression("2*pi"), ["time"])(0.3) == pytest.approx(2 * math.pi)
    with pytest.raises(NetlistError, match="unknown name 'q'"):
        compile_(parse_expression("time*q"), ["time"])


def test_compile_does_not_raise_on_division_by_zero():
    fn = compile_(parse_expression("1/x"), ["x"])
    assert fn(0.0) == math.inf


# --- random trees: text round trip and the three evaluators agree ------------------------
_leaf = st.one_of(st.sampled_from(["x", "y", "K1.x"]).map(ex.Name),
                  st.floats(-3, 3, allow_nan=False).map(lambda v: ex.Num(round(v, 3))))


def _extend(children):
    return st.one_of(
        st.tuples(st.sampled_from("+-*"), children, children).map(lambda t: ex.Binary(*t)),
        children.map(lambda c: ex.Unary("-", c)),
        st.tuples(st.sampled_from(["sin", "cos", "atan"]), children)
        .map(lambda t: ex.Func(t[0], (t[1],))),
        st.tuples(children, children).map(lambda t: ex.Func("max", t)),
        children.map(lambda c: ex.Binary("^", ex.Func("cos", (c,)), ex.Num(2.0))),
    )


TREES = st.recursive(_leaf, _extend, max_leaves=12)


@settings(max_examples=60, deadline=None)
@given(tree=TREES, x=st.floats(-2, 2), y=st.floats(-2, 2))
def test_text_round_trip_and_evaluators_agree(tree, x, y):
    env = {"x": x, "y": y, "K1.x": 0.7}
    text = to_text(tree)
    again = parse_expression(text)
    assert to_text(again) == text
    value = evaluate(tree, env)
    assert evaluate(again, env) == pytest.approx(value, rel=1e-12, abs=1e-12)
    fn = compile_(tree, ["x", "y", "K1.x"])
    assert fn(x, y, 0.7) == pytest.approx(value, rel=1e-12, abs=1e-12)
    folded = substitute(tree, {"y": y, "K1.x": 0.7})
    assert evaluate(folded, {"x": x}) == pytest.approx(value, rel=1e-9, abs=1e-9)
