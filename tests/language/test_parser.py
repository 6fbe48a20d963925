"""Netlist text -> AST: every statement kind of language.md, positions, syntax errors."""
import textwrap

import pytest

from circuitsim import api
from circuitsim.errors import NetlistError
from circuitsim.netlist import ast
from helpers import parse_by_tree_route
from circuitsim.netlist.parser import parse
from circuitsim.runtime.expressions import evaluate, to_text

EXAMPLE = """\
.title Compound pendulum released from horizontal
.param m=1 L=0.5
.gravity 0 0 -9.81
body B1 m={m} J=(0.02, 0.02, 0.001) pos=({L}, 0, 0) rot=(0, 1, 0, 90deg)
spherical J1 0 B1 at=(0, 0, 0) model=position
.study fast   J1.model=velocity
.study soft   J1.model=elastic J1.k=1e6
.tran 2 1m
.probe B1.x B1.z J1.Fz
"""


def one(text):
    """The single statement of a one-line netlist."""
    (st,) = parse(text, "f.cir").statements
    return st


def numbers(values):
    return [(v.mantissa, v.suffix) for v in values]


def params(st):
    return {a.key: a.value for a in st.params}


# --- the language.md example ------------------------------------------------------------
def test_language_example_verbatim():
    net = parse(EXAMPLE, "pendulum.cir")
    assert net.file == "pendulum.cir"
    title, param, gravity, body, joint, fast, soft, tran, probe = net.statements
    assert (title.name, title.text) == ("title", "Compound pendulum released from horizontal")
    assert param.name == "param" and [(a.key, a.value.mantissa) for a in param.params] == [
        ("m", 1.0), ("L", 0.5)]
    assert numbers(gravity.positional) == [(0.0, ""), (0.0, ""), (-9.81, "")]

    assert (body.type, body.name, body.positional) == ("body", "B1", [])
    p = params(body)
    assert evaluate(p["m"].tree, {"m": 1.0}) == 1.0 and p["m"].text == "{m}"
    assert numbers(p["J"].items) == [(0.02, ""), (0.02, ""), (0.001, "")]
    assert isinstance(p["pos"].items[0], ast.Expr) and to_text(p["pos"].items[0].tree) == "L"
    assert numbers(p["rot"].items) == [(0.0, ""), (1.0, ""), (0.0, ""), (90.0, "deg")]
    assert p["rot"].text == "(0, 1, 0, 90deg)"

    assert (joint.type, joint.name) == ("spherical", "J1")
    assert isinstance(joint.positional[0], ast.Number) and joint.positional[0].text == "0"
    assert isinstance(joint.positional[1], ast.Ident) and joint.positional[1].name == "B1"
    assert params(joint)["model"].name == "position"
    assert numbers(params(joint)["at"].items) == [(0.0, "")] * 3

    assert fast.name == "study" and fast.positional[0].name == "fast"
    assert [(a.key, a.value.name) for a in fast.params] == [("J1.model", "velocity")]
    assert [a.key for a in soft.params] == ["J1.model", "J1.k"]
    assert soft.params[1].value.mantissa == 1e6
    assert numbers(tran.positional) == [(2.0, ""), (1.0, "m")]
    assert [v.name for v in probe.positional] == ["B1.x", "B1.z", "J1.Fz"]


# --- statements ---------------------------------------------------------------------------
def test_element_with_ports_positional_value_and_params():
    st = one("R R1 n1 0 4.7k tc = 2  K1.x=3\n")
    assert (st.type, st.name) == ("R", "R1")
    assert [v.text for v in st.positional] == ["n1", "0", "4.7k"]
    assert isinstance(st.positional[0], ast.Ident) and isinstance(st.positional[1], ast.Number)
    assert numbers(st.positional[2:]) == [(4.7, "k")]
    assert [(a.key, a.value.mantissa) for a in st.params] == [("tc", 2.0), ("K1.x", 3.0)]


