"""User functions (.func) and local names (let) in brace expressions: expanded where they
are used, so a netlist with them runs, and differentiates, as the one written out."""
import numpy as np
import pytest

import circuitsim
from circuitsim.assembly.system import System
from circuitsim.errors import NetlistError
from circuitsim.runtime import expressions

# --- an RC low-pass driven by V0 sin(w t) through a B source ------------------------------
RC = """
.param V0=2 w=300 R=1k C=1u
{defs}
B B1 a 0 V={{{drive}}}
R R1 a b R={{R}}
C C1 b 0 C={{C}}
.tran 20m 0.1m
"""
WITH_FUNCTION = RC.format(defs=".func drive(t) = {V0*sin(w*t)}", drive="drive(time)")
WRITTEN_OUT = RC.format(defs="", drive="V0*sin(w*time)")


def _rc_exact(t, V0=2.0, w=300.0, tau=1e-3):
    """v_C of tau v' + v = V0 sin(w t), v(0) = 0."""
    wt = w * tau
    return V0 / (1 + wt ** 2) * (np.sin(w * t) - wt * np.cos(w * t) + wt * np.exp(-t / tau))


@pytest.mark.parametrize("tolerances, bound", [({}, 2e-5),
                                               ({"rtol": 1e-9, "atol": 1e-12}, 2e-8)])
def test_a_source_driven_by_a_function_of_time_runs_as_written_out(tolerances, bound):
    a = circuitsim.parse(WITH_FUNCTION).simulate(**tolerances)
    b = circuitsim.parse(WRITTEN_OUT).simulate(**tolerances)
    assert np.array_equal(a.t, b.t)
    assert np.max(np.abs(a["b"] - b["b"])) <= 1e-12
    # the amplitude is 2/(1 + 0.09) = 1.83 V: the bound is ~1e-5 (1e-8) of it
    assert np.max(np.abs(a["b"] - _rc_exact(a.t))) < bound


def test_functions_calling_functions_and_local_names_in_constants():
    text = """
.func sq(x) = {x*x}
.func hyp(x, y) = {sqrt(sq(x) + sq(y))}
.func Twice(x) {2*x}          ; SPICE's form, without '='
.param L={hyp(3, 4)}
R R1 a 0 R={twice(L)}
R R2 a 0 R={let(d=hyp(6, 8), e=d + 1, d*e)}
R R3 a 0 R={let(L=7, L)*L}
V V1 a 0 V=1
.tran 1
"""
    c = circuitsim.parse(text).circuit()
    assert c.params["L"] == 5.0
    assert c.element("R1").params["R"] == 10.0        # names are case-insensitive
    assert c.element("R2").params["R"] == 110.0       # d = 10, e = 11
    assert c.element("R3").params["R"] == 35.0        # the local L hides the parameter


SUB = """
.func g(x) = {2*x}
.subckt leg in out params: k=1
.func g(x) = {k*x}            ; hides the top level's g inside leg
.func h(x) = {g(x) + 1}
R R1 in out R={h(1k)}
.ends leg
V V1 a 0 V=1
leg X1 a b k=2
leg X2 b 0 k=3
R R0 a 0 R={g(1k)}
.tran 1
"""


def test_a_function_in_a_subcircuit_is_local_to_it_and_reads_its_parameters():
    c = circuitsim.parse(SUB).circuit()
    assert c.element("X1.R1").params["R"] == 2001.0
    assert c.element("X2.R1").params["R"] == 3001.0
    assert c.element("R0").params["R"] == 2000.0


def test_functions_in_an_included_file_and_in_a_setting(tmp_path):
    (tmp_path / "kin.lib").write_text(".func norm3(x, y, z) = {sqrt(x^2 + y^2 + z^2)}\n")
    (tmp_path / "top.cir").write_text('.include "kin.lib"\n.param a=1\n'
                                      "R R1 n 0 R={norm3(2, 3, 6)}\nV V1 n 0 V=1\n.tran 1\n")
    net = circuitsim.load(tmp_path / "top.cir")
    assert net.circuit().element("R1").params["R"] == 7.0
    assert net.circuit(set=["a={norm3(1, 4, 8)}"]).params["a"] == 9.0


