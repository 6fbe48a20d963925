"""Generates docs/elements.md from the element registry (tables of ports, parameters
with units and defaults, internal variables, outputs, plus each element's docstring) and
docs/cli.md from the command line's argument parser (so that the reference and the
program cannot disagree).

    python -m circuitsim.output.docgen            # rewrite docs/elements.md and docs/cli.md
    python -m circuitsim.output.docgen --check    # exit 1 if either is stale (the tests do this)
"""
from __future__ import annotations

import argparse
import inspect
import os
import sys
from pathlib import Path

from ..elements import element_types
from ..elements.declarations import REQUIRED, RatioUnit

DOCS = Path(__file__).resolve().parents[2] / "docs"
DOC_PATH = DOCS / "elements.md"
CLI_PATH = DOCS / "cli.md"

HEADER = """# Element reference

Generated from the element registry by `python -m circuitsim.output.docgen`; do not edit by hand
(a test fails when this page is stale). Signs follow [conventions.md](conventions.md) §1:
the flow of an element is counted positive *into* the element at each port, so at its
port `a` it goes from `a` through the element to `b`.
Potentials: V (electrical), m/s (translational), rad/s (rotational), Pa (hydraulic),
K (thermal); flows: A, N, N·m, m³/s, W. Units in the tables are SI; any listed unit may be written with a
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
                    "vector": f" ({par.size}-vector)" if par.size else " (a list of any length)",
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


def _anchor(heading: str) -> str:
    """The anchor GitHub and the docs site (MyST) give a heading: lower case, every
    character but letters, digits, spaces, '-' and '_' dropped, spaces as '-'."""
    return "".join(c for c in heading.lower() if c.isalnum() or c in " -_").replace(" ", "-")


def render() -> str:
    types = element_types()
    index = ", ".join(f"[`{t.keyword}`](#{_anchor(f'{t.keyword} — {t.description}')})"
                      for t in types.values())
    body = "\n".join(element_section(t) for t in types.values())
    return HEADER + "Elements: " + index + "\n\n" + body


CLI_HEADER = """# Command line reference

Generated from the argument parser by `python -m circuitsim.output.docgen`; do not edit by hand
(a test fails when this page is stale). `python -m circuitsim ...` is the same program.

Exit codes: 0 success; 1 a difference from a golden run (`run --compare`, `compare`);
2 bad input (nothing was run; the message names `file:line:col`
or the command-line option); 3 solver failure or interrupt (Ctrl-C, SIGTERM, SIGHUP) —
the results up to that time are written (to `--out`, else `<netlist>_partial.csv`) and
the message says where and why it stopped — or results that could not be written where
asked (`E_WRITE`: a full or read-only file system at the end of the run, or for the
`--out` of `op` and `linearize`; they are written to the temporary directory, else the
home directory, and the message names the file; a case after it is not run); 70
internal error (a bug: please report it). A netlist that needs more memory than the
machine has (under the element cap: a million elements take about 5 GB) stops with
`E_MEMORY` (exit 2, 3 for `run`), not a traceback.

Environment: `CIRCUITSIM_PATH` (directories searched by `.lib` before the built-in
library), `CIRCUITSIM_INCLUDE_PATH` (directories `.include` and data files may read
from besides the netlist's own directory tree and the library), `CIRCUITSIM_MAX_ELEMENTS` (the cap on
elements after subcircuit expansion, default 1000000), `CIRCUITSIM_KERNELS` (`auto`, the
default: the compiled element kernels where numba is installed and their cache is warm,
a cold cache compiled once in the background; `numpy`; `numba`: docs/solver.md,
"Compiled element kernels"). The command runs BLAS on one thread
(`OPENBLAS_NUM_THREADS=1`, passed on to the processes it starts) unless
`OPENBLAS_NUM_THREADS`, `GOTO_NUM_THREADS` or `OMP_NUM_THREADS` is set: circuitsim's
matrices are small dense or sparse ones, where BLAS threads gain nothing and, spinning
between calls, took a small run's CPU time to 1.7 times.

Terminal control characters in anything printed (a netlist's title, a file's name) are
shown escaped (`\\x1b`), never sent to the terminal.

Output files (`--out`, `--animate`, `--plot-file`, `-o`) are checked before anything
runs: each must name a regular file (or a new one) in a writable directory, never a
directory, device, pipe or socket, and never the netlist or a file it `.include`s or
`.lib`s. A file is written whole (a temporary file renamed onto its name); with
`--stream` a write that fails stops the stream, not the run, and the incomplete file is
removed, never left under the final name. When several
studies or `.step` cases run, each writes `<stem>_<case><suffix>`, the case name's
characters other than letters, digits and `-_.=` written `_`; two cases whose names come
out equal (`.step k {1+2} {1*2}`) get `_2`, `_3` .., and the summary line names each
file; a `.step` value given twice (two cases of one name) is refused. Under
`--all-studies` a study may not be named `base` (the netlist as written) or `studies`
(the comparison table, `<stem>_studies.csv`).

"""


def _option_row(action) -> str:
    names = ", ".join(f"`{s}`" for s in action.option_strings) or f"`{action.dest}`"
    if action.nargs == 0:
        takes = ""
    else:
        metavar = action.metavar or action.dest.upper()
        if isinstance(metavar, tuple):         # nargs=3 with one name per value
            metavar = " ".join(metavar)
        takes = f"`{metavar}`" + (" ..." if action.nargs in ("+", "*") else "")
    return f"| {names} | {takes} | {(action.help or '').replace('|', '/')} |"


def render_cli() -> str:
    from ..cli import _parser
    previous = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"          # argparse wraps usage lines at the terminal width
    try:
        return _cli_page(_parser())
    finally:
        if previous is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = previous


def _cli_page(parser) -> str:
    lines = [CLI_HEADER.rstrip("\n"), "", "```text", parser.format_usage().strip(), "```",
             "", "| option | takes | meaning |", "|---|---|---|"]
    lines += [_option_row(a) for a in parser._actions if a.option_strings
              and a.dest != "help"]
    subparsers = next(a for a in parser._actions if a.choices and a.dest == "command")
    for name, sub in subparsers.choices.items():
        lines += ["", f"## `circuitsim {name}`", "", sub.description or "", "", "```text",
                  sub.format_usage().strip(), "```", "", "| argument | takes | meaning |",
                  "|---|---|---|"]
        lines += [_option_row(a) for a in sub._actions if a.dest != "help"]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m circuitsim.output.docgen",
                                     description=f"Write {DOC_PATH.name} and {CLI_PATH.name}.")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if a file is stale")
    args = parser.parse_args(argv)
    pages = {DOC_PATH: render(), CLI_PATH: render_cli()}
    if args.check:
        return 0 if all(path.exists() and path.read_text() == text
                        for path, text in pages.items()) else 1
    for path, text in pages.items():
        path.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
