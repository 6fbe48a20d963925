"""The ``step=`` argument of ``Netlist.sweep`` and ``Netlist.cases``: {parameter: values}
read as the netlist line ``.step parameter value...`` would be, so that a value means,
and a bad value fails, exactly as it would in the netlist."""
from __future__ import annotations

import numbers

from ..errors import Loc, NetlistError
from . import ast, overrides
from .parser import parse as parse_text

SOURCE = "<step argument>"     # where errors in the argument are located


def _text(value) -> str:
    """A value as a ``.step`` line writes it: a number (SI) or a text with its unit."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return repr(float(value))
    if isinstance(value, str):
        return value.strip()
    raise NetlistError(f"step=: a value is a number (SI) or a text such as '2000psi', "
                       f"got {type(value).__name__} {value!r}", Loc(SOURCE, 1, 1))


def _line(name: str, values) -> tuple[str, list, list]:
    """The ``.step`` line of one parameter, its values' texts and their columns."""
    single = isinstance(values, (str, numbers.Real))
    texts = [_text(v) for v in ([values] if single else values)]
    line, starts = f".step {name}", []
    for text in texts:
        starts.append(len(line) + 2)
        line += " " + text
    return line, texts, starts


def step_entries(step: dict) -> list:
    """``{'psup': ['2000psi', 2.5e7]}`` -> entries as ``Netlist.steps`` holds them,
    [(name, [Value], Loc)], one per parameter. A value must be one value as written
    (``'2000 psi'`` is two, and is refused rather than swept as two cases)."""
    out = []
    for name, values in step.items():
        line, texts, starts = _line(name, values)
        directive = parse_text(line, SOURCE).statements[0]
        first, parsed = (directive.positional or [None])[0], directive.positional[1:]
        if not (isinstance(first, ast.Ident) and first.name == name):
            raise NetlistError(f"step=: '{name}' is not a parameter name",
                               Loc(SOURCE, 1, 7, line))
        if [v.text for v in parsed] != texts:
            bad = next(i for i, text in enumerate(texts)
                       if i >= len(parsed) or parsed[i].text != text)
            raise NetlistError(f"step=: each value of '{name}' is one number, with its unit "
                               f"if any; got '{texts[bad]}'", Loc(SOURCE, 1, starts[bad], line))
        out += overrides.steps([directive])
    return out