# --- the Jacobian of a B source whose expression calls a function reading the circuit ----
NONLINEAR = """
.param k=3 L0=0.5 c=0.2
{defs}
V V1 x 0 V={{sin(5*time)}}
R R1 x y R=1
C C1 y 0 C=1
B B1 y 0 I={{{expr}}}
R R2 y 0 R=2
.tran 1
"""
FUNCTIONS = """
.func stretch(p, q) = {let(d=sqrt(p^2 + q^2 + 1), d - L0)}
.func pull(p) = {k*stretch(p, v(x))*abs(stretch(p, x)) + c*y*time}
"""


def _system(text):
    return System(circuitsim.parse(text).circuit())


def test_a_function_reading_the_circuit_gives_the_written_out_residual_and_jacobian():
    d_y = "sqrt(y^2 + x^2 + 1)"
    written = f"k*({d_y} - L0)*abs({d_y} - L0) + c*y*time"
    fn = _system(NONLINEAR.format(defs=FUNCTIONS, expr="pull(v(y))"))
    out = _system(NONLINEAR.format(defs="", expr=written))
    assert fn.names == out.names
    tree = fn.circuit.element("B1").params["I"]
    assert expressions.to_text(tree) == expressions.to_text(
        out.circuit.element("B1").params["I"])
    rng = np.random.default_rng(7)
    for _ in range(5):
        t, y, yp = rng.uniform(0, 1), rng.normal(size=fn.n), rng.normal(size=fn.n)
        assert np.array_equal(fn.residual(t, y, yp), out.residual(t, y, yp))
        J = fn.jacobian_dense(t, y, yp, 10.0)
        assert np.array_equal(J, out.jacobian_dense(t, y, yp, 10.0))
        # and it is the derivative: central differences, to 1e-6 of the largest entry
        h = 1e-6
        fd = np.column_stack([(fn.residual(t, y + h * e, yp + 10.0 * h * e)
                               - fn.residual(t, y - h * e, yp - 10.0 * h * e)) / (2 * h)
                              for e in np.eye(fn.n)])
        assert np.max(np.abs(J - fd)) < 1e-6 * np.max(np.abs(J))


def test_the_expansion_costs_nothing_at_run_time():
    # the expression the element compiles is the written-out one, node for node
    a = circuitsim.parse(WITH_FUNCTION).circuit().element("B1").params["V"]
    b = circuitsim.parse(WRITTEN_OUT).circuit().element("B1").params["V"]
    assert a == b


# --- errors: each located, naming the function --------------------------------------------
TAIL = "V V1 a 0 V=1\nR R1 a 0 R=1k\n.tran 1\n"


