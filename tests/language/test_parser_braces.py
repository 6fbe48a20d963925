"""Element lines with braces and vectors (a body's inertia, a joint's place) take the fast
route: each distinct brace is parsed once and moved to its place. The AST is the tree
route's, node for node and position for position, and errors are its own."""
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from circuitsim.netlist import parser
from circuitsim.netlist.parser import parse
from helpers import NETLISTS, parse_by_tree_route
from test_parser_calls import _fast_lines, _same_as_tree_route, routes_agree

LIBRARY = Path(__file__).resolve().parents[2] / "library"

BRACES = """\
.title braces and vectors
.param m=1 L=0.5
body B1 m={m} J=({m*L^2/12}, {m*L^2/12}, {1e-4}) pos=({0.5*L}, 0, 0) rot=(0, 1, 0, 90deg)
body B2 m={m} J=({m*L^2/12}, {m*L^2/12}, {1e-4}) pos=({1.5*L}, 0, 0) rot=(0, 1, 0, 90deg)
spherical J2 B1 B2 at=( {1*L} ,0,\t0 ) model=position
R R1 a b R={ -2^-2 + sin(pi*time)/(1+abs(v(a, b))) - i(V1) * 3k } tc=2
R R2 a b R={max(1, 2, m)*1e3u}(1, {m})x
B B1 a 0 V={2*v(a)}
+ W=({exp(-time)},
* a comment line
+ 2)
R R3 a b R={m;comment}
R R4 a b R={a <= b} W={f(x=1)} X={table(time, "t.csv")} Y=(1, (2, 3)) Z=("s", 1)
R R5 a b R={m} W=() X=(1,) Y=(1 2) Z=(a=1)
"""


def test_the_brace_route_builds_what_the_tree_route_builds():
    assert _fast_lines(BRACES) == [1, 2, 3, 4, 5, 6, 7, 8]  # 8: over '+' and comment lines
    routes_agree(BRACES, "R R3")                            # R3 on: left to Lark


def test_a_repeated_brace_is_placed_where_it_is_written():
    """The second {m*L} is the first one's parse moved: its names point at their own line
    and column, not at the first line's."""
    net = parse("R R1 a b R={m*L}\nR R2 a b R=1 W={m*L}\n", "f.cir")
    first, second = (st.params[-1].value for st in net.statements)
    assert str(first.loc) == "f.cir:1:12" and str(second.loc) == "f.cir:2:16"
    assert [str(n.loc) for n in (second.tree.left, second.tree.right)] == ["f.cir:2:17",
                                                                           "f.cir:2:19"]
    assert second.tree.left.loc.text == "R R2 a b R=1 W={m*L}"


def test_an_error_in_a_brace_is_the_tree_routes():
    for text in ("R R1 a b R={m*}\n", "R R1 a b R={1 2}\n", "R R1 a b R={sin(}\n",
                 "R R1 a b R=({1}, {2m m})\n", "R R1 a b R={sin(1, 2)}\n",
                 "R R1 a b R={1xyz}\n", "R R1 a b R={" + "-(" * 300 + "1" + ")" * 300 + "}\n"):
        assert _same_as_tree_route(text).startswith("error")
    # a long sum is balanced (not an error), as the tree route balances it; the fast
    # route leaves it to Lark (its unbalanced tree is deeper than Python's recursion)
    long_sum = "R R1 a b R=({m}, {" + "+".join(["x"] * 3000) + "})\n"
    assert not _same_as_tree_route(long_sum).startswith("error")
    assert _fast_lines(long_sum) == []
    at_limit = "R R1 a b R={" + "+".join(["x"] * (parser.BRACE_CHARS // 2)) + "}\n"
    assert _fast_lines(at_limit) == [1]
    _same_as_tree_route(at_limit)


def test_every_shipped_netlist_and_library_file_parses_as_by_the_tree_route():
    files = sorted(NETLISTS.glob("*.cir")) + sorted(LIBRARY.rglob("*.lib"))
    assert len(files) > 20
    for path in files:
        _same_as_tree_route(path.read_text())


ATOMS = st.sampled_from(["m", "L", "B1.x", "time", "pi", "1", "2.5e-3", "4.7k", "10u", ".5",
                         "1e", "007", "v(a)", "v(a, 0)", "i(V1)", "abs(m)", "max(m, 1, L)",
                         "f(m)", "pi()", "3N", "2 3", "", "@"])
OPERATORS = st.sampled_from([" + ", "-", "*", " / ", "^", "**", "^-", "*-"])


@st.composite
def expressions(draw, depth=2):
    if depth == 0 or draw(st.booleans()):
        text = draw(ATOMS)
    else:
        left, right = draw(expressions(depth=depth - 1)), draw(expressions(depth=depth - 1))
        text = left + draw(OPERATORS) + right
    return draw(st.sampled_from(["{}", "({})", "-{}", " {} "])).format(text)


VALUES = st.one_of(st.builds("{{{}}}".format, expressions()), st.sampled_from(
    ["1", "-2.5", "90deg", "a", "B1.x", "N/m", "{m}"]))
SEPARATORS = st.sampled_from([", ", ",", " ,", ",\n+ ", ", ; note\n* line\n+", " ", ""])


@settings(max_examples=300, deadline=None)
@given(values=st.lists(st.tuples(VALUES, SEPARATORS), min_size=1, max_size=5),
       head=st.sampled_from(["body B1 pos=(", "R R1 a b R=", "R R1 a b (", "R R1\n+ a b x=("]),
       tail=st.sampled_from([")", " )", ") J=({m}, 2)", ")\n+ ;c\n", ")x", "", " {2*m}"]))
def test_generated_braces_and_vectors_parse_as_by_the_tree_route(values, head, tail):
    body = "".join(v + s for v, s in values[:-1]) + values[-1][0]
    _same_as_tree_route(f"* generated\n{head}{body}{tail}\nR R2 a b 1\n")


def test_a_long_chain_of_bodies_never_reaches_lark(monkeypatch):
    """Plain braces are read by the fast route's own descent: Lark is not used."""
    line = "body B{k} m={{m}} J=({{m*L^2/12}}, {{m*L^2/12}}, {{Ja}}) pos=({k}, 0, 0)"
    text = ".title chain\n.param m=1 L=0.5 Ja=1e-4\n" + "\n".join(
        line.format(k=k) for k in range(200)) + "\n.tran 2 0.5\n"

    def lark_is_not_used():
        raise AssertionError("the line went to Lark")
    monkeypatch.setattr(parser, "_larkroute", lark_is_not_used)
    net = parse(text, "f.cir")
    assert len(net.statements) == 203
    assert str(net.statements[-2].params[1].value.items[0].tree.left.left.loc) == "f.cir:202:21"
