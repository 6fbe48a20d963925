"""Generates docs/elements.md from the element registry (tables of ports, parameters
with units and defaults, internal variables, outputs, plus each element's docstring).

    python -m circuitsim.docgen            # rewrite docs/elements.md
    python -m circuitsim.docgen --check    # exit 1 if it is stale (the tests do this)
"""
from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path

from .elements import element_types
from .elements.base import REQUIRED, RatioUnit

DOC_PATH = Path(__file__).resolve().parent.parent / "docs" / "elements.md"

HEADER = """# Element reference

Generated from the element registry by `python -m circuitsim.docgen`; do not edit by hand
(a test fails when this page is stale). Signs follow [conventions.md](conventions.md) §1:
the flow of an element is counted positive *into* the element at each port, so at its
port `a` it goes from `a` through the element to `b`.
Potentials: V (electrical), m/s (translational), rad/s (rotational), Pa (hydraulic);
flows: A, N, N·m, m³/s. Units in the tables are SI; any listed unit may be written with a
scale prefix or as an equivalent unit (`10mH`, `300rpm`, `2bar`, `5g`).

"""


def _unit(unit) -> str:
    if unit is None:
        return "SI (depends on the domains)"
    if isinstance(unit, str):
        return "—" if unit == "1" else unit
    if isinstance(unit, RatioUnit):
        return f"SI of {unit}"
    if isinstance(unit, (list, tuple)):
        return "(" + ", ".join("1" if u == "1" else u for u in unit) + ")"
    return "; ".join(f"{u} ({d})" for d, u in unit.items())


def _default(par) -> str:
    if par.default is REQUIRED:
        return "required"
    if par.default is None:
        return "—"
    return f"{par.default:g}" if isinstance(par.default, (int, float)) else str(par.default)


def _ports(etype) -> str:
    out = []
    for port in etype.ports:
        dom = " or ".join(port.domains) if port.domains else "any domain"
        out.append(f"`{port.name}` ({dom})")
    return ", ".join(out) or "none"


def element_section(etype) -> str:
    lines = [f"## `{etype.keyword}` — {etype.description}", "",
             f"**Ports:** {_ports(etype)}", ""]
    if etype.params:
        lines += ["| parameter | unit | default | meaning |", "|---|---|---|---|"]
        for par in etype.params:
            kind = {"time": " (constant or time function)", "choice":
                    f" (one of {', '.join(par.choices)})", "expr": " (expression in braces)",
                    "vector": f" ({par.size}-vector)",
                    "timevector": f" ({par.size}-vector; each component may be a time function)"}.get(par.kind, "")
            lines.append(f"| `{par.name}` | {_unit(par.unit)} | {_default(par)} | "
                         f"{par.description}{kind} |")
        lines.append("")
    items = [(s.name, s.unit, ("differential" if s.differential else "algebraic") +
              " unknown: " + s.description) for s in etype.states]
    items += [(o.name, o.unit, "output: " + o.description) for o in etype.outputs]
    if items:
        lines += ["| recorded as | unit | meaning |", "|---|---|---|"]
        for name, unit, text in items:
            lines.append(f"| `<name>.{name}` | {_unit(unit)} | {text} |")
        lines.append("")
    doc = inspect.getdoc(sys.modules[etype.__module__]) or ""
    lines += ["```text", doc, "```", ""]
    return "\n".join(lines)


def render() -> str:
    types = element_types()
    index = ", ".join(f"[`{t.keyword}`](#{t.keyword.lower()}--"
                      f"{''.join(c for c in t.description.lower() if c.isalnum() or c in ' -').replace(' ', '-')})"
                      for k, t in types.items())
    body = "\n".join(element_section(t) for t in types.values())
    return HEADER + "Elements: " + index + "\n\n" + body


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m circuitsim.docgen",
                                     description=f"Write {DOC_PATH.name} from the registry.")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if the file is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        current = DOC_PATH.read_text() if DOC_PATH.exists() else ""
        return 0 if current == text else 1
    DOC_PATH.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
