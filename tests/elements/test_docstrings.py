"""Every element type is documented the same way: its module docstring (embedded in
docs/elements.md) has the sections

    Ports, Parameters, [Internal variables], Equations, Sign convention, Outputs, Example

as unindented headings in this order (Internal variables only where the element has
unknowns of its own), names every declared port, parameter and output, numbers the
equations that its residual lines cite as ``# (n)``, and gives one netlist line as the
example, which must parse, elaborate and assemble. The tests are parametrised over the
registry, so a new element fails them until it is documented so."""
import inspect
import io
import re
import sys
import tokenize

import pytest

import circuitsim
from circuitsim.elements import element_types

REQUIRED = ("Ports", "Parameters", "Equations", "Sign convention", "Outputs", "Example")
OPTIONAL = {"Internal variables": "Equations"}       # optional heading: the one it precedes
TYPES = sorted(element_types().items())
KEYWORDS = [keyword for keyword, _ in TYPES]


def _bodies(*names: str) -> str:
    return "\n".join(f"body {n} m=1 J=(0.01, 0.01, 0.01)" for n in names)


# What an example line needs around it to be a circuit that assembles: the bodies its
# frames name, a path to ground, the variables an expression reads. A keyword missing
# here gets no context: its example must then stand alone.
# what the example line's nodes need besides it: a node ends on one terminal only where
# that terminal sets or senses its potential (language.md)
CONTEXT = {
    "b": ".param k=50 k3=4e4\nmass M1 v m=0.5\nspring K0 v 0 k=0 x0=0.05",
    "c": "V V1 n1 0 V=1\nR R1 n1 n3 R=1k",
    "damper": "mass M1 v1 m=1",
    "friction": "mass M1 v1 m=1",
    "gyrator": "V V1 p 0 V=1\nmass M1 v m=1",
    "inertia": "damper D1 w 0 b=1e-3",
    "mass": "damper D1 v1 0 b=1",
    "spring": "mass M1 v1 m=1",
    "stop": "mass M1 v m=1",
    "beam": "body N1 m=1 J=(0.01, 0.01, 0.01) pos=(1, 0, 0)",
    "cylindrical": _bodies("piston"),
    "fixed": _bodies("beam1", "beam2"),
    "force": _bodies("B1"),
    "i": "mass M1 v1 m=1",
    "l": "V V1 n2 0 V=1\nR R1 n3 0 R=10",
    "norotation": _bodies("B1"),
    "pointplane": _bodies("B1"),
    "pointmass": _bodies("Arm1"),
    "prismatic": "body slider m=1 J=(0.01, 0.01, 0.01) pos=(0.4, 0, 0)",
    "r": "V V1 n1 0 V=1\nR R2 n2 0 R=1",
    "revolute": "body crank m=1 J=(0.01, 0.01, 0.01) pos=(0.1, 0, 0)",
    "drive": ("body arm m=1 J=(0.01, 0.01, 0.01) pos=(0.1, 0, 0)\n"
              "revolute J1 0 arm at=(0, 0, 0) axis=(0, 0, 1)"),
    "spherical": _bodies("B1"),
    "spring3d": _bodies("B1"),
    "rod": "body PLAT m=10 J=(0.2, 0.2, 0.3) pos=(0, 0, 0.4)",
    "torque": _bodies("B1"),
    "transformer": "V V1 in 0 V=12\nR Ra in arm R=1\ninertia J1 shaft J=1e-4",
    # hydraulic stores: an orifice (an R here) to the tank on their port
    "accumulator": "R Ro p 0 R=1e9 domain=hydraulic",
    "gasspring": "R Ro p 0 R=1e9 domain=hydraulic",
    "oilchamber": "R Ro p 0 R=1e9 domain=hydraulic",
    # control blocks: a source for the signal they read
    "deadzone": "sigsrc R e v=1",
    "fsense": "V V1 n1 0 V=1\nR R1 n2 0 R=1",
    "gain": "sigsrc R e v=1",
    "integ": "sigsrc R e v=1",
    "isig": "sigsrc R u v=1\ninertia J1 w J=1",
    "lag": "sigsrc R u v=1",
    "lookup": "sigsrc R u v=1",
    "lookup2": "sigsrc W w v=50\nsigsrc I i v=5",
    "pid": "sigsrc R e v=1",
    "psense": "inertia J1 w J=1",
    "ratelim": "sigsrc R ref v=1",
    "relay": "sigsrc R e v=1",
    "sat": "sigsrc R u v=1",
    "sense": "mass M1 v m=1\nspring K1 v 0 k=1",
    "sum": "sigsrc R ref v=1\nsigsrc M meas v=0",
    "tf": "sigsrc R u v=1",
    "vsig": "sigsrc R u v=1\nR R1 arm 0 R=1",
    "universal": _bodies("shaft1", "shaft2"),
    # thermal: a heat capacity on the heated node
    "heat": ("V V1 p1 0 V=1e5 domain=hydraulic\nB O1.Q p1 p2 I={1e-9*v(p1,p2)} "
             "domain=hydraulic\nV V2 p2 0 V=0 domain=hydraulic\n"
             "C Cw tw 0 C=100 ic=300 domain=thermal"),
    "rtherm": "V V1 a 0 V=1\nR Rb b 0 R=1\nC Cw tw 0 C=100 ic=20degC domain=thermal",
}


