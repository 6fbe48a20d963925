"""Element lines with calls of plain arguments (a long pwl) take the fast route: the AST
is the tree route's, node for node and position for position, and errors are its own."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from circuitsim.errors import NetlistError
from circuitsim.netlist import parser
from circuitsim.netlist.parser import parse
from helpers import parse_by_tree_route


def _outcome(parse_):
    try:
        return repr(parse_())
    except NetlistError as exc:
        return f"error {exc.loc} {exc.message} {exc.hint}"


def _same_as_tree_route(text):
    fast = _outcome(lambda: parse(text, "f.cir"))
    assert fast == _outcome(lambda: parse_by_tree_route(text))
    return fast


def _fast_lines(text):
    """Numbers of the lines whose statement the fast route builds without Lark."""
    lines = text.split("\n")
    return [i + 1 for i in range(len(lines)) if parser._fast_statement(lines, i, "f.cir")[0]]


CALLS = """\
.title calls
V V1 a 0 V=pwl(0, 0, 1m, 12, 2.5e-3, -1.5e-3, 3, .5, 4, 1k)
V V2 a 0 pwl( 0 ,1 ,\t2, 3 ) ; positional, blanks everywhere
V V3 a 0 V = pwl(0, 0, 1, 1, breakpoints=jumps, interp = spline) R=1k
V V4 a 0 V=pwl(0, 0,
+ 1m, 12, ; a comment inside the call
* a comment line
  ; and another
+   2m, 0)
+ R=2 X=step(0,1,2)
V V5 a 0 V=pwl()
V V6 a 0 V=pwl(0, 1)W=sin(1, 2, 3)+5 name
V V7 a
+ 0 V=pwl(1e, 1.e5, 2E-3k, -0, 007, +3, 1., u, B1.x)
R R1 a b 1k
+ tc=2
V V8 a 0 V=pwl(0, 1, 2.5.3, 4)
V V9 a 0 V=pwl(0, {2*x}) W=pwl(0, (1, 2)) X=pwl(0, "s") Y=pwl(0, 3N/m, 5\u00b5)
V V10 a 0 V=pwl(0, step(0, 1, 2)) W=pwl(0,) X=pwl(0 1) Y=pwl(0, 1
+ )
"""


def routes_agree(text: str, first_for_lark: str) -> None:
    """Both routes build the same AST from ``text`` up to the statement starting with
    ``first_for_lark`` (which parses: no error), also with CRLF line ends and without
    the last newline; and from each statement from there on alone (left to Lark, each
    with its own error or AST)."""
    good = text[:text.index(first_for_lark)]
    assert not _same_as_tree_route(good).startswith("error")
    for variant in (good, good.replace("\n", "\r\n"), good.rstrip("\n")):
        _same_as_tree_route(variant)
    kind = first_for_lark[0]
    for statement in text[text.index(first_for_lark):].split("\n" + kind):
        _same_as_tree_route(statement if statement.startswith(kind) else kind + statement)


def test_the_call_route_builds_what_the_tree_route_builds():
    assert _fast_lines(CALLS) == [1, 2, 3, 4, 5, 11, 12, 13, 15]   # 13, 15: simple, continued
    routes_agree(CALLS, "V V8")


def test_positions_point_into_the_continuation_lines():
    net = parse("V V1 a 0 V=pwl(0, 0,\n* c\n+  1m, 12)\n", "f.cir")
    call = net.statements[0].params[0].value
    assert call.text == "pwl(0, 0,\n* c\n+  1m, 12)"
    assert [str(a.loc) for a in call.args] == ["f.cir:1:16", "f.cir:1:19", "f.cir:3:4",
                                               "f.cir:3:8"]
    assert call.args[2].loc.text == "+  1m, 12)"


@pytest.mark.parametrize("line, where, message", [
    ("V V1 a 0 V=pwl(0, 1, 2.5.3, 4)", "1:25", "unexpected '.3'; expected ')' or ','"),
    ("V V1 a 0 V=pwl(0, 1, 1.5.3k)", "1:25", "unexpected '.3k'; expected ')' or ','"),
    ("V V1 a 0 V=pwl(0, 1, 4,)", "1:24", "unexpected ')'; expected a value"),
    ("V V1 a 0 V=pwl(0, 1\n+ 2)", "2:3", "unexpected '2'; expected ')' or ','"),
    ("V V1 a 0 V=pwl(0, 1", "1:15", "unclosed '(': expected ')' before the end of the line"),
    ("V V1 a 0 V=pwl(0, 1, @)", "1:22", "unexpected character '@'; expected a value"),
])
def test_a_bad_number_gives_the_located_error_of_the_tree_route(line, where, message):
    with pytest.raises(NetlistError) as info:
        parse(line + "\n", "f.cir")
    assert (str(info.value.loc), info.value.message) == ("f.cir:" + where, message)
    _same_as_tree_route(line + "\n")


MANTISSAS = st.sampled_from(["0", "1", "12", "007", "1.", "1.5", ".5", "0.25", "123.456"])
EXPONENTS = st.sampled_from(["", "", "e3", "E-3", "e+12", "e", "E"])
SUFFIXES = st.sampled_from(["", "", "", "k", "u", "m", "meg", "mm", "deg", "N", "x1", "_a",
                            "N/m", "\u00b5", "^2", ".3", "@"])
NUMBERS = st.builds(lambda sign, m, e, s: sign + m + e + s, st.sampled_from(["", "-", "+"]),
                    MANTISSAS, EXPONENTS, SUFFIXES)
ARGS = st.one_of(NUMBERS, NUMBERS, st.sampled_from(["jumps", "B1.x", "u", "sin(1)", "{1}"]),
                 st.builds(lambda k, v: k + "=" + v, st.sampled_from(["breakpoints", "interp"]),
                           st.sampled_from(["jumps", "spline", "1"])))
SEPARATORS = st.sampled_from([", ", ",", " ,", "\t,\t", ",\n+ ", ", ; note\n* line\n\n+",
                              ",\n+", " ", ""])


@settings(max_examples=300, deadline=None)
@given(args=st.lists(st.tuples(ARGS, SEPARATORS), max_size=12),
       head=st.sampled_from(["V V1 a 0 V=pwl(", "V V1 a 0 pwl( ", "V V1\n+ a 0 V = pwl("]),
       tail=st.sampled_from([")", " )", ") R=1k", ")\n+ ;c\n", ")x", "", ") 1k2"]))
def test_generated_calls_parse_as_by_the_tree_route(args, head, tail):
    body = "".join(a + s for a, s in args[:-1]) + (args[-1][0] if args else "")
    _same_as_tree_route(f"* generated\n{head}{body}{tail}\nR R1 a b 1\n")


def test_a_long_pwl_never_reaches_lark(monkeypatch):
    def lark_is_not_used():
        raise AssertionError("the line went to Lark")
    monkeypatch.setattr(parser, "_larkroute", lark_is_not_used)
    pairs = ", ".join(f"{k * 1e-4!r}, {12 + k % 7 * 0.125}" for k in range(20_000))
    net = parse(f"R R1 a 0 1k\nV V1 a 0 V=pwl({pairs}, breakpoints=jumps)\n", "f.cir")
    call = net.statements[1].params[0].value
    assert len(call.args) == 40_000 and call.keywords[0].value.name == "jumps"
    last = call.args[-1]
    assert last.loc.col == len(f"V V1 a 0 V=pwl({pairs}") - len(last.text) + 1
