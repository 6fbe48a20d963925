"""The package's layers depend one way: netlist -> elements -> assembly -> solver, with
runtime (the shared run-time mathematics) below the first three.

Every ``import`` in circuitsim/ (including those inside functions) is read with the
``ast`` module and resolved to the circuitsim module it loads: ``from X import name``
counts ``X.name`` if that is a module, else ``X``. The implicit import of parent
packages' ``__init__`` is not counted.
"""
import ast
from pathlib import Path

import networkx as nx
import pytest

from helpers import REPO

PACKAGE = REPO / "circuitsim"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(name: str) -> str | None:
    """The longest prefix of a dotted name that is a circuitsim module, if any."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        if ".".join(parts[:end]) in MODULES:
            return ".".join(parts[:end])
    return None


def _imported(module: str, node) -> list:
    """The circuitsim modules one Import/ImportFrom node of ``module`` loads."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module if MODULES[module].name == "__init__.py" else module.rpartition(".")[0]
            parent = package.split(".")[:len(package.split(".")) - (node.level - 1)]
            base = ".".join(parent + ([node.module] if node.module else []))
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base
                 for alias in node.names]
    return [m for m in map(_resolve, names) if m is not None]


def _imports() -> dict:
    """module -> {imported module: 'file:line: import statement'} (first occurrence)."""
    out = {}
    for module, path in MODULES.items():
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        found = out.setdefault(module, {})
        for node in ast.walk(ast.parse(source, str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                where = (f"{path.relative_to(PACKAGE.parent)}:{node.lineno}: "
                         f"{lines[node.lineno - 1].strip()}")
                for target in _imported(module, node):
                    found.setdefault(target, where)
    return out


IMPORTS = _imports()


def _graph() -> nx.DiGraph:
    g = nx.DiGraph()
    g.add_nodes_from(MODULES)
    for module, targets in IMPORTS.items():
        for target, where in targets.items():
            g.add_edge(module, target, where=where)
    return g


def _in(module: str, *packages: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def _violations(layer: str, allowed) -> list:
    return [f"{module} imports {target}  ({where})"
            for module, targets in sorted(IMPORTS.items()) if _in(module, layer)
            for target, where in sorted(targets.items()) if not allowed(target)]


def test_modules_are_found():
    assert {"circuitsim.runtime.expressions", "circuitsim.netlist.parser",
            "circuitsim.assembly.system", "circuitsim.solver.bdf"} <= set(MODULES)
    assert "circuitsim.runtime.names" in IMPORTS["circuitsim.assembly.numbering"]


def test_no_import_cycles():
    g = _graph()
    try:
        cycle = nx.find_cycle(g)
    except nx.NetworkXNoCycle:
        return
    steps = "\n  ".join(f"{a} -> {b}  ({g.edges[a, b]['where']})" for a, b in cycle)
    pytest.fail(f"import cycle among {', '.join(a for a, _ in cycle)}:\n  {steps}")


@pytest.mark.parametrize("layer", ["circuitsim.runtime", "circuitsim.elements",
                                   "circuitsim.assembly", "circuitsim.solver"])
def test_lower_layers_do_not_import_the_netlist(layer):
    bad = _violations(layer, lambda target: not _in(target, "circuitsim.netlist"))
    if bad:
        pytest.fail(f"{layer} must not import circuitsim.netlist:\n  " + "\n  ".join(bad))


@pytest.mark.parametrize("layer, allowed", [
    ("circuitsim.solver", ("circuitsim.solver", "circuitsim.errors", "circuitsim.arrays")),
    ("circuitsim.runtime", ("circuitsim.runtime", "circuitsim.errors", "circuitsim.arrays")),
])
def test_self_contained_layers(layer, allowed):
    """The solver and the runtime import only their own modules and a few leaves, and
    so does everything those leaves import (checked on the whole import closure)."""
    bad = _violations(layer, lambda target: _in(target, *allowed))
    if bad:
        pytest.fail(f"{layer} may import only {', '.join(allowed)}:\n  " + "\n  ".join(bad))
    g = _graph()
    for module in (m for m in MODULES if _in(m, layer)):
        for target in nx.descendants(g, module):
            if not _in(target, *allowed):
                path = nx.shortest_path(g, module, target)
                steps = "\n  ".join(g.edges[a, b]["where"] for a, b in zip(path, path[1:]))
                pytest.fail(f"{module} reaches {target} through:\n  {steps}")


# --- the element protocol is the only way in --------------------------------------------
OUTSIDE_ELEMENTS = {m: p for m, p in MODULES.items() if not _in(m, "circuitsim.elements")}


def _outputs_recognisable_by_name() -> set:
    """Names of element outputs that code could match to recognise a joint or a body
    (reactions, violations, coordinates): "gap", ".gap", "Fx", ..."""
    from circuitsim.elements import element_types
    names = {o.name for t in element_types().values() for o in t.outputs
             if o.kind in ("violation", "force", "moment", "coordinate")}
    return names | {"." + n for n in names}


def _code_nodes(tree):
    """Every node but docstrings."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [node for node in ast.walk(tree) if id(node) not in docstrings]


@pytest.mark.parametrize("module", sorted(OUTSIDE_ELEMENTS))
def test_element_types_are_asked_through_the_protocol(module):
    """Outside elements/: no hasattr (a capability is declared on ElementType in
    elements/base.py or on a protocol in elements/protocols.py, with a default), no
    private attribute of an element type
    (``etype._F0``), no joint or body recognised by the name of an output (outputs carry
    a kind)."""
    path = OUTSIDE_ELEMENTS[module]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names = _outputs_recognisable_by_name()
    bad = []
    for node in _code_nodes(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "hasattr":
            bad.append(f"line {node.lineno}: hasattr(...)")
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                and not node.attr.startswith("__")):
            owner = node.value
            owner_name = getattr(owner, "attr", None) or getattr(owner, "id", None)
            if owner_name in ("etype", "type", "element_type"):
                bad.append(f"line {node.lineno}: private attribute {owner_name}.{node.attr}")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value in names:
            bad.append(f"line {node.lineno}: output name {node.value!r}")
    assert not bad, f"{path.relative_to(REPO)}: " + "; ".join(bad)


def test_no_function_is_longer_than_80_lines():
    """Every function and method in circuitsim/ fits in 80 lines, counted from its
    ``def`` to its last line (decorators excluded, docstring included): a longer one
    does more than one thing."""
    longest = 80
    too_long = []
    for path in MODULES.values():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > longest:
                    too_long.append(f"{path.relative_to(REPO)}:{node.lineno}:{node.name} "
                                    f"({length} lines)")
    assert not too_long, (f"functions longer than {longest} lines:\n  "
                          + "\n  ".join(too_long))


JOINT_MODEL_OWNERS = ("p", "p_init", "group")   # names a group's prepared parameters go by


def _reads_joint_model(node) -> bool:
    """``p.model`` / ``g.p.model``, ``params["model"]``, ``params.get("model")``, or the
    string "model" compared with something."""
    if isinstance(node, ast.Attribute) and node.attr == "model":
        owner = node.value
        return (getattr(owner, "id", None) or getattr(owner, "attr", None)) in JOINT_MODEL_OWNERS
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "model"
    if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "get":
        owner = node.func.value
        return ((getattr(owner, "id", None) or getattr(owner, "attr", None)) == "params"
                and bool(node.args) and isinstance(node.args[0], ast.Constant)
                and node.args[0].value == "model")
    if isinstance(node, ast.Compare):
        return any(isinstance(side, ast.Constant) and side.value == "model"
                   for side in [node.left, *node.comparators])
    return False


def _names_implicit_ports(node) -> bool:
    return ((isinstance(node, ast.Attribute) and node.attr == "implicit_ports")
            or (isinstance(node, ast.Name) and node.id == "implicit_ports")
            or (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and "implicit_ports" in node.value))


@pytest.mark.parametrize("module", sorted(OUTSIDE_ELEMENTS))
def test_bodies_and_joints_are_asked_through_their_protocols(module):
    """Outside elements/: a body is recognised by ``is_body`` (the name
    ``implicit_ports``, which stood for it, does not come back), and a joint's ``model``
    parameter is not read: what depends on it is a question to JointProtocol
    (``is_rigid``, ``is_compliant``, ``positions_drift``)."""
    path = OUTSIDE_ELEMENTS[module]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    bad = []
    for node in _code_nodes(tree):
        if _names_implicit_ports(node):
            bad.append(f"line {node.lineno}: implicit_ports (ask is_body)")
        if _reads_joint_model(node):
            bad.append(f"line {node.lineno}: reads a joint's model parameter (ask the joint "
                       "protocol)")
    assert not bad, f"{path.relative_to(REPO)}: " + "; ".join(bad)


def test_the_protocol_checks_see_what_they_look_for():
    """The checks themselves, on made-up lines: each read is seen, a location looked up
    by the parameter's name (for a message) is not."""
    seen = ['g.p.model == "velocity"', 'p.model', 'inst.params["model"]',
            'inst.params.get("model")', '"model" == key', 'etype.implicit_ports',
            'getattr(etype, "implicit_ports")']
    for line in seen:
        nodes = list(ast.walk(ast.parse(line)))
        assert any(_reads_joint_model(n) or _names_implicit_ports(n) for n in nodes), line
    for line in ['e.param_locs.get("model", e.loc)', 'case.model', 'g.etype.is_body']:
        nodes = list(ast.walk(ast.parse(line)))
        assert not any(_reads_joint_model(n) or _names_implicit_ports(n) for n in nodes), line


# What every element has stays small enough to read: a hook of one kind of element goes
# to that kind's protocol (elements/protocols.py), not onto ElementType.
MAX_ELEMENT_TYPE_MEMBERS = 40


def _class_members(path: Path, name: str) -> list:
    """The names a class body declares: methods and (annotated) class attributes."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    cls = next(node for node in tree.body if isinstance(node, ast.ClassDef)
               and node.name == name)
    out = []
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(node.name)
        elif isinstance(node, ast.AnnAssign):
            out.append(node.target.id)
        elif isinstance(node, ast.Assign):
            out += [target.id for target in node.targets if isinstance(target, ast.Name)]
    return out


def test_element_type_declares_few_members():
    members = _class_members(PACKAGE / "elements" / "base.py", "ElementType")
    assert len(members) <= MAX_ELEMENT_TYPE_MEMBERS, (
        f"ElementType declares {len(members)} members (at most {MAX_ELEMENT_TYPE_MEMBERS}): "
        f"{', '.join(members)}; move the hooks of one kind of element to its protocol")


def test_the_member_count_sees_methods_and_class_attributes():
    """The count itself, on ElementType's known members."""
    members = _class_members(PACKAGE / "elements" / "base.py", "ElementType")
    assert {"keyword", "ports", "is_body", "is_joint", "residual", "jacobian"} <= set(members)
    assert len(members) == len(set(members))


EXPORTS = ("circuitsim.bridges.fmu", "circuitsim.bridges.fmu_slave")


def test_bridges_write_text_and_use_only_the_errors_below():
    """An import bridge (bridges/, but the exports) reads another format and returns
    netlist text: of the layers below it uses only the errors and the rigid body's
    inertia rule (elements/body.py). An export (the FMU) loads a netlist as a user does,
    through the API. No layer imports a bridge but the API and the command line."""
    allowed = ("circuitsim.bridges", "circuitsim.errors", "circuitsim.elements.body")
    bad = [line for line in _violations("circuitsim.bridges",
                                        lambda target: _in(target, *allowed))
           if not line.startswith(tuple(e + " " for e in EXPORTS))]
    assert not bad, "circuitsim.bridges imports:\n  " + "\n  ".join(bad)
    users = [f"{module} imports {target}  ({where})"
             for module, targets in sorted(IMPORTS.items())
             if not _in(module, "circuitsim.bridges", "circuitsim.api", "circuitsim.cli")
             for target, where in targets.items() if _in(target, "circuitsim.bridges")]
    assert not users, "\n  ".join(users)
