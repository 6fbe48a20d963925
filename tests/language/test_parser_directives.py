"""Directive and .title lines, and plain braces, take the fast route: the AST is the tree
route's, node for node and position for position, errors are its own, and a netlist
of such lines is parsed without importing Lark."""
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from circuitsim.errors import NetlistError
from circuitsim.netlist import larkroute, plainexpr
from helpers import REPO
from test_parser_braces import expressions
from test_parser_calls import _fast_lines, _same_as_tree_route, routes_agree

DIRECTIVES = """\
.title  Directives ; a comment
.TITLE upper case, kept as written
.param m=1 L=0.5mH Ja={m*L^2/12}   ; trailing
.gravity 0 0 -9.81
.tran 2 0.5
.probe B1.x B1.y
+ B2.x
.options rtol=1.5e-06 atol=1.5e-8
.study fast J1.model=velocity J2.k=1e7
.measure W integ {Fs*(v1 - v2)} from=tc to=tsmax
.ic crank.wz=8 spin={Om0}
.subckt half in out params: k=1 R={2*k}
.ends half
.func norm3(x, y, z) = {sqrt(x^2 + y^2 + z^2)}
.FUNC px(t)={0.03*sin(pi*t)}
.func f(t) {t^2}
.step lam 1 0.75
V V1 a 0 V=step(0, 0, {V}) W=pwl(0, {t0}, k={2*a}, 3)
.titled 1
.lib "gear"
.param x={a >= 1}
.func g(t) = {let(a=t, a^2)}
.func h(t) = {t} 1
.subckt s a params: k=1 2
.param params: k=1
R R1 a b params: k=1
.title continued
+ 1
.param a=1 .b
.tran(1)
"""


def test_the_directive_route_builds_what_the_tree_route_builds():
    assert _fast_lines(DIRECTIVES) == [*range(1, 7), *range(8, 20)]   # 7: 6's '+' line
    routes_agree(DIRECTIVES, '.lib "gear"')                   # from there on: Lark's


@settings(max_examples=300, deadline=None)
@given(items=st.lists(st.sampled_from(["1", "-2.5e3", "a", "B1.x", "k=1", "k = {2*m}",
                                       "{m}", "(1, {m})", "f(1, {m})", "params:", "x=",
                                       "\n+ ", " ; c\n+", "=", '"s"', "{m >= 1}"]),
                      max_size=6),
       head=st.sampled_from([".param", ".TRAN", ".subckt s", ".func", ".title", " .x_1"]))
def test_generated_directives_parse_as_by_the_tree_route(items, head):
    _same_as_tree_route(f"* generated\n{head} {' '.join(items)}\nR R1 a b 1\n")


@settings(max_examples=500, deadline=None)
@given(text=expressions())
def test_a_plain_brace_is_read_as_lark_reads_it(text):
    """The descent gives Lark's tree (positions included), or leaves the brace to Lark;
    it never reads a brace Lark refuses."""
    try:
        want = repr(larkroute.brace_template(text))
    except Exception:                    # noqa: BLE001 - Lark's refusal, in any form
        want = "refused"
    try:
        got = plainexpr.parse(text)
    except NetlistError:                 # the builder's own error (a unit): Lark's too
        got = "refused"
    assert got is None or (got if got == "refused" else repr(got)) == want


def test_the_usual_braces_are_read_without_lark():
    for text in ("m*L^2/12", " -2^-2 + sin(pi*time)/(1+abs(v(a, b))) - i(V1) * 3k ",
                 "2^3^2", "a**-b", "+x", "-(1)", "f()", "max(1, 2, m)*1e3u", "B1.x",
                 "(((a)))", "1e-3", ".5", "4.7k"):
        assert repr(plainexpr.parse(text)) == repr(larkroute.brace_template(text)), text
    for text in ("1 2", "m*", "(1", "1)", "f(1,)", "", "2.5.3", "a b", "\u00b5",
                 "-" * (plainexpr.MAX_DEPTH + 2) + "1", "(" * 100 + "1" + ")" * 100):
        assert plainexpr.parse(text) is None, text


def test_a_netlist_of_such_lines_does_not_import_lark():
    code = ("import sys\n"
            "from circuitsim import api\n"
            "api.load(sys.argv[1])\n"
            "print('lark' in sys.modules)\n")
    for name in ("dcmotor", "fourbar", "gyroscope", "rlc"):
        done = subprocess.run([sys.executable, "-c", code, f"netlists/{name}.cir"],
                              capture_output=True, text=True, cwd=REPO)
        assert done.returncode == 0, done.stderr
        assert done.stdout.split() == ["False"], name