@pytest.mark.parametrize("text, line, col, message", [
    (".func hyp(x, y) = {sqrt(x^2+y^2)}\nR R2 a 0 R={hip(3, 4)}\n", 2, 13,
     "unknown function 'hip' in expression"),
    (".func hyp(x, y) = {sqrt(x^2+y^2)}\nR R2 a 0 R={hyp(3)}\n", 2, 13,
     "hyp() takes 2 arguments (x, y), got 1"),
    (".func f(x) = {x}\n.func F(y) = {2*y}\n", 2, 7,
     "function f is defined twice (first at line 1)"),
    (".func sin(x) = {x}\n", 1, 7, "'sin' is a built-in name of expressions"),
    (".func let(x) = {x}\n", 1, 7, "'let' is a built-in name of expressions"),
    (".param k=2\n.func k(x) = {x}\n", 2, 7,
     "function k has the name of the parameter 'k' (line 1)"),
    (".func f(x) = {g(x)+1}\n.func g(x) = {2*f(x)}\n", 2, 17,
     "function f calls itself: f -> g -> f"),
    (".func f(x) = {x*f(x)}\n", 1, 17, "function f calls itself: f -> f"),
    (".func f(x) = {x*qq}\nR R2 a 0 R={f(1)}\n", 1, 17,
     "unknown name 'qq' in expression (in the body of function f)"),
    (".func f(x) = {sinn(x)}\n", 1, 15, "unknown function 'sinn'"),
    (".func f(x) 2\n", 1, 12, ".func f: the body is an expression in braces"),
    (".func f(2) = {2}\n", 1, 9, ".func f: an argument is a plain name, got '2'"),
    (".func f(x, x) = {x}\n", 1, 12, ".func f: argument 'x' is listed twice"),
    (".func f(time) = {time}\n", 1, 9, "'time' is reserved"),
    (".func f = {1}\n", 1, 7, ".func expects name(arg, ...) = {expression}"),
    ("R R2 a 0 R={let(d=2)}\n", 1, 13, "let() needs local names, then the expression: let(name=value, ..., expression)"),
    ("R R2 a 0 R={let(2, 3)}\n", 1, 13, "let(): a local name is written name=value"),
    ("R R2 a 0 R={let(pi=3, pi)}\n", 1, 17, "let(): local name 'pi'"),
    (".func g(x) = {k*x}\n.param k=1\n.subckt s a params: k=2\nR R a 0 R={g(1)}\n.ends\n"
     "s X1 a\n", 4, 12, "g() (defined at line 1) reads 'k', which this subcircuit defines"),
])
def test_errors_are_located_and_name_the_function(text, line, col, message):
    with pytest.raises(NetlistError) as info:
        circuitsim.parse(text + TAIL, "f.cir").circuit()
    err = info.value
    assert message in err.message
    assert (err.loc.file, err.loc.line, err.loc.col) == ("f.cir", line, col)


def test_a_function_written_as_a_parameter_is_pointed_to_func():
    with pytest.raises(NetlistError) as info:
        circuitsim.parse(".param f(x) = {2*x}\n" + TAIL, "f.cir").circuit()
    assert ".param expects name=value pairs" in info.value.message
    assert info.value.hint == "a function is defined with .func name(arg, ...) = {expression}"


def test_an_unknown_name_in_a_body_read_by_a_source_names_the_function():
    with pytest.raises(NetlistError) as info:
        circuitsim.parse(".func f(x) = {x*qq}\nB B2 a 0 I={f(1)}\n" + TAIL, "f.cir").prepare()
    assert ("B B2 refers to 'qq' (in the body of function f), which is neither a node nor "
            "an element variable") in info.value.message
    assert (info.value.loc.line, info.value.loc.col) == (2, 10)


def test_a_function_that_would_expand_without_bound_is_refused():
    lines = [".func f0(x) = {x + 1}"] + [f".func f{i}(x) = {{f{i - 1}(x) + f{i - 1}(x)}}"
                                         for i in range(1, 25)]
    with pytest.raises(NetlistError, match="grows to more than 100000 terms"):
        circuitsim.parse("\n".join(lines) + "\n" + TAIL, "f.cir")


def test_both_parse_routes_read_a_func_line_alike():
    from circuitsim.netlist.parser import parse
    from helpers import parse_by_tree_route
    text = (".func hyp(x, y) = {sqrt(x^2 + y^2)}\n.func twice(x) {2*x}\n"
            "R R1 a 0 R={let(d=hyp(3, 4), twice(d))}\n")
    fast = parse(text, "f.cir")
    assert repr(fast) == repr(parse_by_tree_route(text))
    head, body = fast.statements[0].positional
    assert (fast.statements[0].name, head.name, [a.name for a in head.args]) == (
        "func", "hyp", ["x", "y"])
    assert expressions.to_text(body.tree) == "sqrt(x^2 + y^2)"


def test_local_names_that_would_expand_without_bound_are_refused():
    names = ", ".join(f"a{i}=a{i - 1} + a{i - 1}" for i in range(1, 30))
    with pytest.raises(NetlistError, match="grows to more than 100000 terms once its local"):
        circuitsim.parse(f"R R2 a 0 R={{let(a0=2, {names}, a29)}}\n" + TAIL, "f.cir")