def test_ports_of_many_forms():
    st = one("damper D1 B.wz gnd X1.n2 1 2n\n")
    assert [type(v).__name__ for v in st.positional] == ["Ident", "Ident", "Ident",
                                                         "Number", "Number"]
    assert [v.text for v in st.positional] == ["B.wz", "gnd", "X1.n2", "1", "2n"]


def test_keywords_keep_their_spelling_and_directives_are_lower_case():
    assert one("SPRING K1 a 0\n").type == "SPRING"
    assert one(".TRAN 1 1m\n").name == "tran"
    assert one(".Param x=1\n").name == "param"


@pytest.mark.parametrize("text, mantissa, suffix", [
    ("5kg", 5.0, "kg"), ("10mH", 10.0, "mH"), ("-2.5e-3", -2.5e-3, ""), ("300rpm", 300.0, "rpm"),
    ("2bar", 2.0, "bar"), ("1m", 1.0, "m"), ("4.7k", 4.7, "k"), ("1meg", 1.0, "meg"),
    ("3N/m", 3.0, "N/m"), ("2N*m/rad", 2.0, "N*m/rad"), ("1e-3m^3/s", 1e-3, "m^3/s"),
    ("10L/min", 10.0, "L/min"), ("0.02kg*m^2", 0.02, "kg*m^2"), (".5", 0.5, ""),
    ("+3", 3.0, ""), ("1E3", 1000.0, ""), ("2e", 2.0, "e"), ("7Pa*s/m^3", 7.0, "Pa*s/m^3"),
    ("5\u00b5", 5.0, "\u00b5"), ("3\u03a9", 3.0, "\u03a9"),
])
def test_numbers_keep_their_suffix(text, mantissa, suffix):
    value = params(one(f"R R1 a b R={text}\n"))["R"]
    assert isinstance(value, ast.Number)
    assert (value.mantissa, value.suffix, value.text) == (pytest.approx(mantissa), suffix, text)


def test_value_kinds():
    p = params(one('V V1 a 0 s=step(0, 0, 12) w=pwl(0,0, 1,5) e={2*L/m} model=position '
                   'path="dir/x y.cir" v=(1, {a}, step(1, 2, 3)) q=(q0,q1,q2,q3)\n'))
    assert isinstance(p["s"], ast.Call) and p["s"].name == "step"
    assert numbers(p["s"].args) == [(0.0, ""), (0.0, ""), (12.0, "")]
    assert p["s"].text == "step(0, 0, 12)"
    assert numbers(p["w"].args) == [(0.0, ""), (0.0, ""), (1.0, ""), (5.0, "")]
    assert evaluate(p["e"].tree, {"L": 3.0, "m": 2.0}) == 3.0     # / is division in braces
    assert p["model"].name == "position"
    assert isinstance(p["path"], ast.String) and p["path"].value == "dir/x y.cir"
    assert [type(i).__name__ for i in p["v"].items] == ["Number", "Expr", "Call"]
    assert [i.name for i in p["q"].items] == ["q0", "q1", "q2", "q3"]


def test_numbers_in_braces_are_converted():
    value = params(one("C C1 a 0 C={2*10u + 4.7k*0}\n"))["C"]
    assert evaluate(value.tree, {}) == pytest.approx(2e-5)


def test_directives():
    net = parse(textwrap.dedent("""\
        .include "sub/parts.cir"
        .lib motors
        .options rtol=1e-4 atol = 1e-8
        .ic n1=5 K1.x=0.1
        .step k 100 200 4k
        .tran 2 1m rtol=1e-6 maxstep=1m
        """), "f.cir")
    inc, lib, opt, ic, step, tran = net.statements
    assert inc.name == "include" and inc.positional[0].value == "sub/parts.cir"
    assert lib.name == "lib" and lib.positional[0].name == "motors"
    assert [(a.key, a.value.mantissa) for a in opt.params] == [("rtol", 1e-4), ("atol", 1e-8)]
    assert [(a.key, a.value.mantissa) for a in ic.params] == [("n1", 5.0), ("K1.x", 0.1)]
    assert step.positional[0].name == "k" and numbers(step.positional[1:]) == [
        (100.0, ""), (200.0, ""), (4.0, "k")]
    assert numbers(tran.positional) == [(2.0, ""), (1.0, "m")]
    assert [a.key for a in tran.params] == ["rtol", "maxstep"]