def _docstring(etype) -> str:
    return inspect.getdoc(sys.modules[etype.__module__]) or ""


def _sections(etype) -> list:
    """[(heading, text)] from the line 'Ports' on: each unindented line is a heading,
    the indented lines below it its text (what comes before Ports is the summary)."""
    lines = _docstring(etype).splitlines()
    start = lines.index("Ports") if "Ports" in lines else len(lines)
    sections = []
    for line in lines[start:]:
        if line and not line[0].isspace():
            sections.append((line, []))
        elif sections:
            sections[-1][1].append(line)
    return [(heading, "\n".join(text)) for heading, text in sections]


def _section(etype, heading: str) -> str:
    return dict(_sections(etype)).get(heading, "")


def _named(name: str, text: str) -> bool:
    """``name`` occurs in ``text`` as a word of its own (``B.vx`` names vx, ``Fs`` not F)."""
    return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text) is not None


@pytest.mark.parametrize("keyword", KEYWORDS)
def test_the_sections_are_the_same_and_in_order(keyword):
    etype = element_types()[keyword]
    headings = [heading for heading, _ in _sections(etype)]
    expected = [h for h in REQUIRED]
    for optional, before in OPTIONAL.items():
        if optional in headings:
            expected.insert(expected.index(before), optional)
    assert headings == expected, (
        f"{keyword} ({etype.__module__}): the docstring's headings are {headings}, "
        f"expected {expected}")
    for heading, text in _sections(etype):
        assert text.strip(), f"{keyword}: the section '{heading}' is empty"


@pytest.mark.parametrize("keyword", KEYWORDS)
def test_every_port_parameter_and_output_is_named(keyword):
    etype = element_types()[keyword]
    for kind, heading, names in (("port", "Ports", [p.name for p in etype.ports]),
                                 ("parameter", "Parameters", [p.name for p in etype.params]),
                                 ("output", "Outputs", [o.name for o in etype.outputs])):
        text = _section(etype, heading)
        missing = [n for n in names if not _named(n, text)]
        assert not missing, f"{keyword}: the {kind}s {missing} are not named under {heading}"


def _cited_equations(etype) -> set:
    """The equation numbers '(n)' that the comments of the element's module cite."""
    source = inspect.getsource(sys.modules[etype.__module__])
    cited = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            cited.update(re.findall(r"\((\d+'?)\)", tok.string))
    return cited


@pytest.mark.parametrize("keyword", KEYWORDS)
def test_the_equations_are_numbered_as_the_code_cites_them(keyword):
    etype = element_types()[keyword]
    text = _section(etype, "Equations")
    assert "(1)" in text, f"{keyword}: the equations are not numbered (1), (2), ..."
    missing = sorted(n for n in _cited_equations(etype) if f"({n})" not in text)
    assert not missing, (f"{keyword}: the code cites equations {missing} that the "
                         f"docstring's Equations section does not number")


@pytest.mark.parametrize("keyword", KEYWORDS)
def test_the_example_line_parses_elaborates_and_assembles(keyword):
    etype = element_types()[keyword]
    lines = re.findall(r"``(.+?)``", _section(etype, "Example"), re.S)
    assert len(lines) == 1, f"{keyword}: the Example section holds {len(lines)} ``lines``"
    line = lines[0]
    assert line.split()[0].lower() == keyword, f"{keyword}: the example is a '{line}'"
    text = CONTEXT.get(keyword, "") + "\n" + line + "\n.tran 0.01\n"
    case = circuitsim.parse(text).prepare()
    element = case.circuit.element(line.split()[1])
    assert element is not None and element.type is etype, f"{keyword}: {line}"


@pytest.mark.parametrize("keyword", KEYWORDS)
def test_the_declarations_are_described(keyword):
    """The one-line description and every parameter's description and unit: the
    tables of docs/elements.md are made of them."""
    etype = element_types()[keyword]
    assert etype.description, f"{keyword} has no description"
    for par in etype.params:
        assert par.description, f"{keyword}.{par.name} has no description"
        assert par.unit is None or par.unit, f"{keyword}.{par.name} has no unit"