def test_title_keeps_raw_text():
    st = one(".TITLE  A (rough) test: 5kg, {x} = 2 ; a comment\n")
    assert (st.name, st.text) == ("title", "A (rough) test: 5kg, {x} = 2")


def test_subckt():
    net = parse(textwrap.dedent("""\
        .subckt dcmotor sup gnd shaft 1 PARAMS: R=2 Kt={0.05}
        R Ra sup n1 {R}
        .param half={R/2}
        .subckt brush a b
        R Rb a b 1
        .ends brush
        gyrator G1 n1 0 shaft 0 k={Kt}
        .ENDS DCMotor
        dcmotor M1 sup 0 shaft 9 R=2
        """), "f.cir")
    sub, inst = net.statements
    assert isinstance(sub, ast.Subckt) and sub.name == "dcmotor"
    assert [p.name for p in sub.ports] == ["sup", "gnd", "shaft", "1"]
    assert all(isinstance(p, ast.Ident) for p in sub.ports)
    assert [(d.key, d.value.text) for d in sub.defaults] == [("R", "2"), ("Kt", "{0.05}")]
    assert [type(s).__name__ for s in sub.body] == ["ElementStmt", "Directive", "Subckt",
                                                    "ElementStmt"]
    assert sub.body[2].name == "brush" and sub.body[2].body[0].name == "Rb"
    assert (sub.loc.line, sub.body[3].loc.line) == (1, 7)
    assert (inst.type, inst.name, inst.loc.line) == ("dcmotor", "M1", 9)


def test_end_stops_parsing():
    net = parse("R R1 a 0 1\n.END\nthis is ((( not {parsed\n", "f.cir")
    assert [s.name for s in net.statements] == ["R1"]
    net = parse("R R1 a 0 1\n.ends_not_end x\n.end ; done\n", "f.cir")
    assert [s.name for s in net.statements] == ["R1", "ends_not_end"]


# --- lines, comments, continuation ------------------------------------------------------
def test_continuation_comments_blank_lines_and_crlf():
    text = ("* a comment line\r\n"
            "\r\n"
            "R R1 a b ; trailing comment\r\n"
            "* a comment between\r\n"
            "   + R=1k\r\n"
            "+ tc=(1,\r\n"
            "+ 2)\r\n"
            "  ; only a comment\r\n"
            "  C C1 b 0 1u\r\n")
    r, c = parse(text, "f.cir").statements
    assert [(a.key, a.value.text) for a in r.params] == [("R", "1k"), ("tc", "(1,\n+ 2)")]
    assert numbers(r.params[1].value.items) == [(1.0, ""), (2.0, "")]
    assert (c.name, c.loc.line, c.loc.col) == ("C1", 9, 3)


def test_empty_and_comment_only_netlists():
    assert parse("", "f.cir").statements == []
    assert parse("* nothing\n; here\n\n", "f.cir").statements == []


def test_positions_on_a_multi_line_netlist():
    text = ("* header\n"
            ".param k=2\n"
            "\n"
            "spring  K1 B1.vx 0\n"
            "+    k={2*k}   x0=1mm\n"
            "V V1 a 0 sin(0, 1, 50)\n")
    _, spring, v = parse(text, "m.cir").statements
    assert (spring.loc.file, spring.loc.line, spring.loc.col) == ("m.cir", 4, 1)
    assert (spring.name_loc.line, spring.name_loc.col) == (4, 9)
    assert [(p.loc.line, p.loc.col) for p in spring.positional] == [(4, 12), (4, 18)]
    k, x0 = spring.params
    assert (k.loc.line, k.loc.col, k.value.loc.col) == (5, 6, 8)
    assert k.value.tree.right.loc.col == 11     # the name k inside {2*k}
    assert (x0.loc.line, x0.loc.col, x0.value.loc.col) == (5, 16, 19)
    assert spring.loc.text == "spring  K1 B1.vx 0" and k.loc.text == "+    k={2*k}   x0=1mm"
    call = v.positional[2]
    assert (call.loc.line, call.loc.col) == (6, 10)
    assert [a.loc.col for a in call.args] == [14, 17, 20]


# --- syntax errors ----------------------------------------------------------------------------
@pytest.mark.parametrize("text, line, col, message", [
    ("R R1 a b R=\n", 1, 12, "expected a value after '='"),
    ("R R1 a b R= ; comment\n", 1, 12, "expected a value after '='"),
    ("R R1 a b\n+ R=\nC C1 a 0 1\n", 2, 5, "expected a value after '='"),
    ("R R1 a b R={2*x\n", 1, 12, "unclosed '{'"),
    ("R R1 a b R=(1, 2\n", 1, 12, "unclosed '('"),
    ("V V1 a 0 sin(0, 1, 50\n", 1, 13, "unclosed '('"),
    ("R R1 a b R=1)\n", 1, 13, "unexpected ')'"),
    ("R R1 a b R={2*x)}\n", 1, 16, "unexpected ')'"),
    ("R R1 a b R={(1+2}\n", 1, 17, "unexpected '}'"),
    ("R R1 a b R=2*x\n", 1, 13, "unexpected '*'"),
    ("R R1 a b R={2 x}\n", 1, 15, "unexpected 'x'; expected an operator or '}'"),
    ("R R1 a b R={}\n", 1, 13, "unexpected '}'; expected a number, a name or '('"),
    ("R R1 a b R=1,2\n", 1, 13, "unexpected ','"),
    ("R R1 a b R=step(0,,1)\n", 1, 19, "unexpected ','; expected a value"),
    ("R R1 a b @\n", 1, 10, "unexpected character '@'"),
    ('.include "abc\n', 1, 10, "unclosed string"),
    ("* c\nR\n", 2, 2, "unexpected end of the line; expected a name"),
    ("R 1R a b\n", 1, 3, "unexpected '1R'; expected a name"),
    ("R R1 a b\n5 x y\n", 2, 1, "unexpected '5'; expected an element type or a directive"),
    ("R R1 a b c=(1 2)\n", 1, 15, "unexpected '2'; expected ')' or ','"),
    ("+ R=1\n", 1, 1, "a continuation line ('+') needs a statement before it"),
    ("R R1 a b params: R=1\n", 1, 10, "'params:' belongs on a .subckt line"),
    (".subckt s a params: R=1 b\n.ends\n", 1, 25, "only key=value pairs"),
    (".subckt\n.ends\n", 1, 1, "expected a subcircuit name"),
    (".subckt s (1,2)\n.ends\n", 1, 11, "expected a port name"),
    ("R R1 a b 1\n.ends\n", 2, 1, ".ends without a matching .subckt"),
    (".subckt foo a b\nR R1 a b 1\n", 1, 1, ".subckt foo is not closed"),
    (".subckt foo a b\n.ends bar\n", 2, 7, ".ends bar does not match .subckt foo (line 1)"),
    (".subckt foo a\n.ends foo x\n", 2, 11, ".ends takes at most the subcircuit's name"),
    ("R R1 a b R={1m}\n", 1, 13, "ambiguous"),
])
def test_syntax_errors(text, line, col, message):
    with pytest.raises(NetlistError) as info:
        parse(text, "bad.cir")
    err = info.value
    assert message in err.message
    assert (err.loc.file, err.loc.line, err.loc.col) == ("bad.cir", line, col)
    rendered = str(err).split("\n")
    assert rendered[0].startswith(f"bad.cir:{line}:{col}: ")
    assert rendered[1] == "    " + text.split("\n")[line - 1]
    assert rendered[2] == "    " + " " * (col - 1) + "^"
    for lark_word in ("Expected one of", "RPAR", "LBRACE", "_NL", "$END", "Token"):
        assert lark_word not in str(err)


def test_unknown_function_is_refused_when_the_netlist_is_read():
    # a call may name a .func (of this file or an included one): it is checked once the
    # netlist's definitions are read, before anything is elaborated
    with pytest.raises(NetlistError) as info:
        api.parse("R R1 a b R={sqr(2)}\n", "bad.cir")
    err = info.value
    assert "unknown function 'sqr'" in err.message
    assert (err.loc.file, err.loc.line, err.loc.col) == ("bad.cir", 1, 13)


def test_operator_outside_braces_hints_at_braces():
    with pytest.raises(NetlistError) as info:
        parse("R R1 a b R=1m*2\n", "f.cir")
    assert "braces" in info.value.hint


# --- the fast route (simple lines, builder run inside Lark) = the tree route ---------------
MIXED = """\
.title mixed
* comment

R R1 n1 0 4.7k tc = 2  K1.x=3
 C\tC1  n1\t0 C=1u model=position ; trailing
spring K1 B1.vx 0 k={2*k} x0=1mm
R R2 a b
+ R=1k
R R3 a b ; continued after a comment line
* between
  + R=2
V V1 a 0 V=step(0, 0, 1) w=(1,
+ 2)
damper D1 B.wz gnd X1.n2 1 2n -2.5e-3 +3 .5 1. 1e 1.e5 2E-3k -0 007
.subckt s a b params: R=1
R Rs a b R=R
.ends s
X X1 p q J1.model = velocity
R R4 a b 1.5.3 5k5 1_a 3N/m 5\u00b5 e=1e+3
R R5 a b
"""


def test_fast_route_builds_what_the_tree_route_builds():
    from circuitsim.netlist.parser import _SIMPLE_LINE
    simple = [n for n, line in enumerate(MIXED.split("\n"), 1) if _SIMPLE_LINE.fullmatch(line)]
    assert simple == [4, 5, 7, 9, 14, 16, 18, 20]   # 7 and 9 go to Lark: continued
    for text in (MIXED, MIXED.replace("\n", "\r\n"), MIXED.rstrip("\n"), "R R1 a 0 1",
                 "\n\n  * only\n", ""):
        assert repr(parse(text, "f.cir")) == repr(parse_by_tree_route(text))


def test_an_error_is_the_tree_route_error():
    # the fast route stops at the builder's error on line 1; the tree route reads all the
    # syntax first, so the error reported is still the one on line 2
    text = "R R1 a b params: R=1\nR R2 a b R=\nR R3 a b\n"
    with pytest.raises(NetlistError) as info:
        parse(text, "f.cir")
    assert (info.value.loc.line, info.value.message) == (2, "expected a value after '='")


def test_a_long_line_that_is_almost_simple_fails_fast():
    # every piece of a simple line matches one way only: no exponential backtracking
    with pytest.raises(NetlistError, match="unexpected character '@'"):
        parse("R R1 " + " ".join(["1234567890", "2.5e3k", "a.b=1.0"] * 100) + " @\n", "f.cir")


def test_parsing_in_threads():
    from concurrent.futures import ThreadPoolExecutor
    texts = [MIXED, "R R1 a 0 1\nC C1 a 0 {2*x}\n" * 50, EXAMPLE]
    expected = [repr(parse_by_tree_route(t)) for t in texts]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda t: repr(parse(t, "f.cir")), texts * 20))
    assert got == expected * 20


def test_the_garbage_collector_is_left_as_it_was():
    import gc
    was = gc.isenabled()
    try:
        for enabled in (True, False):
            gc.enable() if enabled else gc.disable()
            parse(MIXED, "f.cir")
            assert gc.isenabled() == enabled
            with pytest.raises(NetlistError):
                parse("R R1 a b R=\n", "f.cir")
            assert gc.isenabled() == enabled
    finally:
        gc.enable() if was else gc.disable()
